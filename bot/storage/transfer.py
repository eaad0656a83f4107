"""Whole clubs as they move between databases: read from a SQLite file, written into
PostgreSQL by :meth:`PostgresRepository.copy_in` with every event keeping its id (events refer
to each other by id: a confirmation names its game, an undo its action)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite

from .repository import StoredEvent, answered_at
from .sqlite import SqliteRepository


@dataclass(frozen=True, slots=True)
class ClubCopy:
    platform: str
    chat_id: str
    created_at: str
    events: list[StoredEvent]
    #: (request id, stored answer, when answered) of every handled request kept, so redelivered
    #: updates stay answered once across the move
    answers: list[tuple[str, str, str]]
    #: (ladder, scheduled for, claimed at) of every claimed scheduled post
    posts: list[tuple[str, str, str]]
    #: the club's rows of the outbox of scheduled posts (migration 0011), in the columns of
    #: :data:`OUTBOX_COPIED`: a post claimed but not yet sent is sent after the move
    outbox: list[tuple[object, ...]] = field(default_factory=list)
    #: the platform's sequence of the update behind each event that has one (migration 0012),
    #: by event id
    sequences: dict[int, int] = field(default_factory=dict)


#: the outbox's columns a move copies (its row id is the target's own)
OUTBOX_COPIED = ("claimed_as", "scheduled_for", "platform", "chat_id", "target", "ladder",
                 "puzzles", "since", "due_at", "state", "attempts", "claimed_by", "lease_until",
                 "enqueued_at", "sending_at", "done_at")


class TargetNotEmpty(Exception):
    """The target already holds a club of the same chat with a log of its own."""


async def read_sqlite(path: Path) -> list[ClubCopy]:
    """Every club of a SQLite database, read-only (the file is neither migrated nor changed)."""
    if not path.is_file():
        raise FileNotFoundError(f"no SQLite database at {path}")
    connection = await aiosqlite.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    reader = SqliteRepository(connection)  # its readers, without the migration of open()
    try:
        tables = {str(r[0]) for r in await connection.execute_fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        # A file written before answers had times (migration 0006), read as it is: its answers
        # count as given now, as that migration would have them, and are kept one window.
        timed = "answered_at" in {str(r[1]) for r in await connection.execute_fetchall(
            "PRAGMA table_info(requests)")}
        now = answered_at(datetime.now(UTC))
        sequenced = "platform_sequence" in {str(r[1]) for r in await connection.execute_fetchall(
            "PRAGMA table_info(events)")}
        clubs = []
        for club_id, platform, chat_id, created_at in await connection.execute_fetchall(
            "SELECT id, platform, chat_id, created_at FROM clubs ORDER BY id"
        ):
            answers = [(str(r[0]), str(r[1]), str(r[2]) if timed else now)
                       for r in await connection.execute_fetchall(
                "SELECT request_id, response, " + ("answered_at" if timed else "NULL")
                + " FROM requests WHERE club_id = ? ORDER BY rowid", (club_id,))]
            posts = [] if "posts" not in tables else [
                (str(r[0]), str(r[1]), str(r[2])) for r in await connection.execute_fetchall(
                    "SELECT ladder, scheduled_for, claimed_at FROM posts WHERE club_id = ?"
                    " ORDER BY rowid", (club_id,))]
            # (SQLite keeps a boolean as 0 or 1)
            outbox = [] if "post_outbox" not in tables else [
                (*r[:6], bool(r[6]), *r[7:]) for r in await connection.execute_fetchall(
                    f"SELECT {', '.join(OUTBOX_COPIED)} FROM post_outbox WHERE club_id = ?"
                    " ORDER BY id", (club_id,))]
            sequences = {} if not sequenced else {
                int(r[0]): int(r[1]) for r in await connection.execute_fetchall(
                    "SELECT id, platform_sequence FROM events WHERE club_id = ?"
                    " AND platform_sequence IS NOT NULL", (club_id,))}
            clubs.append(ClubCopy(str(platform), str(chat_id), str(created_at),
                                  await reader.events(int(club_id)), answers, posts, outbox,
                                  sequences))
    finally:
        await reader.close()
    return clubs
