"""Team and doubles games (issue 37): the shared rules of :mod:`ratings_core.sides`, and every
system's rating of a game between sides.

The issue's proof: with sides of one every system gives exactly (bit for bit) the singles
result; hand-computed examples for Elo (with a provisional member) and Glicko-2, each number
derived here from the rules' formulas; the uneven 2 v 3 with a size handicap; the engine's
newcomers, retired members and times; one prediction per team game in the evaluation.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings

from ratings_core.evaluation import evaluate
from ratings_core.model import (
    Game,
    Join,
    PlayerState,
    RatingPeriod,
    Retire,
    Return,
    Status,
    Step,
    TeamGame,
    games_of,
)
from ratings_core.replay import ReplayError, replay
from ratings_core.sides import met_rating, side_deviation, side_strength, uneven_ratio
from ratings_core.system import RatingSystem
from ratings_core.systems import PRESETS, make_system
from ratings_core.table import Table
from tests.helpers import day
from tests.strategies import histories, team_histories

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: every preset that rates teams, and the past editions of ``club`` (their own code paths)
TEAM_SYSTEMS: list[tuple[str, int | None]] = [
    (name, None) for name in sorted(PRESETS) if PRESETS[name].rates_teams
] + [("club", 1), ("club", 2), ("club", 3)]


def _system(name: str, edition: int | None) -> RatingSystem:
    return make_system(name) if edition is None else make_system(name, edition=edition)


def _as_sides_of_one(steps: list[Step], first_move: bool) -> tuple[list[Step], list[Step]]:
    """The history with first moves given (when asked), as singles and as sides of one."""
    singles: list[Step] = []
    teams: list[Step] = []

    def moved(game: Game) -> Game:
        if not first_move:
            return game
        move = (ord(game.player_a[-1]) + game.played_at.toordinal()) % 3 - 1
        return Game(game.player_a, game.player_b, game.score_a, game.played_at, game.handicap,
                    None, move)

    def side(game: Game) -> TeamGame:
        return TeamGame((game.player_a,), (game.player_b,), game.score_a, game.played_at,
                        game.handicap, game.first_move)

    for step in steps:
        if isinstance(step, Game):
            game = moved(step)
            singles.append(game)
            teams.append(side(game))
        elif isinstance(step, RatingPeriod):
            events = [moved(e) if isinstance(e, Game) else e for e in step.events]
            singles.append(RatingPeriod(tuple(events)))
            teams.append(RatingPeriod(tuple(side(e) if isinstance(e, Game) else e
                                            for e in events)))
        else:
            singles.append(step)
            teams.append(step)
    return singles, teams


@pytest.mark.parametrize(("name", "edition"), TEAM_SYSTEMS)
@FAST
@given(steps=histories(handicaps=True))
def test_sides_of_one_rate_exactly_as_singles(name: str, edition: int | None,
                                              steps: list[Step]) -> None:
    system = _system(name, edition)
    singles, teams = _as_sides_of_one(steps, first_move=system.first_move_advantage != 0)
    single = replay(system, singles, checkpoint_every=7)
    team = replay(system, teams, checkpoint_every=7)
    assert team.players == single.players
    assert team.pool == single.pool
    assert team.league == single.league
    assert [c.players for c in team.checkpoints] == [c.players for c in single.checkpoints]


def test_the_rules_give_back_a_player_for_a_side_of_one() -> None:
    for rating in (1500.0, 1234.5678, 0.1, -3.3, 2999.999):
        assert side_strength([rating], 1, 80.0) == rating
        assert met_rating(rating, rating, 1717.17) == 1717.17
        assert side_deviation([rating]) == rating
    assert uneven_ratio(1, 1) == 1.0


@pytest.mark.parametrize(("name", "edition"), TEAM_SYSTEMS)
@FAST
@given(steps=team_histories(handicaps=True))
def test_runs_of_team_games_equal_one_period_per_game(name: str, edition: int | None,
                                                      steps: list[Step]) -> None:
    """The team loops of ``elo`` and ``club`` (:mod:`ratings_core.inlined`), and every other
    system's runs, give the numbers of each team game rated as a period of its own."""
    system = _system(name, edition)
    wrapped = [RatingPeriod((s,)) if isinstance(s, Game | TeamGame) else s for s in steps]
    assert replay(system, steps).players == replay(system, wrapped).players


