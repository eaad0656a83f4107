"""Glicko-1 and Glicko-2: Glickman's published examples exactly, then properties and replays."""

from __future__ import annotations

import dataclasses
import math
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings_core.glickman import attenuation, elapsed_periods, expected_score, grow_deviation
from ratings_core.glicko import Glicko, GlickoParams, glicko_update
from ratings_core.glicko2 import SCALE, Glicko2, Glicko2Params, glicko2_update, new_volatility
from ratings_core.model import Game, PlayerState, RatingPeriod
from ratings_core.parameters import with_overrides
from ratings_core.replay import replay
from ratings_core.table import Table
from tests.helpers import day, game

# Glickman's example: a 1500 player with RD 200 beats 1400/30, loses to 1550/100 and 1700/300.
EXAMPLE = [(1400.0, 30.0, 1.0), (1550.0, 100.0, 0.0), (1700.0, 300.0, 0.0)]
SHIFT = 300.0
SHIFTED = [(r + SHIFT, d, s) for r, d, s in EXAMPLE]


def update2(rating: float, results: list[tuple[float, float, float]]) -> tuple[float, ...]:
    return glicko2_update(rating, 200.0, 0.06, results, tau=0.5, max_deviation=350.0)


# -- published examples ------------------------------------------------------------------------


def test_glicko_table_of_g_and_expected_scores() -> None:
    # "The Glicko system", step 2 example: g(RD_j) and E for the three opponents.
    published = [(0.9955, 0.639), (0.9531, 0.432), (0.7242, 0.303)]
    for (r, d, _), (g, e) in zip(EXAMPLE, published, strict=True):
        assert round(attenuation(d), 4) == g
        assert round(expected_score(1500, r, d), 3) == e


@pytest.mark.parametrize("shift", [0.0, SHIFT])
def test_glicko_published_example(shift: float) -> None:
    # "The Glicko system": r' = 1464, RD' = 151.4 (and 1764 when every rating is 300 higher).
    results = [(r + shift, d, s) for r, d, s in EXAMPLE]
    rating, deviation = glicko_update(1500 + shift, 200, results)
    assert round(rating) == 1464 + shift
    assert round(deviation, 1) == 151.4


def test_glicko2_volatility_step_from_published_inputs() -> None:
    # Glicko-2 example, step 5: phi 1.1513, v 1.7785, Delta -0.4834, tau 0.5 -> sigma' 0.05999.
    sigma = new_volatility(1.1513, 0.06, 1.7785, -0.4834, tau=0.5)
    assert 0.05999 <= sigma < 0.06  # the paper truncates to 0.05999


@pytest.mark.parametrize(("rating", "results", "published"), [
    (1500.0, EXAMPLE, 1464.06),
    (1500.0 + SHIFT, SHIFTED, 1764.06),
])
def test_glicko2_published_example(
    rating: float, results: list[tuple[float, float, float]], published: float
) -> None:
    # Glicko-2 example: mu' = -0.2069, phi' = 0.8722, r' = 1464.06, RD' = 151.52,
    # sigma' = 0.05999. The paper rounds mu' - mu to 4 places before converting back, so
    # r' = r + 173.7178 * (-0.2069): 1464.06 (and 1764.06 when every rating is 300 higher; a
    # popular package that forgets to subtract 1500 from opponents gets this case wrong).
    new_rating, deviation, volatility = update2(rating, results)
    change = round((new_rating - rating) / SCALE, 4)
    assert change == -0.2069
    assert round(rating + SCALE * change, 2) == published
    assert abs(new_rating - published) < 0.01
    assert round(deviation / SCALE, 4) == 0.8722
    assert round(deviation, 2) == 151.52
    assert 0.05999 <= volatility < 0.06


def test_glicko2_shift_changes_nothing_but_the_rating() -> None:
    base = update2(1500, EXAMPLE)
    shifted = update2(1500 + SHIFT, SHIFTED)
    assert shifted[0] - SHIFT == pytest.approx(base[0], abs=1e-9)
    assert shifted[1:] == pytest.approx(base[1:], abs=1e-12)


def example_players(last_played: datetime) -> dict[str, PlayerState]:
    def state(rating: float, deviation: float) -> PlayerState:
        return PlayerState(rating=rating, games=20, deviation=deviation, volatility=0.06,
                           peak=rating, last_played=last_played)

    return {"me": state(1500, 200), "x": state(1400, 30), "y": state(1550, 100),
            "z": state(1700, 300)}


