"""The rating chart: one player's rating through time (or two players' overlaid), the peak
marked, the provisional stretch shaded, and a band of one deviation either side where the rating
system keeps a deviation (Glicko's RD: the rating is within about ±2 RD with 95 % confidence,
Glickman 1999, section 2).

Drawn on a bare :class:`~matplotlib.figure.Figure` with the Agg canvas: no pyplot and no global
state, so charts can be drawn in several threads at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from bot.chat.messages import text

from . import fonts
from .data import Series
from .output import png_bytes
from .theme import Theme, theme_named

DPI = 100
WIDTH, HEIGHT = 1000, 600
#: margins in pixels around the plot: room for the title, the legend and the axes' labels
LEFT, RIGHT, TOP, BOTTOM = 86, 24, 78, 60
TITLE_PX = 28
TEXT_PX = 17
#: series longer than this are drawn as a plain line (markers would merge into a blur)
MARKERS_UP_TO = 40
SHADE_ALPHA = 0.12
BAND_ALPHA = 0.2


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


def rating_chart(series: Sequence[Series], title: str, theme: Theme | str = "light") -> bytes:
    """The chart of one or two players' series as PNG bytes."""
    if not 1 <= len(series) <= 2:
        raise ValueError(f"series must hold one or two players, not {len(series)}")
    if not all(s.points for s in series):
        raise ValueError("every series needs at least one point")
    colours = theme_named(theme)
    figure = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, facecolor=colours.background)
    FigureCanvasAgg(figure)
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

    for index, one in enumerate(series):
        colour = colours.line(index)
        times = np.array([date2num(p.at) for p in one.points])
        ratings = np.array([p.rating for p in one.points])
        if one.has_deviation:
            deviation = np.array([math.nan if p.deviation is None else p.deviation
                                  for p in one.points])
            axes.fill_between(times, ratings - deviation, ratings + deviation, color=colour,
                              alpha=BAND_ALPHA, linewidth=0)
            banded = True
        spans = _provisional_spans(times.tolist(), [p.provisional for p in one.points],
                                   right_edge)
        for start, end in spans:
            axes.axvspan(start, end, color=colour, alpha=SHADE_ALPHA, linewidth=0)
        shaded = shaded or bool(spans)
        marker = "o" if len(times) <= MARKERS_UP_TO else None
        axes.plot(times, ratings, color=colour, linewidth=2.2, marker=marker, markersize=4.5,
                  zorder=3)
        legend.append(Line2D([], [], color=colour, linewidth=2.2, label=fonts.shown(one.name)))
        peak = one.peak
        assert peak is not None
        peak_time = date2num(peak.at)
        axes.scatter([peak_time], [peak.rating], marker="*", s=260, color=colour,
                     edgecolors=colours.background, linewidths=1.2, zorder=4)
        axes.annotate(text("chart_peak", rating=f"{peak.rating:.0f}"), (peak_time, peak.rating),
                      xytext=(0, 12), textcoords="offset points", ha="center",
                      fontproperties=body, color=colour, zorder=5)

    # One entry per kind of shading, in the first player's colour (the second's is alike).
    if banded:
        legend.append(Patch(color=colours.line(0), alpha=BAND_ALPHA + 0.1,
                            label=text("chart_deviation")))
    if shaded:
        legend.append(Patch(color=colours.line(0), alpha=SHADE_ALPHA + 0.1,
                            label=text("chart_provisional")))
    axes.set_xlim(left_edge, right_edge)
    low, high = axes.get_ylim()
    axes.set_ylim(low, high + (high - low) * 0.08)  # room for the peak's label
    locator = AutoDateLocator()  # type: ignore[no-untyped-call]
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    _style(axes, colours, body)
    axes.set_ylabel(text("chart_rating_axis"), fontproperties=body, color=colours.muted)
    axes.legend(handles=legend, loc="upper left", prop=names, frameon=False,
                labelcolor=colours.text, ncols=len(legend), bbox_to_anchor=(0, 1.12))
    figure.text(LEFT / WIDTH, 1 - 22 / HEIGHT, fonts.shown(title), va="center", ha="left",
                fontproperties=fonts.properties(TITLE_PX, DPI), color=colours.text)

    return png_bytes(figure, DPI, colours.background)


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
