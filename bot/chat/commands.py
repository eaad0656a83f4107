"""The product's chat commands, the same on every front-end: words in, a service call, an answer.

A front-end turns a message into a command name and words (``parse``), builds a
:class:`Context` (who asks, where), and hands both to :mod:`bot.chat.intake`, which counts the
rate and calls :func:`execute`. The answer is a service result or
a catalogue sentence; a refusal is raised as :class:`~bot.service.errors.Refusal` and an unusable
command as :class:`~bot.chat.words.Usage` (carrying the usage line's message key). Reading the
words is :mod:`bot.chat.words`'s; ``/help`` is :mod:`bot.chat.help`'s, from :data:`COMMANDS`.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from bot.chat.help import MEMBER_HELP, MODERATOR_HELP, command_help, listed
from bot.chat.messages import text
from bot.chat.ratelimit import RateLimiter
from bot.chat.words import (
    MAX_LINE,
    ExtraWord,
    Pointed,
    Unbalanced,
    UnknownOption,
    Usage,
    Words,
    at_most,
    ladder_word,
    number,
    one,
    one_member,
    optional_member,
    optional_number,
    shown_key,
    split_words,
)
from bot.scheduling.publishing import Picture
from bot.service import heavy, seasons
from bot.service.club import Caller, ClubService, Correction
from bot.service.errors import Refusal
from bot.service.identity import UserRef, Who
from bot.service.moderation import MAX_AUDIT
from bot.service.parsing import RESULTS
from bot.service.puzzles import NewProblem
from bot.service.results import GameResult, Leaderboard, RatingHistory, Result
from bot.service.schedules import check_channel
from bot.service.state import folded_name

#: checks that the caller runs the chat or channel they name (an id) and that the bot may post
#: there; raises a :class:`Refusal` saying which fails (each front-end asks its platform)
ChannelCheck = Callable[[str], Awaitable[None]]


async def no_other_channel(channel: str) -> None:
    """For a front-end that cannot check who runs another chat: none may be named."""
    raise Refusal("channel_elsewhere")


#: checks that the bot may post in the caller's chat (``/board here``); raises a
#: :class:`Refusal` when it may not (each front-end asks its platform)
BoardCheck = Callable[[], Awaitable[None]]


async def may_post_here() -> None:
    """For a front-end whose chat the bot always writes in (the console)."""


@dataclass(slots=True)
class Context:
    """Who asks where, the rate limiter their commands count against (the process's one, from
    :mod:`bot.app`), and how their platform checks a chat they name."""

    service: ClubService
    caller: Caller
    limiter: RateLimiter
    check_channel: ChannelCheck = no_other_channel
    #: the member's own language as their platform says it (Telegram's language_code,
    #: Discord's locale), one of the bot's (:func:`bot.chat.language.supported`) or None
    own_language: str | None = None
    #: the chat is the member's private chat with the bot (written in their own language)
    private: bool = False
    #: refusals are shown to the member alone (an alert, an ephemeral answer): written in
    #: their own language
    private_refusals: bool = False
    #: the language the platform gives the chat (Discord's server locale), the club's until
    #: it chooses one
    chat_language: str | None = None
    #: an administrator's own language, which a club that has none adopts for good (a
    #: Telegram group: the Bot API tells no chat's language)
    administrator_language: str | None = None
    #: the answer is seen by the caller alone (their private chat with the bot, an ephemeral
    #: answer, the operator's console): where problems are shown and answered
    alone: bool = False
    #: the picture sent with the command, already kept in the picture store (its name)
    picture: str | None = None
    #: posts into the club's other chats (a club of several chats): None where there are none
    forward: Forward | None = None
    #: the platform's roles for rating bands (issue 38: Discord's); None where there are none
    roles: BandRoles | None = None
    #: checks that the bot may post in this chat, for a live leaderboard (issue 38)
    check_board: BoardCheck = may_post_here
    #: the channel the command was sent in, where the club's chat has several (a Discord
    #: server's text channel): where a live leaderboard goes
    channel: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.caller.platform, self.caller.chat_id, self.caller.user)


class BandRoles(Protocol):
    """A platform's roles that rating bands carry (issue 38; Discord's:
    :class:`bot.adapters.discord_roles.RoleSync`): checks a role the bot is to give, and shows
    or makes the role changes a ladder's bands call for, as the answer's text."""

    async def check(self, ctx: Context, role: str) -> None: ...

    async def preview(self, ctx: Context, ladder: str | None) -> str: ...

    async def sync(self, ctx: Context, ladder: str | None) -> str: ...


class Forward(Protocol):
    """Posts what a member must answer into their own chat of the club, when it is not the
    chat they were named in (:class:`bot.chat.forward.Forwarder`)."""

    async def report(self, caller: Caller, result: GameResult) -> None: ...


#: what a command answers: a service result, a catalogue sentence, or a picture
Answer = Result | str | Picture
Handler = Callable[[Context, Words], Awaitable[Answer]]
#: a leaderboard card shows each rating's change over this many days
CARD_CHANGE_DAYS = 7
#: /set's word for the language a member reads what only they see in
MY_LANGUAGE = "mylanguage"


def _command_name(word: str) -> str:
    """``/Name@bot`` as the command's name: ``name``."""
    return word[1:].split("@")[0].lower()


