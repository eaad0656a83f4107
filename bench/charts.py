"""Pictures: how long a rating chart and a leaderboard card take to draw, and how long the event
loop goes without running while /chart and /card answer.

    .venv/bin/python bench/charts.py               # the issue's sizes
    .venv/bin/python bench/charts.py --runs 30 --points 1000

1. Drawing alone, in the calling thread, ``--runs`` (10) times each, after one warm-up: a rating
   chart of ``--points`` (500) points with a deviation band and a provisional stretch, and a
   leaderboard card of ``--rows`` (50) rows with Hebrew, Russian and Japanese names.
   Target (issue 6): median < 300 ms each.
2. The event loop while pictures are drawn: a ticker task sleeps 5 ms at a time and records the
   longest time between two of its turns (5 ms when nothing blocks). Measured while /chart of a
   member with ``--points`` games answers through the console front-end (the service derives the
   history and draws the picture in worker threads, issue 21), and while /card answers, each
   ``--runs`` times, after the bot's start-up preparation (``bot.chat.pictures.prepare``).
   Target: the loop never waits longer than 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.adapters.console import Console  # noqa: E402
from bot.charts import CardRow, leaderboard_card  # noqa: E402
from bot.chat.pictures import card_words, chart_picture, prepare  # noqa: E402
from bot.chat.ratelimit import RateLimiter  # noqa: E402
from bot.history import read_events  # noqa: E402
from bot.service.clock import FakeClock  # noqa: E402
from bot.service.club import ClubService  # noqa: E402
from bot.service.results import RatingHistory, RatingPoint  # noqa: E402
from bot.storage.sqlite import SqliteRepository  # noqa: E402
from tests.loop_stall import longest_stall  # noqa: E402

START = datetime(2024, 1, 1)
NAMES = ["alice", "Борис Петров", "דוד כהן", "山田太郎", "Gregory", "Zoë", "François"]
#: players of the benchmark's club besides alice
OTHERS = 30


def synthetic_history(points: int) -> RatingHistory:
    rnd = random.Random(points)
    rating = 1500.0
    out = []
    for n in range(points):
        rating += rnd.uniform(-20, 21)
        out.append(RatingPoint((START + timedelta(hours=7 * n)).isoformat(), rating, n < 24,
                               max(50.0, 350.0 - 2 * n), n))
    return RatingHistory("山田太郎", "main", out)


def card_rows(count: int) -> list[CardRow]:
    rnd = random.Random(count)
    return [CardRow(n + 1, f"{NAMES[n % len(NAMES)]} {n}", 2100 - 9.5 * n, n % 7 == 0,
                    None, rnd.uniform(-40, 40) if n % 5 else None, 10 + n)
            for n in range(count)]


def timed(draw: Callable[[], bytes], runs: int) -> tuple[list[float], list[float], int]:
    """Wall-clock and CPU times of ``runs`` draws (CPU time is the steadier figure on a
    machine shared with other work), and the PNG's size."""
    size = len(draw())  # warm-up: fonts, caches
    wall, cpu = [], []
    for _ in range(runs):
        started, used = time.perf_counter(), time.process_time()
        draw()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    return wall, cpu, size


async def club_with_history(folder: Path, games: int) -> tuple[Console, SqliteRepository]:
    """A console club where alice has played ``games`` games (imported as EVENTS.csv) among
    twice as many games of the others."""
    rnd = random.Random(games)
    others = [f"p{n}" for n in range(OTHERS)]
    lines = ["played_at,event,player_a,player_b,score_a"]
    for n in range(games * 3):
        a = "alice" if n % 3 == 0 else rnd.choice(others)
        b = rnd.choice([o for o in others if o != a])
        when = (START + timedelta(hours=2 * n)).isoformat()
        lines.append(f"{when},,{a},{b},{rnd.choice(['1', '0', '0.5'])}")
    events = folder / "events.csv"
    events.write_text("\n".join(lines) + "\n", encoding="utf-8")
    repository = await SqliteRepository.open(folder / "club.db")
    clock = FakeClock(START + timedelta(hours=2 * games * 3 + 1))
    service = ClubService(repository, clock)
    history = read_events(events)
    await service.import_history("console", "local", history, history.labels)
    return Console(service, RateLimiter(clock, None), "guest", folder), repository


def report(label: str, values: list[float]) -> None:
    ms = sorted(v * 1000 for v in values)
    print(f"{label:<36} median {statistics.median(ms):6.1f} ms   min {ms[0]:6.1f}   "
          f"max {ms[-1]:6.1f}   (n={len(ms)})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--points", type=int, default=500)
    parser.add_argument("--rows", type=int, default=50)
    args = parser.parse_args()

    history = synthetic_history(args.points)
    chart_wall, chart_cpu, chart_bytes = timed(lambda: chart_picture([history]).png, args.runs)
    rows = card_rows(args.rows)
    card_wall, card_cpu, card_bytes = timed(
        lambda: leaderboard_card(rows, "main ladder", words=card_words()), args.runs)
    print(f"drawing, in the calling thread, {args.runs} runs each after a warm-up:")
    report(f"chart, {args.points} points ({chart_bytes // 1024} KiB)", chart_wall)
    report("  CPU time", chart_cpu)
    report(f"card, {args.rows} rows ({card_bytes // 1024} KiB)", card_wall)
    report("  CPU time", card_cpu)

    await prepare()
    with tempfile.TemporaryDirectory() as tmp:
        console, repository = await club_with_history(Path(tmp), args.points)
        try:
            answer = await console.handle("/chart @alice")  # warm-up, and a check it works
            assert answer.endswith(".png)"), answer
            idle = [await longest_stall(asyncio.sleep(0.2)) for _ in range(args.runs)]
            chart_stalls, card_stalls = [], []
            for _ in range(args.runs):
                chart_stalls.append(await longest_stall(console.handle("/chart @alice")))
                card_stalls.append(await longest_stall(console.handle("/card")))
            history_times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                await console.service.rating_history(console.caller, "@alice")
                history_times.append(time.perf_counter() - started)
        finally:
            await repository.close()
    print(f"event loop: longest wait between 5 ms ticks, {args.runs} runs each:")
    report("idle (the machine's own noise)", idle)
    report(f"/chart, {args.points} games, end to end", chart_stalls)
    report(f"/card, {OTHERS + 1} players, end to end", card_stalls)
    report(f"service: history of {args.points} games", history_times)


if __name__ == "__main__":
    asyncio.run(main())
