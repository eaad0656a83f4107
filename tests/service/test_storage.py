"""The storage contract, run against every backend: SQLite on a file and in memory, and
PostgreSQL (a schema of its own on the session's server, see conftest.py)."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiosqlite
import asyncpg
import pytest

from bot.storage.backends import open_repository
from bot.storage.migrations import MIGRATIONS, load_migrations, migrate
from bot.storage.postgres import PostgresRepository
from bot.storage.repository import (
    Conflict,
    DuplicateRequest,
    NewEvent,
    Repository,
    Snapshot,
    UpdateClaim,
)
from bot.storage.sqlite import SqliteRepository, SqliteSchema

NOW = datetime(2024, 3, 1, 19, 0)


def event(kind: str = "game_reported", **data: int | str) -> NewEvent:
    return NewEvent(kind, "alice", NOW, dict(data), "because")


async def test_clubs_are_created_once_per_chat(repository: Repository) -> None:
    a = await repository.club_id("telegram", "-100", NOW)
    b = await repository.club_id("discord", "-100", NOW)
    assert a != b
    assert await repository.club_id("telegram", "-100", NOW) == a
    assert await repository.clubs() == [(a, "telegram", "-100"), (b, "discord", "-100")]


async def test_finding_a_club_never_creates_one(repository: Repository) -> None:
    assert await repository.find_club("telegram", "123") is None
    assert await repository.clubs() == []
    made = await repository.club_id("telegram", "123", NOW)
    assert await repository.find_club("telegram", "123") == made
    # another platform's chat of the same id, or another chat, is still nobody's
    assert await repository.find_club("discord", "123") is None
    assert await repository.find_club("telegram", "1234") is None
    assert await repository.clubs() == [(made, "telegram", "123")]


async def test_append_and_read_back_in_order(repository: Repository) -> None:
    club = await repository.club_id("console", "local", NOW)
    async with repository.transaction(club, 0) as tx:
        stored = await tx.append([event(n=1), event(n=2)])
    assert [e.data for e in stored] == [{"n": 1}, {"n": 2}]
    read = await repository.events(club)
    assert read == stored
    assert read[0].reason == "because" and read[0].at == NOW and read[0].actor == "alice"
    assert await repository.events(club, after=stored[0].id) == stored[1:]


async def test_clubs_do_not_see_each_other(repository: Repository) -> None:
    mine = await repository.club_id("console", "a", NOW)
    theirs = await repository.club_id("console", "b", NOW)
    async with repository.transaction(mine, 0) as tx:
        await tx.append([event(n=1)])
        await tx.remember("r1", '"mine"', NOW)
    assert await repository.events(theirs) == []
    assert await repository.answer(theirs, "r1") is None
    assert await repository.answer(mine, "r1") == '"mine"'


async def test_a_failed_transaction_stores_nothing(repository: Repository) -> None:
    club = await repository.club_id("console", "local", NOW)
    with pytest.raises(RuntimeError):
        async with repository.transaction(club, 0) as tx:
            await tx.append([event(n=1)])
            await tx.remember("r1", "{}", NOW)
            raise RuntimeError("crash in the middle of a use case")
    assert await repository.events(club) == []
    assert await repository.answer(club, "r1") is None


async def test_a_stale_writer_gets_a_conflict(repository: Repository) -> None:
    club = await repository.club_id("console", "local", NOW)
    async with repository.transaction(club, 0) as tx:
        await tx.append([event(n=1)])
    with pytest.raises(Conflict):
        async with repository.transaction(club, 0) as tx:
            await tx.append([event(n=2)])
    assert len(await repository.events(club)) == 1


async def test_a_request_is_answered_once(repository: Repository) -> None:
    club = await repository.club_id("console", "local", NOW)
    async with repository.transaction(club, 0) as tx:
        await tx.remember("upd-7", '"first"', NOW)
    with pytest.raises(DuplicateRequest):
        async with repository.transaction(club, 0) as tx:
            await tx.append([event(n=1)])
            await tx.remember("upd-7", '"second"', NOW)
    assert await repository.events(club) == []  # the duplicate's events were rolled back
    assert await repository.answer(club, "upd-7") == '"first"'


async def test_an_answer_is_kept_after_its_transaction(repository: Repository) -> None:
    """Issue 41: the transaction records a placeholder; the answer, worked out after the
    commit, replaces it."""
    club = await repository.club_id("console", "local", NOW)
    async with repository.transaction(club, 0) as tx:
        await tx.append([event(n=1)])
        await tx.remember("upd-7", '"recorded"', NOW)
    await repository.keep_answer(club, "upd-7", '"first"')
    assert await repository.answer(club, "upd-7") == '"first"'
    with pytest.raises(DuplicateRequest):
        async with repository.transaction(club, 1) as tx:
            await tx.remember("upd-7", '"recorded"', NOW)
    assert await repository.answer(club, "upd-7") == '"first"'


async def test_a_clubs_snapshot_is_replaced_only_by_a_newer_one(repository: Repository) -> None:
    club = await repository.club_id("console", "local", NOW)
    other = await repository.club_id("console", "other", NOW)
    assert await repository.snapshot(club) is None
    data = bytes(range(256)) * 10  # any bytes, NUL included
    await repository.keep_snapshot(club, Snapshot(20, "f-1", data), NOW)
    await repository.keep_snapshot(club, Snapshot(10, "f-1", b"older"), NOW)  # a slower process
    assert await repository.snapshot(club) == Snapshot(20, "f-1", data)
    await repository.keep_snapshot(club, Snapshot(30, "f-1", b"newer"), NOW)
    await repository.keep_snapshot(club, Snapshot(30, "f-2", b"new format"), NOW)
    assert await repository.snapshot(club) == Snapshot(30, "f-2", b"new format")
    assert await repository.snapshot(other) is None


async def test_answers_older_than_the_redelivery_window_are_forgotten(
    repository: Repository,
) -> None:
    """Issue 30: stored answers are bounded; those recorded before the cut go, in every club,
    and the rest stay (a later redelivery of them is still answered once)."""
    mine = await repository.club_id("console", "a", NOW)
    theirs = await repository.club_id("console", "b", NOW)
    for club, request, at in [(mine, "old", NOW), (theirs, "old", NOW + timedelta(seconds=59)),
                              (mine, "new", NOW + timedelta(minutes=1)),
                              (theirs, "newer", NOW + timedelta(hours=3, microseconds=5))]:
        async with repository.transaction(club, 0) as tx:
            await tx.remember(request, f'"{request}"', at)
    assert await repository.forget_answers(NOW + timedelta(minutes=1)) == 2
    assert await repository.answer(mine, "old") is None
    assert await repository.answer(theirs, "old") is None
    assert await repository.answer(mine, "new") == '"new"'
    assert await repository.answer(theirs, "newer") == '"newer"'
    assert await repository.forget_answers(NOW + timedelta(minutes=1)) == 0
    async with repository.transaction(mine, 0) as tx:  # old is a new request again
        await tx.remember("old", '"again"', NOW + timedelta(hours=4))
    assert await repository.answer(mine, "old") == '"again"'


async def test_received_updates_are_new_once_and_kept_until_handled(
    repository: Repository,
) -> None:
    """Issue 41: an update is kept from its receipt until it was handled; a delivery again (or
    to a second receiver) is not new; another bot's updates of the same ids are its own."""
    bot, other = "telegram:123456", "telegram:654321"
    assert await repository.receive_updates(bot, [(7, '{"n":7}'), (9, '{"n":9}')], NOW) == {7, 9}
    assert await repository.receive_updates(bot, [(9, '{"n":9}'), (10, '{"n":10}')],
                                            NOW) == {10}
    assert await repository.receive_updates(other, [(9, '{"m":9}')], NOW) == {9}
    assert await repository.receive_updates(bot, [], NOW) == set()
    assert await repository.unhandled_updates(bot) == ['{"n":7}', '{"n":9}', '{"n":10}']
    await repository.updates_handled(bot, [7, 10])
    await repository.updates_handled(bot, [])
    assert await repository.unhandled_updates(bot) == ['{"n":9}']
    assert await repository.unhandled_updates(other) == ['{"m":9}']
    # handled, and delivered again: still not new
    assert await repository.receive_updates(bot, [(7, '{"n":7}')], NOW) == set()
    later = NOW + timedelta(hours=1)
    assert await repository.receive_updates(bot, [(11, '{"n":11}')], later) == {11}
    assert await repository.forget_updates(NOW + timedelta(minutes=1)) == 4
    assert await repository.unhandled_updates(bot) == ['{"n":11}']
    assert await repository.unhandled_updates(other) == []
    assert await repository.forget_updates(NOW + timedelta(minutes=1)) == 0
    # past the window an id is new again (no platform delivers it so late)
    assert await repository.receive_updates(bot, [(7, '{"n":7}')], later) == {7}


