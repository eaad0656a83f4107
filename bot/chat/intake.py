"""The one way in: every command and every button press of every front-end comes through here.

A front-end builds a :class:`~bot.chat.commands.Context` (who asks, where) and hands over what
the member sent, still unread: :func:`command` for a line or a slash command, :func:`press` for
a button. Here, once for every platform:

- the member's rate is counted first (:mod:`bot.chat.ratelimit`), before anything is read, so
  that an unknown command, a line that cannot be parsed and a press count like any command;
  past the rate the member is told once per window, then gets silence (``None``);
- the language of everything rendered for the update is chosen (:mod:`bot.chat.language`):
  the club's in its chat, the member's own in their private chat;
- the command or press runs (:func:`~bot.chat.commands.execute`, :func:`~bot.chat.actions.press`);
- a refusal or a usage error becomes its sentence;
- one structured log line is written (:mod:`bot.chat.usecase_log`).

What comes back is a :class:`Reply` for the front-end to show, or ``None``: say nothing.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.chat import actions
from bot.chat.commands import Answer, Context, execute
from bot.chat.language import choose, current, writing_in
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.chat.ratelimit import Silenced
from bot.chat.usecase_log import log_use_case
from bot.chat.words import Usage, Words
from bot.service.errors import Refusal

#: what a front-end's reader gives: the command's name (no slash) and its words
Read = Callable[[], tuple[str, Words]]


@dataclass(frozen=True, slots=True)
class Reply:
    """What the member is shown: ``answer`` (a refusal already as its sentence), whether it is
    a refusal (front-ends that can show it to the asker alone do so), and for a press the
    leaderboard page it shows."""

    answer: Answer
    refused: bool = False
    page: int = 0


async def command(ctx: Context, read: Read, label: str) -> Reply | None:
    """A command as the member sent it: ``read`` gives its name and words (it raises
    :class:`Refusal` for a line that is no command, too long or badly quoted); ``label`` names
    it in the log until it is read (the first word as typed, a slash command's name)."""

    async def run() -> Reply:
        nonlocal label
        name, words = read()
        label = name
        return Reply(await execute(ctx, name, words))

    return await _take(ctx, run, lambda: label)


async def press(ctx: Context, action_id: str) -> Reply | None:
    """A button press: the action named by the button's id (callback data, custom id)."""

    async def run() -> Reply:
        answer, page = await actions.press(ctx.service, ctx.caller, actions.read(action_id))
        return Reply(answer, page=page)

    return await _take(ctx, run, lambda: f"press:{action_id[:30]}")


async def answer(ctx: Context, label: str, run: Callable[[], Awaitable[Answer]]) -> Reply | None:
    """A command that the front-end answers its own way (``run``), e.g. in a member's private
    chat with the bot: counted and logged like any other."""

    async def answered() -> Reply:
        return Reply(await run())

    return await _take(ctx, answered, lambda: label)


async def _take(ctx: Context, run: Callable[[], Awaitable[Reply]],
                label: Callable[[], str]) -> Reply | None:
    caller = ctx.caller
    began, outcome = time.perf_counter(), "ok"
    try:
        # holders of the club's moderator role moderate, and so count at the moderators' rate
        ctx.limiter.check((caller.platform, caller.chat_id, caller.user),
                          moderator=caller.moderator or caller.role_moderator)
        # Everything the handler renders from here on is in its reader's language: the
        # club's in its chat, the member's own in their private chat with the bot; chosen
        # again once the command ran, which may have been /set language.
        await _choose_language(ctx)
        reply = await run()
        await _choose_language(ctx)
        return reply
    except Silenced:
        outcome = "silenced"
        return None
    except Refusal as refusal:
        outcome = f"refused:{refusal.key}"
        with writing_in(await _refusals_language(ctx)):
            return Reply(render(refusal), refused=True)
    except Usage as usage:
        outcome = "usage"
        with writing_in(await _refusals_language(ctx)):
            return Reply(text("usage", usage=text(usage.args[0])), refused=True)
    except BaseException as error:
        outcome = f"error:{type(error).__name__}"
        raise
    finally:
        log_use_case(f"{caller.platform}:{caller.chat_id}", caller.user, label()[:40], outcome,
                     time.perf_counter() - began)


async def _choose_language(ctx: Context) -> None:
    """The reader's language: the member's own in their private chat; else the club's, which
    is the one it chose, or the one a Telegram group adopts from the first administrator the
    bot hears there, or the chat's on its platform (a Discord server's), or English."""
    if ctx.private:
        choose(await _own_language(ctx))
        return
    platform, chat_id = ctx.caller.platform, ctx.caller.chat_id
    language = await ctx.service.language(platform, chat_id)
    if language is None and ctx.administrator_language is not None:
        language = await ctx.service.adopt_language(platform, chat_id,
                                                    ctx.administrator_language)
    choose(language or ctx.chat_language)


async def own_language(ctx: Context) -> str | None:
    """The member's own language (what a front-end sends them privately is written in)."""
    return await _own_language(ctx)


async def _own_language(ctx: Context) -> str | None:
    """The member's own language: the one they chose (``/set mylanguage``), else their app's."""
    caller = ctx.caller
    chosen = await ctx.service.own_language(caller.platform, caller.chat_id, caller.user)
    return chosen or ctx.own_language


async def _refusals_language(ctx: Context) -> str:
    """A refusal shown to the member alone (an alert, an ephemeral answer) is in their own
    language; one posted in the chat, in the chat's."""
    own = await _own_language(ctx) if ctx.private_refusals else None
    return own or current()
