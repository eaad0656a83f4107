"""What the PostgreSQL backend promises beyond the common contract (tests/service/test_storage.py):
its own migrations, the append-only rule enforced by the server, and writers in different
connection pools (as different processes have) that never both write on one stale view."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

import asyncpg
import pytest

from bot.storage.backends import describe, is_postgres, open_repository
from bot.storage.migrations import load_migrations, migrate
from bot.storage.postgres import PostgresRepository, PostgresSchema
from bot.storage.repository import Conflict, DuplicateRequest, NewEvent
from bot.storage.sqlite import SqliteRepository

NOW = datetime(2024, 3, 1, 19, 0)


def event(**data: int | str) -> NewEvent:
    return NewEvent("game_reported", "alice", NOW, dict(data))


async def test_the_log_is_append_only_on_the_server(postgres_db: str) -> None:
    repo = await PostgresRepository.open(postgres_db)
    club = await repo.club_id("console", "local", NOW)
    async with repo.transaction(club, 0) as tx:
        await tx.append([event(n=1)])
    await repo.close()
    raw = await asyncpg.connect(postgres_db)
    try:
        for statement in ("UPDATE events SET kind = 'x'", "DELETE FROM events",
                          "TRUNCATE events"):
            with pytest.raises(asyncpg.IntegrityConstraintViolationError, match="append-only"):
                await raw.execute(statement)
        assert await raw.fetchval("SELECT count(*) FROM events") == 1
    finally:
        await raw.close()


async def test_migrations_apply_once_and_are_recorded(postgres_db: str) -> None:
    raw = await asyncpg.connect(postgres_db)
    try:
        expected = [m.version for m in load_migrations(dialect="postgresql")]
        assert await migrate(PostgresSchema(raw)) == expected
        assert await migrate(PostgresSchema(raw)) == []
        rows = await raw.fetch("SELECT version, name FROM schema_migrations ORDER BY version")
        # a dialect's own file keeps the number and name of the common one
        assert [tuple(r) for r in rows] == [(m.version, m.name) for m in load_migrations()]
    finally:
        await raw.close()


async def test_a_broken_migration_leaves_no_trace(postgres_db: str, tmp_path: Path) -> None:
    (tmp_path / "0001_good.sql").write_text("-- Reason: a table\nCREATE TABLE a (x INTEGER);\n")
    (tmp_path / "0002_bad.sql").write_text(
        "-- Reason: a broken step\nCREATE TABLE b (x INTEGER);\nINSERT INTO nowhere VALUES (1);\n"
    )
    raw = await asyncpg.connect(postgres_db)
    try:
        with pytest.raises(asyncpg.UndefinedTableError):
            await migrate(PostgresSchema(raw), tmp_path)
        tables = await raw.fetch(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema() ORDER BY table_name"
        )
        assert [r[0] for r in tables] == ["a", "schema_migrations"]
        assert [r[0] for r in await raw.fetch("SELECT version FROM schema_migrations")] == [1]
    finally:
        await raw.close()


def test_a_dialect_file_replaces_the_common_file_for_that_dialect_only(tmp_path: Path) -> None:
    (tmp_path / "0001_log.sql").write_text("-- Reason: common\nCREATE TABLE a (x INTEGER);\n")
    (tmp_path / "0001_log.postgresql.sql").write_text("-- Reason: pg\nCREATE TABLE a (x INT);\n")
    (tmp_path / "0002_more.sql").write_text("-- Reason: more\nCREATE TABLE b (x INTEGER);\n")
    sqlite = load_migrations(tmp_path, "sqlite")
    postgres = load_migrations(tmp_path, "postgresql")
    assert [(m.version, m.name, m.sql.split("\n")[0]) for m in sqlite] == [
        (1, "log", "-- Reason: common"), (2, "more", "-- Reason: more")]
    assert [(m.version, m.name, m.sql.split("\n")[0]) for m in postgres] == [
        (1, "log", "-- Reason: pg"), (2, "more", "-- Reason: more")]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"0001_a.mysql.sql": "x"}, "unknown dialect 'mysql'"),
        ({"0001_a.sql": "x", "0001_b.postgresql.sql": "x"}, "two names"),
        ({"0001_a.postgresql.sql": "-- Reason: x\n"}, "no common file and none for sqlite"),
        ({"0001_a.sql": "-- Reason: x\n", "0003_c.sql": "-- Reason: x\n"}, "without gaps"),
    ],
)
def test_badly_named_migrations_are_refused(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ValueError, match=message):
        load_migrations(tmp_path, "sqlite")


async def test_processes_starting_at_once_migrate_one_after_another(postgres_db: str) -> None:
    repos = await asyncio.gather(*(PostgresRepository.open(postgres_db) for _ in range(4)))
    try:
        ids = await asyncio.gather(*(r.club_id("telegram", "-1", NOW) for r in repos))
        assert len(set(ids)) == 1  # one club, whoever created it
    finally:
        await asyncio.gather(*(r.close() for r in repos))


async def test_event_ids_count_within_each_club(postgres_db: str) -> None:
    repo = await PostgresRepository.open(postgres_db)
    try:
        a = await repo.club_id("console", "a", NOW)
        b = await repo.club_id("console", "b", NOW)
        async with repo.transaction(a, 0) as tx:
            assert [e.id for e in await tx.append([event(n=1), event(n=2)])] == [1, 2]
        async with repo.transaction(b, 0) as tx:
            assert [e.id for e in await tx.append([event(n=1)])] == [1]
        async with repo.transaction(a, 2) as tx:
            assert [e.id for e in await tx.append([event(n=3)])] == [3]
            assert [e.id for e in await tx.append([event(n=4), event(n=5)])] == [4, 5]
        assert [e.data["n"] for e in await repo.events(a)] == [1, 2, 3, 4, 5]
    finally:
        await repo.close()


async def test_writers_in_two_pools_never_both_write_on_one_view(postgres_db: str) -> None:
    # Two repositories are two processes' pools. Both read the same last id and write at once:
    # the club's lock lets one in at a time, so exactly one appends, and the other, let in
    # after its commit, finds its event (Conflict).
    first, second = [await PostgresRepository.open(postgres_db) for _ in range(2)]
    try:
        club = await first.club_id("console", "local", NOW)

        async def writer(repo: PostgresRepository, who: str) -> str:
            try:
                async with repo.transaction(club, 0) as tx:
                    await tx.append([event(who=who)])
                    await asyncio.sleep(0.05)  # hold the lock while the other waits for it
                return "wrote"
            except Conflict:
                return "conflict"

        outcomes = await asyncio.gather(writer(first, "a"), writer(second, "b"))
        assert sorted(outcomes) == ["conflict", "wrote"]
        assert len(await second.events(club)) == 1
    finally:
        await first.close()
        await second.close()


async def test_one_request_handled_in_two_pools_is_answered_once(postgres_db: str) -> None:
    first, second = [await PostgresRepository.open(postgres_db) for _ in range(2)]
    try:
        club = await first.club_id("console", "local", NOW)

        async def handle(repo: PostgresRepository, answer: str) -> str:
            # one at a time (the club's lock): the later one finds the request answered
            try:
                async with repo.transaction(club, 0) as tx:
                    await tx.remember("update-1", answer, NOW)
                    await asyncio.sleep(0.05)
                return "answered"
            except DuplicateRequest:
                return "duplicate"

        outcomes = await asyncio.gather(handle(first, '"a"'), handle(second, '"b"'))
        assert sorted(outcomes) == ["answered", "duplicate"]
        winner = '"a"' if outcomes[0] == "answered" else '"b"'
        assert await second.answer(club, "update-1") == winner
    finally:
        await first.close()
        await second.close()


async def test_the_setting_chooses_the_backend(postgres_db: str, tmp_path: Path) -> None:
    assert is_postgres("postgresql://u@h/db") and is_postgres("postgres://h/db")
    assert not is_postgres(str(tmp_path / "postgresql.db")) and not is_postgres(tmp_path)
    assert describe("postgresql://bot:secret@db.example:5433/clubs?sslmode=require") == (
        "postgresql://bot@db.example:5433/clubs")
    for target, kind in ((postgres_db, PostgresRepository),
                         (str(tmp_path / "club.db"), SqliteRepository)):
        repo = await open_repository(target)
        try:
            assert isinstance(repo, kind)
        finally:
            await repo.close()
