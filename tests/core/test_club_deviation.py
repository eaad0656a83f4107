"""The ``club`` default since issue 19: a K that follows the evidence about each player
(ratings_core/evidence.py; docs/rating-systems.md, "club"), worked by hand."""

from __future__ import annotations

import math
from datetime import timedelta

from ratings_core.club import ClubElo, ClubParams
from ratings_core.evidence import established_deviation, k_of, opponent_weight
from ratings_core.glickman import Q, attenuation
from ratings_core.model import Game, PlayerState, RatingPeriod
from ratings_core.replay import replay
from ratings_core.systems import make_system, preset_params
from ratings_core.table import Table
from tests.helpers import day, established, game

ESTABLISHED = math.sqrt(32 / Q)


def test_the_established_deviation_gives_k_32_and_16_exactly() -> None:
    assert round(established_deviation(32), 2) == 74.56
    assert round(established_deviation(16), 2) == 52.72
    assert k_of(established_deviation(32), established_deviation(32), 32.0) == 32.0
    assert k_of(100.0, ESTABLISHED, 32.0) == Q * 100.0 * 100.0
    assert opponent_weight(ESTABLISHED, ESTABLISHED) == 1.0


def test_first_win_of_a_newcomer_over_another_by_hand() -> None:
    # Both 1500 with deviation 150 (fewer than two have played: no league spread yet). The
    # opponent weighs g(sqrt(150^2 - 74.56^2)) = 0.9242; three quarters of the game's
    # information shrink 150 to 141.77; K = q 141.77^2 = 115.70; E = 1/2.
    w = attenuation(math.sqrt(150.0**2 - ESTABLISHED**2))
    deviation = 1.0 / math.sqrt(1.0 / 150.0**2 + Q * Q * (0.75 * (w * w * 0.25)))
    k = Q * deviation * deviation
    assert (round(w, 4), round(deviation, 2), round(k, 2)) == (0.9242, 141.77, 115.70)
    result = replay(ClubElo(), [game("a", "b", 1.0)]).players
    assert round(result["a"].rating, 2) == 1553.47
    assert result["a"].rating == 1500.0 + k * (w * (1.0 - 0.5))
    assert result["b"].rating == 1500.0 + k * (w * (0.0 - 0.5))
    assert result["a"].deviation == result["b"].deviation == deviation
    assert ClubElo().is_provisional(result["a"])


def test_edition_2_counts_all_of_a_games_information() -> None:
    # The same game by edition 2's rule: 150 shrinks to 139.32, K 111.73, 1551.63.
    result = replay(make_system("club", edition=2), [game("a", "b", 1.0)]).players
    assert round(result["a"].rating, 2) == 1551.63
    assert round(result["a"].deviation, 2) == 139.32


def test_a_newcomer_takes_the_leagues_spread_and_moves_toward_their_first_opponent() -> None:
    # The league: 1700 and 1500, spread (standard deviation) 100, so a newcomer's deviation is
    # 1.25 x 100 = 125. Before their first game the newcomer moves half way to the 1700
    # they meet: 1600. Then a loss: E = 1/(1 + 10^(-g(sqrt(125^2 + 74.56^2)) (-100)/400)).
    players = {"old": established(1700), "mid": established(1500)}
    system = ClubElo()
    table = Table()
    for name, state in players.items():
        table.add(name, state)
    newcomer = system.as_rated(table.league, system.newcomer(day(0), None, 0.0))
    assert newcomer.deviation == 125.0
    result = replay(system, [game("new", "old", 0.0)], players=players).players
    w = opponent_weight(ESTABLISHED, ESTABLISHED)
    e = 1.0 / (1.0 + 10.0 ** (-(1600.0 - 1700.0) / 400.0))
    deviation = 1.0 / math.sqrt(1.0 / 125.0**2 + Q * Q * (0.75 * (w * w * e * (1 - e))))
    assert result["new"].rating == 1600.0 + Q * deviation * deviation * (w * (0.0 - e))
    assert round(result["new"].rating, 2) == 1570.28
    assert result["new"].peak == 1600.0
    # the newcomer's doubt beyond an established player's damps what old learns
    assert result["old"].rating == 1700.0 + 32.0 * (
        opponent_weight(125.0, ESTABLISHED) * (1.0 - (1.0 - e)))


def test_the_leagues_spread_is_bounded_by_the_established_deviation_and_350() -> None:
    system = ClubElo()
    for ratings, expected in (((1500, 1510), ESTABLISHED), ((1000, 2400), 350.0)):
        table = Table()
        for n, rating in enumerate(ratings):
            table.add(str(n), established(rating))
        newcomer = system.newcomer(day(0), None, 0.0)
        assert system.as_rated(table.league, newcomer).deviation == expected


def test_two_established_players_play_classic_elo() -> None:
    # Seed 002 (算出方法): 1500 beats 1700 with K 32: 1524.31 and 1675.69.
    players = {"A": established(1500), "B": established(1700)}
    result = replay(ClubElo(), [game("A", "B", 1.0)], players=players).players
    assert round(result["A"].rating, 2) == 1524.31
    assert round(result["B"].rating, 2) == 1675.69
    assert result["A"].deviation == ESTABLISHED
    assert not ClubElo().is_provisional(result["A"])


