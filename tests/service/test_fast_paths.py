"""Issue 19's fast paths give what the slow ones gave.

- A correction that keeps a game's players and date replaces its step in place and replays from
  the checkpoint before it; a correction applied right after its preview takes the preview's
  replay. Whatever members and moderators do (corrections, previews applied or not, voids,
  merges, settled reports, events), the cached ratings are those of the log folded and derived
  anew, after every use case.
- An import builds its events in bulk and stores them in one statement, with the collector
  paused: the rows stored, the ratings and the refusals are those of the build before
  (``data/import-before.jsonl``, written by 942bea4+editions, commit d2bec2d), and the state
  folded along the way is the log folded anew.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import dataclasses
import gc
import json
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.presenter import render
from bot.history import History, read_events
from bot.service import collector, importing, ratings
from bot.service import events as ev
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService, Correction
from bot.service.errors import Refusal
from bot.service.ratings import LadderRatings
from bot.service.results import Preview
from bot.service.state import ClubState
from bot.storage.backends import open_repository
from bot.storage.repository import NewEvent, Repository, StoredEvent
from ratings_core import systems
from ratings_core.model import Game, Join, RatingPeriod, Retire
from ratings_core.replay import replay

NOW = datetime(2024, 3, 1, 19, 0)
PLATFORM, CHAT = "console", "c"
MOD = Caller(PLATFORM, CHAT, "mod", "Mod", moderator=True)
DATA = Path(__file__).parent / "data"


def member(user: str, name: str) -> Caller:
    return Caller(PLATFORM, CHAT, user, name)


@dataclasses.dataclass
class Club:
    service: ClubService
    repository: Repository
    clock: FakeClock

    async def fresh_ratings(self) -> dict[str, tuple[Any, ...]]:
        """Every ladder's ratings from the log alone: folded, derived and replayed anew."""
        club = await self.repository.club_id(PLATFORM, CHAT, NOW)
        state = ClubState.build(await self.repository.events(club))
        found = {}
        for name, ladder in state.ladders.items():
            fresh = LadderRatings()
            final = fresh.sync(state, ladder)
            found[name] = (fresh.steps, fresh.labels, dict(final.players), final.pool)
        return found

    def cached(self) -> tuple[ClubState, dict[str, LadderRatings]]:
        club = next(iter(self.service._session.clubs.values()))
        return club.state, club.ratings


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    repository = await open_repository(tmp_path / "club.db")
    clock = FakeClock(NOW)
    yield Club(ClubService(repository, clock), repository, clock)
    await repository.close()


async def assert_cached_is_fresh(club: Club) -> None:
    """The service's cached ratings (brought up to date by a leaderboard) are the log's, and
    each stored checkpoint is the replay of the steps before it."""
    await club.service.leaderboard(MOD)
    fresh = await club.fresh_ratings()
    state, cached = club.cached()
    for name, ladder in state.ladders.items():
        if name not in cached:
            continue
        ours = cached[name]
        final = ours.sync(state, ladder)
        assert (ours.steps, ours.labels, dict(final.players), final.pool) == fresh[name]
        assert ours.system is not None
        for checkpoint in ours.checkpoints:
            assert checkpoint == replay(ours.system, ours.steps[:checkpoint.position]).final


# -- corrections -----------------------------------------------------------------------------

USERS = ["u0", "u1", "u2", "u3"]
NAMES = ["ann", "bob", "cid", "dee"]

games = st.integers(1, 6)  # a game's number (refused when there is no such game yet)
players = st.integers(0, len(USERS) - 1)
results = st.sampled_from(["win", "loss", "draw"])
CORRECTIONS = st.one_of(
    st.tuples(st.just("correct"), games, results, st.sampled_from([None, "10", "-5"]),
              st.booleans()),
    st.tuples(st.just("preview"), games, results, st.sampled_from(["apply", "cancel",
                                                                   "again"])),
)
OPERATIONS = st.one_of(
    CORRECTIONS, CORRECTIONS, CORRECTIONS,
    st.tuples(st.just("direct"), players, players, results, st.sampled_from([None, "cup"])),
    st.tuples(st.just("report"), players, players, results),
    st.tuples(st.just("correct"), games, results, st.sampled_from([None, "10", "-5"]),
              st.booleans()),
    st.tuples(st.just("correct_player"), games, players),
    st.tuples(st.just("preview"), games, results, st.sampled_from(["apply", "cancel",
                                                                   "again"])),
    st.tuples(st.just("void"), games, st.booleans()),
    st.tuples(st.just("merge"), players, players),
    st.tuples(st.just("retire"), players, st.booleans()),
    st.tuples(st.just("event"), st.booleans()),
    st.tuples(st.just("undo")),
)


