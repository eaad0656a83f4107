"""Issue 30, "Names are data, never markup": every name in every picture is drawn as written. A
name like ``$\\q$`` is no math text to matplotlib (it broke /card for the whole club), and
``$ab$`` and ``$a b$`` draw differently (as math text both would be an italic "ab")."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from bot.charts import card as card_module
from bot.charts import chart as chart_module
from bot.charts import leaderboard_card, rating_chart
from bot.charts.data import CardRow, ChartPoint, Series
from bot.chat.pictures import card_picture, card_words, chart_picture, chart_words
from bot.service.results import Leaderboard, RatingHistory, RatingPoint, Standing
from tests.adapters.test_chart_fixes import drawn

START = datetime(2024, 3, 1, 19)
MARKUP = ["$\\q$", "$ab$", "$a b$", "$x^2$ and $", "\\$5", "a$b$c"]


def series(name: str) -> Series:
    return Series(name, "main", tuple(
        ChartPoint(START + timedelta(hours=5 * n), rating, n < 1, None)
        for n, rating in enumerate([1500, 1540, 1520])))


def card(name: str, ladder: str = "main") -> bytes:
    return leaderboard_card([CardRow(1, name, 1540.0, False, None, 3.0, 3),
                             CardRow(2, "bob", 1460.0, False, None, -3.0, 3)], ladder,
                            words=card_words())


def texts_with(figure: Figure, part: str) -> list[Text]:
    return [t for t in figure.findobj(Text) if part in t.get_text()]


@pytest.mark.parametrize("name", MARKUP)
def test_a_name_with_dollars_is_drawn_as_written_on_a_card(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    assert card(name).startswith(b"\x89PNG")
    figure = drawn(monkeypatch, card_module, lambda: card(name, f"ladder {name}"))
    shown = texts_with(figure, name)
    assert len(shown) == 2  # the name, and the title naming the ladder
    assert not any(t.get_parse_math() for t in shown)


@pytest.mark.parametrize("name", MARKUP)
def test_a_name_with_dollars_is_drawn_as_written_on_a_chart(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    assert rating_chart([series(name), series("bob")], f"{name} · main",
                        words=chart_words()).startswith(b"\x89PNG")
    figure = drawn(monkeypatch, chart_module,
                   lambda: rating_chart([series(name), series("bob")], f"{name} · main",
                                        words=chart_words()))
    shown = texts_with(figure, name)
    assert len(shown) == 2  # the title and the legend
    assert not any(t.get_parse_math() for t in figure.findobj(Text) if "$" in t.get_text())


def test_dollars_with_and_without_a_space_draw_differently() -> None:
    assert card("$ab$") != card("$a b$")
    assert (rating_chart([series("$ab$")], "$ab$ · main", words=chart_words())
            != rating_chart([series("$a b$")], "$a b$ · main", words=chart_words()))


def test_pictures_of_a_club_with_such_a_name_are_made() -> None:
    board = Leaderboard("main", [Standing(1, "$\\q$", 1540.0, False, None, 3),
                                 Standing(2, "bob", 1460.0, False, None, 3)])
    assert card_picture(board).png.startswith(b"\x89PNG")
    history = RatingHistory("$\\q$", "main", [
        RatingPoint(START.isoformat(), 1500, True, None, 0),
        RatingPoint((START + timedelta(days=1)).isoformat(), 1540, False, None, 1)])
    assert chart_picture([history]).png.startswith(b"\x89PNG")
