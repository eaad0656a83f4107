"""The PostgreSQL backend on asyncpg, for several bot processes sharing one database.

Every process keeps its own cache of a club's state and writes optimistically. Its first
insert numbers the events after the club's last id, and only if that last id is still the one
the caller read; two processes never both write on one stale view. Either the other's events
were committed before the insert began (its statement sees them: no row is inserted), or they
are not yet: then both take the same numbers, and the primary key (club, id) makes the later
insert wait for the earlier transaction and fail once that commits. Both cases are
:class:`Conflict`: the loser reads the winner's events and decides again, so a club's ids are
taken in commit order and a reader never misses an event by reading past its number. Answers to
requests sit under the primary key (club, request id): the same platform update handled by two
processes is answered once, and the second process's events roll back with its transaction.

Each writing transaction first takes the club's transaction-scoped advisory lock
(``pg_advisory_xact_lock``, :func:`~bot.storage.locks.club_lock_key`), held to its commit: two
processes writing one club write one after the other, in the order they took the lock, and the
later one's check finds the earlier one's events (no insert racing another for the same
numbers). A use case that lost a race holds the same lock for its whole retry
(:meth:`exclusive`), so the retry cannot lose again. The lock replaced ``SELECT ... FOR UPDATE``
on the club's row: an advisory lock lives in the server's memory alone (a row lock writes the
row, and dirties its page, at every write), and it holds back only the club's writers, not the
inserts elsewhere whose foreign key reads that row (posts, previews, snapshots).

Isolation is PostgreSQL's default, READ COMMITTED: each statement sees what was committed
before it began. Source: PostgreSQL 15 documentation, 13.2.1 "Read Committed Isolation Level",
13.3.5 "Advisory Locks" (a transaction-level lock is released at the transaction's end, and a
session may take one it holds again), 64.5 "Index Uniqueness Checks" (an insert waits for the
transaction holding a conflicting key).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from datetime import datetime
from importlib.resources.abc import Traversable
from urllib.parse import unquote, urlsplit

import asyncpg  # type: ignore[import-untyped]  # asyncpg ships no type hints

from .addresses import public_address
from .budget_slots import BUDGET_SLOTS_AT_MOST, budget_slot_key
from .discord_gateway import FORGET_TURNS_AFTER, command_sync_key, shard_lock_key
from .errors import DatabaseUnavailable
from .locks import club_lock_key, lock_key
from .migrations import MIGRATIONS, Migration, migrate
from .postgres_locks import SessionLocks
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
from .roles import role_lock_key
from .transfer import OUTBOX_COPIED, ClubCopy, TargetNotEmpty

#: the session-level advisory lock processes hold while migrating, so that several processes
#: starting at once migrate one after another (the key: b"clubrate", halved into a bigint)
MIGRATION_LOCK = int.from_bytes(b"clubrate", "big") >> 1

#: connections per process; a use case holds one for one transaction
POOL_SIZE = 10

#: a club's write lock (its key: ``%d``), taken first in each of its writing transactions and
#: held to its end
_LOCK_CLUB = "SELECT pg_advisory_xact_lock(%d)"

#: (repository, club, connection) while the running task holds a club's write lock
_HELD: ContextVar[tuple[object, int, asyncpg.Connection] | None] = ContextVar(
    "clubrating_postgres_held", default=None
)

# Both inserts take the club row's KEY SHARE lock in their own SELECT, before they write a key:
# copy_in() holds that row FOR UPDATE while it fills an empty club, and a writer waiting for it
# then holds no key it could wait for (the foreign-key check would take the same lock only
# after the row is in the index).
_INSERT_EVENTS = """
INSERT INTO events (club_id, id, kind, actor, at, reason, data, platform_sequence)
SELECT club.id, last.id + e.n, e.kind, e.actor, e.at, e.reason, e.data::json, $8::bigint
FROM (SELECT id FROM clubs WHERE id = $1 FOR KEY SHARE) AS club,
     (SELECT COALESCE(MAX(id), 0) AS id FROM events WHERE club_id = $1) AS last,
     unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
         WITH ORDINALITY AS e (kind, actor, at, reason, data, n)
