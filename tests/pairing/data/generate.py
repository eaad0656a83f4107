"""Write the reference tournaments of tests/pairing/test_dutch.py again: each a random finished
tournament BBP Pairings generated and paired by the FIDE Dutch rules (``bbpPairings --dutch -g
CONFIG -o FILE -s SEED``), for 6 to 30 players and 3 to 9 rounds, with draws, forfeits,
half-point and zero-point byes.

    python tests/pairing/data/generate.py

For each size the first seed is kept whose tournament a club night can say: white for
the top seed in round 1 (a night's first round is always so: ``XXC white1``) and no double
forfeit (a board's result has none). The files are stored with LF line ends (BBP Pairings
writes CR; it reads both). The seeds are in the file names, so any file can be made again.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.pairing.reference import BBP, Tournament, read  # noqa: E402

#: the generator's settings besides the size (BBP Pairings' generator configuration)
CONFIG = """DrawPercentage=30
ForfeitRate=20
RetiredRate=6
HalfPointByeRate=6
HighestRating=2400
LowestRating=1200
"""


def sizes() -> list[tuple[int, int, int]]:
    """(players, rounds, first seed): every size from 6 to 30 once, the odd ones (a bye every
    round) twice, the second time with other rounds and from seed 101; fewer rounds than
    players, so that every round can be paired."""
    first = {n: min(n - 2, 4 + n % 6) for n in range(6, 31)}
    second = {n: min(n - 2, 9 - n % 4) for n in range(7, 31, 2)}
    return ([(n, rounds, 1) for n, rounds in first.items()]
            + [(n, rounds if rounds != first[n] else rounds - 1, 101)
               for n, rounds in second.items()])


def white_first(tournament: Tournament) -> bool:
    """Whether the initial colour was white, as BBP Pairings infers it: the players paired in
    round 1 (a board or the pairing-allocated bye), counted in number order; the first of them
    with a board had white if counted odd (1st, 3rd, ...), black if even."""
    index = 0
    for number in sorted(tournament.cells):
        cell = tournament.cells[number][0]
        if cell.opponent:
            return (cell.colour == "w") == (index % 2 == 0)
        if cell.code == "U":
            index += 1
    return False


def double_forfeit(tournament: Tournament) -> bool:
    return any(cell.code == "-" and tournament.cells[cell.opponent][index].code == "-"
               for row in tournament.cells.values() for index, cell in enumerate(row)
               if cell.opponent)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        for players, rounds, first_seed in sizes():
            config = Path(folder) / "config.txt"
            config.write_text(f"PlayersNumber={players}\nRoundsNumber={rounds}\n{CONFIG}")
            for seed in range(first_seed, first_seed + 1000):
                out = Path(folder) / "out.trf"
                run = subprocess.run([str(BBP), "--dutch", "-g", str(config), "-o", str(out),
                                      "-s", str(seed)], capture_output=True)
                if run.returncode != 0:
                    continue
                text = out.read_text(encoding="utf-8").replace("\r", "\n")
                tournament = read(text)
                if white_first(tournament) and not double_forfeit(tournament):
                    name = HERE / f"dutch-{players:02d}p-{rounds}r-s{seed}.trf"
                    name.write_text(text, encoding="utf-8")
                    print(name.name)
                    break


if __name__ == "__main__":
    main()
