"""The SQLite backend on aiosqlite: one file, WAL, one lock so that two tasks' transactions
never interleave on the shared connection."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from importlib.resources.abc import Traversable
from pathlib import Path

import aiosqlite

from .discord_gateway import FORGET_TURNS_AFTER
from .errors import DatabaseUnavailable
from .migrations import MIGRATIONS, Migration, load_migrations, migrate
from .private import private_companions, private_file
from .repository import (
    OUTBOX_COLUMNS,
    OUTBOX_ENQUEUED,
    ClaimedPost,
    Conflict,
    DirectoryRows,
    DiscordShare,
    DuplicateRequest,
    NewEvent,
    QueuedPost,
    Snapshot,
    StoredEvent,
    UpdateClaim,
    answered_at,
    claimed_post,
    decoded_off_loop,
    directory_changes,
    encode_data,
    outbox_time,
    outbox_values,
    period_of,
)
from .role_files import RoleFiles
from .sqlite_backup import BackupError, backup

log = logging.getLogger(__name__)

#: rows of a club's log read in one call of the database thread
ROWS_AT_ONCE = 5000

#: claim a post's period (club, ladder, scheduled time, claimed at): a row only if it is new
_CLAIM_PERIOD = ("INSERT INTO posts (club_id, ladder, scheduled_for, claimed_at)"
                 " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1")
#: a post's row in the outbox, its values those of :func:`outbox_values`
_ENQUEUE = (f"INSERT INTO post_outbox ({OUTBOX_ENQUEUED})"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")


class SqliteSchema:
    """The migration runner's view of a connection opened with ``isolation_level=None``."""

    dialect = "sqlite"

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection

    async def execute(self, sql: str) -> None:
        await self._connection.execute(sql)

    async def applied(self) -> set[int]:
        rows = await self._connection.execute_fetchall("SELECT version FROM schema_migrations")
        return {int(row[0]) for row in rows}

    async def apply(self, migration: Migration, applied_at: str) -> None:
        connection = self._connection
        try:
            await connection.executescript("BEGIN IMMEDIATE;\n" + migration.sql)
            await connection.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, applied_at),
            )
            await connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                await connection.execute("ROLLBACK")
            raise


class SqliteTransaction:
    def __init__(self, connection: aiosqlite.Connection, club_id: int, expected_last: int) -> None:
        self._connection = connection
        self._club_id = club_id
        self._expected_last: int | None = expected_last
        self._read_at = expected_last

    @property
    def read_at(self) -> int:
        return self._read_at

    async def append(self, events: Sequence[NewEvent],
                     sequence: int | None = None) -> list[StoredEvent]:
        if not events:
            return []
        club = self._club_id
        rows = [(club, e.kind, e.actor, e.at.isoformat(), e.reason, encode_data(e.data),
                 sequence) for e in events]
        first = await self._insert_first(rows[0])
        ids = [first]
        if len(rows) > 1:
            # The others in one statement (an import is 100,000 of them): this connection holds
            # the write lock since BEGIN IMMEDIATE, so the rows of this club after the first are
            # these, in order.
            await self._connection.executemany(
                "INSERT INTO events (club_id, kind, actor, at, reason, data, platform_sequence)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows[1:],
            )
            ids.extend(int(row[0]) for row in await self._connection.execute_fetchall(
                "SELECT id FROM events WHERE club_id = ? AND id > ? ORDER BY id", (club, first)
            ))
            if len(ids) != len(rows):
                raise RuntimeError(f"club {club}: {len(rows)} events appended, {len(ids)} read")
        return [
            StoredEvent(id, e.kind, e.actor, e.at, e.data, e.reason)
            for id, e in zip(ids, events, strict=True)
        ]

    async def _insert_first(self, values: tuple[object, ...]) -> int:
        """Insert the first event of an append; the transaction's first insert also checks
        that nobody appended since the caller's reading, in the same round trip to the database
        thread."""
        if self._expected_last is None:
            rows = list(await self._connection.execute_fetchall(
                "INSERT INTO events (club_id, kind, actor, at, reason, data, platform_sequence)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                values,
            ))
            return int(rows[0][0])
        rows = list(await self._connection.execute_fetchall(
            "INSERT INTO events (club_id, kind, actor, at, reason, data, platform_sequence)"
            " SELECT ?, ?, ?, ?, ?, ?, ? WHERE"
            " (SELECT COALESCE(MAX(id), 0) FROM events WHERE club_id = ?) = ?"
            " RETURNING id",
            (*values, self._club_id, self._expected_last),
        ))
        if not rows:
            raise Conflict(f"club {self._club_id} changed since {self._expected_last}")
        self._expected_last = None
        return int(rows[0][0])

    async def remember(self, request_id: str, response: str, at: datetime) -> None:
        try:
            await self._connection.execute_fetchall(
                "INSERT INTO requests (club_id, request_id, response, answered_at)"
                " VALUES (?, ?, ?, ?)",
                (self._club_id, request_id, response, answered_at(at)),
            )
        except sqlite3.IntegrityError:
            raise DuplicateRequest(request_id) from None

    async def index(self, rows: DirectoryRows, before: DirectoryRows | None) -> None:
        club = self._club_id
        if before is None:
            before = {(str(r[0]), str(r[1])): str(r[2]) for r in
                      await self._connection.execute_fetchall(
                          "SELECT kind, key, value FROM directory WHERE club_id = ?", (club,))}
        gone, changed = directory_changes(rows, before)
        if gone:
            await self._connection.executemany(
                "DELETE FROM directory WHERE club_id = ? AND kind = ? AND key = ?",
                [(club, kind, key) for kind, key in gone])
        if changed:
            await self._connection.executemany(
                "INSERT INTO directory (club_id, kind, key, value) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (club_id, kind, key) DO UPDATE SET value = excluded.value",
                [(club, *row) for row in changed])