def _takes_text(word: str) -> bool:
    """Whether ``word`` is a command whose words are free text (a reason)."""
    entry = COMMANDS.get(_command_name(word)) if word.startswith("/") else None
    return entry is not None and entry.text


def parse(line: str, pointed: Pointed | None = None) -> tuple[str, Words]:
    """The command name (without the slash and any @botname) and its words; a word that is one
    of ``pointed``'s tokens names that member (by user id), shown as their name.

    Words are split at white space; double quotes group them (``@"Zoë Smith"``), apostrophes
    never do (issue 31: ``/register O'Brien``), and the words of a reason (``/dispute``,
    ``/void``) are taken as written, quotes and all (:func:`~bot.chat.words.split_words`).

    Raises :class:`Refusal` for text that is no command, too long, or badly quoted (a double
    quote left open).
    """
    line = line.strip()
    if len(line) > MAX_LINE:
        raise Refusal("input_too_long", limit=MAX_LINE)
    if _takes_text(line.split(maxsplit=1)[0] if line else ""):
        # A reason is taken as written (issue 31): quotes in it are its own, never grouping.
        words = line.split()
    else:
        try:
            words = split_words(line)
        except Unbalanced:
            raise Refusal("usage", usage=line[:80]) from None
    if not words or not words[0].startswith("/"):
        raise Refusal("bad_command", command=(words[0] if words else line)[:40])
    command = _command_name(words[0])
    rest = words[1:]
    options: dict[str, str] = {}
    repeated: list[str] = []
    if _takes_text(words[0]):  # a reason: every word is a word of it, = or not
        args = rest
    else:
        args = [w for w in rest if "=" not in w or w.startswith("@")]
        for key, value in (w.split("=", 1) for w in rest if "=" in w and not w.startswith("@")):
            if key in options:
                repeated.append(key)
            else:
                options[key] = value
    if pointed is None or not pointed.refs:
        return command, Words(args, options, repeated=repeated)
    members: dict[int | str, UserRef] = {}
    for n, word in enumerate(args):
        if word in pointed.refs:
            members[n] = pointed.refs[word]
        args[n] = pointed.unmark(word)
    for key, value in options.items():
        if value in pointed.refs:
            members[key] = pointed.refs[value]
        options[key] = pointed.unmark(value)
    return command, Words(args, options, members, repeated)


async def execute(ctx: Context, command: str, words: Words) -> Answer:
    """Run one command; raises :class:`Refusal` or :class:`Usage`. Front-ends come through
    :mod:`bot.chat.intake`, which counts the rate and logs each call first."""
    entry = COMMANDS.get(command)
    if entry is None:
        raise Refusal("bad_command", command=f"/{command}"[:40])
    typed = [w for n, w in enumerate(words.args) if n not in words.members]
    try:
        try:
            entry.check(words)
            return await entry.handler(ctx, words)
        except (Refusal, Usage, UnknownOption, ExtraWord):
            if command in _NAMES_MEMBERS:
                await _spaced_name(ctx, typed)
            raise
    except Usage:
        raise Usage(entry.usage) from None
    except UnknownOption as unknown:
        raise entry.unknown(command, unknown.args[0]) from None
    except ExtraWord as extra:
        raise Refusal("extra_word", word=extra.args[0][:40], usage=text(entry.usage)) from None


#: the commands whose words name members (``@name``)
_NAMES_MEMBERS = frozenset({"rating", "challenge", "report", "history", "h2h", "chart",
                            "retire", "return", "merge", "moderator", "stake"})


async def _spaced_name(ctx: Context, typed: list[str]) -> None:
    """Refuses words that failed as typed because they name a member whose name has a space
    unquoted (``/report @Zoë Smith win``: the member @Zoë, then Smith), showing the quoted form
    ``@"Zoë Smith"`` instead of the refusal of the words as read (issue 31)."""
    if not any(w.startswith("@") for w in typed[:-1]):
        return
    try:
        name = await ctx.service.spaced_name(ctx.caller, typed)
    except Refusal:  # the club cannot be read for this caller: the first refusal stands
        return
    if name is not None:
        raise Refusal("name_in_quotes", name=name)


class Command(tuple[Handler, str]):
    """One entry of :data:`COMMANDS`: its handler and the message key of its usage line (the
    pair, as a tuple), and what else it takes, declared once for the checks of :func:`execute`
    and for ``/help NAME``.

    - ``options``: the ``key=value`` options it takes, in the order help and refusals name
      them; any other key is refused before the handler runs (unless ``params``), and so is a
      key given twice;
    - ``params``: the message key describing the further ``key=value`` parameters the handler
      reads itself (a rating system's; ``/set``'s ``SETTING=VALUE``), or None;
    - ``text``: its words are free text (a reason): a word holding ``=`` is a word of it;
    - ``example``: the message key of one example of its use;
    - ``also``: the message keys of further usage lines (a moderator's form).
    """

    options: tuple[str, ...]
    params: str | None
    text: bool
    example: str
    also: tuple[str, ...]

    def __new__(cls, handler: Handler, usage: str, example: str, *,
                options: tuple[str, ...] = (), params: str | None = None, text: bool = False,
                also: tuple[str, ...] = ()) -> Command:
        entry = super().__new__(cls, (handler, usage))
        entry.options, entry.params, entry.text = options, params, text
        entry.example, entry.also = example, also
        return entry

    @property
    def handler(self) -> Handler:
        return self[0]

    @property
    def usage(self) -> str:
        return self[1]

    def check(self, words: Words) -> None:
        """Refuses an option the command does not take, then one given twice."""
        if self.params is None:
            for key in words.options:
                if key not in self.options:
                    raise UnknownOption(key)
        if words.repeated:
            raise Refusal("option_twice", option=shown_key(words.repeated[0]))

    def unknown(self, command: str, key: str) -> Refusal:
        """The refusal of option ``key``, naming those the command takes."""
        if not self.options:
            return Refusal("unknown_option_none", option=shown_key(key), command=f"/{command}")
        return Refusal("unknown_option", option=shown_key(key), command=f"/{command}",
                       options=", ".join(f"{o}=" for o in self.options))


