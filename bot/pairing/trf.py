"""A club night as a FIDE Tournament Report File (TRF16): the file arbiters, rating officers and
pairing engines exchange (``/night export``, and the fide-dutch mode's input to py4swiss).

Source: FIDE Handbook C.04 Annex 2, "Format of Tournament Report File (TRF16)" (the columns of
the ``001`` player line and the result codes); the pairing engines' extensions of it: JaVaFo's
Advanced User Manual (``XXR`` rounds, ``XXC`` initial colour, ``XXP`` forbidden pairs, ``XXS``
points) and BBP Pairings' README (``BBU`` points for the pairing-allocated bye).
"""

from __future__ import annotations

import datetime

from .model import Absence, Mode, Night, Result, Round, eligible

#: TRF16 is one line a record, each ending in a CR; the LF after it lets the file read as lines
#: anywhere (py4swiss and bbpPairings take CR, LF or both)
LINE_END = "\r\n"

#: the name's columns, 15 to 47: a longer chat name is cut there
NAME_WIDTH = 33

#: 092, the type of tournament: free text in TRF16
TYPES = {
    Mode.SWISS: "Individual: Swiss-System (club night, clubrating's swiss)",
    Mode.NEAREST: "Individual: Swiss-System (club night, nearest score)",
    Mode.ROUNDROBIN: "Individual: Round-Robin (club night, Berger tables)",
    Mode.MCMAHON: "Individual: McMahon (club night)",
    Mode.FIDE_DUTCH: "Individual: Swiss-System (FIDE Dutch, C.04.3)",
}

#: a board's result as its first (white) and second (black) player's result codes
CODES = {
    Result.FIRST_WINS: ("1", "0"),
    Result.SECOND_WINS: ("0", "1"),
    Result.DRAW: ("=", "="),
    Result.FIRST_FORFEIT_WIN: ("+", "-"),
    Result.SECOND_FORFEIT_WIN: ("-", "+"),
}


def write(night: Night, title: str, date: datetime.date | None = None, *,
          next_round: bool = False) -> str:
    """``night`` as a TRF16 file: the header (012 name, 042/052 the night's date, 062 the number
    of players, 092 its type), one ``001`` line a player, then the engines' lines (``XXR``, and
    ``XXC``, ``XXP``, ``XXS``/``BBU`` where they say something).

    Only the rounds whose results are all in are written: TRF16 has no code for a game still
    being played. With ``next_round`` the file is the input for pairing the round after them:
    every player :func:`~bot.pairing.model.eligible` leaves out of it gets a ``0000 - Z`` cell
    for that round already, which both py4swiss and bbpPairings read as "not paired this round";
    ``ValueError`` (naming ``night``) if a round is still being played.

    Source: FIDE Handbook C.04 Annex 2 (TRF16); JaVaFo's Advanced User Manual (the XX codes);
    BBP Pairings' README and ``fileformats/trf.cpp`` (a result entered for the round being
    paired takes the player out of its pairing).
    """
    rounds = complete_rounds(night)
    if next_round and len(rounds) < len(night.rounds):
        raise ValueError(f"night: round {len(rounds) + 1} still has boards without a result; "
                         "the next round is paired once they are all in")
    numbers = numbering(night)
    cells = {key: [_cell(round_, key, numbers) for round_ in rounds] for key in numbers}
    if next_round:
        paired = {p.key for p in eligible(night)}
        for key, row in cells.items():
            if key not in paired:
                row.append(_absence_cell(Absence.ZERO))
    points = {key: sum(_points(cell, night.settings.bye_points) for cell in row)
              for key, row in cells.items()}
    lines = [f"012 {_printable(title)}"]
    if date is not None:
        # A night is played in one evening: it starts and ends that day.
        lines += [f"042 {date:%Y/%m/%d}", f"052 {date:%Y/%m/%d}"]
    lines += [f"062 {len(night.players)}", f"092 {TYPES[night.settings.mode]}"]
    for player in sorted(night.players, key=lambda p: numbers[p.key]):
        # The rank column allows ties (TRF16): here a player's rank is one more than the number
        # of players with more points; the tie-breaks are the standings' business.
        rank = 1 + sum(1 for other in points.values() if other > points[player.key])
        lines.append(_player_line(numbers[player.key], player.name or player.key,
                                  player.rating, points[player.key], rank, cells[player.key]))
    lines.append(f"XXR {rounds_planned(night, len(rounds) + int(next_round))}")
    if night.settings.mode is Mode.FIDE_DUTCH:
        # The top seed has white in round 1: py4swiss's default, said so that bbpPairings, which
        # has none, pairs round 1 the same.
        lines.append("XXC white1")
    for pair in sorted(sorted(numbers[key] for key in pair) for pair in night.forbidden
                       if all(key in numbers for key in pair)):
        lines.append(f"XXP {pair[0]} {pair[1]}")
    if night.settings.bye_points != 1.0:
        # The pairing-allocated bye scores what a win does unless said otherwise: JaVaFo's and
        # py4swiss's way (XXS PAB), then bbpPairings' (BBU).
        lines.append(f"XXS PAB={night.settings.bye_points:.1f}")
        lines.append(f"BBU {night.settings.bye_points:4.1f}")
    return LINE_END.join(lines) + LINE_END