def example_period(when: datetime) -> RatingPeriod:
    return RatingPeriod((Game("me", "x", 1.0, when), Game("me", "y", 0.0, when),
                         Game("z", "me", 1.0, when)))


def test_glicko_published_example_through_replay() -> None:
    # RD 200 is the paper's pre-period RD: last game at the same moment, so no growth (t = 0).
    when = day(100)
    result = replay(Glicko(), [example_period(when)], players=example_players(when))
    me = result.players["me"]
    assert round(me.rating) == 1464
    assert me.deviation is not None and round(me.deviation, 1) == 151.4
    assert me.games == 23 and me.last_played == when and me.peak == 1500
    assert result.players["x"].rating < 1400 < result.players["y"].rating


def test_glicko2_published_example_through_replay() -> None:
    # Glicko-2's step 6 widens by one period's volatility: last game one period (30 days) ago.
    when = day(100)
    players = example_players(when - timedelta(days=30))
    result = replay(Glicko2(), [example_period(when)], players=players)
    me = result.players["me"]
    assert round(1500 + SCALE * round((me.rating - 1500) / SCALE, 4), 2) == 1464.06
    assert me.deviation is not None and round(me.deviation, 2) == 151.52
    assert me.volatility is not None and 0.05999 <= me.volatility < 0.06


# -- rules and parameters --------------------------------------------------------------------


def test_glickman_c_for_30_periods_from_50_back_to_350() -> None:
    c = GlickoParams().c
    assert grow_deviation(50, c, 30, 350) == pytest.approx(350, abs=0.5)
    assert grow_deviation(50, c, 29, 350) < 350
    assert grow_deviation(300, c, 100, 350) == 350


def test_elapsed_periods() -> None:
    assert elapsed_periods(day(60), None, 30) == 1.0
    assert elapsed_periods(day(60), day(0), 30) == 2.0
    assert elapsed_periods(day(45), day(0), 30) == 1.5
    assert elapsed_periods(day(0), day(5), 30) == 0.0
    with pytest.raises(ValueError, match="period_days"):
        elapsed_periods(day(0), None, 0)


def test_defaults_are_pinned() -> None:
    assert dataclasses.asdict(GlickoParams()) == {
        "initial": 1500.0, "initial_deviation": 350.0, "max_deviation": 350.0,
        "min_deviation": 30.0, "c": 63.2, "period_days": 30.0, "provisional_deviation": 110.0,
        "first_move_advantage": 0.0,
    }
    assert dataclasses.asdict(Glicko2Params()) == {
        "initial": 1500.0, "initial_deviation": 350.0, "initial_volatility": 0.06, "tau": 0.5,
        "max_deviation": 350.0, "min_deviation": 30.0, "max_volatility": 0.1,
        "period_days": 30.0, "provisional_deviation": 110.0, "first_move_advantage": 0.0,
    }
    assert Glicko.name == "glicko" and Glicko2.name == "glicko2"


def test_bad_parameters_and_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="'c'"):
        with_overrides(GlickoParams(), {"c": "-1"})
    with pytest.raises(ValueError, match="'initial_deviation'"):
        GlickoParams(initial_deviation=400)
    with pytest.raises(ValueError, match="'tau'"):
        Glicko2Params(tau=0)
    with pytest.raises(ValueError, match="'initial_volatility'"):
        Glicko2Params(initial_volatility=0.2)
    with pytest.raises(ValueError, match="deviation"):
        glicko_update(1500, 0, EXAMPLE)
    with pytest.raises(ValueError, match="score"):
        glicko_update(1500, 200, [(1400, 30, 2.0)])
    with pytest.raises(ValueError, match="volatility"):
        glicko2_update(1500, 200, -0.1, EXAMPLE, tau=0.5, max_deviation=350)
    with pytest.raises(ValueError, match="rating"):
        glicko2_update(math.nan, 200, 0.06, EXAMPLE, tau=0.5, max_deviation=350)


