"""The reference engine for the fide-dutch mode's tests: BBP Pairings v5.0.1 (FIDE-endorsed,
Dutch 2017 rules), found beside the clone at ``../shared/tools/bbpPairings``, and a reader of
the TRF16 files it writes, for the tournaments it generated (``data/*.trf``).

The product never runs this binary: it is only the yardstick py4swiss is held to.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from bot.pairing.model import (
    Absence,
    Board,
    Mode,
    Night,
    Player,
    Result,
    Round,
    Settings,
    Status,
)

#: BBP Pairings, beside the repository (CI checks ../shared out beside the clone)
BBP = Path(__file__).resolve().parents[3] / "shared" / "tools" / "bbpPairings"
#: the tournaments BBP Pairings generated (data/generate.py)
DATA = Path(__file__).resolve().parent / "data"

#: a white player's result code and the board's result
RESULTS = {"1": Result.FIRST_WINS, "0": Result.SECOND_WINS, "=": Result.DRAW,
           "+": Result.FIRST_FORFEIT_WIN, "-": Result.SECOND_FORFEIT_WIN}


@dataclass(frozen=True)
class Cell:
    """A player's entry for a round: opponent's number (0: none), colour, result code."""

    opponent: int
    colour: str
    code: str


@dataclass(frozen=True)
class Tournament:
    """A TRF16 file as read: each player's number, name and rating, and their cells."""

    names: dict[int, str]
    ratings: dict[int, int]
    cells: dict[int, list[Cell]]

    @property
    def rounds(self) -> int:
        return max(len(row) for row in self.cells.values())


def read(text: str) -> Tournament:
    """The ``001`` lines of a TRF16 file (TRF16's columns: number 5-8, name 15-47, rating 49-52,
    a cell a round from column 92, ten columns each)."""
    names: dict[int, str] = {}
    ratings: dict[int, int] = {}
    cells: dict[int, list[Cell]] = {}
    for line in text.replace("\r", "\n").split("\n"):
        if not line.startswith("001"):
            continue
        number = int(line[4:8])
        names[number] = line[14:47].strip()
        ratings[number] = int(line[48:52].strip() or 0)
        row = []
        for start in range(91, len(line.rstrip()), 10):
            cell = line[start:start + 8]
            opponent = cell[0:4].strip()
            row.append(Cell(int(opponent or 0), cell[5], cell[7]))
        cells[number] = row
    return Tournament(names, ratings, cells)


def key(number: int) -> str:
    return f"p{number}"


def night_before(tournament: Tournament, round_number: int) -> Night:
    """The night as it stands when ``round_number`` is paired: the rounds before it, and whoever
    has no board in it (a half-point or zero-point bye entered ahead) paused."""
    rounds = []
    for index in range(round_number - 1):
        boards = []
        absent: dict[str, Absence] = {}
        for number, row in sorted(tournament.cells.items()):
            cell = row[index]
            if cell.opponent == 0:
                absent[key(number)] = Absence(cell.code)
            elif cell.colour == "w":
                boards.append((number, cell))
        ordered = tuple(
            Board(board, key(number), key(cell.opponent), _result(tournament, number, index))
            for board, (number, cell) in enumerate(boards, start=1))
        rounds.append(Round(index + 1, ordered, absent))
    players = tuple(
        Player(key(number), tournament.names[number], float(tournament.ratings[number]), number,
               Status.IN if _paired(tournament.cells[number][round_number - 1])
               else Status.PAUSED)
        for number in sorted(tournament.cells))
    return Night(players, tuple(rounds), Settings(mode=Mode.FIDE_DUTCH,
                                                 rounds=tournament.rounds))


def pairs_of(tournament: Tournament, round_number: int) -> tuple[set[tuple[str, str]], str | None]:
    """A round of the file: its (white, black) pairs and the pairing-allocated bye."""
    pairs = set()
    bye = None
    for number, row in tournament.cells.items():
        cell = row[round_number - 1]
        if cell.colour == "w":
            pairs.add((key(number), key(cell.opponent)))
        elif cell.code == "U":
            bye = key(number)
    return pairs, bye


def pair_next(trf_text: str, folder: Path) -> list[tuple[int, int]]:
    """BBP Pairings' pairing of the round after those in ``trf_text``, board by board (``-p``:
    the number of pairs, then a pair of numbers a line, 0 for the bye)."""
    source = folder / "night.trf"
    target = folder / "pairs.txt"
    source.write_text(trf_text, encoding="utf-8")
    run = subprocess.run([str(BBP), "--dutch", str(source), "-p", str(target)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr + run.stdout
    lines = target.read_text(encoding="utf-8").split()
    numbers = [int(word) for word in lines[1:]]
    return list(zip(numbers[0::2], numbers[1::2], strict=True))


def check(trf_text: str, folder: Path) -> set[int]:
    """BBP Pairings' check of every round of a file (``-c``): the rounds it would have paired
    otherwise, none when it agrees with every one. It exits 0 either way (a file it cannot
    read is another code): it prints "check: Round #N" for each round, then "Checker
    pairings" beside "Tournament pairings" under one it pairs differently."""
    source = folder / "check.trf"
    source.write_text(trf_text, encoding="utf-8")
    run = subprocess.run([str(BBP), "--dutch", str(source), "-c"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr + run.stdout
    differ = set()
    round_number = 0
    for line in run.stdout.splitlines():
        if line.startswith("check: Round #"):
            round_number = int(line.removeprefix("check: Round #").rstrip("."))
        elif "Checker pairings" in line:
            differ.add(round_number)
    return differ


def _paired(cell: Cell) -> bool:
    """Whether the player took part in the round's pairing: a board, a forfeit or the
    pairing-allocated bye (a half-point or zero-point bye was asked for ahead)."""
    return cell.opponent != 0 or cell.code == "U"


def _result(tournament: Tournament, white: int, index: int) -> Result:
    cell = tournament.cells[white][index]
    if cell.code == "-":
        other = tournament.cells[cell.opponent][index]
        assert other.code == "+", "a double forfeit: the night's results have no such thing"
    return RESULTS[cell.code]
