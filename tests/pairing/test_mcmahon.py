"""McMahon (go): bands, the bar, starting scores, the handicap and its cap, the pairing."""

from __future__ import annotations

import pytest

from bot.pairing import mcmahon, reasons
from bot.pairing.model import Mode, Player, Settings

from .nights import night, round_

# bands of 100 points: a, b 21; c 19; d 18; e 15 (joins late)
A, B = Player("a", "A", 2150, 1), Player("b", "B", 2120, 2)
C, D = Player("c", "C", 1950, 3), Player("d", "D", 1800, 4)
LATE = Player("e", "E", 1500, 5, joined_round=2)


def test_band_is_the_rating_divided_by_the_width_rounded_down() -> None:
    assert [mcmahon.band(p, 100) for p in (A, B, C, D)] == [21, 21, 19, 18]
    assert mcmahon.band(Player("x", "X", 1999.99, 9), 100) == 19
    assert mcmahon.band(Player("x", "X", 1999.99, 9), 250) == 7
    with pytest.raises(ValueError, match="band_width"):
        mcmahon.band(A, 0)


def test_starting_scores_the_bar_and_the_floor() -> None:
    # bar 1: the top band (21) starts level at 3 above the lowest band (18)
    assert mcmahon.starting_scores(night((A, B, C, D), mode=Mode.MCMAHON)) == {
        "a": 3, "b": 3, "c": 1, "d": 0}
    # bar 3: bands 21, 20, 19 all start level at 1
    assert mcmahon.starting_scores(night((A, B, C, D), mode=Mode.MCMAHON, bar=3)) == {
        "a": 1, "b": 1, "c": 1, "d": 0}
    # a late joiner below everyone starts at 0, and moves nobody's start
    assert mcmahon.starting_scores(night((A, B, C, D, LATE), mode=Mode.MCMAHON)) == {
        "a": 3, "b": 3, "c": 1, "d": 0, "e": 0}
    with pytest.raises(ValueError, match="bar"):
        mcmahon.starting_scores(night((A, B), mode=Mode.MCMAHON, bar=0))


def test_handicap_is_the_band_difference_less_one_capped() -> None:
    n = night((A, B, C, D), mode=Mode.MCMAHON)
    assert mcmahon.handicap(A, B, n) == 0  # same band
    assert mcmahon.handicap(C, D, n) == 0  # one band: even game, the weaker takes black
    assert mcmahon.handicap(A, C, n) == 1
    assert mcmahon.handicap(A, D, n) == 2
    capped = night((A, B, C, D), mode=Mode.MCMAHON, handicap_limit=1)
    assert mcmahon.handicap(A, D, capped) == 1
    assert mcmahon.handicap(A, LATE, night((A, LATE), mode=Mode.MCMAHON)) == 5
    assert mcmahon.handicap(A, LATE, night((A, LATE), mode=Mode.MCMAHON,
                                           handicap_limit=4)) == 4


def test_pairs_on_mcmahon_score_the_stronger_first() -> None:
    # McMahon scores 3, 3, 1, 0: a-b in the top group; c floats down to d
    pairing = mcmahon.pair(night((A, B, C, D), mode=Mode.MCMAHON))
    assert [(b.first, b.second, b.handicap) for b in pairing.boards] == [
        ("a", "b", 0), ("c", "d", 0)]
    assert pairing.reasons == {2: reasons.SCORE_GROUP}
    # after b beat a and d beat c: scores b 4, a 3, c 1, d 1; a-b and c-d met. b-c with a-d
    # and b-d with a-c are equal on every rule (score differences 36 + 16 half points
    # squared, closeness 0 + 1): the lot decides. The stronger is first; the handicap is
    # the band difference less one (21-19: 1, 21-18: 2)
    played = night((A, B, C, D), round_(1, "a-b 0-1, c-d 0-1"), mode=Mode.MCMAHON)
    second = mcmahon.pair(played)
    assert {(b.first, b.second, b.handicap) for b in second.boards} in (
        {("b", "c", 1), ("a", "d", 2)}, {("b", "d", 2), ("a", "c", 1)})
    assert second.boards[0].first == "b"
    assert set(second.reasons.values()) == {reasons.REMATCH_AVOIDED}


def test_no_colours_in_go() -> None:
    # colours off or on, the stronger is first: McMahon never asks the colour rules
    on = mcmahon.pair(night((A, B, C, D), mode=Mode.MCMAHON, colours=True))
    off = mcmahon.pair(night((A, B, C, D), mode=Mode.MCMAHON, colours=False))
    assert on == off
    assert Settings().handicap_limit == 9
