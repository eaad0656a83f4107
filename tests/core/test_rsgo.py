"""``rs-go``, the Russian go rating system (seed 001): rules, the six steps and replays."""

import dataclasses
import math
from collections.abc import Mapping
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings_core.model import Game, Join, PlayerState, RatingPeriod, Step
from ratings_core.replay import replay
from ratings_core.rsgo import (
    Encounter,
    GlickoTerm,
    RussianGo,
    RussianGoParams,
    anomaly_coefficient,
    anomaly_widening,
    base_update,
    curve_width,
    distance,
    expected_score,
    expert_deviation,
    game_distance,
    glicko_update,
    handicap_points,
    interpolate_anomaly,
    max_deviation,
    newcomer_deviation,
    newcomer_rating,
    performance_rating,
    period_surprise,
    shrink_toward,
    widen_for_absence,
    win_probability,
)
from tests.helpers import DAY0, day, game
from tests.strategies import histories

SCALE = 9.0
BOUNDS = dict(rating_min=0.0, rating_max=2950.0)


def rated(rating: float, deviation: float, games: int = 50) -> PlayerState:
    return PlayerState(rating=rating, games=games, deviation=deviation, peak=rating)


def meet(
    opponent: float, score: float, handicap: float = 0.0, deviation: float = 100.0
) -> Encounter:
    return Encounter(opponent, deviation, handicap, score)


# -- parameters ---------------------------------------------------------------------------------


def test_defaults_are_pinned() -> None:
    p = RussianGoParams()
    assert (p.initial, p.scale_ratio, p.absence_growth, p.period_days) == (1000, 9, 40, 30)
    assert (p.z_low, p.z_high, p.anomaly_penalty, p.small_sample) == (2, 4, 3, 6)
    assert p.anomaly_min_games == 6
    assert (p.expert_trust, p.performance_margin) == (1, 500)
    assert (p.rating_min, p.rating_max, p.min_deviation) == (0, 2950, 1)
    assert RussianGo.name == "rs-go"


