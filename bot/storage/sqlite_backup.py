"""A consistent copy of a clubrating SQLite database while the bot writes to it, and a checked
restore.

The copy uses SQLite's online backup API in one step (``Connection.backup`` with all pages at
once): it reads one snapshot under a read transaction, so a use case committing meanwhile is in
the copy whole or not at all, and in WAL mode the bot's writers are not blocked while it runs.
The copy is written next to the target under a temporary name, checked (``PRAGMA
integrity_check`` and the clubrating tables), and only then renamed into place.

Source: SQLite, "Online Backup API" (sqlite.org/backup.html); Python ``sqlite3.Connection.backup``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .private import private_companions, private_file, private_folder

log = logging.getLogger(__name__)

#: tables every clubrating database has (schema/0001_event_log.sql and the runner's own)
REQUIRED_TABLES = frozenset({"clubs", "events", "requests", "schema_migrations"})


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class Summary:
    """What a clubrating database holds, as shown before a restore."""

    clubs: int
    events: int
    last_event_at: str | None

    def __str__(self) -> str:
        last = f", the last at {self.last_event_at}" if self.last_event_at else ""
        return f"{self.clubs} club(s), {self.events} event(s){last}"


def check_database(path: Path) -> Summary:
    """Refuse anything that is not a sound clubrating database; summarise it otherwise."""
    if not path.is_file():
        raise BackupError(f"{path}: no such file")
    with path.open("rb") as handle:
        if handle.read(16) != b"SQLite format 3\x00":
            raise BackupError(f"{path} is not a SQLite database")
    try:
        # Read-only: checking a file never changes it (nor creates a journal beside it).
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro",
                                                uri=True)) as db:
            tables = {row[0] for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            missing = REQUIRED_TABLES - tables
            if missing:
                raise BackupError(f"{path} is not a clubrating database "
                                  f"(no table {', '.join(sorted(missing))})")
            problems = [row[0] for row in db.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise BackupError(f"{path} is damaged: {'; '.join(problems[:3])}")
            clubs = db.execute("SELECT COUNT(*) FROM clubs").fetchone()[0]
            events, last = db.execute("SELECT COUNT(*), MAX(at) FROM events").fetchone()
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{path} cannot be read as a database ({error})") from None
    return Summary(int(clubs), int(events), last)


def _copy(source: Path, target: Path, standalone: bool) -> None:
    """Copy ``source`` onto ``target`` (both SQLite files) with the backup API, in one step.
    A ``standalone`` copy leaves WAL mode: it is one self-contained file, safe to move."""
    with contextlib.closing(sqlite3.connect(source, timeout=30)) as src, \
            contextlib.closing(sqlite3.connect(target, timeout=30)) as dst:
        src.backup(dst, pages=-1)
        if standalone:
            dst.execute("PRAGMA journal_mode=DELETE")


def backup(database: Path, target: Path) -> Summary:
    """A consistent copy of ``database`` at ``target`` (replaced if it exists), taken while the
    bot may be writing. Returns what the copy holds."""
    check_database(database)
    if not target.parent.exists():
        private_folder(target.parent)
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        # Created 0600 before SQLite opens it: the copy, and its journal, are the owner's alone
        # whatever the umask; the rename keeps the mode.
        private_file(partial)
        _copy(database, partial, standalone=True)
        summary = check_database(partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    log.info("backup of %s written to %s: %s", database, target, summary)
    return summary


def restore(copy: Path, database: Path) -> Summary:
    """Replace the content of ``database`` by the backup ``copy`` (checked first). The bot
    should be stopped: a running one keeps what it had read in memory."""
    summary = check_database(copy)
    private_file(database)
    _copy(copy, database, standalone=False)
    private_companions(database)
    log.info("%s restored from %s: %s", database, copy, summary)
    return summary
