"""`clubrating replay` of an EVENTS.csv of team games beside one of singles (issue 37).

    .venv/bin/python bench/teams_csv.py                  # elo and club, 100,000 rows each way
    .venv/bin/python bench/teams_csv.py --system club --games 200000 --repeat 5

The files: bench/teams.py's two histories (``--players`` members, 2,000; ``--games`` games,
100,000, each a step of its own; seeded) written as EVENTS.csv by the export's writer into a
temporary folder: one of games of one against one, one of games of 2 v 2 (``a & b`` in each
player cell). Each measurement is one ``clubrating replay --system S FILE`` in a process of its
own, this source tree's (``python -c 'from bot.cli import main; ...'`` with the tree first on
PYTHONPATH), wall time from start to exit, the JSON thrown away.

Reports, for each system, the best of ``--repeat`` (3) runs on each file and the team file's
time over the singles file's. Target (issue 37): at most 2.0.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # bench/ holds scripts, not a package
from teams import arguments, histories  # noqa: E402

from bot.history import write_events  # noqa: E402
from ratings_core.model import Game, Step, TeamGame  # noqa: E402

TARGET = 2.0
#: `clubrating replay`, run from this tree (the installed script may be another's)
CLI = "import sys; from bot.cli import main; sys.exit(main(sys.argv[1:]))"


def write(path: Path, steps: list[Step]) -> None:
    """The history as the export writes it (every name its own)."""
    names: dict[str, str] = {}
    for step in steps:
        if isinstance(step, TeamGame):
            names.update((name, name) for name in step.side_a + step.side_b)
        elif isinstance(step, Game):
            names.update(((step.player_a, step.player_a), (step.player_b, step.player_b)))
    path.write_text(write_events(steps, names, [""] * len(steps)), encoding="utf-8")


def best_of(system: str, path: Path, repeat: int) -> float:
    """The shortest wall time of ``repeat`` runs of `clubrating replay`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", CLI, "replay", "--system", system,
                               str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env=env, check=False)
        best = min(best, time.perf_counter() - began)
        if done.returncode != 0:
            raise SystemExit(f"replay of {path.name} exited with {done.returncode}: "
                             f"{done.stderr.decode()[-500:]}")
    return best


def main() -> None:
    args = arguments(__doc__.splitlines()[0], 1)
    singles, teams = histories(args.players, args.games, args.seed)
    with tempfile.TemporaryDirectory() as folder:
        files = {"singles": Path(folder) / "SINGLES.csv", "2 v 2": Path(folder) / "TEAMS.csv"}
        write(files["singles"], singles)
        write(files["2 v 2"], teams)
        sizes = ", ".join(f"{what} {path.stat().st_size / 2**20:.1f} MB"
                          for what, path in files.items())
        print(f"{args.games:,} rows each, {args.players:,} members ({sizes})")
        for system in args.system or ["elo", "club"]:
            single = best_of(system, files["singles"], args.repeat)
            team = best_of(system, files["2 v 2"], args.repeat)
            ratio = team / single
            print(f"{system:10} singles file {single:5.2f} s   2 v 2 file {team:5.2f} s   "
                  f"2 v 2 / singles {ratio:4.2f} ({'within' if ratio <= TARGET else 'over'} "
                  f"{TARGET:g})", flush=True)


if __name__ == "__main__":
    main()
