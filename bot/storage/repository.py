"""The repository contract every storage backend keeps (SQLite today, PostgreSQL next).

The event log is append-only: a backend offers no way to change or remove an event. Every use
case that writes runs in one transaction (:meth:`Repository.transaction`), which also records
the answer to the request that caused it, so a replayed request finds its first answer; the
answers are kept only as long as a platform may redeliver (:meth:`Repository.forget_answers`).
A platform's updates are kept from their receipt until they were handled
(:meth:`Repository.receive_updates`), so that one confirmed to the platform is never lost and
one delivered again is handled once.
"""

from __future__ import annotations

import asyncio
import enum
import json
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from .budget_slots import BudgetSlots
from .discord_gateway import DiscordGateway
from .roles import RoleLocks

#: JSON-compatible values stored in an event's data
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]

#: how every backend writes an event's data: ``json.dumps(data, ensure_ascii=False,
#: separators=(",", ":"))``, with one encoder made once (``dumps`` makes one per call)
encode_data = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def answered_at(at: datetime) -> str:
    """How every backend writes an answer's time (naive UTC, like the clock's): ISO 8601 to
    the second, so that the text's order is the times' order and old answers are found with
    ``<`` (migration 0006 writes its rows' times so too)."""
    return at.replace(tzinfo=None).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class NewEvent:
    kind: str
    actor: str
    at: datetime
    data: dict[str, JsonValue]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    id: int
    kind: str
    actor: str
    at: datetime
    data: dict[str, JsonValue]
    reason: str = ""


#: a club's directory rows (table ``directory``, :mod:`bot.service.directory`): (kind, key) to
#: value, every one derived from the club's folded log
DirectoryRows = Mapping[tuple[str, str], str]


def directory_changes(
    rows: DirectoryRows, before: DirectoryRows
) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """What turns a club's stored rows ``before`` into ``rows``: the (kind, key) to remove, and
    the (kind, key, value) to write (new, or with another value). Every backend writes only
    these, so a write that changes no lookup writes no row."""
    gone = [place for place in before if place not in rows]
    changed = [(kind, key, value) for (kind, key), value in rows.items()
               if before.get((kind, key)) != value]
    return gone, changed


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A club's folded state as of its event ``last_id``, serialised in ``format`` (derived
    data: the service ignores one of a format it does not write)."""

    last_id: int
    format: str
    data: bytes


#: logs from this long on are decoded (JSON, times) in a worker thread, not on the event loop:
#: 100,000 events take half a second (issue 41)
DECODE_OFF_LOOP = 2000


def decoded(rows: Sequence[Sequence[Any]]) -> list[StoredEvent]:
    """Rows of ``(id, kind, actor, at, reason, data)`` as every backend reads them, decoded."""
    return [
        StoredEvent(int(r[0]), str(r[1]), str(r[2]), datetime.fromisoformat(r[3]),
                    json.loads(r[5]), str(r[4]))
        for r in rows
    ]


async def decoded_off_loop(rows: Sequence[Sequence[Any]]) -> list[StoredEvent]:
    """:func:`decoded`, in a worker thread for a long log: the event loop serves the other
    clubs meanwhile."""
    if len(rows) >= DECODE_OFF_LOOP:
        return await asyncio.to_thread(decoded, rows)
    return decoded(rows)


def outbox_time(at: datetime) -> str:
    """How every backend writes the outbox's times (table ``post_outbox``): naive UTC to the
    microsecond, so that the text's order is the times' order (a due time spread over the post
    window falls between seconds)."""
    return at.replace(tzinfo=None).isoformat(timespec="microseconds")


#: the states of an outbox row: waiting for its due time; taken by a sender (with a lease);
#: handed to the platform (maybe made, if the sender died); made; failed for good
OUTBOX_STATES = ("due", "claimed", "sending", "sent", "given_up")


@dataclass(frozen=True, slots=True)
class QueuedPost:
    """A ladder's scheduled post as the scheduler enqueues it: everything a sender in any
    process needs to make it, without the ladder's plan."""

    club_id: int
    #: the ladder key the period is claimed under (``posts``; :attr:`Plan.claimed_as`)
    claimed_as: str
    scheduled_for: datetime
    platform: str
    #: the club's chat (its language, its moderators) and the chat the post goes into
    chat_id: str
    target: str
    ladder: str
    puzzles: bool
    #: what the digest counts from (the previous scheduled time, or when the plan began)
    since: datetime | None
    due_at: datetime


