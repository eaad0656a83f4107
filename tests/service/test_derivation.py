"""Property: whatever members and moderators do, the ratings the bot keeps (cached, updated
incrementally from checkpoints) are exactly what a from-scratch replay of the log gives, and
exactly what a replay of the ladder's export gives.

Random sequences of use cases run against a ClubService on a temporary SQLite file; refusals
are allowed. After the sequence, and wherever it says ``check``, the bot's answers are compared
with three independent computations:

- a brand-new ClubService on the same file (nothing cached);
- the log read back from the repository, folded by ``ClubState.build``, derived by a new
  ``LadderRatings`` and replayed by ``ratings_core`` from the first step;
- the export (``export_history`` + ``write_events``) read back with ``read_events`` and replayed.

Checkpoints are taken every 3 steps here (1000 in production), so that corrections, voids,
merges and undos re-rate from a checkpoint in the middle. Members register without a birth
date: EVENTS.csv cannot carry one (see test_import_export, the junior under elo).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.history import read_events, write_events
from bot.service import ratings
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService, Correction
from bot.service.errors import Refusal
from bot.service.ratings import LadderRatings, member_of_key
from bot.service.results import GameResult, Leaderboard, Preview, Result
from bot.service.state import ClubState
from bot.storage.sqlite import SqliteRepository
from ratings_core.model import Game, RatingPeriod
from ratings_core.replay import Checkpoint, replay
from ratings_core.systems import make_system
from tests.chat import START

PLATFORM, CHAT = "console", "local"
USERS = ["u0", "u1", "u2", "u3", "u4"]
#: display names; one needs quoting in CSV
NAMES = ["ann", "bob", "cid", 'dee "d", jr', "eve"]
EVENTS = ["cup", "open"]
#: the club's main ladder (None) and one a moderator may create
LADDERS = [None, "blitz"]
MOD = Caller(PLATFORM, CHAT, "mod", "Mod", moderator=True)


def member(i: int) -> Caller:
    return Caller(PLATFORM, CHAT, USERS[i], NAMES[i])


players = st.integers(0, len(USERS) - 1)
results = st.sampled_from(["win", "loss", "draw"])
handicaps = st.sampled_from([None, None, None, "25", "-12.5", "7.123456789"])
games = st.integers(0, 30)  # an index into the games reported so far
events = st.sampled_from([None, None, None, *EVENTS])
ladders = st.sampled_from([None, None, None, "blitz"])
#: who answers a report: the one it waits for (None), or anyone
answerer = st.none() | st.none() | st.none() | players
systems = st.sampled_from(["club", "elo", "glicko", "elo k=24", "club pool_cap=50"])
settings_ = st.sampled_from([("inactivity_days", "2"), ("inactivity_days", "off"),
                             ("auto_confirm_hours", "1"), ("auto_confirm_hours", "24")])

#: each kind of operation, as often as it should come up, and how its arguments are drawn
KINDS: dict[str, tuple[int, tuple[st.SearchStrategy[Any], ...]]] = {
    "report": (8, (players, players, results, handicaps, events, ladders)),
    "confirm": (8, (answerer, games, st.booleans())),
    "direct": (6, (players, players, results, handicaps, events, ladders)),
    "dispute": (2, (answerer, games, st.booleans())),
    "withdraw": (1, (answerer, games, st.booleans())),
    "correct_result": (2, (games, results, st.booleans())),
    "correct_player": (1, (games, st.sampled_from(["a", "b"]), players)),
    "void": (2, (games,)),
    "restore": (1, (games,)),
    "retire": (2, (players, ladders)),
    "return": (2, (players, ladders)),
    "merge": (1, (players, players)),
    "open": (2, (st.sampled_from(EVENTS), ladders)),
    "close": (2, (st.sampled_from(EVENTS), ladders)),
    "undo": (2, ()),
    "advance": (3, (st.sampled_from([1, 6, 25, 49]),)),
    "system": (1, (systems, ladders)),
    "ladder": (1, (st.sampled_from(["glicko", "elo", "club"]),)),
    "setting": (1, (settings_, ladders)),
    "check": (1, ()),
    "register": (1, (players,)),
}


@st.composite
def operations(draw: st.DrawFn) -> tuple[Any, ...]:
    kind = draw(st.sampled_from([k for k, (weight, _) in KINDS.items() for _ in range(weight)]))
    return (kind, *(draw(arg) for arg in KINDS[kind][1]))


#: every sequence starts with four members (a fifth may register later)
sequences = st.lists(operations(), min_size=15, max_size=50).map(
    lambda ops: [*(("register", i) for i in range(4)), *ops]
)


@dataclass
class Run:
    path: Path
    service: ClubService
    clock: FakeClock
    games: list[int] = field(default_factory=list)
    #: each reported game's players, as indexes into USERS
    sides: dict[int, tuple[int, int]] = field(default_factory=dict)
    checks: int = 0

    def game(self, index: int | None) -> int | None:
        if index is None or not self.games:
            return None
        return self.games[index % len(self.games)]


async def attempt(call: Awaitable[Result]) -> Result | tuple[str, dict[str, Any]]:
    """The answer, or the refusal as (key, params): refusals are part of the behaviour."""
    try:
        return await call
    except Refusal as refusal:
        return refusal.key, refusal.params


def _parsed(text: str) -> tuple[str, dict[str, str]]:
    name, *pairs = text.split()
    return name, dict(pair.split("=") for pair in pairs)


async def step(run: Run, op: tuple[Any, ...]) -> None:
    service = run.service
    kind = op[0]
    if kind == "register":
        await attempt(service.register(member(op[1])))
    elif kind in ("report", "direct"):
        _, a, b, result, handicap, event, ladder = op
        if kind == "report":
            call = service.report(member(a), NAMES[b], result, handicap=handicap, event=event,
                                  ladder=ladder)
        else:
            call = service.report(MOD, NAMES[b], result, player=NAMES[a], handicap=handicap,
                                  event=event, ladder=ladder)
        answer = await attempt(call)
        if isinstance(answer, GameResult):
            run.games.append(answer.game.id)
            run.sides[answer.game.id] = (a, b)
    elif kind in ("confirm", "dispute", "withdraw"):
        _, who, index, by_id = op
        game = run.game(index)
        if game is None:
            return
        if who is None:  # the reporter withdraws, the opponent answers
            who = run.sides[game][0 if kind == "withdraw" else 1]
        caller, game_id = member(who), game if by_id else None
        if kind == "confirm":
            await attempt(service.confirm(caller, game_id))
        elif kind == "dispute":
            await attempt(service.dispute(caller, game_id, "no"))
        else:
            await attempt(service.withdraw(caller, game_id))
    elif kind in ("correct_result", "correct_player"):
        game = run.game(op[1])
        if game is None:
            return
        if kind == "correct_result":
            correction = Correction(result=op[2], handicap="10" if op[3] else None)
        else:
            side = NAMES[op[3]]
            correction = Correction(player_a=side) if op[2] == "a" else Correction(player_b=side)
        preview = await attempt(service.correct(MOD, game, correction))
        answer = await attempt(service.correct(MOD, game, correction, apply=True))
        if isinstance(answer, Preview):
            # What the preview promised is what the correction did.
            assert isinstance(preview, Preview)
            assert preview.changes == answer.changes
            assert not preview.applied and answer.applied
        else:
            assert answer == preview
    elif kind in ("void", "restore"):
        game = run.game(op[1])
        if game is not None:
            await attempt(service.void(MOD, game, "test", restore=kind == "restore"))
    elif kind in ("retire", "return"):
        await attempt(service.set_membership(MOD, NAMES[op[1]], kind == "retire", op[2]))
    elif kind == "merge":
        preview = await attempt(service.merge(MOD, NAMES[op[1]], NAMES[op[2]]))
        if isinstance(preview, Preview):  # previewed: Apply
            merged = await attempt(service.apply_correction(MOD, merge=preview.game_id))
            # What the preview promised is what the merge did.
            assert isinstance(merged, Preview) and merged.applied
            assert merged.changes == preview.changes
    elif kind in ("open", "close"):
        await attempt(service.set_event(MOD, op[1], kind == "open", op[2]))
    elif kind == "undo":
        undo = await attempt(service.undo(MOD))
        if isinstance(undo, Preview) and not undo.applied:  # it moves ratings: Apply
            await attempt(service.apply_correction(MOD))
    elif kind == "advance":
        run.clock.advance(hours=op[1])
    elif kind == "system":
        name, params = _parsed(op[1])
        switch = await attempt(service.set_system(MOD, name, params, op[2]))
        if isinstance(switch, Preview) and not switch.applied:  # it moves ratings: Apply
            switched = await attempt(service.apply_correction(MOD, system=switch.game_id))
            # What the preview promised is what the switch did.
            assert isinstance(switched, Preview) and switched.applied
            assert switched.changes == switch.changes
    elif kind == "ladder":
        await attempt(service.create_ladder(MOD, "blitz", op[1]))
    elif kind == "setting":
        (setting, value), ladder = op[1], op[2]
        await attempt(service.set_setting(MOD, setting, value, ladder))
    else:
        assert kind == "check"
        await check(run)


async def views(service: ClubService) -> list[object]:
    """Everything a member can see about the ratings: boards and profiles on every ladder."""
    seen: list[object] = []
    for ladder in LADDERS:
        seen.append(await attempt(service.leaderboard(MOD, ladder)))
        seen.extend([await attempt(service.profile(MOD, name, ladder)) for name in NAMES])
    return seen


def by_name(state: ClubState, final: Checkpoint) -> dict[str, object]:
    return {state.member(member_of_key(key)).name: s for key, s in final.players.items()}


async def check(run: Run) -> None:
    run.checks += 1
    service = run.service
    seen = await views(service)  # also applies what the clock has made due
    repository = await SqliteRepository.open(run.path)
    try:
        # (a1) A service that has cached nothing shows the same.
        assert await views(ClubService(repository, run.clock)) == seen
        club_id = await repository.club_id(PLATFORM, CHAT, run.clock.now())
        state = ClubState.build(await repository.events(club_id))
        for name in state.ladders:
            await check_ladder(run, club_id, state, name)
    finally:
        await repository.close()


async def check_ladder(run: Run, club_id: int, state: ClubState, name: str) -> None:
    # (a2) The log, folded and derived anew, replayed from the first step.
    ladder = state.ladders[name]
    derived = LadderRatings()
    final = derived.sync(state, ladder)
    system = make_system(ladder.settings.system, dict(ladder.settings.params))
    scratch = replay(system, derived.steps).final
    assert dict(final.players) == dict(scratch.players)
    assert final.pool == scratch.pool

    # The bot's own cache: the same steps, states and pool, and true checkpoints on the way.
    service = run.service
    board = await service.leaderboard(MOD, name)  # brings the cache up to date
    cached = service._session.clubs[club_id].ratings[name]
    assert cached.final is not None
    assert cached.steps == derived.steps
    assert dict(cached.final.players) == dict(scratch.players)
    assert cached.final.pool == scratch.pool
    for checkpoint in cached.checkpoints:
        assert checkpoint == replay(system, derived.steps[: checkpoint.position]).final

    # The board lists exactly the active players, best first, with the replay's numbers.
    assert isinstance(board, Leaderboard)
    active = sorted(
        ((s.rating, state.member(member_of_key(k)).name, s)
         for k, s in scratch.players.items() if s.status == "active"),
        key=lambda row: (-row[0], row[1].casefold()),
    )
    assert [(r.name, r.rating, r.games, r.provisional) for r in board.rows] == [
        (who, s.rating, s.games, system.is_provisional(s)) for _, who, s in active
    ]

    # (b) The export, written, read back and replayed, gives the same ratings by name.
    steps, names, labels = await service.export_history(PLATFORM, CHAT, name)
    export = run.path.with_name(f"{name}.csv")
    export.write_text(write_events(steps, names, labels), encoding="utf-8")
    history = read_events(export)
    assert history.steps == [_renamed(s, names) for s in steps]
    again = replay(system, history.steps).final
    assert dict(again.players) == by_name(state, scratch)
    assert again.pool == scratch.pool


def _renamed(step: Any, names: dict[str, str]) -> Any:
    """A step with engine keys replaced by display names (what the file holds)."""
    if isinstance(step, RatingPeriod):
        return RatingPeriod(tuple(_renamed(e, names) for e in step.events))
    if isinstance(step, Game):
        return replace(step, player_a=names[step.player_a], player_b=names[step.player_b])
    return replace(step, player=names[step.player])


async def play(path: Path, ops: list[tuple[Any, ...]]) -> int:
    repository = await SqliteRepository.open(path)
    # Checkpoints every few steps, so that re-rating from a checkpoint is what gets tested.
    with mock.patch.object(ratings, "CHECKPOINT_EVERY", 3):
        try:
            clock = FakeClock(START)
            run = Run(path, ClubService(repository, clock), clock)
            for op in ops:
                await step(run, op)
            await check(run)
            return run.checks
        finally:
            await repository.close()


#: an event opened, its opening taken back by /undo and made again: the games reported into
#: the first opening count on their own, whether or not anything was cached in between
REOPENED = [
    *(("register", i) for i in range(4)),
    ("open", "cup", None), ("report", 0, 1, "win", None, "cup", None), ("confirm", None, 0, False),
    ("undo",), ("check",), ("open", "cup", None), ("report", 2, 3, "draw", None, "cup", None),
    ("confirm", None, 1, True), ("check",), ("close", "cup", None),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sequences)
@example(REOPENED)
def test_cached_ratings_equal_a_replay_of_the_log(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        assert asyncio.run(play(Path(folder) / "club.db", ops)) >= 1
