"""Pictures ready for a chat: drawn, named and captioned from the service's answers, their words
in the reader's language (the pictures themselves, :mod:`bot.charts`, know no catalogue).

The ``*_picture`` functions draw in the calling thread (for benchmarks and tests); the
``render_*`` coroutines draw in a worker thread (``asyncio.to_thread``) so the event loop keeps
serving while matplotlib works. The scheduler attaches :func:`render_card` to its posts.
"""

from __future__ import annotations

import asyncio
import gc
import re
from collections.abc import Mapping, Sequence

from bot.charts import fonts
from bot.charts.card import leaderboard_card
from bot.charts.chart import rating_chart
from bot.charts.data import card_rows, series_of
from bot.charts.theme import Theme
from bot.charts.words import CardWords, ChartWords
from bot.chat.language import RIGHT_TO_LEFT, current
from bot.chat.messages import text
from bot.chat.presenter import rating_text
from bot.scheduling.publishing import Picture
from bot.service.results import Leaderboard, RatingHistory

#: the default look: both platforms' dark modes are the most used, and a dark card stays
#: readable in a light chat
DEFAULT_THEME = "dark"

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def _slug(name: str) -> str:
    """A file-name-safe form of a name (non-Latin names become "player")."""
    return _UNSAFE.sub("-", name).strip("-")[:40] or "player"


def card_words() -> CardWords:
    """The card's headers in the language being written."""
    return CardWords(text("card_player"), text("card_rating"), text("card_change"),
                     text("card_games"), right_to_left=current() in RIGHT_TO_LEFT)


def chart_words() -> ChartWords:
    """The chart's labels in the language being written."""
    return ChartWords(text("chart_deviation"), text("chart_provisional"),
                      text("chart_rating_axis"), lambda rating: text("chart_peak", rating=rating),
                      current())


def card_picture(
    board: Leaderboard, before: Mapping[str, float] | None = None, note: str = "",
    theme: Theme | str = DEFAULT_THEME,
) -> Picture:
    """The leaderboard card of ``board``; changes against ``before`` (ratings by name, e.g.
    :func:`bot.charts.ratings_of` of the board at the last post)."""
    png = leaderboard_card(card_rows(board, before), text("card_title", ladder=board.ladder),
                           theme, note, words=card_words())
    return Picture(png, f"leaderboard-{board.ladder}.png",
                   text("card_caption", ladder=board.ladder))


def chart_picture(
    histories: Sequence[RatingHistory], theme: Theme | str = DEFAULT_THEME
) -> Picture:
    """The rating chart of one member's history, or of two members' overlaid."""
    series = [series_of(history) for history in histories]
    first = histories[0]
    if len(histories) == 1:
        title = text("chart_title", name=first.name, ladder=first.ladder)
        # The peak the chart marks: the highest established rating (none while provisional).
        last, peak = series[0].points[-1], series[0].established_peak
        rating = rating_text(last.rating, last.provisional, last.deviation)
        if peak is None:
            caption = text("chart_caption_unestablished", name=first.name, ladder=first.ladder,
                           rating=rating)
        else:
            caption = text("chart_caption", name=first.name, ladder=first.ladder,
                           rating=rating, peak=rating_text(peak.rating, False))
        filename = f"rating-{_slug(first.name)}-{first.ladder}.png"
    else:
        other = histories[1]
        title = caption = text("chart_title_two", name=first.name, other=other.name,
                               ladder=first.ladder)
        filename = f"rating-{_slug(first.name)}-{_slug(other.name)}-{first.ladder}.png"
    return Picture(rating_chart(series, title, theme, words=chart_words()), filename, caption)


async def render_card(
    board: Leaderboard, before: Mapping[str, float] | None = None, note: str = "",
    theme: Theme | str = DEFAULT_THEME,
) -> Picture:
    """:func:`card_picture`, drawn in a worker thread."""
    return await asyncio.to_thread(card_picture, board, before, note, theme)


async def render_chart(
    histories: Sequence[RatingHistory], theme: Theme | str = DEFAULT_THEME
) -> Picture:
    """:func:`chart_picture`, drawn in a worker thread."""
    return await asyncio.to_thread(chart_picture, histories, theme)


async def prepare() -> None:
    """Before serving: load what drawing needs (matplotlib, the fonts) now rather than inside
    the first /chart, then take everything made so far out of the garbage collector's full
    passes (``gc.freeze``). It lives as long as the process, and a full pass that scans it
    (some 100,000 objects once matplotlib is loaded) holds every thread, the event loop's too:
    measured at 100-180 ms on a busy machine (docs/benchmarks.md, "Charts")."""
    await asyncio.to_thread(fonts.families)
    gc.collect()
    gc.freeze()