async def _register(ctx: Context, words: Words) -> Result:
    name = " ".join(words.args) or None
    return await ctx.service.register(ctx.caller, name, words.take("birth"))


async def _rating(ctx: Context, words: Words) -> Result:
    """``/rating [@member] [ladder=NAME]``; a word that names no member but a ladder is that
    ladder (``/rating puzzles``: one's own rating there). ``season=N``: the member's line of
    the ladder's season N (issue 38)."""
    ladder = words.take("ladder")
    season = words.take("season")
    if season is not None:
        return await ctx.service.season_member(ctx.caller, season, optional_member(words),
                                               ladder)
    who = optional_member(words)
    try:
        return await ctx.service.profile(ctx.caller, who, ladder)
    except Refusal as refusal:
        typed = words.args[0] if words.args else ""
        if (refusal.key != "unknown_member" or ladder is not None or not isinstance(who, str)
                or typed.startswith("@")):
            raise
        try:
            return await ctx.service.profile(ctx.caller, None, typed)
        except Refusal as other:
            if other.key == "unknown_ladder":
                raise refusal from None
            raise


async def _top(ctx: Context, words: Words) -> Result:
    """``/top [LADDER]``; ``/top LADDER problems``: a puzzle ladder's problems, hardest first."""
    if len(words.args) == 2 and words.args[1].casefold() == PROBLEMS:
        return await ctx.service.problems(ctx.caller, words.args[0])
    season = words.take("season")
    if season is not None:  # a closed season's archived table (issue 38)
        return await ctx.service.season_table(ctx.caller, season, ladder_word(words))
    return await ctx.service.leaderboard(ctx.caller, ladder_word(words))


#: /top's word for a puzzle ladder's problems
PROBLEMS = "problems"
#: the options /puzzle reads itself (its prompt is free text, "=" and all); ``chat=`` names
#: the club in a private chat, which the front-end reads before the command runs
_PUZZLE_OPTIONS = ("ladder", "rating", "answers", "chat")


def _leading_options(rest: list[str], options: dict[str, str]) -> None:
    """Move /puzzle's ``key=value`` words at the front of ``rest`` into ``options``."""
    while rest and "=" in rest[0] and rest[0].partition("=")[0].casefold() in _PUZZLE_OPTIONS:
        key, _, value = rest.pop(0).partition("=")
        if key.casefold() in options:
            raise Refusal("option_twice", option=key.casefold())
        options[key.casefold()] = value


async def _puzzle(ctx: Context, words: Words) -> Result:
    """``/puzzle [ladder=NAME]``: a problem to solve, privately (asked in a group: where to
    solve it); ``/puzzle add ID [rating=N] answers=A|B PROMPT...`` (a moderator, privately): a
    new problem, with the picture sent with the command if any."""
    rest = list(words.args)
    options: dict[str, str] = {}
    if rest and rest[0].casefold() == "add":
        if not ctx.alone:  # its answers would show in the group
            raise Refusal("puzzle_add_private")
        rest.pop(0)
        _leading_options(rest, options)
        if not rest:
            raise Usage
        code = rest.pop(0)
        _leading_options(rest, options)
        if "answers" not in options:
            raise Usage
        problem = NewProblem(code, " ".join(rest), options["answers"].split("|"), ctx.picture,
                             options.get("rating"))
        return await ctx.service.add_problem(ctx.caller, problem, options.get("ladder"))
    _leading_options(rest, options)
    if rest:
        raise ExtraWord(rest[0])
    unknown = [key for key in options if key not in ("ladder", "chat")]
    if unknown:
        raise UnknownOption(unknown[0])
    ladder = options.get("ladder")
    if not ctx.alone:  # never the problem where others read: where to solve it
        return await ctx.service.puzzle_invite(ctx.caller, ladder)
    return await ctx.service.serve_puzzle(ctx.caller, ladder)


async def _link(ctx: Context, words: Words) -> Result:
    """``/link`` and ``/link me``: a code, shown to the caller alone; ``/link CODE [merge]``,
    ``/link me CODE``: use one."""
    args = list(words.args)
    member = bool(args) and args[0].casefold() == "me"
    if member:
        args.pop(0)
    if not args:
        return await ctx.service.link_code(ctx.caller, member)
    merge = len(args) == 2 and args[1].casefold() == "merge" and not member
    if len(args) > (2 if merge else 1):
        raise ExtraWord(args[-1])
    return await ctx.service.link(ctx.caller, args[0], member, merge)


