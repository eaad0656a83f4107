"""Glicko-1 (``glicko``): a rating plus a rating deviation (RD) that shrinks with play and grows
with time away.

Sources: M. E. Glickman, "Parameter estimation in large dynamic paired comparison experiments",
Applied Statistics 48 (1999) 377-394, and his summary "The Glicko system" (glicko.net), whose
worked example (1500/RD 200 against 1400/30, 1550/100, 1700/300 -> 1464, RD 151.4) is pinned in
``tests/core/test_glicko.py``; seed 002 (イロレーティング: Glicko shows how reliable a rating is by
its RD); SPEC 3.9.

Departure from the paper, marked where it happens: time reaches the core only as arguments, so
"rating periods since the last game" is the elapsed time divided by ``period_days`` (a float,
as lichess counts fractional periods) instead of a whole number of calendar periods, and a
player's RD grows lazily when they next play rather than at the end of every period.

Glickman's formulas that Glicko-2 and the ``club`` default share with it (q, g(RD), E, the
periods since a game, a deviation's growth) are in :mod:`ratings_core.glickman`; this module
holds Glicko-1's update and the system, and what Glicko-2 builds on (:class:`DeviationSystem`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import Field, dataclass
from datetime import date, datetime
from typing import Any, ClassVar, Protocol

from .glickman import (
    Q,
    attenuation,
    check_deviation,
    check_rating,
    clamp,
    elapsed_periods,
    expected_score,
    grow_deviation,
)
from .model import Match, PlayerState, TeamGame
from .parameters import first_move_param, param, require
from .sides import (
    PeriodRatio,
    members,
    met_rating,
    scaled_change,
    side_deviation,
    strengths,
    uneven_ratio,
)
from .system import RatingSystem, widened_deviation
from .table import Table, moment_of

Result = tuple[float, float, float]
"""One game of a period seen from the rated player: (opponent_rating, opponent_deviation, score).

