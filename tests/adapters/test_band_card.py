"""A leaderboard card shows each member's rating band (issue 38): the card's rows carry it
from the standings, and a card with bands (a long one cut) is drawn at its size, its band
column inked only where a member holds a band."""

from __future__ import annotations

import io

from PIL import Image

from bot.charts import CardRow, card_rows, card_size, leaderboard_card
from bot.chat.pictures import card_words
from bot.service.results import Leaderboard, Standing


def test_card_rows_carry_the_band() -> None:
    board = Leaderboard("main", [Standing(1, "ann", 1631.0, False, None, 2, band="Gold"),
                                 Standing(2, "ben", 1584.0, False, None, 1)])
    assert card_rows(board) == [CardRow(1, "ann", 1631.0, False, None, None, 2, band="Gold"),
                                CardRow(2, "ben", 1584.0, False, None, None, 1)]


def _area(png: bytes, box: tuple[int, int, int, int]) -> bytes:
    """The pixels of ``box`` of a card."""
    return Image.open(io.BytesIO(png)).convert("RGB").crop(box).tobytes()


def test_a_card_with_bands_is_drawn_at_its_size_with_the_bands_where_they_are() -> None:
    rows = [CardRow(1, "ann", 1631.0, False, None, 15.0, 2, band="Grandmaster of the club"),
            CardRow(2, "ben", 1584.0, False, None, -16.0, 1)]
    png = leaderboard_card(rows, "main ladder", "dark", words=card_words())
    assert Image.open(io.BytesIO(png)).size == card_size(2)
    plain = leaderboard_card([CardRow(1, "ann", 1631.0, False, None, 15.0, 2),
                              CardRow(2, "ben", 1584.0, False, None, -16.0, 1)],
                             "main ladder", "dark", words=card_words())
    assert png != plain
    # the band's place: left of the rating column, on ann's row (the first); ben has none
    width, _ = card_size(2)
    first_row, second_row = (84 + 44, 84 + 44 + 46), (84 + 44 + 46, 84 + 44 + 92)
    band_x = (width - 24 - 100 - 105 - 90 - 150, width - 24 - 100 - 105 - 90)
    first = (band_x[0], first_row[0], band_x[1], first_row[1])
    second = (band_x[0], second_row[0], band_x[1], second_row[1])
    assert _area(png, first) != _area(plain, first)
    assert _area(png, second) == _area(plain, second)