async def _unlink(ctx: Context, words: Words) -> Result:
    """``/unlink``: a preview of this chat leaving its club, for /apply or the buttons."""
    at_most(words, 0)
    return await ctx.service.unlink(ctx.caller)


async def _night(ctx: Context, words: Words) -> Result:
    """``/night open [MODE] [rounds=N] [ladder=NAME]``, ``/night close [ladder=NAME]``."""
    if not words.args or words.args[0] not in ("open", "close"):
        raise Usage
    ladder = words.take("ladder")
    if words.args[0] == "close":
        at_most(words, 1)
        return await ctx.service.close_night(ctx.caller, ladder)
    at_most(words, 2)
    rounds = words.take("rounds")
    return await ctx.service.open_night(
        ctx.caller, words.args[1] if len(words.args) == 2 else None,
        None if rounds is None else number(rounds), ladder)


#: a role as Discord writes its mention into a command's text (``<@&id>``), or its id
_ROLE = re.compile(r"<@&([0-9]{1,20})>|([0-9]{1,20})")


async def _band(ctx: Context, words: Words) -> Answer:
    """``/band add NAME MIN_RATING [@role]``, ``/band remove NAME``, ``/band list``, and on
    Discord ``/band preview`` and ``/band sync`` (issue 38); each with ``[ladder=NAME]``."""
    if not words.args or words.args[0] not in ("add", "remove", "list", "preview", "sync"):
        raise Usage
    ladder = words.take("ladder")
    action, args = words.args[0], words.args[1:]
    if action == "add":
        if len(args) not in (2, 3):
            raise Usage
        role = None
        if len(args) == 3:
            typed = _ROLE.fullmatch(args[2])
            if typed is None:
                raise Usage
            role = typed[1] or typed[2]
            # what the service refuses first, then whether the platform lets the bot give it
            await ctx.service.add_band(ctx.caller, args[0], args[1], role, ladder,
                                       check_only=True)
            if ctx.roles is not None:
                await ctx.roles.check(ctx, role)
        return await ctx.service.add_band(ctx.caller, args[0], args[1], role, ladder)
    if action == "remove":
        at_most(words, 2)
        if len(args) != 1:
            raise Usage
        return await ctx.service.remove_band(ctx.caller, args[0], ladder)
    at_most(words, 1)
    if action == "list":
        return await ctx.service.list_bands(ctx.caller, ladder)
    if ctx.roles is None:
        raise Refusal("band_roles_discord")
    if action == "preview":
        return await ctx.roles.preview(ctx, ladder)
    return await ctx.roles.sync(ctx, ladder)


def _entering(status: str) -> Callable[[Context, Words], Awaitable[Result]]:
    """``/in``, ``/out``, ``/pause``: the caller's own, or a moderator's ``@member``."""
    async def enter(ctx: Context, words: Words) -> Result:
        return await ctx.service.enter_night(ctx.caller, status, optional_member(words),
                                             words.take("ladder"))
    return enter


async def _pair(ctx: Context, words: Words) -> Result:
    ladder = words.take("ladder")
    at_most(words, 0)
    return await ctx.service.pair_round(ctx.caller, ladder)


async def _publish(ctx: Context, words: Words) -> Result:
    ladder = words.take("ladder")
    at_most(words, 0)
    return await ctx.service.publish_round(ctx.caller, ladder)


def _two_members(words: Words) -> tuple[Who, Who]:
    """The two members a line names (``/swap @a @b``)."""
    if len(words.args) != 2:
        raise Usage
    return words.who(0), words.who(1)


async def _swap(ctx: Context, words: Words) -> Result:
    ladder = words.take("ladder")
    return await ctx.service.swap_players(ctx.caller, *_two_members(words), ladder)


async def _forbid(ctx: Context, words: Words) -> Result:
    ladder = words.take("ladder")
    return await ctx.service.forbid_pair(ctx.caller, *_two_members(words), ladder)


async def _bye(ctx: Context, words: Words) -> Result:
    return await ctx.service.give_bye(ctx.caller, one_member(words), words.take("ladder"))


async def _result(ctx: Context, words: Words) -> Result:
    """``/result BOARD 1-0|0-1|½-½|1/2-1/2|+-|-+|=``."""
    ladder = words.take("ladder")
    if len(words.args) != 2:
        raise Usage
    return await ctx.service.board_result(ctx.caller, number(words.args[0]), words.args[1],
                                          ladder)


async def _standings(ctx: Context, words: Words) -> Result:
    ladder = words.take("ladder")
    at_most(words, 0)
    return await ctx.service.night_standings(ctx.caller, ladder)


async def _answer(ctx: Context, words: Words) -> Result:
    """``/answer TEXT``: the answer to one's open problem, privately."""
    if not words.args:
        raise Usage
    if not ctx.alone:
        raise Refusal("answer_private")
    return await ctx.service.answer_puzzle(ctx.caller, " ".join(words.args))


async def _challenge(ctx: Context, words: Words) -> Result:
    return await ctx.service.challenge(ctx.caller, one_member(words), words.take("ladder"))


async def _accept(ctx: Context, words: Words) -> Result:
    return await ctx.service.answer_challenge(ctx.caller, True, optional_number(words))


async def _decline(ctx: Context, words: Words) -> Result:
    return await ctx.service.answer_challenge(
        ctx.caller, False, optional_number(words)
    )


