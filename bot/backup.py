"""Backups of the SQLite database: a consistent copy while the bot runs, a checked restore, and
a daily backup keeping the last N.

The copy uses SQLite's online backup API in one step (``Connection.backup`` with all pages at
once): it reads one snapshot under a read transaction, so a use case committing meanwhile is in
the copy whole or not at all, and in WAL mode the bot's writers are not blocked while it runs.
The copy is written next to the target under a temporary name, checked (``PRAGMA
integrity_check`` and the clubrating tables), and only then renamed into place.

Source: SQLite, "Online Backup API" (sqlite.org/backup.html); Python ``sqlite3.Connection.backup``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import sqlite3
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

log = logging.getLogger(__name__)

#: tables every clubrating database has (migrations/0001_event_log.sql and the runner's own)
REQUIRED_TABLES = frozenset({"clubs", "events", "requests", "schema_migrations"})
#: daily backups are named so that their names sort by time
DAILY_NAME = "clubrating-{stamp}.db"
_DAILY = re.compile(r"^clubrating-\d{8}-\d{6}\.db$")
DEFAULT_KEEP = 7
DAY_SECONDS = 24 * 3600.0


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
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
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
    _copy(copy, database, standalone=False)
    log.info("%s restored from %s: %s", database, copy, summary)
    return summary


def daily_backup(database: Path, folder: Path, keep: int, now: datetime | None = None) -> Path:
    """One dated backup in ``folder``; only the newest ``keep`` dated backups are kept there
    (other files are never touched)."""
    if keep < 1:
        raise BackupError(f"CLUBRATING_BACKUP_KEEP must be at least 1, not {keep}")
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    target = folder / DAILY_NAME.format(stamp=stamp)
    backup(database, target)
    dated = sorted(p for p in folder.iterdir() if _DAILY.match(p.name))
    for old in dated[:-keep]:
        old.unlink()
        log.info("old backup %s removed (keeping %d)", old.name, keep)
    return target


def backup_settings() -> tuple[Path, int] | None:
    """``CLUBRATING_BACKUP_DIR`` (daily backups on when set) and ``CLUBRATING_BACKUP_KEEP``
    (default 7)."""
    folder = os.environ.get("CLUBRATING_BACKUP_DIR")
    if not folder:
        return None
    keep_text = os.environ.get("CLUBRATING_BACKUP_KEEP") or str(DEFAULT_KEEP)
    try:
        keep = int(keep_text)
    except ValueError:
        raise BackupError(
            f"CLUBRATING_BACKUP_KEEP must be a whole number, not {keep_text!r}") from None
    if keep < 1:
        raise BackupError(f"CLUBRATING_BACKUP_KEEP must be at least 1, not {keep}")
    return Path(folder), keep


async def backup_every_day(database: Path, folder: Path, keep: int,
                           interval: float = DAY_SECONDS) -> None:
    """Back up at start and then every ``interval`` seconds until cancelled; a failed backup is
    logged and tried again at the next turn (the bot goes on)."""
    while True:
        try:
            await asyncio.to_thread(daily_backup, database, folder, keep)
        except (BackupError, OSError, sqlite3.Error):
            log.exception("daily backup of %s failed", database)
        await asyncio.sleep(interval)


# -- the command line: `clubrating backup FILE`, `clubrating restore FILE [--yes]` ----------------


def add_backup_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    save = commands.add_parser(
        "backup", help="copy the database to FILE, consistently, while the bot runs",
        description="Copy the SQLite database (CLUBRATING_DB) to FILE with SQLite's online "
                    "backup API; safe while the bot runs.",
    )
    save.add_argument("file", type=Path, metavar="FILE")
    load = commands.add_parser(
        "restore", help="replace the database by the backup FILE (stop the bot first)",
        description="Replace the SQLite database (CLUBRATING_DB) by the backup FILE, after "
                    "checking that FILE is a sound clubrating database and asking to confirm.",
    )
    load.add_argument("file", type=Path, metavar="FILE")
    load.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def backup_command(args: argparse.Namespace, database: str, answers: TextIO = sys.stdin,
                   prompts: TextIO = sys.stderr) -> str:
    """Run ``backup`` or ``restore`` on ``database`` (a SQLite file; not a server address)."""
    if "://" in database:
        raise BackupError("backup and restore work on a SQLite database; for PostgreSQL use "
                          "pg_dump and pg_restore")
    here = Path(database)
    if args.command == "backup":
        if args.file.resolve() == here.resolve():
            raise BackupError("the backup cannot be the database itself")
        return f"{args.file}: {backup(here, args.file)}"
    incoming = check_database(args.file)
    if not args.yes:
        current = str(check_database(here)) if here.exists() else "no database yet"
        prompts.write(f"Replace {here} ({current}) by {args.file} ({incoming})? "
                      "Stop the bot first. [y/N] ")
        prompts.flush()
        if answers.readline().strip().lower() not in ("y", "yes"):
            raise BackupError("restore cancelled; nothing changed")
    return f"{here} restored from {args.file}: {restore(args.file, here)}"


def start_daily_backups(database: str) -> asyncio.Task[None] | None:
    """The daily backup task when ``CLUBRATING_BACKUP_DIR`` is set (SQLite only); None
    otherwise. The caller cancels it when the bot stops."""
    settings = backup_settings()
    if settings is None:
        return None
    if "://" in database:
        log.warning("CLUBRATING_BACKUP_DIR is set but the database is a server: use its own "
                    "backups (pg_dump); no daily backup")
        return None
    folder, keep = settings
    log.info("daily backups of %s to %s, keeping %d", database, folder, keep)
    return asyncio.create_task(backup_every_day(Path(database), folder, keep))
