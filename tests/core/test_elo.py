"""Classic Elo, the club default and asymmetric Elo: seeds 000, 002 and 003 exactly."""

import dataclasses
from datetime import date

import pytest

from ratings_core.club import ClubElo, ClubParams
from ratings_core.curves import logistic_expected
from ratings_core.elo import (
    AsymmetricElo,
    AsymmetricParams,
    ClassicElo,
    EloParams,
    age_on,
    elo_change,
    floor_for,
    initial_rating,
    k_factor,
)
from ratings_core.model import Game, Join, PlayerState, RatingPeriod, Retire, Return
from ratings_core.provisional import performance_rating, weighted_rating
from ratings_core.replay import replay
from tests.helpers import day, established, game


def test_japanese_example_1500_beats_1700() -> None:
    # Seed 002 (算出方法): E = 0.2403, K = 32 -> 1524.31 and 1675.69.
    e = logistic_expected(1500 - 1700)
    assert round(e, 4) == 0.2403
    assert round(1500 + elo_change(32, 1, e), 2) == 1524.31
    assert round(1700 + elo_change(32, 0, 1 - e), 2) == 1675.69


@pytest.mark.parametrize("system", [ClassicElo(), ClubElo()])
def test_japanese_example_through_replay(system: ClassicElo | ClubElo) -> None:
    players = {"A": established(1500), "B": established(1700)}
    result = replay(system, [game("A", "B", 1.0)], players=players)
    assert round(result.players["A"].rating, 2) == 1524.31
    assert round(result.players["B"].rating, 2) == 1675.69


def test_k_factor_policy_of_seed_000() -> None:
    policy = dict(k=32.0, k_master=16.0, master_rating=2400.0, veteran_games=None)
    assert k_factor(1800, 500, **policy) == 32
    assert k_factor(2400, 3, **policy) == 16
    assert k_factor(1800, 30, **{**policy, "veteran_games": 30}) == 16
    assert k_factor(1800, 29, **{**policy, "veteran_games": 30}) == 32


def test_master_keeps_k16_after_dropping_below_2400() -> None:
    players = {"M": PlayerState(rating=2390, games=200, peak=2410), "X": established(2390)}
    result = replay(ClassicElo(), [game("M", "X", 1.0)], players=players)
    assert result.players["M"].rating == pytest.approx(2398.0)  # K 16 * 0.5
    assert result.players["X"].rating == pytest.approx(2374.0)  # K 32 * -0.5


def test_initial_ratings_1600_adults_1200_under_14() -> None:
    kw = dict(adult=1600.0, junior=1200.0, junior_age=14)
    assert initial_rating(None, date(2024, 1, 1), **kw) == 1600
    assert initial_rating(date(2010, 1, 2), date(2024, 1, 1), **kw) == 1200  # 13 years old
    assert initial_rating(date(2010, 1, 1), date(2024, 1, 1), **kw) == 1600  # 14 today
    assert age_on(date(2010, 1, 2), date(2024, 1, 1)) == 13


def test_newcomers_start_by_age_in_replay() -> None:
    steps = [Join("kid", day(0), birth_date=date(2015, 6, 1)), game("kid", "adult", 0.5)]
    result = replay(ClassicElo(), steps)
    assert result.players["kid"].rating == 1200 + 32 * (0.5 - logistic_expected(-400))
    assert result.players["adult"].rating == 1600 + 32 * (0.5 - logistic_expected(400))


def test_floor_1200_and_ratchet_1400() -> None:
    assert floor_for(1250, floor=1200, ratchet=1400) == 1200
    assert floor_for(1400, floor=1200, ratchet=1400) == 1200  # reached, not passed
    assert floor_for(1401, floor=1200, ratchet=1400) == 1400
    players = {
        "low": PlayerState(rating=1205, games=50, peak=1300),
        "was_high": PlayerState(rating=1405, games=50, peak=1450),
        "strong": established(1205),
    }
    steps = [game("strong", "low", 1.0), game("strong", "was_high", 1.0)]
    result = replay(ClassicElo(), steps, players=players)
    assert result.players["low"].rating == 1200
    assert result.players["was_high"].rating == 1400