WHERE $7::bigint IS NULL OR last.id = $7::bigint
RETURNING id
"""

_INSERT_ANSWER = """
INSERT INTO requests (club_id, request_id, response, answered_at)
SELECT id, $2, $3, $4 FROM clubs WHERE id = $1 FOR KEY SHARE
"""

#: a post's row in the outbox, its values those of :func:`outbox_values`
_ENQUEUE = (f"INSERT INTO post_outbox ({OUTBOX_ENQUEUED})"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING")

#: claim an update delivered to a webhook: new, or taken over from a receiver whose claim (its
#: receipt time) expired before it was handled, or whose process is gone (its lock, the
#: claimer's key, no longer in ``pg_locks``); its body is dropped once handled
_CLAIM_UPDATE = """
INSERT INTO received_updates AS kept (source, update_id, body, received_at, claimer)
VALUES ($1, $2, $3, $4, $6)
ON CONFLICT (source, update_id) DO UPDATE
SET received_at = excluded.received_at, claimer = excluded.claimer
WHERE kept.body IS NOT NULL AND (kept.received_at < $5 OR kept.claimer IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
    AND (l.classid::bigint << 32 | l.objid::bigint) = kept.claimer))
RETURNING 1
"""


async def _keep_session(connection: asyncpg.Connection) -> None:
    """Nothing to undo when a connection goes back to the pool: the backend changes no session
    state (the migration lock is released where it is taken), so the round trip of asyncpg's
    default reset (RESET ALL, UNLISTEN, ...) is saved on every use. An open transaction is
    still rolled back by the pool itself."""


def _unavailable(url: str, error: BaseException) -> DatabaseUnavailable:
    """The connection's failure in one line: the server's address without the password (nor
    the password anywhere in the reason, however short it is)."""
    reason = str(error) or type(error).__name__
    if isinstance(error, OSError) and error.strerror:
        reason = error.strerror
    password = urlsplit(url).password
    if password:
        for secret in {password, unquote(password)}:
            reason = reason.replace(secret, "[redacted]")
    if isinstance(error, asyncpg.InvalidPasswordError
                  | asyncpg.InvalidAuthorizationSpecificationError):
        hint = "are the user and password right?"
    elif isinstance(error, OSError | TimeoutError):
        hint = "is the server running, and are the host and port right?"
    else:
        hint = "is the address right?"
    return DatabaseUnavailable(f"cannot connect to the PostgreSQL database "
                               f"{public_address(url)} ({reason}): {hint}")


class PostgresSchema:
    """The migration runner's view of one connection."""

    dialect = "postgresql"

    def __init__(self, connection: asyncpg.Connection) -> None:
        self._connection = connection

    async def execute(self, sql: str) -> None:
        await self._connection.execute(sql)

    async def applied(self) -> set[int]:
        rows = await self._connection.fetch("SELECT version FROM schema_migrations")
        return {int(row["version"]) for row in rows}

    async def apply(self, migration: Migration, applied_at: str) -> None:
        async with self._connection.transaction():
            await self._connection.execute(migration.sql)
            await self._connection.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                migration.version, migration.name, applied_at,
            )