async def operate(club: Club, op: tuple[Any, ...]) -> None:
    service = club.service
    kind = op[0]
    if kind == "direct":
        _, a, b, result, event = op
        await service.report(MOD, NAMES[b], result, player=NAMES[a], event=event)
    elif kind == "report":
        _, a, b, result = op
        await service.report(member(USERS[a], NAMES[a]), NAMES[b], result)
    elif kind == "correct":
        _, number, result, handicap, apply = op
        await service.correct(MOD, number, Correction(result=result, handicap=handicap),
                              apply=apply)
    elif kind == "correct_player":
        await service.correct(MOD, op[1], Correction(player_b=NAMES[op[2]]), apply=True)
    elif kind == "preview":
        _, number, result, then = op
        preview = await service.preview_correction(MOD, number, Correction(result=result))
        if then == "apply":
            applied = await service.apply_correction(MOD, number)
            assert applied is not None and applied.changes == preview.changes  # type: ignore
        elif then == "cancel":
            await service.cancel_correction(MOD, number)
        else:  # a report in between: the kept replay is not the ratings' any more
            await service.report(MOD, NAMES[1], "draw", player=NAMES[0])
            await service.apply_correction(MOD, number)
    elif kind == "void":
        await service.void(MOD, op[1], "test", restore=op[2])
    elif kind == "merge":
        preview = await service.merge(MOD, NAMES[op[1]], NAMES[op[2]])
        await service.apply_correction(MOD, merge=preview.game_id)
    elif kind == "retire":
        await service.set_membership(MOD, NAMES[op[1]], op[2])
    elif kind == "event":
        await service.set_event(MOD, "cup", op[1])
    else:
        undo = await service.undo(MOD)
        if not undo.applied:
            await service.apply_correction(MOD)


async def corrections_run(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        repository = await open_repository(Path(folder) / "club.db")
        club = Club(ClubService(repository, FakeClock(NOW)), repository, FakeClock(NOW))
        try:
            for user, name in zip(USERS, NAMES, strict=True):
                await club.service.register(member(user, name))
            for op in ops:
                with contextlib.suppress(Refusal):  # refusals are part of the behaviour
                    await operate(club, op)
                await assert_cached_is_fresh(club)
        finally:
            await repository.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPERATIONS, min_size=5, max_size=30).map(
    lambda ops: [("direct", 0, 1, "win", None), ("direct", 2, 3, "draw", None),
                 ("direct", 1, 2, "loss", None), *ops]))
def test_after_every_use_case_the_cached_ratings_are_the_logs(ops: list[tuple[Any, ...]]) -> None:
    # checkpoints every 3 steps: corrections replay from one in the middle
    with mock.patch.object(ratings, "CHECKPOINT_EVERY", 3):
        asyncio.run(corrections_run(ops))


@pytest.fixture
def every_5() -> Iterator[None]:
    with mock.patch.object(ratings, "CHECKPOINT_EVERY", 5):
        yield


async def thirty_games(club: Club) -> None:
    for user, name in zip(USERS, NAMES, strict=True):
        await club.service.register(member(user, name))
    for n in range(30):
        await club.service.report(MOD, NAMES[(n + 1) % 4], ("win", "loss", "draw")[n % 3],
                                  player=NAMES[n % 4])
    await club.service.leaderboard(MOD)


@pytest.mark.usefixtures("every_5")
async def test_a_correction_replays_from_its_checkpoint_without_deriving_again(
    club: Club,
) -> None:
    await thirty_games(club)
    state, cached = club.cached()
    derivation = cached["main"]._derivation
    assert derivation is not None
    record = state.game_numbered(20)
    assert record is not None
    position = derivation.positions[record.id]
    starts: list[int] = []
    real = ratings.replay

    def spy(*args: Any, **kwargs: Any) -> Any:
        starts.append(kwargs["start"].position)
        return real(*args, **kwargs)

    with mock.patch.object(LadderRatings, "_rebuild", side_effect=AssertionError), \
            mock.patch.object(ratings, "replay", side_effect=spy):
        answer = await club.service.correct(MOD, 20, Correction(result="draw",
                                                                handicap="25"), apply=True)
    assert answer.applied and answer.changes
    assert starts == [position - position % 5]  # from the checkpoint before it, once
    await assert_cached_is_fresh(club)