@dataclass(frozen=True, slots=True)
class ClaimedPost:
    """An outbox row a sender claimed: its id (the post's identity on the platform, e.g. the
    Discord nonce), the post, the sends made so far, and whether a sender had already handed it
    to the platform (state ``sending``) before its lease ran out: maybe it was made."""

    id: int
    post: QueuedPost
    attempts: int
    maybe_sent: bool


#: a process's share of a Discord bot's shards: (shard count, the ids it serves)
DiscordShare = tuple[int, Sequence[int]]


#: the columns every backend reads a claimed outbox row with (:func:`claimed_post`)
OUTBOX_COLUMNS = ("id, club_id, claimed_as, scheduled_for, platform, chat_id, target, ladder,"
                  " puzzles, since, due_at, attempts, state")


#: the columns a post is enqueued with, in the order of :func:`outbox_values`
OUTBOX_ENQUEUED = ("club_id, claimed_as, scheduled_for, platform, chat_id, target, ladder,"
                   " puzzles, since, due_at, enqueued_at")


def outbox_values(post: QueuedPost, now: datetime) -> tuple[object, ...]:
    """A post's values for the columns of :data:`OUTBOX_ENQUEUED`, as every backend writes
    them."""
    return (post.club_id, post.claimed_as, post.scheduled_for.isoformat(), post.platform,
            post.chat_id, post.target, post.ladder, post.puzzles,
            None if post.since is None else post.since.isoformat(), outbox_time(post.due_at),
            outbox_time(now))


def period_of(post: QueuedPost) -> tuple[int, str, str]:
    """The key of the post's period as table ``posts`` keeps it."""
    return post.club_id, post.claimed_as, post.scheduled_for.isoformat()


def claimed_post(row: Sequence[Any]) -> ClaimedPost:
    """A row of :data:`OUTBOX_COLUMNS`, as a claim returns it."""
    post = QueuedPost(int(row[1]), str(row[2]), datetime.fromisoformat(row[3]), str(row[4]),
                      str(row[5]), str(row[6]), str(row[7]), bool(row[8]),
                      None if row[9] is None else datetime.fromisoformat(row[9]),
                      datetime.fromisoformat(row[10]))
    return ClaimedPost(int(row[0]), post, int(row[11]), str(row[12]) == "sending")


class Conflict(Exception):
    """Another writer appended to the club's log first; reload and try again."""


class DuplicateRequest(Exception):
    """The request was answered before: its first answer stands and nothing more is written."""


class UpdateClaim(enum.Enum):
    """What :meth:`Repository.claim_update` found for an update delivered to a webhook."""

    #: new, or claimed by a receiver that died (it ended, or its claim expired): this
    #: receiver handles it
    CLAIMED = "claimed"
    #: handled already (by this process or another): answer it at once, do nothing
    HANDLED = "handled"
    #: claimed by another receiver lately, and not handled yet: leave it to that one
    BUSY = "busy"


class Transaction(Protocol):
    async def append(self, events: Sequence[NewEvent],
                     sequence: int | None = None) -> list[StoredEvent]:
        """Append events to the club's log; they get increasing ids. ``sequence``: the
        platform's own number of the update that caused them (Telegram's update_id, a Discord
        snowflake), kept beside each (never read back into a club's state)."""
        ...

    async def remember(self, request_id: str, response: str, at: datetime) -> None:
        """Record the answer to a request, given at ``at``, committed with the events; raises
        :class:`DuplicateRequest` when the request already has an answer. The session records
        a placeholder here and the real answer after the commit (:meth:`Repository.keep_answer`)."""
        ...

    @property
    def read_at(self) -> int:
        """The club's last event id as the writer read it (the transaction's
        ``expected_last``): what the club's stored directory rows were derived from, unless
        another writer came in between."""
        ...

    async def index(self, rows: DirectoryRows, before: DirectoryRows | None) -> None:
        """Make the club's directory rows ``rows``, committed with the events, writing only
        what differs from ``before`` (the rows stored now, as the caller knows them; None:
        read them first)."""
        ...