async def _report(ctx: Context, words: Words) -> Result:
    options = {key: words.take(key) for key in ("handicap", "colour", "event", "ladder")}
    repeat = _repeat(words)
    player: Who | None
    mates: list[Who] = []
    opponents: list[Who] = []
    sides = _sides(words)
    if sides is not None:
        player, mates, opponent, opponents, result = sides
    elif len(words.args) == 2 or len(words.args) > 2 and _is_result(words, 1):
        at_most(words, 2)  # @member RESULT: a word more is extra
        opponent, result = words.who(0), words.args[1]
        player = None
    elif len(words.args) >= 3:  # @player @opponent RESULT (moderators)
        at_most(words, 3)
        player, opponent, result = words.who(0), words.who(1), words.args[2]
    else:
        raise Usage
    reported = await ctx.service.report(ctx.caller, opponent, result, player=player,
                                        repeat=repeat, mates=mates, opponents=opponents,
                                        **options)
    if (ctx.forward is not None and isinstance(reported, GameResult)
            and reported.key == "reported"):
        await ctx.forward.report(ctx.caller, reported)
    return reported


#: the words that part a team game's sides (issue 37): ``/report @a @b vs @c @d win`` (a
#: moderator's record, the first side's result) and ``/report @c @d with @b win`` (the
#: reporter's own game: opponents, then the reporter's partners)
_VERSUS, _BESIDE = "vs", "with"


def _parted(named: list[Who], *marks: str) -> tuple[str, list[Who], list[Who]] | None:
    """Members named on both sides of one typed word of ``marks`` (``vs``, ``with``; a member
    the platform pointed at is never one): the word and the members before and after it;
    None without such a word. :class:`Usage` for two of them, or none named on a side."""
    at = [k for k, who in enumerate(named) if isinstance(who, str) and who.casefold() in marks]
    if not at:
        return None
    if len(at) > 1 or not 0 < at[0] < len(named) - 1 or not all(named):
        raise Usage
    mark = named[at[0]]
    assert isinstance(mark, str)
    return mark.casefold(), named[:at[0]], named[at[0] + 1:]


def _sides(words: Words) -> tuple[Who | None, list[Who], Who, list[Who], str] | None:
    """A report naming sides: the first side's named member (None: the reporter), its further
    members, the other side's first member and its further members, and the result; None
    for a report of one member against another without ``vs`` or ``with``."""
    parted = _parted([words.who(k) for k in range(len(words.args) - 1)], _VERSUS, _BESIDE)
    if parted is None:
        return None
    if not _is_result(words, -1):
        raise Usage
    mark, before, after = parted
    if mark == _VERSUS:
        return before[0], before[1:], after[0], after[1:], words.args[-1]
    return None, after, before[0], before[1:], words.args[-1]


def _repeat(words: Words) -> bool:
    """A moderator's ``repeat=yes`` (or a last word ``repeat`` after the result): another game
    against the same opponent, not the same one twice (issue 31)."""
    given = words.take("repeat")
    if (given is None and len(words.args) >= 3 and words.args[-1].casefold() == "repeat"
            and len(words.args) - 1 not in words.members and _is_result(words, -2)):
        words.args.pop()
        return True
    if given is None:
        return False
    if given.casefold() not in ("yes", "no"):
        raise Refusal("bad_repeat", value=given[:20])
    return given.casefold() == "yes"


def _is_result(words: Words, index: int) -> bool:
    """The ``index``-th word is typed as a result (win, loss, draw...), not a member."""
    index %= len(words.args)
    return index not in words.members and words.args[index].strip().casefold() in RESULTS


async def _confirm(ctx: Context, words: Words) -> Result:
    return await ctx.service.confirm(ctx.caller, optional_number(words))


async def _dispute(ctx: Context, words: Words) -> Result:
    game = None
    reason = words.args
    if reason and reason[0].lstrip("#").isdigit():
        game, reason = number(reason[0]), reason[1:]
    return await ctx.service.dispute(ctx.caller, game, " ".join(reason))


async def _withdraw(ctx: Context, words: Words) -> Result:
    """``/withdraw [N]``, or ``/withdraw game|challenge [N]`` naming which of one's own
    (games and challenges are numbered apart: issue 31)."""
    kind = None
    if words.args and words.args[0].casefold() in ("game", "challenge"):
        kind = words.args.pop(0).casefold()
    return await ctx.service.withdraw(ctx.caller, optional_number(words), kind)


async def _history(ctx: Context, words: Words) -> Result:
    return await ctx.service.history(ctx.caller, optional_member(words), words.take("ladder"))


async def _h2h(ctx: Context, words: Words) -> Result:
    """``/h2h @member``: games against them; ``/h2h @member with``: beside them (issue 37)."""
    partners = (len(words.args) == 2 and 1 not in words.members
                and words.args[1].casefold() == _BESIDE)
    if partners:
        words.args.pop()
    return await ctx.service.head_to_head(ctx.caller, one_member(words), words.take("ladder"),
                                          partners)


async def _stake(ctx: Context, words: Words) -> Result:
    """``/stake @opp [@opp2] [with @mate]`` (issue 38): the opponents, then the caller's
    partners after ``with``, as a team report names them."""
    options = {key: words.take(key) for key in ("handicap", "colour", "ladder")}
    named = [words.who(k) for k in range(len(words.args))]
    parted = _parted(named, _BESIDE)
    opponents, mates = (named, []) if parted is None else (parted[1], parted[2])
    if not opponents:
        raise Usage
    return await ctx.service.stake(ctx.caller, opponents[0], opponents=opponents[1:],
                                   mates=mates, **options)


