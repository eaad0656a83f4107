"""The club cache (issue 41): bounded, least recently used out first, never a club under a
command working on it; long clubs read from their snapshot and the events after it, a snapshot
of another format or that does not load ignored; and a write whose process stopped between its
commit and its answer answered, when redelivered, with a short notice and never written twice."""

from __future__ import annotations

import asyncio
import gc
import logging
import shutil
import sqlite3
from collections.abc import Awaitable
from datetime import timedelta
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.history import read_events
from bot.service import snapshots
from bot.service.cache import ClubCache
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.service.identity import Caller, UserRef
from bot.service.results import Leaderboard, Notice
from bot.service.session import SNAPSHOT_EVENTS
from bot.service.state import ClubState
from bot.service.view import Club
from bot.settings import Settings
from bot.storage.backends import open_repository
from bot.storage.sqlite import SqliteRepository
from tests.chat import START, Transcript, open_club
from tests.long_history import imported_database, last_game, write_events
from tests.loop_stall import longest_stall

CLUBS = [f"-10{n}" for n in range(1, 6)]


def caller(chat: str, user: str, moderator: bool = False,
           request: str | None = None) -> Caller:
    return Caller("telegram", chat, user, user, moderator=moderator, request_id=request)


# -- the cache itself ---------------------------------------------------------------------------


async def test_the_least_recently_used_club_goes_first_and_never_one_in_use() -> None:
    cache = ClubCache(2)
    for club_id in (1, 2):
        cache.put(Club(club_id, ClubState()))
    assert cache.get(1) is not None  # 1 is now the most recently used: 2 goes first
    cache.put(Club(3, ClubState()))
    assert list(cache) == [1, 3]
    # A club whose lock is held stays, over the capacity, until its holder is done.
    async with cache.locked(1), cache.locked(3):
        cache.put(Club(4, ClubState()))
        assert list(cache) == [1, 3]  # 4, the newest, was the only one free to go
        async with cache.locked(4):
            cache.put(Club(4, ClubState()))
            assert list(cache) == [1, 3, 4] and cache.locks == 3
        assert list(cache) == [1, 3] and cache.locks == 2  # 4 went with its holder
    cache.put(Club(5, ClubState()))
    assert list(cache) == [3, 5] and cache.locks == 1  # 1, used longest ago, went
    # A lock of a club never cached (a read that failed) is dropped with its last user.
    async with cache.locked(9):
        assert cache.locks == 2
    assert cache.locks == 1


async def test_a_lock_is_kept_while_a_command_waits_for_it() -> None:
    cache = ClubCache(1)
    order: list[str] = []

    async def command(name: str) -> None:
        async with cache.locked(7):
            order.append(f"{name} in")
            cache.pop(7)  # e.g. a failed write forgets the club: the waiter keeps the same lock
            await asyncio.sleep(0.01)
            order.append(f"{name} out")

    await asyncio.gather(command("a"), command("b"), command("c"))
    assert order == ["a in", "a out", "b in", "b out", "c in", "c out"]
    assert cache.locks == 0


# -- a service with a cache of two serving five clubs ------------------------------------------


async def play_round_robin(service: ClubService) -> list[object]:
    """Five clubs, a command in each in turn: every answer."""
    answers: list[object] = []
    for name in ("ann", "ben", "cy"):
        for chat in CLUBS:
            answers.append(await service.register(caller(chat, name)))
    for n, (winner, loser) in enumerate([("ann", "ben"), ("cy", "ann"), ("ann", "cy")] * 2):
        for chat in CLUBS[n % 2:]:
            answers.append(await service.report(caller(chat, "mod", moderator=True),
                                                UserRef(loser), "win", player=UserRef(winner)))
    for chat in CLUBS:
        answers.append(await service.leaderboard(caller(chat, "ben")))
    return answers


async def test_five_clubs_through_a_cache_of_two_answer_as_through_the_default(
        tmp_path: Path) -> None:
    answers = []
    for capacity in (2, None):
        repository = await open_repository(tmp_path / f"club-{capacity}.db")
        service = (ClubService(repository, FakeClock(START)) if capacity is None
                   else ClubService(repository, FakeClock(START), capacity))
        try:
            answers.append(await play_round_robin(service))
            if capacity is not None:
                assert len(service._session.clubs) == 2
                assert service._session.clubs.locks == 2
        finally:
            await repository.close()
    assert answers[0] == answers[1]
    boards = [[(row.name, round(row.rating), row.games) for row in board.rows]
              for board in answers[0][-5:] if isinstance(board, Leaderboard)]
    # The first club had every other game (three), the others all six.
    assert boards == [[("ann", 1543, 3), ("cy", 1532, 2), ("ben", 1447, 1)]] + [
        [("ann", 1571, 6), ("cy", 1528, 4), ("ben", 1411, 2)]] * 4


