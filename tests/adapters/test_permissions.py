"""The permission matrix: every command as every role, on every front-end; zero escalations,
and no club's data is visible in another.

Roles, in a club A where alice reported a game against bob that waits for bob:

- ``nonmember``: in the chat, never registered;
- ``member``: dave, registered, in none of the games the commands name;
- ``participant``: alice, who reported the waiting game and issued the open challenge;
- ``opponent``: bob, whom the waiting game and the challenge wait for;
- ``moderator``: the platform's moderator (a group administrator on Telegram, a member with
  the Manage Server permission on Discord - or, in a test of its own, a holder of the club's
  moderator role -, ``/as mod!`` in the console);
- ``other_club``: olga, a registered member of club B only, typing in club A's chat (on
  Discord: a member of both servers, registered in the second one).

Each cell runs on a fresh club (its own chat), through the real front-end: the line is typed
as that person and the outcome recorded where every front-end calls
``bot.chat.commands.execute`` (in ``bot.chat.intake``).
``A`` means the command must be carried out, ``D`` that it must be refused; a refusal must be
shown in the chat and change nothing in the log. An escalation is a ``D`` carried out.

Front-ends are rows of ``RUNNERS``: the console, Telegram (against the fake Bot API) and
Discord (against the fake Discord: every club a server of its own, every line sent as the slash
command a member would run, with its options; see :class:`DiscordRunner`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import shlex
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest

import bot.chat.commands
from bot.adapters.console import Console
from bot.chat import intake, pictures
from bot.chat.commands import COMMANDS
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.chat.ratelimit import DEFAULT_RATE, RateLimiter
from bot.scheduling.publishing import Picture
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.puzzles import NewProblem
from bot.service.results import GameResult, Notice
from bot.storage.sqlite import SqliteRepository
from tests import discord_harness, fake_discord
from tests.chat import START
from tests.fake_telegram import Chat, User
from tests.telegram_harness import Running, running_bot, say

ROLES = ["nonmember", "member", "participant", "opponent", "moderator", "other_club"]
#: who plays each role (user name; ids are given by each front-end)
PEOPLE = {"nonmember": "zed", "member": "dave", "participant": "alice", "opponent": "bob",
          "moderator": "mod", "other_club": "olga"}

#: command line -> expected outcome per role, in the order of ROLES. Placeholders are the
#: club's own ids: {pending} (alice v bob, waiting for bob), {confirmed} (alice beat bob),
#: {voided} (voided by the moderator), {challenge} (alice challenged bob).
MATRIX: dict[str, str] = {
    "/help":                            "AAAAAA",
    "/start":                           "AAAAAA",
    "/digest":                          "AAAAAA",
    # a problem of the puzzle ladder: privately where the front-end can, else where to solve
    # it; members only (issue 34). /puzzle add is each front-end's (private chats).
    "/puzzle":                          "DAAADD",
    "/answer x":                        "DDDDDD",  # nobody has a problem open
    # a code to link another chat (the platform's moderators: PLATFORM_ONLY), or one's other
    # account (anybody's own)
    "/link":                            "DDDDAD",
    "/link me":                         "AAAAAA",
    "/unlink":                          "DDDDDD",  # a club of one chat: nothing to leave
    # club nights (issue 36): only moderators open one; without a night open the rest refuse
    "/night open swiss rounds=3":       "DDDDAD",
    "/night close":                     "DDDDDD",
    # rating bands (issue 38): moderators add and remove, everyone lists; no band to remove,
    # and no band with a role to preview or sync (nor any role outside Discord)
    "/band add Gold 1400":              "DDDDAD",
    "/band list":                       "AAAAAA",
    "/band remove Gold":                "DDDDDD",
    "/band sync":                       "DDDDDD",
    "/in":                              "DDDDDD",
    "/out":                             "DDDDDD",
    "/pause":                           "DDDDDD",
    "/pair":                            "DDDDDD",
    "/publish":                         "DDDDDD",
    "/result 1 1-0":                    "DDDDDD",
    "/swap @alice @bob":                "DDDDDD",
    "/forbid @alice @bob":              "DDDDDD",
    "/bye @alice":                      "DDDDDD",
    "/standings":                       "DDDDDD",
    # a live leaderboard (issue 38): moderators start it; without one, /board off refuses
    "/board here":                      "DDDDAD",
    "/board off":                       "DDDDDD",
    # seasons (issue 38): anyone lists them; only moderators close one (here: a preview)
    "/season list":                     "AAAAAA",
    "/season close":                    "DDDDAD",
    "/chart @alice":                    "AAAAAA",
    "/chart":                           "DAAADD",
    "/card":                            "AAAAAA",
    "/evaluate":                        "DDDDAD",
    "/schedule":                        "DDDDAD",
    "/register":                        "ADDDAA",
    "/claim alice":                     "DDDDDD",
    "/claim approve alice":             "DDDDDD",
    "/rating":                          "DAAADD",
    "/rating @alice":                   "AAAAAA",
    "/top":                             "AAAAAA",
    "/settings":                        "AAAAAA",
    "/history":                         "DAAADD",
    "/history @bob":                    "AAAAAA",
    "/h2h @bob":                        "DAADDD",
    # the points at stake (issue 38): a member's own look (bob cannot stake against himself)
    "/stake @bob":                      "DAADDD",
    "/pending":                         "DAAAAD",  # a moderator's: the disputes to settle
    "/challenge @dave":                 "DDAADD",
    "/accept {challenge}":              "DDDADD",
    "/decline {challenge}":             "DDDADD",
    "/report @dave win":                "DDAADD",
    "/report @alice @dave win":         "DDDDAD",
    "/confirm {pending}":               "DDDADD",
    "/dispute {pending} no":            "DDDADD",
    "/withdraw {pending}":              "DDADDD",
    "/correct {confirmed} draw":        "DDDDAD",
    "/apply":                           "DDDDAD",
    "/cancel":                          "DDDDAD",
    "/void {confirmed} wrong":          "DDDDAD",
    "/restore {voided}":                "DDDDAD",
    "/merge @dave @alice":              "DDDDAD",
    "/retire @dave":                    "DDDDAD",
    "/return @carl":                    "DDDDAD",
    "/event open spring":               "DDDDAD",
    "/event close cup":                 "DDDDAD",
    "/ladder create blitz":             "DDDDAD",
    "/system elo":                      "DDDDAD",
    "/set challenge_hours 12":          "DDDDAD",
    "/set moderator_role 5":            "DDDDAD",
    "/audit":                           "DDDDAD",
    "/undo":                            "DDDDAD",
    "/moderator add @dave":             "DDDDAD",
    "/moderator remove @dave":          "DDDDDD",
    "/nosuchcommand":                   "DDDDDD",
}
#: what only the platform's own moderators may do (they change who moderates): a holder of the
#: club's moderator role is refused them (issue 30)
PLATFORM_ONLY = frozenset({"/moderator add @dave", "/set moderator_role 5", "/link"})
#: names of club A's people: nothing of them may show in club B
CLUB_A_NAMES = ("alice", "bob", "dave", "carl")
#: what members of club B can ask in their own club
CLUB_B_LINES = ["/top", "/rating @alice", "/history @alice", "/h2h @alice", "/pending",
                "/history", "/rating", "/audit", "/settings"]


async def draw_nothing(*args: object, **kwargs: object) -> Picture:
    return Picture(PNG_1X1, "picture.png", "a picture")


#: the smallest valid PNG (1x1, transparent): what the fake Bot API receives as the photo
PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d4944415478da63f8cfc0f01f0005000201a2b8b5a10000000049454e44ae426082"
)


@dataclass
class Outcome:
    """What ``execute`` did for the last line (None: the front-end refused before it)."""

    refused: Refusal | None = None
    answer: Any = None
    called: bool = False


class Runner(Protocol):
    platform: str
    outcome: Outcome

    async def new_club(self, moderator: str = "mod") -> str:
        """A fresh chat, whose platform moderator is the person ``moderator``; returns its id
        as the service knows it."""
        ...

    def caller(self, chat: str, role: str) -> Caller:
        """The Caller the front-end builds for this person in this chat."""
        ...

    async def say(self, chat: str, role: str, line: str) -> str:
        """Type ``line`` as ``role`` (or a person named so, not in PEOPLE) in ``chat``; the
        answer shown, as plain text."""
        ...


def recording(outcome: Outcome) -> Callable[..., Any]:
    real = bot.chat.commands.execute

    async def execute(ctx: Any, command: str, words: Any) -> Any:
        outcome.called = True
        try:
            outcome.answer = await real(ctx, command, words)
        except Refusal as refusal:
            outcome.refused = refusal
            raise
        return outcome.answer

    return execute


@dataclass
class ConsoleRunner:
    service: ClubService
    limiter: RateLimiter
    platform: str = "console"
    outcome: Outcome = field(default_factory=Outcome)
    consoles: dict[str, Console] = field(default_factory=dict)
    #: each chat's platform moderator (``/as NAME!``)
    moderators: dict[str, str] = field(default_factory=dict)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def new_club(self, moderator: str = "mod") -> str:
        chat = f"club{next(self.ids)}"
        self.moderators[chat] = moderator

        class ChatConsole(Console):
            @property
            def caller(self) -> Caller:
                return Caller("console", chat, self.user, self.user, self.moderator)

        self.consoles[chat] = ChatConsole(self.service, self.limiter)
        return chat

    def caller(self, chat: str, role: str) -> Caller:
        name = PEOPLE.get(role, role)
        return Caller(self.platform, chat, name, name, role == "moderator")

    async def say(self, chat: str, role: str, line: str) -> str:
        console = self.consoles[chat]
        name = PEOPLE.get(role, role)
        await console.handle(f"/as {name}{'!' if name == self.moderators[chat] else ''}")
        return await console.handle(line)


@dataclass
class TelegramRunner:
    bot: Running
    platform: str = "telegram"
    outcome: Outcome = field(default_factory=Outcome)
    chats: dict[str, Chat] = field(default_factory=dict)
    users: dict[str, User] = field(default_factory=dict)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        for n, name in enumerate(PEOPLE.values(), start=101):
            self.users[name] = self.bot.tg.user(n, name.title(), name)
        self.users["oscar"] = self.bot.tg.user(199, "Oscar", "oscar")
        self.users["carl"] = self.bot.tg.user(198, "Carl", "carl")

    async def new_club(self, moderator: str = "mod") -> str:
        chat_id = -1000 - next(self.ids)
        group = self.bot.tg.group(chat_id, f"Club {chat_id}", admins=[self.users[moderator]])
        self.chats[str(chat_id)] = group
        return str(chat_id)

    def caller(self, chat: str, role: str) -> Caller:
        user = self.users[PEOPLE.get(role, role)]
        return Caller(self.platform, chat, str(user.id), user.username or "", role == "moderator",
                      handle=user.username)

    async def say(self, chat: str, role: str, line: str) -> str:
        answer = await say(self.bot, self.chats[chat], self.users[PEOPLE.get(role, role)], line)
        return answer.plain


#: the options a line's words fill, in order, on Discord, for commands with a slash command of
#: their own (after the subcommand's name, if it has subcommands); ``*`` marks an option that
#: takes the rest of the line. Commands without one take the words as typed (``arguments``).
SLASH_OPTIONS: dict[str, list[str]] = {
    "help": [], "register": ["name"], "rating": ["member"], "top": ["ladder"],
    "challenge": ["member"], "accept": ["number"], "decline": ["number"],
    "report": ["opponent", "result"], "confirm": ["number"], "dispute": ["number", "*reason"],
    "withdraw": ["number"], "history": ["member"], "h2h": ["member"], "pending": [],
    "correct": ["number", "result"], "apply": [], "cancel": [], "void": ["number", "*reason"],
    "restore": ["number"], "merge": ["duplicate", "member"], "retire": ["member"],
    "return": ["member"], "event": ["name"], "ladder": ["name", "system"], "system": ["name"],
    "set": ["key", "value"], "settings": ["ladder"], "audit": ["entries"], "undo": [],
    "moderator": ["member"], "puzzle": ["ladder"], "answer": ["*text"],
    "stake": ["member"],
    "season": ["action", "name"],
}
#: a report naming both players: the moderator's report for someone else
REPORT_FOR = ["player", "opponent", "result"]
#: Telegram's greeting has no slash command on Discord; /help is the same there
DISCORD_ALIASES = {"start": "help"}
#: ids on the fake Discord: people, then one server per club
DISCORD_PEOPLE = 930000000000000000
DISCORD_SERVERS = 940000000000000000


@dataclass
class DiscordRunner:
    """Every club a server (guild) of its own, where all the people are members: the moderator
    holds a role with the Manage Server permission (or, with ``by_club_role``, a role without
    any permission that the club names its moderator role). A line is sent as the slash command
    a member would run: members named in it picked in the member picker, numbers as integers,
    a subcommand as such; a command without a slash command of its own gets the rest of the line
    in its ``arguments`` text, members written as Discord writes a mention. The moderator-only
    commands are sent by everyone: Discord hides them from members by default permissions, which a
    server's admin may open to everyone, so the service's own check is what the matrix tests."""

    bot: discord_harness.Running
    by_club_role: bool = False
    platform: str = "discord"
    outcome: Outcome = field(default_factory=Outcome)
    guilds: dict[str, fake_discord.Guild] = field(default_factory=dict)
    users: dict[str, fake_discord.User] = field(default_factory=dict)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    #: interactions the bot has finished with (answered, refused, or failed)
    finished: dict[int, asyncio.Event] = field(default_factory=dict)

    def __post_init__(self) -> None:
        dc = self.bot.dc
        for n, name in enumerate([*PEOPLE.values(), "oscar", "carl", "owner"]):
            self.users[name] = dc.user(DISCORD_PEOPLE + n, name)
        client = self.bot.client
        failed = client.tree.on_error

        async def completed(interaction: Any, command: Any) -> None:
            self._finish(interaction.id)

        async def on_error(interaction: Any, error: Any) -> None:
            try:
                await failed(interaction, error)
            finally:
                self._finish(interaction.id)

        # discord.py's event after a slash command ran, and the tree's error handler: between
        # them every interaction ends in exactly one (the answer sent before either).
        client.on_app_command_completion = completed  # type: ignore[attr-defined]
        client.tree.on_error = on_error  # type: ignore[method-assign]

    def _finish(self, interaction_id: int) -> None:
        self.finished.setdefault(interaction_id, asyncio.Event()).set()

    async def new_club(self, moderator: str = "mod") -> str:
        dc = self.bot.dc
        guild_id = DISCORD_SERVERS + 1000 * next(self.ids)
        guild = dc.guild(guild_id, f"Club {guild_id}", owner=self.users["owner"])
        managers = dc.role(guild, guild_id + 1, "Managers", fake_discord.MANAGE_GUILD)
        referee = dc.role(guild, guild_id + 2, "Referee")
        for name, user in self.users.items():
            if name == moderator:
                dc.member(guild, user, referee if self.by_club_role else managers)
            elif name != "owner":
                dc.member(guild, user)
        # The bot is added to the server: Discord announces it on the gateway.
        await dc.dispatch("GUILD_CREATE", guild.payload())
        chat = str(guild_id)
        self.guilds[chat] = guild
        if self.by_club_role:
            owner = Caller(self.platform, chat, str(self.users["owner"].id), "owner", True)
            await self.bot.service.set_setting(owner, "moderator_role", str(referee.id))
        return chat

    def caller(self, chat: str, role: str) -> Caller:
        name = PEOPLE.get(role, role)
        return Caller(self.platform, chat, str(self.users[name].id), name, role == "moderator",
                      handle=name)

    async def say(self, chat: str, role: str, line: str) -> str:
        dc = self.bot.dc
        guild = self.guilds[chat]
        speaker = guild.members[self.users[PEOPLE.get(role, role)].id]
        seen = len(dc.log)
        interaction = await self._send(guild, speaker, line)
        await asyncio.wait_for(self.finished.setdefault(interaction, asyncio.Event()).wait(), 10)
        del self.finished[interaction]
        answers = [o for o in dc.log[seen:] if o.interaction_id == interaction]
        return "\n".join(o.plain for o in answers)

    async def _send(self, guild: fake_discord.Guild, speaker: fake_discord.Member,
                    line: str) -> int:
        dc = self.bot.dc
        first, *words = shlex.split(line)
        name = DISCORD_ALIASES.get(first[1:], first[1:])
        synced = next((c for scope in (guild.id, None) for c in dc.commands.get(scope, [])
                       if c["name"] == name), None)
        if synced is None:  # no such slash command: as from a Discord app with a stale list
            return await self._unknown(guild, speaker, name)
        schema = synced.get("options", [])
        subcommand = None
        if schema and schema[0]["type"] == fake_discord.SUB_COMMAND:
            subcommand, *words = words
            schema = next(o for o in schema if o["name"] == subcommand).get("options", [])
        kinds = {o["name"]: o["type"] for o in schema}
        if "arguments" in kinds:  # the words typed as one text, as on the console
            typed = " ".join(self._mention(guild, w) for w in words)
            return await dc.command(guild, speaker, name, subcommand, arguments=typed or None)
        assert name in SLASH_OPTIONS, f"teach the Discord runner the options of /{name}"
        names = list(REPORT_FOR if name == "report" and len(words) == 3
                     else SLASH_OPTIONS[name])
        if names and names[-1].startswith("*"):  # the last option takes the rest
            names[-1:] = [names[-1][1:]]
            words[len(names) - 1:] = [" ".join(words[len(names) - 1:])]
        assert len(words) <= len(names), (line, names)
        values: dict[str, Any] = {}
        for option, word in zip(names, words, strict=False):
            kind = kinds[option]
            if kind == fake_discord.USER:  # picked in the member picker
                values[option] = guild.members[self.users[word.removeprefix("@")].id]
            elif kind == fake_discord.INTEGER:
                values[option] = int(word)
            else:
                values[option] = word
        return await dc.command(guild, speaker, name, subcommand, **values)

    def _mention(self, guild: fake_discord.Guild, word: str) -> str:
        """A member named in a typed text, as Discord writes a picked mention."""
        user = self.users.get(word.removeprefix("@")) if word.startswith("@") else None
        return word if user is None or user.id not in guild.members else f"<@{user.id}>"

    async def _unknown(self, guild: fake_discord.Guild, speaker: fake_discord.Member,
                       name: str) -> int:
        dc = self.bot.dc
        data = {"id": str(dc.next_id()), "name": name, "type": 1, "options": [],
                "resolved": {}}
        payload = dc._interaction(2, guild, speaker, data)
        await dc.dispatch("INTERACTION_CREATE", payload)
        return int(payload["id"])


@asynccontextmanager
async def console_runner(path: Path) -> AsyncIterator[ConsoleRunner]:
    repository = await SqliteRepository.open(path)
    try:
        clock = FakeClock(START)
        yield ConsoleRunner(ClubService(repository, clock), RateLimiter(clock, DEFAULT_RATE))
    finally:
        await repository.close()


@asynccontextmanager
async def telegram_runner(path: Path) -> AsyncIterator[TelegramRunner]:
    async with running_bot(path) as running:
        yield TelegramRunner(running)


@asynccontextmanager
async def discord_runner(path: Path, by_club_role: bool = False) -> AsyncIterator[DiscordRunner]:
    async with discord_harness.running_bot(path) as running:
        yield DiscordRunner(running, by_club_role)


#: front-end name -> how to start it (every front-end calls ``execute`` through
#: ``bot.chat.intake``, where it is recorded)
RUNNERS: dict[str, Callable[[Path], Any]] = {
    "console": console_runner,
    "telegram": telegram_runner,
    "discord": discord_runner,
}


def service_of(runner: Runner) -> ClubService:
    return runner.service if isinstance(runner, ConsoleRunner) else runner.bot.service  # type: ignore[attr-defined]


async def club_a(runner: Runner) -> tuple[str, dict[str, int]]:
    """A fresh club A as described above; returns its chat and the ids of its things."""
    service = service_of(runner)
    chat = await runner.new_club()
    who = {role: runner.caller(chat, role) for role in ROLES}
    carl = Caller(runner.platform, chat, *_user_of(runner, "carl"))
    mod = who["moderator"]
    for role in ("member", "participant", "opponent"):
        await service.register(who[role])
    await service.register(carl)
    await service.create_ladder(mod, "puzzles", "tactics", {})
    await service.add_problem(mod, NewProblem("p1", "White mates in one", ["Qh7"]))
    ids: dict[str, int] = {}
    confirmed = await service.report(who["participant"], "bob", "win")
    assert isinstance(confirmed, GameResult)
    ids["confirmed"] = confirmed.game.id
    await service.confirm(who["opponent"], ids["confirmed"])
    await service.report(carl, "dave", "win")
    await service.confirm(who["member"])
    await service.set_membership(mod, "carl", True)
    voided = await service.report(mod, "dave", "draw", player="alice")
    assert isinstance(voided, GameResult)
    ids["voided"] = voided.game.id
    await service.void(mod, ids["voided"], "test")
    await service.set_event(mod, "cup", True)
    pending = await service.report(who["participant"], "bob", "loss")
    assert isinstance(pending, GameResult)
    ids["pending"] = pending.game.id
    challenge = await service.challenge(who["participant"], "bob")
    assert isinstance(challenge, Notice)
    ids["challenge"] = int(challenge.params["challenge"])  # type: ignore[arg-type]
    # The moderator previews a correction through the front-end: only they may apply it.
    preview = await runner.say(chat, "moderator", f"/correct {ids['confirmed']} draw")
    assert preview.startswith(text("preview", game=ids["confirmed"])), preview
    return chat, ids


def _user_of(runner: Runner, name: str) -> tuple[str, str]:
    if isinstance(runner, TelegramRunner | DiscordRunner):
        user = runner.users[name]
        return str(user.id), name
    return name, name


async def club_b(runner: Runner) -> str:
    """Club B: olga and oscar, one confirmed game between them."""
    service = service_of(runner)
    chat = await runner.new_club()
    olga = runner.caller(chat, "other_club")
    oscar = Caller(runner.platform, chat, *_user_of(runner, "oscar"))
    await service.register(olga)
    await service.register(oscar)
    await service.report(olga, "oscar", "win")
    await service.confirm(oscar)
    return chat


async def log_size(runner: Runner, chat: str) -> int:
    service = service_of(runner)
    repository = service._repository
    club_id = await repository.club_id(runner.platform, chat, START)
    return len(await repository.events(club_id))


async def run_cell(runner: Runner, line: str, role: str) -> tuple[bool, str]:
    """(carried out?, the answer shown) for one cell on a fresh club."""
    chat, ids = await club_a(runner)
    before = await log_size(runner, chat)
    runner.outcome.__init__()  # type: ignore[misc]
    shown = await runner.say(chat, role, line.format(**ids))
    outcome = runner.outcome
    refused = (not outcome.called or outcome.refused is not None
               or outcome.answer in (text("no_preview"), text("no_preview_to_cancel")))
    if refused:
        assert await log_size(runner, chat) == before, f"{line} as {role} was refused but wrote"
        if outcome.refused is not None:
            assert shown == render(outcome.refused), (line, role, shown)
        assert shown, (line, role)
    return not refused, shown


def test_the_matrix_covers_every_command() -> None:
    covered = {line.split()[0][1:] for line in MATRIX}
    assert set(COMMANDS) - covered == set(), "add the new command's row to MATRIX"


async def run_matrix(runner: Runner, roles: list[str], *, by_role: bool = False
                     ) -> tuple[list[Any], list[Any], int]:
    """Every line of MATRIX as each of ``roles``: (escalations, refused wrongly, cells).
    ``by_role``: the moderator is a holder of the club's role, refused PLATFORM_ONLY."""
    # olga is a member of another club for real: registered there, with a game played.
    await club_b(runner)
    escalations, refused_wrongly, cells = [], [], 0
    for line, expected in MATRIX.items():
        for role, allowed in zip(ROLES, expected, strict=True):
            if role not in roles:
                continue
            if by_role and line in PLATFORM_ONLY:
                allowed = "D"
            cells += 1
            done, shown = await run_cell(runner, line, role)
            if done and allowed == "D":
                escalations.append((line, role, shown))
            elif not done and allowed == "A":
                refused_wrongly.append((line, role, shown))
    return escalations, refused_wrongly, cells