async def _pending(ctx: Context, words: Words) -> Result:
    at_most(words, 0)
    return await ctx.service.pending(ctx.caller)


async def _correct(ctx: Context, words: Words) -> Result | str:
    if not words.args:
        raise Usage
    # the last word ``force``: a game inside a closed season all the same (issue 38)
    force = len(words.args) > 1 and words.args[-1].casefold() == FORCE
    if force:
        words.args.pop()
    sides = _corrected_sides(words)
    at_most(words, 2)
    game = number(words.args[0])
    # the result of the player shown first in the game's line as recorded (issue 31, ERRATA)
    shown = words.args[1] if len(words.args) > 1 else None
    correction = Correction(None, words.take_who("a"), words.take_who("b"),
                            words.take("handicap"), shown=shown, sides=sides, force=force)
    return await ctx.service.preview_correction(ctx.caller, game, correction)


def _corrected_sides(words: Words) -> tuple[tuple[Who, ...], tuple[Who, ...]] | None:
    """A correction's ``sides=@a @b vs @c @d`` (issue 37): the option holds the first member,
    the words after the game's number and result the rest; they are taken out of the
    words."""
    if "sides" not in words.options:
        return None
    first = words.take_who("sides")
    assert first is not None  # the option is there
    start = 2 if len(words.args) > 1 and _is_result(words, 1) else 1
    named = [first, *(words.who(k) for k in range(start, len(words.args)))]
    del words.args[start:]
    try:
        parted = _parted(named, _VERSUS)
    except Usage:
        parted = None
    if parted is None:
        raise Refusal("bad_sides")
    _, side_a, side_b = parted
    return tuple(side_a), tuple(side_b)


async def _apply(ctx: Context, words: Words) -> Result | str:
    at_most(words, 0)
    applied = await ctx.service.apply_correction(ctx.caller)
    return text("no_preview") if applied is None else applied


async def _cancel(ctx: Context, words: Words) -> str:
    at_most(words, 0)
    cancelled = await ctx.service.cancel_correction(ctx.caller)
    return (text("no_preview_to_cancel") if cancelled is None
            else text(cancelled.key, cancelled.params))


async def press_correction(service: ClubService, caller: Caller, action: str, *,
                           game: int | None = None, undo: int | None = None,
                           merge: int | None = None, system: int | None = None,
                           link: int | None = None) -> Result | str:
    """The Apply or Cancel button under the preview of a correction of game #``game`` (or of an
    /undo of action ``undo``, of a /merge of member ``merge``, of a /system numbered
    ``system``, of a chat's merge or unlink: ``link``). The button of an older preview (of
    another game), or one pressed when nothing waits, is refused."""
    if action == "apply":
        applied = await service.apply_correction(caller, game, undo, merge, system, link)
        if applied is None:
            raise Refusal("no_preview")
        return applied
    cancelled = await service.cancel_correction(caller, game, undo, merge, system, link)
    if cancelled is None:
        raise Refusal("no_preview")
    return text(cancelled.key, cancelled.params)


async def _void(ctx: Context, words: Words) -> Result:
    if not words.args:
        raise Usage
    return await ctx.service.void(ctx.caller, number(words.args[0]),
                                      " ".join(words.args[1:]))


async def _restore(ctx: Context, words: Words) -> Result:
    return await ctx.service.void(ctx.caller, number(one(words)), restore=True)


async def _merge(ctx: Context, words: Words) -> Result:
    if len(words.args) < 2:
        raise Usage
    at_most(words, 2)
    return await ctx.service.merge(ctx.caller, words.who(0), words.who(1))


async def _retire(ctx: Context, words: Words) -> Result:
    return await ctx.service.set_membership(
        ctx.caller, one_member(words), True, words.take("ladder")
    )


async def _return(ctx: Context, words: Words) -> Result:
    return await ctx.service.set_membership(
        ctx.caller, one_member(words), False, words.take("ladder")
    )


async def _claim(ctx: Context, words: Words) -> Result:
    """``/claim NAME`` asks to be an imported player; a moderator's ``/claim approve NAME`` or
    ``/claim decline NAME`` answers (as the buttons do)."""
    answer = len(words.args) > 1 and words.args[0].lower() in ("approve", "decline")
    if not words.args:
        raise Usage
    at_most(words, 2 if answer else 1)
    verb = words.args[0].lower() if answer else "request"
    return await ctx.service.claim(ctx.caller, verb, words.who(1 if answer else 0))


async def _event(ctx: Context, words: Words) -> Result:
    if len(words.args) < 2 or words.args[0] not in ("open", "close"):
        raise Usage
    at_most(words, 2)
    return await ctx.service.set_event(
        ctx.caller, words.args[1], words.args[0] == "open", words.take("ladder")
    )


async def _ladder(ctx: Context, words: Words) -> Result:
    if len(words.args) < 2 or words.args[0] != "create":
        raise Usage
    at_most(words, 3)
    system = words.args[2] if len(words.args) == 3 else "club"
    return await ctx.service.create_ladder(ctx.caller, words.args[1], system,
                                               words.options)


