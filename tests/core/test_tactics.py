"""Rated tactics problems (seed 004, SPEC 3.10): hand-computed examples of the seed's rule."""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings_core.model import Game, PlayerState, RatingPeriod
from ratings_core.replay import replay
from ratings_core.tactics import (
    Attempt,
    Tactics,
    TacticsParams,
    problem_rating,
    time_adjustment,
    user_rating,
)

T0 = datetime(2024, 3, 1, 20, 0)


def adjust(seconds: float) -> float:
    return time_adjustment(seconds, target_seconds=30, doubling_points=125, cap=400)


# -- the time adjustment -------------------------------------------------------------------------


def test_time_adjustment_125_points_per_doubling() -> None:
    assert adjust(30) == 0
    assert adjust(15) == -125
    assert adjust(60) == 125
    assert adjust(7.5) == -250
    assert adjust(240) == 375


def test_time_adjustment_is_capped_at_400() -> None:
    assert adjust(480) == 400  # 4 doublings would be 500
    assert adjust(1.875) == -400  # 4 halvings would be -500
    assert adjust(1e9) == 400
    assert adjust(1e-9) == -400


def test_time_adjustment_rejects_bad_times() -> None:
    for bad in (0.0, -3.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="seconds"):
            adjust(bad)


# -- the user's side -------------------------------------------------------------------------------


def test_fast_success() -> None:
    # 15 s: adjustment -125, adjusted problem 1625, + 400 = 2025 >= 1500: kept.
    assert user_rating(1500, [Attempt(1500, True, 15)]) == 2025


def test_slow_success() -> None:
    # 60 s: adjustment +125, adjusted problem 1375, + 400 = 1775.
    assert user_rating(1500, [Attempt(1500, True, 60)]) == 1775


def test_failure_on_time() -> None:
    # 30 s: no adjustment, 1500 - 400 = 1100 <= 1500: kept.
    assert user_rating(1500, [Attempt(1500, False, 30)]) == 1100


def test_very_slow_success_below_the_user_is_dropped() -> None:
    # 480 s: adjustment capped at +400: 1200 - 400 + 400 = 1200 < 1500: dropped, unchanged.
    assert user_rating(1500, [Attempt(1200, True, 480)]) == 1500


def test_very_fast_failure_above_the_user_is_dropped() -> None:
    # 1 s: adjustment capped at -400: 1600 + 400 - 400 = 1600 > 1500: dropped, unchanged.
    assert user_rating(1500, [Attempt(1600, False, 1)]) == 1500


def test_estimate_equal_to_the_rating_is_kept() -> None:
    # A very fast failure on an equal problem: 1500 + 400 - 400 = 1500, equal to the user's
    # rating. Kept (the seed drops only results "more than" the rating), so alone it leaves
    # 1500, and beside a success on time (1900) it halves the gain: (1500 + 1900) / 2 = 1700.
    assert user_rating(1500, [Attempt(1500, False, 1)]) == 1500
    assert user_rating(1500, [Attempt(1500, False, 1), Attempt(1500, True, 30)]) == 1700


def test_mean_over_several_problems() -> None:
    attempts = [
        Attempt(1700, True, 30),  # 1700 + 400 = 2100, kept
        Attempt(1300, False, 15),  # 1300 + 125 - 400 = 1025, kept
        Attempt(1000, True, 120),  # 1000 - 250 + 400 = 1150 < 1500, dropped
    ]
    assert user_rating(1500, attempts) == 1562.5


def test_nothing_attempted_leaves_the_rating() -> None:
    assert user_rating(1432.5, []) == 1432.5
    assert problem_rating(1432.5, []) == 1432.5


# -- the problem's side ----------------------------------------------------------------------------


def test_problem_mirrors_the_user() -> None:
    # 1500 user solves a 1500 problem in 15 s: user counted 1500 - 125 = 1375, - 400 = 975.
    assert problem_rating(1500, [Attempt(1500, True, 15)]) == 975
    # ... in 60 s: 1500 + 125 - 400 = 1225.
    assert problem_rating(1500, [Attempt(1500, True, 60)]) == 1225
    # A failure on time: 1500 + 400 = 1900 >= 1500: kept.
    assert problem_rating(1500, [Attempt(1500, False, 30)]) == 1900
    # A very fast failure: 1500 - 400 + 400 = 1500, equal: kept.
    assert problem_rating(1500, [Attempt(1500, False, 1)]) == 1500


def test_problem_mean_with_a_dropped_attempt() -> None:
    attempts = [
        Attempt(1600, True, 30),  # 1600 - 400 = 1200 <= 1500, kept
        Attempt(1400, False, 60),  # 1400 + 125 + 400 = 1925 >= 1500, kept
        Attempt(1800, True, 480),  # 1800 + 400 - 400 = 1800 > 1500, dropped
        Attempt(1000, False, 30),  # 1000 + 400 = 1400 < 1500, dropped
    ]
    assert problem_rating(1500, attempts) == 1562.5


# -- the system through replay ---------------------------------------------------------------------


def test_replay_rates_users_and_problems_from_pre_period_ratings() -> None:
    players = {
        "ann": PlayerState(rating=1500),
        "A": PlayerState(rating=1700),
        "B": PlayerState(rating=1300),
        "C": PlayerState(rating=1000),
    }
    period = RatingPeriod(
        (
            Game("ann", "A", 1.0, T0, seconds=30),
            Game("ann", "B", 0.0, T0 + timedelta(minutes=1), seconds=15),
            Game("ann", "C", 1.0, T0 + timedelta(minutes=2), seconds=120),
        )
    )
    result = replay(Tactics(), [period], players=players)
    ann = result.players["ann"]
    assert (ann.rating, ann.games, ann.peak) == (1562.5, 3, 1562.5)
    assert ann.last_played == T0 + timedelta(minutes=2)
    # A: ann counted 1500 - 400 = 1100 <= 1700: kept.
    assert result.players["A"].rating == 1100
    # B: ann counted 1500 - 125 + 400 = 1775 >= 1300: kept.
    assert result.players["B"].rating == 1775
    # C: ann counted 1500 + 250 - 400 = 1350 > 1000: dropped, but the attempt counts.
    assert (result.players["C"].rating, result.players["C"].games) == (1000, 1)