class Repository(DiscordGateway, RoleLocks, BudgetSlots, Protocol):
    """A club's log and what goes with it; also what the processes of one Discord bot share
    (:class:`~bot.storage.discord_gateway.DiscordGateway`), the roles one process at a time
    holds (:class:`~bot.storage.roles.RoleLocks`), and how the processes of one token count
    themselves (:class:`~bot.storage.budget_slots.BudgetSlots`)."""

    async def club_id(self, platform: str, chat_id: str, now: datetime) -> int:
        """The club of a chat, created on first contact."""
        ...

    async def find_club(self, platform: str, chat_id: str) -> int | None:
        """The club of a chat, None when the chat has none: a lookup that never creates one
        (for readers such as ``clubrating export``, which must leave the database as it was)."""
        ...

    async def clubs(self) -> list[tuple[int, str, str]]:
        """Every club as (id, platform, chat id)."""
        ...

    async def club_chats(self, club_ids: Sequence[int]) -> list[tuple[int, str, str]]:
        """The chats of these clubs as (id, platform, chat id), by id."""
        ...

    async def events(self, club_id: int, after: int = 0) -> list[StoredEvent]:
        """The club's events with ids above ``after``, oldest first."""
        ...

    async def directory(
        self, kind: str, key: str | None = None, up_to: str | None = None
    ) -> list[tuple[int, str, str]]:
        """(club id, key, value) of every club's directory rows of ``kind`` (index ``(kind,
        key)``): all of them, those of ``key``, or those whose key is at most ``up_to`` (keys
        that are times sort as text); ordered by club id, then key."""
        ...

    async def answer(self, club_id: int, request_id: str) -> str | None:
        """The recorded answer to a request, if it was handled."""
        ...

    async def keep_answer(self, club_id: int, request_id: str, response: str) -> None:
        """Replace the answer :meth:`Transaction.remember` recorded for a request (committed:
        the answer is worked out after the events' transaction, which holds nothing meanwhile)."""
        ...

    async def snapshot(self, club_id: int) -> Snapshot | None:
        """The club's newest snapshot of its folded state (table ``snapshots``), if any."""
        ...

    async def keep_snapshot(self, club_id: int, snapshot: Snapshot, now: datetime) -> None:
        """Keep ``snapshot`` as the club's, replacing an older one (never a newer one: two
        processes may keep one at once), in a short transaction of its own."""
        ...

    async def forget_answers(self, before: datetime) -> int:
        """Remove every club's answers recorded before ``before`` (no platform redelivers an
        update that old); how many were removed."""
        ...

    async def receive_updates(
        self, source: str, updates: Sequence[tuple[int, str]], now: datetime
    ) -> set[int]:
        """Keep the ``updates`` (id, body) that ``source`` (a bot: ``telegram:<its id>``)
        received, until :meth:`updates_handled`; the ids among them that were new. An update
        kept before (being handled, or handled within :meth:`forget_updates`'s window) is not
        new: of two receivers, one gets it."""
        ...

    async def claim_update(self, source: str, update_id: int, body: str, now: datetime,
                           expired_before: datetime) -> UpdateClaim:
        """Claim an update ``source`` received on its webhook, kept like
        :meth:`receive_updates`' until :meth:`updates_handled`: a new one, or one not handled
        whose claim was made before ``expired_before`` or whose receiver is known to have
        ended (PostgreSQL: the claimer's lock is gone), is this caller's (its claim time
        becomes ``now``); of receivers claiming at once, one gets it. Otherwise whether it
        was handled or is another receiver's."""
        ...

    async def updates_handled(self, source: str, update_ids: Sequence[int]) -> None:
        """Record that these updates of ``source`` were handled: their bodies are dropped,
        their ids kept (a delivery again is not new)."""
        ...

    async def forget_confirmed(self, source: str, below: int) -> None:
        """Remove ``source``'s handled updates with ids below ``below``: long polling asked for
        the updates from ``below`` on, which confirms every one before it to the platform,
        and a confirmed update is never delivered again."""
        ...

    async def unhandled_updates(self, source: str) -> list[str]:
        """The bodies of ``source``'s kept updates not yet handled, oldest id first (what a
        bot stopped mid-way still has to handle)."""
        ...

    async def forget_updates(self, before: datetime) -> int:
        """Remove the updates received before ``before`` (no platform delivers one that old
        again), handled or not; how many were removed."""
        ...

    def transaction(
        self, club_id: int, expected_last: int
    ) -> AbstractAsyncContextManager[Transaction]:
        """One writing transaction; its first append raises :class:`Conflict` when the club's
        last event id is not ``expected_last`` (someone else wrote in between). Rolls back on
        any error."""
        ...

    def exclusive(self, club_id: int) -> AbstractAsyncContextManager[None]:
        """Hold the club's write lock from reading to writing: inside it, :meth:`events` sees
        every other process's events and none can append more, and each :meth:`transaction`
        opened inside it joins it (and commits or rolls back on its own). For a use case that
        lost the race to another process, so that it cannot lose again; a backend with one
        writer (SQLite's single connection) needs nothing here."""
        ...

    async def claim_post(
        self, club_id: int, ladder: str, scheduled_for: datetime, now: datetime
    ) -> bool:
        """Record that the ladder's post scheduled for ``scheduled_for`` is being sent (table
        ``posts``); True only for the one caller whose record was new. A post is claimed before
        it is sent, so it goes out at most once however many processes or restarts try."""
        ...

    async def enqueue_post(self, post: QueuedPost, now: datetime) -> bool:
        """Claim the post's period (as :meth:`claim_post`) and, in the same transaction, put
        the post in the outbox (table ``post_outbox``), due at ``post.due_at``; True only for
        the one caller whose claim was new (a period claimed before, by a version without the
        outbox too, is never enqueued)."""
        ...

    async def enqueue_posts(self, posts: Sequence[QueuedPost], now: datetime) -> list[bool]:
        """:meth:`enqueue_post` for each of ``posts`` (of different periods), in one
        transaction: whether each claim was new."""
        ...

    async def claim_outbox(self, platforms: Sequence[str], claimer: str, now: datetime,
                           lease_until: datetime, limit: int,
                           discord_shards: DiscordShare | None = None) -> list[ClaimedPost]:
        """Take up to ``limit`` outbox rows of ``platforms`` for ``claimer`` until
        ``lease_until``, earliest due first: rows due by ``now``, and rows whose claimer's
        lease ended before ``now`` (it died). Of processes claiming at once, each row goes to
        one (``FOR UPDATE SKIP LOCKED``). ``discord_shards``: of Discord's rows, only those of
        the guilds of these shards (a process reaches only the guilds its gateway serves)."""
        ...

    async def outbox_sending(self, row_id: int, now: datetime) -> None:
        """Record that the row's post is being handed to the platform (one send more)."""
        ...

    async def outbox_done(self, row_id: int, state: str, now: datetime) -> None:
        """Record the row's end: ``sent`` or ``given_up``."""
        ...

    async def outbox_later(self, row_id: int, due_at: datetime) -> None:
        """Put the row back, due at ``due_at`` (the platform asked to wait)."""
        ...

    async def forget_outbox(self, before: datetime) -> int:
        """Remove the outbox rows that ended (sent or given up) before ``before``; how many.
        Nothing needs them: a post is never made twice because its period's claim (table
        ``posts``) stays."""
        ...

    async def keep_preview(
        self, club_id: int, user: str, game: int, correction: str, now: datetime
    ) -> None:
        """Keep the correction of ``game`` that ``user`` previews (table ``previews``),
        replacing their earlier one in the club: a button pressed after a restart, or handled by
        another process, finds it."""
        ...

    async def take_preview(
        self, club_id: int, user: str, game: int | None = None
    ) -> tuple[int, str] | None:
        """Remove and return ``user``'s preview (its game and correction), only if it is of
        ``game`` when one is given. One statement: of two takers, one gets it."""
        ...

    async def close(self) -> None: ...
