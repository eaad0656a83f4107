"""``clubrating replay`` of a history without membership rows (issue 41), as a process: its
memory does not grow with the one run of games the file is, and its numbers are the replay's
of the same games as steps."""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.cli import standings_json
from ratings_core.model import Game
from ratings_core.replay import replay
from ratings_core.systems import make_system

from .process import CLUBRATING, TIMEOUT, environment

START = datetime(2024, 1, 1)


def plain_history(path: Path, rows: int, members: int) -> list[Game]:
    """A game a minute between two members drawn at random, a random result, no other row
    (bench/replay_csv.py's plain history, smaller): written to ``path`` and returned."""
    rng = random.Random(41)
    games = []
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(["played_at", "event", "player_a", "player_b", "score_a", "kind"])
        for n in range(rows):
            a, b = rng.sample(range(members), 2)
            score = rng.choice(("0", "0.5", "1"))
            game = Game(f"member{a:04d}", f"member{b:04d}", float(score),
                        START + timedelta(minutes=n))
            out.writerow([game.played_at.isoformat(), "", game.player_a, game.player_b, score,
                          ""])
            games.append(game)
    return games


#: runs a command and writes its exit code and peak RSS (kB) to a file: a small process of its
#: own, as a child's peak counts the memory of the process that started it (Linux keeps a
#: forked process's peak through exec), and the test's process is large
PEAK = ("import os, pathlib, subprocess, sys\n"
        "child = subprocess.Popen(sys.argv[2:])\n"
        "_, status, usage = os.wait4(child.pid, 0)\n"
        "pathlib.Path(sys.argv[1]).write_text("
        "f'{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}')\n")


def replayed(env: dict[str, str], system: str, path: Path) -> tuple[object, float]:
    """``clubrating replay --system SYSTEM path``'s JSON and its peak RSS in MB."""
    report = path.with_suffix(".peak")
    shown = subprocess.run([sys.executable, "-c", PEAK, str(report), CLUBRATING, "replay",
                            "--system", system, str(path)],
                           env=env, capture_output=True, text=True, timeout=TIMEOUT)
    code, peak = map(int, report.read_text(encoding="utf-8").split())
    assert shown.returncode == code == 0, shown.stderr
    return json.loads(shown.stdout), peak / 1024


@pytest.mark.parametrize("system", ["club", "elo"])
def test_replay_memory_does_not_grow_with_a_run_of_games(tmp_path: Path, system: str) -> None:
    env = environment(tmp_path, None)
    short = tmp_path / "short.csv"
    long = tmp_path / "long.csv"
    plain_history(short, 20_000, 5_000)
    games = plain_history(long, 320_000, 5_000)
    _, short_peak = replayed(env, system, short)
    standings, long_peak = replayed(env, system, long)
    # 300,000 more rows in one run: their columns (25 bytes a row), not lists of the whole run
    # for the rating loop (before issue 41: 57 MB more for club, 44 MB for elo; now 2 MB)
    assert long_peak - short_peak < 16
    rating = make_system(system)
    assert standings == standings_json(rating, replay(rating, games))