# -- snapshots ----------------------------------------------------------------------------------

#: games of the club read from its snapshot: more than SNAPSHOT_EVENTS events
SNAPSHOT_GAMES = 2500


@pytest.fixture
async def long_club(tmp_path: Path) -> Path:
    events = write_events(tmp_path / "EVENTS.csv", SNAPSHOT_GAMES, players=30)
    database = tmp_path / "club.db"
    repository = await open_repository(database)
    service = ClubService(repository, FakeClock(last_game(SNAPSHOT_GAMES) + timedelta(days=1)))
    try:
        history = read_events(events)
        await service.import_history("telegram", CLUBS[0], history, history.labels)
    finally:
        await repository.close()
    return database


async def board_of(database: Path) -> tuple[object, ClubService]:
    repository = await open_repository(database)
    service = ClubService(repository, FakeClock(last_game(SNAPSHOT_GAMES) + timedelta(days=2)))
    try:
        board = await service.leaderboard(caller(CLUBS[0], "p001"))
        await asyncio.gather(*service._session._snapshotting.values())
        return board, service
    finally:
        await repository.close()


def snapshot_row(database: Path) -> tuple[int, str] | None:
    with sqlite3.connect(database) as connection:
        row = connection.execute("SELECT last_id, format FROM snapshots").fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def last_event(database: Path) -> int:
    """The last event of club 1 (the one read in these tests)."""
    with sqlite3.connect(database) as connection:
        return int(connection.execute(
            "SELECT max(id) FROM events WHERE club_id = 1").fetchone()[0])


