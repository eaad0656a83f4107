"""The roles one process at a time holds among those on one database (issue 41), as each backend
keeps them: an advisory lock on a connection of its own (PostgreSQL), an ``flock`` on a file
beside the database (SQLite)."""

from __future__ import annotations

import stat
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]

from bot.storage.postgres import PostgresRepository
from bot.storage.repository import Repository
from bot.storage.roles import role_lock_key
from bot.storage.sqlite import SqliteRepository

SCHEDULER = "scheduler"
RECEIVER = "telegram-receiver:100"


async def test_a_role_is_taken_held_and_let_go_of(repository: Repository) -> None:
    assert not await repository.role_held(SCHEDULER)
    assert await repository.take_role(SCHEDULER)
    assert await repository.take_role(SCHEDULER)  # held already: still this process's
    assert await repository.role_held(SCHEDULER)
    assert not await repository.role_held(RECEIVER)
    await repository.release_role(SCHEDULER)
    assert not await repository.role_held(SCHEDULER)
    await repository.release_role(SCHEDULER)  # not held: nothing happens


async def test_a_role_is_held_by_one_process_at_a_time_on_postgresql(postgres_db: str) -> None:
    first = await PostgresRepository.open(postgres_db)
    second = await PostgresRepository.open(postgres_db)
    try:
        assert await first.take_role(SCHEDULER)
        assert not await second.take_role(SCHEDULER)
        assert await second.take_role(RECEIVER)  # another role: free
        await first.release_role(SCHEDULER)  # taken twice above, let go of once: free
        assert await second.take_role(SCHEDULER)
        assert not await first.take_role(RECEIVER)
        await second.close()  # a process that ends lets go of its roles
        assert await first.take_role(RECEIVER) and await first.take_role(SCHEDULER)
    finally:
        await first.close()
        await second.close()


async def test_a_holder_whose_lock_connection_is_lost_knows_it(postgres_db: str) -> None:
    first = await PostgresRepository.open(postgres_db)
    second = await PostgresRepository.open(postgres_db)
    try:
        assert await first.take_role(SCHEDULER)
        # the server ends the session holding the lock (as when the network drops it)
        connection = await asyncpg.connect(postgres_db)
        try:
            schema = await connection.fetchval("SELECT current_schema()")
            key = role_lock_key(SCHEDULER, schema) & 0xFFFF_FFFF_FFFF_FFFF
            ended = await connection.fetch(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
                " AND classid = $1 AND objid = $2 AND objsubid = 1", key >> 32,
                key & 0xFFFF_FFFF)
        finally:
            await connection.close()
        assert len(ended) == 1
        assert await second.take_role(SCHEDULER)
        assert not await first.role_held(SCHEDULER)
        assert not await first.take_role(SCHEDULER)  # on a new connection: held elsewhere
        await second.release_role(SCHEDULER)
        assert await first.take_role(SCHEDULER) and await first.role_held(SCHEDULER)
    finally:
        await first.close()
        await second.close()


def test_each_role_of_each_schema_has_its_own_lock_key() -> None:
    # two schemas of one database are two clubratings, and an advisory lock is per database
    keys = {role_lock_key(role, schema) for role in (SCHEDULER, RECEIVER, "telegram-receiver:1")
            for schema in ("public", "club1", "club2")}
    assert len(keys) == 9


async def test_a_role_is_held_by_one_process_at_a_time_on_a_sqlite_file(tmp_path: Path) -> None:
    first = await SqliteRepository.open(tmp_path / "club.db")
    second = await SqliteRepository.open(tmp_path / "club.db")
    try:
        assert await first.take_role(RECEIVER)
        assert not await second.take_role(RECEIVER)
        assert await second.take_role(SCHEDULER)
        lock = tmp_path / "club.db-role-telegram-receiver-100"
        assert stat.S_IMODE(lock.stat().st_mode) == 0o600  # owner-only, as the database
        await first.release_role(RECEIVER)
        assert await second.take_role(RECEIVER)
        assert not await first.take_role(SCHEDULER)
        await second.close()  # a process that ends lets go of its roles
        assert await first.take_role(SCHEDULER)
    finally:
        await first.close()
        await second.close()
