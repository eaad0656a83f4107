"""Scheduled posts: what one poll of the scheduler costs, and one digest of a long ladder.

    .venv/bin/python bench/schedule.py                    # the default sizes
    .venv/bin/python bench/schedule.py --clubs 2000 --games 100000

1. ``--clubs`` (1,000) clubs of two members each on one SQLite file. Timed: a poll with nothing
   due (read the plans from the directory and compare them: what the bot does every 30 s), and a
   poll at Monday 09:00 when every club's post is due (claim each post, compute and send each
   digest to a publisher that only counts). The poll's budget is its interval, 30 s.
2. A ladder of ``--games`` (20,000) confirmed games among 500 members, imported; the digest of
   the last week (the ratings at the previous post are a replay from the nearest checkpoint).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from bot.chat.posts import ChatPosts
from bot.history import History
from bot.scheduling.publishing import Picture
from bot.scheduling.scheduler import PostScheduler
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.storage.sqlite import SqliteRepository
from ratings_core.model import Game, Step

FRIDAY = datetime(2024, 3, 1, 19, 0)
MONDAY_9 = datetime(2024, 3, 4, 9, 0)


class Counter:
    platform = "bench"

    def __init__(self) -> None:
        self.posts = 0

    async def publish(self, chat_id: str, text: str, picture: Picture | None = None,
                      buttons: object = ()) -> None:  # (a puzzle post's buttons)
        self.posts += 1


async def polls(folder: Path, clubs: int, rounds: int) -> None:
    repository = await SqliteRepository.open(folder / "polls.db")
    clock = FakeClock(FRIDAY)
    service = ClubService(repository, clock)
    for n in range(clubs):
        for name in ("alice", "bob"):
            await service.register(Caller("bench", f"club{n}", name, name))
    counter = Counter()
    scheduler = PostScheduler(service, repository, {"bench": counter}, clock, ChatPosts(),
                              pictures=False)
    await scheduler.poll()  # the first poll builds the plans
    quiet = []
    for _ in range(rounds):
        begin = time.perf_counter()
        await scheduler.poll()
        quiet.append(time.perf_counter() - begin)
    clock.current = MONDAY_9
    begin = time.perf_counter()
    await asyncio.gather(*await scheduler.poll())
    due = time.perf_counter() - begin
    assert counter.posts == clubs, counter.posts
    print(f"{clubs} clubs: quiet poll {statistics.median(quiet) * 1000:.0f} ms (median of "
          f"{rounds}), poll with every post due {due * 1000:.0f} ms "
          f"({due / clubs * 1000:.2f} ms per post)")
    await repository.close()


async def digest(folder: Path, games: int, members: int, seed: int) -> None:
    rng = random.Random(seed)
    repository = await SqliteRepository.open(folder / "digest.db")
    end = FRIDAY + timedelta(days=60)
    clock = FakeClock(end)
    service = ClubService(repository, clock)
    names = [f"m{i:04d}" for i in range(members)]
    steps: list[Step] = []
    span = (end - FRIDAY) / games
    for n in range(games):
        a, b = rng.sample(names, 2)
        steps.append(Game(a, b, rng.choice((0.0, 0.5, 1.0)), FRIDAY + span * n))
    history = History(steps, [[n + 1] for n in range(games)], [""] * games)
    await service.import_history("bench", "club", history, history.labels)
    caller = Caller("bench", "club", "m0000", "m0000")
    await service.leaderboard(caller)  # rate the ladder once, as the running bot has
    times = []
    for _ in range(5):
        begin = time.perf_counter()
        await service.digest(caller, since=end - timedelta(days=7))
        times.append(time.perf_counter() - begin)
    print(f"digest of a week of a {games}-game ladder ({members} members): "
          f"{statistics.median(times) * 1000:.0f} ms (median of 5)")
    await repository.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clubs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--members", type=int, default=500)
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        await polls(Path(folder), args.clubs, args.rounds)
        await digest(Path(folder), args.games, args.members, args.seed)


if __name__ == "__main__":
    asyncio.run(main())