@pytest.mark.parametrize(("name", "edition"), TEAM_SYSTEMS)
@FAST
@given(steps=team_histories(handicaps=True))
def test_team_histories_rate_to_finite_numbers_and_resume(name: str, edition: int | None,
                                                          steps: list[Step]) -> None:
    system = _system(name, edition)
    full = replay(system, steps, checkpoint_every=3)
    for state in full.players.values():
        assert math.isfinite(state.rating)
        assert state.deviation is None or math.isfinite(state.deviation)
    for checkpoint in full.checkpoints:
        resumed = replay(system, steps[checkpoint.position:], start=checkpoint)
        assert resumed.players == full.players


# -- hand-computed examples ---------------------------------------------------------------------


def _listed(rating: float, games: int, deviation: float | None = None) -> PlayerState:
    return PlayerState(rating=rating, games=games, peak=rating, deviation=deviation)


def test_elo_a_provisional_member_moves_more_and_the_veteran_partner_is_not_dragged() -> None:
    """``elo`` with K 32 for the first 30 games and 16 after (veteran_games=30): alice
    (1700, a veteran) and bob (1500, 5 games: K 32) beat carol (1600) and dave (1800), both
    veterans.

    Strengths: A = (1700 + 1500) / 2 = 1600, B = (1600 + 1800) / 2 = 1700.
    E_a = 1 / (1 + 10^((1700 - 1600) / 400)) = 1 / (1 + 10^0.25) = 0.359935...
    alice: 1700 + 16 (1 - E_a) = 1710.24...; bob: 1500 + 32 (1 - E_a) = 1520.48...;
    carol: 1600 + 16 (0 - (1 - E_a)) = 1589.76...; dave: 1800 - 16 (1 - E_a) = 1789.76...
    """
    system = make_system("elo", {"veteran_games": "30"})
    players = {"alice": _listed(1700.0, 100), "bob": _listed(1500.0, 5),
               "carol": _listed(1600.0, 100), "dave": _listed(1800.0, 100)}
    game = TeamGame(("alice", "bob"), ("carol", "dave"), 1.0, day(1))
    after = replay(system, [game], players=players).players
    a_strength = (1700.0 + 1500.0) / 2
    b_strength = (1600.0 + 1800.0) / 2
    assert (a_strength, b_strength) == (1600.0, 1700.0)
    e = 1.0 / (1.0 + 10.0 ** (-(a_strength - b_strength) / 400.0))
    assert e == pytest.approx(0.359935, abs=1e-6)
    assert after["alice"].rating == 1700.0 + 16.0 * (1.0 - e)
    assert after["bob"].rating == 1500.0 + 32.0 * (1.0 - e)
    assert after["carol"].rating == 1600.0 + 16.0 * (0.0 - (1.0 - e))
    assert after["dave"].rating == 1800.0 + 16.0 * (0.0 - (1.0 - e))
    assert after["alice"].rating == pytest.approx(1710.24, abs=0.01)
    assert after["bob"].rating == pytest.approx(1520.48, abs=0.01)
    assert after["bob"].rating - 1500.0 == 2 * (after["alice"].rating - 1700.0)
    assert [after[n].games for n in ("alice", "bob", "carol", "dave")] == [101, 6, 101, 101]


