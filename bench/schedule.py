"""Scheduled posts: what one poll of the scheduler costs, and one digest of a long ladder.

    .venv/bin/python bench/schedule.py                    # the default sizes
    .venv/bin/python bench/schedule.py --clubs 2000 --games 100000

1. ``--clubs`` (1,000) clubs of two members each on one SQLite file. Timed: a poll with nothing
   due (read the plans from the directory and compare them: what the bot does every 30 s), and
   every club's post on Monday 09:00 through the outbox (issue 41; no window, so all are due at
   once): the poll that claims and enqueues each, then the sender that claims each row, computes
   the digest, marks the row sending, sends it to a publisher that only counts and marks it
   sent. The reference, in the same run a week earlier: the path before the outbox, each post
   claimed (``claim_post``), its digest computed and sent. The poll's budget is its interval.
2. A ladder of ``--games`` (20,000) confirmed games among 500 members, imported; the digest of
   the last week (the ratings at the previous post are a replay from the nearest checkpoint).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.loop_stall

from bot.chat.posts import ChatPosts  # noqa: E402
from bot.history import History  # noqa: E402
from bot.scheduling.publishing import Picture  # noqa: E402
from bot.scheduling.scheduler import PostScheduler  # noqa: E402
from bot.scheduling.sender import PostSender  # noqa: E402
from bot.service.clock import FakeClock  # noqa: E402
from bot.service.club import Caller, ClubService  # noqa: E402
from bot.service.schedules import due_post, previous_post  # noqa: E402
from bot.storage.repository import QueuedPost  # noqa: E402
from bot.storage.sqlite import SqliteRepository  # noqa: E402
from ratings_core.model import Game, Step  # noqa: E402
from tests.loop_stall import longest_stall  # noqa: E402

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
                              window=timedelta(0))
    sender = PostSender(service, repository, {"bench": counter}, clock, ChatPosts(),
                        pictures=False)
    await scheduler.poll()  # the first poll builds the plans
    quiet = []
    for _ in range(rounds):
        begin = time.perf_counter()
        await scheduler.poll()
        quiet.append(time.perf_counter() - begin)

    # Reference: Monday 09:00 as before the outbox, each post claimed, made and sent at once.
    clock.current = MONDAY_9
    begin = time.perf_counter()
    for plan in scheduler.plans.values():
        when = due_post(plan, clock.now())
        assert when is not None
        if await repository.claim_post(plan.club_id, plan.claimed_as, when, clock.now()):
            post = QueuedPost(plan.club_id, plan.claimed_as, when, plan.platform, plan.chat_id,
                              plan.target, plan.ladder, plan.puzzles,
                              previous_post(plan, when) or plan.since, when)
            made = await sender._make(post)  # noqa: SLF001 (the digest, as the sender makes it)
            assert made is not None
            await counter.publish(post.target, made[0], made[1], made[2])
    before = time.perf_counter() - begin
    assert counter.posts == clubs, counter.posts

    # The outbox, a week later: the poll enqueues, the sender sends (20 at a time).
    clock.current = MONDAY_9 + timedelta(days=7)
    begin = time.perf_counter()
    stall = await longest_stall(scheduler.poll())
    enqueued = time.perf_counter() - begin
    while tasks := await sender.send_due():
        await asyncio.gather(*tasks)
    outbox = time.perf_counter() - begin
    assert counter.posts == 2 * clubs, counter.posts
    print(f"{clubs} clubs: quiet poll {statistics.median(quiet) * 1000:.0f} ms (median of "
          f"{rounds}); every post due: through the outbox {outbox * 1000:.0f} ms "
          f"({outbox / clubs * 1000:.2f} ms per post, of which the poll's claims and rows "
          f"{enqueued * 1000:.0f} ms, the event loop held at most {stall * 1000:.0f} ms), "
          f"reference claimed and sent at once {before * 1000:.0f} ms "
          f"({before / clubs * 1000:.2f} ms per post)")
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