@pytest.mark.parametrize("late", ["registered", "retired"])
async def test_a_correction_of_a_player_derives_the_steps_again(club: Club, late: str) -> None:
    """A game given to a member who joined after it, or who was retired when it was played,
    changes other steps (that member's join, an implicit return): the steps are derived
    again."""
    await club.service.register(member("u0", "ann"))
    await club.service.register(member("u1", "bob"))
    await club.service.report(MOD, "bob", "win", player="ann")
    await club.service.register(member("u2", "cid"))
    if late == "retired":
        await club.service.set_membership(MOD, "cid", True)
        await club.service.report(MOD, "bob", "draw", player="ann")
    await club.service.leaderboard(MOD)
    number = 2 if late == "retired" else 1
    preview = await club.service.correct(MOD, number, Correction(player_b="cid"))
    applied = await club.service.correct(MOD, number, Correction(player_b="cid"), apply=True)
    assert applied.changes == preview.changes
    await assert_cached_is_fresh(club)


@pytest.mark.usefixtures("every_5")
async def test_an_apply_after_its_preview_takes_the_previews_replay(club: Club) -> None:
    await thirty_games(club)
    real = ratings.replay
    calls: list[int] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs["start"].position)
        return real(*args, **kwargs)

    with mock.patch.object(ratings, "replay", side_effect=spy):
        preview = await club.service.preview_correction(MOD, 3, Correction(result="loss"))
        assert len(calls) == 1
        applied = await club.service.apply_correction(MOD, 3)
    assert len(calls) == 1  # the apply replayed nothing
    assert applied is not None and applied.changes == preview.changes  # type: ignore
    await assert_cached_is_fresh(club)


async def test_a_new_edition_of_the_same_system_rates_everything_again(club: Club) -> None:
    """A ladder whose log names no edition is on edition 1's defaults; /system with the same
    name and parameters moves it to today's, which rate otherwise: the cached ratings are
    replayed by the new system from the first step (its checkpoints are none of the old's)."""
    club_id = await club.repository.club_id(PLATFORM, CHAT, NOW)
    async with club.repository.transaction(club_id, 0) as tx:  # as written before editions
        await tx.append([ev.new_event(ev.LadderCreated("main", "club"), "system", NOW)])
    with mock.patch.dict(systems.PAST_EDITIONS, {1: {"club": {"base": "1400"}}}), \
            mock.patch.object(ratings, "CHECKPOINT_EVERY", 5):
        await thirty_games(club)
        state, cached = club.cached()
        assert state.ladders["main"].settings.edition == 1
        # Previewed first (issue 19): edition 1's base 1400 to today's 1500 moves every rating,
        # and the preview's own replay leaves the cache as it was.
        preview = await club.service.set_system(MOD, "club")
        assert not preview.applied and preview.system is not None and preview.changes
        assert state.ladders["main"].settings.edition == 1
        await assert_cached_is_fresh(club)
        applied = await club.service.apply_correction(MOD, system=preview.game_id)
        assert isinstance(applied, Preview) and applied.applied
        assert applied.changes == preview.changes  # what the preview promised
        assert state.ladders["main"].settings.edition == systems.EDITION
        await assert_cached_is_fresh(club)


# -- imports ---------------------------------------------------------------------------------

FIRST = """played_at,event,player_a,player_b,score_a,handicap,kind,colour
2024-01-02T10:00:00,,Ann,Bob,1,,,
2024-01-03T10:00:00,,Zoë,Ann,0.5,12.5,,white
2024-01-04T10:00:00,,Carl,Bob,0,,,black
2024-01-05T10:00:00,,Dée,,,,join,
2024-01-06T19:00:00,cup,Ann,Carl,1,,,
2024-01-06T19:30:00,cup,Bob,Dée,0.5,-3,,
2024-01-06T20:00:00,cup,Eve,,,,join,
2024-01-07T10:00:00,,Carl,,,,retire,
2024-01-08T10:00:00,import,Bob,Zoë,1,,,
2024-01-09T10:00:00,,Carl,,,,return,
2024-01-09T11:00:00,import,Ann,Eve,0,,,white
2024-01-10T10:00:00,,Eve,Carl,1,100,,
"""
SECOND = """played_at,event,player_a,player_b,score_a,handicap,kind,colour
2024-02-01T10:00:00,cup,ann,Fay,1,,,
2024-02-01T11:00:00,cup,Fay,Bob,0,,,
2024-02-02T10:00:00,,Gus,Zoë,0.5,,,black
2024-02-03T10:00:00,,Gus,,,,retire,
"""


