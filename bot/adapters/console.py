"""The console chat: type what members type in a chat, as anyone, on the club ``console:local``.

With a terminal it prompts; otherwise it reads one command per line and answers each in turn,
so a session can be scripted (``clubrating run < session.txt``). ``/as alice`` speaks as alice,
``/as admin!`` as a moderator called admin. Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import logging
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TextIO

from bot.messages import text
from bot.presenter import render
from bot.service.club import Caller, ClubService, Correction
from bot.service.errors import Refusal
from bot.service.results import Result

log = logging.getLogger(__name__)

PLATFORM = "console"
CHAT = "local"
#: longer lines are refused before they are parsed
MAX_LINE = 2000


@dataclass(slots=True)
class _Words:
    """A command's words: positional arguments and key=value options."""

    args: list[str]
    options: dict[str, str]

    def take(self, key: str) -> str | None:
        return self.options.pop(key, None)


Handler = Callable[["Console", _Words], Awaitable[Result | str]]


class Console:
    def __init__(self, service: ClubService, user: str = "guest") -> None:
        self.service = service
        self.user = user
        self.moderator = False
        self._preview: tuple[int, Correction] | None = None
        self._serial = 0

    @property
    def caller(self) -> Caller:
        return Caller(PLATFORM, CHAT, self.user, self.user, self.moderator)

    def welcome(self) -> str:
        return text("console_welcome", club=f"{PLATFORM}:{CHAT}", user=self.user)

    async def handle(self, line: str) -> str:
        """The answer to one line typed by the current user."""
        line = line.strip()
        if not line or line.startswith("#"):
            return ""
        if len(line) > MAX_LINE:
            return text("input_too_long", limit=MAX_LINE)
        try:
            words = shlex.split(line)
        except ValueError:
            return text("usage", usage=line[:80])
        command, rest = words[0].lower(), words[1:]
        if not command.startswith("/"):
            return text("bad_command", command=command[:40])
        entry = COMMANDS.get(command[1:].split("@")[0])
        if entry is None:
            return text("bad_command", command=command[:40])
        handler, usage_key = entry
        args = [w for w in rest if "=" not in w or w.startswith("@")]
        options = dict(w.split("=", 1) for w in rest if "=" in w and not w.startswith("@"))
        try:
            answer = await handler(self, _Words(args, options))
        except Refusal as refusal:
            return render(refusal)
        except _Usage:
            return text("usage", usage=text(usage_key))
        except Exception:
            log.exception("console command failed: %r", line)
            return text("internal_error")
        return answer if isinstance(answer, str) else render(answer)


class _Usage(Exception):
    """The command's words do not fit its usage line."""


def _number(word: str) -> int:
    try:
        value = int(word.lstrip("#"))
    except ValueError:
        raise Refusal("bad_number", text=word[:20]) from None
    if value <= 0:
        raise Refusal("bad_number", text=word[:20])
    return value


def _optional_number(words: _Words) -> int | None:
    return _number(words.args[0]) if words.args else None


def _one(words: _Words) -> str:
    if len(words.args) != 1:
        raise _Usage
    return words.args[0]


async def _as(console: Console, words: _Words) -> str:
    name = _one(words)
    console.moderator = name.endswith("!")
    console.user = name.rstrip("!").removeprefix("@") or "guest"
    role = text("console_moderator") if console.moderator else ""
    return text("console_as", user=console.user, role=role)


async def _register(console: Console, words: _Words) -> Result:
    name = " ".join(words.args) or None
    return await console.service.register(console.caller, name, words.take("birth"))


async def _rating(console: Console, words: _Words) -> Result:
    who = words.args[0] if words.args else None
    return await console.service.profile(console.caller, who, words.take("ladder"))


async def _top(console: Console, words: _Words) -> Result:
    ladder = words.args[0] if words.args else words.take("ladder")
    return await console.service.leaderboard(console.caller, ladder)


async def _challenge(console: Console, words: _Words) -> Result:
    return await console.service.challenge(console.caller, _one(words), words.take("ladder"))


async def _accept(console: Console, words: _Words) -> Result:
    return await console.service.answer_challenge(console.caller, True, _optional_number(words))


async def _decline(console: Console, words: _Words) -> Result:
    return await console.service.answer_challenge(
        console.caller, False, _optional_number(words)
    )


async def _report(console: Console, words: _Words) -> Result:
    options = {key: words.take(key) for key in ("handicap", "colour", "event", "ladder")}
    if len(words.args) == 2:
        opponent, result = words.args
        player = None
    elif len(words.args) == 3:
        player, opponent, result = words.args
    else:
        raise _Usage
    return await console.service.report(console.caller, opponent, result, player=player,
                                        **options)


async def _confirm(console: Console, words: _Words) -> Result:
    return await console.service.confirm(console.caller, _optional_number(words))