def test_normal_curve_preset() -> None:
    system = ClassicElo(EloParams(curve="normal"))
    players = {"A": established(1600), "B": established(1600)}
    result = replay(system, [game("A", "B", 1.0)], players=players)
    assert result.players["A"].rating == 1616.0


def test_period_uses_ratings_from_before_the_period() -> None:
    # Seed 002: over a period R' = R + K (W - N E); two wins against the same opponent.
    players = {"A": established(1500), "B": established(1700)}
    period = RatingPeriod((game("A", "B", 1.0), game("A", "B", 1.0)))
    result = replay(ClassicElo(), [period], players=players)
    assert result.players["A"].rating == pytest.approx(1500 + 32 * (2 - 2 * 0.240253073))
    assert result.players["A"].games == 102


def test_quebec_provisional_mean_1504() -> None:
    # Seed 003: (12 * 1462 + 4 * 1630) / 16 = 1504.
    assert weighted_rating(1462, 12, 1630, 4) == 1504


def test_performance_rating_is_bounded() -> None:
    assert performance_rating(1500, 3, 1, 4) == 1700
    assert performance_rating(1500, 4, 0, 4) == 1900  # all wins: Ravg + 400
    assert performance_rating(1500, 4, 0, 4, cap=200) == 1700


#: ``club`` as edition 1 of the defaults (ladders set up before issue 19): the provisional
#: weighted mean of seeds 002 and 003, which the three tests below work by hand
CLUB_EDITION_1 = ClubParams(uncertainty="games")


def test_club_newcomer_is_provisional_and_opponent_rated_normally() -> None:
    players = {"old": established(1500)}
    system = ClubElo(CLUB_EDITION_1)
    result = replay(system, [game("new", "old", 1.0)], players=players)
    new = result.players["new"]
    # Weighted mean of 1500 (weight 0 games + 10 prior) and performance 1500 + 400 = 1900:
    # (10 * 1500 + 1900) / 11 = 1536.36.
    assert new.rating == (10 * 1500 + 1900) / 11
    assert new.games == 1
    assert system.is_provisional(new)
    assert result.players["old"].rating == 1484.0  # K 32 against the newcomer's 1500
    assert not system.is_provisional(result.players["old"])


def test_club_provisional_win_against_a_weak_player_does_not_lower() -> None:
    # The weighted mean alone would give (10 * 1500 + 1400) / 11 = 1490.91 after a win.
    players = {"weak": established(1000)}
    system = ClubElo(CLUB_EDITION_1)
    result = replay(system, [game("new", "weak", 1.0)], players=players)
    assert result.players["new"].rating == 1500.0
    lost = replay(system, [game("new", "weak", 0.0)], players=players)
    assert lost.players["new"].rating == (10 * 1500 + 600) / 11  # = 1418.18


def test_club_provisional_ends_after_configured_games() -> None:
    system = ClubElo(dataclasses.replace(CLUB_EDITION_1, provisional_games=2))
    steps = [game("new", "old", 1.0, n) for n in range(3)]
    result = replay(system, steps, players={"old": established(1500)})
    assert not system.is_provisional(result.players["new"])


def test_pool_example_of_seed_002() -> None:
    # Two retire at 1300 and 1200 (pool 500); five newcomers of one period start at 1400.
    players = {"r1": established(1300), "r2": established(1200)}
    newcomers = tuple(Join(f"n{i}", day(1)) for i in range(5))
    steps = [Retire("r1", day(0)), Retire("r2", day(0)), RatingPeriod(newcomers)]
    result = replay(ClubElo(), steps, players=players)
    assert [result.players[f"n{i}"].rating for i in range(5)] == [1400.0] * 5
    assert result.pool == 0.0


def test_pool_cap_leaves_the_rest_in_the_pool() -> None:
    players = {"r": established(500)}  # deficit 1000
    steps = [Retire("r", day(0)), RatingPeriod((Join("a", day(1)), Join("b", day(1))))]
    result = replay(ClubElo(), steps, players=players)
    assert result.players["a"].rating == 1300.0  # cap 200
    assert result.pool == 600.0