@pytest.mark.parametrize("system", [Glicko(), Glicko2()])
def test_newcomer_adopt_and_provisional(system: Glicko | Glicko2) -> None:
    fresh = system.newcomer(day(0), None, 0.0)
    assert (fresh.rating, fresh.deviation, fresh.peak) == (1500, 350, 1500)
    assert fresh.volatility == (0.06 if isinstance(system, Glicko2) else None)
    assert system.is_provisional(fresh)
    adopted = system.adopt(PlayerState(rating=1800, games=40))
    assert adopted.deviation == 350 and adopted.rating == 1800
    if isinstance(system, Glicko2):
        assert adopted.volatility == 0.06
    assert system.adopt(PlayerState(rating=1800, deviation=80, volatility=0.05)).deviation == 80
    assert not system.is_provisional(PlayerState(rating=1800, deviation=110))
    assert system.is_provisional(PlayerState(rating=1800, deviation=110.5))


def test_no_games_change_nothing_and_absentees_are_untouched() -> None:
    assert glicko_update(1500, 200, []) == (1500, 200)
    players = {"a": PlayerState(1600, 5, 90.0, 0.06, 1600, last_played=day(0)),
               "b": PlayerState(1500, 5, 90.0, 0.06, 1500, last_played=day(0)),
               "c": PlayerState(1400, 5, 90.0, 0.06, 1400, last_played=day(0))}
    for system in (Glicko(), Glicko2()):
        result = replay(system, [game("a", "b", 1.0, 40)], players=players)
        assert result.players["c"] == players["c"]


# -- properties ------------------------------------------------------------------------------

ratings = st.floats(-1000, 5000)
deviations = st.floats(30, 350)
volatilities = st.floats(0.01, 0.1)
scores = st.sampled_from([0.0, 0.5, 1.0])
results = st.lists(st.tuples(ratings, deviations, scores), min_size=1, max_size=5)
shifts = st.floats(-2000, 2000)


@settings(max_examples=150, deadline=None)
@given(rating=ratings, deviation=deviations, own=results, shift=shifts)
def test_glicko_translation_invariance(
    rating: float, deviation: float, own: list[tuple[float, float, float]], shift: float
) -> None:
    base = glicko_update(rating, deviation, own)
    moved = glicko_update(rating + shift, deviation, [(r + shift, d, s) for r, d, s in own])
    assert moved[0] - shift == pytest.approx(base[0], abs=1e-6)
    assert moved[1] == pytest.approx(base[1], abs=1e-6)


@settings(max_examples=150, deadline=None)
@given(rating=ratings, deviation=deviations, volatility=volatilities, own=results,
       shift=shifts, elapsed=st.floats(0, 20))
def test_glicko2_translation_invariance(
    rating: float, deviation: float, volatility: float, own: list[tuple[float, float, float]],
    shift: float, elapsed: float,
) -> None:
    base = glicko2_update(rating, deviation, volatility, own, tau=0.5, max_deviation=350.0,
                          elapsed=elapsed)
    moved = glicko2_update(rating + shift, deviation, volatility,
                           [(r + shift, d, s) for r, d, s in own], tau=0.5, max_deviation=350.0,
                           elapsed=elapsed)
    assert moved[0] - shift == pytest.approx(base[0], abs=1e-6)
    assert moved[1:] == pytest.approx(base[1:], abs=1e-6)


@settings(max_examples=150, deadline=None)
@given(rating=ratings, deviation=deviations, volatility=volatilities,
       opponent=ratings, opponent_deviation=deviations)
def test_a_win_never_lowers_and_a_loss_never_raises(
    rating: float, deviation: float, volatility: float, opponent: float,
    opponent_deviation: float,
) -> None:
    for score, sign in ((1.0, 1), (0.0, -1)):
        one = [(opponent, opponent_deviation, score)]
        assert sign * (glicko_update(rating, deviation, one)[0] - rating) >= 0
        new = glicko2_update(rating, deviation, volatility, one, tau=0.5, max_deviation=350)
        assert sign * (new[0] - rating) >= 0


def table_of(states: dict[str, PlayerState]) -> Table:
    table = Table()
    for name, state in states.items():
        table.add(name, state)
    return table


SYSTEMS = [Glicko(), Glicko2()]
NAMES = ["a", "b", "c", "d"]


@st.composite
def periods(draw: st.DrawFn, wide: bool = False) -> tuple[dict[str, PlayerState], list[Game]]:
    """A few players with arbitrary stored states and one period of games among them."""
    rating = st.floats(-30000, 30000) if wide else ratings
    states = {
        name: PlayerState(
            rating=draw(rating), games=draw(st.integers(0, 50)),
            deviation=draw(st.none() | st.floats(1, 1000)),
            volatility=draw(st.none() | st.floats(0.001, 0.5)),
            last_played=draw(st.none() | st.integers(-3000, 0).map(day)),
        )
        for name in NAMES
    }
    games = []
    for _ in range(draw(st.integers(1, 6))):
        a, b = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True))
        handicap = draw(st.sampled_from([0.0, 0.0, 50.0, -150.0]))
        games.append(Game(a, b, draw(scores), day(0), handicap))
    return states, games


