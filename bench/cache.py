"""The club cache (issue 41): memory per 1,000 small clubs, and a long club read from its log or
from its snapshot.

    .venv/bin/python bench/cache.py                   # both, with the issue's sizes
    .venv/bin/python bench/cache.py --clubs 200 --games 20000

1. ``--clubs`` (1,000) small clubs (three members, a moderator's three games each) are written
   through the service into a fresh SQLite file; a new service then reads every one of them
   (``/top``) and the Python memory it holds (``tracemalloc``, after a full collection) is
   measured. Reference, in the same run: the same clubs read through a cache of 10
   (``CLUBRATING_CACHE_CLUBS=10``), the memory of a process that keeps almost none of them.
   Target (issue 41): at most 30 MB per 1,000 clubs.
2. A club of ``--games`` (100,000) imported games: its state read from the log (events read and
   decoded, folded) beside the same from its snapshot (unpickled, the few events after it
   folded), best of three each; the snapshot's size and the time to write it; and, as
   references, the log's read alone and the ladder's replay (which both paths then do, off the
   loop, before a first answer). Each read's longest stall of the event loop too.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import tempfile
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.history import read_events  # noqa: E402
from bot.service import snapshots  # noqa: E402
from bot.service.clock import FakeClock  # noqa: E402
from bot.service.club import ClubService  # noqa: E402
from bot.service.identity import Caller, UserRef  # noqa: E402
from bot.service.view import ratings  # noqa: E402
from bot.storage.backends import open_repository  # noqa: E402
from bot.storage.repository import Snapshot  # noqa: E402
from tests.chat import START  # noqa: E402
from tests.long_history import last_game, write_events  # noqa: E402
from tests.loop_stall import longest_stall  # noqa: E402


def caller(chat: str, user: str, moderator: bool = False) -> Caller:
    return Caller("telegram", chat, user, user, moderator=moderator)


async def small_clubs(database: Path, clubs: int) -> None:
    repository = await open_repository(database)
    service = ClubService(repository, FakeClock(START))
    try:
        for n in range(clubs):
            chat = str(-1000 - n)
            for name in ("ann", "ben", "cy"):
                await service.register(caller(chat, name))
            mod = caller(chat, "mod", moderator=True)
            for winner, loser in (("ann", "ben"), ("ben", "cy"), ("cy", "ann")):
                await service.report(mod, UserRef(loser), "win", player=UserRef(winner))
    finally:
        await repository.close()


async def memory_held(database: Path, clubs: int, capacity: int) -> float:
    """MB of Python memory a service holds once it has read every club."""
    repository = await open_repository(database)
    try:
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        service = ClubService(repository, FakeClock(START), capacity)
        for n in range(clubs):
            await service.leaderboard(caller(str(-1000 - n), "ann"))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert len(service._session.clubs) == min(clubs, capacity)
        return held / 1e6
    finally:
        await repository.close()


async def part_memory(folder: Path, clubs: int) -> None:
    database = folder / "small.db"
    started = time.perf_counter()
    await small_clubs(database, clubs)
    print(f"{clubs:,} small clubs written in {time.perf_counter() - started:.1f} s")
    every = await memory_held(database, clubs, clubs)
    bounded = await memory_held(database, clubs, 10)
    print(f"memory, all {clubs:,} clubs kept: {every:.1f} MB "
          f"({every / clubs * 1000:.1f} MB per 1,000 clubs, {every / clubs * 1e3:.1f} kB a club)")
    print(f"  reference, the same clubs through a cache of 10: {bounded:.1f} MB")


async def part_long_club(folder: Path, games: int) -> None:
    database = folder / "long.db"
    events_file = write_events(folder / "EVENTS.csv", games)
    after = last_game(games) + timedelta(days=1)
    repository = await open_repository(database)
    try:
        service = ClubService(repository, FakeClock(after))
        history = read_events(events_file)
        await service.import_history("telegram", "-1", history, history.labels)
        club_id = await repository.club_id("telegram", "-1", after)
        session = service._session  # the bench looks inside

        async def timed(name: str, work: object) -> float:
            best, stall = float("inf"), 0.0
            for _ in range(3):
                gc.collect()
                started = time.perf_counter()
                stall = max(stall, await longest_stall(work()))  # type: ignore[operator]
                best = min(best, time.perf_counter() - started)
                gc.unfreeze()
            print(f"{name}: {best:.2f} s (longest loop stall {stall * 1000:.0f} ms)")
            return best

        await timed("reference: the log read and decoded alone",
                    lambda: repository.events(club_id))
        async def first_read() -> None:
            """As a command's first read: the cache empty, the collector paused meanwhile (the
            snapshot a read from the log then starts to keep is left out)."""
            session.clubs.pop(club_id)
            await session._load(club_id)
            for task in session._snapshotting.values():
                task.cancel()

        async def from_the_log() -> None:
            # a snapshot of no format of this bot's: ignored, the log read
            await repository.keep_snapshot(club_id, Snapshot(0, "none", b""), after)
            await first_read()

        from_log = await timed("state from the log", from_the_log)
        club = await session._read(club_id)
        started = time.perf_counter()
        data = await asyncio.to_thread(snapshots.dumps, club.state)
        written = time.perf_counter() - started
        await repository.keep_snapshot(club_id, Snapshot(club.state.last_id, snapshots.FORMAT,
                                                         data), after)
        print(f"snapshot of {len(club.state.log):,} events: {len(data) / 1e6:.1f} MB, "
              f"pickled in {written:.2f} s")
        from_snapshot = await timed("state from the snapshot", first_read)
        print(f"  snapshot / log: {from_snapshot / from_log:.2f}")
        ladder = club.state.ladders["main"]
        started = time.perf_counter()
        ratings(club, ladder)
        print(f"reference: the ladder's replay (both paths, off the loop, before a first "
              f"answer): {time.perf_counter() - started:.2f} s")
    finally:
        await repository.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clubs", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        await part_memory(Path(folder), args.clubs)
        await part_long_club(Path(folder), args.games)


if __name__ == "__main__":
    asyncio.run(main())
