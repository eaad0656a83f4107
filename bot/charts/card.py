"""The leaderboard card: rank, name, rating (``?`` while provisional), deviation where the
system keeps one, change and games, as a PNG sized for a phone.

Drawn on a bare :class:`~matplotlib.figure.Figure` with the Agg canvas: no pyplot and no global
state, so cards can be drawn in several threads at once. Every text is drawn as written
(``parse_math=False``): a name or ladder like ``$\\q$`` is no math text to matplotlib (issue 30).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Rectangle

from . import fonts
from .data import CardRow
from .output import png_bytes
from .theme import Theme, theme_named
from .words import CardWords

Align = Literal["left", "right"]

DPI = 100
#: the card's width in pixels: a phone shows it at full width, so text is sized against it
WIDTH = 760
PAD = 24
TITLE_PX = 84
HEADER_PX = 44
ROW_PX = 46
FOOTER_PX = 48
#: text heights in pixels: row text about 1/30 of the width stays legible when a phone
#: scales the card to its screen
TEXT_PX = 25
TITLE_TEXT_PX = 34
SMALL_PX = 18
#: average advance of a Latin letter in DejaVu Sans, in ems (to fit names to their column)
_EM_ADVANCE = 0.6
#: the most characters of a rating band's name a row shows (issue 38)
BAND_COLUMNS = 12


def card_size(rows: int) -> tuple[int, int]:
    """The card's width and height in pixels for ``rows`` rows (an empty card keeps one)."""
    return WIDTH, TITLE_PX + HEADER_PX + max(rows, 1) * ROW_PX + FOOTER_PX


def _tone(change: float | None) -> int:
    """1 for a rise, -1 for a fall, 0 for no change or nothing to compare with."""
    if change is None or round(change) == 0:
        return 0
    return 1 if change > 0 else -1


def _change(change: float | None) -> str:
    if change is None:
        return "–"
    value = round(change)
    if value == 0:
        return "0"
    return f"+{value}" if value > 0 else f"\u2212{-value}"


@lru_cache(maxsize=16)
def digit_height(font: FontProperties) -> float:
    """How high digits stand above the baseline, in pixels, as Agg measures text ink."""
    face = font_manager.get_font(font_manager.findfont(font))
    face.set_size(font.get_size_in_points(), DPI)
    face.set_text("0123456789", 0.0)
    return float(face.get_width_height()[1] - face.get_descent()) / 64


@lru_cache(maxsize=16)
def line_height(font: FontProperties) -> float:
    """The height in pixels matplotlib gives one line of ``font`` at linespacing 1: the first
    family's typographic ascent plus descent (OS/2 table, else hhea)."""
    face = font_manager.get_font(font_manager.findfont(font))
    units = face.get_sfnt_table("head")["unitsPerEm"]  # type: ignore[index]
    scale = font.get_size_in_points() * DPI / 72 / units
    os2 = face.get_sfnt_table("OS/2")
    if os2 is not None:
        return (os2["sTypoAscender"] - os2["sTypoDescender"]) * scale
    hhea = face.get_sfnt_table("hhea")
    assert hhea is not None
    return (hhea["ascent"] - hhea["descent"]) * scale