async def test_an_import_stores_and_rates_what_the_build_before_did(
    club: Club, tmp_path: Path
) -> None:
    await club.service.set_system(MOD, "elo")
    await club.service.register(member("u-ann", "Ann"), "Ann")
    await club.service.register(Caller(PLATFORM, CHAT, "u-bob", "bob", False, "r1"), "Bob")
    for name, text in (("FIRST.csv", FIRST), ("SECOND.csv", SECOND)):
        file = tmp_path / name
        file.write_text(text, encoding="utf-8")
        history = read_events(file)
        await club.service.import_history(PLATFORM, CHAT, history, history.labels)
        club.clock.advance(hours=1)
    board = await club.service.leaderboard(member("u-ann", "Ann"))
    lines = (DATA / "import-before.jsonl").read_text(encoding="utf-8").splitlines()
    expected_rows = [tuple(json.loads(line)) for line in lines[:-1]]
    with sqlite3.connect(tmp_path / "club.db") as db:
        rows = db.execute("SELECT id, club_id, kind, actor, at, reason, data FROM events"
                          " WHERE actor = 'import' ORDER BY id").fetchall()
    assert rows == expected_rows
    assert [[r.name, r.rating, r.games, r.provisional] for r in board.rows] == json.loads(
        lines[-1])
    # the state folded along the way is the log folded anew
    state, _ = club.cached()
    club_id = await club.repository.club_id(PLATFORM, CHAT, NOW)
    assert vars(state) == vars(ClubState.build(await club.repository.events(club_id)))


REFUSED = {
    "Carl,Bob,1\nCarl,retire\nBob,Carl,0": "E.csv row 3, column player_b: player 'Carl' is "
    "retired; a 'return' must come before their games. Nothing was imported.",
    "m7,Bob,1\nm7,retire\nBob,m7,0": "E.csv row 3, column player_b: player 'm7' is retired; a "
    "'return' must come before their games. Nothing was imported.",
    "m0007,Bob,1\nm0007,retire\nm0007,Bob,0": "E.csv row 3, column player_a: player 'm0007' "
    "is retired; a 'return' must come before their games. Nothing was imported.",
    "Ann,Bob,1\nAnn,retire\nBob,Ann,0": "E.csv row 3, column player_b: player 'Ann' is "
    "retired; a 'return' must come before their games. Nothing was imported.",
    "\"O'Neil\",Bob,1\n\"O'Neil\",retire\nBob,\"O'Neil\",0": "E.csv row 3, column player_b: "
    "player \"O'Neil\" is retired; a 'return' must come before their games. Nothing was "
    "imported.",
    "Zed,Bob,1\nZed,retire\nZed,retire": "E.csv row 3, column player_a: player 'Zed' is "
    "already retired. Nothing was imported.",
    "new:x,Bob,1\nnew:x,retire\nBob,new:x,0": "E.csv row 3, column player_b: player 'new:x' "
    "is retired; a 'return' must come before their games. Nothing was imported.",
}


def _rows(short: str) -> str:
    """``A,B,score`` as a game row and ``A,retire`` as a retirement, a day apart."""
    lines = ["played_at,player_a,player_b,score_a,kind,event"]
    for day, row in enumerate(short.split("\n"), start=2):
        cells = next(csv.reader([row]))
        when = f"2024-01-{day:02d}T10:00:00"
        quoted = ['"' + c.replace('"', '""') + '"' for c in cells]
        if cells[1] == "retire":
            lines.append(f"{when},{quoted[0]},,,retire,")
        else:
            lines.append(f"{when},{quoted[0]},{quoted[1]},{cells[2]},,")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("rows", list(REFUSED))
async def test_an_imports_refusal_reads_as_before(club: Club, tmp_path: Path, rows: str) -> None:
    """New players are checked under their own names when nothing can mistake them for a
    member's key (``m`` and an id), else as before: the refusal names them alike."""
    await club.service.register(member("u-ann", "Ann"), "Ann")
    await club.service.register(member("u-bob", "Bob"), "Bob")
    file = tmp_path / "E.csv"
    file.write_text(_rows(rows), encoding="utf-8")
    history = read_events(file)
    with pytest.raises(Refusal) as refused:
        await club.service.import_history(PLATFORM, CHAT, history, history.labels)
    assert render(refused.value) == REFUSED[rows]