def numbering(night: Night) -> dict[str, int]:
    """Each player's pairing number in the file: 1 to N in the order of their numbers tonight
    (TRF16 numbers players from 1 without gaps; a night's numbers already are, this makes
    sure)."""
    ordered = sorted(night.players, key=lambda p: (p.number, p.key))
    return {player.key: index for index, player in enumerate(ordered, start=1)}


def complete_rounds(night: Night) -> tuple[Round, ...]:
    """The rounds from the first up to the first one still being played, left out."""
    done: list[Round] = []
    for round_ in night.rounds:
        if not round_.complete():
            break
        done.append(round_)
    return tuple(done)


def rounds_planned(night: Night, played: int) -> int:
    """``XXR``, the night's number of rounds: its setting, or a round robin's table (everyone
    meets everyone once: N - 1 rounds, N for an odd N, who sit out in turn); never fewer than
    ``played``, the rounds in the file. A night without a set number that is no round robin says
    the rounds in the file.

    Source: JaVaFo's Advanced User Manual (XXR); FIDE Handbook C.05 Annex 1 (Berger tables).
    """
    planned = night.settings.rounds
    if planned is None and night.settings.mode is Mode.ROUNDROBIN:
        size = len(night.players)
        planned = size - 1 if size % 2 == 0 else size
    return max(planned or 0, played, 1)


def _cell(round_: Round, key: str, numbers: dict[str, int]) -> str:
    """A player's 8 characters for a round: the opponent's number, their colour and their
    result (``  12 w 1``), or ``0000 - X`` when they played no board. Someone the round does not
    mention (not yet joined, left) was not there: Z."""
    for board in round_.boards:
        if key in (board.first, board.second):
            assert board.result is not None  # complete_rounds() wrote only finished rounds
            first, second = CODES[board.result]
            if key == board.first:
                return f"{numbers[board.second]:>4} w {first}"
            return f"{numbers[board.first]:>4} b {second}"
    return _absence_cell(round_.absent.get(key, Absence.ZERO))


def _absence_cell(absence: Absence) -> str:
    return f"0000 - {absence.value}"


def _points(cell: str, bye_points: float) -> float:
    """What a cell scores: TRF16's codes, the pairing-allocated bye the night's bye points."""
    code = cell[-1]
    if code == Absence.PAIRING_BYE.value:
        return bye_points
    return {"1": 1.0, "+": 1.0, "=": 0.5, "H": 0.5}.get(code, 0.0)


def _player_line(number: int, name: str, rating: float, points: float, rank: int,
                 cells: list[str]) -> str:
    """A ``001`` line. TRF16's columns: 1-3 ``001``, 5-8 the pairing number, 10 sex, 11-13
    title, 15-47 name, 49-52 rating, 54-56 federation, 58-68 FIDE id, 70-79 birth date, 81-84
    points (``11.5``), 86-89 rank, then from 92 a 10-column cell a round (``OOOO C R`` and two
    spaces). A club night knows none of sex, title, federation, FIDE id or birth date: blank.

    Source: FIDE Handbook C.04 Annex 2 (TRF16), "Player Section".
    """
    # The ladder's rating, rounded, in the 4 columns the format has.
    shown = min(max(round(rating), 0), 9999)
    head = (f"001 {number:>4} {'':1}{'':>3} {_printable(name)[:NAME_WIDTH]:<{NAME_WIDTH}} "
            f"{shown:>4} {'':3} {'':>11} {'':10} {points:>4.1f} {rank:>4}")
    return head + "".join(f"  {cell}" for cell in cells)


def _printable(text: str) -> str:
    """A chat name or title on one line: control characters (a newline would end the record)
    become spaces."""
    return "".join(ch if ch.isprintable() else " " for ch in text).strip()
