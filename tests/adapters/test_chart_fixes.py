"""Issue 15, "Pictures": a one-game or flat chart has a readable scale and nothing cut off, two
players' peak labels never overlap, the deviation band and the provisional stretch have legend
swatches of different colours (each the colour drawn), the peak marked is the highest established
rating, and right-to-left names read correctly in titles, legends and cards.

The tests look at what matplotlib draws, not at pixels: the figure that :func:`rating_chart` and
:func:`leaderboard_card` encode is caught on its way to ``png_bytes``, and its limits, artists,
colours and text extents (measured by matplotlib's own renderer) are checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import pytest
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection, PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox

from bot.charts import card as card_module
from bot.charts import chart as chart_module
from bot.charts import leaderboard_card, rating_chart
from bot.charts.chart import date2num
from bot.charts.data import CardRow, ChartPoint, Series
from bot.charts.theme import THEMES
from bot.chat.messages import text
from bot.chat.pictures import card_words, chart_picture, chart_words
from bot.service.results import RatingHistory, RatingPoint

START = datetime(2024, 3, 1, 19)


def series(name: str, ratings: Sequence[float], provisional: int = 1,
           deviation: float | None = None, hours: float = 5, offset: float = 0) -> Series:
    """A series of ``ratings`` ``hours`` apart, the first ``provisional`` of them provisional."""
    return Series(name, "main", tuple(
        ChartPoint(START + timedelta(hours=hours * n + offset), rating, n < provisional, deviation)
        for n, rating in enumerate(ratings)))


def drawn(monkeypatch: pytest.MonkeyPatch, module: object, draw: object) -> Figure:
    """The figure a picture function encodes (caught where it is handed to ``png_bytes``)."""
    caught: list[Figure] = []

    def capture(figure: Figure, dpi: float, background: str) -> bytes:
        figure.canvas.draw()
        caught.append(figure)
        return b""

    monkeypatch.setattr(module, "png_bytes", capture)
    assert callable(draw)
    draw()
    assert len(caught) == 1
    return caught[0]


def chart(monkeypatch: pytest.MonkeyPatch, drawn_series: Sequence[Series], title: str = "t",
          theme: str = "light") -> Figure:
    return drawn(monkeypatch, chart_module,
                 lambda: rating_chart(drawn_series, title, theme, words=chart_words()))


def plot_of(figure: Figure) -> Axes:
    (axes,) = figure.axes
    return axes


def peak_labels(axes: Axes) -> list[Annotation]:
    return [t for t in axes.texts if isinstance(t, Annotation)]


def stars(axes: Axes) -> list[tuple[float, float]]:
    return [tuple(c.get_offsets()[0]) for c in axes.collections  # type: ignore[misc]
            if isinstance(c, PathCollection) and len(c.get_offsets()) == 1]


def inside(box: Bbox, outer: Bbox, slack: float = 0.5) -> bool:
    return (box.x0 >= outer.x0 - slack and box.x1 <= outer.x1 + slack
            and box.y0 >= outer.y0 - slack and box.y1 <= outer.y1 + slack)


def visual(artist: Text) -> str:
    """The characters of a drawn text from left to right, as matplotlib lays them out (libraqm,
    which reorders right-to-left runs); the invisible direction marks left out."""
    from matplotlib._text_helpers import layout

    font = font_manager.get_font(font_manager.findfont(FontProperties(family="DejaVu Sans")))
    font.set_size(12, 100)
    items = sorted(layout(artist.get_text(), font), key=lambda item: item.x)
    return "".join(item.char for item in items).replace("\u200e", "")


# -- a readable scale, nothing cut off -----------------------------------------------------------

READABLE = {
    "one game": [series("ann", [1500, 1508])],
    "one game, a draw between equals": [series("ann", [1500, 1500])],
    "hardly moving": [series("ann", [1500, 1500.2, 1500, 1500.1])],
    "only joined": [series("ann", [1500])],
    "flat for a year": [series("ann", [1500] * 12, hours=24 * 30)],
    "two flat": [series("ann", [1500, 1500.4]), series("bob", [1500, 1499.6], offset=1)],
}


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("case", READABLE)
def test_a_one_game_or_flat_chart_has_a_readable_scale_and_nothing_cut_off(
    monkeypatch: pytest.MonkeyPatch, case: str, theme: str
) -> None:
    figure = chart(monkeypatch, READABLE[case], "ann · main", theme)
    axes = plot_of(figure)
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    low, high = axes.get_ylim()
    ratings = [p.rating for s in READABLE[case] for p in s.points]
    # At least 100 rating points shown, with every rating inside.
    assert high - low >= 100
    assert low < min(ratings) and max(ratings) < high
    # The rating axis reads as whole ratings, with no "+1.5e3" offset to add in one's head.
    labels = [t.get_text() for t in axes.yaxis.get_ticklabels() if t.get_text()]
    assert labels and all(label.lstrip("\u2212").isdigit() for label in labels), labels
    assert axes.yaxis.get_offset_text().get_text() == ""
    # Nothing drawn leaves the picture: the plot with its tick labels, offsets and peak labels,
    # the legend and the title; and each peak label stays inside the plot.
    picture = figure.bbox
    assert inside(axes.get_tightbbox(renderer), picture)
    legend = axes.get_legend()
    assert legend is not None and inside(legend.get_window_extent(renderer), picture)
    for heading in figure.texts:
        assert inside(heading.get_window_extent(renderer), picture)
    for label in peak_labels(axes):
        assert inside(label.get_window_extent(renderer), axes.get_window_extent(renderer))


# -- two peak labels never overlap ----------------------------------------------------------------

PAIRS = {
    "the same peak at the same time": (series("ann", [1500, 1540, 1520]),
                                       series("bob", [1500, 1541, 1510])),
    "equal peaks": (series("ann", [1500, 1540, 1520]), series("bob", [1500, 1540, 1510])),
    "close, at the top": (series("ann", [1500, 1600, 1520]),
                          series("bob", [1500, 1598, 1510], offset=1)),
    "at the left edge": (series("ann", [1600, 1500, 1490], provisional=0, hours=24 * 40),
                         series("bob", [1598, 1510, 1500], provisional=0, hours=24 * 40)),
    "at the right edge": (series("ann", [1500, 1520, 1700], hours=24 * 40),
                          series("bob", [1500, 1510, 1702], hours=24 * 40)),
    "one above the other": (series("ann", [1500, 1540, 1520]),
                            series("bob", [1500, 1530, 1510])),
}


@pytest.mark.parametrize("case", PAIRS)
def test_two_players_peak_labels_never_overlap(monkeypatch: pytest.MonkeyPatch,
                                               case: str) -> None:
    figure = chart(monkeypatch, PAIRS[case], "ann and bob · main")
    axes = plot_of(figure)
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    first, second = (label.get_window_extent(renderer) for label in peak_labels(axes))
    assert not first.overlaps(second), (first, second)
    plot = axes.get_window_extent(renderer)
    assert inside(first, plot) and inside(second, plot)


# -- the legend's swatches are the colours drawn, and differ --------------------------------------


def over(colour: tuple[float, float, float, float], background: str) -> tuple[float, ...]:
    """An RGBA colour as it shows over the background."""
    under = to_rgba(background)
    alpha = colour[3]
    return tuple(alpha * c + (1 - alpha) * b for c, b in zip(colour[:3], under[:3], strict=True))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_deviation_band_and_the_provisional_stretch_differ_in_the_legend(
    monkeypatch: pytest.MonkeyPatch, theme: str
) -> None:
    background = THEMES[theme].background
    figure = chart(monkeypatch, [series("ann", [1500, 1540, 1520, 1530], provisional=2,
                                        deviation=80)], theme=theme)
    axes = plot_of(figure)
    legend = axes.get_legend()
    assert legend is not None
    swatches = {label.get_text(): handle for label, handle in zip(
        legend.get_texts(), legend.legend_handles, strict=True)}
    band = swatches[text("chart_deviation")]
    stretch = swatches[text("chart_provisional")]
    assert isinstance(band, Rectangle) and isinstance(stretch, Rectangle)
    band_shown, stretch_shown = (over(h.get_facecolor(), background) for h in (band, stretch))
    # Different hues, told apart at a glance (not one colour at two strengths).
    assert band.get_facecolor()[:3] != stretch.get_facecolor()[:3]
    assert max(abs(a - b) for a, b in zip(band_shown, stretch_shown, strict=True)) >= 0.1
    # Each swatch is the colour drawn in the plot.
    (drawn_band,) = [c for c in axes.collections if isinstance(c, PolyCollection)]
    (drawn_stretch,) = [p for p in axes.patches if isinstance(p, Rectangle)]
    assert over(tuple(drawn_band.get_facecolor()[0]), background) == pytest.approx(band_shown)
    assert over(drawn_stretch.get_facecolor(), background) == pytest.approx(stretch_shown)


# -- the peak marked is the highest established rating --------------------------------------------


def test_the_peak_marked_is_the_highest_established_rating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Provisional at 1620 after two lucky games, established later at 1560 at most.
    one = series("ann", [1500, 1580, 1620, 1540, 1560, 1550], provisional=3)
    assert one.peak is not None and one.peak.rating == 1620  # /rating's peak: any rating
    assert one.established_peak == one.points[4]
    axes = plot_of(chart(monkeypatch, [one]))
    assert stars(axes) == [pytest.approx((date2num(one.points[4].at), 1560))]
    assert [label.get_text() for label in peak_labels(axes)] == [
        text("chart_peak", rating="1560")]
    history = RatingHistory("ann", "main", [
        RatingPoint(p.at.isoformat(), p.rating, p.provisional, None, n)
        for n, p in enumerate(one.points)])
    assert chart_picture([history]).caption == text(
        "chart_caption", name="ann", ladder="main", rating="1550", peak="1560")


def test_a_player_never_established_has_no_peak_marked_and_the_caption_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one = series("ann", [1500, 1580, 1560], provisional=3)
    assert one.established_peak is None
    axes = plot_of(chart(monkeypatch, [one, series("bob", [1500, 1520, 1510])]))
    assert stars(axes) == [pytest.approx((date2num(START + timedelta(hours=5)), 1520))]
    assert [label.get_text() for label in peak_labels(axes)] == [
        text("chart_peak", rating="1520")]
    history = RatingHistory("ann", "main", [
        RatingPoint(p.at.isoformat(), p.rating, True, None, n) for n, p in enumerate(one.points)])
    assert chart_picture([history]).caption == text(
        "chart_caption_unestablished", name="ann", ladder="main", rating="1560?")


# -- right-to-left names read correctly ----------------------------------------------------------


@pytest.mark.parametrize(("title", "seen"), [
    # "שרה" (Sarah) is drawn with its last letter leftmost: read right to left, it is שרה.
    ("שרה · main", "הרש · main"),
    ("שרה and Bob · main", "הרש and Bob · main"),
    ("Bob and שרה · main", "Bob and הרש · main"),
    ("ann · main", "ann · main"),
])
def test_a_title_starting_with_a_right_to_left_name_reads_correctly(
    monkeypatch: pytest.MonkeyPatch, title: str, seen: str
) -> None:
    figure = chart(monkeypatch, [series("שרה", [1500, 1540, 1520])], title)
    (heading,) = figure.texts
    assert visual(heading) == seen
    legend = plot_of(figure).get_legend()
    assert legend is not None
    assert visual(legend.get_texts()[0]) == "הרש"


def test_a_right_to_left_name_reads_correctly_on_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [CardRow(1, "שרה", 1540.0, False, None, None, 3)]
    figure = drawn(monkeypatch, card_module,
                   lambda: leaderboard_card(rows, "main ladder", words=card_words()))
    (name,) = [t for t in figure.texts if "ש" in t.get_text()]
    assert visual(name) == "הרש"
