"""The scheduler's poll with many clubs (issue 41): from the directory, against the reference of
folding every club, as the poll did before, measured in the same run on the same database.

    .venv/bin/python bench/poll.py                 # 10,000 clubs, 1 % of them with a report due
    .venv/bin/python bench/poll.py --clubs 2000 --due 20

``--clubs`` small clubs on one SQLite file (two members each, made by copying one club's log:
events that name no other event), ``--due`` of them with a report nobody answered, which counts
by itself at the time of the polls. Each poll runs in a process that has just started (nothing
in memory), then once more (what the next poll, 30 s later, costs), while a 5 ms ticker records
the longest time the event loop went without it:

- reference: what the poll did before the directory, re-enacted from the service's pieces:
  every club's log read and folded (``Session.current``) for its plans, every plan's due post
  computed on its own (``latest_fire`` from the plan's start, as ``due_post`` did), and every
  chat's ``due`` (what time made due) looked at;
- directory: :meth:`PostScheduler.poll` as it is.

The issue's target: a poll of 10,000 clubs within 3 s, the event loop never held over 100 ms.

Then what keeping the directory costs a write in a club of ``--members`` (10,000) members: the
club's rows derived (:func:`directory.rows`, on every write) beside the whole write they are
part of (a report, end to end through the service), each the median of ``--rounds``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.loop_stall

from bot.chat.posts import ChatPosts  # noqa: E402
from bot.scheduling.publishing import Picture  # noqa: E402
from bot.scheduling.scheduler import PostScheduler  # noqa: E402
from bot.service import directory  # noqa: E402
from bot.service.clock import FakeClock  # noqa: E402
from bot.service.club import Caller, ClubService  # noqa: E402
from bot.service.schedules import latest_fire, plans_of  # noqa: E402
from bot.service.state import ClubState  # noqa: E402
from bot.service.view import Club  # noqa: E402
from bot.storage.repository import NewEvent  # noqa: E402
from bot.storage.sqlite import SqliteRepository  # noqa: E402
from tests.loop_stall import longest_stall  # noqa: E402

FRIDAY = datetime(2024, 3, 1, 19, 0)
#: the polls: Saturday evening, a day after the reports (no weekly post is due)
POLLED = FRIDAY + timedelta(hours=24, minutes=5)


class Counter:
    platform = "bench"

    def __init__(self) -> None:
        self.posts = 0

    async def publish(self, chat_id: str, text: str, picture: Picture | None = None,
                      buttons: object = ()) -> None:
        self.posts += 1


async def build(path: Path, clubs: int, due: int) -> None:
    """``clubs`` clubs: the first made by the service, the others by copying its log, the first
    ``due`` of them with a report of bob's that alice never answers."""
    repository = await SqliteRepository.open(path)
    clock = FakeClock(FRIDAY - timedelta(hours=1))
    service = ClubService(repository, clock)
    alice, bob = (Caller("bench", "club0", name, name) for name in ("alice", "bob"))
    await service.register(alice)
    await service.register(bob)
    clock.current = FRIDAY
    plain = [NewEvent(e.kind, e.actor, e.at, e.data, e.reason)
             for e in await repository.events(1)]
    await service.report(bob, "alice", "win")
    unanswered = [NewEvent(e.kind, e.actor, e.at, e.data, e.reason)
                  for e in await repository.events(1)]
    for n in range(1, clubs):
        club_id = await repository.club_id("bench", f"club{n}", FRIDAY)
        events = unanswered if n < due else plain
        async with repository.transaction(club_id, 0) as tx:
            stored = await tx.append(events)
            await directory.index(tx, Club(club_id, ClubState.build(stored)))
    await repository.close()


