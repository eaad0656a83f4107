"""How many regulars carry ``club``'s provisional mark ``?`` at the end of each real history,
edition by edition, and the test log-loss of each (issue 31).

    .venv/bin/python bench/provisional.py                      # chess, football, tennis
    .venv/bin/python bench/provisional.py --datasets football --editions 3,4 --min-games 24

Datasets as in ``bench/accuracy.py`` (converted from ../shared/data into a temporary file,
nothing copied into the repository; or EVENTS.csv paths). For each edition of ``club``: the
whole history is replayed, then the share of the players with at least ``--min-games`` games
whose final state :meth:`~ratings_core.system.RatingSystem.is_provisional` marks, the share of
all players marked, and the test log-loss of ``ratings_core.evaluation.evaluate`` (the last 30 %
of the history's time span, the protocol of docs/accuracy.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from ratings_core.evaluation import evaluate
from ratings_core.model import games_of
from ratings_core.replay import replay
from ratings_core.systems import EDITION, PAST_EDITIONS, make_system


def _accuracy() -> ModuleType:
    """bench/accuracy.py, loaded by path (bench/ is scripts, not a package)."""
    path = Path(__file__).with_name("accuracy.py")
    spec = importlib.util.spec_from_file_location("bench_accuracy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default="chess,football,tennis")
    parser.add_argument("--editions", default=",".join(
        str(e) for e in sorted({*PAST_EDITIONS, EDITION}) if e >= 3))
    parser.add_argument("--min-games", type=int, default=24)
    parser.add_argument("--test-fraction", type=float, default=0.3)
    args = parser.parse_args(argv)
    load = _accuracy().load
    editions = [int(e) for e in args.editions.split(",")]
    lines = [f"| history | players with >= {args.min_games} games | edition | marked `?` "
             "among them | marked among all players | test log-loss |",
             "|---|---|---|---|---|---|"]
    for dataset in (d.strip() for d in args.datasets.split(",") if d.strip()):
        steps = load(dataset)
        for edition in editions:
            system = make_system("club", edition=edition)
            players = replay(system, steps).players
            regulars = [s for s in players.values() if s.games >= args.min_games]
            marked = sum(system.is_provisional(s) for s in regulars)
            everyone = sum(system.is_provisional(s) for s in players.values())
            scores = evaluate(system, steps, args.test_fraction)
            games = sum(len(games_of(s)) for s in steps)
            lines.append(f"| {dataset} ({games:,} games) | {len(regulars):,} | {edition} | "
                         f"{marked / len(regulars):.1%} ({marked}) | "
                         f"{everyone / len(players):.1%} | {scores.logloss:.4f} |")
            print(lines[-1], file=sys.stderr, flush=True)
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