def test_club_by_games_a_provisional_member_takes_a_weighted_mean() -> None:
    """``club`` edition 1 (provisional ratings by games): bob (1500, 5 games of 24) and alice
    (1700, established) beat carol (1600) and dave (1800).

    A = 1600, B = 1700, E_a = 1 / (1 + 10^0.25). alice: 1700 + 32 (1 - E_a).
    bob meets the other side at (1500 - 1600) + 1700 = 1600: his performance is
    1600 + 400 (1 - 0) / 1 = 2000, his new rating the mean of 1500 (weight 5 + 10 prior games)
    and 2000 (weight 1): (15 * 1500 + 2000) / 16 = 1531.25 (a win: it may not go down).
    """
    system = make_system("club", edition=1)
    players = {"alice": _listed(1700.0, 100), "bob": _listed(1500.0, 5),
               "carol": _listed(1600.0, 100), "dave": _listed(1800.0, 100)}
    game = TeamGame(("alice", "bob"), ("carol", "dave"), 1.0, day(1))
    after = replay(system, [game], players=players).players
    e = 1.0 / (1.0 + 10.0 ** (-(1600.0 - 1700.0) / 400.0))
    assert after["alice"].rating == 1700.0 + 32.0 * (1.0 - e)
    assert after["bob"].rating == (15 * 1500.0 + 1 * 2000.0) / 16 == 1531.25
    assert after["carol"].rating == 1600.0 + 32.0 * (0.0 - (1.0 - e))
    assert after["dave"].rating == 1800.0 + 32.0 * (0.0 - (1.0 - e))


def test_elo_uneven_sides_two_against_three_with_a_size_handicap() -> None:
    """2 v 3 with ``team_size_handicap`` 50: the pair plays at its mean plus 50 points for its
    missing member, and each member of the trio moves by 2/3 of their step.

    A = (1500 + 1600) / 2 + 50 * (3 - 2) = 1600; B = (1500 + 1600 + 1700) / 3 = 1600;
    E = 1/2. The trio wins: each of the pair loses K/2 = 16; each of the trio gains
    2/3 * 32 * (1 - 1/2) = 10.67 (2/3 * 1 - 2/3 * 1/2 times K).
    """
    players = {n: _listed(r, 100) for n, r in
               (("p1", 1500.0), ("p2", 1600.0), ("t1", 1500.0), ("t2", 1600.0), ("t3", 1700.0))}
    game = TeamGame(("p1", "p2"), ("t1", "t2", "t3"), 0.0, day(1), size_handicap=50.0)
    assert side_strength([1500.0, 1600.0], 3, 50.0) == 1600.0
    assert side_strength([1500.0, 1600.0, 1700.0], 2, 50.0) == 1600.0
    assert uneven_ratio(3, 2) == 2 / 3 and uneven_ratio(2, 3) == 1.0
    after = replay(make_system("elo"), [game], players=players).players
    assert after["p1"].rating == 1500.0 - 16.0
    assert after["p2"].rating == 1600.0 - 16.0
    ratio = 2 / 3
    for name, before in (("t1", 1500.0), ("t2", 1600.0), ("t3", 1700.0)):
        assert after[name].rating == before + 32.0 * (ratio * 1.0 - ratio * 0.5)
        assert after[name].rating == pytest.approx(before + 32.0 / 3, abs=1e-9)
    # without the size handicap the pair is weaker (1550 v 1600) and loses less
    plain = replay(make_system("elo"), [TeamGame(("p1", "p2"), ("t1", "t2", "t3"), 0.0,
                                                 day(1))], players=players).players
    assert 1500.0 - 16.0 < plain["p1"].rating < 1500.0