def test_retiring_above_base_lifts_newcomers_and_return_takes_deficit_back() -> None:
    players = {"star": established(1800), "r": established(1400)}
    steps = [Retire("star", day(0)), Retire("r", day(0)), Return("star", day(1))]
    result = replay(ClubElo(), steps, players=players)
    assert result.players["star"].rating == 1800  # old rating back
    assert result.pool == 100.0  # only r's deficit remains
    lifted = replay(ClubElo(), [Retire("star", day(0)), Join("n", day(1))], players=players)
    assert lifted.players["n"].rating == 1700.0  # 1500 + min(300, cap 200)


def test_retired_players_listed_form_the_initial_pool() -> None:
    players = {"gone": PlayerState(rating=1300, games=40, status="retired")}  # type: ignore[arg-type]
    result = replay(ClubElo(), [Join("n", day(0))], players=players)
    assert result.players["n"].rating == 1300.0


def _club_ratings(system: ClubElo, played: Game, as_period: bool) -> tuple[float, float]:
    """``new`` (a newcomer, rated provisionally) and ``old`` (established) after ``played``."""
    result = replay(system, [RatingPeriod((played,)) if as_period else played],
                    players={"old": established(1500)})
    return result.players["new"].rating, result.players["old"].rating


@pytest.mark.parametrize("as_period", [False, True])
@pytest.mark.parametrize("score", [1.0, 0.5, 0.0])
def test_club_white_for_player_a_counts_as_a_handicap_of_minus_30(
    as_period: bool, score: float
) -> None:
    # Issue 7: White plays as if 30 points stronger (first_move_advantage 30), the same as
    # receiving a handicap of 30; Black as if giving one.
    white = Game("new", "old", score, day(0), first_move=1)
    black = Game("new", "old", score, day(0), first_move=-1)
    received = Game("new", "old", score, day(0), handicap=-30.0)
    given = Game("new", "old", score, day(0), handicap=30.0)
    plain = Game("new", "old", score, day(0))
    assert ClubElo().params.first_move_advantage == 30.0
    assert _club_ratings(ClubElo(), white, as_period) == _club_ratings(
        ClubElo(), received, as_period)
    assert _club_ratings(ClubElo(), black, as_period) == _club_ratings(
        ClubElo(), given, as_period)
    # and the colour does count: old's expectation, hence old's Elo change, moves with it
    assert _club_ratings(ClubElo(), white, as_period)[1] != _club_ratings(
        ClubElo(), plain, as_period)[1]


def test_club_white_worked_example() -> None:
    # Two established 1500s, White (player_a) wins: E = 1 / (1 + 10^(-30/400)) = 0.54307,
    # 1500 + 32 (1 - 0.54307) = 1514.62 and 1500 - 14.62 = 1485.38 (an uncoloured win: +-16).
    players = {"A": established(1500), "B": established(1500)}
    result = replay(ClubElo(), [Game("A", "B", 1.0, day(0), first_move=1)], players=players)
    assert round(result.players["A"].rating, 2) == 1514.62
    assert round(result.players["B"].rating, 2) == 1485.38


@pytest.mark.parametrize("as_period", [False, True])
@pytest.mark.parametrize("first_move", [1, -1])
def test_first_move_advantage_0_rates_a_coloured_game_like_an_uncoloured_one(
    as_period: bool, first_move: int
) -> None:
    system = ClubElo(ClubParams(first_move_advantage=0.0))
    coloured = Game("new", "old", 1.0, day(0), first_move=first_move)
    plain = Game("new", "old", 1.0, day(0))
    assert _club_ratings(system, coloured, as_period) == _club_ratings(system, plain, as_period)


def test_asymmetric_losses_cost_a_fraction() -> None:
    system = AsymmetricElo(AsymmetricParams(loss_factor=0.5))
    players = {"A": established(1500), "B": established(1500)}
    result = replay(system, [game("A", "B", 1.0)], players=players)
    assert result.players["A"].rating == 1516.0
    assert result.players["B"].rating == 1492.0
