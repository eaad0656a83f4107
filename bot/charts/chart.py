"""The rating chart: one player's rating through time (or two players' overlaid), the peak
marked, the provisional stretch shaded, and a band of one deviation either side where the rating
system keeps a deviation (Glicko's RD: the rating is within about ±2 RD with 95 % confidence,
Glickman 1999, section 2).

Drawn on a bare :class:`~matplotlib.figure.Figure` with the Agg canvas: no pyplot and no global
state, so charts can be drawn in several threads at once. Every text is drawn as written
(``parse_math=False``, the legend's too): a name like ``$\\q$`` is no math text to matplotlib
(issue 30).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Literal

import numpy as np
from babel.dates import format_skeleton
from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Annotation
from matplotlib.ticker import FuncFormatter, MaxNLocator
from matplotlib.transforms import Bbox

from . import fonts
from .data import Series
from .output import png_bytes
from .theme import Theme, theme_named
from .words import ChartWords

DPI = 100
WIDTH, HEIGHT = 1000, 600
#: margins in pixels around the plot: room for the title, the legend and the axes' labels
LEFT, RIGHT, TOP, BOTTOM = 86, 44, 78, 60
TITLE_PX = 28
TEXT_PX = 17
#: series longer than this are drawn as a plain line (markers would merge into a blur)
MARKERS_UP_TO = 40
SHADE_ALPHA = 0.18
BAND_ALPHA = 0.2
#: the least span of the rating axis, in rating points: a one-game or flat history is drawn
#: against a readable scale rather than magnified into tenths of a point
MIN_SPAN = 100
#: room in pixels above the highest point of the data for a peak's label
HEADROOM_PX = 40
#: a history longer than this (days) is labelled by month and year, a shorter one by day
YEAR_DAYS = 366
#: a name in the legend is cut to this many Latin-letter widths
LEGEND_NAME_COLUMNS = 24


#: matplotlib's default date epoch (rcParams["date.epoch"]), which its date axis counts from
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def date2num(when: datetime) -> float:
    """Days since matplotlib's epoch, as its date axis reads them (a naive time is UTC, as in
    ``matplotlib.dates.date2num``)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - _EPOCH).total_seconds() / 86400


def chart_size() -> tuple[int, int]:
    """The chart's width and height in pixels."""
    return WIDTH, HEIGHT


def _provisional_spans(times: Sequence[float], flags: Sequence[bool],
                       right_edge: float) -> list[tuple[float, float]]:
    """The stretches of time while the rating was provisional: from the first provisional point
    to the next point that is not (the edge of the plot when it still is)."""
    spans = []
    start: float | None = None
    for time, provisional in zip(times, flags, strict=True):
        if provisional and start is None:
            start = time
        elif not provisional and start is not None:
            spans.append((start, time))
            start = None
    if start is not None:
        spans.append((start, right_edge))
    return spans


def rating_chart(series: Sequence[Series], title: str, theme: Theme | str = "light", *,
                 words: ChartWords) -> bytes:
    """The chart of one or two players' series as PNG bytes, its labels ``words``."""
    colours = theme_named(theme)
    return png_bytes(chart_figure(series, title, colours, words=words), DPI,
                     colours.background)


