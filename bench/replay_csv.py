"""`clubrating replay` of a large EVENTS.csv against plain Python on the same file.

    .venv/bin/python bench/replay_csv.py                  # both histories, 1,000,000 rows each
    .venv/bin/python bench/replay_csv.py --runs 3 --history plain
    .venv/bin/python bench/replay_csv.py --rows 200000 --history plain --keep /tmp/files

Two histories (``--history``, both by default), each ``--rows`` game rows (1,000,000) among
``--players`` members (10,000), seeded, times ISO ``YYYY-MM-DDTHH:MM:SS``:

- *plain* (issue 41): one game a minute (consecutive rows a minute apart), random pairings and
  results, no retire or return row, so every game belongs to one run of games as long as the
  file: the history on which issue 41's targets are judged;
- *retirements*: the history of bench/replay.py, over about eight years, one in a thousand
  games followed by a ``retire`` row and retired members coming back with a ``return`` row
  (those rows cut the games into runs of about a thousand).

Each run measures, every one in a process of its own (wall time from start to exit, peak RSS
from ``os.wait4``): the plain-Python reference (``csv.reader``, ``datetime.fromisoformat``,
``float`` for the score and a dict-based logistic Elo with K 32), then ``clubrating replay
--system club`` and ``--system elo`` (the installed one, or ``--clubrating``'s). Ratios are to
the reference of the same run and history. Targets (issues 19 and 41): at most 1.5x the
reference's time, peak RSS under 120 MB.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from ratings_core.model import Game, Return

sys.path.insert(0, str(Path(__file__).parent))  # bench/ holds scripts, not a package
from replay import START, synthetic_steps  # noqa: E402

CLUBRATING = Path(sys.executable).parent / "clubrating"
RATIO_TARGET = 1.5
MEMORY_TARGET_MB = 120
HEADER = ["played_at", "event", "player_a", "player_b", "score_a", "kind"]


def write_history(path: Path, players: int, rows: int, seed: int) -> None:
    """bench/replay.py's synthetic history (the same draws), streamed to EVENTS.csv."""
    scores = {0.0: "0", 0.5: "0.5", 1.0: "1"}
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(HEADER)
        for step in synthetic_steps(players, rows, seed):
            when = step.played_at.isoformat(timespec="seconds")
            if isinstance(step, Game):
                out.writerow([when, "", step.player_a, step.player_b, scores[step.score_a], ""])
            else:
                kind = "return" if isinstance(step, Return) else "retire"
                out.writerow([when, "", step.player, "", "", kind])


def write_plain_history(path: Path, players: int, rows: int, seed: int) -> None:
    """Issue 41's history: a game a minute between two members drawn at random, a random
    result, and nothing else (no membership row: the file is a single run of games)."""
    rng = random.Random(seed)
    names = [f"member{i:05d}" for i in range(players)]
    scores = ("0", "0.5", "1")
    minute = timedelta(minutes=1)
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(HEADER)
        when = START
        for _ in range(rows):
            a = rng.randrange(players)
            b = rng.randrange(players - 1)
            b += b >= a  # anyone but a
            out.writerow([when.isoformat(timespec="seconds"), "", names[a], names[b],
                          scores[rng.randrange(3)], ""])
            when += minute


WRITERS = {"plain": write_plain_history, "retirements": write_history}


def plain_python(path: Path) -> None:
    """The reference: what a user's own script would do with the file."""
    rating: dict[str, float] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        next(reader)
        for played_at, _event, player_a, player_b, score_a, kind in reader:
            datetime.fromisoformat(played_at)
            if kind:
                continue
            s = float(score_a)
            ra = rating.get(player_a, 1500.0)
            rb = rating.get(player_b, 1500.0)
            e = 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))
            rating[player_a] = ra + 32.0 * (s - e)
            rating[player_b] = rb + 32.0 * (e - s)
    print(len(rating))


def measure(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one process, its output thrown away."""
    began = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {child.returncode}")
    return elapsed, usage.ru_maxrss / 1024


def measure_history(history: str, path: Path, clubrating: Path, runs: int) -> None:
    """Every run of the reference and the two replays on one history's file, with verdicts."""
    lines = sum(1 for _ in path.open(encoding="utf-8")) - 1
    print(f"{history}: {path}: {lines:,} rows ({path.stat().st_size / 2**20:.0f} MB)")
    commands = {
        "plain Python": [sys.executable, __file__, "--reference", str(path)],
        "replay club": [str(clubrating), "replay", "--system", "club", str(path)],
        "replay elo": [str(clubrating), "replay", "--system", "elo", str(path)],
    }
    print(f"{'history':<12}{'run':>3}  {'what':<14}{'seconds':>9}{'ratio':>7}{'peak RSS':>10}"
          "  verdict")
    for run in range(1, runs + 1):
        reference = 0.0
        for what, command in commands.items():
            seconds, peak = measure(command)
            if what == "plain Python":
                reference = seconds
                verdict = ""
            else:
                met = seconds <= RATIO_TARGET * reference and peak < MEMORY_TARGET_MB
                verdict = "met" if met else "MISSED"
            print(f"{history:<12}{run:>3}  {what:<14}{seconds:>9.2f}{seconds / reference:>7.2f}"
                  f"{peak:>7.0f} MB  {verdict}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", choices=(*WRITERS, "both"), default="both",
                        help="which history to measure (both)")
    parser.add_argument("--rows", type=int, default=1_000_000, help="game rows (1,000,000)")
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261121)
    parser.add_argument("--runs", type=int, default=1, help="measurements of each (1)")
    parser.add_argument("--keep", type=Path,
                        help="write the files in this folder (plain.csv, retirements.csv) "
                             "and keep them")
    parser.add_argument("--clubrating", type=Path, default=CLUBRATING,
                        help="the clubrating command to measure (this environment's)")
    parser.add_argument("--reference", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reference:
        plain_python(args.reference)
        return
    histories = list(WRITERS) if args.history == "both" else [args.history]
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for history in histories:
            path = folder / f"{history}.csv"
            WRITERS[history](path, args.players, args.rows, args.seed)
            measure_history(history, path, args.clubrating, args.runs)


if __name__ == "__main__":
    main()