async def test_a_long_club_is_read_from_its_snapshot_with_the_same_ratings(
        long_club: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert last_event(long_club) >= SNAPSHOT_EVENTS
    caplog.set_level(logging.INFO, logger="bot.service.session")
    from_log, _ = await board_of(long_club)  # read from its log: a snapshot is kept
    assert snapshot_row(long_club) == (last_event(long_club), snapshots.FORMAT)
    caplog.clear()
    from_snapshot, service = await board_of(long_club)
    assert from_snapshot == from_log
    assert "read from its snapshot" in caplog.text and "reading its log" not in caplog.text
    club = service._session.clubs.values()[0]
    assert club.snapshot_events == len(club.state.log) >= SNAPSHOT_EVENTS


@pytest.mark.parametrize("damage", ["UPDATE snapshots SET format = 'clubrating-0.0.0/state-0'",
                                    "UPDATE snapshots SET data = x'80049500'"])
async def test_a_snapshot_of_another_format_or_that_does_not_load_is_ignored(
        long_club: Path, damage: str, caplog: pytest.LogCaptureFixture) -> None:
    truth, _ = await board_of(long_club)
    with sqlite3.connect(long_club) as connection:
        connection.execute(damage)
    caplog.set_level(logging.INFO, logger="bot.service.session")
    assert (await board_of(long_club))[0] == truth
    assert "reading its log" in caplog.text
    # Read from the log, the club got a usable snapshot again.
    assert snapshot_row(long_club) == (last_event(long_club), snapshots.FORMAT)


# -- a commit is the INSERTs; the answer is kept after it ---------------------------------------


async def test_a_write_redelivered_after_a_stop_between_commit_and_answer_is_not_written_twice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    database = tmp_path / "club.db"
    repository = await open_repository(database)
    service = ClubService(repository, FakeClock(START))
    chat = CLUBS[0]
    for name in ("ann", "ben"):
        await service.register(caller(chat, name))

    async def stopped(*args: object) -> None:
        raise SystemExit("the process stopped here")

    monkeypatch.setattr(SqliteRepository, "keep_answer", stopped)
    with pytest.raises(SystemExit):
        await service.report(caller(chat, "ann", request="update-7"), UserRef("ben"), "win")
    await repository.close()
    written = last_event(database)
    monkeypatch.undo()

    repository = await open_repository(database)
    service = ClubService(repository, FakeClock(START))
    try:
        again = await service.report(caller(chat, "ann", request="update-7"), UserRef("ben"),
                                     "win")
        assert again == Notice("request_recorded")
        assert last_event(database) == written
        # A write whose answer was kept answers its redelivery with it, as before.
        first = await service.report(caller(chat, "ben", request="update-8"), UserRef("ann"),
                                     "win")
        assert await service.report(caller(chat, "ben", request="update-8"), UserRef("ann"),
                                    "win") == first
    finally:
        await repository.close()


# -- a 100,000-event club never holds the event loop ---------------------------------------------

#: games of the long club (each an event, with the import's own)
LONG_GAMES = 100_000
#: the longest the event loop may go without running its ticker (issue 41)
MAX_STALL = 0.1


@pytest.fixture(scope="module")
def hundred_thousand(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A console club's database with 100,000 games imported (made once; tests copy it)."""
    return imported_database(tmp_path_factory.mktemp("hundred-thousand"), LONG_GAMES)


AFTER_LONG = last_game(LONG_GAMES) + timedelta(days=1)


async def stall_of(work: Awaitable[str], tries: list[float]) -> str:
    """``work``'s answer; how long it stalled the loop goes into ``tries``."""
    task = asyncio.ensure_future(work)
    tries.append(await longest_stall(task))
    return task.result()


async def warmed_up(chat: Transcript) -> None:
    """The process has served another club: what a first command loads once (modules, the
    messages' catalogue) is not the long club's reading."""
    other = Caller("console", "other", "zed", "zed")
    await chat.service.leaderboard(other)


async def settled(chat: Transcript) -> None:
    """The snapshot a read started is written (it stalls the loop too: measured apart)."""
    await asyncio.gather(*chat.service._session._snapshotting.values())


async def test_a_long_club_never_holds_the_event_loop(hundred_thousand: Path,
                                                      tmp_path: Path) -> None:
    database = tmp_path / "club.db"
    shutil.copy(hundred_thousand, database)
    stalls: dict[str, list[float]] = {}
    try:
        # First read, from the log (decoded, folded and rated in worker threads). A stall
        # seen once is looked at again (up to three reads) in a club opened anew, the snapshot
        # removed: a busy machine may hold the event loop's thread off the processor for a
        # moment, while work done on the loop stalls it every time. The garbage of the tests
        # run before in this process, which a bot's process would not have, is collected
        # first, so that its collection does not fall into the read.
        for _ in range(3):
            with sqlite3.connect(database) as connection:
                connection.execute("DELETE FROM snapshots")
            async with open_club(database, start=AFTER_LONG) as chat:
                await warmed_up(chat)
                gc.collect()
                board = await stall_of(chat.as_("mod", "/top"), stalls.setdefault("log", []))
                await settled(chat)
            gc.unfreeze()
            if min(stalls["log"]) < MAX_STALL:
                break
        assert snapshot_row(database) == (last_event(database), snapshots.FORMAT)
        # First read of a process started since: from the snapshot.
        async with open_club(database, start=AFTER_LONG) as chat:
            await warmed_up(chat)
            assert await stall_of(chat.as_("mod", "/top"),
                                  stalls.setdefault("snapshot", [])) == board
            recorded = await chat.as_("mod!", "/report @p001 @p002 win")
            assert "p001 beat p002" in recorded
            # /undo's preview and /merge's fold the whole log again, in a worker thread.
            preview = await stall_of(chat.say("/undo"), stalls.setdefault("undo", []))
            assert preview == ("Undoing #100204 (mod recorded game #100001 on main: p001 beat "
                               "p002) would change:\np001: 1543 -> 1530\np002: 1457 -> 1471\n"
                               "Send /apply to undo it, or /cancel.")
            merge = await stall_of(chat.say("/merge @p003 @p004"),
                                   stalls.setdefault("merge", []))
            assert merge.startswith(
                "Merging p003 into p004 would drop games #32378, #40216, #42226, #48164 (played "
                "between the two records) and change:\np053: 1463 -> 1463\n")
            await chat.say("/cancel")
            # Applying the undo: the log folded again and the ladder replayed, off the loop and
            # after the commit.
            await chat.say("/undo")
            undone = await stall_of(chat.say("/apply"), stalls.setdefault("apply", []))
            assert undone == ("Undone #100204: mod recorded game #100001 on main: p001 beat "
                              "p002. Ratings changed:\np001: 1543 -> 1530\np002: 1457 -> 1471")
            assert await chat.say("/top") == board
    finally:
        gc.unfreeze()
    assert all(max(each) < MAX_STALL for name, each in stalls.items() if name != "log"), stalls
    assert min(stalls["log"]) < MAX_STALL, stalls


# -- the setting --------------------------------------------------------------------------------


def test_the_setting_is_a_number_of_clubs(tmp_path: Path) -> None:
    folder = {"CLUBRATING_DATA_DIR": str(tmp_path)}
    assert Settings.from_environment(folder).cache_clubs == 1000
    assert Settings.from_environment(folder | {"CLUBRATING_CACHE_CLUBS": "2"}).cache_clubs == 2
    assert Settings.from_environment(
        folder | {"CLUBRATING_CACHE_CLUBS": "10_000"}).cache_clubs == 10_000
    for bad in ("0", "lots", "-3"):
        with pytest.raises(ConfigError) as refused:
            Settings.from_environment(folder | {"CLUBRATING_CACHE_CLUBS": bad})
        assert refused.value.problems == (
            f"CLUBRATING_CACHE_CLUBS must be a number of clubs, at least 1 (e.g. 1000), not "
            f"{bad!r}",)