def _private_database(path: Path) -> None:
    """The database file exists and is its owner's alone, and so are its companions."""
    if path.is_dir():
        raise DatabaseUnavailable(f"the SQLite database {path} is a folder, not a file")
    if not path.parent.is_dir():
        raise DatabaseUnavailable(f"cannot create the SQLite database {path}: no folder "
                                  f"{path.parent}")
    try:
        private_file(path)
        private_companions(path)
    except OSError as error:
        raise DatabaseUnavailable(f"cannot open the SQLite database {path}: "
                                  f"{error.strerror or error}") from error


def _unavailable(path: Path, error: sqlite3.Error) -> DatabaseUnavailable:
    """What to tell about a file SQLite refused to open or read."""
    reason = str(error)
    if isinstance(error, sqlite3.DatabaseError) and any(
            sign in reason for sign in ("not a database", "malformed", "corrupt")):
        return DatabaseUnavailable(
            f"the SQLite database {path} is damaged or not a database ({reason}): restore a "
            "backup (clubrating restore FILE) or move the file away")
    if "readonly" in reason or "unable to open" in reason:
        return DatabaseUnavailable(f"cannot open the SQLite database {path} ({reason}): check "
                                   "that it can be read and written by this user")
    return DatabaseUnavailable(f"cannot open the SQLite database {path} ({reason})")