class PostgresTransaction:
    def __init__(self, connection: asyncpg.Connection, club_id: int, expected_last: int) -> None:
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
        try:
            rows = await self._connection.fetch(
                _INSERT_EVENTS,
                self._club_id,
                [e.kind for e in events],
                [e.actor for e in events],
                [e.at.isoformat() for e in events],
                [e.reason for e in events],
                [encode_data(e.data) for e in events],
                self._expected_last,
                sequence,
            )
        except asyncpg.UniqueViolationError:
            # Another transaction took these numbers and committed while this one waited.
            raise Conflict(f"club {self._club_id} changed since {self._expected_last}") from None
        if not rows:
            raise Conflict(f"club {self._club_id} changed since {self._expected_last}")
        self._expected_last = None
        ids = sorted(int(row["id"]) for row in rows)  # numbered in the events' order
        return [
            StoredEvent(id, e.kind, e.actor, e.at, e.data, e.reason)
            for id, e in zip(ids, events, strict=True)
        ]

    async def remember(self, request_id: str, response: str, at: datetime) -> None:
        try:
            status = await self._connection.execute(
                _INSERT_ANSWER, self._club_id, request_id, response, answered_at(at))
        except asyncpg.UniqueViolationError:
            raise DuplicateRequest(request_id) from None
        if status != "INSERT 0 1":
            raise LookupError(f"no club {self._club_id}")

    async def index(self, rows: DirectoryRows, before: DirectoryRows | None) -> None:
        club = self._club_id
        if before is None:
            before = {(str(r[0]), str(r[1])): str(r[2]) for r in await self._connection.fetch(
                "SELECT kind, key, value FROM directory WHERE club_id = $1", club)}
        gone, changed = directory_changes(rows, before)
        if gone:
            await self._connection.executemany(
                "DELETE FROM directory WHERE club_id = $1 AND kind = $2 AND key = $3",
                [(club, kind, key) for kind, key in gone])
        if changed:
            await self._connection.executemany(
                "INSERT INTO directory (club_id, kind, key, value) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (club_id, kind, key) DO UPDATE SET value = excluded.value",
                [(club, *row) for row in changed])


