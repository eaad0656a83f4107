"""Session-level advisory locks a process holds for as long as it lives (issue 41): its Discord
shards, its roles. They sit on a connection of their own, out of the pool while any lock is
held: a session-level lock lasts as long as its connection, so a process that dies, or whose
connection the server drops, lets go of them at once, and another process can take them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type hints

log = logging.getLogger(__name__)

#: seconds a check that the locks' connection still answers may take before the locks are
#: taken for lost (a server out of reach: its session may end any moment, freeing them)
CHECK_TIMEOUT = 5.0

#: what a connection that closed under the process raises
_LOST = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError)


class SessionLocks:
    """Advisory locks held on one connection of ``pool``, taken out of it by the first lock and
    given back once none is held (or once the connection was lost)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._connection: asyncpg.Connection | None = None
        self._keys: set[int] = set()
        # asyncpg runs one statement at a time on a connection: callers take turns
        self._turn = asyncio.Lock()

    def holds(self, key: int) -> bool:
        """Whether ``key`` was taken here and not let go of (see :meth:`alive` for whether
        the server still agrees)."""
        return key in self._keys

    async def take(self, keys: Sequence[int]) -> list[int]:
        """Take every one of ``keys`` not held here yet, all or none; the keys held by
        another session (empty: all are held here now)."""
        async with self._turn:
            # pg_try_advisory_lock counts a session's takes of one key: a key held here
            # already is not taken twice, so one unlock lets go of it
            wanted = [key for key in keys if key not in self._keys]
            if not wanted:
                return []
            connection = self._connection or await self._pool.acquire()
            try:
                got = await connection.fetch(
                    "SELECT key, pg_try_advisory_lock(key) AS held"
                    " FROM unnest($1::bigint[]) AS k (key)", wanted)
                refused = [int(row["key"]) for row in got if not row["held"]]
                if refused:  # all or none: what this call got goes back
                    await connection.execute(
                        "SELECT pg_advisory_unlock(key) FROM unnest($1::bigint[]) AS k (key)",
                        [int(row["key"]) for row in got if row["held"]])
                else:
                    self._keys.update(wanted)
            except _LOST:
                if connection is self._connection:
                    await self._lose()
                else:
                    await self._give_back(connection)
                raise
            except BaseException:
                if connection is not self._connection:
                    await self._pool.release(connection)
                raise
            self._connection = connection if self._keys else None
            if self._connection is None:
                await self._pool.release(connection)
            return refused

    async def release(self, keys: Sequence[int] | None = None) -> None:
        """Let go of ``keys`` (None: of every key held here); the connection goes back to the
        pool once none is held."""
        async with self._turn:
            connection = self._connection
            if connection is None:
                return
            going = list(self._keys if keys is None else self._keys.intersection(keys))
            self._keys.difference_update(going)
            try:
                if going:
                    await connection.execute(
                        "SELECT pg_advisory_unlock(key) FROM unnest($1::bigint[]) AS k (key)",
                        going)
            except _LOST as error:
                # the locks went with the connection: nothing is left to let go of
                log.info("the advisory locks' connection was already lost: %s",
                         type(error).__name__)
                await self._lose()
                return
            if not self._keys:
                self._connection = None
                await self._pool.release(connection)

    async def alive(self) -> bool:
        """Whether the locks held here are still held: their connection answers. A connection
        that does not is let go of (its locks, if the server still has them, go with it), so
        that the next :meth:`take` starts on a new one."""
        async with self._turn:
            connection = self._connection
            if connection is None:
                return False
            try:
                await connection.fetchval("SELECT 1", timeout=CHECK_TIMEOUT)
            except _LOST as error:
                log.warning("the connection holding %d advisory locks was lost (%s)",
                            len(self._keys), type(error).__name__)
                await self._lose()
                return False
            return True

    async def _lose(self) -> None:
        """The locks' connection is lost: so are they (the server ends the session, if it has
        not yet, once the connection is closed); the next :meth:`take` starts anew."""
        connection, self._connection = self._connection, None
        self._keys.clear()
        if connection is not None:
            await self._give_back(connection)

    async def _give_back(self, connection: asyncpg.Connection) -> None:
        """Close a connection that failed and hand it back to the pool: one the server closed
        went back by itself (asyncpg refuses any call on it then)."""
        with contextlib.suppress(asyncpg.InterfaceError):
            connection.terminate()
            await self._pool.release(connection)
