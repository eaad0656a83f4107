"""The swiss engine (issue 36): pairing a round of a club night, beside one bare maximum-weight
matching of the same size, measured in the same run.

    .venv/bin/python bench/pairing.py                       # 40 and 200 players, round 4 of 7
    .venv/bin/python bench/pairing.py --sizes 40,100 --runs 9 --round 6

For each size: a night of that many players (ratings drawn around 1500, seeded) plays rounds
1 .. ``--round`` - 1 paired by the engine itself, each game's result drawn from the Elo
expectation (a draw a quarter of the time), so the night has score groups, floaters and
colour histories as a real one does. Timed, ``--runs`` times (the median is shown):

- *engine*: ``bot.pairing.swiss.pair`` of the next round (the weights, the matching, the
  boards, the colours and the reasons);
- *weights*: building the packed weights alone (``swiss.weights``);
- *bare*: ``networkx.max_weight_matching(maxcardinality=True)`` on a complete graph of as many
  vertices (the players, and the bye's vertex if they are odd), random integer weights of
  1 .. 1000: the floor any engine of one matching pays;
- *bare, wide*: the same with random weights as wide as the engine's packed ones (1 .. the
  largest packed weight): the matching needs more stages when few weights tie, whatever
  their size, so this is the fair floor for weights that settle everything.

Target: a 40-player round under 0.5 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import networkx as nx  # type: ignore[import-untyped]

from bot.pairing import swiss
from bot.pairing.model import (
    Absence,
    Board,
    Mode,
    Night,
    Pairing,
    Player,
    Result,
    Round,
    Settings,
    scores,
)


def expected(a: float, b: float) -> float:
    return 1.0 / (1.0 + 10 ** ((b - a) / 400))


def play(pairing: Pairing, night: Night, rng: random.Random) -> Round:
    """The pairing's round with every result in, drawn from the Elo expectation."""
    rating = {p.key: p.rating for p in night.players}
    boards = []
    for b in pairing.boards:
        if rng.random() < 0.25:
            result = Result.DRAW
        elif rng.random() < expected(rating[b.first], rating[b.second]):
            result = Result.FIRST_WINS
        else:
            result = Result.SECOND_WINS
        boards.append(Board(b.number, b.first, b.second, result))
    absent = {pairing.bye: Absence.PAIRING_BYE} if pairing.bye else {}
    return Round(len(night.rounds) + 1, tuple(boards), absent)


def mid_night(size: int, round_number: int, seed: int) -> Night:
    """A night of ``size`` players whose rounds before ``round_number`` are played."""
    rng = random.Random(seed)
    ratings = sorted((round(rng.gauss(1500, 250)) for _ in range(size)), reverse=True)
    players = tuple(Player(f"m{i}", f"M{i}", float(r), i + 1) for i, r in enumerate(ratings))
    night = Night(players, (), Settings(mode=Mode.SWISS, rounds=7, seed=seed))
    for _ in range(round_number - 1):
        pairing = swiss.pair(night)
        night = Night(players, (*night.rounds, play(pairing, night, rng)), night.settings)
    return night


def bare(vertices: int, seed: int, widest: int = 1000) -> nx.Graph:
    rng = random.Random(seed)
    graph = nx.complete_graph(vertices)
    for a, b in graph.edges:
        graph[a][b]["weight"] = rng.randint(1, widest)
    return graph


def median_seconds(work: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="40,200")
    parser.add_argument("--round", type=int, default=4, help="the round paired (of 7)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261127)
    args = parser.parse_args()
    print(f"swiss round {args.round} of 7, median of {args.runs} runs")
    print(f"{'players':>7} | {'engine':>9} | {'weights':>9} | {'bare':>9} | "
          f"{'bare, wide':>10} | {'engine / bare':>13} | {'/ bare, wide':>12} | groups")
    for size in (int(s) for s in args.sizes.split(",")):
        night = mid_night(size, args.round, args.seed)
        field = swiss.Field.of(night, scores(night))
        first = swiss.pair(night)
        assert swiss.pair(night) == first  # the same night, the same round
        engine = median_seconds(lambda n=night: swiss.pair(n), args.runs)
        weights = median_seconds(
            lambda n=night, f=field: swiss.weights(n, f, colours=True), args.runs)
        graph = bare(size + size % 2, args.seed)
        matching = median_seconds(
            lambda g=graph: nx.max_weight_matching(g, maxcardinality=True), args.runs)
        _, packed = swiss.weights(night, field, colours=True)
        wide_graph = bare(size + size % 2, args.seed, max(packed.values()))
        wide = median_seconds(
            lambda g=wide_graph: nx.max_weight_matching(g, maxcardinality=True), args.runs)
        print(f"{size:>7} | {engine:>7.3f} s | {weights:>7.3f} s | {matching:>7.3f} s | "
              f"{wide:>8.3f} s | {engine / matching:>13.2f} | {engine / wide:>12.2f} | "
              f"{len(field.groups)}")


if __name__ == "__main__":
    main()