def _glicko2_by_hand(rating: float, deviation: float, volatility: float, opponent: float,
                     opponent_deviation: float, score: float) -> tuple[float, float, float]:
    """One player's period of one game by Glickman's "Example of the Glicko-2 system" (2013),
    steps 2 to 8, tau 0.5, epsilon 0.000001, one period since the last game."""
    scale, tau = 173.7178, 0.5
    mu, phi = (rating - 1500.0) / scale, deviation / scale
    mu_j, phi_j = (opponent - 1500.0) / scale, opponent_deviation / scale
    g = 1.0 / math.sqrt(1.0 + 3.0 * phi_j ** 2 / math.pi ** 2)  # step 3
    e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
    v = 1.0 / (g * g * e * (1.0 - e))
    delta = v * g * (score - e)  # step 4
    a = math.log(volatility ** 2)  # step 5

    def f(x: float) -> float:
        return (math.exp(x) * (delta ** 2 - phi ** 2 - v - math.exp(x))
                / (2.0 * (phi ** 2 + v + math.exp(x)) ** 2) - (x - a) / tau ** 2)

    big_a = a
    if delta ** 2 > phi ** 2 + v:
        big_b = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > 0.000001:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    sigma = math.exp(big_a / 2.0)
    phi_star = math.sqrt(phi ** 2 + sigma ** 2)  # step 6
    phi_new = 1.0 / math.sqrt(1.0 / phi_star ** 2 + 1.0 / v)  # step 7
    mu_new = mu + phi_new ** 2 * g * (score - e)
    return 1500.0 + scale * mu_new, scale * phi_new, sigma  # step 8


def test_glicko2_two_against_two_by_glickmans_steps() -> None:
    """Glickman's example player (1500, RD 200, volatility 0.06) and a partner (1400, RD 50)
    beat 1550 (RD 100) and 1700 (RD 300), every volatility 0.06.

    Side strengths: A = 1450, B = 1625. Each member meets the other side as one opponent rated
    (own - own side) + other side, with the root mean square of its deviations:
    the winners meet (1500 - 1450) + 1625 = 1675 and (1400 - 1450) + 1625 = 1575, deviation
    sqrt((100^2 + 300^2) / 2) = 223.61; the losers (1550 - 1625) + 1450 = 1375 and
    (1700 - 1625) + 1450 = 1525, deviation sqrt((200^2 + 50^2) / 2) = 145.77. Each is then
    rated by steps 2-8 with their own deviation and volatility: ann 1610.13 (RD 183.78),
    ben 1408.40 (50.77), cat 1514.31 (97.82), dan 1476.31 (244.90), volatilities 0.0600.
    """
    players = {
        "ann": PlayerState(1500.0, games=10, deviation=200.0, volatility=0.06, peak=1500.0),
        "ben": PlayerState(1400.0, games=10, deviation=50.0, volatility=0.06, peak=1400.0),
        "cat": PlayerState(1550.0, games=10, deviation=100.0, volatility=0.06, peak=1550.0),
        "dan": PlayerState(1700.0, games=10, deviation=300.0, volatility=0.06, peak=1700.0),
    }
    game = TeamGame(("ann", "ben"), ("cat", "dan"), 1.0, day(1))
    after = replay(make_system("glicko2"), [game], players=players).players
    winners_meet = math.sqrt((100.0 ** 2 + 300.0 ** 2) / 2)
    losers_meet = math.sqrt((200.0 ** 2 + 50.0 ** 2) / 2)
    assert winners_meet == pytest.approx(223.607, abs=1e-3)
    assert losers_meet == pytest.approx(145.774, abs=1e-3)
    expected = {
        "ann": _glicko2_by_hand(1500.0, 200.0, 0.06, 1675.0, winners_meet, 1.0),
        "ben": _glicko2_by_hand(1400.0, 50.0, 0.06, 1575.0, winners_meet, 1.0),
        "cat": _glicko2_by_hand(1550.0, 100.0, 0.06, 1375.0, losers_meet, 0.0),
        "dan": _glicko2_by_hand(1700.0, 300.0, 0.06, 1525.0, losers_meet, 0.0),
    }
    for name, (rating, deviation, volatility) in expected.items():
        state = after[name]
        assert state.rating == pytest.approx(rating, abs=1e-9), name
        assert state.deviation == pytest.approx(deviation, abs=1e-9), name
        assert state.volatility == pytest.approx(volatility, abs=1e-12), name
    # the same expected score for both winners: the curve is read at the sides' difference
    assert after["ann"].rating - 1500.0 > after["ben"].rating - 1400.0  # ann is less certain
    rounded = {name: (round(r, 2), round(d, 2)) for name, (r, d, _) in expected.items()}
    assert rounded == {"ann": (1610.13, 183.78), "ben": (1408.40, 50.77),
                       "cat": (1514.31, 97.82), "dan": (1476.31, 244.90)}


