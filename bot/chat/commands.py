"""The product's chat commands, the same on every front-end: words in, a service call, an answer.

A front-end turns a message into a command name and words (``parse``), builds a
:class:`Context` (who asks, where), and calls :func:`execute`. The answer is a service result or
a catalogue sentence; a refusal is raised as :class:`~bot.service.errors.Refusal` and an unusable
command as :class:`Usage` (carrying the usage line's message key).
"""

from __future__ import annotations

import secrets
import shlex
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta

from bot.chat.messages import text
from bot.chat.ratelimit import RateLimiter
from bot.chat.usecase_log import log_use_case
from bot.scheduling.publishing import Picture
from bot.service import heavy
from bot.service.club import Caller, ClubService, Correction
from bot.service.errors import Refusal
from bot.service.identity import UserRef, Who
from bot.service.results import Leaderboard, RatingHistory, Result
from bot.service.schedules import check_channel

#: longer messages are refused before they are parsed
MAX_LINE = 2000


@dataclass(slots=True)
class Words:
    """A command's words: positional arguments and key=value options, and the members among
    them that the platform pointed at (a mention, a reply, the member picker), by the index
    of their word in ``args`` or by option key: :meth:`who` gives those as a
    :class:`~bot.service.identity.UserRef`, found by user id whatever their word's text."""

    args: list[str]
    options: dict[str, str]
    members: dict[int | str, UserRef] = field(default_factory=dict)

    def take(self, key: str) -> str | None:
        return self.options.pop(key, None)

    def who(self, index: int) -> Who:
        """The member named by the ``index``-th word."""
        return self.members.get(index) or self.args[index]

    def take_who(self, key: str) -> Who | None:
        """The member named by option ``key``, taken out of the options."""
        text = self.options.pop(key, None)
        return self.members.pop(key, None) or text


class Pointed:
    """Members the platform pointed at in one message's text (a Telegram text mention or
    reply, a Discord ``<@id>``): each is written into the text as a token nobody can type (it
    holds a random number of this message), and :func:`parse` turns the token's word back into
    the member's :class:`~bot.service.identity.UserRef`."""

    def __init__(self) -> None:
        self.refs: dict[str, UserRef] = {}
        self._nonce = secrets.token_hex(8)

    def mark(self, ref: UserRef) -> str:
        token = f"@{self._nonce}.{len(self.refs)}."
        self.refs[token] = ref
        return token

    def unmark(self, word: str) -> str:
        """A word with the tokens in it shown as their members' names (a mention inside
        quoted text is only text)."""
        for token, ref in self.refs.items():
            word = word.replace(token, ref.shown)
        return word


#: checks that the caller runs the chat or channel they name (an id) and that the bot may post
#: there; raises a :class:`Refusal` saying which fails (each front-end asks its platform)
ChannelCheck = Callable[[str], Awaitable[None]]


async def no_other_channel(channel: str) -> None:
    """For a front-end that cannot check who runs another chat: none may be named."""
    raise Refusal("channel_elsewhere")


@dataclass(slots=True)
class Context:
    """Who asks where, the rate limiter their commands count against (the process's one, from
    :mod:`bot.app`), and how their platform checks a chat they name."""

    service: ClubService
    caller: Caller
    limiter: RateLimiter
    check_channel: ChannelCheck = no_other_channel

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.caller.platform, self.caller.chat_id, self.caller.user)


#: what a command answers: a service result, a catalogue sentence, or a picture
Answer = Result | str | Picture
Handler = Callable[[Context, Words], Awaitable[Answer]]
#: a leaderboard card shows each rating's change over this many days
CARD_CHANGE_DAYS = 7