class PostgresRepository:
    """Open with :meth:`open`; each call borrows a pooled connection for its work."""

    def __init__(self, pool: asyncpg.Pool, schema: str = "public") -> None:
        """``schema``: the one the tables are in; the roles are per schema, since advisory
        locks are per database, and two schemas of one database are two clubratings."""
        self._pool = pool
        self._schema = schema
        #: this process's lifelong locks (issue 41): its Discord shards, and its slot in each
        #: token's rate budget (:mod:`bot.adapters.budget`), its claim on the Telegram updates
        #: it handles
        self._shards = SessionLocks(pool)
        self._shard_keys: list[int] = []
        #: the key of the budget slot held, by namespace
        self._budget_slots: dict[int, int] = {}
        #: the roles this process holds (:mod:`.roles`), on a connection of their own: one
        #: lost, or given up, leaves the shards alone
        self._roles = SessionLocks(pool)
        #: this process as the claimer of the Telegram updates it handles from a webhook: a key
        #: held with the lifelong locks, which ``pg_locks`` shows for as long as the process
        #: lives (positive, so that its halves read back from ``classid`` and ``objid`` as is)
        self._claimer = lock_key(f"clubrating update claimer {uuid.uuid4()}") & (2**63 - 1)

    @classmethod
    async def open(
        cls, url: str, migrations: Traversable = MIGRATIONS, pool_size: int = POOL_SIZE
    ) -> PostgresRepository:
        """Connect to ``url`` (query parameters other than asyncpg's own are server settings,
        e.g. ``?search_path=club1``) and bring the schema up to date. A server that cannot be
        reached or refuses raises :class:`DatabaseUnavailable`, naming it without its
        password."""
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size,
                                             reset=_keep_session)
        except (OSError, TimeoutError, ValueError, asyncpg.PostgresError,
                asyncpg.InterfaceError) as error:
            raise _unavailable(url, error) from error
        try:
            async with pool.acquire() as connection:
                await connection.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
                try:
                    await migrate(PostgresSchema(connection), migrations)
                finally:
                    await connection.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
                schema = await connection.fetchval("SELECT current_schema()")
        except BaseException:
            await pool.close()
            raise
        return cls(pool, str(schema))

    async def close(self) -> None:
        await self.release_shards()
        await self._shards.release()  # the budget slots, the update claimer
        self._budget_slots.clear()
        await self._roles.release()
        await self._pool.close()

    async def hold_shards(self, application_id: int, shard_ids: Sequence[int]) -> list[int]:
        await self.release_shards()
        keys = {shard_lock_key(application_id, shard): shard for shard in shard_ids}
        refused = await self._shards.take(list(keys))
        self._shard_keys = [] if refused else list(keys)
        return [keys[key] for key in refused]

    async def release_shards(self) -> None:
        # the shards alone: the budget slots on the same connection stay held
        keys, self._shard_keys = self._shard_keys, []
        await self._shards.release(keys)

    async def hold_budget_slot(self, namespace: int, slots: int) -> bool:
        held = self._budget_slots.get(namespace)
        if held is not None and self._shards.holds(held) and await self._shards.alive():
            return True
        for slot in range(slots):
            key = budget_slot_key(namespace, slot)
            if not await self._shards.take([key]):
                self._budget_slots[namespace] = key
                return True
        return False

    async def budget_processes(self, namespace: int) -> int:
        # a bigint key shows in pg_locks as classid (its high half) and objid (its low half)
        counted = await self._pool.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND objsubid = 1 AND classid = $1::bigint::oid AND objid < $2::bigint::oid"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            namespace, BUDGET_SLOTS_AT_MOST)
        held = self._budget_slots.get(namespace)
        mine = held is not None and self._shards.holds(held)
        return max(1, int(counted) + (0 if mine else 1))

    async def take_role(self, role: str) -> bool:
        return not await self._roles.take([role_lock_key(role, self._schema)])

    async def role_held(self, role: str) -> bool:
        key = role_lock_key(role, self._schema)
        return self._roles.holds(key) and await self._roles.alive()

    async def release_role(self, role: str) -> None:
        await self._roles.release([role_lock_key(role, self._schema)])

    async def identify_turn(self, application_id: int, bucket: int, spacing: float) -> float:
        # One statement books the turn (the row's lock makes bookers queue for the moment of
        # the update only) by the server's clock, the one clock every process shares.
        row = await self._pool.fetchrow(
            "INSERT INTO identify_turns (application_id, bucket, turn_at)"
            " VALUES ($1, $2, extract(epoch FROM clock_timestamp()))"
            " ON CONFLICT (application_id, bucket) DO UPDATE SET turn_at = CASE"
            " WHEN identify_turns.turn_at > excluded.turn_at + $4 THEN excluded.turn_at"
            " ELSE GREATEST(identify_turns.turn_at + $3, excluded.turn_at) END"
            " RETURNING turn_at, extract(epoch FROM clock_timestamp()) AS now",
            str(application_id), bucket, spacing, FORGET_TURNS_AFTER)
        return max(0.0, float(row["turn_at"]) - float(row["now"]))

    @asynccontextmanager
    async def command_sync(self, application_id: int) -> AsyncIterator[None]:
        async with self._pool.acquire() as connection:
            key = command_sync_key(application_id)
            await connection.execute("SELECT pg_advisory_lock($1)", key)
            try:
                yield
            finally:
                await connection.execute("SELECT pg_advisory_unlock($1)", key)

    async def command_tree(self, application_id: int, scope: str) -> str | None:
        found = await self._pool.fetchval(
            "SELECT hash FROM command_trees WHERE application_id = $1 AND scope = $2",
            str(application_id), scope)
        return None if found is None else str(found)

    async def keep_command_tree(self, application_id: int, scope: str, digest: str,
                                now: datetime) -> None:
        await self._pool.execute(
            "INSERT INTO command_trees (application_id, scope, hash, synced_at)"
            " VALUES ($1, $2, $3, $4) ON CONFLICT (application_id, scope) DO UPDATE SET"
            " hash = excluded.hash, synced_at = excluded.synced_at",
            str(application_id), scope, digest, now.isoformat())

    async def club_id(self, platform: str, chat_id: str, now: datetime) -> int:
        async with self._pool.acquire() as connection:
            created = await connection.fetchval(
                "INSERT INTO clubs (platform, chat_id, created_at) VALUES ($1, $2, $3)"
                " ON CONFLICT (platform, chat_id) DO NOTHING RETURNING id",
                platform, chat_id, now.isoformat(),
            )
            if created is not None:
                return int(created)
            # Another writer created it (ON CONFLICT waited for its commit): read it back.
            found = await connection.fetchval(
                "SELECT id FROM clubs WHERE platform = $1 AND chat_id = $2", platform, chat_id
            )
        assert found is not None
        return int(found)

    async def find_club(self, platform: str, chat_id: str) -> int | None:
        found = await self._pool.fetchval(
            "SELECT id FROM clubs WHERE platform = $1 AND chat_id = $2", platform, chat_id
        )
        return None if found is None else int(found)

    async def clubs(self) -> list[tuple[int, str, str]]:
        rows = await self._pool.fetch("SELECT id, platform, chat_id FROM clubs ORDER BY id")
        return [(int(r["id"]), str(r["platform"]), str(r["chat_id"])) for r in rows]

    async def club_chats(self, club_ids: Sequence[int]) -> list[tuple[int, str, str]]:
        rows = await self._pool.fetch(
            "SELECT id, platform, chat_id FROM clubs WHERE id = ANY($1::bigint[]) ORDER BY id",
            list(club_ids))
        return [(int(r["id"]), str(r["platform"]), str(r["chat_id"])) for r in rows]

    def _reader(self, club_id: int) -> asyncpg.Pool | asyncpg.Connection:
        """The connection holding the club's lock in this task, if any, else the pool."""
        held = _HELD.get()
        if held is not None and held[0] is self and held[1] == club_id:
            return held[2]
        return self._pool

    async def events(self, club_id: int, after: int = 0) -> list[StoredEvent]:
        rows = await self._reader(club_id).fetch(
            "SELECT id, kind, actor, at, reason, data FROM events"
            " WHERE club_id = $1 AND id > $2 ORDER BY id",
            club_id, after,
        )
        return await decoded_off_loop(rows)

    async def directory(
        self, kind: str, key: str | None = None, up_to: str | None = None
    ) -> list[tuple[int, str, str]]:
        rows = await self._pool.fetch(
            "SELECT club_id, key, value FROM directory WHERE kind = $1"
            " AND ($2::text IS NULL OR key = $2) AND ($3::text IS NULL OR key <= $3)"
            " ORDER BY club_id, key",
            kind, key, up_to,
        )
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    async def answer(self, club_id: int, request_id: str) -> str | None:
        found = await self._reader(club_id).fetchval(
            "SELECT response FROM requests WHERE club_id = $1 AND request_id = $2",
            club_id, request_id,
        )
        return None if found is None else str(found)

    async def keep_answer(self, club_id: int, request_id: str, response: str) -> None:
        # On the connection holding the club's lock when there is one: its transaction holds
        # the row that remember() inserted, which no other connection sees before it commits.
        await self._reader(club_id).execute(
            "UPDATE requests SET response = $3 WHERE club_id = $1 AND request_id = $2",
            club_id, request_id, response,
        )

    async def snapshot(self, club_id: int) -> Snapshot | None:
        row = await self._pool.fetchrow(
            "SELECT last_id, format, data FROM snapshots WHERE club_id = $1", club_id)
        return None if row is None else Snapshot(int(row[0]), str(row[1]), bytes(row[2]))

    async def keep_snapshot(self, club_id: int, snapshot: Snapshot, now: datetime) -> None:
        # One statement, committed on its own by the pool (never inside a command's
        # transaction); the table has no reference to clubs, so it takes no club's row lock.
        await self._pool.execute(
            "INSERT INTO snapshots (club_id, last_id, format, data, taken_at)"
            " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (club_id) DO UPDATE SET"
            " last_id = excluded.last_id, format = excluded.format, data = excluded.data,"
            " taken_at = excluded.taken_at WHERE excluded.last_id > snapshots.last_id"
            " OR excluded.format <> snapshots.format",
            club_id, snapshot.last_id, snapshot.format, snapshot.data, now.isoformat(),
        )

    async def forget_answers(self, before: datetime) -> int:
        status = await self._pool.execute(
            "DELETE FROM requests WHERE answered_at < $1", answered_at(before))
        return int(status.split()[-1])  # "DELETE n"

    async def receive_updates(
        self, source: str, updates: Sequence[tuple[int, str]], now: datetime
    ) -> set[int]:
        if not updates:
            return set()
        # One statement: of processes receiving the same update, the primary key lets one
        # insert it (the others wait for its commit, then insert nothing).
        rows = await self._pool.fetch(
            "INSERT INTO received_updates (source, update_id, body, received_at)"
            " SELECT $1, id, body, $4 FROM unnest($2::bigint[], $3::text[]) AS u (id, body)"
            " ON CONFLICT DO NOTHING RETURNING update_id",
            source, [u[0] for u in updates], [u[1] for u in updates], answered_at(now),
        )
        return {int(r["update_id"]) for r in rows}

    async def claim_update(self, source: str, update_id: int, body: str, now: datetime,
                           expired_before: datetime) -> UpdateClaim:
        # One statement: of receivers claiming at once, the primary key (or the row's lock,
        # for a claim taken over) lets one insert or update it; the others change nothing. A
        # claim is taken over once it expired or its claimer's lock is gone (it died).
        await self._shards.take([self._claimer])  # at the first claim; held from then on
        claimed = await self._pool.fetchval(_CLAIM_UPDATE, source, update_id, body,
                                            answered_at(now), answered_at(expired_before),
                                            self._claimer)
        if claimed is not None:
            return UpdateClaim.CLAIMED
        handled = await self._pool.fetchval(
            "SELECT body IS NULL FROM received_updates WHERE source = $1 AND update_id = $2",
            source, update_id)
        return UpdateClaim.HANDLED if handled else UpdateClaim.BUSY

    async def updates_handled(self, source: str, update_ids: Sequence[int]) -> None:
        await self._pool.execute(
            "UPDATE received_updates SET body = NULL WHERE source = $1"
            " AND update_id = ANY($2::bigint[])", source, list(update_ids))

    async def forget_confirmed(self, source: str, below: int) -> None:
        await self._pool.execute(
            "DELETE FROM received_updates WHERE source = $1 AND update_id < $2"
            " AND body IS NULL", source, below)

    async def unhandled_updates(self, source: str) -> list[str]:
        rows = await self._pool.fetch(
            "SELECT body FROM received_updates WHERE source = $1 AND body IS NOT NULL"
            " ORDER BY update_id", source)
        return [str(r["body"]) for r in rows]

    async def forget_updates(self, before: datetime) -> int:
        status = await self._pool.execute(
            "DELETE FROM received_updates WHERE received_at < $1", answered_at(before))
        return int(status.split()[-1])  # "DELETE n"

    async def claim_post(
        self, club_id: int, ladder: str, scheduled_for: datetime, now: datetime
    ) -> bool:
        # One statement, committed on its own: of processes claiming at once, the unique key
        # lets exactly one insert (the others wait for its commit, then insert nothing).
        claimed = await self._pool.fetchval(
            "INSERT INTO posts (club_id, ladder, scheduled_for, claimed_at)"
            " VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1",
            club_id, ladder, scheduled_for.isoformat(), now.isoformat(),
        )
        return claimed is not None

    async def enqueue_post(self, post: QueuedPost, now: datetime) -> bool:
        return (await self.enqueue_posts([post], now))[0]

    async def enqueue_posts(self, posts: Sequence[QueuedPost], now: datetime) -> list[bool]:
        # The claims and the rows in one transaction: of processes enqueuing at once, the
        # unique key of ``posts`` lets one insert each (the others wait for its commit, then
        # insert nothing), and a claim never stands without its row. The periods go in one
        # order whoever enqueues them, so that two such transactions never wait on each other
        # in a circle (a deadlock).
        periods = sorted({period_of(post) for post in posts})
        async with self._pool.acquire() as connection, connection.transaction():
            rows = await connection.fetch(
                "INSERT INTO posts (club_id, ladder, scheduled_for, claimed_at)"
                " SELECT p.club, p.ladder, p.at, $4"
                " FROM unnest($1::bigint[], $2::text[], $3::text[]) AS p (club, ladder, at)"
                " ON CONFLICT DO NOTHING RETURNING club_id, ladder, scheduled_for",
                [p[0] for p in periods], [p[1] for p in periods], [p[2] for p in periods],
                now.isoformat())
            new = {(int(r[0]), str(r[1]), str(r[2])) for r in rows}
            if new:
                await connection.executemany(_ENQUEUE, [
                    outbox_values(post, now) for post in posts if period_of(post) in new])
        return [period_of(post) in new for post in posts]

    async def claim_outbox(self, platforms: Sequence[str], claimer: str, now: datetime,
                           lease_until: datetime, limit: int,
                           discord_shards: DiscordShare | None = None) -> list[ClaimedPost]:
        # SKIP LOCKED: a row another process is taking right now is left to it, not waited
        # for; once it commits, its lease keeps the row out of every other claim. A row handed
        # to the platform keeps its state "sending", so its next claimer knows. A guild's shard
        # is (guild id >> 22) % shard count (Discord's "Sharding").
        at = outbox_time(now)
        count, shards = discord_shards or (1, [0])
        rows = await self._pool.fetch(
            "UPDATE post_outbox SET claimed_by = $2, lease_until = $3,"
            " state = CASE state WHEN 'sending' THEN 'sending' ELSE 'claimed' END"
            " WHERE id IN (SELECT id FROM post_outbox"
            " WHERE platform = ANY($1::text[]) AND ((state = 'due' AND due_at <= $4)"
            " OR (state IN ('claimed', 'sending') AND lease_until <= $4))"
            # (CASE, not OR: PostgreSQL may evaluate OR's operands in any order, and another
            # platform's chat id need not be a number)
            " AND CASE WHEN platform = 'discord'"
            " THEN (chat_id::bigint >> 22) % $6 = ANY($7::bigint[]) ELSE TRUE END"
            " ORDER BY due_at, id LIMIT $5 FOR UPDATE SKIP LOCKED)"
            f" RETURNING {OUTBOX_COLUMNS}",
            list(platforms), claimer, outbox_time(lease_until), at, limit, count, list(shards))
        return sorted((claimed_post(r) for r in rows), key=lambda c: (c.post.due_at, c.id))

    async def outbox_sending(self, row_id: int, now: datetime) -> None:
        await self._pool.execute(
            "UPDATE post_outbox SET state = 'sending', sending_at = $2,"
            " attempts = attempts + 1 WHERE id = $1", row_id, outbox_time(now))

    async def outbox_done(self, row_id: int, state: str, now: datetime) -> None:
        await self._pool.execute(
            "UPDATE post_outbox SET state = $2, done_at = $3, lease_until = NULL WHERE id = $1",
            row_id, state, outbox_time(now))

    async def forget_outbox(self, before: datetime) -> int:
        status = await self._pool.execute(
            "DELETE FROM post_outbox WHERE state IN ('sent', 'given_up') AND done_at < $1",
            outbox_time(before))
        return int(status.split()[-1])  # "DELETE n"

    async def outbox_later(self, row_id: int, due_at: datetime) -> None:
        await self._pool.execute(
            "UPDATE post_outbox SET state = 'due', due_at = $2, claimed_by = NULL,"
            " lease_until = NULL WHERE id = $1", row_id, outbox_time(due_at))

    async def keep_preview(
        self, club_id: int, user: str, game: int, correction: str, now: datetime
    ) -> None:
        await self._pool.execute(
            "INSERT INTO previews (club_id, user_id, game, correction, previewed_at)"
            " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (club_id, user_id) DO UPDATE SET"
            " game = excluded.game, correction = excluded.correction,"
            " previewed_at = excluded.previewed_at",
            club_id, user, game, correction, now.isoformat(),
        )

    async def take_preview(
        self, club_id: int, user: str, game: int | None = None
    ) -> tuple[int, str] | None:
        row = await self._pool.fetchrow(
            "DELETE FROM previews WHERE club_id = $1 AND user_id = $2"
            " AND ($3::bigint IS NULL OR game = $3) RETURNING game, correction",
            club_id, user, game,
        )
        return None if row is None else (int(row[0]), str(row[1]))

    @asynccontextmanager
    async def transaction(self, club_id: int, expected_last: int) -> AsyncIterator[
        PostgresTransaction
    ]:
        held = self._reader(club_id)
        if isinstance(held, asyncpg.Connection):
            # Inside exclusive(): a savepoint of the transaction that holds the lock.
            async with held.transaction():
                yield PostgresTransaction(held, club_id, expected_last)
            return
        async with self._pool.acquire() as connection:
            # BEGIN and the club's lock in one round trip (a simple query of two statements;
            # the key is an integer of ours): the lock costs no round trip of its own.
            await connection.execute(f"BEGIN; {_LOCK_CLUB % club_lock_key(club_id)}")
            try:
                yield PostgresTransaction(connection, club_id, expected_last)
            except BaseException:
                await connection.execute("ROLLBACK")
                raise
            await connection.execute("COMMIT")

    async def copy_in(self, clubs: Sequence[ClubCopy]) -> list[int]:
        """Write whole clubs, their events keeping their ids, in one transaction: all of them
        or, when any chat's club here already has events, answers or posts, none
        (:class:`TargetNotEmpty`). Returns the clubs' ids here."""
        ids = []
        async with self._pool.acquire() as connection, connection.transaction():
            for club in clubs:
                await connection.execute(
                    "INSERT INTO clubs (platform, chat_id, created_at) VALUES ($1, $2, $3)"
                    " ON CONFLICT (platform, chat_id) DO NOTHING",
                    club.platform, club.chat_id, club.created_at,
                )
                club_id = int(await connection.fetchval(
                    "SELECT id FROM clubs WHERE platform = $1 AND chat_id = $2 FOR UPDATE",
                    club.platform, club.chat_id,
                ))
                if await connection.fetchval(
                    "SELECT EXISTS (SELECT 1 FROM events WHERE club_id = $1)"
                    " OR EXISTS (SELECT 1 FROM requests WHERE club_id = $1)"
                    " OR EXISTS (SELECT 1 FROM posts WHERE club_id = $1)", club_id,
                ):
                    raise TargetNotEmpty(f"the club of {club.platform}:{club.chat_id} already "
                                         "has a log here; nothing was copied")
                # COPY: a long log goes over in one stream, not row by row.
                await connection.copy_records_to_table("events", columns=(
                    "club_id", "id", "kind", "actor", "at", "reason", "data",
                    "platform_sequence"), records=[
                    (club_id, e.id, e.kind, e.actor, e.at.isoformat(), e.reason,
                     encode_data(e.data), club.sequences.get(e.id))
                    for e in club.events])
                await connection.copy_records_to_table(
                    "requests", columns=("club_id", "request_id", "response", "answered_at"),
                    records=[(club_id, *answer) for answer in club.answers])
                await connection.copy_records_to_table(
                    "posts", columns=("club_id", "ladder", "scheduled_for", "claimed_at"),
                    records=[(club_id, *post) for post in club.posts])
                await connection.copy_records_to_table(
                    "post_outbox", columns=("club_id", *OUTBOX_COPIED),
                    records=[(club_id, *row) for row in club.outbox])
                ids.append(club_id)
        return ids

    @asynccontextmanager
    async def exclusive(self, club_id: int) -> AsyncIterator[None]:
        async with self._pool.acquire() as connection:
            holder = connection.transaction()
            await holder.start()
            try:
                await connection.execute(_LOCK_CLUB % club_lock_key(club_id))
                token = _HELD.set((self, club_id, connection))
                try:
                    yield
                finally:
                    _HELD.reset(token)
            finally:
                # Commit even when the use case ends in an exception (a refusal, a duplicate
                # request): each write inside settled itself in its own savepoint.
                await holder.commit()