@pytest.mark.parametrize(
    ("changes", "name"),
    [
        ({"scale_ratio": 0.0}, "scale_ratio"),
        ({"z_low": 4.0, "z_high": 4.0}, "z_high"),
        ({"expert_trust": 0.0}, "expert_trust"),
        ({"expert_trust": 1.5}, "expert_trust"),
        ({"rating_max": 3000.0}, "rating_max"),
        ({"small_sample": 0}, "small_sample"),
        ({"initial": 2990.0}, "initial"),
        ({"period_days": 0.0}, "period_days"),
        ({"min_deviation": 0.0}, "min_deviation"),
    ],
)
def test_bad_parameters_are_refused_by_name(changes: dict[str, float], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        RussianGoParams(**changes)  # type: ignore[arg-type]


# -- the scale, the curve, handicaps --------------------------------------------------------------


def test_distance_maximum_deviation_and_game_distance() -> None:
    # Seed 001: d = 3000 - R, S* = d/4, D = sqrt((3000 - R1)(3000 - R2)).
    assert distance(1800) == 1200
    assert max_deviation(1800) == 300
    assert game_distance(2100, 2100) == 900
    assert game_distance(2200, 2000) == math.sqrt(800 * 1000)
    with pytest.raises(ValueError, match="rating"):
        max_deviation(3000)


def test_expert_start_of_seed_001() -> None:
    # Seed 001: S = d / (12 sqrt(K_st)); d = 1200 -> 100 at full trust, 200 at a quarter.
    assert expert_deviation(1800, 1.0) == 100
    assert expert_deviation(1800, 0.25) == 200
    assert expert_deviation(1800, 0.1) == 300  # d / (12 sqrt 0.1) = 316 is above S* = 300
    with pytest.raises(ValueError, match="trust"):
        expert_deviation(1800, 0.0)


def test_listed_players_without_deviation_get_the_expert_start() -> None:
    players = {"A": PlayerState(rating=1800), "B": rated(1800, 55)}
    full = replay(RussianGo(), [], players=players).players
    assert full["A"].deviation == 100
    assert full["B"].deviation == 55  # a given deviation is kept
    quarter = RussianGo(RussianGoParams(expert_trust=0.25))
    assert replay(quarter, [], players=players).players["A"].deviation == 200


def test_listed_ratings_are_clamped_to_the_bounds() -> None:
    players = {"top": PlayerState(rating=3200.0), "low": PlayerState(rating=-50.0)}
    result = replay(RussianGo(), [], players=players).players
    assert result["top"].rating == 2950
    assert result["top"].deviation == 50 / 12
    assert result["low"].rating == 0


@pytest.mark.parametrize(
    ("stones", "points"),
    [(0, 0), (1, 50), (2, 150), (3, 250), (9, 850), (-3, -250), (0.5, 25)],
)
def test_handicap_is_100_times_stones_less_half(stones: float, points: float) -> None:
    # Seed 001: H = F - 0.5, h = 100 H; signed, negative when received. 0.5 stone: our choice.
    assert handicap_points(stones) == points


def test_curve_width_is_100_at_one_dan() -> None:
    # Two players at 2100 (EGF 1 dan): D = 900 and a = 100, the EGF's a at GoR 2100.
    assert curve_width(900, scale_ratio=SCALE) == 100
    assert win_probability(100, 900, scale_ratio=SCALE) == pytest.approx(1 / (1 + math.exp(-1)))


@pytest.mark.parametrize(
    ("stronger_by", "percent"),
    [(0, 50.0), (25, 46.9), (50, 43.8), (75, 40.7), (100, 37.8), (200, 26.9), (300, 18.2)],
)
def test_curve_matches_the_egf_table_where_the_widths_agree(
    stronger_by: float, percent: float
) -> None:
    # EGF rating system table, row GoR 100 (a = 200): the weaker player's winning chance.
    # Our a is 200 when D = 1800 (two players at 1200).
    assert curve_width(game_distance(1200, 1200), scale_ratio=SCALE) == 200
    p = win_probability(-stronger_by, 1800.0, scale_ratio=SCALE)
    assert round(100 * p, 1) == percent


@settings(max_examples=200, deadline=None)
@given(
    st.floats(-3000, 3000),
    st.floats(0.01, 3000),
    st.floats(50, 3000),
    st.floats(50, 3000),
)
def test_win_probability_properties(
    difference: float, more: float, distance_1: float, distance_2: float
) -> None:
    p = win_probability(difference, distance_1, scale_ratio=SCALE)
    assert 0 <= p <= 1
    assert win_probability(0, distance_1, scale_ratio=SCALE) == 0.5
    assert p + win_probability(-difference, distance_1, scale_ratio=SCALE) == pytest.approx(1)
    assert win_probability(difference + more, distance_1, scale_ratio=SCALE) >= p
    near, far = sorted((distance_1, distance_2))
    positive = abs(difference) + 0.01
    # Stronger players (smaller D) are more predictable.
    assert win_probability(positive, near, scale_ratio=SCALE) >= win_probability(
        positive, far, scale_ratio=SCALE
    )


def test_huge_differences_do_not_overflow() -> None:
    assert win_probability(-1e6, 50, scale_ratio=SCALE) == 0.0
    assert win_probability(1e6, 50, scale_ratio=SCALE) == 1.0


def test_handicap_narrows_the_givers_difference() -> None:
    # 1800 gives 3 stones (250 points) to 1550: an even chance.
    assert expected_score(1800, 1550, handicap_points(3), scale_ratio=SCALE) == 0.5
    assert expected_score(1550, 1800, handicap_points(-3), scale_ratio=SCALE) == 0.5


# -- step 1 ----------------------------------------------------------------------------------------


def test_step1_widens_for_time_away_up_to_the_maximum() -> None:
    assert widen_for_absence(100, 1800, 0, 40) == 100
    assert widen_for_absence(100, 1800, 12, 40) == pytest.approx(math.sqrt(100**2 + 1600 * 12))
    assert widen_for_absence(100, 1800, 1000, 40) == 300  # S* = 1200 / 4


def test_time_away_makes_the_next_result_count_more() -> None:
    def after(last_played_days_ago: int) -> PlayerState:
        players = {
            "A": dataclasses.replace(rated(1800, 80), last_played=day(-last_played_days_ago)),
            "B": rated(1800, 80, games=50),
        }
        return replay(RussianGo(), [game("A", "B", 1.0)], players=players).players["A"]

    assert after(720).rating > after(0).rating
    assert after(720).deviation > after(0).deviation  # type: ignore[operator]


# -- steps 2 and 3: anomalies ----------------------------------------------------------------------


def test_step2_surprise_of_one_even_win() -> None:
    assert period_surprise(1800, [meet(1800, 1.0)], scale_ratio=SCALE) == (0.5, 0.5)


def test_anomaly_coefficient_zero_near_prediction_one_far_beyond() -> None:
    kw = dict(z_low=2.0, z_high=4.0)
    assert anomaly_coefficient(0.5, 0.5, **kw) == 0  # z = 1: ordinary
    assert anomaly_coefficient(1.0, 0.5, **kw) == 0  # z = 2: still ordinary
    assert anomaly_coefficient(1.5, 0.5, **kw) == 0.5  # z = 3: half-way
    assert anomaly_coefficient(-1.5, 0.5, **kw) == 0.5  # downward counts the same
    assert anomaly_coefficient(5.0, 0.5, **kw) == 1  # z = 10: fully anomalous
    assert anomaly_coefficient(1.0, 0.0, **kw) == 1  # a certain game went the other way
    assert anomaly_coefficient(0.0, 0.0, **kw) == 0


def test_performance_rating_meets_the_actual_score() -> None:
    kw = dict(scale_ratio=SCALE, margin=500.0, **BOUNDS)
    assert performance_rating([meet(1500, 1.0), meet(1500, 0.0)], **kw) == pytest.approx(1500)
    # Giving 3 stones (250 points) to two 1500 players and scoring 1/2: 1750.
    given = [meet(1500, 1.0, 250.0), meet(1500, 0.0, 250.0)]
    assert performance_rating(given, **kw) == pytest.approx(1750)
    # Two draws: the curve is steeper against 1600 than 1400, so the answer is not 1500, but
    # the expected score there is the actual 1.
    draws = [meet(1400, 0.5), meet(1600, 0.5)]
    found = performance_rating(draws, **kw)
    total = sum(expected_score(found, e.opponent_rating, scale_ratio=SCALE) for e in draws)
    assert total == pytest.approx(1.0, abs=1e-9)
    assert 1500 < found < 1510


def test_performance_of_all_wins_or_losses_is_the_interval_end() -> None:
    kw = dict(scale_ratio=SCALE, margin=500.0, **BOUNDS)
    assert performance_rating([meet(1500, 1.0), meet(1700, 1.0)], **kw) == 2200
    assert performance_rating([meet(1500, 0.0), meet(1700, 0.0)], **kw) == 1000
    assert performance_rating([meet(2800, 1.0)], **kw) == 2950  # clamped to the bounds
    assert performance_rating([meet(200, 0.0)], **kw) == 0


def test_step3_interpolation_moves_toward_r_an_by_k_an() -> None:
    assert interpolate_anomaly(1500, 1900, 0.0) == 1500
    assert interpolate_anomaly(1500, 1900, 0.25) == 1600
    assert interpolate_anomaly(1500, 1900, 1.0) == 1900


def _upset_period() -> tuple[dict[str, PlayerState], list[RatingPeriod]]:
    players = {"W": rated(1000, 100)} | {f"S{k}": rated(1800, 100) for k in range(8)}
    period = RatingPeriod(tuple(game("W", f"S{k}", 1.0) for k in range(8)))
    return players, [period]


def test_upward_anomaly_lifts_the_input_rating_and_widens_the_deviation() -> None:
    players, steps = _upset_period()
    with_anomaly = replay(RussianGo(), steps, players=players).players
    # The same system with anomalies switched off (no z can reach the thresholds).
    plain = RussianGo(RussianGoParams(z_low=1e9, z_high=2e9))
    without = replay(plain, steps, players=players).players
    assert with_anomaly["W"].rating > without["W"].rating + 100
    assert with_anomaly["W"].deviation > without["W"].deviation  # type: ignore[operator]
    # The corrected rating shields the losers (seed 001, step 5): they lose less.
    assert with_anomaly["S0"].rating > without["S0"].rating


def test_one_upset_win_is_no_anomaly_below_the_minimum_games() -> None:
    # z = sqrt((1 - p) / p) for a single win: an upset with p < 1/17 has z > 4 (K_an = 1), and
    # R_an of one win is the opponent + 500. Judged on one game, the input rating would jump
    # there; with fewer than anomaly_min_games games the period is rated plainly.
    players = {"W": rated(1000, 100), "S": rated(1800, 100)}
    p_win = expected_score(1000, 1800, scale_ratio=SCALE)
    assert p_win < 1 / 17
    upset = [game("W", "S", 1.0)]
    decided = replay(RussianGo(), upset, players=players).players["W"]
    plain = replay(RussianGo(RussianGoParams(z_low=1e9, z_high=2e9)), upset,
                   players=players).players["W"]
    assert decided == plain
    assert 1000 < decided.rating < 1100
    raw = replay(RussianGo(RussianGoParams(anomaly_min_games=1)), upset, players=players)
    assert raw.players["W"].rating >= 2300


def test_an_upward_anomaly_never_lowers_the_input_rating() -> None:
    # 400 wins of a 2000 player over 1400 players: z = 2.4 (K_an = 0.2), yet the performance
    # search tops out at 1400 + 500 = 1900, below the player's own rating.
    players = {"A": rated(2000, 100)} | {f"o{k}": rated(1400, 100) for k in range(20)}
    steps = [RatingPeriod(tuple(game("A", f"o{k % 20}", 1.0) for k in range(400)))]
    surplus, spread = period_surprise(2000, [meet(1400, 1.0)] * 400, scale_ratio=SCALE)
    assert anomaly_coefficient(surplus, spread, z_low=2, z_high=4) > 0
    plain = RussianGo(RussianGoParams(z_low=1e9, z_high=2e9))
    with_anomaly = replay(RussianGo(), steps, players=players).players["A"]
    without = replay(plain, steps, players=players).players["A"]
    assert with_anomaly.rating == pytest.approx(without.rating)


def test_downward_anomaly_widens_the_deviation_only() -> None:
    # L (1800) loses to eight 1650 players: each win alone is ordinary (z = 1.7), L's eight
    # losses are not (z = 4.8).
    one_win = period_surprise(1650, [meet(1800, 1.0)], scale_ratio=SCALE)
    assert anomaly_coefficient(*one_win, z_low=2, z_high=4) == 0
    eight_losses = period_surprise(1800, [meet(1650, 0.0)] * 8, scale_ratio=SCALE)
    assert anomaly_coefficient(*eight_losses, z_low=2, z_high=4) == 1
    players = {"L": rated(1800, 100)} | {f"w{k}": rated(1650, 100) for k in range(8)}
    steps = [RatingPeriod(tuple(game("L", f"w{k}", 0.0) for k in range(8)))]
    plain = RussianGo(RussianGoParams(z_low=1e9, z_high=2e9))
    with_anomaly = replay(RussianGo(), steps, players=players).players["L"]
    without = replay(plain, steps, players=players).players["L"]
    assert with_anomaly.rating == pytest.approx(without.rating)
    assert with_anomaly.deviation == pytest.approx(
        min(without.deviation * 2, max_deviation(without.rating))  # type: ignore[operator]
    )


def test_step6_widening_factor() -> None:
    # Seed 001: Ks = sqrt(1 + M K_an^2), M = 3.
    assert anomaly_widening(100, 1800, 1.0, penalty=3) == 200
    assert anomaly_widening(100, 1800, 0.5, penalty=3) == pytest.approx(100 * math.sqrt(1.75))
    assert anomaly_widening(100, 1800, 0.0, penalty=3) == 100
    assert anomaly_widening(200, 1800, 1.0, penalty=3) == 300  # held at S*


# -- step 4: newcomers --------------------------------------------------------------------------


def test_shrink_toward_an_anchor_by_games_over_small_sample() -> None:
    assert shrink_toward(1000, 1600, 0, 6) == 1000
    assert shrink_toward(1000, 1600, 3, 6) == 1300
    assert shrink_toward(1000, 1600, 6, 6) == 1600
    assert shrink_toward(1000, 1600, 9, 6) == 1600


def test_newcomer_rating_is_shrunk_below_six_games() -> None:
    three = [meet(900, 1.0), meet(1000, 1.0), meet(1100, 0.0)]
    assert newcomer_rating(1600, three, small_sample=6) == 1000 + 600 * 3 / 6
    six = three * 2
    assert newcomer_rating(1600, six, small_sample=6) == 1600
    given = [meet(900, 1.0, handicap=150.0)]  # the mean uses the effective rating 1050
    assert newcomer_rating(1650, given, small_sample=6) == 1050 + 600 / 6


def test_newcomer_deviation_combines_opponents_and_performance_spread() -> None:
    # At 2100 against 2100 (a = 100), p = 1/2: sum p(1-p)/a^2 = 4 * 0.25 / 100^2 = 1e-4, so
    # S_perf = 100; opponents' S = 50: S = sqrt(50^2 + 100^2).
    four = [meet(2100, s, deviation=50.0) for s in (1.0, 0.0, 1.0, 0.0)]
    assert newcomer_deviation(2100, four, scale_ratio=SCALE, min_deviation=1.0) == pytest.approx(
        math.sqrt(2500 + 10000)
    )
    hopeless = [meet(200, 1.0, handicap=-5000.0)]  # a certain game tells nothing
    assert newcomer_deviation(2100, hopeless, scale_ratio=SCALE, min_deviation=1.0) == 225


def test_newcomer_placeholder_rating_and_provisional_status() -> None:
    system = RussianGo()
    start = system.newcomer(DAY0, None, 0.0)
    assert start.rating == 1000 and start.deviation is None
    assert system.is_provisional(start)
    assert system.is_provisional(rated(1800, 80, games=5))
    assert not system.is_provisional(rated(1800, 80, games=6))


def test_newcomer_is_rated_from_their_results_and_the_placeholder_is_no_peak() -> None:
    players = {"B": rated(500, 100)}
    result = replay(RussianGo(), [game("N", "B", 1.0)], players=players).players
    new = result["N"]
    assert new.deviation is not None and new.games == 1
    # R_an = 500 + 500 = 1000, shrunk 1/6 of the way from 500: about 583, then step 5 adds.
    assert 583 < new.rating < 1000
    assert new.peak == new.rating  # not the 1000 placeholder
    assert result["B"].rating < 500


def test_a_newcomers_period_is_the_steps_composed_by_hand() -> None:
    # N, new, receives 2 stones (150 points) from B (1500, S 60) and wins.
    players = {"B": rated(1500, 60)}
    result = replay(RussianGo(), [game("N", "B", 1.0, handicap=-2)], players=players).players
    kw = dict(scale_ratio=SCALE)
    seen_by_n = [Encounter(1500, 60, -150, 1.0)]
    r_an = performance_rating(seen_by_n, margin=500, **kw, **BOUNDS)
    assert r_an == 1500 - 150 + 500  # one win: the top of the interval
    start = newcomer_rating(r_an, seen_by_n, small_sample=6)
    assert start == 1350 + 500 / 6
    entry_deviation = newcomer_deviation(start, seen_by_n, min_deviation=1, **kw)
    n_after = base_update(start, entry_deviation, seen_by_n, min_deviation=1, **kw, **BOUNDS)
    b_after = base_update(
        1500, 60, [Encounter(start, entry_deviation, 150, 0.0)], min_deviation=1, **kw, **BOUNDS
    )
    assert (result["N"].rating, result["N"].deviation) == n_after
    assert (result["B"].rating, result["B"].deviation) == b_after


def test_two_newcomers_count_each_other_at_the_placeholder() -> None:
    result = replay(RussianGo(), [game("N1", "N2", 1.0)]).players
    # Each sees the other at 1000: performances 1500 and 500, shrunk to 1000 +- 500/6, then
    # step 5 moves both further the same way.
    assert result["N1"].rating > 1000 + 500 / 6
    assert result["N2"].rating < 1000 - 500 / 6
    reverse = replay(RussianGo(), [game("N2", "N1", 0.0)]).players
    assert reverse == result


# -- step 5 ----------------------------------------------------------------------------------------


def test_step5_reproduces_glickmans_example_when_q_is_his() -> None:
    # Glickman, "The Glicko system" (1995): 1500 (RD 200) beats 1400 (30), loses to 1550 (100)
    # and 1700 (300) -> r' = 1464, RD' = 151.4.
    q = math.log(10) / 400
    terms = [
        GlickoTerm(q, 30, 1500 - 1400, 1.0),
        GlickoTerm(q, 100, 1500 - 1550, 0.0),
        GlickoTerm(q, 300, 1500 - 1700, 0.0),
    ]
    rating, deviation = glicko_update(1500, 200, terms)
    assert round(rating) == 1464
    assert round(deviation, 1) == 151.4


def test_step5_on_our_curve_is_clamped() -> None:
    wins = [meet(2940, 1.0, deviation=10.0)] * 20
    rating, deviation = base_update(
        2900, 12.5, wins, scale_ratio=SCALE, min_deviation=1.0, **BOUNDS
    )
    assert rating == 2950
    assert 1.0 <= deviation <= max_deviation(2950)


def test_a_win_with_received_stones_counts_less() -> None:
    # B (1600) receives 2 stones from A (1800): the stones narrow A's difference, so B's win
    # is less of a surprise and B's loss more of one (seed 001, SPEC 3.4).
    players = {"A": rated(1800, 100), "B": rated(1600, 100)}

    def after(score_of_a: float, stones: float) -> dict[str, float]:
        steps = [game("A", "B", score_of_a, handicap=stones)]
        states = replay(RussianGo(), steps, players=players).players
        return {n: s.rating for n, s in states.items()}

    assert after(0.0, 2)["B"] < after(0.0, 0)["B"]  # B's win with stones counts less
    assert after(1.0, 2)["B"] < after(1.0, 0)["B"]  # B's loss with stones costs more
    assert after(1.0, 2)["A"] > after(1.0, 0)["A"]  # A's win giving stones counts more
    assert after(0.0, 2)["A"] > after(0.0, 0)["A"]  # A's loss giving stones costs less


# -- properties -----------------------------------------------------------------------------------

ratings = st.floats(0, 2950)
stones = st.sampled_from([0.0, 0.0, 1.0, 2.0, 4.0, 9.0, -1.0, -3.0, -9.0])


@st.composite
def established_states(draw: st.DrawFn) -> PlayerState:
    rating = draw(ratings)
    deviation = draw(st.floats(1.0, max_deviation(rating)))
    away = draw(st.one_of(st.none(), st.integers(0, 2000)))
    last = None if away is None else DAY0 - timedelta(days=away)
    return PlayerState(rating=rating, games=draw(st.integers(0, 50)), deviation=deviation,
                       peak=rating, last_played=last)


@st.composite
def periods(
    draw: st.DrawFn, when: int = 0
) -> tuple[dict[str, PlayerState], list[RatingPeriod]]:
    """Some established players (the others join as newcomers) and one period of games."""
    names = [f"p{i}" for i in range(draw(st.integers(2, 5)))]
    players = {n: draw(established_states()) for n in names if draw(st.booleans())}
    games = []
    for _ in range(draw(st.integers(1, 8))):
        a, b = draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
        score = draw(st.sampled_from([0.0, 0.5, 1.0]))
        games.append(Game(a, b, score, day(when), draw(stones)))
    return players, [RatingPeriod(tuple(games))]


def assert_sane(states: Mapping[str, PlayerState]) -> None:
    for state in states.values():
        assert math.isfinite(state.rating)
        assert 0 <= state.rating <= 2950
        if state.deviation is not None:
            assert math.isfinite(state.deviation)
            assert 1.0 <= state.deviation <= max_deviation(state.rating) + 1e-9


@settings(max_examples=150, deadline=None)
@given(periods(), periods(when=45))
def test_outputs_are_finite_and_within_bounds(
    first: tuple[dict[str, PlayerState], list[RatingPeriod]],
    second: tuple[dict[str, PlayerState], list[RatingPeriod]],
) -> None:
    players, steps = first
    result = replay(RussianGo(), steps + second[1], players=players).players
    assert_sane(result)
    for state in result.values():
        assert state.deviation is not None  # everyone who played is rated now


@settings(max_examples=60, deadline=None)
@given(histories(max_steps=20, membership=True, periods=True, handicaps=True))
def test_any_history_replays_to_sane_states(steps: list[Step]) -> None:
    assert_sane(replay(RussianGo(), steps).players)


@settings(max_examples=200, deadline=None)
@given(established_states(), established_states(), stones)
def test_a_single_win_never_lowers_the_winners_rating(
    winner: PlayerState, loser: PlayerState, handicap: float
) -> None:
    players = {"W": winner, "L": loser}
    result = replay(RussianGo(), [game("W", "L", 1.0, handicap=handicap)], players=players)
    assert result.players["W"].rating >= winner.rating
    assert result.players["L"].rating <= loser.rating


@settings(max_examples=150, deadline=None)
@given(established_states(), established_states(), st.sampled_from([0.0, 0.5, 1.0]), stones)
def test_swapping_the_two_players_swaps_the_results(
    first: PlayerState, second: PlayerState, score: float, handicap: float
) -> None:
    players = {"X": first, "Y": second}
    forward = replay(RussianGo(), [game("X", "Y", score, handicap=handicap)], players=players)
    swapped = replay(RussianGo(), [game("Y", "X", 1 - score, handicap=-handicap)],
                     players=players)
    for name in ("X", "Y"):
        assert forward.players[name].rating == pytest.approx(swapped.players[name].rating)
        assert forward.players[name].deviation == pytest.approx(swapped.players[name].deviation)


# -- end to end -----------------------------------------------------------------------------------


def club_history() -> list[Game | Join | RatingPeriod]:
    """Three monthly club nights: an expert-rated core, two newcomers, handicap games."""
    first = RatingPeriod((
        game("dan", "kyu1", 1.0, 0, handicap=2),
        game("kyu1", "kyu2", 1.0, 0),
        game("new1", "kyu2", 1.0, 0),
        game("new1", "kyu1", 0.0, 0),
        game("new2", "new1", 0.0, 0),
    ))
    second = RatingPeriod((
        game("dan", "new1", 1.0, 30, handicap=3),
        game("kyu2", "new2", 1.0, 30),
        game("kyu1", "dan", 1.0, 30, handicap=-2),
        game("new1", "kyu2", 1.0, 31),
    ))
    third = RatingPeriod(tuple(game("new1", "kyu2", 1.0, 60 + k) for k in range(4)))
    return [Join("new1", day(0)), first, second, game("dan", "kyu2", 1.0, 45, handicap=4), third]


def test_replay_of_a_club_season() -> None:
    system = RussianGo()
    players = {
        "dan": PlayerState(rating=2150),
        "kyu1": PlayerState(rating=1950),
        "kyu2": PlayerState(rating=1700, games=20),
    }
    result = replay(system, club_history(), players=players, checkpoint_every=2)
    states = result.players
    assert_sane(states)
    assert {n: s.games for n, s in states.items()} == {
        "dan": 4, "kyu1": 4, "kyu2": 29, "new1": 9, "new2": 2,
    }
    assert states["new1"].last_played == day(63)
    assert states["dan"].last_played == day(45)
    # new1 kept beating kyu2 and is above them now; new2 lost both games.
    assert states["new1"].rating > states["kyu2"].rating
    assert states["new2"].rating < states["kyu2"].rating
    assert system.is_provisional(states["new2"])  # 2 games
    assert not system.is_provisional(states["new1"])  # 9 games
    assert system.is_provisional(states["dan"])  # 4 games with the system so far
    # Continuing from a checkpoint gives the same season.
    mid = result.checkpoints[0]
    resumed = replay(system, club_history()[mid.position:], start=mid)
    assert resumed.players == states
