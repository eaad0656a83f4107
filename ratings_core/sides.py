"""The shared rules of a game between two sides (issue 37: team and doubles games).

Every rating system rates a :class:`~ratings_core.model.TeamGame` by the same few rules, kept
here so that each system states only what is its own:

- a side plays at its *strength*: the mean of its members' ratings (and, with sides of
  different sizes, the ladder's ``team_size_handicap`` per missing member for the smaller one);
- one expected score per side, from the ladder's curve of the two strengths;
- each member then moves by their own step (their own K, deviation, volatility), meeting the
  other side as one opponent *as the member meets it*: whose rating is the member's own less
  their side's strength plus the other side's, so that the member's own expected score is the
  side's, and whose deviation is the root mean square of the other side's members';
- a member of the larger of two uneven sides moves by small/large of their step.

A side of one is a player: each rule then gives back exactly (to the bit) what a game of one
against one gives, so that ``TeamGame((a,), (b,), ...)`` rates as ``Game(a, b, ...)`` in every
system (tests/core/test_sides.py).

A leaf of the package: it imports only the model.

Source: issue 37 of this project (its words are the contract; each rule below restates it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from .model import TeamGame


def side_strength(ratings: Sequence[float], other_size: int, size_handicap: float) -> float:
    """A side's strength: the mean of its members' ratings (``math.fsum`` over the size, so
    that the order of the members changes nothing and a side of one is its member's rating
    exactly), plus ``size_handicap`` rating points for each member it has fewer than the other
    side (nothing between even sides, nor for the larger side).

    Source: issue 37 ("A side's rating is the mean of its members' ratings";
    "``team_size_handicap`` (rating points per missing member, default 0) is added to the
    smaller side's strength").
    """
    size = len(ratings)
    mean = math.fsum(ratings) / size
    if size < other_size:
        return mean + size_handicap * (other_size - size)
    return mean


def met_rating(own: float, own_strength: float, other_strength: float) -> float:
    """The other side's rating as a member rated ``own`` on a side of strength
    ``own_strength`` meets it: (own - own_strength) + other_strength.

    The member's difference to it is the sides' difference, so every member has the side's
    expected score on any curve of the difference, while their own rating, K, deviation and
    volatility do the rest (a performance rating is then the member's own, shifted by what the
    side did). Computed in this order so that a side of one gives back the opponent's rating
    exactly: own - own == 0.0 and 0.0 + other == other.

    Source: issue 37 ("one expected score per side ... Each member then changes by their own
    step", the other side "taken as one opponent whose rating is the mean"). Choice: the
    opponent is shifted by the member's distance from their side's mean, so that the curve is
    read at the sides' difference for every member (a member far above their partner is not
    expected to beat the other side by more than the side is).
    """
    return (own - own_strength) + other_strength


def side_deviation(deviations: Sequence[float]) -> float:
    """The other side's deviation as one opponent: the root mean square of its members'
    deviations (the one member's own deviation, unchanged, for a side of one).

    Source: issue 37 ("the other side taken as one opponent whose rating is the mean and whose
    deviation is the root mean square of its members'").
    """
    if len(deviations) == 1:
        return deviations[0]
    return math.sqrt(math.fsum(d * d for d in deviations) / len(deviations))


class MetSide:
    """The other side of a team game as one member meets it, in a system that rates a
    player's games of a period against opponents by their places in the table (``fqe``,
    ``rs-go``): rated, from whatever ratings the system reads at that step (``value`` of a
    place), at :func:`met_rating` of the two sides' strengths (:func:`side_strength`, with the
    smaller side's size handicap); its deviation the root mean square of the other side's
    (:func:`side_deviation`; none while one of them has none).

    Source: issue 37 (the other side "taken as one opponent whose rating is the mean and whose
    deviation is the root mean square of its members'").
    """

    __slots__ = ("member", "own", "other", "size_handicap")

    def __init__(self, member: int, own: tuple[int, ...], other: tuple[int, ...],
                 size_handicap: float) -> None:
        self.member = member
        self.own = own
        self.other = other
        self.size_handicap = size_handicap

    def rating(self, value: Callable[[int], float]) -> float:
        own = side_strength([value(i) for i in self.own], len(self.other), self.size_handicap)
        other = side_strength([value(j) for j in self.other], len(self.own),
                              self.size_handicap)
        return met_rating(value(self.member), own, other)

    def deviation(self, value: Callable[[int], float | None]) -> float | None:
        deviations = [value(j) for j in self.other]
        known = [d for d in deviations if d is not None]
        return side_deviation(known) if len(known) == len(deviations) else None


def uneven_ratio(own_size: int, other_size: int) -> float:
    """How much of their step a member moves by: small/large on the larger of two uneven sides,
    1 otherwise (the smaller side's members and every member of even sides move fully).

    Source: issue 37 ("With uneven sides, each member of the larger side changes by the ratio
    small/large of their step").
    """
    if own_size > other_size:
        return other_size / own_size
    return 1.0


def scaled_change(before: float, after: float, ratio: float) -> float:
    """A rating that moved from ``before`` to ``after``, moved by ``ratio`` of that instead
    (``after`` itself when the ratio is 1).

    Source: issue 37 (the uneven ratio of :func:`uneven_ratio`). Choice: where a system's rule
    is not a sum of per-game steps (a provisional weighted mean, Glicko's update, a first
    rating), the ratio scales the member's change over the rating period, its mean over the
    member's games of the period (:class:`PeriodRatio`).
    """
    if ratio == 1.0:
        return after
    return before + ratio * (after - before)


class PeriodRatio:
    """Each member's uneven ratio over a period: the mean of the ratios of their games in it
    (1 for a game of one against one or of even sides). Only the members with a game of ratio
    below 1 are kept; :meth:`of` is 1 for everybody else.

    Source: issue 37 (the uneven ratio). Choice: a period that mixes games of several ratios
    scales the member's change by their mean, so that a period of one game scales by that
    game's ratio and one of several even games by 1.
    """

    __slots__ = ("_short",)

    def __init__(self) -> None:
        #: the sum of 1 - ratio over each member's games, for members that had a ratio below 1
        self._short: dict[int, float] = {}

    def count(self, member: int, ratio: float) -> None:
        """One game of ``member`` whose ratio is ``ratio``."""
        if ratio != 1.0:
            self._short[member] = self._short.get(member, 0.0) + (1.0 - ratio)

    def of(self, member: int, games: int) -> float:
        """The ratio of a member who played ``games`` games in the period."""
        short = self._short.get(member)
        if short is None:
            return 1.0
        return 1.0 - short / games


def strengths(game: TeamGame, rating_of: Sequence[float] | dict[int, float],
              index: dict[str, int]) -> tuple[float, float]:
    """Both sides' strengths in ``game`` from each member's rating (``rating_of`` by table
    index), with the size handicap for the smaller side (:func:`side_strength`).

    Source: issue 37 (see :func:`side_strength`).
    """
    a = [rating_of[index[name]] for name in game.side_a]
    b = [rating_of[index[name]] for name in game.side_b]
    return (side_strength(a, len(b), game.size_handicap),
            side_strength(b, len(a), game.size_handicap))


def members(game: TeamGame, index: dict[str, int]) -> tuple[list[int], list[int]]:
    """The table indexes of both sides' members, side_a's first.

    Source: no rule of its own (:func:`ratings_core.model.sides_of`'s order); issue 37.
    """
    return [index[name] for name in game.side_a], [index[name] for name in game.side_b]