@pytest.fixture
def no_drawing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the console saves pictures in the working folder
    # Who may see a picture is decided before it is drawn: drawing is skipped for speed.
    monkeypatch.setattr(pictures, "render_card", draw_nothing)
    monkeypatch.setattr(pictures, "render_chart", draw_nothing)


@pytest.mark.parametrize("front_end", list(RUNNERS))
async def test_permission_matrix(front_end: str, tmp_path: Path, no_drawing: None,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    async with RUNNERS[front_end](tmp_path / "club.db") as runner:
        monkeypatch.setattr(intake, "execute", recording(runner.outcome))
        escalations, refused_wrongly, cells = await run_matrix(runner, ROLES)
        print(f"\npermission matrix on {front_end}: {len(MATRIX)} commands x {len(ROLES)} roles"
              f" = {cells} cells, escalations {len(escalations)}")
        assert cells == len(MATRIX) * len(ROLES)
        assert escalations == []
        assert refused_wrongly == []


async def test_a_holder_of_the_club_role_is_a_moderator_on_discord(
    tmp_path: Path, no_drawing: None, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The moderator column once more on Discord, played by a member whose only claim is the
    role the club named with ``/set moderator_role`` (no Manage Server permission): all of it
    but changing who moderates (PLATFORM_ONLY); and the member column with the same role set,
    to show that the role, not the setting, counts."""
    async with discord_runner(tmp_path / "club.db", by_club_role=True) as runner:
        monkeypatch.setattr(intake, "execute", recording(runner.outcome))
        escalations, refused_wrongly, cells = await run_matrix(runner, ["member", "moderator"],
                                                               by_role=True)
        assert cells == 2 * len(MATRIX)
        assert escalations == []
        assert refused_wrongly == []


@pytest.mark.parametrize("front_end", list(RUNNERS))
async def test_no_data_of_one_club_is_visible_in_another(front_end: str, tmp_path: Path) -> None:
    start = RUNNERS[front_end]
    async with start(tmp_path / "club.db") as runner:
        await club_a(runner)
        chat = await club_b(runner)
        for line in CLUB_B_LINES:
            for role in ("other_club", "moderator"):
                shown = await runner.say(chat, role, line)
                if "@alice" in line:  # club B has no alice, whatever club A has
                    assert shown in (text("unknown_member", name="alice"),
                                     text("not_registered")), (line, role, shown)
                else:
                    assert not any(name in shown.lower() for name in CLUB_A_NAMES), (line, shown)
        # And olga, in club A's chat, is nobody there: her club B record does not follow her.
        chat_a, _ = await club_a(runner)
        assert await runner.say(chat_a, "other_club", "/rating") == text("not_registered")
        assert "oscar" not in (await runner.say(chat_a, "other_club", "/top")).lower()


async def test_a_slash_command_the_bot_does_not_have_is_refused_on_discord(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """A Discord app with a stale command list sends a command the bot no longer has: the
    member is told it is unknown, nothing is written, and no error is logged."""
    async with discord_runner(tmp_path / "club.db") as runner:
        chat, _ = await club_a(runner)
        before = await log_size(runner, chat)
        shown = await runner.say(chat, "member", "/nosuchcommand")
        assert shown == text("bad_command", command="/nosuchcommand")
        assert await log_size(runner, chat) == before
        assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