async def reference_poll(service: ClubService, repository: SqliteRepository,
                         clock: FakeClock) -> None:
    """The poll before the directory: every club folded for its plans, every plan's due post
    computed, every chat's due looked at."""
    session = service._session  # the reference re-enacts what the service did inside
    plans = []
    for club_id, platform, chat_id in await repository.clubs():
        plans += plans_of(club_id, platform, chat_id, await session.current(club_id))
    now = clock.now()
    for plan in plans:  # each plan's cron computed on its own, as due_post did then
        if not plan.paused:
            latest_fire(plan.trigger, plan.since, now)
    for platform, chat_id in sorted({(p.platform, p.chat_id) for p in plans}):
        await service.due(platform, chat_id)


async def measured(label: str, path: Path, poll: Callable[[ClubService, SqliteRepository,
                                                          FakeClock], Awaitable[object]]
                   ) -> None:
    repository = await SqliteRepository.open(path)
    clock = FakeClock(POLLED)
    service = ClubService(repository, clock)
    for run in ("first poll", "next poll"):
        began = time.perf_counter()
        stall = await longest_stall(poll(service, repository, clock))
        took = time.perf_counter() - began
        held = len(service._session.clubs)  # the clubs the process keeps in memory after it
        print(f"{label:9} {run:10}: {took:6.2f} s, event loop held at most "
              f"{stall * 1000:5.0f} ms, {held} clubs in memory")
        clock.advance(seconds=30)
    await repository.close()


async def big_club(path: Path, members: int, rounds: int) -> None:
    repository = await SqliteRepository.open(path)
    clock = FakeClock(FRIDAY)
    service = ClubService(repository, clock)
    alice, bob = (Caller("bench", "big", name, name) for name in ("alice", "bob"))
    await service.register(alice)
    await service.register(bob)
    [joined] = [e for e in await repository.events(1) if e.actor == "bob"
                and e.kind == "member_registered"]
    club_id = await repository.club_id("bench", "big", FRIDAY)
    others = [NewEvent(joined.kind, f"m{n}", joined.at, joined.data | {
        "user": f"m{n}", "name": f"m{n}", "handle": f"m{n}"}) for n in range(members - 2)]
    async with repository.transaction(club_id, (await repository.events(1))[-1].id) as tx:
        await tx.append(others)
    await service.leaderboard(alice)  # the club read and rated once, as a running bot has it
    club = service._session.clubs[club_id]  # the state the writes fold into
    derived, writes = [], []
    try:
        for n in range(rounds):
            began = time.perf_counter()
            directory.rows(club)
            derived.append(time.perf_counter() - began)
            began = time.perf_counter()
            await service.report(alice, f"m{n}", "win")  # (one open report per opponent)
            writes.append(time.perf_counter() - began)
            clock.advance(minutes=1)
    finally:
        await repository.close()
    print(f"a club of {len(club.state.by_user)} members: its directory rows derived in "
          f"{statistics.median(derived) * 1000:.1f} ms, a write (a report) "
          f"{statistics.median(writes) * 1000:.1f} ms (medians of {rounds})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clubs", type=int, default=10_000)
    parser.add_argument("--due", type=int, default=100)
    parser.add_argument("--members", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "poll.db"
        began = time.perf_counter()
        await build(path, args.clubs, args.due)
        print(f"{args.clubs} clubs ({args.due} with a report due) made in "
              f"{time.perf_counter() - began:.1f} s")

        schedulers: dict[int, PostScheduler] = {}

        async def from_directory(service: ClubService, repository: SqliteRepository,
                                 clock: FakeClock) -> None:
            scheduler = schedulers.setdefault(id(service), PostScheduler(
                service, repository, {"bench": Counter()}, clock, ChatPosts()))
            await asyncio.gather(*await scheduler.poll())

        # Each from the same database (the first poll applies the reports due): a copy.
        copy = Path(folder) / "poll-reference.db"
        copy.touch(mode=0o600)  # a database is its owner's alone (else the bot says so)
        copy.write_bytes(path.read_bytes())
        await measured("reference", copy, reference_poll)
        await measured("directory", path, from_directory)
        await big_club(Path(folder) / "big.db", args.members, args.rounds)


if __name__ == "__main__":
    asyncio.run(main())
