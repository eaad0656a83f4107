"""The replay engine: determinism, checkpoints, membership rules and the pool invariant."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratings_core.club import ClubElo, ClubParams
from ratings_core.elo import ClassicElo, EloParams
from ratings_core.linear import LinearElo, TaisenElo
from ratings_core.model import Game, Join, PlayerState, RatingPeriod, Retire, Return, Status, Step
from ratings_core.replay import Engine, ReplayError, replay
from ratings_core.system import RatingSystem
from ratings_core.systems import PRESETS, make_system
from tests.helpers import day, established, game
from tests.strategies import histories

ALL_SYSTEMS = sorted(PRESETS)
SWAPPABLE = [name for name in ALL_SYSTEMS if name != "tactics"]  # user vs problem: no mirror
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _fits(system: RatingSystem, steps: list[Step]) -> list[Step]:
    """Adapt a generated history to what a system can rate (system.check)."""
    if system.uses_seconds:  # tactics: users and problems apart, attempts solved or failed
        def adapt(g: Game) -> Game:
            return Game(g.player_a, f"problem {g.player_b}", 1.0 if g.score_a else 0.0,
                        g.played_at, 0.0, g.seconds)
    elif not system.uses_handicap:
        def adapt(g: Game) -> Game:
            return Game(g.player_a, g.player_b, g.score_a, g.played_at, 0.0, g.seconds)
    else:
        return steps
    out: list[Step] = []
    for step in steps:
        if isinstance(step, Game):
            out.append(adapt(step))
        elif isinstance(step, RatingPeriod):
            games = [adapt(e) for e in step.events if isinstance(e, Game)]
            out.append(RatingPeriod(tuple(games)))
        elif not system.uses_seconds:
            out.append(step)
    for step in out:
        for event in step.events if isinstance(step, RatingPeriod) else (step,):
            if isinstance(event, Game):
                system.check(event)
    return out


@pytest.mark.parametrize("name", ALL_SYSTEMS)
@FAST
@given(steps=histories(handicaps=True), cut=st.integers(1, 10))
def test_resuming_from_a_checkpoint_equals_a_full_replay(name: str, steps: list[Step],
                                                          cut: int) -> None:
    system = make_system(name)
    steps = _fits(system, steps)
    full = replay(system, steps, checkpoint_every=cut)
    for checkpoint in full.checkpoints:
        resumed = replay(system, steps[checkpoint.position:], start=checkpoint)
        assert resumed.players == full.players
        assert resumed.pool == full.pool
        assert resumed.position == len(steps)


@pytest.mark.parametrize("name", ALL_SYSTEMS)
@FAST
@given(steps=histories(handicaps=True))
def test_fast_path_equals_one_period_per_game(name: str, steps: list[Step]) -> None:
    # Systems may rate runs of single games in an inlined loop; it must give the same numbers.
    system = make_system(name)
    steps = _fits(system, steps)
    wrapped = [RatingPeriod((s,)) if isinstance(s, Game) else s for s in steps]
    assert replay(system, steps).players == replay(system, wrapped).players


@pytest.mark.parametrize("name", ALL_SYSTEMS)
@FAST
@given(steps=histories(handicaps=True))
def test_outputs_are_finite_and_deterministic(name: str, steps: list[Step]) -> None:
    system = make_system(name)
    steps = _fits(system, steps)
    first = replay(system, steps)
    assert first.players == replay(system, steps).players
    for state in first.players.values():
        assert math.isfinite(state.rating)
        for value in (state.deviation, state.volatility):
            assert value is None or (math.isfinite(value) and value > 0)


@pytest.mark.parametrize("name", SWAPPABLE)
@FAST
@given(steps=histories(membership=False, handicaps=True))
def test_swapping_sides_changes_nothing(name: str, steps: list[Step]) -> None:
    system = make_system(name)

    def mirror(g: Game) -> Game:
        return Game(g.player_b, g.player_a, 1.0 - g.score_a, g.played_at, -g.handicap, g.seconds)

    swapped = [
        mirror(s) if isinstance(s, Game)
        else RatingPeriod(tuple(mirror(e) if isinstance(e, Game) else e for e in s.events))
        if isinstance(s, RatingPeriod) else s
        for s in steps
    ]
    a, b = replay(system, steps).players, replay(system, swapped).players
    assert a.keys() == b.keys()
    for player in a:
        assert a[player].rating == pytest.approx(b[player].rating, abs=1e-9)


# Quebec's provisional rule is a plain performance mean and can lower a rating after a win
# against a much weaker opponent (pinned in tests/core/test_fqe.py); its players here are permanent.
ESTABLISHED = {n: established(1400 + 50 * i) for i, n in enumerate(f"p{i}" for i in range(7))}


@pytest.mark.parametrize(
    ("name", "listed"),
    [(n, listed) for n in SWAPPABLE for listed in (True, False) if n != "fqe" or listed],
)
@FAST
@given(steps=histories(membership=False), winner=st.sampled_from(["p0", "p1"]))
def test_a_win_never_lowers_a_rating(
    name: str, listed: bool, steps: list[Step], winner: str
) -> None:
    system = make_system(name)
    players = ESTABLISHED if listed else None
    before = replay(system, steps, players=players)
    loser = "p1" if winner == "p0" else "p0"
    after = replay(system, [*steps, Game(winner, loser, 1.0, day(10_000))], players=players)
    if winner in before.players and loser in before.players:
        assert after.players[winner].rating >= before.players[winner].rating
        assert after.players[loser].rating <= before.players[loser].rating


ZERO_SUM = {
    "elo": ClassicElo(EloParams(k_master=32.0, floor=None, ratchet=None)),
    "club": ClubElo(ClubParams(uncertainty="games", k_master=32.0, provisional_games=0,
                               pool_cap=1e9)),
    "shogi24": LinearElo(),
    "taisen": TaisenElo(),
}


@pytest.mark.parametrize("name", sorted(ZERO_SUM))
@FAST
@given(steps=histories(membership=False, handicaps=True))
def test_zero_sum_systems_keep_the_total(name: str, steps: list[Step]) -> None:
    system = ZERO_SUM[name]
    players = {n: established(1500 + 37 * i) for i, n in enumerate(f"p{i}" for i in range(7))}
    result = replay(system, steps, players=players)
    total = sum(s.rating for s in result.players.values())
    assert total == pytest.approx(sum(s.rating for s in players.values()), abs=1e-6)


@FAST
@given(steps=histories(max_steps=60))
def test_pool_invariant(steps: list[Step]) -> None:
    # SPEC 3.7: with zero-sum updates sum(rating - base) over active players equals the pool,
    # so once the pool is empty the active players' mean is the base.
    system = ZERO_SUM["club"]
    result = replay(system, steps)
    active = [s.rating for s in result.players.values() if s.status is Status.ACTIVE]
    assert sum(r - 1500.0 for r in active) == pytest.approx(result.pool, abs=1e-6)
    if result.pool == 0.0 and active:
        assert sum(active) / len(active) == pytest.approx(1500.0)


def test_pool_invariant_with_a_capped_share() -> None:
    system = ZERO_SUM["club"]
    capped = ClubElo(ClubParams(uncertainty="games", k_master=32.0, provisional_games=0,
                                pool_cap=50.0))
    players = {"a": established(1000), "b": established(1600), "c": established(1900)}
    steps: list[Step] = [Retire("a", day(0)), Join("n", day(1)), game("n", "b", 1.0, 2)]
    for s in (system, capped):
        result = replay(s, steps, players=players)
        active = [st.rating for st in result.players.values() if st.status is Status.ACTIVE]
        listed_offset = sum(p.rating - 1500 for p in players.values())
        assert sum(r - 1500 for r in active) - result.pool == pytest.approx(listed_offset)


@pytest.mark.parametrize(
    ("steps", "position", "event", "message"),
    [
        ([Retire("x", day(0))], 0, 0, "not a member"),
        ([game("a", "b", 1.0), Return("a", day(1))], 1, 0, "not retired"),
        ([game("a", "b", 1.0), Retire("a", day(1)), Retire("a", day(2))], 2, 0,
         "already retired"),
        ([game("a", "b", 1.0), Join("a", day(1))], 1, 0, "already joined"),
        ([game("a", "b", 1.0), Retire("a", day(1)), game("c", "a", 0.5)], 2, None, "retired"),
        ([game("a", "b", 1.0), RatingPeriod((Retire("a", day(1)), game("a", "b", 1.0)))], 1, 1,
         "retired"),
    ],
)
def test_membership_errors_name_the_step(
    steps: list[Step], position: int, event: int | None, message: str
) -> None:
    with pytest.raises(ReplayError, match=message) as caught:
        replay(ClubElo(), steps)
    assert caught.value.position == position
    assert caught.value.event_index == event


def test_game_refuses_bad_values() -> None:
    with pytest.raises(ValueError, match="same player"):
        Game("a", "a", 1.0, day(0))
    for score in (2.0, -1.0, math.nan, 0.25):
        with pytest.raises(ValueError, match="score_a"):
            Game("a", "b", score, day(0))
    with pytest.raises(ValueError, match="handicap"):
        Game("a", "b", 1.0, day(0), math.inf)
    with pytest.raises(ValueError, match="seconds"):
        Game("a", "b", 1.0, day(0), 0.0, 0.0)


def test_newcomers_appearing_in_one_period_share_the_pool() -> None:
    players = {"r": established(1300), "x": established(1500)}
    period = RatingPeriod((game("n1", "x", 0.5), game("n2", "x", 0.5)))
    result = replay(ClubElo(), [Retire("r", day(0)), period], players=players)
    # Pool 200 over two newcomers: both start at 1400 before the period is rated.
    assert result.players["n1"].rating == result.players["n2"].rating
    assert result.players["n1"].rating < 1500


def test_player_states_come_back_unchanged_without_events() -> None:
    players = {"a": PlayerState(rating=1234.5, games=3, peak=1300, deviation=120.0)}
    assert replay(ClubElo(), [], players=players).players["a"] == players["a"]
    players = {"a": PlayerState(rating=1234.5, games=3, peak=1300)}
    by_games = ClubElo(ClubParams(uncertainty="games"))
    assert replay(by_games, [], players=players).players["a"] == players["a"]


@pytest.mark.parametrize("system", [ClassicElo(), ClubElo(ClubParams(uncertainty="games"))])
def test_last_played_left_to_the_engine_is_right_at_every_checkpoint(system: RatingSystem
                                                                      ) -> None:
    """These rules leave last_played to the engine (GameRun.defer_last_played), which records
    it before each checkpoint, before a rating period (which records its own) and at the end:
    every state shows the player's last game, as when each game is a period of its own."""
    steps: list[Step] = [
        game("ann", "bob", 1, 1), game("cid", "dan", 0, 2),
        game("ann", "cid", 1, 3),
        RatingPeriod((game("bob", "dan", 1, 5), game("ann", "dan", 0, 4))),
        game("cid", "bob", 0.5, 6), Retire("ann", day(7)), game("dan", "cid", 1, 8),
    ]
    deferred = replay(system, steps, checkpoint_every=2)
    one_by_one = replay(system, [RatingPeriod((s,)) if isinstance(s, Game) else s
                                 for s in steps], checkpoint_every=2)
    for ours, theirs in zip((*deferred.checkpoints, deferred.final),
                            (*one_by_one.checkpoints, one_by_one.final), strict=True):
        assert ours.position == theirs.position
        assert {n: s.last_played for n, s in ours.players.items()} == {
            n: s.last_played for n, s in theirs.players.items()}
    assert {n: s.last_played for n, s in deferred.players.items()} == {
        "ann": day(5), "bob": day(6), "cid": day(8), "dan": day(8)}


