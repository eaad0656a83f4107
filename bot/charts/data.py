"""What the pictures plot, as small values built from the service's answers (platform-neutral,
no drawing): the rows of a leaderboard card and the series of a rating chart. Tests compare these
with the service's own answers; the renderers draw exactly these."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from bot.service.results import Leaderboard, RatingHistory

#: rows a card shows at most (a 50-row card is still readable when opened on a phone)
CARD_ROWS = 50


@dataclass(frozen=True, slots=True)
class CardRow:
    """One line of a leaderboard card. ``change`` is the rating's change since the earlier
    standings given (``None``: no earlier rating to compare with)."""

    rank: int
    name: str
    rating: float
    provisional: bool
    deviation: float | None
    change: float | None
    games: int
    #: the rating band the member holds (issue 38), if any
    band: str | None = None


@dataclass(frozen=True, slots=True)
class ChartPoint:
    at: datetime
    rating: float
    provisional: bool
    deviation: float | None


@dataclass(frozen=True, slots=True)
class Series:
    """One player's rating through time, in rating order."""

    name: str
    ladder: str
    points: tuple[ChartPoint, ...]

    @property
    def peak(self) -> ChartPoint | None:
        """The highest rating reached, provisional or not (the first time it was reached): the
        peak /rating shows. Charts mark :attr:`established_peak`."""
        best: ChartPoint | None = None
        for point in self.points:
            if best is None or point.rating > best.rating:
                best = point
        return best

    @property
    def established_peak(self) -> ChartPoint | None:
        """The highest rating reached while established (not provisional), the first time it
        was reached: the peak a chart marks and its caption names. A provisional rating is the
        system's first guess and often overshoots, so it is no peak; ``None`` while the player
        was never established (the chart then marks no peak and its caption says so)."""
        best: ChartPoint | None = None
        for point in self.points:
            if not point.provisional and (best is None or point.rating > best.rating):
                best = point
        return best

    @property
    def has_deviation(self) -> bool:
        return any(p.deviation is not None for p in self.points)


def ratings_of(board: Leaderboard) -> dict[str, float]:
    """Each listed player's rating, by name (the standings a later card compares with)."""
    return {row.name: row.rating for row in board.rows}


def card_rows(
    board: Leaderboard, before: Mapping[str, float] | None = None, limit: int = CARD_ROWS
) -> list[CardRow]:
    """The card's rows: the board's first ``limit`` standings, each with its change since
    ``before`` (ratings by name, e.g. :func:`ratings_of` an earlier board)."""
    rows = []
    for standing in board.rows[:limit]:
        earlier = None if before is None else before.get(standing.name)
        rows.append(CardRow(
            rank=standing.rank,
            name=standing.name,
            rating=standing.rating,
            provisional=standing.provisional,
            deviation=standing.deviation,
            change=None if earlier is None else standing.rating - earlier,
            games=standing.games,
            band=standing.band,
        ))
    return rows


def series_of(history: RatingHistory) -> Series:
    """A member's rating history as a chart's series: every point, as the service gave it."""
    return Series(
        history.name,
        history.ladder,
        tuple(
            ChartPoint(datetime.fromisoformat(p.at), p.rating, p.provisional, p.deviation)
            for p in history.points
        ),
    )
