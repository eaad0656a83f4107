"""The ``roundrobin`` mode: everyone meets everyone once, by the Berger tables (issue 36).

The table is fixed at round 1: its players are those paired then (the eligible players when
round 1 is paired; afterwards, those on round 1's boards and its pairing bye), numbered 1, 2,
... by pairing number. Nobody joins later (ERRATA: a round robin takes no late joiners). A
player who leaves (``/out``) or pauses keeps their place in the table: their boards are still
produced, and the service records them as forfeits (ERRATA: a player who leaves forfeits the
games left). A forbidden pair can never be paired: the round that would pair them is refused.

Source: FIDE Handbook C.05, Annex 1 (Berger tables for round-robin tournaments), in our words:
with ``n`` players (``n`` even; with an odd number a dummy player ``n`` is added, and whoever
the table pairs with it sits the round out), round 1 pairs ``1-n, 2-(n-1), ..., n/2-(n/2+1)``.
In round ``r`` the player meeting ``n`` is ``x = 1 + (r-1)·n/2 mod (n-1)``; ``n`` has black in
odd rounds and white in even ones; board ``k`` (from 2) pairs ``x+(k-1)`` (white) with
``x-(k-1)``, counted round ``1 .. n-1``. That rotation writes out Annex 1's tables exactly
(the tests hold the published tables of 4, 5 and 6 players).

The one sitting out gets the pairing bye (:attr:`~bot.pairing.model.Pairing.bye`): the service
records it as :attr:`~bot.pairing.model.Absence.PAIRING_BYE`, worth ``bye_points``. Annex 1 says
only that the dummy's opponent has a free round; the points are the issue's choice (ERRATA),
and they change no place in a round robin played through: everyone sits out once.

``Settings.rounds`` None plays the table once (``n-1`` rounds); more rounds go round the table
again with the colours reversed (a double round robin, C.05 Annex 1's note on it).
"""

from __future__ import annotations

from .errors import COMPLETE, FORBIDDEN, TOO_FEW_PLAYERS, NoPairing
from .model import Absence, Board, Night, Pairing, Player, eligible

#: the rules' name the pairing carries
RULES = "FIDE C.05 Annex 1 (Berger tables)"


def roster(night: Night) -> list[Player]:
    """The table's players in table order (pairing number): fixed by round 1."""
    if not night.rounds:
        chosen = eligible(night)
    else:
        first = night.rounds[0]
        keys = {k for b in first.boards for k in (b.first, b.second)}
        keys |= {k for k, a in first.absent.items() if a is Absence.PAIRING_BYE}
        chosen = [p for p in night.players if p.key in keys]
    return sorted(chosen, key=lambda p: p.number)


def berger(size: int, round_number: int) -> list[tuple[int, int]]:
    """Round ``round_number`` (1 .. size-1) of the Berger table of ``size`` (even) players:
    (white, black) by table number, board 1 first."""
    if size < 2 or size % 2:
        raise ValueError(f"size must be even and at least 2, not {size}")
    if not 1 <= round_number < size:
        raise ValueError(f"round_number must be 1 .. {size - 1}, not {round_number}")
    cycle = size - 1

    def seat(k: int) -> int:  # counted round 1 .. n-1
        return (k - 1) % cycle + 1

    x = seat(1 + (round_number - 1) * (size // 2))
    boards = [(x, size) if round_number % 2 else (size, x)]
    boards += [(seat(x + k), seat(x - k)) for k in range(1, size // 2)]
    return boards


def pair(night: Night) -> Pairing:
    """The next round of a ``roundrobin`` night from the Berger table (see the module)."""
    table = roster(night)
    if len(table) < 2:
        raise NoPairing(TOO_FEW_PLAYERS, *[p.key for p in table])
    size = len(table) + len(table) % 2
    cycle = size - 1
    number = len(night.rounds) + 1
    if number > (night.settings.rounds or cycle):
        raise NoPairing(COMPLETE)
    reverse = ((number - 1) // cycle) % 2 == 1
    boards: list[Board] = []
    bye: str | None = None
    for white, black in berger(size, (number - 1) % cycle + 1):
        if reverse:
            white, black = black, white
        if max(white, black) > len(table):  # the dummy: its opponent sits out
            bye = table[min(white, black) - 1].key
            continue
        first, second = table[white - 1].key, table[black - 1].key
        if frozenset((first, second)) in night.forbidden:
            raise NoPairing(FORBIDDEN, first, second)
        boards.append(Board(len(boards) + 1, first, second))
    return Pairing(tuple(boards), bye=bye, rules=RULES)
