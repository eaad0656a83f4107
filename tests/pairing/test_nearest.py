"""The nearest mode: closest ratings whatever the score, no rematch, the bye to the lowest."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from bot.pairing import nearest, reasons
from bot.pairing.errors import FORBIDDEN, NoPairing
from bot.pairing.model import Absence, Mode, Night, Player, eligible

from .nights import histories, night, round_

# ratings chosen so that the closest pairs are obvious: a-b, c-d, e-f
SIX = (Player("a", "A", 2000, 1), Player("b", "B", 1990, 2), Player("c", "C", 1700, 3),
       Player("d", "D", 1690, 4), Player("e", "E", 1400, 5), Player("f", "F", 1390, 6))


def pairs(n: Night) -> list[frozenset[str]]:
    return [frozenset((b.first, b.second)) for b in nearest.pair(n).boards]


def test_closest_ratings_whatever_the_score() -> None:
    # a beat c (a leads, c does not): nearest ignores scores, a-b again by rating
    played = night(SIX, round_(1, "a-c 1-0, b-e 1-0, d-f 0-1"), mode=Mode.NEAREST)
    assert pairs(played) == [frozenset("ab"), frozenset("cd"), frozenset("ef")]


def test_no_rematch_the_next_closest_instead() -> None:
    played = night(SIX, round_(1, "a-b =, c-d =, e-f ="), mode=Mode.NEAREST)
    pairing = nearest.pair(played)
    # rematch-free pairings and their squared distances: a-c b-e d-f 90,000 + 348,100 +
    # 90,000 = 528,100 is the least (a-c b-f d-e: 534,100; a-d b-e c-f: 540,300)
    assert [frozenset((b.first, b.second)) for b in pairing.boards] == [
        frozenset("ac"), frozenset("be"), frozenset("df")]
    # each had their nearest rating met in round 1
    assert pairing.reasons == {1: reasons.REMATCH_AVOIDED, 2: reasons.REMATCH_AVOIDED,
                               3: reasons.REMATCH_AVOIDED}


def test_bye_to_the_lowest_rated_without_a_bye() -> None:
    five = SIX[:5]
    assert nearest.pair(night(five, mode=Mode.NEAREST)).bye == "e"
    r1 = round_(1, "a-b =, c-d =", e=Absence.PAIRING_BYE)
    assert nearest.pair(night(five, r1, mode=Mode.NEAREST)).bye == "d"


def test_forbidden_never() -> None:
    assert frozenset("ab") not in pairs(night(SIX, mode=Mode.NEAREST, forbidden=["a-b"]))
    with pytest.raises(NoPairing) as refused:
        nearest.pair(night(SIX[:2], mode=Mode.NEAREST, forbidden=["a-b"]))
    assert refused.value.reason == FORBIDDEN


def test_colours_and_board_order() -> None:
    pairing = nearest.pair(night(SIX, mode=Mode.NEAREST))
    # round 1, E.5: the higher ranked gets the initial colour (white, seed 0) when their
    # pairing number is odd: a (1), c (3), e (5)
    assert [(b.first, b.second) for b in pairing.boards] == [("a", "b"), ("c", "d"),
                                                             ("e", "f")]
    assert [(b.first, b.second) for b in nearest.pair(
        night(SIX, mode=Mode.NEAREST, seed=1)).boards] == [("b", "a"), ("d", "c"), ("f", "e")]
    plain = nearest.pair(night(SIX, mode=Mode.NEAREST, colours=False))
    assert [(b.first, b.second) for b in plain.boards] == [("a", "b"), ("c", "d"), ("e", "f")]


@settings(max_examples=100, deadline=None)
@given(histories(mode=Mode.NEAREST))
def test_deterministic_and_complete(n: Night) -> None:
    try:
        first = nearest.pair(n)
    except NoPairing:
        return
    assert nearest.pair(n) == first
    seated = [k for b in first.boards for k in (b.first, b.second)]
    seated += [first.bye] if first.bye else []
    assert sorted(seated) == sorted(p.key for p in eligible(n))
    assert not any(frozenset((b.first, b.second)) in n.forbidden for b in first.boards)