async def _system(ctx: Context, words: Words) -> Result:
    ladder = words.take("ladder")
    return await ctx.service.set_system(ctx.caller, one(words), words.options, ladder)


async def _set(ctx: Context, words: Words) -> Result:
    ladder = words.take("ladder")
    if not words.args and len(words.options) == 1:  # /set announce=yes reads as /set announce yes
        words.args.extend(words.options.popitem())
    elif words.args and words.options:  # SETTING=VALUE stands for the words, not beside them
        raise UnknownOption(next(iter(words.options)))
    if len(words.args) < 2:
        raise Usage
    at_most(words, 2)
    if words.args[0].casefold() == MY_LANGUAGE:  # a member's own, not a ladder's
        if ladder is not None:
            raise UnknownOption("ladder")
        return await ctx.service.choose_language(ctx.caller, words.args[1])
    return await ctx.service.set_setting(ctx.caller, words.args[0], words.args[1], ladder)


async def _settings(ctx: Context, words: Words) -> Result:
    return await ctx.service.settings(ctx.caller, ladder_word(words))


async def _audit(ctx: Context, words: Words) -> Result:
    count = 20
    if words.args:  # how many entries: the service says what is allowed
        try:
            count = int(words.args[0])
        except ValueError:
            raise Refusal("bad_audit_size", limit=MAX_AUDIT, text=words.args[0][:20]) from None
    return await ctx.service.audit(ctx.caller, count)


async def _evaluate(ctx: Context, words: Words) -> Result:
    return await ctx.service.evaluate(ctx.caller, ladder_word(words))


async def _undo(ctx: Context, words: Words) -> Result:
    at_most(words, 0)
    return await ctx.service.undo(ctx.caller)


async def _moderator(ctx: Context, words: Words) -> Result:
    if len(words.args) < 2 or words.args[0] not in ("add", "remove"):
        raise Usage
    at_most(words, 2)
    return await ctx.service.name_moderator(ctx.caller, words.who(1), words.args[0] == "add")


async def _schedule(ctx: Context, words: Words) -> Result:
    """``/schedule [ladder] cron=... tz=... channel=... size=...`` sets; ``/schedule show|pause|
    resume [ladder]``; a bare ``/schedule`` shows."""
    action = words.args[0] if words.args and words.args[0] in _SCHEDULE_ACTIONS else None
    at_most(words, 2 if action else 1)
    rest = words.args[1:] if action else words.args
    ladder = words.take("ladder")
    if rest and ladder is not None:
        raise Refusal("option_twice", option="ladder")
    ladder = rest[0] if rest else ladder
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


async def _board(ctx: Context, words: Words) -> Result:
    """``/board here|off [ladder=NAME]`` (issue 38): whether the caller may and the ladder
    exists is refused first, then whether the bot may post here (the platform's answer)."""
    if not words.args or words.args[0] not in ("here", "off"):
        raise Usage
    at_most(words, 1)
    ladder = words.take("ladder")
    if words.args[0] == "off":
        return await ctx.service.stop_board(ctx.caller, ladder)
    await ctx.service.check_board(ctx.caller, ladder)
    await ctx.check_board()
    return await ctx.service.start_board(ctx.caller, ladder, ctx.channel)


async def _digest(ctx: Context, words: Words) -> Result:
    return await ctx.service.digest(ctx.caller, ladder_word(words))


def _theme(words: Words) -> str:
    theme = words.take("theme") or "dark"
    if theme not in ("dark", "light"):
        raise Refusal("bad_theme", text=theme[:20])
    return theme


def _same(one: Who | None, other: Who | None) -> bool:
    """Two words that name one member: the same user id, or the same typed name."""
    if isinstance(one, str) and isinstance(other, str):
        return folded_name(one) == folded_name(other)
    return one == other


async def _chart(ctx: Context, words: Words) -> Picture:
    """A member's rating over time as a picture, or two members' overlaid."""
    from bot.chat.pictures import render_chart  # matplotlib loads with the first picture

    theme, ladder = _theme(words), words.take("ladder")
    at_most(words, 2)
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
    from bot.chat.pictures import render_card

    theme = _theme(words)
    ladder = ladder_word(words)
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
    """The commands that work on the caller's platform; ``/help NAME``: one command's usage,
    options and an example."""
    at_most(words, 1)
    platform = ctx.caller.platform
    if words.args:
        return command_help(words.args[0], platform, COMMANDS)
    lines = [text("help_title"), *listed(MEMBER_HELP, platform), text("help_names")]
    lines += [text("help_moderator_title"), *listed(MODERATOR_HELP, platform)]
    return "\n".join(lines)


#: /correct's last word for a game inside a closed season (issue 38)
FORCE = "force"
#: /season's subcommands (issue 38)
SEASON_VERBS = ("close", "list")


async def _season(ctx: Context, words: Words) -> Result:
    """``/season close [NAME] [confirm] [ladder=NAME]`` (a moderator), ``/season list
    [ladder=NAME]`` (issue 38)."""
    if not words.args or words.args[0].casefold() not in SEASON_VERBS:
        raise Usage
    ladder = words.take("ladder")
    if words.args[0].casefold() == "list":
        at_most(words, 1)
        return await ctx.service.season_list(ctx.caller, ladder)
    rest = words.args[1:]
    confirm = bool(rest) and rest[-1].casefold() == seasons.CONFIRM
    if confirm:
        rest = rest[:-1]
    if len(rest) > 1:
        raise ExtraWord(rest[1])
    return await ctx.service.close_season(ctx.caller, rest[0] if rest else None, ladder,
                                          confirm)


