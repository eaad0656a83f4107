"""Replay speed and memory on a synthetic club history.

    .venv/bin/python bench/replay.py            # elo and club, each in its own process
    .venv/bin/python bench/replay.py --system club --games 200000
    .venv/bin/python bench/replay.py --system all --players 2000 --games 100000

The history: ``--players`` members (10,000) with hidden strengths, ``--games`` games (1,000,000)
over about eight years, each a period of its own; members join when they first play, one in a
thousand games is followed by a retirement and retired members come back later. Results are drawn
from the logistic curve of the hidden strengths, with draws. Everything is seeded.

Reports: games per second of the full replay, of a re-rate after correcting a game 1 % into the
history (resumed from the last checkpoint before it), and the process's peak RSS.
Targets (issue 2): elo >= 1,000,000 games/s, club >= 500,000 games/s, peak RSS < 300 MB.
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta

from ratings_core.model import Game, Retire, Return, Step
from ratings_core.replay import replay
from ratings_core.systems import GAME_SYSTEMS, make_system

START = datetime(2018, 1, 1)


def synthetic_history(players: int, games: int, seed: int) -> list[Step]:
    return list(synthetic_steps(players, games, seed))


def synthetic_steps(players: int, games: int, seed: int) -> Iterator[Step]:
    """The history one step at a time (``bench/replay_csv.py`` streams it to a file)."""
    rng = random.Random(seed)
    names = [f"member{i:05d}" for i in range(players)]
    strength = [rng.gauss(1500.0, 250.0) for _ in range(players)]
    retired: list[int] = []
    is_retired = [False] * players
    has_played = [False] * players
    minutes_per_game = 8 * 365 * 24 * 60 / games
    scores = (0.0, 0.5, 1.0)
    for n in range(games):
        when = START + timedelta(minutes=n * minutes_per_game)
        a = rng.randrange(players)
        # Club members mostly meet players near their own level.
        b = min(players - 1, max(0, a + rng.randint(-300, 300)))
        if a == b or is_retired[a] or is_retired[b]:
            b = (a + 1) % players
            while is_retired[b] or b == a:
                b = (b + 1) % players
            if is_retired[a]:
                yield Return(names[a], when)
                is_retired[a] = False
                retired.remove(a)
        p = 1.0 / (1.0 + 10.0 ** ((strength[b] - strength[a]) / 400.0))
        u = rng.random()
        score = scores[2] if u < p - 0.1 else scores[0] if u > p + 0.1 else scores[1]
        yield Game(names[a], names[b], score, when)
        has_played[a] = has_played[b] = True
        if n % 1000 == 999:
            leaver = rng.randrange(players)
            if has_played[leaver] and not is_retired[leaver] and leaver not in (a, b):
                yield Retire(names[leaver], when)
                is_retired[leaver] = True
                retired.append(leaver)


def measure(system_name: str, players: int, games: int, seed: int) -> None:
    steps = synthetic_history(players, games, seed)
    system = make_system(system_name)
    begin = time.perf_counter()
    full = replay(system, steps, checkpoint_every=len(steps) // 20)
    replay_seconds = time.perf_counter() - begin

    corrected_at = len(steps) // 100
    checkpoint = max(
        (c for c in full.checkpoints if c.position <= corrected_at),
        key=lambda c: c.position,
        default=None,
    )
    begin = time.perf_counter()
    if checkpoint is None:
        again = replay(system, steps)
    else:
        again = replay(system, steps[checkpoint.position:], start=checkpoint)
    rerate_seconds = time.perf_counter() - begin
    assert again.players == full.players

    rated_games = sum(1 for s in steps if type(s) is Game)
    resumed_games = sum(
        1 for s in steps[checkpoint.position if checkpoint else 0:] if type(s) is Game
    )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{system_name:10} {rated_games:>9,} games  replay {replay_seconds:6.2f} s "
        f"= {rated_games / replay_seconds:>11,.0f} games/s   "
        f"re-rate after an early correction {rerate_seconds:6.2f} s "
        f"= {resumed_games / rerate_seconds:>11,.0f} games/s   peak RSS {peak_mb:6.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", action="append",
                        help="system(s) to run (default elo, club); all: every system that "
                             "rates games between two players")
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20261121)
    args = parser.parse_args()
    systems = args.system or ["elo", "club"]
    if systems == ["all"]:
        systems = GAME_SYSTEMS
    if len(systems) == 1:
        measure(systems[0], args.players, args.games, args.seed)
        return
    # One process per system, so each peak RSS is that system's alone.
    for name in systems:
        subprocess.run(
            [sys.executable, __file__, "--system", name, "--players", str(args.players),
             "--games", str(args.games), "--seed", str(args.seed)],
            check=True,
        )


if __name__ == "__main__":
    main()
