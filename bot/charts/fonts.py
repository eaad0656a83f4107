"""Fonts for names in any of the clubs' scripts, and right-to-left names in reading order.

matplotlib (3.6 and later) takes a list of font families and falls back glyph by glyph along it.
DejaVu Sans, bundled with matplotlib, covers Latin, Cyrillic, Greek and Hebrew; Japanese (and
Chinese, Korean) need a CJK font from the system. Without one the pictures are still made, with
boxes for the missing glyphs, and a warning says which package to install.

Right-to-left names: matplotlib 3.11 lays text out with libraqm, which applies the Unicode
Bidirectional Algorithm (UAX #9) itself, so text is given to it in logical order (reordering it
first with python-bidi, as for older matplotlib, draws Hebrew names backwards). A line of the
interface's left-to-right sentences starts with a LEFT-TO-RIGHT MARK, so that a title whose
first word is a Hebrew name is not laid out as a right-to-left paragraph. Without libraqm
(matplotlib before 3.11 drew text in storage order) python-bidi's ``get_display`` reorders.
The leaderboard card's names still go through :func:`shown` (see there).
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata

from bidi import get_display  # type: ignore[import-untyped]
from matplotlib import font_manager
from matplotlib.font_manager import FontProperties
from matplotlib.ft2font import FT2Font

log = logging.getLogger(__name__)

#: bundled with matplotlib, so always there: Latin, Greek, Cyrillic, Hebrew, Arabic
BASE_FAMILY = "DejaVu Sans"
#: CJK families tried in this order; the first one installed is used for what DejaVu lacks
CJK_FAMILIES = (
    "Noto Sans CJK JP",  # fonts-noto-cjk
    "IPAGothic",  # fonts-ipafont-gothic (the smallest complete Japanese font in Debian)
    "IPAPGothic",
    "TakaoGothic",  # fonts-takao-gothic
    "VL Gothic",  # fonts-vlgothic
    "Droid Sans Fallback",  # fonts-droid-fallback
    "WenQuanYi Micro Hei",  # fonts-wqy-microhei
)
#: the Debian package CI and the deployment install for Japanese names
CJK_PACKAGE = "fonts-ipafont-gothic"

_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
_lock = threading.Lock()
_families: tuple[str, ...] | None = None


def families() -> tuple[str, ...]:
    """The fallback list every picture uses: DejaVu Sans, then the first CJK family installed.
    Looked up once per process."""
    global _families
    with _lock:
        if _families is None:
            _families = _discover()
        return _families


def forget() -> None:
    """Look the fonts up again on next use (after installing one; tests)."""
    global _families
    with _lock:
        _families = None


def properties(size_px: float, dpi: float, names: bool = True,
               bold: bool = False) -> FontProperties:
    """Font properties for text ``size_px`` pixels high in a figure of ``dpi``. Text that holds
    no names (numbers, the catalogue's labels) uses DejaVu Sans alone: resolving one family is
    quicker than a fallback list, and the CJK fonts have no bold face to fall back on."""
    family = list(families()) if names and not bold else [BASE_FAMILY]
    return FontProperties(family=family, size=size_px * 72 / dpi,
                          weight="bold" if bold else "normal")


def _known() -> set[str]:
    return {font.name for font in font_manager.fontManager.ttflist}


def _discover() -> tuple[str, ...]:
    found = [name for name in CJK_FAMILIES if name in _known()]
    if not found:
        # matplotlib caches the system's font list when first used; a font installed since
        # then is only seen by a rescan.
        listed = {font.fname for font in font_manager.fontManager.ttflist}
        for path in font_manager.findSystemFonts():
            if path not in listed:
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):
                    log.debug("cannot read font %s", path)
        found = [name for name in CJK_FAMILIES if name in _known()]
    if not found:
        log.warning("no CJK font installed (e.g. Debian's %s): Japanese, Chinese and Korean "
                    "names show as boxes in pictures", CJK_PACKAGE)
        return (BASE_FAMILY,)
    return (BASE_FAMILY, found[0])


#: LEFT-TO-RIGHT MARK: a strong left-to-right character without a glyph (UAX #9, 2.6)
LRM = "\u200e"
#: matplotlib lays text out with libraqm (3.11 and later), which reorders bidirectional text
LAYOUT_REORDERS = hasattr(FT2Font, "_layout")


def shown(name: str) -> str:
    """A name with its right-to-left runs reversed (python-bidi's ``get_display``), as
    matplotlib before 3.11 needed it (a layout that does not reorder by itself): what
    :func:`laid_out` gives there."""
    if _RIGHT_TO_LEFT.search(name) is None:
        return name
    return str(get_display(name))


def laid_out(name: str) -> str:
    """A name as it is given to matplotlib to be drawn in reading order (UAX #9): as it is,
    when matplotlib's layout reorders it itself, else reordered by :func:`shown`."""
    return name if LAYOUT_REORDERS else shown(name)


def shown_sentence(line: str) -> str:
    """A line of the interface's own (left-to-right) language, as it is given to matplotlib: laid
    out on a left-to-right base, so a title that starts with a Hebrew name still reads
    "name · ladder", not "ladder · name" as a paragraph whose direction is guessed from its
    first letter would."""
    if _RIGHT_TO_LEFT.search(line) is None:
        return line
    if LAYOUT_REORDERS:
        return LRM + line
    return str(get_display(line, base_dir="L"))


def _width(char: str) -> int:
    """Columns a character takes: CJK ideographs and kana are twice as wide as Latin."""
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def fitted(name: str, columns: int) -> str:
    """``name`` cut to ``columns`` Latin-letter widths, with an ellipsis when cut (cut in
    reading order, before any reordering for display)."""
    if sum(_width(c) for c in name) <= columns:
        return name
    out, used = [], 1  # room for the ellipsis
    for char in name:
        used += _width(char)
        if used > columns:
            break
        out.append(char)
    return "".join(out).rstrip() + "…"