@pytest.mark.parametrize("system", SYSTEMS)
@settings(max_examples=100, deadline=None)
@given(case=periods(wide=True))
def test_outputs_finite_and_within_bounds(
    system: Glicko | Glicko2, case: tuple[dict[str, PlayerState], list[Game]]
) -> None:
    states, games = case
    table = table_of({n: system.adopt(s) for n, s in states.items()})
    system.rate_period(table, games, day(0))
    p = system.params
    played = {table.index[n] for g in games for n in (g.player_a, g.player_b)}
    for i in range(len(table)):
        assert math.isfinite(table.rating[i])
        deviation = table.deviation[i]
        assert deviation is not None and math.isfinite(deviation)
        if i in played:  # freshly rated: within bounds (absentees keep their stored values)
            assert p.min_deviation <= deviation <= p.max_deviation
            if isinstance(system, Glicko2):
                volatility = table.volatility[i]
                assert volatility is not None and 0 < volatility <= system.params.max_volatility


@pytest.mark.parametrize("system", SYSTEMS)
@settings(max_examples=100, deadline=None)
@given(case=periods())
def test_swap_symmetry(
    system: Glicko | Glicko2, case: tuple[dict[str, PlayerState], list[Game]]
) -> None:
    # Writing a game from the other side (B loses to A instead of A beats B, the handicap's
    # sign flipped with it) gives the same ratings.
    states, games = case
    mirrored = [Game(g.player_b, g.player_a, 1.0 - g.score_a, g.played_at, -g.handicap)
                for g in games]
    one = table_of({n: system.adopt(s) for n, s in states.items()})
    two = table_of({n: system.adopt(s) for n, s in states.items()})
    system.rate_period(one, games, day(0))
    system.rate_period(two, mirrored, day(0))
    assert one.states() == two.states()


@pytest.mark.parametrize("system", SYSTEMS)
@settings(max_examples=100, deadline=None)
@given(a=ratings, b=ratings, da=deviations, db=deviations)
def test_a_single_game_moves_winner_up_and_loser_down(
    system: Glicko | Glicko2, a: float, b: float, da: float, db: float
) -> None:
    players = {"A": PlayerState(a, 5, da, 0.06, a, last_played=day(0)),
               "B": PlayerState(b, 5, db, 0.06, b, last_played=day(0))}
    result = replay(system, [game("A", "B", 1.0, 10)], players=players)
    assert result.players["A"].rating >= a
    assert result.players["B"].rating <= b


# -- replays ---------------------------------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
def test_deviation_grows_with_inactivity(system: Glicko | Glicko2) -> None:
    # Two replays alike except that A's last game comes one period, or ten more, later.
    opening = [RatingPeriod((game("A", "B", 1.0, 0), game("A", "C", 0.5, 0),
                             game("B", "C", 0.0, 0))),
               RatingPeriod((game("A", "B", 0.5, 30), game("A", "C", 1.0, 30)))]
    soon = replay(system, [*opening, game("A", "B", 1.0, 60)])
    late = replay(system, [*opening, game("A", "B", 1.0, 360)])
    before = replay(system, opening).players["A"]
    assert system.current_deviation(before, day(360)) > system.current_deviation(before, day(60))
    soon_a, late_a = soon.players["A"], late.players["A"]
    assert soon_a.deviation is not None and late_a.deviation is not None
    assert late_a.deviation > soon_a.deviation
    # A less certain rating moves further on the same result.
    assert late_a.rating - before.rating > soon_a.rating - before.rating > 0