_LADDER = ("ladder",)
#: command -> its entry: handler, usage line's message key, example's message key, and the
#: options it takes (see :class:`Command`)
COMMANDS: dict[str, Command] = {
    "register": Command(_register, "help_register", "example_register", options=("birth",)),
    "rating": Command(_rating, "help_rating", "example_rating", options=("ladder", "season"),
                      also=("help_rating_marks",)),
    "top": Command(_top, "help_top", "example_top", options=("ladder", "season")),
    "challenge": Command(_challenge, "help_challenge", "example_challenge", options=_LADDER),
    "accept": Command(_accept, "help_accept", "example_accept"),
    "decline": Command(_decline, "help_decline", "example_decline"),
    "report": Command(_report, "help_report", "example_report",
                      options=("handicap", "colour", "event", "ladder", "repeat"),
                      also=("help_report_team", "help_mod_report", "help_mod_report_repeat")),
    "confirm": Command(_confirm, "help_confirm", "example_confirm"),
    "dispute": Command(_dispute, "help_dispute", "example_dispute", text=True),
    "withdraw": Command(_withdraw, "help_withdraw", "example_withdraw"),
    "history": Command(_history, "help_history", "example_history", options=_LADDER),
    "h2h": Command(_h2h, "help_h2h", "example_h2h", options=_LADDER),
    "pending": Command(_pending, "help_pending", "example_pending"),
    "chart": Command(_chart, "help_chart", "example_chart", options=("ladder", "theme")),
    "card": Command(_card, "help_card", "example_card", options=("ladder", "theme")),
    "help": Command(_help, "help_help", "example_help"),
    "start": Command(_help, "help_help", "example_start"),
    "correct": Command(_correct, "help_correct", "example_correct",
                       options=("a", "b", "handicap", "sides")),
    "apply": Command(_apply, "help_correct", "example_apply"),
    "cancel": Command(_cancel, "help_correct", "example_cancel"),
    "void": Command(_void, "help_void", "example_void", text=True),
    "restore": Command(_restore, "help_restore", "example_restore"),
    "merge": Command(_merge, "help_merge", "example_merge"),
    "retire": Command(_retire, "help_retire", "example_retire", options=_LADDER),
    "return": Command(_return, "help_return", "example_return", options=_LADDER),
    "claim": Command(_claim, "help_claim", "example_claim", also=("help_claim_answer",)),
    "event": Command(_event, "help_event", "example_event", options=_LADDER),
    "ladder": Command(_ladder, "help_ladder", "example_ladder", params="help_params_system"),
    "system": Command(_system, "help_system", "example_system", options=_LADDER,
                      params="help_params_system"),
    "set": Command(_set, "help_set", "example_set", options=_LADDER,
                   params="help_params_setting"),
    "settings": Command(_settings, "help_settings", "example_settings", options=_LADDER),
    "audit": Command(_audit, "help_audit", "example_audit"),
    "evaluate": Command(_evaluate, "help_evaluate", "example_evaluate", options=_LADDER),
    "undo": Command(_undo, "help_undo", "example_undo"),
    "moderator": Command(_moderator, "help_moderator", "example_moderator"),
    "schedule": Command(_schedule, "help_schedule", "example_schedule",
                        options=("cron", "tz", "channel", "size", "ladder")),
    "digest": Command(_digest, "help_digest", "example_digest", options=_LADDER),
    "puzzle": Command(_puzzle, "help_puzzle", "example_puzzle", text=True,
                      also=("help_puzzle_add",)),
    "answer": Command(_answer, "help_answer", "example_answer", text=True),
    "link": Command(_link, "help_link", "example_link", also=("help_link_me",)),
    "unlink": Command(_unlink, "help_unlink", "example_unlink"),
    "night": Command(_night, "help_night", "example_night", options=("rounds", "ladder")),
    "in": Command(_entering("in"), "help_in", "example_in", options=_LADDER),
    "out": Command(_entering("out"), "help_out", "example_out", options=_LADDER),
    "pause": Command(_entering("paused"), "help_pause", "example_pause", options=_LADDER),
    "pair": Command(_pair, "help_pair", "example_pair", options=_LADDER),
    "publish": Command(_publish, "help_publish", "example_publish", options=_LADDER),
    "result": Command(_result, "help_result", "example_result", options=_LADDER),
    "swap": Command(_swap, "help_swap", "example_swap", options=_LADDER),
    "forbid": Command(_forbid, "help_forbid", "example_forbid", options=_LADDER),
    "bye": Command(_bye, "help_bye", "example_bye", options=_LADDER),
    "standings": Command(_standings, "help_standings", "example_standings", options=_LADDER),
    "stake": Command(_stake, "help_stake", "example_stake",
                     options=("handicap", "colour", "ladder")),
    "band": Command(_band, "help_band", "example_band", options=_LADDER,
                    also=("help_band_roles",)),
    "board": Command(_board, "help_board", "example_board", options=_LADDER),
    "season": Command(_season, "help_season", "example_season", options=_LADDER,
                      also=("help_season_close", "help_season_views")),
}
