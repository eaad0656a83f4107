"""Glickman's shared formulas: q, g(RD), the logistic curve, the expected score, time away and
a deviation's growth, each with its argument checks.

They are the mathematics that Glicko (``glicko.py``), Glicko-2 (``glicko2.py``) and the
``club`` default's uncertainty rule (``evidence.py``, ``club.py``) share, kept apart from any
rating system so that each of those imports them from here and none from another system.
A leaf of the package: it imports nothing of ratings_core.

Sources: M. E. Glickman, "Parameter estimation in large dynamic paired comparison experiments",
Applied Statistics 48 (1999) 377-394; his summaries "The Glicko system" and "Example of the
Glicko-2 system" (glicko.net); SPEC 3.9.

Departure from the paper, marked where it happens: time reaches the core only as arguments, so
"rating periods since the last game" is the elapsed time divided by the period's length in days
(a float, as lichess counts fractional periods) instead of a whole number of calendar periods.
"""

from __future__ import annotations

import math
from datetime import datetime

#: q = ln 10 / 400 turns the logistic base-10 curve into natural-log units (Glickman 1999)
Q = math.log(10.0) / 400.0

_SECONDS_PER_DAY = 86400.0


def attenuation(deviation: float) -> float:
    """g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2): how much an opponent's uncertainty flattens the
    expected-score curve (1 for a perfectly known opponent, towards 0 for an unknown one).

    Source: Glickman, "The Glicko system", step 2 (g(RD)); Glickman 1999, eq. (5).
    """
    return 1.0 / math.sqrt(1.0 + 3.0 * Q * Q * deviation * deviation / (math.pi * math.pi))


def logistic(x: float) -> float:
    """1 / (1 + e^-x), evaluated without overflow for any finite ``x``.

    Source: Glickman 1999, eq. (5) and "Example of the Glicko-2 system", step 3 (both expected
    scores are this curve); the overflow-free form is ours (STYLE 7: outputs always finite).
    """
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def expected_score(rating: float, opponent_rating: float, opponent_deviation: float) -> float:
    """E = 1 / (1 + 10^(-g(RD_j) (r - r_j) / 400)): the expected score against an opponent whose
    rating is known only to within ``opponent_deviation``.

    Source: Glickman, "The Glicko system", step 2 (E(s | r, r_j, RD_j)); Glickman 1999, eq. (5).
    """
    return logistic(Q * attenuation(opponent_deviation) * (rating - opponent_rating))


def elapsed_periods(when: datetime, last_played: datetime | None, period_days: float) -> float:
    """Rating periods since the last game, as a float >= 0; 1 for a player who never played.

    Departure (ours): the paper counts whole rating periods; we take the elapsed time over the
    period length so that the core needs no calendar. A game dated before the previous one
    counts as no time at all.
    Source: Glickman, "The Glicko system", step 1 (t); SPEC 3.9; docs/rating-systems.md, glicko.
    """
    if not (math.isfinite(period_days) and period_days > 0):
        raise ValueError(f"period_days must be a positive number, not {period_days!r}")
    if last_played is None:
        return 1.0
    seconds = (when - last_played).total_seconds()
    return max(0.0, seconds / (period_days * _SECONDS_PER_DAY))


def grow_deviation(
    deviation: float, c: float, periods: float, max_deviation: float
) -> float:
    """RD before a period: min(sqrt(RD^2 + c^2 t), max_deviation), t the periods since the
    player's last game. Uncertainty grows like a random walk's spread, never past a newcomer's.

    Source: Glickman, "The Glicko system", step 1 (RD = min(sqrt(RD_old^2 + c^2 t), 350));
    Glickman 1999, section 3.
    """
    check_deviation(deviation, "deviation")
    if not (math.isfinite(c) and c >= 0):
        raise ValueError(f"c must be a finite number >= 0, not {c!r}")
    if not (math.isfinite(periods) and periods >= 0):
        raise ValueError(f"periods must be a finite number >= 0, not {periods!r}")
    if not max_deviation > 0:
        raise ValueError(f"max_deviation must be positive, not {max_deviation!r}")
    return min(math.sqrt(deviation * deviation + c * c * periods), max_deviation)


def clamp(value: float, low: float, high: float) -> float:
    """``value`` held within [low, high].

    Source: SPEC 3.9 task brief (deviations clamped after every update); STYLE 7.
    """
    return min(high, max(low, value))


def check_rating(value: float, name: str) -> None:
    """Raise ``ValueError`` naming ``name`` unless ``value`` is a finite rating.

    Source: STYLE 7 (inputs checked, outputs always finite).
    """
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, not {value!r}")


def check_deviation(value: float, name: str) -> None:
    """Raise ``ValueError`` naming ``name`` unless ``value`` is a positive finite deviation.

    Source: Glickman 1999 (an RD is a standard deviation: positive); STYLE 7.
    """
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, not {value!r}")
