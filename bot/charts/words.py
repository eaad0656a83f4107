"""The words a picture holds, given by its caller in the reader's language: the pictures know
no catalogue (the chat layer chooses the words: :mod:`bot.chat.pictures`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CardWords:
    """The leaderboard card's column headers, and whether its reader reads right to left (the
    card is then laid out from the right: rank, name, rating, change, games)."""

    player: str
    rating: str
    change: str
    games: str
    right_to_left: bool = False


@dataclass(frozen=True, slots=True)
class ChartWords:
    """The rating chart's legend, axis and peak labels, and the locale (a CLDR code: ``ru``)
    its dates are written in."""

    deviation: str
    provisional: str
    rating_axis: str
    #: a peak's label for its rating (``peak 1612``)
    peak: Callable[[str], str]
    locale: str
