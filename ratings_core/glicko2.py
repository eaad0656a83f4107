"""Glicko-2 (``glicko2``): Glicko's rating and deviation plus a volatility that measures how
erratically a player performs.

Sources: M. E. Glickman, "Example of the Glicko-2 system" (glicko.net, 2013), steps 1-8 and its
worked example (1500/RD 200/volatility 0.06 against 1400/30, 1550/100, 1700/300 with tau 0.5 ->
1464.06, RD 151.52, volatility 0.05999), pinned in ``tests/core/test_glicko.py``; Glickman,
"Dynamic paired comparison models with stochastic variances", Journal of Applied Statistics 28
(2001) 673-689; seed 002 (Glicko); SPEC 3.9.

Departures from the paper, marked where they happen:
- step 6 widens the deviation by t rating periods since the player's last game, t a float
  (elapsed time / ``period_days``, as lichess does), instead of once per calendar period for
  everyone; for t = 1 it is the paper's step;
- the widened deviation phi* never exceeds ``max_deviation`` (as Glicko-1's step 1 caps RD);
- deviations are held within [min_deviation, max_deviation] and the volatility within
  (0, max_volatility] after every update, so that outputs stay finite and sane.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from .glickman import clamp, elapsed_periods, grow_deviation, logistic
from .glicko import (
    DeviationSystem,
    Result,
    check_deviation_bounds,
    handicap_results,
    record,
)
from .model import Match, PlayerState, TeamGame
from .parameters import first_move_param, param, require
from .sides import PeriodRatio, scaled_change
from .table import Table

#: rating points per Glicko-2 unit: 400 / ln 10, as the paper rounds it (step 2)
SCALE = 173.7178
#: stop the volatility iteration when the bracket is this narrow (the paper's epsilon)
CONVERGENCE_TOLERANCE = 1e-6
#: the volatility iteration never runs longer than this (ours: it converges within ten)
MAX_ITERATIONS = 100
#: games whose estimated variance v exceeds this say nothing measurable about volatility
#: (reached only for rating gaps of some 20,000 points, where every expected score is 0 or 1);
#: beyond it floats would overflow in step 5, so the volatility is kept (ours)
MAX_VARIANCE = 1e50

# -- rules --------------------------------------------------------------------------------------


def new_volatility(
    deviation: float,
    volatility: float,
    variance: float,
    improvement: float,
    *,
    tau: float,
    tolerance: float = CONVERGENCE_TOLERANCE,
    max_iterations: int = MAX_ITERATIONS,
) -> float:
    """The volatility after a period (step 5), all in the Glicko-2 scale: the root of
    f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - ln sigma^2) / tau^2,
    found by the Illinois variant of regula falsi, with x = ln sigma'^2.

    ``deviation`` is phi, ``variance`` v (step 3), ``improvement`` Delta (step 4). The iteration
    stops at ``tolerance`` or after ``max_iterations`` rounds (ours), returning the bracket's
    best end either way; games with no measurable evidence (v above ``MAX_VARIANCE``) keep the
    volatility (ours).
    Source: Glickman, "Example of the Glicko-2 system" (2013), step 5.1-5.5.
    """
    if not (math.isfinite(tau) and tau > 0):
        raise ValueError(f"tau must be a positive number, not {tau!r}")
    if not (math.isfinite(volatility) and volatility > 0):
        raise ValueError(f"volatility must be a positive finite number, not {volatility!r}")
    if not variance > 0:
        raise ValueError(f"variance must be positive, not {variance!r}")
    if variance > MAX_VARIANCE:
        return volatility
    if not math.isfinite(improvement):
        raise ValueError(f"improvement must be a finite number, not {improvement!r}")
    # Greek block: the paper's step 5, symbol for symbol.
    phi2 = deviation * deviation
    v = variance
    delta2 = improvement * improvement
    a = math.log(volatility * volatility)
    tau2 = tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / tau2

    # Step 5.2: bracket the root.
    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0.0 and k < max_iterations:
            k += 1
        big_b = a - k * tau
    # Step 5.3-5.4: Illinois iteration.
    f_a = f(big_a)
    f_b = f(big_b)
    for _ in range(max_iterations):
        if abs(big_b - big_a) <= tolerance or f_b == f_a:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0.0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    # Step 5.5.
    return math.exp(big_a / 2.0)


def glicko2_update(
    rating: float,
    deviation: float,
    volatility: float,
    results: Iterable[Result],
    *,
    tau: float,
    max_deviation: float,
    elapsed: float = 1.0,
    tolerance: float = CONVERGENCE_TOLERANCE,
    max_iterations: int = MAX_ITERATIONS,
) -> tuple[float, float, float]:
    """The rating, deviation and volatility after one rating period (rating scale in and out).

    ``results`` are (opponent_rating, opponent_deviation, score) from the period; ``elapsed``
    is the number of rating periods since the player's last game (1 in the paper). With no
    games only the deviation widens (the paper's rule for players who did not compete).

    Departure (marked): step 6 widens phi by ``elapsed`` periods of the new volatility,
    phi* = sqrt(phi^2 + t sigma'^2), and caps it at ``max_deviation``; rating differences are
    taken directly (r_j - r) / 173.7178 so that moving every rating by a constant moves the
    result by exactly that constant.
    Source: Glickman, "Example of the Glicko-2 system" (2013), steps 2-8.
    """
    if not math.isfinite(rating):
        raise ValueError(f"rating must be a finite number, not {rating!r}")
    if not (math.isfinite(deviation) and deviation > 0):
        raise ValueError(f"deviation must be a positive finite number, not {deviation!r}")
    if not (math.isfinite(volatility) and volatility > 0):
        raise ValueError(f"volatility must be a positive finite number, not {volatility!r}")
    if not (math.isfinite(elapsed) and elapsed >= 0):
        raise ValueError(f"elapsed must be a finite number >= 0, not {elapsed!r}")
    if not (math.isfinite(max_deviation) and max_deviation > 0):
        raise ValueError(f"max_deviation must be a positive finite number, not {max_deviation!r}")
    # Greek block: the paper's steps 2-8 in the Glicko-2 scale.
    phi = deviation / SCALE
    sigma = volatility
    information = 0.0  # 1 / v
    surplus = 0.0  # sum g(phi_j) (s_j - E_j); Delta = v * surplus
    for opponent_rating, opponent_deviation, score in results:
        if not math.isfinite(opponent_rating):
            raise ValueError(f"results: opponent_rating must be finite, not {opponent_rating!r}")
        if not (math.isfinite(opponent_deviation) and opponent_deviation > 0):
            raise ValueError(
                f"results: opponent_deviation must be positive, not {opponent_deviation!r}"
            )
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"results: score must be within 0..1, not {score!r}")
        phi_j = opponent_deviation / SCALE
        g = 1.0 / math.sqrt(1.0 + 3.0 * phi_j * phi_j / (math.pi * math.pi))  # step 3
        e = logistic(g * (rating - opponent_rating) / SCALE)  # E(mu, mu_j, phi_j)
        information += g * g * e * (1.0 - e)
        surplus += g * (score - e)
    if information * MAX_VARIANCE > 1.0:
        v = 1.0 / information  # step 3
        sigma_new = new_volatility(  # steps 4-5
            phi, sigma, v, v * surplus, tau=tau, tolerance=tolerance,
            max_iterations=max_iterations,
        )
    else:
        sigma_new = sigma  # no games, or none with measurable information: volatility kept
    # Step 6 (departure: elapsed periods, capped at max_deviation); grow_deviation is
    # Glicko-1's step 1 with c = sigma' in rating points per period.
    phi_star = grow_deviation(deviation, sigma_new * SCALE, elapsed, max_deviation) / SCALE
    # Step 7.
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + information)
    mu_change = phi_new * phi_new * surplus
    # Step 8.
    return rating + SCALE * mu_change, SCALE * phi_new, sigma_new


# -- the system ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Glicko2Params:
    initial: float = param(1500.0, "starting rating of a newcomer (Glickman 2013 step 1: 1500)",
                           low=0, high=4000)
    initial_deviation: float = param(
        350.0, "starting RD of a newcomer (Glickman 2013 step 1: 350)", low=1, high=1000,
    )
    initial_volatility: float = param(
        0.06, "starting volatility of a newcomer (Glickman 2013 step 1: 0.06)",
        low=0.001, high=1,
    )
    tau: float = param(
        0.5,
        "how fast volatility may change (Glickman 2013: choose 0.3..1.2, smaller is steadier; "
        "0.5 is his example's value)",
        low=0.05, high=2,
    )
    max_deviation: float = param(
        350.0, "RD never exceeds a newcomer's, not even after long absence (as Glicko-1)",
        low=1, high=1000,
    )
    min_deviation: float = param(
        30.0, "RD floor after every update (ours, as glicko): a rating never freezes",
        low=1, high=1000,
    )
    max_volatility: float = param(
        0.1,
        "volatility ceiling after every update (lichess and liglicko2: 0.1, past which a "
        "rating may never settle again)",
        low=0.001, high=1,
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
        require(0 < self.max_volatility < math.inf, "max_volatility", "must be positive")
        require(
            0 < self.initial_volatility <= self.max_volatility,
            "initial_volatility", "must be positive and at most max_volatility",
        )
        require(0 < self.tau < math.inf, "tau", "must be positive")
        require(0 < self.period_days < math.inf, "period_days", "must be positive")
        require(self.provisional_deviation >= 0, "provisional_deviation", "must be >= 0")


class Glicko2(DeviationSystem):
    """``glicko2``: Glickman's Glicko-2 with fractional rating periods and bounded values.

    Each period rates every participant from the pre-period values of all (opponents enter with
    their stored deviations, as at lichess); a participant's own deviation widens in step 6 for
    the time since their last game. Players without games are not touched.

    Source: Glickman, "Example of the Glicko-2 system" (2013); seed 002; SPEC 3.9.
    """

    name = "glicko2"
    params: Glicko2Params

    def __init__(self, params: Glicko2Params | None = None) -> None:
        self.params = params or Glicko2Params()

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        p = self.params
        return PlayerState(
            rating=p.initial, deviation=p.initial_deviation, volatility=p.initial_volatility,
            peak=p.initial, birth_date=birth_date,
        )

    def adopt(self, state: PlayerState) -> PlayerState:
        p = self.params
        if state.deviation is None or state.volatility is None:
            return dataclasses.replace(
                state,
                deviation=p.initial_deviation if state.deviation is None else state.deviation,
                volatility=p.initial_volatility if state.volatility is None else state.volatility,
            )
        return state

    def current_deviation(self, state: PlayerState, when: datetime) -> float:
        """The deviation widened to ``when`` by the stored volatility (step 6 without games)."""
        p = self.params
        deviation, volatility = self._stored(state.deviation, state.volatility)
        t = elapsed_periods(when, state.last_played, p.period_days)
        return clamp(
            grow_deviation(deviation, volatility * SCALE, t, p.max_deviation),
            p.min_deviation, p.max_deviation,
        )

    def _stored(self, deviation: float | None, volatility: float | None) -> tuple[float, float]:
        """A stored deviation and volatility, filled when missing and held within bounds."""
        p = self.params
        d = p.initial_deviation if deviation is None else deviation
        s = p.initial_volatility if volatility is None else volatility
        # A stored volatility of 0 would break step 5's ln sigma^2: keep it a hair above.
        return clamp(d, p.min_deviation, p.max_deviation), clamp(s, 1e-12, p.max_volatility)

    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """Steps 1-8 for every participant from the pre-period values of all, then write.
        A member of a side meets the other side as one opponent
        (:func:`ratings_core.glicko.team_results`) with their own deviation and volatility;
        one of the larger of uneven sides moves by the period's ratio of their change.

        Source: Glickman, "Example of the Glicko-2 system" (2013); SPEC 3.9; issue 37 (Choice:
        the update is no sum of steps, so the uneven ratio scales the rating's change over the
        period, :class:`ratings_core.sides.PeriodRatio`; deviation and volatility as computed).
        """
        p = self.params
        index = table.index
        stored: dict[int, tuple[float, float]] = {}
        for game in games:
            for name in (game.side_a + game.side_b if isinstance(game, TeamGame)
                         else (game.player_a, game.player_b)):
                i = index[name]
                if i not in stored:
                    stored[i] = self._stored(table.deviation[i], table.volatility[i])
        deviations = {i: d for i, (d, _) in stored.items()}
        ratios = PeriodRatio()
        results = handicap_results(games, index, table.rating, deviations, self.handicap_of,
                                   ratios)
        updates = []
        for i, own in results.items():
            deviation, volatility = stored[i]
            rating, deviation, volatility = glicko2_update(
                table.rating[i], deviation, volatility, own, tau=p.tau,
                max_deviation=p.max_deviation,
                elapsed=elapsed_periods(when, table.last_played(i), p.period_days),
            )
            rating = scaled_change(table.rating[i], rating, ratios.of(i, len(own)))
            updates.append((
                i, rating, clamp(deviation, p.min_deviation, p.max_deviation),
                min(volatility, p.max_volatility), len(own),
            ))
        for i, rating, deviation, volatility, n in updates:
            record(table, i, rating, deviation, volatility, n, when)