async def _dispute(console: Console, words: _Words) -> Result:
    game = None
    reason = words.args
    if reason and reason[0].lstrip("#").isdigit():
        game, reason = _number(reason[0]), reason[1:]
    return await console.service.dispute(console.caller, game, " ".join(reason))


async def _withdraw(console: Console, words: _Words) -> Result:
    return await console.service.withdraw(console.caller, _optional_number(words))


async def _history(console: Console, words: _Words) -> Result:
    who = words.args[0] if words.args else None
    return await console.service.history(console.caller, who, words.take("ladder"))


async def _h2h(console: Console, words: _Words) -> Result:
    return await console.service.head_to_head(console.caller, _one(words), words.take("ladder"))


async def _pending(console: Console, words: _Words) -> Result:
    return await console.service.pending(console.caller)


async def _correct(console: Console, words: _Words) -> Result | str:
    if not words.args:
        raise _Usage
    game = _number(words.args[0])
    result = words.args[1] if len(words.args) > 1 else None
    correction = Correction(result, words.take("a"), words.take("b"), words.take("handicap"))
    answer = await console.service.correct(console.caller, game, correction)
    console._preview = (game, correction)
    return render(answer) + "\n" + text("console_apply_hint")


async def _apply(console: Console, words: _Words) -> Result | str:
    if console._preview is None:
        return text("console_no_preview")
    game, correction = console._preview
    answer = await console.service.correct(console.caller, game, correction, apply=True)
    console._preview = None
    return answer


async def _cancel(console: Console, words: _Words) -> str:
    if console._preview is None:
        return text("console_no_preview")
    game = console._preview[0]
    console._preview = None
    return text("console_cancelled", game=game)


async def _void(console: Console, words: _Words) -> Result:
    if not words.args:
        raise _Usage
    return await console.service.void(console.caller, _number(words.args[0]),
                                      " ".join(words.args[1:]))


async def _restore(console: Console, words: _Words) -> Result:
    return await console.service.void(console.caller, _number(_one(words)), restore=True)


async def _merge(console: Console, words: _Words) -> Result:
    if len(words.args) != 2:
        raise _Usage
    return await console.service.merge(console.caller, words.args[0], words.args[1])


async def _retire(console: Console, words: _Words) -> Result:
    return await console.service.set_membership(
        console.caller, _one(words), True, words.take("ladder")
    )


async def _return(console: Console, words: _Words) -> Result:
    return await console.service.set_membership(
        console.caller, _one(words), False, words.take("ladder")
    )


async def _event(console: Console, words: _Words) -> Result:
    if len(words.args) != 2 or words.args[0] not in ("open", "close"):
        raise _Usage
    return await console.service.set_event(
        console.caller, words.args[1], words.args[0] == "open", words.take("ladder")
    )


async def _ladder(console: Console, words: _Words) -> Result:
    if len(words.args) not in (2, 3) or words.args[0] != "create":
        raise _Usage
    system = words.args[2] if len(words.args) == 3 else "club"
    return await console.service.create_ladder(console.caller, words.args[1], system,
                                               words.options)


async def _system(console: Console, words: _Words) -> Result:
    ladder = words.take("ladder")
    return await console.service.set_system(console.caller, _one(words), words.options, ladder)


async def _set(console: Console, words: _Words) -> Result:
    if len(words.args) != 2:
        raise _Usage
    return await console.service.set_setting(console.caller, words.args[0], words.args[1],
                                             words.take("ladder"))


async def _settings(console: Console, words: _Words) -> Result:
    ladder = words.args[0] if words.args else words.take("ladder")
    return await console.service.settings(console.caller, ladder)


async def _audit(console: Console, words: _Words) -> Result:
    return await console.service.audit(console.caller, _optional_number(words) or 20)


async def _undo(console: Console, words: _Words) -> Result:
    return await console.service.undo(console.caller)


async def _help(console: Console, words: _Words) -> str:
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
    "help_audit", "help_undo",
]

#: command -> (handler, message key of its usage line)
COMMANDS: dict[str, tuple[Handler, str]] = {
    "as": (_as, "help_as"),
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
}


async def run_console(service: ClubService, lines: TextIO, out: TextIO, interactive: bool) -> None:
    """Answer lines from ``lines`` until it ends or says /quit."""
    console = Console(service)
    if interactive:
        out.write(console.welcome() + "\n")
    while True:
        if interactive:
            out.write(f"{console.user}{'!' if console.moderator else ''}> ")
            out.flush()
        line = lines.readline()
        if not line or line.strip() in ("/quit", "/exit"):
            break
        answer = await console.handle(line)
        if answer:
            out.write(answer + "\n")
            out.flush()


__all__ = ["Console", "run_console"]