async def _backup_before_migrating(connection: aiosqlite.Connection, path: Path, folder: Path,
                                   migrations: Traversable) -> None:
    """An upgrade is a restart: a database an older version wrote is migrated as the new one
    opens it. Before the first migration changes it, a copy goes into ``folder``
    (``clubrating-before-NNNN-STAMP.db``, NNNN the first migration to come), so that going back
    to the older version is that version started on that copy. A new database (no schema yet)
    has nothing to keep; a copy that cannot be made stops the start, before anything changed."""
    found = await connection.execute_fetchall(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    if not list(found):
        return
    applied = await SqliteSchema(connection).applied()
    pending = [m.version for m in load_migrations(migrations, "sqlite")
               if m.version not in applied]
    if not pending:
        return
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    name = f"clubrating-before-{pending[0]:04d}-{stamp}"
    target = folder / f"{name}.db"
    copies = 1
    while target.exists():  # never over an earlier backup, even one of the same second
        copies += 1
        target = folder / f"{name}-{copies}.db"
    try:
        await asyncio.to_thread(backup, path, target)
    except (BackupError, OSError, sqlite3.Error) as error:
        raise DatabaseUnavailable(
            f"{path} needs migrating, and the backup taken first could not be written to "
            f"{target} ({getattr(error, 'strerror', None) or error}): check "
            "CLUBRATING_BACKUP_DIR or the data folder; nothing was changed") from error
    log.info("before migrating %s to version %d: backup %s", path, pending[-1], target)


class SqliteRepository:
    """Open with :meth:`open`; every method holds the connection's lock while it works."""

    def __init__(self, connection: aiosqlite.Connection, path: Path | None = None) -> None:
        """``path``: the database's file (None: in memory), beside which the roles' lock files
        are (:mod:`.role_files`)."""
        self._connection = connection
        self._lock = asyncio.Lock()
        self._roles = RoleFiles(path)

    @classmethod
    async def open(
        cls, path: str | Path, migrations: Traversable = MIGRATIONS, backups: Path | None = None
    ) -> SqliteRepository:
        """Open the database file ``path``, creating it (readable by its owner alone, like its
        ``-wal`` and ``-shm`` files: :mod:`.private`) and migrating it; a database that a
        migration is about to change is first copied into ``backups``. A file that cannot be
        opened, or is no SQLite database, or cannot be backed up, raises
        :class:`DatabaseUnavailable`."""
        on_disk = str(path) not in ("", ":memory:")
        if on_disk:
            _private_database(Path(path))
        try:
            connection = await aiosqlite.connect(str(path), isolation_level=None)
        except sqlite3.Error as error:
            raise _unavailable(Path(path), error) from error
        try:
            for pragma in (
                "PRAGMA journal_mode=WAL",
                "PRAGMA synchronous=NORMAL",
                "PRAGMA foreign_keys=ON",
                "PRAGMA busy_timeout=5000",
            ):
                await connection.execute(pragma)
            if backups is not None and on_disk:
                await _backup_before_migrating(connection, Path(path), backups, migrations)
            await migrate(SqliteSchema(connection), migrations)
            if on_disk:  # WAL has begun: its files exist now
                private_companions(Path(path))
        except BaseException as error:
            await connection.close()
            if isinstance(error, sqlite3.DatabaseError):
                raise _unavailable(Path(path), error) from error
            raise
        return cls(connection, Path(path) if on_disk else None)

    async def close(self) -> None:
        self._roles.release_all()
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

    async def find_club(self, platform: str, chat_id: str) -> int | None:
        async with self._lock:
            rows = list(await self._connection.execute_fetchall(
                "SELECT id FROM clubs WHERE platform = ? AND chat_id = ?", (platform, chat_id)
            ))
        return int(rows[0][0]) if rows else None

    async def clubs(self) -> list[tuple[int, str, str]]:
        async with self._lock, self._connection.execute(
            "SELECT id, platform, chat_id FROM clubs ORDER BY id"
        ) as cursor:
            return [(int(r[0]), str(r[1]), str(r[2])) for r in await cursor.fetchall()]

    async def club_chats(self, club_ids: Sequence[int]) -> list[tuple[int, str, str]]:
        async with self._lock:
            rows = await self._connection.execute_fetchall(
                "SELECT id, platform, chat_id FROM clubs WHERE id IN"
                " (SELECT value FROM json_each(?)) ORDER BY id", (json.dumps(list(club_ids)),))
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    async def events(self, club_id: int, after: int = 0) -> list[StoredEvent]:
        # One round trip to the database thread for a few events (every use case's path); a
        # long log in slices: making a slice's rows holds the GIL, and between slices the event
        # loop gets its turn (100,000 rows at once held it 0.15 s).
        async with self._lock, self._connection.execute(
            "SELECT id, kind, actor, at, reason, data FROM events"
            " WHERE club_id = ? AND id > ? ORDER BY id",
            (club_id, after),
        ) as cursor:
            rows = list(await cursor.fetchmany(ROWS_AT_ONCE))
            while len(rows) % ROWS_AT_ONCE == 0 and rows:
                more = await cursor.fetchmany(ROWS_AT_ONCE)
                if not more:
                    break
                rows.extend(more)
        return await decoded_off_loop(rows)

    async def directory(
        self, kind: str, key: str | None = None, up_to: str | None = None
    ) -> list[tuple[int, str, str]]:
        async with self._lock:
            rows = await self._connection.execute_fetchall(
                "SELECT club_id, key, value FROM directory WHERE kind = ?"
                " AND (? IS NULL OR key = ?) AND (? IS NULL OR key <= ?)"
                " ORDER BY club_id, key",
                (kind, key, key, up_to, up_to),
            )
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    async def answer(self, club_id: int, request_id: str) -> str | None:
        async with self._lock:
            rows = list(await self._connection.execute_fetchall(
                "SELECT response FROM requests WHERE club_id = ? AND request_id = ?",
                (club_id, request_id),
            ))
        return str(rows[0][0]) if rows else None

    async def keep_answer(self, club_id: int, request_id: str, response: str) -> None:
        async with self._lock:
            await self._connection.execute_fetchall(
                "UPDATE requests SET response = ? WHERE club_id = ? AND request_id = ?",
                (response, club_id, request_id),
            )

    async def snapshot(self, club_id: int) -> Snapshot | None:
        async with self._lock:
            rows = list(await self._connection.execute_fetchall(
                "SELECT last_id, format, data FROM snapshots WHERE club_id = ?", (club_id,)))
        return Snapshot(int(rows[0][0]), str(rows[0][1]), bytes(rows[0][2])) if rows else None

    async def keep_snapshot(self, club_id: int, snapshot: Snapshot, now: datetime) -> None:
        # One statement, committed on its own (never inside a command's transaction).
        async with self._lock:
            await self._connection.execute_fetchall(
                "INSERT INTO snapshots (club_id, last_id, format, data, taken_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (club_id) DO UPDATE SET"
                " last_id = excluded.last_id, format = excluded.format, data = excluded.data,"
                " taken_at = excluded.taken_at WHERE excluded.last_id > snapshots.last_id"
                " OR excluded.format <> snapshots.format",
                (club_id, snapshot.last_id, snapshot.format, snapshot.data, now.isoformat()),
            )

    async def forget_answers(self, before: datetime) -> int:
        async with self._lock:
            rows = await self._connection.execute_fetchall(
                "DELETE FROM requests WHERE answered_at < ? RETURNING 1", (answered_at(before),))
        return len(list(rows))

    async def receive_updates(
        self, source: str, updates: Sequence[tuple[int, str]], now: datetime
    ) -> set[int]:
        if not updates:
            return set()
        # One statement: the rows it inserted are the new updates.
        rows = ", ".join("(?, ?, ?, ?)" for _ in updates)
        values = [v for update_id, body in updates
                  for v in (source, update_id, body, answered_at(now))]
        async with self._lock:
            inserted = await self._connection.execute_fetchall(
                "INSERT INTO received_updates (source, update_id, body, received_at)"
                f" VALUES {rows} ON CONFLICT DO NOTHING RETURNING update_id", values)
        return {int(r[0]) for r in inserted}

    async def claim_update(self, source: str, update_id: int, body: str, now: datetime,
                           expired_before: datetime) -> UpdateClaim:
        async with self._lock:
            claimed = await self._connection.execute_fetchall(
                "INSERT INTO received_updates AS kept (source, update_id, body, received_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (source, update_id) DO UPDATE"
                " SET received_at = excluded.received_at"
                " WHERE kept.body IS NOT NULL AND kept.received_at < ? RETURNING 1",
                (source, update_id, body, answered_at(now), answered_at(expired_before)))
            if list(claimed):
                return UpdateClaim.CLAIMED
            handled = await self._connection.execute_fetchall(
                "SELECT body IS NULL FROM received_updates WHERE source = ? AND update_id = ?",
                (source, update_id))
        return UpdateClaim.HANDLED if any(row[0] for row in handled) else UpdateClaim.BUSY

    async def updates_handled(self, source: str, update_ids: Sequence[int]) -> None:
        if not update_ids:
            return
        marks = ", ".join("?" for _ in update_ids)
        async with self._lock:
            await self._connection.execute_fetchall(
                "UPDATE received_updates SET body = NULL WHERE source = ?"
                f" AND update_id IN ({marks})", (source, *update_ids))

    async def forget_confirmed(self, source: str, below: int) -> None:
        async with self._lock:
            await self._connection.execute_fetchall(
                "DELETE FROM received_updates WHERE source = ? AND update_id < ?"
                " AND body IS NULL", (source, below))

    async def unhandled_updates(self, source: str) -> list[str]:
        async with self._lock:
            rows = await self._connection.execute_fetchall(
                "SELECT body FROM received_updates WHERE source = ? AND body IS NOT NULL"
                " ORDER BY update_id", (source,))
        return [str(r[0]) for r in rows]

    async def forget_updates(self, before: datetime) -> int:
        async with self._lock:
            rows = await self._connection.execute_fetchall(
                "DELETE FROM received_updates WHERE received_at < ? RETURNING 1",
                (answered_at(before),))
        return len(list(rows))

    async def claim_post(
        self, club_id: int, ladder: str, scheduled_for: datetime, now: datetime
    ) -> bool:
        # One statement, committed on its own: the UNIQUE key decides between claimants.
        async with self._lock:
            rows = list(await self._connection.execute_fetchall(
                _CLAIM_PERIOD, (club_id, ladder, scheduled_for.isoformat(), now.isoformat())))
        return bool(rows)

    async def enqueue_post(self, post: QueuedPost, now: datetime) -> bool:
        return (await self.enqueue_posts([post], now))[0]

    async def enqueue_posts(self, posts: Sequence[QueuedPost], now: datetime) -> list[bool]:
        new = []
        async with self._lock:
            await self._connection.execute("BEGIN IMMEDIATE")
            try:
                for post in posts:
                    claimed = bool(list(await self._connection.execute_fetchall(
                        _CLAIM_PERIOD, (*period_of(post), now.isoformat()))))
                    if claimed:
                        await self._connection.execute(_ENQUEUE, outbox_values(post, now))
                    new.append(claimed)
            except BaseException:
                await self._connection.execute("ROLLBACK")
                raise
            await self._connection.execute("COMMIT")
        return new

    async def claim_outbox(self, platforms: Sequence[str], claimer: str, now: datetime,
                           lease_until: datetime, limit: int,
                           discord_shards: DiscordShare | None = None) -> list[ClaimedPost]:
        if not platforms:
            return []
        marks = ", ".join("?" for _ in platforms)
        at = outbox_time(now)
        # A guild's shard is (guild id >> 22) % shard count (Discord's "Sharding").
        count, shards = discord_shards or (1, [0])
        served = ", ".join("?" for _ in shards)
        # One statement on the one connection: SQLite has one writer, no row is taken twice.
        # A row handed to the platform keeps its state "sending", so its next claimer knows.
        async with self._lock:
            rows = await self._connection.execute_fetchall(
                "UPDATE post_outbox SET claimed_by = ?, lease_until = ?,"
                " state = CASE state WHEN 'sending' THEN 'sending' ELSE 'claimed' END"
                " WHERE id IN (SELECT id FROM post_outbox"
                f" WHERE platform IN ({marks}) AND ((state = 'due' AND due_at <= ?)"
                " OR (state IN ('claimed', 'sending') AND lease_until <= ?))"
                " AND (platform <> 'discord'"
                f" OR (CAST(chat_id AS INTEGER) >> 22) % ? IN ({served}))"
                f" ORDER BY due_at, id LIMIT ?) RETURNING {OUTBOX_COLUMNS}",
                (claimer, outbox_time(lease_until), *platforms, at, at, count, *shards, limit))
        return sorted((claimed_post(r) for r in rows), key=lambda c: (c.post.due_at, c.id))

    async def outbox_sending(self, row_id: int, now: datetime) -> None:
        async with self._lock:
            await self._connection.execute_fetchall(
                "UPDATE post_outbox SET state = 'sending', sending_at = ?,"
                " attempts = attempts + 1 WHERE id = ?", (outbox_time(now), row_id))

    async def outbox_done(self, row_id: int, state: str, now: datetime) -> None:
        async with self._lock:
            await self._connection.execute_fetchall(
                "UPDATE post_outbox SET state = ?, done_at = ?, lease_until = NULL"
                " WHERE id = ?", (state, outbox_time(now), row_id))

    async def forget_outbox(self, before: datetime) -> int:
        async with self._lock:
            rows = await self._connection.execute_fetchall(
                "DELETE FROM post_outbox WHERE state IN ('sent', 'given_up') AND done_at < ?"
                " RETURNING 1", (outbox_time(before),))
        return len(list(rows))

    async def outbox_later(self, row_id: int, due_at: datetime) -> None:
        async with self._lock:
            await self._connection.execute_fetchall(
                "UPDATE post_outbox SET state = 'due', due_at = ?, claimed_by = NULL,"
                " lease_until = NULL WHERE id = ?", (outbox_time(due_at), row_id))

    async def keep_preview(
        self, club_id: int, user: str, game: int, correction: str, now: datetime
    ) -> None:
        async with self._lock:
            await self._connection.execute_fetchall(
                "INSERT INTO previews (club_id, user_id, game, correction, previewed_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (club_id, user_id) DO UPDATE SET"
                " game = excluded.game, correction = excluded.correction,"
                " previewed_at = excluded.previewed_at",
                (club_id, user, game, correction, now.isoformat()),
            )

    async def take_preview(
        self, club_id: int, user: str, game: int | None = None
    ) -> tuple[int, str] | None:
        async with self._lock:
            rows = list(await self._connection.execute_fetchall(
                "DELETE FROM previews WHERE club_id = ? AND user_id = ?"
                " AND (? IS NULL OR game = ?) RETURNING game, correction",
                (club_id, user, game, game),
            ))
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    async def take_role(self, role: str) -> bool:
        return self._roles.take(role)

    async def role_held(self, role: str) -> bool:
        return self._roles.holds(role)

    async def release_role(self, role: str) -> None:
        self._roles.release(role)

    async def hold_shards(self, application_id: int, shard_ids: Sequence[int]) -> list[int]:
        # A SQLite database is served by one process (bot.settings refuses a share of the
        # shards on it): every shard is this process's.
        return []

    async def release_shards(self) -> None:
        return None

    async def hold_budget_slot(self, namespace: int, slots: int) -> bool:
        # One process on the file (as for the shards): the whole budget is its.
        return True

    async def budget_processes(self, namespace: int) -> int:
        return 1

    async def identify_turn(self, application_id: int, bucket: int, spacing: float) -> float:
        # This machine's clock: the one process on the file books the turns (they outlive a
        # restart, which must wait its turn too).
        now = time.time()
        async with self._lock:
            rows = list(await self._connection.execute_fetchall(
                "INSERT INTO identify_turns (application_id, bucket, turn_at) VALUES (?, ?, ?)"
                " ON CONFLICT (application_id, bucket) DO UPDATE SET turn_at = CASE"
                " WHEN identify_turns.turn_at > excluded.turn_at + ? THEN excluded.turn_at"
                " ELSE MAX(identify_turns.turn_at + ?, excluded.turn_at) END RETURNING turn_at",
                (str(application_id), bucket, now, FORGET_TURNS_AFTER, spacing),
            ))
        return max(0.0, float(rows[0][0]) - now)

    @asynccontextmanager
    async def command_sync(self, application_id: int) -> AsyncIterator[None]:
        # One process: its one client syncs once per start.
        yield

    async def command_tree(self, application_id: int, scope: str) -> str | None:
        async with self._lock:
            rows = list(await self._connection.execute_fetchall(
                "SELECT hash FROM command_trees WHERE application_id = ? AND scope = ?",
                (str(application_id), scope),
            ))
        return str(rows[0][0]) if rows else None

    async def keep_command_tree(self, application_id: int, scope: str, digest: str,
                                now: datetime) -> None:
        async with self._lock:
            await self._connection.execute_fetchall(
                "INSERT INTO command_trees (application_id, scope, hash, synced_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (application_id, scope) DO UPDATE SET"
                " hash = excluded.hash, synced_at = excluded.synced_at",
                (str(application_id), scope, digest, now.isoformat()),
            )

    @asynccontextmanager
    async def exclusive(self, club_id: int) -> AsyncIterator[None]:
        # One connection whose transactions never interleave: already one writer at a time.
        yield

    @asynccontextmanager
    async def transaction(self, club_id: int, expected_last: int) -> AsyncIterator[
        SqliteTransaction
    ]:
        async with self._lock:
            await self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield SqliteTransaction(self._connection, club_id, expected_last)
            except BaseException:
                await self._connection.execute("ROLLBACK")
                raise
            await self._connection.execute("COMMIT")
