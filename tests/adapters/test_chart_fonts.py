"""Names in the seeds' languages (Hebrew, Russian, Japanese) are drawn with fonts that have
their glyphs, right-to-left names in reading order; without a CJK font the pictures still
come, with a warning naming the package to install."""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from bidi import get_display  # type: ignore[import-untyped]
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ft2font import FT2Font

from bot.charts import CardRow, fonts, leaderboard_card, rating_chart
from bot.charts.data import ChartPoint, Series
from bot.chat.pictures import card_words, chart_words
from tests.chat import START

HEBREW = "דוד כהן"
RUSSIAN = "Борис Петров"
JAPANESE = "山田太郎"
NAMES = [HEBREW, RUSSIAN, JAPANESE]


@pytest.fixture
def cjk_font() -> None:
    """A CJK font must be installed (``.ci/system-packages`` does it); without one these tests
    are skipped, loudly, except under CI, where they fail."""
    if len(fonts.families()) < 2:
        reason = f"no CJK font found: install the Debian package {fonts.CJK_PACKAGE}"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def font_files() -> list[str]:
    """The files of the fallback list, in the order matplotlib tries them for each glyph."""
    return [font_manager.findfont(FontProperties(family=family), fallback_to_default=False)
            for family in fonts.families()]


def drawn_by(char: str) -> str:
    """The file of the first font in the fallback list that has a glyph for ``char``."""
    for path in font_files():
        if FT2Font(path).get_char_index(ord(char)) != 0:
            return path
    raise AssertionError(f"no font of {fonts.families()} has {char!r}")


def test_a_cjk_font_is_installed_and_in_the_fallback_list(cjk_font: None) -> None:
    families = fonts.families()
    assert families[0] == fonts.BASE_FAMILY
    assert len(families) == 2 and families[1] in fonts.CJK_FAMILIES, (
        f"no CJK font found: install the Debian package {fonts.CJK_PACKAGE}")


def test_every_letter_of_the_seeds_languages_has_a_glyph(cjk_font: None) -> None:
    base, cjk = font_files()
    for name in NAMES:
        for char in name.replace(" ", ""):
            expected = cjk if name == JAPANESE else base  # DejaVu has Hebrew and Cyrillic
            assert drawn_by(char) == expected, (name, char)


def card(names: list[str]) -> bytes:
    rows = [CardRow(n + 1, name, 1600.0 - n, False, None, 3.0, 9) for n, name in enumerate(names)]
    return leaderboard_card(rows, "main ladder", words=card_words())


def chart(name: str) -> bytes:
    points = tuple(ChartPoint(START.replace(day=d), 1500.0 + d, d < 3, None)
                   for d in range(1, 6))
    return rating_chart([Series(name, "main", points)], f"{name} · main", words=chart_words())


def test_pictures_of_non_latin_names_miss_no_glyph(cjk_font: None) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        card(NAMES)
        for name in NAMES:
            chart(name)
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert missing == []


def test_right_to_left_names_are_drawn_in_reading_order(monkeypatch: pytest.MonkeyPatch) -> None:
    assert fonts.shown(HEBREW) == get_display(HEBREW) != HEBREW
    assert fonts.shown(HEBREW)[::-1] == HEBREW  # letters only: reversed as a whole
    assert fonts.shown("דוד 2") == get_display("דוד 2")
    assert fonts.shown(RUSSIAN) == RUSSIAN and fonts.shown(JAPANESE) == JAPANESE

    drawn: list[str] = []
    original = Figure.text

    def recording(self: Figure, x: float, y: float, s: str, *args: Any, **kwargs: Any) -> Any:
        drawn.append(s)
        return original(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(Figure, "text", recording)
    card([HEBREW, RUSSIAN])
    # The card hands matplotlib the name to lay out: in reading order when its layout reorders
    # right-to-left text itself (matplotlib 3.11 with libraqm), reordered here when it does not;
    # never reordered twice (tests/adapters/test_chart_fixes.py checks the glyphs' order).
    assert fonts.laid_out(HEBREW) in drawn
    assert (HEBREW if fonts.LAYOUT_REORDERS else get_display(HEBREW)) in drawn
    assert RUSSIAN in drawn


def test_long_names_are_cut_by_their_width_before_reordering() -> None:
    assert fonts.fitted("alice", 10) == "alice"
    assert fonts.fitted("abcdefghijkl", 6) == "abcde…"
    assert fonts.fitted("山田太郎山田太郎", 6) == "山田…"  # each ideograph two columns wide
    hebrew = "אבגדהוזחטיכלמנ"
    assert fonts.fitted(hebrew, 6) == hebrew[:5] + "…"  # the first letters read, kept


@pytest.fixture
def no_cjk_font(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(fonts, "CJK_FAMILIES", ("No Such Font Family",))
    fonts.forget()
    yield
    monkeypatch.undo()
    fonts.forget()


def test_without_a_cjk_font_pictures_still_come_with_a_warning(
    no_cjk_font: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.charts.fonts"):
        assert fonts.families() == (fonts.BASE_FAMILY,)
    assert fonts.CJK_PACKAGE in caplog.text
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert card([JAPANESE]).startswith(b"\x89PNG")
        assert chart(JAPANESE).startswith(b"\x89PNG")
    # The Japanese letters are drawn as boxes: matplotlib says which glyphs it lacks.
    assert any("missing from font" in str(w.message) for w in caught)