# -- the engine ------------------------------------------------------------------------------


def test_newcomers_of_one_team_game_share_the_pool() -> None:
    """Two newcomers on one side join together when their team game is played and split the
    retirees' pool (SPEC 3.7) as two who join in one period: 200 points, 100 each, so both
    start at 1400. ``club`` edition 1: a draw between sides of equal strength (1400 v 1400)
    leaves a provisional member where they started ((10 * 1400 + 1400) / 11)."""
    system = make_system("club", edition=1)
    players = {"old": PlayerState(1300.0, games=50, peak=1300.0, status=Status.RETIRED),
               "x": _listed(1400.0, 100), "y": _listed(1400.0, 100)}
    game = TeamGame(("new1", "new2"), ("x", "y"), 0.5, day(1))
    result = replay(system, [game], players=players)
    assert result.players["new1"].rating == result.players["new2"].rating == 1400.0
    assert result.pool == 0.0
    joined = replay(system, [RatingPeriod((Join("new1", day(1)), Join("new2", day(1)), game))],
                    players=players)
    assert joined.players == result.players
    # and in the default edition the same shares, then the game
    for steps in ([game], [RatingPeriod((game,))]):
        default = replay(make_system("club"), steps, players=players)
        assert default.pool == 0.0
        assert default.players == replay(make_system("club"), [RatingPeriod((
            Join("new1", day(1)), Join("new2", day(1)), game))], players=players).players


@pytest.mark.parametrize("period", [False, True])
def test_a_retired_members_team_game_is_refused(period: bool) -> None:
    game = TeamGame(("a", "b"), ("c", "d"), 1.0, day(1))
    later = TeamGame(("a", "c"), ("b", "d"), 0.0, day(3))
    steps: list[Step] = [game, Retire("b", day(2)), RatingPeriod((later,)) if period else later]
    with pytest.raises(ReplayError) as raised:
        replay(make_system("elo"), steps)
    assert raised.value.position == 2
    assert "'b' is retired" in raised.value.message
    returned = [game, Retire("b", day(2)), Return("b", day(3)), later]
    assert replay(make_system("elo"), returned).players["b"].games == 2


@pytest.mark.parametrize("name", ["elo", "club", "glicko", "rs-go", "fqe"])
def test_every_member_last_played_at_their_last_game(name: str) -> None:
    steps: list[Step] = [
        TeamGame(("a", "b"), ("c", "d"), 1.0, day(1)),
        TeamGame(("a", "c"), ("e",), 0.5, day(2)),
        Game("b", "e", 1.0, day(3)),
        TeamGame(("d", "e"), ("a", "f"), 0.0, day(4)),
        RatingPeriod((TeamGame(("b", "c"), ("f", "g"), 1.0, day(5)),)),
    ]
    for every in (None, 1, 2):
        players = replay(make_system(name), steps, checkpoint_every=every).players
        last = {n: s.last_played for n, s in players.items()}
        assert last == {"a": day(4), "b": day(5), "c": day(5), "d": day(4), "e": day(4),
                        "f": day(5), "g": day(5)}
        assert {n: s.games for n, s in players.items()} == {
            "a": 3, "b": 3, "c": 3, "d": 2, "e": 3, "f": 2, "g": 1}


def test_a_period_mixes_singles_and_team_games() -> None:
    """Rated together from the ratings held before the period: a member's games of both kinds
    add up as two games of one period (``elo``: one tally)."""
    players = {n: _listed(r, 100) for n, r in (("a", 1500.0), ("b", 1600.0), ("c", 1550.0),
                                                ("d", 1450.0))}
    period = RatingPeriod((Game("a", "b", 1.0, day(1)),
                           TeamGame(("a", "c"), ("b", "d"), 0.0, day(1))))
    after = replay(make_system("elo"), [period], players=players).players
    e_single = 1.0 / (1.0 + 10.0 ** (-(1500.0 - 1600.0) / 400.0))
    e_team = 1.0 / (1.0 + 10.0 ** (-(1525.0 - 1525.0) / 400.0))
    assert e_team == 0.5
    assert after["a"].rating == 1500.0 + 32.0 * ((1.0 + 0.0) - (e_single + e_team))
    assert after["a"].games == 102


