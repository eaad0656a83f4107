"""Round robin: the Berger tables of FIDE C.05 Annex 1, written out from the Handbook."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from bot.pairing import roundrobin
from bot.pairing.errors import COMPLETE, FORBIDDEN, NoPairing
from bot.pairing.model import Absence, Board, Mode, Player, Round, Status

from .nights import night, players

# FIDE Handbook C.05 Annex 1, "Berger Tables for Round-Robin Tournaments": white first
ANNEX_1 = {
    4: [  # 3 or 4 players
        [(1, 4), (2, 3)],
        [(4, 3), (1, 2)],
        [(2, 4), (3, 1)],
    ],
    6: [  # 5 or 6 players
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ],
    8: [  # 7 or 8 players
        [(1, 8), (2, 7), (3, 6), (4, 5)],
        [(8, 5), (6, 4), (7, 3), (1, 2)],
        [(2, 8), (3, 1), (4, 7), (5, 6)],
        [(8, 6), (7, 5), (1, 4), (2, 3)],
        [(3, 8), (4, 2), (5, 1), (6, 7)],
        [(8, 7), (1, 6), (2, 5), (3, 4)],
        [(4, 8), (5, 3), (6, 2), (7, 1)],
    ],
}


@pytest.mark.parametrize("size", sorted(ANNEX_1))
def test_the_tables_are_annex_1s(size: int) -> None:
    for number, published in enumerate(ANNEX_1[size], start=1):
        assert roundrobin.berger(size, number) == published


def play_through(count: int) -> list[Round]:
    """Every round of a round robin of ``count`` players, results all draws."""
    people = players("abcdefgh"[:count])
    rounds: list[Round] = []
    while True:
        current = night(people, *rounds, mode=Mode.ROUNDROBIN)
        try:
            pairing = roundrobin.pair(current)
        except NoPairing as done:
            assert done.reason == COMPLETE
            return rounds
        boards = tuple(Board(b.number, b.first, b.second, b.result) for b in pairing.boards)
        absent = {pairing.bye: Absence.PAIRING_BYE} if pairing.bye else {}
        rounds.append(Round(len(rounds) + 1, boards, absent))


@pytest.mark.parametrize("count", [4, 5, 6])
def test_pairs_by_the_table_and_everyone_meets_everyone_once(count: int) -> None:
    rounds = play_through(count)
    size = count + count % 2
    letters = "abcdefgh"
    assert len(rounds) == size - 1
    for played, published in zip(rounds, ANNEX_1[size], strict=True):
        expected = [(letters[w - 1], letters[b - 1]) for w, b in published
                    if max(w, b) <= count]
        assert [(b.first, b.second) for b in played.boards] == expected
    pairs = [frozenset((b.first, b.second)) for r in rounds for b in r.boards]
    assert sorted(pairs, key=sorted) == sorted(
        (frozenset(p) for p in itertools.combinations(letters[:count], 2)), key=sorted)
    if count % 2:  # everyone sits out exactly once (the dummy's opponent)
        assert sorted(k for r in rounds for k in r.absent) == list(letters[:count])


def test_the_table_is_fixed_at_round_one() -> None:
    people = players("abcde")
    first = roundrobin.pair(night(people, mode=Mode.ROUNDROBIN))
    # five players: a dummy 6th; player 1 meets it in round 1, so a sits out
    assert first.bye == "a" and first.rules == roundrobin.RULES
    assert [(b.first, b.second) for b in first.boards] == [("b", "e"), ("c", "d")]
    r1 = Round(1, first.boards, {"a": Absence.PAIRING_BYE})
    # b leaves and f joins late: b's boards are still made (the service records forfeits), f
    # is not paired (no late joiners)
    late = Player("f", "F", 2500.0, 6, joined_round=2)
    later = (*[replace(p, status=Status.OUT) if p.key == "b" else p for p in people], late)
    second = roundrobin.pair(night(later, r1, mode=Mode.ROUNDROBIN))
    assert [(b.first, b.second) for b in second.boards] == [("e", "c"), ("a", "b")]
    assert second.bye == "d"


def test_settings_rounds_and_a_second_cycle_reversed() -> None:
    people = players("abcd")
    two = night(people, mode=Mode.ROUNDROBIN, rounds=2)
    r1 = Round(1, roundrobin.pair(two).boards)
    r2 = Round(2, roundrobin.pair(night(people, r1, mode=Mode.ROUNDROBIN, rounds=2)).boards)
    with pytest.raises(NoPairing) as done:
        roundrobin.pair(night(people, r1, r2, mode=Mode.ROUNDROBIN, rounds=2))
    assert done.value.reason == COMPLETE
    rounds = [Round(i + 1, b) for i, b in enumerate(
        [((Board(1, "a", "d"), Board(2, "b", "c"))), (Board(1, "d", "c"), Board(2, "a", "b")),
         (Board(1, "b", "d"), Board(2, "c", "a"))])]
    fourth = roundrobin.pair(night(people, *rounds, mode=Mode.ROUNDROBIN, rounds=6))
    assert [(b.first, b.second) for b in fourth.boards] == [("d", "a"), ("c", "b")]


def test_a_forbidden_pair_refuses_its_round() -> None:
    with pytest.raises(NoPairing) as refused:
        roundrobin.pair(night(players("abcd"), mode=Mode.ROUNDROBIN, forbidden=["b-c"]))
    assert refused.value.reason == FORBIDDEN and set(refused.value.keys) == {"b", "c"}
