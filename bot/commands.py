"""The product's chat commands, the same on every front-end: words in, a service call, an answer.

A front-end turns a message into a command name and words (``parse``), builds a
:class:`Context` (who asks, where), and calls :func:`execute`. The answer is a service result or
a catalogue sentence; a refusal is raised as :class:`~bot.service.errors.Refusal` and an unusable
command as :class:`Usage` (carrying the usage line's message key).
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.messages import text
from bot.service.club import Caller, ClubService, Correction
from bot.service.errors import Refusal
from bot.service.results import Result

#: longer messages are refused before they are parsed
MAX_LINE = 2000


@dataclass(slots=True)
class Words:
    """A command's words: positional arguments and key=value options."""

    args: list[str]
    options: dict[str, str]

    def take(self, key: str) -> str | None:
        return self.options.pop(key, None)


@dataclass(slots=True)
class Context:
    """Who asks where, and the corrections they are previewing (kept by the front-end)."""

    service: ClubService
    caller: Caller
    previews: dict[tuple[str, str, str], tuple[int, Correction]] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.caller.platform, self.caller.chat_id, self.caller.user)


Handler = Callable[[Context, Words], Awaitable[Result | str]]


def parse(line: str) -> tuple[str, Words]:
    """The command name (without the slash and any @botname) and its words.

    Raises :class:`Refusal` for text that is no command, too long, or badly quoted.
    """
    line = line.strip()
    if len(line) > MAX_LINE:
        raise Refusal("input_too_long", limit=MAX_LINE)
    try:
        words = shlex.split(line)
    except ValueError:
        raise Refusal("usage", usage=line[:80]) from None
    if not words or not words[0].startswith("/"):
        raise Refusal("bad_command", command=(words[0] if words else line)[:40])
    command = words[0][1:].split("@")[0].lower()
    rest = words[1:]
    args = [w for w in rest if "=" not in w or w.startswith("@")]
    options = dict(w.split("=", 1) for w in rest if "=" in w and not w.startswith("@"))
    return command, Words(args, options)


async def execute(ctx: Context, command: str, words: Words) -> Result | str:
    """Run one command; raises :class:`Refusal` or :class:`Usage`."""
    entry = COMMANDS.get(command)
    if entry is None:
        raise Refusal("bad_command", command=f"/{command}"[:40])
    handler, usage_key = entry
    try:
        return await handler(ctx, words)
    except Usage:
        raise Usage(usage_key) from None


class Usage(Exception):
    """The command's words do not fit its usage line (``args[0]``: its message key)."""


def _number(word: str) -> int:
    try:
        value = int(word.lstrip("#"))
    except ValueError:
        raise Refusal("bad_number", text=word[:20]) from None
    if value <= 0:
        raise Refusal("bad_number", text=word[:20])
    return value


def _optional_number(words: Words) -> int | None:
    return _number(words.args[0]) if words.args else None


def _one(words: Words) -> str:
    if len(words.args) != 1:
        raise Usage
    return words.args[0]


async def _register(ctx: Context, words: Words) -> Result:
    name = " ".join(words.args) or None
    return await ctx.service.register(ctx.caller, name, words.take("birth"))


async def _rating(ctx: Context, words: Words) -> Result:
    who = words.args[0] if words.args else None
    return await ctx.service.profile(ctx.caller, who, words.take("ladder"))


async def _top(ctx: Context, words: Words) -> Result:
    ladder = words.args[0] if words.args else words.take("ladder")
    return await ctx.service.leaderboard(ctx.caller, ladder)


async def _challenge(ctx: Context, words: Words) -> Result:
    return await ctx.service.challenge(ctx.caller, _one(words), words.take("ladder"))


async def _accept(ctx: Context, words: Words) -> Result:
    return await ctx.service.answer_challenge(ctx.caller, True, _optional_number(words))


async def _decline(ctx: Context, words: Words) -> Result:
    return await ctx.service.answer_challenge(
        ctx.caller, False, _optional_number(words)
    )


async def _report(ctx: Context, words: Words) -> Result:
    options = {key: words.take(key) for key in ("handicap", "colour", "event", "ladder")}
    if len(words.args) == 2:
        opponent, result = words.args
        player = None
    elif len(words.args) == 3:
        player, opponent, result = words.args
    else:
        raise Usage
    return await ctx.service.report(ctx.caller, opponent, result, player=player,
                                        **options)


async def _confirm(ctx: Context, words: Words) -> Result:
    return await ctx.service.confirm(ctx.caller, _optional_number(words))


async def _dispute(ctx: Context, words: Words) -> Result:
    game = None
    reason = words.args
    if reason and reason[0].lstrip("#").isdigit():
        game, reason = _number(reason[0]), reason[1:]
    return await ctx.service.dispute(ctx.caller, game, " ".join(reason))


async def _withdraw(ctx: Context, words: Words) -> Result:
    return await ctx.service.withdraw(ctx.caller, _optional_number(words))


async def _history(ctx: Context, words: Words) -> Result:
    who = words.args[0] if words.args else None
    return await ctx.service.history(ctx.caller, who, words.take("ladder"))


async def _h2h(ctx: Context, words: Words) -> Result:
    return await ctx.service.head_to_head(ctx.caller, _one(words), words.take("ladder"))


async def _pending(ctx: Context, words: Words) -> Result:
    return await ctx.service.pending(ctx.caller)