def test_tactics_refuses_team_games_and_every_game_system_checks_them() -> None:
    game = TeamGame(("a", "b"), ("c", "d"), 1.0, day(1), handicap=2.0)
    with pytest.raises(ValueError, match="team games"):
        make_system("tactics").check(game)
    for name, cls in PRESETS.items():
        if cls.rates_teams:
            make_system(name).check(game)


# -- prediction and evaluation -------------------------------------------------------------------


def test_a_team_game_is_predicted_once_from_the_sides_strengths() -> None:
    game = TeamGame(("a", "b"), ("c", "d", "e"), 1.0, day(1), handicap=20.0, first_move=1,
                    size_handicap=30.0)
    side_a = [_listed(1500.0, 10, deviation=80.0), _listed(1700.0, 10, deviation=60.0)]
    side_b = [_listed(1600.0, 10, deviation=50.0), _listed(1500.0, 10, deviation=70.0),
              _listed(1400.0, 10, deviation=90.0)]
    elo = make_system("elo", {"first_move_advantage": "10"})
    # A = 1600 + 30 (one missing member), B = 1500; h = 20 - 10 (side_a moved first)
    assert elo.predict_sides(game, side_a, side_b) == 1.0 / (
        1.0 + 10.0 ** (-(1630.0 - 1500.0 - 10.0) / 400.0))
    glicko = make_system("glicko")
    a = PlayerState(1630.0, deviation=side_deviation([80.0, 60.0]))
    b = PlayerState(1500.0, deviation=side_deviation([50.0, 70.0, 90.0]))
    assert glicko.predict_sides(game, side_a, side_b) == glicko.expected_score(a, b, 20.0)
    assert a.deviation == math.sqrt(5000.0)
    # sides of one predict as the game of one against one
    single = Game("a", "c", 1.0, day(1), 20.0, None, 1)
    one = TeamGame(("a",), ("c",), 1.0, day(1), 20.0, 1)
    for name, cls in PRESETS.items():
        if cls.rates_teams:
            system = make_system(name)
            assert system.predict_sides(one, side_a[:1], side_b[:1]) == system.predict(
                single, side_a[0], side_b[0]), name


def test_evaluation_scores_one_prediction_per_team_game() -> None:
    steps: list[Step] = []
    for n in range(40):
        if n % 3 == 0:
            steps.append(Game(f"p{n % 5}", f"p{(n + 1) % 5}", 1.0, day(n)))
        elif n % 3 == 1:
            steps.append(TeamGame((f"p{n % 5}", f"p{(n + 2) % 5}"),
                                  (f"p{(n + 1) % 5}", f"p{(n + 3) % 5}"), 0.5, day(n)))
        else:
            steps.append(RatingPeriod((
                TeamGame((f"p{n % 5}",), (f"p{(n + 1) % 5}", f"p{(n + 2) % 5}"), 0.0, day(n)),
                Game(f"p{(n + 3) % 5}", f"p{(n + 4) % 5}", 1.0, day(n)))))
    games = sum(len(games_of(step)) for step in steps)
    assert games == 14 + 13 + 2 * 13
    for name, cls in PRESETS.items():
        if cls.rates_teams:
            scores = evaluate(make_system(name), steps, test_fraction=1.0)
            assert scores.games == games, name
            assert math.isfinite(scores.logloss), name


# -- the systems with handicaps and events ------------------------------------------------------


