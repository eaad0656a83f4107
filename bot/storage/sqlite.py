"""The SQLite backend on aiosqlite: one file, WAL, one lock so that two tasks' transactions
never interleave on the shared connection."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

import aiosqlite

from .migrations import MIGRATIONS, migrate
from .repository import Conflict, NewEvent, StoredEvent


class SqliteTransaction:
    def __init__(self, connection: aiosqlite.Connection, club_id: int) -> None:
        self._connection = connection
        self._club_id = club_id

    async def append(self, events: Sequence[NewEvent]) -> list[StoredEvent]:
        stored = []
        for event in events:
            cursor = await self._connection.execute(
                "INSERT INTO events (club_id, kind, actor, at, reason, data)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    self._club_id,
                    event.kind,
                    event.actor,
                    event.at.isoformat(),
                    event.reason,
                    json.dumps(event.data, ensure_ascii=False, separators=(",", ":")),
                ),
            )
            event_id = cursor.lastrowid
            await cursor.close()
            assert event_id is not None
            stored.append(
                StoredEvent(event_id, event.kind, event.actor, event.at, event.data, event.reason)
            )
        return stored

    async def remember(self, request_id: str, response: str) -> None:
        await self._connection.execute(
            "INSERT INTO requests (club_id, request_id, response) VALUES (?, ?, ?)",
            (self._club_id, request_id, response),
        )


class SqliteRepository:
    """Open with :meth:`open`; every method holds the connection's lock while it works."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path, migrations: Path = MIGRATIONS) -> SqliteRepository:
        connection = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            for pragma in (
                "PRAGMA journal_mode=WAL",
                "PRAGMA synchronous=NORMAL",
                "PRAGMA foreign_keys=ON",
                "PRAGMA busy_timeout=5000",
            ):
                await connection.execute(pragma)
            await migrate(connection, migrations)
        except BaseException:
            await connection.close()
            raise
        return cls(connection)

    async def close(self) -> None:
        async with self._lock:
            await self._connection.close()

    async def club_id(self, platform: str, chat_id: str, now: datetime) -> int:
        async with self._lock:
            await self._connection.execute(
                "INSERT OR IGNORE INTO clubs (platform, chat_id, created_at) VALUES (?, ?, ?)",
                (platform, chat_id, now.isoformat()),
            )
            async with self._connection.execute(
                "SELECT id FROM clubs WHERE platform = ? AND chat_id = ?", (platform, chat_id)
            ) as cursor:
                row = await cursor.fetchone()
        assert row is not None
        return int(row[0])

    async def clubs(self) -> list[tuple[int, str, str]]:
        async with self._lock, self._connection.execute(
            "SELECT id, platform, chat_id FROM clubs ORDER BY id"
        ) as cursor:
            return [(int(r[0]), str(r[1]), str(r[2])) for r in await cursor.fetchall()]

    async def events(self, club_id: int, after: int = 0) -> list[StoredEvent]:
        async with self._lock, self._connection.execute(
            "SELECT id, kind, actor, at, reason, data FROM events"
            " WHERE club_id = ? AND id > ? ORDER BY id",
            (club_id, after),
        ) as cursor:
            rows = await cursor.fetchall()
        return [
            StoredEvent(
                int(r[0]), str(r[1]), str(r[2]), datetime.fromisoformat(r[3]), json.loads(r[5]),
                str(r[4]),
            )
            for r in rows
        ]

    async def answer(self, club_id: int, request_id: str) -> str | None:
        async with self._lock, self._connection.execute(
            "SELECT response FROM requests WHERE club_id = ? AND request_id = ?",
            (club_id, request_id),
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else str(row[0])

    @asynccontextmanager
    async def transaction(self, club_id: int, expected_last: int) -> AsyncIterator[
        SqliteTransaction
    ]:
        async with self._lock:
            await self._connection.execute("BEGIN IMMEDIATE")
            try:
                async with self._connection.execute(
                    "SELECT COALESCE(MAX(id), 0) FROM events WHERE club_id = ?", (club_id,)
                ) as cursor:
                    row = await cursor.fetchone()
                if row is None or int(row[0]) != expected_last:
                    raise Conflict(f"club {club_id} changed since event {expected_last}")
                yield SqliteTransaction(self._connection, club_id)
            except BaseException:
                await self._connection.execute("ROLLBACK")
                raise
            await self._connection.execute("COMMIT")
