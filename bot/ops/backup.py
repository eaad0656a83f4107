"""Backups of the SQLite database from the shell and while the bot runs: ``clubrating backup``
and ``restore`` (with a confirmation), and a daily backup keeping the last N. The copying itself
is storage's (:mod:`bot.storage.sqlite_backup`)."""

from __future__ import annotations

import argparse
import logging
import re
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.storage.private import FILE_MODE, narrow, private_folder
from bot.storage.sqlite_backup import BackupError, backup, check_database, restore

if TYPE_CHECKING:  # asyncio is imported where it runs: `clubrating replay` needs none of it
    import asyncio

log = logging.getLogger(__name__)

#: daily backups are named so that their names sort by time
DAILY_NAME = "clubrating-{stamp}.db"
_DAILY = re.compile(r"^clubrating-\d{8}-\d{6}\.db$")
DEFAULT_KEEP = 7
DAY_SECONDS = 24 * 3600.0


def daily_backup(database: Path, folder: Path, keep: int, now: datetime | None = None) -> Path:
    """One dated backup in ``folder``; only the newest ``keep`` dated backups are kept there
    (other files are never touched)."""
    if keep < 1:
        raise BackupError(f"CLUBRATING_BACKUP_KEEP must be at least 1, not {keep}")
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    target = folder / DAILY_NAME.format(stamp=stamp)
    private_folder(folder)  # 0700, and the backups in it 0600 (members' birth dates)
    backup(database, target)
    dated = sorted(p for p in folder.iterdir() if _DAILY.match(p.name))
    for old in dated[:-keep]:
        old.unlink()
        log.info("old backup %s removed (keeping %d)", old.name, keep)
    for kept in dated[-keep:]:
        narrow(kept, FILE_MODE)  # one an older version wrote wider
    return target


def backup_settings(folder: str | None, keep_text: str | None) -> tuple[Path, int] | None:
    """The values of ``CLUBRATING_BACKUP_DIR`` (daily backups on when set) and
    ``CLUBRATING_BACKUP_KEEP`` (default 7; looked at only with a folder): the folder and how
    many to keep, or None. Raises :class:`BackupError` naming the setting."""
    if not folder:
        return None
    keep_text = keep_text or str(DEFAULT_KEEP)
    try:
        keep = int(keep_text)
    except ValueError:
        raise BackupError(
            f"CLUBRATING_BACKUP_KEEP must be a whole number, not {keep_text!r}") from None
    if keep < 1:
        raise BackupError(f"CLUBRATING_BACKUP_KEEP must be at least 1, not {keep}")
    if Path(folder).exists() and not Path(folder).is_dir():
        raise BackupError(f"CLUBRATING_BACKUP_DIR: {folder} is not a folder")
    return Path(folder), keep


async def backup_every_day(database: Path, folder: Path, keep: int,
                           interval: float = DAY_SECONDS) -> None:
    """Back up at start and then every ``interval`` seconds until cancelled; a failed backup is
    logged and tried again at the next turn (the bot goes on)."""
    import asyncio

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


def start_daily_backups(database: str,
                        settings: tuple[Path, int] | None) -> asyncio.Task[None] | None:
    """The daily backup task when ``CLUBRATING_BACKUP_DIR`` is set (``settings``: its folder
    and how many to keep, :func:`backup_settings`; SQLite only); None otherwise. The caller
    cancels it when the bot stops."""
    if settings is None:
        return None
    if "://" in database:
        log.warning("CLUBRATING_BACKUP_DIR is set but the database is a server: use its own "
                    "backups (pg_dump); no daily backup")
        return None
    folder, keep = settings
    log.info("daily backups of %s to %s, keeping %d", database, folder, keep)
    import asyncio

    return asyncio.create_task(backup_every_day(Path(database), folder, keep))