def test_shogi24_and_taisen_move_each_member_by_the_change_between_the_sides() -> None:
    """``shogi24``: A = (1500 + 1700) / 2 = 1600, B = (1600 + 1800) / 2 = 1700; side_a wins:
    32 (1 - (0.5 + (1600 - 1700) / 800)) = 20 whole points to each winner, from each loser.
    ``taisen`` 2 v 3 of 1500s: K 24, 24 (1 - 1/2) = 12 to each of the pair; each of the trio
    loses 2/3 of 12 = 8 (rounded half away from zero, a whole number as every change)."""
    players = {n: _listed(r, 10) for n, r in (("a", 1500.0), ("b", 1700.0), ("c", 1600.0),
                                               ("d", 1800.0))}
    after = replay(make_system("shogi24"), [TeamGame(("a", "b"), ("c", "d"), 1.0, day(1))],
                   players=players).players
    assert {n: s.rating for n, s in after.items()} == {"a": 1520.0, "b": 1720.0, "c": 1580.0,
                                                       "d": 1780.0}
    five = {n: _listed(1500.0, 10) for n in ("p", "q", "x", "y", "z")}
    after = replay(make_system("taisen"), [TeamGame(("p", "q"), ("x", "y", "z"), 1.0, day(1))],
                   players=five).players
    assert {n: s.rating for n, s in after.items()} == {"p": 1512.0, "q": 1512.0, "x": 1492.0,
                                                       "y": 1492.0, "z": 1492.0}


def test_fqe_rates_a_team_game_inside_its_event() -> None:
    """Permanent players (100 games): each member's expectation is read from the federation's
    table at the sides' difference, 1600 - 1700 = -100: 36 % for side_a (64 % for side_b);
    a win gives 32 (1 - 0.36) = 20.48 -> 20 points to each winner, and each loser loses
    32 (0 - 0.64) = -20.48 -> 20. In the same event alice also beats eric (1700): her
    expectation there is 50 %, so her event's gain is 32 (2 - 0.86) = 36.48 -> 36."""
    players = {n: _listed(r, 100) for n, r in (("alice", 1700.0), ("bob", 1500.0),
                                               ("carol", 1600.0), ("dave", 1800.0),
                                               ("eric", 1700.0))}
    event = RatingPeriod((TeamGame(("alice", "bob"), ("carol", "dave"), 1.0, day(1)),
                          Game("alice", "eric", 1.0, day(1))))
    after = replay(make_system("fqe"), [event], players=players).players
    assert {n: s.rating for n, s in after.items()} == {
        "alice": 1736.0, "bob": 1520.0, "carol": 1580.0, "dave": 1780.0, "eric": 1684.0}
    assert after["alice"].games == 102


def test_rs_go_rates_a_team_game_inside_its_tournament() -> None:
    """The winners gain, the losers lose, and a member's expected score is the sides' (the
    other side as the member meets it); a side of one is a player (the property test)."""
    players = {n: PlayerState(r, games=20, deviation=60.0, peak=r)
               for n, r in (("a", 1900.0), ("b", 1700.0), ("c", 1800.0), ("d", 1800.0))}
    after = replay(make_system("rs-go"), [TeamGame(("a", "b"), ("c", "d"), 1.0, day(1))],
                   players=players).players
    assert after["a"].rating > 1900.0 and after["b"].rating > 1700.0
    assert after["c"].rating < 1800.0 and after["d"].rating < 1800.0
    assert all(s.games == 21 for s in after.values())


def test_the_table_stamps_every_member_of_team_games_in_order() -> None:
    table = Table()
    for name in "abcdef":
        table.add(name, _listed(1500.0, 1))
    games = [TeamGame(("a", "b"), ("c", "d"), 1.0, day(1)), Game("a", "e", 0.0, day(2)),
             TeamGame(("f",), ("b", "c", "d"), 0.5, day(3)), Game("d", "a", 1.0, day(4))]
    table.stamp_last_played(games)  # both kinds in one list
    assert [table.last_played(i) for i in range(6)] == [day(4), day(3), day(3), day(4), day(2),
                                                        day(3)]
    table.stamp_last_played(games[2:3])  # team games only
    assert table.last_played(5) == day(3)
