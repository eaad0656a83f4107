"""Fuzzing with hypothesis: whatever people type or upload, the bot answers or refuses clearly,
and a refusal changes nothing.

Three targets:

- the chat commands (``bot.chat.commands`` parse and execute) on a small club, as a member, a
  non-member and a moderator: lines made of real command names and words mixed with junk,
  broken quoting, huge numbers, NaN, very long text;
- the EVENTS.csv / PLAYERS.csv readers and the import use case: rows of valid and invalid
  values, broken headers, binary files;
- the rating engine (``ratings_core`` replay) on every system: random valid and invalid steps.

No target may raise anything but its refusal: :class:`Refusal` (with a catalogue key that
renders) or :class:`Usage` for chat, :class:`CsvError` for files, ``ValueError`` (with a message)
for the engine. After every refusal the club's event log is compared with what it was before.
The number of cases run per target is printed (``pytest -s``) for docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import math
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.commands import COMMANDS, Context, execute, parse
from bot.chat.messages import MESSAGES
from bot.chat.presenter import render
from bot.chat.ratelimit import DEFAULT_RATE, RateLimiter
from bot.chat.words import Usage
from bot.history import CsvError, read_events, read_players
from bot.scheduling.publishing import Picture
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.storage.sqlite import SqliteRepository
from ratings_core.model import Game, Join, RatingPeriod, Retire, Return, Step
from ratings_core.replay import replay
from ratings_core.systems import make_system, system_names
from tests.chat import START
from tests.strategies import histories

PLATFORM, CHAT = "console", "fuzz"
CASES: Counter[str] = Counter()
FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow],
                database=None)


@pytest.fixture(scope="module", autouse=True)
def report_counts() -> Iterator[None]:
    yield
    print(f"\nfuzz cases: {dict(CASES)}, total {sum(CASES.values())}")


def caller(user: str) -> Caller:
    moderator = user.endswith("!")
    user = user.rstrip("!")
    return Caller(PLATFORM, CHAT, user, user, moderator)


async def build_template(path: Path) -> None:
    """alice, bob and carol; #5 alice beat bob (confirmed), #7 bob-carol waiting for carol;
    an open event 'cup' and a second ladder 'blitz'."""
    repository = await SqliteRepository.open(path)
    service = ClubService(repository, FakeClock(START))
    for name in ("alice", "bob", "carol"):
        await service.register(caller(name))
    await service.report(caller("alice"), "bob", "win")
    await service.confirm(caller("bob"))
    await service.report(caller("bob"), "carol", "win")
    await service.set_event(caller("mod!"), "cup", True)
    await service.create_ladder(caller("mod!"), "blitz", "glicko2", {})
    await repository.close()


_TEMPLATE: dict[str, Path] = {}


def template() -> Path:
    if "path" not in _TEMPLATE:
        folder = Path(tempfile.mkdtemp(prefix="fuzz-"))
        asyncio.run(build_template(folder / "template.db"))
        _TEMPLATE["path"] = folder / "template.db"
    return _TEMPLATE["path"]


def fresh_copy(folder: str) -> Path:
    path = Path(folder) / "club.db"
    shutil.copyfile(template(), path)
    return path


async def log_of(repository: SqliteRepository) -> list[tuple[int, str, str]]:
    """The club's whole log (every club's, in case a refusal wrote to another one)."""
    rows = []
    for club_id, _, _ in await repository.clubs():
        rows += [(e.id, e.kind, repr(e.data)) for e in await repository.events(club_id)]
    return rows


# -- chat commands --------------------------------------------------------------------------------

WORDS = [
    "@alice", "@bob", "@carol", "@zed", "@", "@@", "alice", "bob", "win", "loss", "draw", "lost",
    "tie", "WIN", "1", "5", "7", "#5", "#7", "0", "-3", "99999999999999999999999", "1e9", "nan",
    "inf", "ladder=main", "ladder=blitz", "ladder=", "ladder=nope", "handicap=5",
    "handicap=nan", "handicap=inf", "handicap=1e400", "handicap=-0", "colour=white",
    "colour=red", "event=cup", "event=none", "birth=2000-01-01", "birth=2999-01-01",
    "birth=31-12-1999", "a=@bob", "b=@alice", "a=@zed", "k=24", "k=-1", "k=abc", "=", "==",
    "x" * 300, "create", "open", "close", "add", "remove", "blitz", "glicko2", "elo", "nope",
    "auto_confirm_hours", "inactivity_days", "hide_provisional", "off", "yes", "-1", "0.5",
    '"', "'", '"quoted words"', "\\", "\x00", "\u202e", "名前", "🙂" * 40,
]
COMMAND_NAMES = [*COMMANDS, "as", "foo", "REPORT", "report@clubrating_bot", "", "/"]
CALLERS = ["alice", "bob", "carol", "zed", "mod!"]

#: lines a member would plausibly type, so that many are answered rather than refused
TEMPLATES = [
    "/register", "/register {name}", "/rating", "/rating @{who}", "/top", "/top blitz",
    "/report @{who} {result}", "/report @{who} {result} ladder=blitz", "/confirm", "/confirm {n}",
    "/dispute {n} {name}", "/withdraw {n}", "/challenge @{who}", "/accept", "/decline {n}",
    "/history @{who}", "/h2h @{who}", "/pending", "/correct {n} {result}", "/apply", "/cancel",
    "/void {n} {name}", "/restore {n}", "/retire @{who}", "/return @{who}", "/audit {n}",
    "/undo", "/event open {name}", "/event close cup", "/settings", "/set challenge_hours {n}",
    "/merge @{who} @carol", "/moderator add @{who}", "/report @{who} @carol {result}",
]
plausible = st.builds(
    lambda template, who, result, n, name: template.format(
        who=who, result=result, n=n, name=name),
    st.sampled_from(TEMPLATES), st.sampled_from(["alice", "bob", "carol", "zed"]),
    st.sampled_from(["win", "loss", "draw"]), st.integers(1, 12),
    st.sampled_from(["dan", "spring", "x" * 40, "a b"]),
)
lines = st.one_of(
    plausible,
    st.builds(
        lambda name, words: " ".join([f"/{name}", *words]),
        st.sampled_from(COMMAND_NAMES),
        st.lists(st.sampled_from(WORDS) | st.text(max_size=30), max_size=6),
    ),
    st.text(max_size=80),
    st.builds(lambda n: "/report @bob win " + "y" * n, st.integers(1900, 2100)),
)


async def say_all(path: Path, said: list[tuple[str, str]]) -> None:
    repository = await SqliteRepository.open(path)
    try:
        service = ClubService(repository, FakeClock(START + timedelta(hours=1)))
        limiter = RateLimiter(service.clock, DEFAULT_RATE)
        for who, line in said:
            before = await log_of(repository)
            try:
                command, words = parse(line)
                answer = await execute(Context(service, caller(who), limiter), command, words)
            except Refusal as refusal:
                assert refusal.key in MESSAGES
                assert render(refusal).strip()
                assert await log_of(repository) == before, f"refused {line!r} changed the log"
                CASES["chat lines refused"] += 1
                continue
            except Usage as usage:
                assert usage.args[0] in MESSAGES
                assert await log_of(repository) == before, f"unusable {line!r} changed the log"
                CASES["chat lines refused"] += 1
                continue
            if isinstance(answer, Picture):  # /chart, /card: a PNG with its caption
                assert answer.png.startswith(b"\x89PNG") and answer.filename
            else:
                assert (answer if isinstance(answer, str) else render(answer)).strip()
            CASES["chat lines answered"] += 1
    finally:
        await repository.close()


@settings(FAST, max_examples=200)
@given(st.lists(st.tuples(st.sampled_from(CALLERS), lines), min_size=1, max_size=4))
def test_chat_commands_answer_or_refuse_cleanly(said: list[tuple[str, str]]) -> None:
    CASES["chat lines"] += len(said)
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(say_all(fresh_copy(folder), said))


# -- EVENTS.csv / PLAYERS.csv and the import ------------------------------------------------------

EVENT_HEADERS = [
    "played_at,event,player_a,player_b,score_a",
    "played_at,event,player_a,player_b,score_a,handicap,seconds,kind",
    "played_at,event,player_a,player_b,score_a,kind",
    "played_at,player_a,player_b,score_a",  # missing column
    "played_at,event,player_a,player_b,score_a,colour",  # unknown column
    "played_at,event,player_a,player_a,score_a",  # twice
    "",
]
VALUES = {
    "played_at": ["2024-03-02", "2024-03-02T10:00", "2024-03-02T10:00+02:00", "", "yesterday",
                  "2024-13-45", "1900-01-01"],
    "event": ["", "", "", "cup", "open", "x" * 40],
    "player": ["alice", "bob", "carol", "dave", "eve", "", "a" * 101, "名前", "@bob", "12345",
               'dee "d", jr'],
    "score_a": ["1", "0", "0.5", "2", "-1", "nan", "", "win", "1e400"],
    "handicap": ["", "", "5", "-3", "inf", "nan", "abc", "1000000"],
    "seconds": ["", "", "30", "0", "-5", "nan"],
    "kind": ["", "game", "game", "join", "retire", "return", "explode"],
}


def csv_cell(value: str) -> str:
    return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n') else value


#: values every column accepts (a file made of these alone is valid unless a player meets
#: themself or a retired one plays)
VALID = {"played_at": ["2024-03-02", "2024-03-02T10:00"], "event": ["", "", "cup", "spring"],
         "player": ["alice", "bob", "carol", "dave", "eve"], "score_a": ["1", "0", "0.5"],
         "handicap": ["", "5"], "seconds": [""], "kind": ["", "game", "game", "game"]}


@st.composite
def events_files(draw: st.DrawFn) -> str:
    valid = draw(st.booleans())
    header = draw(st.sampled_from(EVENT_HEADERS[:2] if valid else EVENT_HEADERS))
    columns = header.split(",") if header else []
    rows = []
    for _ in range(draw(st.integers(0, 8))):
        row = []
        for column in columns:
            key = "player" if column.startswith("player") else column
            values = st.sampled_from(VALID.get(key, [""])) if valid else (
                st.sampled_from(VALUES.get(key, [""])) | st.text(max_size=6))
            row.append(csv_cell(draw(values)))
        if not valid and draw(st.integers(0, 9)) == 0:
            row = row[:-1]  # a short row
        rows.append(",".join(row))
    return "\n".join([header, *rows]) + "\n"


async def import_file(db: Path, events: Path) -> None:
    history = read_events(events)  # raises CsvError: then nothing was touched at all
    repository = await SqliteRepository.open(db)
    try:
        service = ClubService(repository, FakeClock(START + timedelta(days=1)))
        before = await log_of(repository)
        for ladder in (None, "blitz"):
            try:
                await service.import_history(PLATFORM, CHAT, history, history.labels, ladder)
            except Refusal as refusal:
                assert refusal.key in MESSAGES and render(refusal).strip()
                assert await log_of(repository) == before, "a refused import changed the log"
                continue
            CASES["csv imported"] += 1
            before = await log_of(repository)
    finally:
        await repository.close()


@settings(FAST, max_examples=200)
@given(events_files())
def test_events_csv_and_import_refuse_cleanly(content: str) -> None:
    CASES["EVENTS.csv files"] += 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "EVENTS.csv"
        path.write_text(content, encoding="utf-8")
        db = fresh_copy(folder)
        try:
            asyncio.run(import_file(db, path))
        except CsvError as error:
            assert str(error).startswith("EVENTS.csv") and error.problem.strip()


@st.composite
def players_files(draw: st.DrawFn) -> str:
    header = draw(st.sampled_from([
        "player,rating", "player,rating,games,deviation,volatility,birth_date,status",
        "player,rating,status", "rating", "player,rating,colour", "",
    ]))
    columns = header.split(",") if header else []
    pools = {"player": VALUES["player"], "rating": ["1500", "", "-3", "nan", "x", "1e400"],
             "games": ["", "3", "-1", "2.5", "x"], "deviation": ["", "50", "0", "-5", "inf"],
             "volatility": ["", "0.06", "0"], "birth_date": ["", "2000-01-01", "2000-02-30"],
             "status": ["", "active", "retired", "gone"]}
    rows = [",".join(csv_cell(draw(st.sampled_from(pools.get(c, [""])) | st.text(max_size=5)))
                     for c in columns) for _ in range(draw(st.integers(0, 6)))]
    return "\n".join([header, *rows]) + "\n"


@settings(FAST, max_examples=150)
@given(players_files() | st.binary(max_size=60).map(lambda b: b.decode("latin-1")))
def test_players_csv_refuses_cleanly(content: str) -> None:
    CASES["PLAYERS.csv files"] += 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "PLAYERS.csv"
        path.write_text(content, encoding="utf-8")
        try:
            roster = read_players(path)
        except CsvError as error:
            assert str(error).startswith("PLAYERS.csv") and error.problem.strip()
            return
        assert all(math.isfinite(s.rating) for s in roster.players.values())


@settings(FAST, max_examples=50)
@given(st.binary(max_size=200))
def test_binary_files_are_refused_as_csv(content: bytes) -> None:
    CASES["binary files"] += 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "EVENTS.csv"
        path.write_bytes(content)
        for reader in (read_events, read_players):
            try:
                reader(path)
            except CsvError as error:
                assert error.problem.strip()


# -- the rating engine ----------------------------------------------------------------------------

PLAYERS = ["p0", "p1", "p2", "p3"]
junk = st.sampled_from([2.0, -1.0, math.nan, math.inf, -math.inf, 1e308, -0.0, 400.0, 9.5])
#: mostly valid values, so that most histories get past the model and reach the systems
scores = st.sampled_from([0.0, 0.5, 1.0]) | junk
handicaps = st.sampled_from([0.0, 0.0, 0.0, 1.0, -2.0, 3.5]) | junk
moments = st.integers(0, 400).map(lambda n: datetime(2024, 1, 1) + timedelta(days=n))


@st.composite
def engine_events(draw: st.DrawFn) -> Game | Join | Retire | Return:
    kind = draw(st.sampled_from(["game", "game", "game", "join", "retire", "return"]))
    a = draw(st.sampled_from(PLAYERS))
    if kind == "game":
        valid = draw(st.integers(0, 5)) > 0
        b = draw(st.sampled_from([p for p in PLAYERS if p != a] if valid else PLAYERS))
        seconds = st.sampled_from([None, 5.0, 60.0, 400.0])
        return Game(a, b, draw(st.sampled_from([0.0, 0.5, 1.0]) if valid else scores),
                    draw(moments), draw(handicaps if not valid else st.sampled_from([0.0, 2.0])),
                    draw(seconds if valid else seconds | junk))
    cls = {"join": Join, "retire": Retire, "return": Return}[kind]
    return cls(a, draw(moments))  # type: ignore[no-any-return]


def refused_or_events(draw: st.DrawFn) -> list[Step]:
    steps: list[Step] = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.integers(0, 4)) == 0:
            steps.append(RatingPeriod(tuple(draw(st.lists(engine_events(), max_size=4)))))
        else:
            steps.append(draw(engine_events()))
    return steps


@settings(FAST, max_examples=300)
@given(st.sampled_from(system_names()), st.data())
def test_rating_engine_rates_or_refuses(system_name: str, data: st.DataObject) -> None:
    CASES["engine histories"] += 1
    try:
        steps = (data.draw(histories(max_steps=15, handicaps=True)) if data.draw(st.booleans())
                 else refused_or_events(data.draw))
    except ValueError as error:  # the model refuses a game no system could rate
        assert str(error).strip()
        CASES["engine: refused by the model"] += 1
        return
    system = make_system(system_name)
    try:
        result = replay(system, steps)
    except ValueError as error:  # ReplayError is one: names the step and the problem
        assert str(error).strip()
        CASES["engine: refused by replay"] += 1
        return
    CASES["engine: rated"] += 1
    for state in result.players.values():
        assert math.isfinite(state.rating)
        assert state.deviation is None or math.isfinite(state.deviation)
        assert state.volatility is None or math.isfinite(state.volatility)
    assert math.isfinite(result.pool)