def chart_figure(series: Sequence[Series], title: str, theme: Theme | str = "light", *,
                 words: ChartWords) -> Figure:
    """The chart of one or two players' series, drawn (its canvas attached) but not encoded.

    The peak marked is each player's highest *established* rating
    (:attr:`~bot.charts.data.Series.established_peak`); a player who was never established
    gets no mark. The y axis spans at least :data:`MIN_SPAN` rating points, in whole numbers
    without an offset, so a one-game or flat history is still a readable chart. Peak labels are
    placed so that they stay inside the plot and clear of each other."""
    if not 1 <= len(series) <= 2:
        raise ValueError(f"series must hold one or two players, not {len(series)}")
    if not all(s.points for s in series):
        raise ValueError("every series needs at least one point")
    colours = theme_named(theme)
    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, facecolor=colours.background)
    canvas = FigureCanvasAgg(figure)
    axes = figure.add_axes((LEFT / WIDTH, BOTTOM / HEIGHT, 1 - (LEFT + RIGHT) / WIDTH,
                            1 - (TOP + BOTTOM) / HEIGHT))
    body = fonts.properties(TEXT_PX, DPI, names=False)
    names = fonts.properties(TEXT_PX, DPI)

    # Times as matplotlib's day numbers, so no unit conversion runs while drawing.
    all_times = [date2num(p.at) for s in series for p in s.points]
    first, last = min(all_times), max(all_times)
    margin = max((last - first) * 0.03, 0.5)
    left_edge, right_edge = first - margin, last + margin
    legend: list[Line2D | Patch] = []
    shaded = banded = False
    peaks: list[tuple[float, float, str]] = []

    for index, one in enumerate(series):
        colour = colours.line(index)
        times = np.array([date2num(p.at) for p in one.points])
        ratings = np.array([p.rating for p in one.points])
        if one.has_deviation:
            deviation = np.array([math.nan if p.deviation is None else p.deviation
                                  for p in one.points])
            axes.fill_between(times, ratings - deviation, ratings + deviation, color=colour,
                              alpha=BAND_ALPHA, linewidth=0, gid=f"band-{index}")
            banded = True
        spans = _provisional_spans(times.tolist(), [p.provisional for p in one.points],
                                   right_edge)
        for start, end in spans:
            axes.axvspan(start, end, color=colours.provisional, alpha=SHADE_ALPHA, linewidth=0,
                         gid=f"provisional-{index}")
        shaded = shaded or bool(spans)
        marker = "o" if len(times) <= MARKERS_UP_TO else None
        axes.plot(times, ratings, color=colour, linewidth=2.2, marker=marker, markersize=4.5,
                  zorder=3)
        legend.append(Line2D([], [], color=colour, linewidth=2.2,
                             label=fonts.laid_out(fonts.fitted(one.name, LEGEND_NAME_COLUMNS))))
        peak = one.established_peak
        if peak is not None:
            peaks.append((date2num(peak.at), peak.rating, colour))

    # One entry per kind of shading: the band in the first player's colour (the second's is
    # alike), the provisional stretch in its own hue.
    if banded:
        legend.append(Patch(color=colours.line(0), alpha=BAND_ALPHA, label=words.deviation,
                            gid="legend-deviation"))
    if shaded:
        legend.append(Patch(color=colours.provisional, alpha=SHADE_ALPHA,
                            label=words.provisional, gid="legend-provisional"))
    axes.set_xlim(left_edge, right_edge)
    axes.set_ylim(*_rating_range(axes.get_ylim(), axes_height=HEIGHT - TOP - BOTTOM))
    axes.xaxis.set_major_locator(AutoDateLocator())  # type: ignore[no-untyped-call]
    # matplotlib's own month names are English: the reader's language writes them (CLDR)
    skeleton = "yMMM" if right_edge - left_edge > YEAR_DAYS else "MMMd"
    axes.xaxis.set_major_formatter(FuncFormatter(
        lambda value, _: format_skeleton(skeleton, _moment(value), locale=words.locale)))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))
    axes.yaxis.set_major_formatter(FuncFormatter(_rating_tick))
    _style(axes, colours, body)
    axes.set_ylabel(words.rating_axis, fontproperties=body, color=colours.muted,
                    parse_math=False)
    shown = axes.legend(handles=legend, loc="upper left", prop=names, frameon=False,
                        labelcolor=colours.text, ncols=len(legend), bbox_to_anchor=(0, 1.12))
    # The legend takes no parse_math of its own: its texts are told one by one.
    for label in shown.get_texts():
        label.set_parse_math(False)
    heading = figure.text(LEFT / WIDTH, 1 - 22 / HEIGHT, fonts.shown_sentence(title),
                          va="center", ha="left", fontproperties=fonts.properties(TITLE_PX, DPI),
                          color=colours.text, gid="title", parse_math=False)
    renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]
    room = WIDTH - LEFT - RIGHT
    width = heading.get_window_extent(renderer).width
    if width > room:  # two long names: a smaller title rather than a cut one
        heading.set_fontsize(TITLE_PX * 72 / DPI * room / width)
    _mark_peaks(axes, peaks, colours, body, renderer, words.peak)
    return figure


