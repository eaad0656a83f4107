"""The fide-dutch mode: the next round of a night paired by the FIDE Dutch system (2017 rules,
C.04.3), through py4swiss, the optional extra ``clubrating[fide]``.

We do not write the Dutch rules again: the night goes to py4swiss as the TRF16 file every
FIDE-endorsed engine reads (:mod:`bot.pairing.trf`), as lichess hands its Swiss rounds to
bbpPairings. py4swiss is imported only here, only when a night asks for it, so a club without
the extra runs every other mode.

Source: FIDE Handbook C.04.3, "FIDE (Dutch) System" (2017 rules, effective till 31 January
2026); py4swiss 0.3.1 (github.com/Moritz72/py4swiss), whose README says it was tested against
bbpPairings and gives the same pairings.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import tempfile
from pathlib import Path

from . import trf
from .errors import ABSOLUTE, NoPairing
from .model import Absence, Board, Night, Pairing, eligible

#: the extra that brings py4swiss, as the error says it
INSTALL = "pip install 'clubrating[fide]'"

#: lines of our TRF that py4swiss has no code for and, parsing strictly, would refuse: BBU is
#: bbpPairings' way of saying the bye's points (py4swiss reads them from XXS)
NOT_FOR_PY4SWISS = ("BBU",)


class DutchUnavailable(RuntimeError):
    """The fide-dutch mode was asked for but py4swiss, which pairs it, is not installed."""

    def __init__(self) -> None:
        super().__init__("the fide-dutch mode pairs with py4swiss, which is not installed: "
                         f"{INSTALL}")


def available() -> bool:
    """Whether py4swiss is installed, so that a night can be opened in the fide-dutch mode."""
    return importlib.util.find_spec("py4swiss") is not None


def rules() -> str:
    """The rules and the engine that pair, for the chat to say (``Pairing.rules``)."""
    return f"FIDE Dutch 2017 (C.04.3), py4swiss {importlib.metadata.version('py4swiss')}"


def pair(night: Night) -> Pairing:
    """The next round of ``night`` by the FIDE Dutch system: the night so far goes to py4swiss
    as TRF16 (with its number of rounds, ``XXR``, which the last round's rules read), the
    players :func:`~bot.pairing.model.eligible` leaves out marked as not paired in it; the
    engine's pairs come back as boards in its order (C.04.3 D.9: the higher score first), the
    first player of each white, and the pairing-allocated bye apart.

    Raises :class:`DutchUnavailable` without py4swiss; ``ValueError`` naming ``night`` while a
    round is being played, or when no pairing meets the absolute criteria (C.04.3 C.1-C.3: no
    rematch, no second bye, no absolute colour broken).

    Source: FIDE Handbook C.04.3; py4swiss 0.3.1, ``DutchEngine.generate_pairings``.
    """
    if not available():
        raise DutchUnavailable()
    if night.settings.rounds is None:
        # XXR decides which round is the last, where C.04.3 A.7 eases the rules for the
        # topscorers: a Dutch night says its rounds when it opens.
        raise ValueError("night.settings.rounds: the FIDE Dutch system pairs a night of a set "
                         "number of rounds (None given)")
    if not eligible(night):
        return Pairing(boards=(), rules=rules())
    # Only the players in the tournament's list go to the engine (see _in_the_list); their
    # pairing numbers in the file map back to the night's keys.
    listed = _in_the_list(night)
    keys = {number: key for key, number in trf.numbering(listed).items()}
    boards: list[Board] = []
    bye = None
    for white, black in _engine_pairs(trf.write(listed, "club night", next_round=True),
                                      len(night.rounds) + 1):
        # The engine says the pairing-allocated bye as a pair with 0.
        if black == 0 or white == 0:
            bye = keys[white or black]
            continue
        boards.append(Board(number=len(boards) + 1, first=keys[white], second=keys[black]))
    return Pairing(boards=tuple(boards), bye=bye, rules=rules())


def _engine_pairs(text: str, round_number: int) -> list[tuple[int, int]]:
    """py4swiss's pairing of the round after those in the TRF ``text``: (white, black) pairing
    numbers in its board order, 0 for the bye. The file is parsed strictly, so that a line of
    ours it cannot read is an error here, not a player left out."""
    from py4swiss.engines import DutchEngine  # type: ignore[import-untyped]
    from py4swiss.engines.common import PairingError  # type: ignore[import-untyped]
    from py4swiss.trf import TrfParser  # type: ignore[import-untyped]

    lines = [line for line in text.splitlines() if not line.startswith(NOT_FOR_PY4SWISS)]
    # py4swiss reads a TRF from a file only; the file lives as long as the parsing.
    with tempfile.TemporaryDirectory(prefix="clubrating-dutch-") as folder:
        path = Path(folder) / "night.trf"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        parsed = TrfParser.parse(path, strict=True)
    try:
        pairs = DutchEngine.generate_pairings(parsed)
    except PairingError as error:
        # no pairing of the round meets the absolute criteria (C.04.3 C.1-C.3)
        raise NoPairing(ABSOLUTE) from error
    return [(int(pair_.white), int(pair_.black)) for pair_ in pairs]


def _in_the_list(night: Night) -> Night:
    """The night without the players who have no pairing number yet, for py4swiss.

    A pairing number's parity gives the colours where nothing else does (C.04.3 E.5: the higher
    ranked of two players with no colour to go by gets the initial colour if their number is
    odd). bbpPairings, FIDE-endorsed, counts for it only the players in the tournament's list:
    those paired in some round so far (a board, forfeits included, or the pairing-allocated
    bye) or paired in this one; py4swiss counts every ``001`` line, so when, say, the top seed
    misses round 1 everyone below gets the other colour. Leaving out who has never been in a
    pairing and is not in this one (absent from the start, or joined but not yet come) makes
    py4swiss count as bbpPairings does; they have no game, so nothing else changes. The export
    (:func:`bot.pairing.trf.write`) keeps them: bbpPairings counts them out itself.

    Source: BBP Pairings, ``Tournament::updateRanks`` ("effective pairing number"), and its
    issue 30 (py4swiss's author on this very case, 2025-11).
    """
    # In the list: paired now, or paired in some round so far.
    paired = {p.key for p in eligible(night)}
    for round_ in night.rounds:
        paired |= {key for board in round_.boards for key in (board.first, board.second)}
        paired |= {key for key, why in round_.absent.items() if why is Absence.PAIRING_BYE}
    return dataclasses.replace(night, players=tuple(p for p in night.players if p.key in paired))