async def test_a_preview_is_kept_replaced_and_taken_once(repository: Repository) -> None:
    club = await repository.club_id("console", "local", NOW)
    other = await repository.club_id("console", "other", NOW)
    assert await repository.take_preview(club, "mod") is None
    await repository.keep_preview(club, "mod", 4, '{"result":"draw"}', NOW)
    await repository.keep_preview(club, "mod", 5, '{"result":"loss"}', NOW)  # replaces
    await repository.keep_preview(other, "mod", 9, '{"result":"win"}', NOW)
    assert await repository.take_preview(club, "someone else") is None
    assert await repository.take_preview(club, "mod", 4) is None  # an older preview's button
    taken = await asyncio.gather(*(repository.take_preview(club, "mod", 5) for _ in range(3)))
    assert [t for t in taken if t is not None] == [(5, '{"result":"loss"}')]
    assert await repository.take_preview(other, "mod") == (9, '{"result":"win"}')


async def test_two_tasks_transactions_never_interleave(repository: Repository) -> None:
    # One shared connection: while task A is inside its transaction (and yields to the loop),
    # task B's transaction waits; B then sees A's events and must not write on a stale view.
    club = await repository.club_id("console", "local", NOW)
    a_inside = asyncio.Event()

    async def task_a() -> None:
        async with repository.transaction(club, 0) as tx:
            await tx.append([event(who="a", n=1)])
            a_inside.set()
            await asyncio.sleep(0.01)
            await tx.append([event(who="a", n=2)])

    async def task_b() -> None:
        await a_inside.wait()
        expected = 0  # what B saw before A committed
        while True:
            try:
                async with repository.transaction(club, expected) as tx:
                    await tx.append([event(who="b", n=1)])
                return
            except Conflict:
                expected = (await repository.events(club))[-1].id

    await asyncio.gather(task_a(), task_b())
    order = [(e.data["who"], e.data["n"]) for e in await repository.events(club)]
    assert order == [("a", 1), ("a", 2), ("b", 1)]