def test_a_newcomer_moves_more_than_an_established_opponent_and_settles() -> None:
    players = {"old": established(1500)}
    first = replay(ClubElo(), [game("new", "old", 1.0)], players=players).players
    assert first["new"].rating - 1500 > 3 * (1500 - first["old"].rating) > 0
    steps = [game("new", "old", 1.0 if n % 2 else 0.0, n) for n in range(40)]
    states = [replay(ClubElo(), steps[:n], players=players).players["new"]
              for n in (10, 21, 22, 23, 24, 40)]
    # K settles to 32 after 22 games; the mark lasts the first 24 (provisional_games) too
    assert [s.deviation == ESTABLISHED for s in states] == [False, False, True, True, True, True]
    assert [ClubElo().is_provisional(s) for s in states] == [True, True, True, True, False, False]


def test_a_newcomer_the_league_puts_at_the_established_deviation_is_still_marked() -> None:
    # Two established equals: a newcomer's deviation is the floor (K 32 from the first game),
    # yet their first 24 games are marked provisional; edition 2 marks by deviation alone.
    players = {"x": established(1500), "y": established(1500)}
    steps = [game("new", "x", 1.0, n) for n in range(24)]
    for n, marked in ((1, True), (23, True), (24, False)):
        state = replay(ClubElo(), steps[:n], players=players).players["new"]
        assert state.deviation == ESTABLISHED
        assert ClubElo().is_provisional(state) is marked
    second = make_system("club", edition=2)
    assert not second.is_provisional(PlayerState(rating=1500, games=1, deviation=ESTABLISHED))


def test_time_away_gives_k_back_slowly() -> None:
    # Established (74.56) and away a year: sqrt(74.56^2 + 10^2 x 365/30) = 82.3, K 39.0; five
    # years: 107.9, K 67. Never past a newcomer's: here 1.25 x the league's spread (141.4).
    system = ClubElo()
    back = {"old": established(1500), "other": established(1500),
            "low": established(1300), "high": established(1700)}
    for years, k in ((1, 39.0), (5, 67.0)):
        steps = [game("old", "other", 0.5, 0),
                 Game("old", "other", 1.0, day(0) + timedelta(days=365 * years))]
        result = replay(system, steps, players=back).players
        grown = math.sqrt(ESTABLISHED**2 + 100.0 * 365 * years / 30)
        assert round(Q * grown * grown) == k
        assert result["old"].rating > 1500 + 16  # more than an established K 32 win
    far = [game("old", "other", 0.5, 0), Game("old", "other", 1.0, day(0) + timedelta(days=20000))]
    newcomers = 1.25 * math.sqrt((200.0**2 + 200.0**2) / 4)
    assert replay(system, far, players=back).players["old"].deviation < newcomers
    # in a league of equals a newcomer is as sure as an established player, and so is one back
    equals = {"old": established(1500), "other": established(1500)}
    assert replay(system, far, players=equals).players["old"].rating == 1516.0


def test_a_period_and_its_games_one_by_one_agree_on_a_single_game() -> None:
    players = {"x": established(1600)}
    played = Game("n", "x", 0.5, day(3), handicap=20.0, first_move=1)
    alone = replay(ClubElo(), [played], players=players).players
    period = replay(ClubElo(), [RatingPeriod((played,))], players=players).players
    assert alone == period


def test_the_prediction_is_damped_by_both_deviations() -> None:
    system = ClubElo()
    strong = PlayerState(rating=1700, deviation=150.0)
    weak = PlayerState(rating=1500, deviation=150.0)
    known = system.expected_score(PlayerState(rating=1700, deviation=ESTABLISHED),
                                  PlayerState(rating=1500, deviation=ESTABLISHED))
    assert 0.5 < system.expected_score(strong, weak) < known < 1 / (1 + 10 ** (-200 / 400))


def test_edition_1_is_the_provisional_rule_and_shows_no_deviation() -> None:
    first = preset_params(make_system("club", edition=1))
    assert first == ClubParams(uncertainty="games", newcomer_spread=0, information=1,
                               first_opponents=0)
    old = make_system("club", edition=1)
    result = replay(old, [game("a", "b", 1.0)]).players
    assert result["a"].rating == (10 * 1500 + 1900) / 11
    assert result["a"].deviation is None
    assert ClubElo().shown_deviation(PlayerState(rating=1500, deviation=99.0)) is None


def test_a_listed_player_without_a_deviation_is_established_after_24_games() -> None:
    system = ClubElo()
    assert system.adopt(PlayerState(rating=1500, games=24)).deviation == ESTABLISHED
    assert system.adopt(PlayerState(rating=1500, games=23)).deviation is None  # the league's
    assert make_system("club", edition=2).adopt(PlayerState(rating=1500, games=23)).deviation == (
        150.0)
    assert system.adopt(PlayerState(rating=2500, games=99, peak=2500)).deviation == (
        established_deviation(16))
