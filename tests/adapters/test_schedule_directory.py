"""The scheduler's poll and a private chat's lookups read the directory (issue 41): with many
clubs, a poll reads the log of the clubs where something fell due and of no other, and a
member's clubs are found without reading any club's log."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

from bot.chat.posts import ChatPosts
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.storage.repository import StoredEvent
from bot.storage.sqlite import SqliteRepository
from tests.scheduled_posts import ScheduledPosts

from .test_schedule import FRIDAY, Recorder

CLUBS = 12
#: the clubs where bob reports a win nobody answers: it counts by itself 24 hours later
UNANSWERED = (2, 5, 11)


class Counting(SqliteRepository):
    """The SQLite repository, counting whose logs are read."""

    read: list[int]

    async def events(self, club_id: int, after: int = 0) -> list[StoredEvent]:
        self.read.append(club_id)
        return await super().events(club_id, after)


async def clubs_on(path: Path, clock: FakeClock) -> dict[str, int]:
    """CLUBS clubs of alice and bob (chats club0, club1, ...), bob's reports waiting in the
    UNANSWERED ones; the clubs' ids by chat."""
    repository = await SqliteRepository.open(path)
    service = ClubService(repository, clock)
    for n in range(CLUBS):
        for name in ("alice", "bob"):
            await service.register(Caller("console", f"club{n}", name, name))
        if n in UNANSWERED:
            await service.report(Caller("console", f"club{n}", "bob", "bob"), "alice", "win")
    ids = {f"club{n}": await repository.club_id("console", f"club{n}", clock.now())
           for n in range(CLUBS)}
    await repository.close()
    return ids


def directory_rows(path: Path) -> list[tuple[int, str, str, str]]:
    with sqlite3.connect(path) as db:
        rows = [(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in db.execute(
            "SELECT club_id, kind, key, value FROM directory ORDER BY club_id, kind, key")]
    db.close()
    return rows


async def test_a_poll_reads_only_the_logs_of_the_clubs_where_something_fell_due(
        tmp_path: Path) -> None:
    path = tmp_path / "club.db"
    clock = FakeClock(FRIDAY)
    ids = await clubs_on(path, clock)
    repository = await Counting.open(path)
    repository.read = []
    service = ClubService(repository, clock)  # a process started now: nothing in memory
    recorder = Recorder()
    scheduler = ScheduledPosts(service, repository, {"console": recorder}, clock, ChatPosts(),
                              pictures=False)
    try:
        await asyncio.gather(*await scheduler.poll())
        assert len(scheduler.plans) == CLUBS and repository.read == []  # nothing due yet

        clock.current = FRIDAY + timedelta(hours=24, minutes=1)
        await asyncio.gather(*await scheduler.poll())
        due = sorted(ids[f"club{n}"] for n in UNANSWERED)
        assert sorted(set(repository.read)) == due
        for n in UNANSWERED:  # each unanswered report counted, in its own club alone
            pending = await service.pending(Caller("console", f"club{n}", "alice", "alice"))
            assert pending.to_confirm == [] and pending.waiting == []

        repository.read.clear()
        clock.advance(minutes=1)
        await asyncio.gather(*await scheduler.poll())
        assert repository.read == []  # what fell due is done: nothing is read again

        # alice's private chat finds her clubs from her user id: no club's log is read
        chats = await service.clubs_of("console", "alice")
        assert chats == [f"club{n}" for n in range(CLUBS)] and repository.read == []
    finally:
        await scheduler.stop()
        await repository.close()


async def test_the_directory_filled_at_start_is_the_one_kept_by_every_write(
        tmp_path: Path) -> None:
    """A database without directory rows (written before it) gets, from a fold of each club's
    log, exactly the rows the writes kept one by one."""
    path = tmp_path / "club.db"
    clock = FakeClock(FRIDAY)
    await clubs_on(path, clock)
    kept = directory_rows(path)
    assert {kind for _, kind, _, _ in kept} == {"format", "member", "plans", "due"}
    assert [row for row in kept if row[1] == "due"] == [
        (club, "due", "2024-03-02T19:00:00.000000", "") for club in (3, 6, 12)]
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM directory")
    db.close()
    repository = await SqliteRepository.open(path)
    try:
        assert await ClubService(repository, clock).fill_directory() == CLUBS
        assert await ClubService(repository, clock).fill_directory() == 0  # all there now
    finally:
        await repository.close()
    assert directory_rows(path) == kept


def test_due_keys_sort_as_the_times_do() -> None:
    from bot.service.directory import moment

    times = [datetime(2024, 3, 2, 19, 0), datetime(2024, 3, 2, 19, 0, 0, 1),
             datetime(2024, 12, 31, 23, 59, 59), datetime(2025, 1, 1)]
    assert sorted(moment(t) for t in times) == [moment(t) for t in times]