def test_replay_newcomers_start_at_1500_and_periods_follow_each_other() -> None:
    first = RatingPeriod((Game("bob", "P1", 1.0, T0, seconds=15),))
    second = RatingPeriod((Game("bob", "P1", 0.0, T0 + timedelta(days=1), seconds=30),))
    result = replay(Tactics(), [first, second])
    # After the first period: bob 2025, P1 975. Then bob fails P1 on time:
    # bob: 975 - 400 = 575 <= 2025, kept. P1: 2025 + 400 = 2425 >= 975, kept.
    assert result.players["bob"].rating == 575
    assert result.players["P1"].rating == 2425
    assert result.players["bob"].peak == 2025


def test_games_without_a_time_are_refused() -> None:
    with pytest.raises(ValueError, match="seconds"):
        replay(Tactics(), [RatingPeriod((Game("u", "p", 1.0, T0),))])


def test_handicap_is_refused() -> None:
    assert Tactics.uses_handicap is False
    game = Game("u", "p", 1.0, T0, handicap=50.0, seconds=20)
    with pytest.raises(ValueError, match="handicap"):
        replay(Tactics(), [RatingPeriod((game,))])


def test_draw_is_refused() -> None:
    with pytest.raises(ValueError, match="score_a"):
        replay(Tactics(), [RatingPeriod((Game("u", "p", 0.5, T0, seconds=20),))])


def test_one_name_cannot_be_user_and_problem_in_one_period() -> None:
    games = (Game("u", "p", 1.0, T0, seconds=20), Game("p", "q", 1.0, T0, seconds=20))
    with pytest.raises(ValueError, match="games"):
        replay(Tactics(), [RatingPeriod(games)])


def test_never_provisional() -> None:
    assert not Tactics().is_provisional(PlayerState(rating=1500, games=0))


# -- parameters ------------------------------------------------------------------------------------


def test_default_parameters() -> None:
    p = TacticsParams()
    assert dataclasses.asdict(p) == {
        "initial": 1500.0,
        "target_seconds": 30.0,
        "doubling_points": 125.0,
        "time_cap": 400.0,
        "result_points": 400.0,
    }
    for field in dataclasses.fields(p):
        assert field.metadata["doc"]


@pytest.mark.parametrize(
    "name", ["target_seconds", "doubling_points", "time_cap", "result_points"]
)
def test_bad_parameter_is_named(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        TacticsParams(**{name: -1.0})


def test_parameters_are_used() -> None:
    p = TacticsParams(target_seconds=60, doubling_points=100, time_cap=150, result_points=200)
    # 15 s is two halvings of 60 s: -200, capped at -150: 1500 + 150 + 200 = 1850.
    assert user_rating(1500, [Attempt(1500, True, 15)], p) == 1850
    state = Tactics(TacticsParams(initial=1200)).newcomer(T0, None, 0.0)
    assert state.rating == 1200


# -- properties ------------------------------------------------------------------------------------

rating = st.floats(-3000, 6000, allow_nan=False)
seconds = st.floats(0.01, 1e6, allow_nan=False)
attempts = st.lists(st.builds(Attempt, rating, st.booleans(), seconds), max_size=8)


@settings(max_examples=200, deadline=None)
@given(rating, attempts)
def test_outputs_are_finite(r: float, tries: list[Attempt]) -> None:
    assert math.isfinite(user_rating(r, tries))
    assert math.isfinite(problem_rating(r, tries))


@settings(max_examples=200, deadline=None)
@given(rating, st.lists(st.tuples(rating, seconds), min_size=1, max_size=8))
def test_successes_never_lower_a_user_nor_raise_a_problem(
    r: float, tries: list[tuple[float, float]]
) -> None:
    solved = [Attempt(other, True, t) for other, t in tries]
    assert user_rating(r, solved) >= r
    assert problem_rating(r, solved) <= r


@settings(max_examples=200, deadline=None)
@given(rating, st.lists(st.tuples(rating, seconds), min_size=1, max_size=8))
def test_failures_never_raise_a_user_nor_lower_a_problem(
    r: float, tries: list[tuple[float, float]]
) -> None:
    failed = [Attempt(other, False, t) for other, t in tries]
    assert user_rating(r, failed) <= r
    assert problem_rating(r, failed) >= r


@settings(max_examples=200, deadline=None)
@given(rating, rating, seconds)
def test_a_faster_solve_is_worth_at_least_as_much(r: float, problem: float, t: float) -> None:
    assert user_rating(r, [Attempt(problem, True, t / 2)]) >= user_rating(
        r, [Attempt(problem, True, t)]
    )


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.booleans(), seconds),
        min_size=1,
        max_size=12,
    )
)
def test_replay_is_finite(tries: list[tuple[int, int, bool, float]]) -> None:
    periods = [
        RatingPeriod((Game(f"user{u}", f"problem{q}", 1.0 if ok else 0.0, T0, seconds=t),))
        for u, q, ok, t in tries
    ]
    result = replay(Tactics(), periods)
    for state in result.players.values():
        assert math.isfinite(state.rating)
    assert sum(s.games for s in result.players.values()) == 2 * len(tries)
