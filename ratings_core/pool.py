"""Inflation-neutral starting ratings: the retirees' pool shared by newcomers.

Source: seed 002 (イロレーティング, section レーティングの初期値, the 1300/1200 retirees and five
newcomers at 1400) and SPEC 3.7.

Rule, in our words: a retiring player leaves behind their deficit against the league base
(base - rating, negative when they retire above the base). Newcomers who join in the same rating
period split the pool equally and start that much below the base, each taking at most ``cap``
points either way; whatever the cap leaves stays for later newcomers. A returning player takes
their old rating back and their deficit back out of the pool.

With zero-sum games this keeps ``sum(rating - base for active players) - pool`` constant, so once
the pool is empty the active players' mean is the base again.
"""

from __future__ import annotations


def retire(pool: float, rating: float, base: float) -> float:
    """The pool after a player at ``rating`` retires. Source: seed 002, SPEC 3.7."""
    return pool + (base - rating)


def come_back(pool: float, rating: float, base: float) -> float:
    """The pool after a retired player at ``rating`` returns. Source: SPEC 3.7."""
    return pool - (base - rating)


def share(pool: float, newcomers: int, cap: float) -> tuple[float, float]:
    """Each newcomer's share of the pool and what remains, for ``newcomers`` joining together.

    A share is what the newcomer starts below the base (above it when negative), at most ``cap``
    in size. Source: seed 002 (500 points over five newcomers: 100 each), SPEC 3.7.
    """
    if newcomers < 0:
        raise ValueError(f"newcomers must be >= 0, not {newcomers}")
    if cap < 0:
        raise ValueError(f"cap must be >= 0, not {cap}")
    if newcomers == 0:
        return 0.0, pool
    each = max(-cap, min(cap, pool / newcomers))
    remaining = pool - each * newcomers
    # An emptied pool should read exactly 0, not a rounding residue of the division.
    if abs(remaining) < 1e-9:
        remaining = 0.0
    return each, remaining
