"""Performance ratings and provisional ratings for newcomers.

Sources: seed 002 (イロレーティング, section レーティングの初期値: a newcomer's first rating
Ravg + 400 (W - L) / n, bounded because all wins or all losses cannot be solved); seed 003
(Quebec, "Les joueurs avec une cote provisoire": the games-weighted mean
(12*1462 + 4*1630) / 16 = 1504); SPEC 3.5 and 3.6.
"""

from __future__ import annotations


def performance_rating(
    opponents_mean: float, wins: float, losses: float, games: int, cap: float = 400.0
) -> float:
    """Ravg + 400 (W - L) / n, kept within ``cap`` points of Ravg.

    With the default cap this is the linear performance rating of seeds 002 and 003; a smaller
    cap reins in a newcomer's first results. Source: seed 002, seed 003, SPEC 3.6.
    """
    if games <= 0:
        raise ValueError(f"games must be positive, not {games}")
    if cap < 0:
        raise ValueError(f"cap must be >= 0, not {cap}")
    swing = 400.0 * (wins - losses) / games
    return opponents_mean + max(-cap, min(cap, swing))


def weighted_rating(rating: float, weight: float, performance: float, games: int) -> float:
    """The mean of ``rating`` (counted ``weight`` times) and ``performance`` (``games`` times).

    Source: seed 003 (Quebec provisional ratings: (12*1462 + 4*1630) / 16 = 1504), SPEC 3.5.
    """
    if weight < 0:
        raise ValueError(f"weight must be >= 0, not {weight}")
    if games <= 0:
        raise ValueError(f"games must be positive, not {games}")
    return (weight * rating + games * performance) / (weight + games)


def keep_direction(rating: float, proposed: float, score: float, expected: float) -> float:
    """``proposed``, unless it moves against the result: a period scored above expectation
    never lowers the rating, one scored below never raises it (the rating then stays).

    A performance-weighted mean can do either: a provisional 1500 who beats a 1000 has a
    performance of only 1400. Seed 004 adds the same kind of rule to its performance ratings
    ("the user cannot benefit from a fast failure, or lose from a slow success").
    Source: seed 004 (rules added to the performance method); our guard for ``club``'s
    provisional ratings, docs/rating-systems.md.
    """
    if score > expected:
        return max(rating, proposed)
    if score < expected:
        return min(rating, proposed)
    return proposed