def test_starting_ratings_are_the_ratings_a_step_admits_its_newcomers_with() -> None:
    """``Engine.starting_ratings`` (a season's table starts newcomers there, issue 38) gives,
    before a step, the ratings the step then admits its newcomers with: together, sharing the
    starting pool that retirements left (SPEC 3.7), a known rating kept."""
    system = ClubElo()
    engine = Engine(system, {})
    history: list[Step] = [game("a", "b", 1.0, 0), game("a", "b", 1.0, 1),
                           game("c", "b", 1.0, 2), Retire("b", day(3))]
    position = engine.feed(history, 0, None, [])
    assert engine.pool != 0.0  # b's deficit is in the pool
    period = RatingPeriod((Join("d", day(4)), Join("e", day(4), rating=1700.0),
                           game("f", "a", 0.0, 4)))
    expected = engine.starting_ratings(period)
    pool = engine.pool
    engine.feed([RatingPeriod(period.events[:2] + (Join("f", day(4)),))], position, None, [])
    admitted = {name: engine.table.rating[engine.table.index[name]] for name in "def"}
    assert expected == admitted and set(expected) == {"d", "e", "f"}
    assert expected["d"] != system.newcomer(day(4), None, 0.0).rating and engine.pool != pool
    assert engine.starting_ratings(game("a", "c", 0.5, 5)) == {}