def parse(line: str, pointed: Pointed | None = None) -> tuple[str, Words]:
    """The command name (without the slash and any @botname) and its words; a word that is one
    of ``pointed``'s tokens names that member (by user id), shown as their name.

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
    if pointed is None or not pointed.refs:
        return command, Words(args, options)
    members: dict[int | str, UserRef] = {}
    for n, word in enumerate(args):
        if word in pointed.refs:
            members[n] = pointed.refs[word]
        args[n] = pointed.unmark(word)
    for key, value in options.items():
        if value in pointed.refs:
            members[key] = pointed.refs[value]
        options[key] = pointed.unmark(value)
    return command, Words(args, options, members)


def check_rate(limiter: RateLimiter, caller: Caller) -> None:
    """Count one command or button press of ``caller`` (per platform, chat and user) with
    ``limiter``; raises ``Refusal("rate_limited")`` past its rate (``CLUBRATING_RATE_LIMIT``).
    The platform's moderators are limited too, at ``bot.chat.ratelimit.MODERATOR_FACTOR`` times
    the rate."""
    limiter.check((caller.platform, caller.chat_id, caller.user), moderator=caller.moderator)


async def execute(ctx: Context, command: str, words: Words) -> Answer:
    """Run one command; raises :class:`Refusal` or :class:`Usage`. A caller past the rate
    limit is refused before anything runs; every call is logged as one structured line."""
    began, outcome = time.perf_counter(), "ok"
    try:
        check_rate(ctx.limiter, ctx.caller)
        entry = COMMANDS.get(command)
        if entry is None:
            raise Refusal("bad_command", command=f"/{command}"[:40])
        handler, usage_key = entry
        try:
            return await handler(ctx, words)
        except Usage:
            raise Usage(usage_key) from None
    except Refusal as refusal:
        outcome = f"refused:{refusal.key}"
        raise
    except Usage:
        outcome = "usage"
        raise
    except BaseException as error:
        outcome = f"error:{type(error).__name__}"
        raise
    finally:
        caller = ctx.caller
        log_use_case(f"{caller.platform}:{caller.chat_id}", caller.user, command[:40], outcome,
                     time.perf_counter() - began)


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


def _one_member(words: Words) -> Who:
    if len(words.args) != 1:
        raise Usage
    return words.who(0)


def _optional_member(words: Words) -> Who | None:
    return words.who(0) if words.args else None


async def _register(ctx: Context, words: Words) -> Result:
    name = " ".join(words.args) or None
    return await ctx.service.register(ctx.caller, name, words.take("birth"))


async def _rating(ctx: Context, words: Words) -> Result:
    return await ctx.service.profile(ctx.caller, _optional_member(words), words.take("ladder"))


async def _top(ctx: Context, words: Words) -> Result:
    ladder = words.args[0] if words.args else words.take("ladder")
    return await ctx.service.leaderboard(ctx.caller, ladder)


async def _challenge(ctx: Context, words: Words) -> Result:
    return await ctx.service.challenge(ctx.caller, _one_member(words), words.take("ladder"))


async def _accept(ctx: Context, words: Words) -> Result:
    return await ctx.service.answer_challenge(ctx.caller, True, _optional_number(words))


async def _decline(ctx: Context, words: Words) -> Result:
    return await ctx.service.answer_challenge(
        ctx.caller, False, _optional_number(words)
    )


async def _report(ctx: Context, words: Words) -> Result:
    options = {key: words.take(key) for key in ("handicap", "colour", "event", "ladder")}
    player: Who | None
    if len(words.args) == 2:
        opponent, result = words.who(0), words.args[1]
        player = None
    elif len(words.args) == 3:
        player, opponent, result = words.who(0), words.who(1), words.args[2]
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
    return await ctx.service.history(ctx.caller, _optional_member(words), words.take("ladder"))


async def _h2h(ctx: Context, words: Words) -> Result:
    return await ctx.service.head_to_head(ctx.caller, _one_member(words), words.take("ladder"))


async def _pending(ctx: Context, words: Words) -> Result:
    return await ctx.service.pending(ctx.caller)


async def _correct(ctx: Context, words: Words) -> Result | str:
    if not words.args:
        raise Usage
    game = _number(words.args[0])
    result = words.args[1] if len(words.args) > 1 else None
    correction = Correction(result, words.take_who("a"), words.take_who("b"),
                            words.take("handicap"))
    return await ctx.service.preview_correction(ctx.caller, game, correction)


async def _apply(ctx: Context, words: Words) -> Result | str:
    applied = await ctx.service.apply_correction(ctx.caller)
    return text("no_preview") if applied is None else applied


async def _cancel(ctx: Context, words: Words) -> str:
    game = await ctx.service.cancel_correction(ctx.caller)
    return text("no_preview") if game is None else text("correction_cancelled", game=game)


async def press_correction(service: ClubService, caller: Caller, action: str,
                           game: int) -> Result | str:
    """The Apply or Cancel button under the preview of ``game``. The button of an older
    preview (of another game), or one pressed when nothing waits, is refused."""
    if action == "apply":
        applied = await service.apply_correction(caller, game)
        if applied is None:
            raise Refusal("no_preview")
        return applied
    if await service.cancel_correction(caller, game) is None:
        raise Refusal("no_preview")
    return text("correction_cancelled", game=game)


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
    return await ctx.service.merge(ctx.caller, words.who(0), words.who(1))


async def _retire(ctx: Context, words: Words) -> Result:
    return await ctx.service.set_membership(
        ctx.caller, _one_member(words), True, words.take("ladder")
    )


async def _return(ctx: Context, words: Words) -> Result:
    return await ctx.service.set_membership(
        ctx.caller, _one_member(words), False, words.take("ladder")
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
    ladder = words.take("ladder")
    if not words.args and len(words.options) == 1:  # /set announce=yes reads as /set announce yes
        words.args.extend(words.options.popitem())
    if len(words.args) != 2:
        raise Usage
    return await ctx.service.set_setting(ctx.caller, words.args[0], words.args[1], ladder)


async def _settings(ctx: Context, words: Words) -> Result:
    ladder = words.args[0] if words.args else words.take("ladder")
    return await ctx.service.settings(ctx.caller, ladder)


async def _audit(ctx: Context, words: Words) -> Result:
    return await ctx.service.audit(ctx.caller, _optional_number(words) or 20)


async def _evaluate(ctx: Context, words: Words) -> Result:
    ladder = words.args[0] if words.args else words.take("ladder")
    return await ctx.service.evaluate(ctx.caller, ladder)


async def _undo(ctx: Context, words: Words) -> Result:
    return await ctx.service.undo(ctx.caller)


async def _moderator(ctx: Context, words: Words) -> Result:
    if len(words.args) != 2 or words.args[0] not in ("add", "remove"):
        raise Usage
    return await ctx.service.name_moderator(ctx.caller, words.who(1), words.args[0] == "add")


async def _schedule(ctx: Context, words: Words) -> Result:
    """``/schedule [ladder] cron=... tz=... channel=... size=...`` sets; ``/schedule show|pause|
    resume [ladder]``; a bare ``/schedule`` shows."""
    action = words.args[0] if words.args and words.args[0] in _SCHEDULE_ACTIONS else None
    rest = words.args[1:] if action else words.args
    if len(rest) > 1:
        raise Usage
    ladder = rest[0] if rest else words.take("ladder")
    changes = {key: words.take(key) for key in ("cron", "tz", "channel", "size")}
    if words.options or (action and any(v is not None for v in changes.values())):
        raise Usage
    if action in ("pause", "resume"):
        return await ctx.service.pause_schedule(ctx.caller, action == "pause", ladder)
    channel = changes["channel"]
    if channel is not None and (target := check_channel(channel)) is not None:
        # Posts into another chat only where the asker runs it: a moderator here is nobody
        # there. (The shell's `clubrating schedule` is the host's, and unchecked.) Whether
        # they are a moderator here, and of a ladder that exists, is refused first.
        await ctx.service.show_schedule(ctx.caller, ladder)
        await ctx.check_channel(target)
    if action == "show" or all(v is None for v in changes.values()):
        return await ctx.service.show_schedule(ctx.caller, ladder)
    return await ctx.service.set_schedule(ctx.caller, ladder, cron=changes["cron"],
                                          timezone=changes["tz"], channel=changes["channel"],
                                          size=changes["size"])


_SCHEDULE_ACTIONS = ("show", "pause", "resume")


async def _digest(ctx: Context, words: Words) -> Result:
    ladder = words.args[0] if words.args else words.take("ladder")
    return await ctx.service.digest(ctx.caller, ladder)


def _theme(words: Words) -> str:
    theme = words.take("theme") or "dark"
    if theme not in ("dark", "light"):
        raise Refusal("bad_theme", text=theme[:20])
    return theme


def _same(one: Who | None, other: Who | None) -> bool:
    """Two words that name one member: the same user id, or the same typed name."""
    if isinstance(one, str) and isinstance(other, str):
        return one.casefold() == other.casefold()
    return one == other


async def _chart(ctx: Context, words: Words) -> Picture:
    """A member's rating over time as a picture, or two members' overlaid."""
    from bot.charts.pictures import render_chart  # matplotlib loads with the first picture

    theme, ladder = _theme(words), words.take("ladder")
    if len(words.args) > 2:
        raise Usage
    whos: list[Who | None] = [words.who(n) for n in range(len(words.args))] or [None]
    if len(whos) == 2 and _same(whos[0], whos[1]):
        raise Refusal("same_member", name=words.args[0][:40])
    histories = []
    # One time cap for the histories and the drawing (they run off the event loop).
    deadline = heavy.Deadline(heavy.CHART_SECONDS, "chart_too_slow")
    for who in whos:
        history = await ctx.service.rating_history(ctx.caller, who, ladder, deadline=deadline)
        assert isinstance(history, RatingHistory)
        if not history.points or history.points[-1].games == 0:  # joined, never played
            raise Refusal("chart_empty", name=history.name, ladder=history.ladder)
        histories.append(history)
    return await heavy.within(render_chart(histories, theme), deadline)


async def _card(ctx: Context, words: Words) -> Picture | str:
    """The leaderboard as a picture, with each rating's change over the last week."""
    from bot.charts.data import ratings_of
    from bot.charts.pictures import render_card

    theme = _theme(words)
    ladder = words.args[0] if words.args else words.take("ladder")
    board = await ctx.service.leaderboard(ctx.caller, ladder)
    assert isinstance(board, Leaderboard)
    if not board.rows:
        return text("leaderboard_empty", ladder=board.ladder)
    # One time cap for last week's standings and the drawing (they run off the event loop).
    deadline = heavy.Deadline(heavy.CARD_SECONDS, "card_too_slow")
    before = await ctx.service.leaderboard_at(
        ctx.caller, timedelta(days=CARD_CHANGE_DAYS), board.ladder, deadline=deadline
    )
    assert isinstance(before, Leaderboard)
    note = text("card_note", days=CARD_CHANGE_DAYS)
    return await heavy.within(render_card(board, ratings_of(before), note, theme), deadline)


async def _help(ctx: Context, words: Words) -> str:
    lines = [text("help_title"), *(text(key) for key in MEMBER_HELP)]
    lines += [text("help_moderator_title"), *(text(key) for key in MODERATOR_HELP)]
    return "\n".join(lines)


MEMBER_HELP = [
    "help_register", "help_rating", "help_top", "help_challenge", "help_accept", "help_decline",
    "help_report", "help_confirm", "help_dispute", "help_withdraw", "help_history", "help_h2h",
    "help_pending", "help_chart", "help_card", "help_digest", "help_help", "help_as",
]
MODERATOR_HELP = [
    "help_mod_report", "help_correct", "help_void", "help_restore", "help_merge", "help_retire",
    "help_return", "help_event", "help_ladder", "help_system", "help_set", "help_settings",
    "help_audit", "help_undo", "help_moderator", "help_schedule", "help_evaluate",
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
    "chart": (_chart, "help_chart"),
    "card": (_card, "help_card"),
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
    "evaluate": (_evaluate, "help_evaluate"),
    "undo": (_undo, "help_undo"),
    "moderator": (_moderator, "help_moderator"),
    "schedule": (_schedule, "help_schedule"),
    "digest": (_digest, "help_digest"),
}