def leaderboard_card(
    rows: Sequence[CardRow], title: str, theme: Theme | str = "dark", note: str = "", *,
    words: CardWords,
) -> bytes:
    """The card as PNG bytes, its headers ``words``. ``note`` is a line under the table (e.g.
    what the change is measured against)."""
    colours = theme_named(theme)
    width, height = card_size(len(rows))
    figure = Figure(figsize=(width / DPI, height / DPI), dpi=DPI, facecolor=colours.background)
    FigureCanvasAgg(figure)
    names = fonts.properties(TEXT_PX, DPI)
    body = fonts.properties(TEXT_PX, DPI, names=False)
    bold = fonts.properties(TEXT_PX, DPI, names=False, bold=True)
    small = fonts.properties(SMALL_PX, DPI, names=False)

    def at(x: float, y: float) -> tuple[float, float]:
        return x / width, 1 - y / height

    def across(x: float, align: Align) -> tuple[float, Align]:
        """A place on the row and its alignment, mirrored for a right-to-left reader: the
        columns run from the right edge, each aligned the other way."""
        if not words.right_to_left:
            return x, align
        return width - x, "left" if align == "right" else "right"

    def put(x: float, y: float, shown: str, font: FontProperties, colour: str,
            align: Align = "right") -> None:
        x, align = across(x, align)
        figure.text(*at(x, y), shown, va="center", ha=align, fontproperties=font, color=colour,
                    parse_math=False)

    top = TITLE_PX + HEADER_PX

    def column(x: float, lines: list[str], font: FontProperties, colour: str,
               align: Align = "right") -> None:
        """A whole column as one text of one line per row: drawing a few long texts is much
        quicker than hundreds of short ones, and a fixed line spacing keeps each line on its
        row (matplotlib spaces lines by the first font's ascent plus descent times it)."""
        if any(lines):
            x, align = across(x, align)
            figure.text(*at(x, top), "\n".join(lines), va="top", ha=align, fontproperties=font,
                        color=colour, linespacing=ROW_PX / line_height(font), parse_math=False)

    deviations = any(row.deviation is not None for row in rows)
    games_x = width - PAD
    change_x = games_x - 100
    deviation_x = change_x - 95
    rating_x = deviation_x - 80 if deviations else change_x - 105
    rank_x, name_x = PAD + 46, PAD + 62
    name_columns = int((rating_x - 90 - name_x) / (_EM_ADVANCE * TEXT_PX))
    # The members' rating bands (issue 38) in small type at the names' right end: the names
    # keep the room left of the longest band.
    band_x = rating_x - 90
    bands = [fonts.fitted(row.band, BAND_COLUMNS) if row.band else "" for row in rows]
    if any(bands):
        longest = max(len(band) for band in bands)
        name_columns -= int((longest * _EM_ADVANCE * SMALL_PX + 12) / (_EM_ADVANCE * TEXT_PX))

    put(PAD, TITLE_PX / 2, fonts.shown_sentence(title), fonts.properties(TITLE_TEXT_PX, DPI),
        colours.text, "left")
    header_y = TITLE_PX + HEADER_PX / 2
    put(rank_x, header_y, "#", small, colours.muted)
    put(name_x, header_y, words.player, small, colours.muted, "left")
    put(rating_x, header_y, words.rating, small, colours.muted)
    if deviations:
        put(deviation_x, header_y, "±", small, colours.muted)
    put(change_x, header_y, words.change, small, colours.muted)
    put(games_x, header_y, words.games, small, colours.muted)

    for n in range(0, len(rows), 2):
        x0, y0 = at(0, top + (n + 1) * ROW_PX)
        figure.add_artist(Rectangle((x0, y0), 1, ROW_PX / height, transform=figure.transFigure,
                                    facecolor=colours.stripe, edgecolor="none", zorder=0))
    column(rank_x, [str(row.rank) for row in rows], body, colours.muted)
    # Names one by one, on the digits' baseline: a line's ink decides where a multi-line text
    # puts its baseline, and names have descenders and scripts of other heights; digits do not.
    baseline = (ROW_PX + digit_height(body)) / 2
    name_at, name_align = across(name_x, "left")
    for n, row in enumerate(rows):
        figure.text(*at(name_at, top + n * ROW_PX + baseline),
                    fonts.laid_out(fonts.fitted(row.name, name_columns)), va="baseline",
                    ha=name_align, fontproperties=names, color=colours.text, parse_math=False)
    if any(bands):
        for n, band in enumerate(bands):
            if band:
                put(band_x, top + n * ROW_PX + ROW_PX / 2, fonts.laid_out(band),
                    fonts.properties(SMALL_PX, DPI), colours.muted)
    column(rating_x, [f"{row.rating:.0f}" + ("?" if row.provisional else "") for row in rows],
           bold, colours.text)
    column(deviation_x, ["" if row.deviation is None else f"±{row.deviation:.0f}"
                         for row in rows], body, colours.muted)
    # One column per colour of change: rises, falls, and the rest (no change, or nothing to
    # compare with).
    tones = [_tone(row.change) for row in rows]
    for tone, colour in ((1, colours.up), (-1, colours.down), (0, colours.muted)):
        column(change_x, [_change(row.change) if t == tone else "" for row, t in zip(
            rows, tones, strict=True)], body, colour)
    column(games_x, [str(row.games) for row in rows], body, colours.muted)
    if note:
        put(PAD, height - FOOTER_PX / 2, note, small, colours.muted, "left")

    return png_bytes(figure, DPI, colours.background)