def test_new_players_are_their_own_keys_unless_a_key_could_be_theirs() -> None:
    assert importing.new_key("Zoë", "Zoë") == "Zoë"
    assert importing.new_key("m0007", "m0007") == "m0007"  # no member's key has a leading 0
    assert importing.new_key("m7", "m7") == "new:m7"
    assert importing.new_key("m0", "m0") == "new:m0"
    assert importing.new_key("new:x", "new:x") == "new:new:x"
    assert importing.new_key("O'Neil", "O'Neil") == "new:O'Neil"
    assert importing.new_key('a "b"', 'a "b"') == 'new:a "b"'


def test_rekey_copies_every_field_of_a_game() -> None:
    # rekey writes Game's fields out one by one: a new field must be added there too
    assert [f.name for f in dataclasses.fields(Game)] == [
        "player_a", "player_b", "score_a", "played_at", "handicap", "seconds", "first_move"]
    game = Game("a", "b", 0.5, NOW, 12.5, 30.0, -1)
    assert importing.rekey([game, RatingPeriod((game,))], {"a": "x", "b": "y"}) == [
        dataclasses.replace(game, player_a="x", player_b="y"),
        RatingPeriod((dataclasses.replace(game, player_a="x", player_b="y"),)),
    ]
    same = importing.rekey([game], {"a": "a", "b": "b"})
    assert same[0] is game


def test_an_imports_events_are_those_of_their_payloads() -> None:
    steps = [Game("a", "b", 1.0, NOW, 0.0), Game("b", "a", 0.5, NOW, -7.5, first_move=1),
             Join("c", NOW), Game("c", "a", 0.0, NOW + timedelta(hours=1), first_move=-1),
             RatingPeriod((Game("a", "c", 1.0, NOW), Retire("b", NOW)))]
    users = {"a": "import:a", "b": "u-b", "c": "import:c"}
    made = importing.history_events(steps, ["", "", "", "", "cup"], "main", users, "import",
                                     NOW, set())
    expected: list[NewEvent] = []
    for step, label in zip(steps, ["", "", "", "", "cup"], strict=True):
        if isinstance(step, Game):
            expected.append(ev.new_event(ev.GameReported(
                "main", users[step.player_a], users[step.player_b], step.score_a,
                step.handicap, {1: "white", -1: "black", 0: None}[step.first_move], None,
                step.played_at.isoformat(), None, True), "import", NOW))
        else:
            expected.extend(importing.import_events(step, label, "main", users, "import", NOW,
                                                    set()))
    assert made == expected
    assert [list(e.data) for e in made] == [list(e.data) for e in expected]  # key order too
    with pytest.raises(ValueError):
        ev.plain_keys(ev.GameCorrected)


async def test_the_collector_is_paused_for_an_import_only(club: Club) -> None:
    seen: list[bool] = []
    real = importing.check_dates

    def spy(*args: Any) -> None:
        seen.append(gc.isenabled())
        real(*args)

    history = History([Game("x", "y", 1.0, NOW - timedelta(days=1))], [[2]], [""])
    with mock.patch.object(importing, "check_dates", side_effect=spy):
        await club.service.import_history(PLATFORM, CHAT, history, history.labels)
    assert seen == [False]
    assert gc.isenabled()
    await club.service.leaderboard(MOD)
    assert gc.isenabled()
    gc.disable()  # someone else's pause is left to them
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- storage: a long append -------------------------------------------------------------------


async def test_a_long_append_is_stored_in_order_with_its_ids(repository: Repository) -> None:
    club = await repository.club_id("console", "local", NOW)
    other = await repository.club_id("console", "other", NOW)
    async with repository.transaction(other, 0) as tx:
        await tx.append([NewEvent("x", "a", NOW, {"n": 0})])
    many = [NewEvent("game_reported", f"u{n % 7}", NOW + timedelta(seconds=n),
                     {"n": n, "name": "Zoë ✓", "score": n / 2, "none": None}, f"r{n}")
            for n in range(3000)]
    async with repository.transaction(club, 0) as tx:
        first = await tx.append(many[:1000])
        second = await tx.append(many[1000:])
        one = await tx.append([NewEvent("x", "a", NOW, {})])
    stored = [*first, *second, *one]
    assert [e.id for e in stored] == sorted({e.id for e in stored})
    assert await repository.events(club) == stored
    assert [StoredEvent(e.id, e.kind, e.actor, e.at, e.data, e.reason) for e in stored] == [
        StoredEvent(s.id, n.kind, n.actor, n.at, n.data, n.reason)
        for s, n in zip(stored, [*many, NewEvent("x", "a", NOW, {})], strict=True)]
    async with repository.transaction(club, one[0].id) as tx:  # the next writer's check holds
        assert len(await tx.append(many[:2])) == 2
