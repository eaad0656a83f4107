"""Numbered plain-SQL migrations, forward only, applied at start-up.

Each file ``migrations/NNNN_name.sql`` starts with a ``-- Reason:`` line and runs in one
transaction together with its row in ``schema_migrations``; a database that is up to date is
left untouched.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations(folder: Path = MIGRATIONS) -> list[Migration]:
    migrations = []
    for path in sorted(folder.glob("*.sql")):
        match = _NAME.match(path.name)
        if match is None:
            raise ValueError(f"migration file name must be NNNN_name.sql, not {path.name!r}")
        sql = path.read_text(encoding="utf-8")
        if not sql.startswith("-- Reason:"):
            raise ValueError(f"migration {path.name} must start with a '-- Reason:' line")
        migrations.append(Migration(int(match.group(1)), match.group(2), sql))
    versions = [m.version for m in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migrations must be numbered 0001, 0002, ... without gaps: {versions}")
    return migrations


async def migrate(connection: aiosqlite.Connection, folder: Path = MIGRATIONS) -> list[int]:
    """Apply the migrations the database lacks; returns the versions applied now."""
    await connection.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    async with connection.execute("SELECT version FROM schema_migrations") as cursor:
        applied = {row[0] for row in await cursor.fetchall()}
    done = []
    for migration in load_migrations(folder):
        if migration.version in applied:
            continue
        try:
            await connection.executescript("BEGIN IMMEDIATE;\n" + migration.sql)
            await connection.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, datetime.now(UTC).isoformat()),
            )
            await connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                await connection.execute("ROLLBACK")
            raise
        log.info("applied migration %04d_%s", migration.version, migration.name)
        done.append(migration.version)
    return done