def test_newcomers_become_established_with_weekly_play() -> None:
    # Four newcomers meet weekly for twelve weeks, three games each per club night.
    steps = [RatingPeriod(tuple(game(a, b, s, 7 * k) for a, b, s in
                                [("A", "B", 1.0), ("C", "D", 0.5), ("A", "C", 0.0),
                                 ("B", "D", 1.0), ("A", "D", 1.0), ("B", "C", 0.5)]))
             for k in range(12)]
    for system in SYSTEMS:
        result = replay(system, steps, checkpoint_every=4)
        players = result.players
        assert {n: s.games for n, s in players.items()} == {"A": 36, "B": 36, "C": 36, "D": 36}
        assert all(s.last_played == day(77) for s in players.values())
        assert all(s.deviation is not None and s.deviation < 110 for s in players.values())
        assert not any(system.is_provisional(s) for s in players.values())
        # Each night A and C score 2 of 3, B 1.5, D 0.5.
        assert players["A"].rating > players["B"].rating > players["D"].rating
        assert players["C"].rating > players["B"].rating
        assert all(s.peak is not None and s.peak >= s.rating for s in players.values())
        # Continuing from a checkpoint gives the same result as the full replay.
        middle = result.checkpoints[1]
        resumed = replay(system, steps[middle.position:], start=middle)
        assert resumed.players == players


@pytest.mark.parametrize("system", SYSTEMS)
def test_handicap_narrows_the_givers_difference(system: Glicko | Glicko2) -> None:
    players = {n: PlayerState(1500, 10, 100.0, 0.06, 1500, last_played=day(0)) for n in "AB"}
    plain = replay(system, [game("A", "B", 1.0, 30)], players=players).players["A"]
    given_ = replay(system, [game("A", "B", 1.0, 30, handicap=100)], players=players).players["A"]
    # Winning while giving 100 points counts as beating a 1600 player: a larger gain.
    assert given_.rating > plain.rating > 1500


def volatility_equation(phi: float, sigma: float, v: float, delta: float, tau: float, x: float
                        ) -> float:
    """Glickman's f(x) of step 5, written out independently of the implementation."""
    ex = math.exp(x)
    return (ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2)
            - (x - math.log(sigma**2)) / tau**2)


@settings(max_examples=200, deadline=None)
@given(phi=st.floats(0.17, 2.0), sigma=st.floats(0.01, 0.1), v=st.floats(0.1, 100),
       surplus=st.floats(-3, 3), tau=st.floats(0.3, 1.2))
def test_new_volatility_solves_glickmans_equation(
    phi: float, sigma: float, v: float, surplus: float, tau: float
) -> None:
    # ln sigma'^2 is the root of f: f changes sign across it.
    delta = v * surplus
    x = 2 * math.log(new_volatility(phi, sigma, v, delta, tau=tau))
    assert volatility_equation(phi, sigma, v, delta, tau, x - 1e-4) > 0
    assert volatility_equation(phi, sigma, v, delta, tau, x + 1e-4) < 0


def test_an_upset_raises_volatility_and_form_lowers_it() -> None:
    # A settled 1500 who loses three times to 1100s performs far from the prediction.
    upset = glicko2_update(1500, 50, 0.06, [(1100, 50, 0.0)] * 3, tau=0.5, max_deviation=350)
    steady = glicko2_update(1500, 50, 0.06, [(1100, 50, 1.0)] * 3, tau=0.5, max_deviation=350)
    assert upset[2] > 0.06 > steady[2]


@pytest.mark.parametrize("system", SYSTEMS)
def test_period_rates_everyone_from_pre_period_values(system: Glicko | Glicko2) -> None:
    # B plays both A and C in one period: C is rated against B's pre-period values.
    players = {n: PlayerState(r, 10, d, 0.06, r, last_played=day(0))
               for n, r, d in (("A", 1600, 80.0), ("B", 1500, 120.0), ("C", 1450, 200.0))}
    period = RatingPeriod((game("A", "B", 0.0, 30), game("B", "C", 0.5, 30, handicap=40)))
    after = replay(system, [period], players=players).players
    if isinstance(system, Glicko):
        pre = {n: system.current_deviation(s, day(30)) for n, s in players.items()}
        expected_c = glicko_update(1450, pre["C"], [(1500 - 40, pre["B"], 0.5)])
        expected_b = glicko_update(1500, pre["B"],
                                   [(1600, pre["A"], 1.0), (1450 + 40, pre["C"], 0.5)])
    else:
        expected_c = glicko2_update(1450, 200, 0.06, [(1500 - 40, 120, 0.5)], tau=0.5,
                                    max_deviation=350)[:2]
        expected_b = glicko2_update(1500, 120, 0.06, [(1600, 80, 1.0), (1450 + 40, 200, 0.5)],
                                    tau=0.5, max_deviation=350)[:2]
    assert (after["C"].rating, after["C"].deviation) == pytest.approx(expected_c)
    assert (after["B"].rating, after["B"].deviation) == pytest.approx(expected_b)
