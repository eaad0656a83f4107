"""Replay speed of team games beside singles (issue 37).

    .venv/bin/python bench/teams.py                  # elo and club, 100,000 games each way
    .venv/bin/python bench/teams.py --system club --games 200000 --players 2000

The histories: ``--players`` members (2,000) with hidden strengths; ``--games`` games (100,000)
over about two years, each a step of its own; members join when they first play. The singles
history has games of one against one; the team history as many games of 2 v 2 among the same
members (partners near each other's level, as a club pairs them). Results are drawn from the
logistic curve of the hidden strengths (the sides' means for a team), with draws. Seeded.

Reports, for each system, the best of ``--repeat`` (3) replays of each history: seconds, games
per second, and the team replay's time per game over the singles replay's.
Target (issue 37, for ``elo`` and ``club``): team / singles <= 2.0 per game.
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import datetime, timedelta

from ratings_core.model import Game, Step, TeamGame
from ratings_core.replay import replay
from ratings_core.systems import make_system

START = datetime(2024, 1, 1)
TARGET = 2.0


def histories(players: int, games: int, seed: int) -> tuple[list[Step], list[Step]]:
    """The singles history and the team history (2 v 2), of ``games`` games each."""
    rng = random.Random(seed)
    names = [f"member{i:05d}" for i in range(players)]
    strength = [rng.gauss(1500.0, 250.0) for _ in range(players)]
    minutes_per_game = 2 * 365 * 24 * 60 / games
    singles: list[Step] = []
    teams: list[Step] = []

    def result(difference: float) -> float:
        p = 1.0 / (1.0 + 10.0 ** (-difference / 400.0))
        u = rng.random()
        return 1.0 if u < p - 0.1 else 0.0 if u > p + 0.1 else 0.5

    def near(i: int, taken: set[int]) -> int:
        j = min(players - 1, max(0, i + rng.randint(-100, 100)))
        while j in taken:
            j = (j + 1) % players
        return j

    for n in range(games):
        when = START + timedelta(minutes=n * minutes_per_game)
        a = rng.randrange(players)
        b = near(a, {a})
        singles.append(Game(names[a], names[b], result(strength[a] - strength[b]), when))
        a1 = rng.randrange(players)
        a2 = near(a1, {a1})
        b1 = near(a1, {a1, a2})
        b2 = near(b1, {a1, a2, b1})
        difference = (strength[a1] + strength[a2] - strength[b1] - strength[b2]) / 2.0
        teams.append(TeamGame((names[a1], names[a2]), (names[b1], names[b2]),
                              result(difference), when))
    return singles, teams


def best_of(system_name: str, steps: list[Step], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        system = make_system(system_name)
        begin = time.perf_counter()
        replay(system, steps)
        best = min(best, time.perf_counter() - begin)
    return best


def arguments(description: str, seed: int) -> argparse.Namespace:
    """The command line of this benchmark and of ``bench/teams_csv.py``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--system", action="append",
                        help="system(s) to run (default elo, club)")
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=seed)
    return parser.parse_args()


def main() -> None:
    args = arguments(__doc__.splitlines()[0], 20261127)
    singles, teams = histories(args.players, args.games, args.seed)
    for name in args.system or ["elo", "club"]:
        single = best_of(name, singles, args.repeat)
        team = best_of(name, teams, args.repeat)
        ratio = team / single
        print(f"{name:10} singles {args.games:,} games {single:6.3f} s "
              f"= {args.games / single:>10,.0f} games/s   2 v 2 {team:6.3f} s "
              f"= {args.games / team:>10,.0f} games/s   team/singles {ratio:4.2f}"
              f" ({'within' if ratio <= TARGET else 'over'} {TARGET:g})")


if __name__ == "__main__":
    main()
