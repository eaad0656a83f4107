"""Edition 4 of ``club`` (issue 31): ``?`` means "we do not know this rating yet".

A rating is marked while its deviation is more than ``provisional_margin`` (50) points above an
established player's, or for a newcomer's first ``provisional_games`` (24) games; editions 2
and 3 marked any deviation above the floor, so that a regular who won 30 games in a row still
showed ``?``. The mark is only shown: edition 4 rates every game to the bit as edition 3."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ratings_core.club import ClubElo
from ratings_core.evidence import established_deviation
from ratings_core.model import Game, PlayerState
from ratings_core.replay import replay
from ratings_core.systems import EDITION, make_system
from tests.core.test_past_editions_frozen import DIGESTS, digest
from tests.helpers import DAY0

FLOOR = established_deviation(32.0)  # 74.6: the deviation whose K is 32


def club(edition: int) -> ClubElo:
    system = make_system("club", edition=edition)
    assert isinstance(system, ClubElo)
    return system


def straight_wins(n: int) -> list[Game]:
    """A new club where zoe beats the five others in turn, a game an hour."""
    others = ("ann", "bob", "cy", "dee", "eve")
    return [Game("zoe", others[i % 5], 1.0, DAY0 + timedelta(hours=i)) for i in range(n)]


def test_edition_4_is_the_default() -> None:
    assert EDITION == 4
    assert club(EDITION).params.provisional_margin == 50.0
    assert club(3).params.provisional_margin == 0.0


def test_thirty_straight_wins_are_not_provisional() -> None:
    state = replay(club(4), straight_wins(30)).players["zoe"]
    assert state.games == 30
    assert state.deviation is not None and FLOOR < state.deviation < FLOOR + 50
    assert not club(4).is_provisional(state)
    assert club(3).is_provisional(state)  # what issue 31 found: 30 wins, still "?"


@pytest.mark.parametrize("games", [1, 10, 23])
def test_a_newcomer_is_provisional(games: int) -> None:
    state = replay(club(4), straight_wins(games)).players["zoe"]
    assert club(4).is_provisional(state)


def test_a_member_who_has_not_played_is_provisional() -> None:
    system = club(4)
    assert system.is_provisional(system.newcomer(DAY0, None, 0.0))


@pytest.mark.parametrize(("deviation", "marked"), [
    (FLOOR, False), (FLOOR + 49.9, False), (FLOOR + 50.1, True), (300.0, True)])
def test_a_regular_is_marked_only_well_above_the_floor(deviation: float, marked: bool) -> None:
    state = PlayerState(rating=1600.0, games=40, deviation=deviation, peak=1600.0)
    assert club(4).is_provisional(state) is marked
    assert club(3).is_provisional(state) is (deviation > FLOOR)


def test_a_master_is_measured_from_the_masters_floor() -> None:
    floor = established_deviation(16.0)  # 52.7: K 16 from 2400
    state = PlayerState(rating=2450.0, games=40, deviation=floor + 60.0, peak=2450.0)
    assert club(4).is_provisional(state)
    assert not club(4).is_provisional(PlayerState(rating=2450.0, games=40,
                                                  deviation=floor + 40.0, peak=2450.0))


def test_the_mark_moves_no_rating() -> None:
    """Edition 4 rates the frozen history to the bit as edition 3."""
    assert digest(4) == DIGESTS[3]