A handicap is already folded into ``opponent_rating`` (see :func:`handicap_results`)."""

# -- rules --------------------------------------------------------------------------------------


def glicko_update(
    rating: float, deviation: float, results: Iterable[Result]
) -> tuple[float, float]:
    """The rating and RD after one rating period, from the pre-period ``rating`` and
    ``deviation`` (already grown for time away) and the period's ``results``.

    Every game moves the rating by g(RD_j) (s - E) weighted by q / (1/RD^2 + 1/d^2), where
    1/d^2 = q^2 sum g^2 E (1 - E) is the information the period's games carry; the RD shrinks
    to sqrt(1 / (1/RD^2 + 1/d^2)). No games: nothing changes.

    Source: Glickman, "The Glicko system", step 2 (d^2, r', RD'); Glickman 1999, eqs. (8)-(9).
    """
    check_rating(rating, "rating")
    check_deviation(deviation, "deviation")
    information = 0.0  # 1/d^2
    surplus = 0.0  # sum g(RD_j) (s_j - E_j)
    for opponent_rating, opponent_deviation, score in results:
        _check_result(opponent_rating, opponent_deviation, score)
        g = attenuation(opponent_deviation)
        e = expected_score(rating, opponent_rating, opponent_deviation)
        information += g * g * e * (1.0 - e)
        surplus += g * (score - e)
    precision = 1.0 / (deviation * deviation) + Q * Q * information
    return rating + Q / precision * surplus, math.sqrt(1.0 / precision)


def handicap_results(
    games: Sequence[Match],
    index: dict[str, int],
    rating: Sequence[float],
    deviation: dict[int, float],
    handicap_of: Callable[[Match], float] = lambda game: game.handicap,
    ratios: PeriodRatio | None = None,
) -> dict[int, list[Result]]:
    """Every participant's results, each player seen from their own side of the board.

    A handicap (rating points, positive when player_a gives it) narrows the giver's rating
    difference: player_a plays as if facing r_b + h, player_b as if facing r_a - h, so both use
    r_a - r_b - h. ``deviation`` holds each participant's pre-period deviation; ``handicap_of``
    folds in the first-move advantage (:meth:`RatingSystem.handicap_of`). A team game gives
    each member a result by :func:`team_results`, counting its uneven ratio in ``ratios``.
    Source: SPEC 3.4 (seed 001: the handicap narrows the difference; seed 002: TAISEN).
    """
    results: dict[int, list[Result]] = {}
    for game in games:
        if isinstance(game, TeamGame):
            team_results(results, game, index, rating, deviation, handicap_of(game), ratios)
            continue
        a = index[game.player_a]
        b = index[game.player_b]
        h = handicap_of(game)
        s = game.score_a
        results.setdefault(a, []).append((rating[b] + h, deviation[b], s))
        results.setdefault(b, []).append((rating[a] - h, deviation[a], 1.0 - s))
    return results


def team_results(results: dict[int, list[Result]], game: TeamGame, index: dict[str, int],
                 rating: Sequence[float], deviation: dict[int, float], h: float,
                 ratios: PeriodRatio | None) -> None:
    """A team game's results: each member meets the other side as one opponent, rated as the
    member meets it (:func:`ratings_core.sides.met_rating`, + h for side_a and - h for side_b
    as for two players) and with the root mean square of its members' pre-period deviations;
    each member keeps their own deviation (and volatility) for the update.

    Source: issue 37 ("Glicko and Glicko-2, their own deviation (and volatility) against the
    other side taken as one opponent whose rating is the mean and whose deviation is the root
    mean square of its members'"); :mod:`ratings_core.sides`.
    """
    side_a, side_b = members(game, index)
    a_strength, b_strength = strengths(game, rating, index)
    s = game.score_a
    for own, other, own_strength, other_strength, shift, score in (
            (side_a, side_b, a_strength, b_strength, h, s),
            (side_b, side_a, b_strength, a_strength, -h, 1.0 - s)):
        other_deviation = side_deviation([deviation[j] for j in other])
        ratio = uneven_ratio(len(own), len(other))
        for i in own:
            met = met_rating(rating[i], own_strength, other_strength)
            results.setdefault(i, []).append((met + shift, other_deviation, score))
            if ratios is not None:
                ratios.count(i, ratio)


def _check_result(opponent_rating: float, opponent_deviation: float, score: float) -> None:
    check_rating(opponent_rating, "results: opponent_rating")
    check_deviation(opponent_deviation, "results: opponent_deviation")
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"results: score must be within 0..1, not {score!r}")


# -- the system ------------------------------------------------------------------------------


def check_deviation_bounds(
    initial: float, initial_deviation: float, min_deviation: float, max_deviation: float
) -> None:
    """The checks Glicko and Glicko-2 parameters share: a finite start, and
    0 < min_deviation <= initial_deviation <= max_deviation < infinity.

    Source: Glickman 1999 (RD between a floor and the spread of all players, 350).
    """
    require(math.isfinite(initial), "initial", "must be a finite number")
    require(min_deviation > 0, "min_deviation", "must be positive")
    require(min_deviation <= max_deviation < math.inf, "max_deviation",
            "must be finite and >= min_deviation")
    require(min_deviation <= initial_deviation <= max_deviation, "initial_deviation",
            "must lie within min_deviation..max_deviation")


@dataclass(frozen=True, slots=True)
class GlickoParams:
    initial: float = param(1500.0, "starting rating of a newcomer (Glickman: unrated -> 1500)",
                           low=0, high=4000)
    initial_deviation: float = param(
        350.0, "starting RD of a newcomer (Glickman: unrated -> 350, the spread of all players)",
        low=1, high=1000,
    )
    max_deviation: float = param(
        350.0, "RD never grows past a newcomer's (Glickman step 1: min(..., 350))",
        low=1, high=1000,
    )
    min_deviation: float = param(
        30.0,
        "RD floor after every update (ours): the RD never collapses, so a very active "
        "player's rating keeps moving (lichess uses 45)",
        low=1, high=1000,
    )
    c: float = param(
        63.2,
        "RD growth per rating period (Glickman's example: from a typical RD of 50 back to 350 "
        "in 30 periods, c = sqrt((350^2 - 50^2) / 30) = 63.2)",
        low=0, high=1000,
    )
    period_days: float = param(
        30.0, "length of one rating period in days (ours: a club month); elapsed time / this = t",
        low=1, high=365,
    )
    provisional_deviation: float = param(
        110.0,
        "RD above which a rating is shown as provisional (lichess: 110, where the 95% interval "
        "r +/- 2 RD is wider than +/- 220 points, more than a 200-point class either side)",
        low=0, high=1000,
    )
    first_move_advantage: float = first_move_param()

    def __post_init__(self) -> None:
        check_deviation_bounds(self.initial, self.initial_deviation, self.min_deviation,
                               self.max_deviation)
        require(0 <= self.c < math.inf, "c", "must be a finite number >= 0")
        require(0 < self.period_days < math.inf, "period_days", "must be positive")
        require(self.provisional_deviation >= 0, "provisional_deviation", "must be >= 0")


def record(
    table: Table,
    i: int,
    rating: float,
    deviation: float,
    volatility: float | None,
    games: int,
    when: datetime,
) -> None:
    """Write one player's post-period values into the table (rating, RD, games, peak, date).

    Source: ratings_core/system.py (what ``rate_period`` must update); SPEC 3.9.
    """
    table.rating[i] = rating
    table.deviation[i] = deviation
    if volatility is not None:
        table.volatility[i] = volatility
    table.games[i] += games
    if rating > table.peak[i]:
        table.peak[i] = rating
    table.last_moment[i] = moment_of(when)


glicko_expected = expected_score


class DeviationParams(Protocol):
    #: a parameter dataclass (a ParameterSet, as RatingSystem.params is)
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def initial_deviation(self) -> float: ...

    @property
    def provisional_deviation(self) -> float: ...

    @property
    def first_move_advantage(self) -> float: ...


class DeviationSystem(RatingSystem):
    """What Glicko and Glicko-2 share: a rating is provisional while its deviation is large,
    and a game is predicted with both players' deviations.

    Source: Glickman 1999; "The Glicko system".
    """

    params: DeviationParams

    @property
    def first_move_advantage(self) -> float:
        return self.params.first_move_advantage

    def _deviation(self, state: PlayerState) -> float:
        return self.params.initial_deviation if state.deviation is None else state.deviation

    def is_provisional(self, state: PlayerState) -> bool:
        return self._deviation(state) > self.params.provisional_deviation

    def season_deviation(self, state: PlayerState, factor: float) -> float | None:
        """Widened toward a newcomer's, below the provisional mark for an established rating
        (:func:`ratings_core.system.widened_deviation`). Source: issue 38 and its errata."""
        p = self.params
        return widened_deviation(self._deviation(state), p.initial_deviation,
                                 p.provisional_deviation, factor)

    def expected_score(self, player: PlayerState, opponent: PlayerState,
                       handicap: float = 0.0) -> float:
        """Glickman's predictive probability: the logistic curve damped by g of the combined
        deviation sqrt(RD^2 + RD_opp^2). Source: Glickman, "The Glicko system" (expected
        outcome of a game between two rated players)."""
        combined = math.hypot(self._deviation(player), self._deviation(opponent))
        return glicko_expected(player.rating - handicap, opponent.rating, combined)


class Glicko(DeviationSystem):
    """``glicko``: Glickman's Glicko-1 with fractional rating periods and bounded RD.

    Each period: every participant's RD grows for the time since their last game (step 1),
    then all are rated together from the pre-period values (step 2), then RDs are held within
    [min_deviation, max_deviation]. Players without games in the period are not touched; their
    RD catches up when they next play (:meth:`current_deviation` shows it meanwhile).

    Source: Glickman 1999; "The Glicko system"; seed 002; SPEC 3.9.
    """

    name = "glicko"
    params: GlickoParams

    def __init__(self, params: GlickoParams | None = None) -> None:
        self.params = params or GlickoParams()

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        p = self.params
        return PlayerState(
            rating=p.initial, deviation=p.initial_deviation, peak=p.initial, birth_date=birth_date
        )

    def adopt(self, state: PlayerState) -> PlayerState:
        if state.deviation is None:
            return dataclasses.replace(state, deviation=self.params.initial_deviation)
        return state

    def current_deviation(self, state: PlayerState, when: datetime) -> float:
        """The RD the player would enter a period at ``when`` with (step 1), within bounds."""
        p = self.params
        deviation = p.initial_deviation if state.deviation is None else state.deviation
        t = elapsed_periods(when, state.last_played, p.period_days)
        return self._pre_period(deviation, t)

    def _pre_period(self, deviation: float, t: float) -> float:
        p = self.params
        grown = grow_deviation(
            clamp(deviation, p.min_deviation, p.max_deviation), p.c, t, p.max_deviation
        )
        return clamp(grown, p.min_deviation, p.max_deviation)

    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """Steps 1 and 2 of Glicko for every participant, from pre-period values, then write.
        A member of a side meets the other side as one opponent (:func:`team_results`); one
        of the larger of uneven sides moves by the period's ratio of their change.

        Source: Glickman, "The Glicko system", steps 1-2; SPEC 3.9; issue 37 (Choice: Glicko's
        update is no sum of steps, so the uneven ratio scales the rating's change over the
        period, :class:`ratings_core.sides.PeriodRatio`; the deviation shrinks in full).
        """
        p = self.params
        index = table.index
        pre: dict[int, float] = {}
        for game in games:
            for name in (game.side_a + game.side_b if isinstance(game, TeamGame)
                         else (game.player_a, game.player_b)):
                i = index[name]
                if i not in pre:
                    stored = table.deviation[i]
                    deviation = p.initial_deviation if stored is None else stored
                    t = elapsed_periods(when, table.last_played(i), p.period_days)
                    pre[i] = self._pre_period(deviation, t)
        ratios = PeriodRatio()
        results = handicap_results(games, index, table.rating, pre, self.handicap_of, ratios)
        updates = []
        for i, own in results.items():
            rating, deviation = glicko_update(table.rating[i], pre[i], own)
            rating = scaled_change(table.rating[i], rating, ratios.of(i, len(own)))
            deviation = clamp(deviation, p.min_deviation, p.max_deviation)
            updates.append((i, rating, deviation, len(own)))
        for i, rating, deviation, n in updates:
            record(table, i, rating, deviation, None, n, when)
