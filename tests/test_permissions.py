"""The permission matrix: every command as every role, on every front-end; zero escalations,
and no club's data is visible in another.

Roles, in a club A where alice reported a game against bob that waits for bob:

- ``nonmember``: in the chat, never registered;
- ``member``: dave, registered, in none of the games the commands name;
- ``participant``: alice, who reported the waiting game and issued the open challenge;
- ``opponent``: bob, whom the waiting game and the challenge wait for;
- ``moderator``: the platform's moderator (a group administrator on Telegram, ``/as mod!`` in
  the console);
- ``other_club``: olga, a member of club B only, typing in club A's chat.

Each cell runs on a fresh club (its own chat), through the real front-end: the line is typed
as that person and the outcome recorded where the front-end calls ``bot.commands.execute``.
``A`` means the command must be carried out, ``D`` that it must be refused; a refusal must be
shown in the chat and change nothing in the log. An escalation is a ``D`` carried out.

Front-ends are rows of ``RUNNERS``: the console and Telegram (against the fake Bot API) today.
The Discord front-end, when it lands, adds one runner (type a line as a person in a guild
channel) and inherits the whole table.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pytest

import bot.commands
from bot.adapters import console as console_module
from bot.adapters import telegram as telegram_module
from bot.adapters.console import Console
from bot.charts import pictures
from bot.commands import COMMANDS
from bot.messages import text
from bot.presenter import render
from bot.publishing import Picture
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.results import GameResult, Notice
from bot.storage.sqlite import SqliteRepository

from .chat import START
from .fake_telegram import Chat, User
from .telegram_harness import Running, running_bot, say

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
    "/chart @alice":                    "AAAAAA",
    "/chart":                           "DAAADD",
    "/card":                            "AAAAAA",
    "/evaluate":                        "DDDDAD",
    "/schedule":                        "DDDDAD",
    "/register":                        "ADDDAA",
    "/rating":                          "DAAADD",
    "/rating @alice":                   "AAAAAA",
    "/top":                             "AAAAAA",
    "/settings":                        "AAAAAA",
    "/history":                         "DAAADD",
    "/history @bob":                    "AAAAAA",
    "/h2h @bob":                        "DAADDD",
    "/pending":                         "DAAADD",
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
    "/audit":                           "DDDDAD",
    "/undo":                            "DDDDAD",
    "/moderator add @dave":             "DDDDAD",
    "/moderator remove @dave":          "DDDDDD",
    "/nosuchcommand":                   "DDDDDD",
}
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

    async def new_club(self) -> str:
        """A fresh chat; returns its id as the service knows it."""
        ...

    def caller(self, chat: str, role: str) -> Caller:
        """The Caller the front-end builds for this person in this chat."""
        ...

    async def say(self, chat: str, role: str, line: str) -> str:
        """Type ``line`` as ``role`` in ``chat``; the answer shown, as plain text."""
        ...


def recording(outcome: Outcome) -> Callable[..., Any]:
    real = bot.commands.execute

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
    platform: str = "console"
    outcome: Outcome = field(default_factory=Outcome)
    consoles: dict[str, Console] = field(default_factory=dict)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def new_club(self) -> str:
        chat = f"club{next(self.ids)}"

        class ChatConsole(Console):
            @property
            def caller(self) -> Caller:
                return Caller("console", chat, self.user, self.user, self.moderator)

        self.consoles[chat] = ChatConsole(self.service)
        return chat

    def caller(self, chat: str, role: str) -> Caller:
        name = PEOPLE[role]
        return Caller(self.platform, chat, name, name, role == "moderator")

    async def say(self, chat: str, role: str, line: str) -> str:
        console = self.consoles[chat]
        await console.handle(f"/as {PEOPLE[role]}{'!' if role == 'moderator' else ''}")
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

    async def new_club(self) -> str:
        chat_id = -1000 - next(self.ids)
        group = self.bot.tg.group(chat_id, f"Club {chat_id}", admins=[self.users["mod"]])
        self.chats[str(chat_id)] = group
        return str(chat_id)

    def caller(self, chat: str, role: str) -> Caller:
        user = self.users[PEOPLE.get(role, role)]
        return Caller(self.platform, chat, str(user.id), user.username or "", role == "moderator")

    async def say(self, chat: str, role: str, line: str) -> str:
        answer = await say(self.bot, self.chats[chat], self.users[PEOPLE[role]], line)
        return answer.plain


@asynccontextmanager
async def console_runner(path: Path) -> AsyncIterator[ConsoleRunner]:
    repository = await SqliteRepository.open(path)
    try:
        yield ConsoleRunner(ClubService(repository, FakeClock(START)))
    finally:
        await repository.close()


@asynccontextmanager
async def telegram_runner(path: Path) -> AsyncIterator[TelegramRunner]:
    async with running_bot(path) as running:
        yield TelegramRunner(running)


#: front-end name -> (how to start it, the module whose ``execute`` it calls)
RUNNERS: dict[str, tuple[Callable[[Path], Any], Any]] = {
    "console": (console_runner, console_module),
    "telegram": (telegram_runner, telegram_module),
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
    if isinstance(runner, TelegramRunner):
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
               or outcome.answer == text("no_preview"))
    if refused:
        assert await log_size(runner, chat) == before, f"{line} as {role} was refused but wrote"
        if outcome.refused is not None:
            assert shown == render(outcome.refused), (line, role, shown)
        assert shown, (line, role)
    return not refused, shown


def test_the_matrix_covers_every_command() -> None:
    covered = {line.split()[0][1:] for line in MATRIX}
    assert set(COMMANDS) - covered == set(), "add the new command's row to MATRIX"


@pytest.mark.parametrize("front_end", list(RUNNERS))
async def test_permission_matrix(front_end: str, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    start, module = RUNNERS[front_end]
    monkeypatch.chdir(tmp_path)  # the console saves pictures in the working folder
    # Who may see a picture is decided before it is drawn: drawing is skipped for speed.
    monkeypatch.setattr(pictures, "render_card", draw_nothing)
    monkeypatch.setattr(pictures, "render_chart", draw_nothing)
    async with start(tmp_path / "club.db") as runner:
        monkeypatch.setattr(module, "execute", recording(runner.outcome))
        escalations, refused_wrongly, cells = [], [], 0
        for line, expected in MATRIX.items():
            for role, allowed in zip(ROLES, expected, strict=True):
                cells += 1
                done, shown = await run_cell(runner, line, role)
                if done and allowed == "D":
                    escalations.append((line, role, shown))
                elif not done and allowed == "A":
                    refused_wrongly.append((line, role, shown))
        print(f"\npermission matrix on {front_end}: {len(MATRIX)} commands x {len(ROLES)} roles"
              f" = {cells} cells, escalations {len(escalations)}")
        assert escalations == []
        assert refused_wrongly == []


@pytest.mark.parametrize("front_end", list(RUNNERS))
async def test_no_data_of_one_club_is_visible_in_another(front_end: str, tmp_path: Path) -> None:
    start, _ = RUNNERS[front_end]
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
