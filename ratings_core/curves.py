"""Expected-score curves: the chance-weighted score of the first player.

``difference`` is always the first player's rating minus the second's, after any handicap.

Sources: seed 000 (מד כושר: the logistic model, Elo's normal model), seed 002 (イロレーティング:
the logistic table and the linear simplification of Shogi Club 24), seed 004 (the normal curve
with standard deviation 282.84 used by FIDE, the ECF's linear one), SPEC 3.1.
"""

from __future__ import annotations

import math

#: a 400-point difference means 10:1 odds on the logistic curve (seed 000)
LOGISTIC_SCALE = 400.0
#: Elo's normal model: each performance has sd 200, so a difference has sd 200*sqrt(2) (seed 004)
NORMAL_SD = 200.0 * math.sqrt(2.0)
#: the linear curve reaches certainty at an 400-point difference (seed 002, seed 004)
LINEAR_SPAN = 800.0


def logistic_expected(difference: float) -> float:
    """E = 1 / (1 + 10^(-difference/400)).

    Source: seed 000 (odds 10^(R1/400) : 10^(R2/400)); seed 002 table; SPEC 3.1.
    """
    try:
        odds: float = 10.0 ** (-difference / LOGISTIC_SCALE)
    except OverflowError:  # odds beyond 1e308 against the first player: E is 0 in floats
        return 0.0
    return 1.0 / (1.0 + odds)


def normal_expected(difference: float) -> float:
    """E = Phi(difference / 282.84), Elo's original normal model.

    Source: seed 000 (the first model assumed normally distributed performances); seed 004
    (FIDE's cumulative normal with standard deviation 282.84); SPEC 3.1.
    """
    return 0.5 * math.erfc(-difference / (NORMAL_SD * math.sqrt(2.0)))


def linear_expected(difference: float) -> float:
    """E = 0.5 + difference / 800, clipped to [0, 1].

    Source: seed 002 (簡易イロレーティング table: 0->50 %, 400->100 %); seed 004 (ECF's linear
    approximation 0.5 + d/800); SPEC 3.1.
    """
    return min(1.0, max(0.0, 0.5 + difference / LINEAR_SPAN))