def _moment(value: float) -> datetime:
    """The instant of a day number of :func:`date2num`."""
    return _EPOCH + timedelta(days=value)


def _rating_tick(value: float, _position: object) -> str:
    return f"{value:.0f}".replace("-", "\u2212")


def _rating_range(limits: tuple[float, float], axes_height: float) -> tuple[float, float]:
    """The y range to show: the data's (as matplotlib autoscaled it), widened about its middle
    to at least :data:`MIN_SPAN` points, then with :data:`HEADROOM_PX` above for a peak's
    label."""
    low, high = limits
    if high - low < MIN_SPAN:
        middle = (low + high) / 2
        low, high = middle - MIN_SPAN / 2, middle + MIN_SPAN / 2
    high += (high - low) * HEADROOM_PX / (axes_height - HEADROOM_PX)
    return low, high


_Place = tuple[float, float, Literal["left", "center", "right"], Literal["bottom", "center", "top"]]

#: where a peak's label may go, tried in order: offset from the star in points, and alignment
_PLACES: tuple[_Place, ...] = (
    (0, 9, "center", "bottom"), (-4, 9, "right", "bottom"), (4, 9, "left", "bottom"),
    (0, -9, "center", "top"), (-4, -9, "right", "top"), (4, -9, "left", "top"),
    (11, 0, "left", "center"), (-11, 0, "right", "center"),
    (0, 27, "center", "bottom"), (0, -27, "center", "top"),
)


def _mark_peaks(axes: Axes, peaks: Sequence[tuple[float, float, str]], colours: Theme,
                font: FontProperties, renderer: RendererBase,
                peak_label: Callable[[str], str]) -> None:
    """A star at each peak and its label where it lies inside the plot and clear of the labels
    already placed (the first such place of :data:`_PLACES`; else the first clear of them)."""
    inside = axes.get_window_extent(renderer)
    placed: list[Bbox] = []
    for index, (when, rating, colour) in enumerate(peaks):
        axes.scatter([when], [rating], marker="*", s=260, color=colour,
                     edgecolors=colours.background, linewidths=1.2, zorder=4,
                     gid=f"peak-{index}")
        label = axes.annotate(peak_label(f"{rating:.0f}"), (when, rating),
                              xytext=_PLACES[0][:2], textcoords="offset points",
                              fontproperties=font, color=colour, zorder=5,
                              gid=f"peak-label-{index}", parse_math=False)
        chosen: _Place | None = None
        for place in _PLACES:
            box = _placed(label, place, renderer)
            clear = not any(box.overlaps(other) for other in placed)
            if clear and _within(box, inside):
                chosen = place
                break
            if clear and chosen is None:
                chosen = place
        placed.append(_placed(label, chosen or _PLACES[0], renderer))


def _placed(label: Annotation, place: _Place,
            renderer: RendererBase) -> Bbox:
    dx, dy, ha, va = place
    label.xyann = (dx, dy)
    label.set_horizontalalignment(ha)
    label.set_verticalalignment(va)
    return label.get_window_extent(renderer)


def _within(box: Bbox, outer: Bbox) -> bool:
    return bool(box.x0 >= outer.x0 and box.x1 <= outer.x1 and box.y0 >= outer.y0
                and box.y1 <= outer.y1)


def _style(axes: Axes, colours: Theme, font: FontProperties) -> None:
    axes.set_facecolor(colours.background)
    axes.grid(True, color=colours.grid, linewidth=0.8)
    axes.set_axisbelow(True)
    for side, spine in axes.spines.items():
        spine.set_visible(side in ("left", "bottom"))
        spine.set_color(colours.grid)
    # Tick labels are dates and numbers: the default font has every glyph they need.
    axes.tick_params(colors=colours.muted, labelsize=font.get_size_in_points())
    axes.xaxis.get_offset_text().set_color(colours.muted)