async def test_the_log_is_append_only(tmp_path: Path) -> None:
    path = tmp_path / "club.db"
    repo = await SqliteRepository.open(path)
    club = await repo.club_id("console", "local", NOW)
    async with repo.transaction(club, 0) as tx:
        await tx.append([event(n=1)])
    await repo.close()
    async with aiosqlite.connect(path) as raw:
        for statement in ("UPDATE events SET kind = 'x'", "DELETE FROM events"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                await raw.execute(statement)


async def test_the_log_refuses_a_replace_of_an_event(tmp_path: Path) -> None:
    # REPLACE deletes the old row without firing the delete trigger (recursive_triggers is
    # off by default): migration 0004 refuses the insert itself.
    path = tmp_path / "club.db"
    repo = await SqliteRepository.open(path)
    club = await repo.club_id("console", "local", NOW)
    async with repo.transaction(club, 0) as tx:
        [stored] = await tx.append([event(n=1)])
    await repo.close()
    columns = "(id, club_id, kind, actor, at, reason, data)"
    forged = f"VALUES ({stored.id}, {club}, 'game_voided', 'mallory', 'x', '', '{{}}')"
    async with aiosqlite.connect(path) as raw:
        for statement in (f"INSERT OR REPLACE INTO events {columns} {forged}",
                          f"REPLACE INTO events {columns} {forged}",
                          f"INSERT INTO events {columns} {forged}"
                          " ON CONFLICT (id) DO UPDATE SET kind = excluded.kind"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                await raw.execute(statement)
        async with raw.execute("SELECT id, kind, actor FROM events") as cursor:
            assert [tuple(r) for r in await cursor.fetchall()] == [
                (stored.id, "game_reported", "alice")]
    # New events are still appended, after the one kept.
    repo = await SqliteRepository.open(path)
    async with repo.transaction(club, stored.id) as tx:
        assert [e.id for e in await tx.append([event(n=2)])] == [stored.id + 1]
    await repo.close()


async def test_migrations_apply_once_and_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "club.db"
    async with aiosqlite.connect(path, isolation_level=None) as connection:
        assert await migrate(SqliteSchema(connection)) == [m.version for m in load_migrations()]
        assert await migrate(SqliteSchema(connection)) == []  # up to date: nothing to do
        async with connection.execute("SELECT version, name FROM schema_migrations") as cur:
            rows = await cur.fetchall()
    assert [tuple(r) for r in rows] == [(m.version, m.name) for m in load_migrations()]


async def test_a_broken_migration_leaves_no_trace(tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_good.sql").write_text("-- Reason: a table\nCREATE TABLE a (x INTEGER);\n")
    (folder / "0002_bad.sql").write_text(
        "-- Reason: a broken step\nCREATE TABLE b (x INTEGER);\nINSERT INTO nowhere VALUES (1);\n"
    )
    async with aiosqlite.connect(tmp_path / "db", isolation_level=None) as connection:
        with pytest.raises(sqlite3.OperationalError):
            await migrate(SqliteSchema(connection), folder)
        async with connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ) as cur:
            tables = [r[0] for r in await cur.fetchall()]
        async with connection.execute("SELECT version FROM schema_migrations") as cur:
            versions = [r[0] for r in await cur.fetchall()]
    assert tables == ["a", "schema_migrations"]  # no table b: 0002 rolled back whole
    assert versions == [1]


def test_migrations_need_a_reason(tmp_path: Path) -> None:
    (tmp_path / "0001_x.sql").write_text("CREATE TABLE a (x INTEGER);\n")
    with pytest.raises(ValueError, match="Reason"):
        load_migrations(tmp_path)


@pytest.mark.parametrize("where", ["empty", "missing"])
def test_no_migrations_at_all_is_an_incomplete_installation(tmp_path: Path, where: str) -> None:
    """A folder without a single .sql file (a wheel that left the schema out) stops the bot at
    start-up instead of leaving it without tables."""
    folder = tmp_path / "schema"
    if where == "empty":
        folder.mkdir()
        (folder / "README").write_text("not a migration\n")
    with pytest.raises(RuntimeError, match="installation is incomplete"):
        load_migrations(folder)


async def test_a_repository_without_migrations_refuses_to_open(tmp_path: Path) -> None:
    (tmp_path / "schema").mkdir()
    with pytest.raises(RuntimeError, match="no schema migrations found"):
        await SqliteRepository.open(tmp_path / "club.db", tmp_path / "schema")


def test_the_packaged_migrations_are_found() -> None:
    """The schema is package data, read through importlib.resources."""
    assert [m.name for m in load_migrations()][:2] == ["event_log", "posts"]
    assert [m.name for m in load_migrations(dialect="postgresql")][:2] == ["event_log", "posts"]


async def test_wal_and_foreign_keys_are_on(tmp_path: Path) -> None:
    repo = await SqliteRepository.open(tmp_path / "club.db")
    connection = repo._connection
    async with connection.execute("PRAGMA journal_mode") as cur:
        assert (await cur.fetchone())[0] == "wal"  # type: ignore[index]
    async with connection.execute("PRAGMA foreign_keys") as cur:
        assert (await cur.fetchone())[0] == 1  # type: ignore[index]
    async with connection.execute("PRAGMA synchronous") as cur:
        assert (await cur.fetchone())[0] == 1  # type: ignore[index]  # NORMAL
    await repo.close()


async def test_answers_kept_before_the_upgrade_count_as_given_then(
    database: Path | str, tmp_path: Path,
) -> None:
    """Migration 0006 gives every answer its time: those of a database written before it
    count as given at the upgrade, so a redelivery just after it is still answered once, and
    they go with the window after it. Both backends."""
    old = tmp_path / "schema-0005"
    old.mkdir()
    for migration in MIGRATIONS.iterdir():
        if migration.name.endswith(".sql") and migration.name < "0006":
            (old / migration.name).write_text(migration.read_text(encoding="utf-8"))
    postgres = isinstance(database, str)
    before: Repository = await (PostgresRepository.open(database, old) if postgres
                                else SqliteRepository.open(database, old))
    club = await before.club_id("console", "local", NOW)
    await before.close()
    insert = "INSERT INTO requests (club_id, request_id, response) VALUES ({}, 'upd-1', '\"x\"')"
    if postgres:
        raw = await asyncpg.connect(str(database))
        try:
            await raw.execute(insert.format(club))
        finally:
            await raw.close()
    else:
        async with aiosqlite.connect(database) as connection:
            await connection.execute(insert.format(club))
            await connection.commit()
    after = await open_repository(database)
    try:
        assert await after.answer(club, "upd-1") == '"x"'
        upgraded = datetime.now(UTC).replace(tzinfo=None)
        assert await after.forget_answers(upgraded - timedelta(minutes=5)) == 0
        assert await after.forget_answers(upgraded + timedelta(minutes=5)) == 1
    finally:
        await after.close()


async def test_the_directory_keeps_what_each_write_changed_and_finds_it_by_key(
        repository: Repository) -> None:
    """Issue 41: a club's directory rows are replaced in its write's transaction (only those
    that changed), found by kind and key, or up to a key (times sort as text), by club."""
    a = await repository.club_id("telegram", "-1", NOW)
    b = await repository.club_id("discord", "7", NOW)
    first = {("member", "42"): "0fr", ("due", "2024-03-02T19:00:00.000000"): "",
             ("slug", "chess"): "main"}
    async with repository.transaction(a, 0) as tx:
        assert tx.read_at == 0
        stored = await tx.append([event(n=1)])
        await tx.index(first, None)
    async with repository.transaction(b, 0) as tx:
        await tx.index({("member", "42"): "1", ("due", "2024-03-01T20:00:00.000000"): ""},
                       None)
    assert await repository.directory("member", "42") == [(a, "42", "0fr"), (b, "42", "1")]
    assert await repository.directory("due", up_to="2024-03-02T00:00:00.000000") == [
        (b, "2024-03-01T20:00:00.000000", "")]
    assert await repository.directory("slug") == [(a, "chess", "main")]
    # the next write changes one row and drops another; the baseline may be read (None)
    for before in (first, None):
        async with repository.transaction(a, stored[-1].id) as tx:
            assert tx.read_at == stored[-1].id
            await tx.index({("member", "42"): "0", ("slug", "chess"): "main"}, before)
        assert await repository.directory("member", "42") == [(a, "42", "0"), (b, "42", "1")]
        assert await repository.directory("due") == [(b, "2024-03-01T20:00:00.000000", "")]
    # a transaction that fails keeps none of it
    with pytest.raises(RuntimeError):
        async with repository.transaction(a, stored[-1].id) as tx:
            await tx.index({}, None)
            raise RuntimeError("the write failed")
    assert await repository.directory("slug") == [(a, "chess", "main")]
    assert await repository.club_chats([b, a]) == [(a, "telegram", "-1"), (b, "discord", "7")]


async def test_confirmed_updates_are_forgotten_once_handled(repository: Repository) -> None:
    """Issue 41: long polling asked past them, so Telegram never delivers them again: handled
    ones below the offset go, unhandled ones and later ones stay, another bot's are its own."""
    bot, other = "telegram:123456", "telegram:654321"
    await repository.receive_updates(bot, [(n, f'{{"n":{n}}}') for n in (3, 4, 5, 6)], NOW)
    await repository.receive_updates(other, [(3, '{"m":3}')], NOW)
    await repository.updates_handled(bot, [3, 5, 6])
    await repository.updates_handled(other, [3])
    await repository.forget_confirmed(bot, 6)
    assert await repository.unhandled_updates(bot) == ['{"n":4}']
    # 3 and 5 are gone (a delivery of them is new), 4 is being handled, 6 was not confirmed
    assert await repository.receive_updates(bot, [(n, "{}") for n in (3, 4, 5, 6)],
                                            NOW) == {3, 5}
    assert await repository.receive_updates(other, [(3, "{}")], NOW) == set()


async def test_an_update_on_a_webhook_is_claimed_once_and_taken_over_once_expired(
        repository: Repository) -> None:
    """Issue 41: of receivers claiming one update, one handles it; a delivery again while it is
    being handled is another's, once handled it is answered at once, and an unhandled claim
    older than the expiry (its receiver died) is taken over, by one."""
    bot, other = "telegram:123456", "telegram:654321"
    expired = NOW - timedelta(minutes=2)
    claims = await asyncio.gather(*(repository.claim_update(bot, 7, '{"n":7}', NOW, expired)
                                    for _ in range(3)))
    assert sorted(c.name for c in claims) == ["BUSY", "BUSY", "CLAIMED"]
    assert await repository.claim_update(other, 7, '{"m":7}', NOW, expired) is UpdateClaim.CLAIMED
    # long polling's receipt and a webhook's claim are one: kept, unhandled, not new again
    assert await repository.receive_updates(bot, [(7, '{"n":7}')], NOW) == set()
    assert await repository.unhandled_updates(bot) == ['{"n":7}']
    soon = NOW + timedelta(minutes=1)
    assert await repository.claim_update(bot, 7, '{"n":7}', soon,
                                         soon - timedelta(minutes=2)) is UpdateClaim.BUSY
    later = NOW + timedelta(minutes=3)
    taken = await asyncio.gather(*(repository.claim_update(bot, 7, '{"n":7}', later,
                                                           later - timedelta(minutes=2))
                                   for _ in range(3)))
    assert sorted(c.name for c in taken) == ["BUSY", "BUSY", "CLAIMED"]
    await repository.updates_handled(bot, [7])
    much_later = NOW + timedelta(hours=1)
    assert await repository.claim_update(bot, 7, '{"n":7}', much_later,
                                         much_later - timedelta(minutes=2)) is UpdateClaim.HANDLED
    assert await repository.unhandled_updates(bot) == []
    # the claim's time is its receipt's: kept the usual window from the latest claim
    assert await repository.forget_updates(later) == 1  # the other bot's, claimed at NOW
    assert await repository.forget_updates(later + timedelta(seconds=1)) == 1


async def test_each_event_keeps_the_platform_sequence_of_its_update(
        database: Path | str) -> None:
    """Issue 41: an append names the platform's sequence number of the update behind it, kept
    beside each event (NULL when none), never read back into the events."""
    repository = await open_repository(database)
    try:
        club = await repository.club_id("telegram", "-1", NOW)
        async with repository.transaction(club, 0) as tx:
            first = await tx.append([event(n=1), event(n=2)], 5001)
        async with repository.transaction(club, first[-1].id) as tx:
            second = await tx.append([event(n=3)])
        async with repository.transaction(club, second[-1].id) as tx:
            await tx.append([event(n=4)], 5003)
        assert [e.data for e in await repository.events(club)] == [{"n": n} for n in (1, 2, 3, 4)]
    finally:
        await repository.close()
    query = "SELECT id, platform_sequence FROM events ORDER BY id"
    if isinstance(database, str):
        raw = await asyncpg.connect(database)
        try:
            rows = [tuple(r) for r in await raw.fetch(query)]
        finally:
            await raw.close()
    else:
        async with aiosqlite.connect(database) as connection:
            rows = [tuple(r) for r in await connection.execute_fetchall(query)]
    assert rows == [(1, 5001), (2, 5001), (3, None), (4, 5003)]


async def test_an_update_claimed_by_a_process_that_ended_is_taken_over_at_once(
        postgres_db: str) -> None:
    """Issue 41: a webhook's claim names its process (a lock it holds while it lives); another
    process leaves an update a live process claimed until the claim expires, and takes over
    one whose claimer is gone at once."""
    bot = "telegram:123456"
    expired = NOW - timedelta(minutes=2)
    one = await PostgresRepository.open(postgres_db)
    two = await PostgresRepository.open(postgres_db)
    try:
        assert await one.claim_update(bot, 7, '{"n":7}', NOW, expired) is UpdateClaim.CLAIMED
        assert await two.claim_update(bot, 7, '{"n":7}', NOW, expired) is UpdateClaim.BUSY
        await one.close()  # its session's locks go with it, as with a process killed
        soon = NOW + timedelta(seconds=5)
        assert await two.claim_update(bot, 7, '{"n":7}', soon,
                                      soon - timedelta(minutes=2)) is UpdateClaim.CLAIMED
        # the claim is two's now: a third receiver leaves it while two lives
        three = await PostgresRepository.open(postgres_db)
        try:
            assert await three.claim_update(bot, 7, '{"n":7}', soon,
                                            soon - timedelta(minutes=2)) is UpdateClaim.BUSY
        finally:
            await three.close()
    finally:
        await two.close()


async def test_two_processes_write_one_club_one_after_the_other(postgres_db: str) -> None:
    """Issue 41: each writing transaction takes the club's advisory lock first; a second
    process's write waits for the first's commit, then finds its events (Conflict, read
    again), instead of racing it; another club's write does not wait."""
    one = await PostgresRepository.open(postgres_db)
    two = await PostgresRepository.open(postgres_db)
    release = asyncio.Event()
    try:
        club = await one.club_id("telegram", "-1", NOW)
        elsewhere = await one.club_id("telegram", "-2", NOW)
        holding = asyncio.Event()

        async def first() -> None:
            async with one.transaction(club, 0) as tx:
                await tx.append([event(n=1)], 10)
                holding.set()
                await release.wait()

        entered = asyncio.Event()

        async def second() -> None:
            async with two.transaction(club, 0) as tx:
                entered.set()  # the lock is taken on entering, before anything is read
                await tx.append([event(n=2)], 11)

        writer = asyncio.create_task(first())
        await holding.wait()
        waiting = asyncio.create_task(second())
        async with two.transaction(elsewhere, 0) as tx:  # another club: no wait
            await tx.append([event(n=9)], 12)
        await asyncio.sleep(0.3)
        assert not entered.is_set()  # it waits for the club's lock
        release.set()
        await writer
        with pytest.raises(Conflict):
            await waiting
        assert [e.data for e in await two.events(club)] == [{"n": 1}]
    finally:
        release.set()  # a failed check leaves no transaction open for close() to wait for
        await one.close()
        await two.close()