async def _correct(ctx: Context, words: Words) -> Result | str:
    if not words.args:
        raise Usage
    game = _number(words.args[0])
    result = words.args[1] if len(words.args) > 1 else None
    correction = Correction(result, words.take("a"), words.take("b"), words.take("handicap"))
    answer = await ctx.service.correct(ctx.caller, game, correction)
    ctx.previews[ctx.key] = (game, correction)
    return answer


async def _apply(ctx: Context, words: Words) -> Result | str:
    pending = ctx.previews.pop(ctx.key, None)
    if pending is None:
        return text("no_preview")
    game, correction = pending
    return await ctx.service.correct(ctx.caller, game, correction, apply=True)


async def _cancel(ctx: Context, words: Words) -> str:
    pending = ctx.previews.pop(ctx.key, None)
    if pending is None:
        return text("no_preview")
    return text("correction_cancelled", game=pending[0])


async def _void(ctx: Context, words: Words) -> Result:
    if not words.args:
        raise Usage
    return await ctx.service.void(ctx.caller, _number(words.args[0]),
                                      " ".join(words.args[1:]))


async def _restore(ctx: Context, words: Words) -> Result:
    return await ctx.service.void(ctx.caller, _number(_one(words)), restore=True)


async def _merge(ctx: Context, words: Words) -> Result:
    if len(words.args) != 2:
        raise Usage
    return await ctx.service.merge(ctx.caller, words.args[0], words.args[1])


async def _retire(ctx: Context, words: Words) -> Result:
    return await ctx.service.set_membership(
        ctx.caller, _one(words), True, words.take("ladder")
    )


async def _return(ctx: Context, words: Words) -> Result:
    return await ctx.service.set_membership(
        ctx.caller, _one(words), False, words.take("ladder")
    )


async def _event(ctx: Context, words: Words) -> Result:
    if len(words.args) != 2 or words.args[0] not in ("open", "close"):
        raise Usage
    return await ctx.service.set_event(
        ctx.caller, words.args[1], words.args[0] == "open", words.take("ladder")
    )


async def _ladder(ctx: Context, words: Words) -> Result:
    if len(words.args) not in (2, 3) or words.args[0] != "create":
        raise Usage
    system = words.args[2] if len(words.args) == 3 else "club"
    return await ctx.service.create_ladder(ctx.caller, words.args[1], system,
                                               words.options)


async def _system(ctx: Context, words: Words) -> Result:
    ladder = words.take("ladder")
    return await ctx.service.set_system(ctx.caller, _one(words), words.options, ladder)


async def _set(ctx: Context, words: Words) -> Result:
    if len(words.args) != 2:
        raise Usage
    return await ctx.service.set_setting(ctx.caller, words.args[0], words.args[1],
                                             words.take("ladder"))


async def _settings(ctx: Context, words: Words) -> Result:
    ladder = words.args[0] if words.args else words.take("ladder")
    return await ctx.service.settings(ctx.caller, ladder)


async def _audit(ctx: Context, words: Words) -> Result:
    return await ctx.service.audit(ctx.caller, _optional_number(words) or 20)


async def _undo(ctx: Context, words: Words) -> Result:
    return await ctx.service.undo(ctx.caller)


async def _moderator(ctx: Context, words: Words) -> Result:
    if len(words.args) != 2 or words.args[0] not in ("add", "remove"):
        raise Usage
    return await ctx.service.name_moderator(ctx.caller, words.args[1], words.args[0] == "add")


async def _help(ctx: Context, words: Words) -> str:
    lines = [text("help_title"), *(text(key) for key in MEMBER_HELP)]
    lines += [text("help_moderator_title"), *(text(key) for key in MODERATOR_HELP)]
    return "\n".join(lines)


MEMBER_HELP = [
    "help_register", "help_rating", "help_top", "help_challenge", "help_accept", "help_decline",
    "help_report", "help_confirm", "help_dispute", "help_withdraw", "help_history", "help_h2h",
    "help_pending", "help_help", "help_as",
]
MODERATOR_HELP = [
    "help_mod_report", "help_correct", "help_void", "help_restore", "help_merge", "help_retire",
    "help_return", "help_event", "help_ladder", "help_system", "help_set", "help_settings",
    "help_audit", "help_undo", "help_moderator",
]

#: command -> (handler, message key of its usage line)
COMMANDS: dict[str, tuple[Handler, str]] = {
    "register": (_register, "help_register"),
    "rating": (_rating, "help_rating"),
    "top": (_top, "help_top"),
    "challenge": (_challenge, "help_challenge"),
    "accept": (_accept, "help_accept"),
    "decline": (_decline, "help_decline"),
    "report": (_report, "help_report"),
    "confirm": (_confirm, "help_confirm"),
    "dispute": (_dispute, "help_dispute"),
    "withdraw": (_withdraw, "help_withdraw"),
    "history": (_history, "help_history"),
    "h2h": (_h2h, "help_h2h"),
    "pending": (_pending, "help_pending"),
    "help": (_help, "help_help"),
    "start": (_help, "help_help"),
    "correct": (_correct, "help_correct"),
    "apply": (_apply, "help_correct"),
    "cancel": (_cancel, "help_correct"),
    "void": (_void, "help_void"),
    "restore": (_restore, "help_restore"),
    "merge": (_merge, "help_merge"),
    "retire": (_retire, "help_retire"),
    "return": (_return, "help_return"),
    "event": (_event, "help_event"),
    "ladder": (_ladder, "help_ladder"),
    "system": (_system, "help_system"),
    "set": (_set, "help_set"),
    "settings": (_settings, "help_settings"),
    "audit": (_audit, "help_audit"),
    "undo": (_undo, "help_undo"),
    "moderator": (_moderator, "help_moderator"),
}


