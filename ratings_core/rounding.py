"""Rounding as the rating handbooks do it by hand.

Shogi Club 24 and TAISEN round a change to the nearest integer with halves going up (四捨五入,
seed 002); the Quebec federation publishes whole-number ratings (seed 003). Python's ``round``
rounds halves to even, which would move a 24.5-point change to 24, so we round halves away from
zero instead.
"""

from __future__ import annotations

import math


def round_half_away(value: float) -> int:
    """The nearest integer, halves away from zero (so 0.5 -> 1 and -0.5 -> -1)."""
    if not math.isfinite(value):
        raise ValueError(f"value must be finite, not {value!r}")
    magnitude = math.floor(abs(value) + 0.5)
    return int(magnitude if value >= 0 else -magnitude)
