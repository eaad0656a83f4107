"""Numbered plain-SQL migrations, forward only, applied at start-up, for every SQL dialect.

Each file ``migrations/NNNN_name.sql`` starts with a ``-- Reason:`` line and runs in one
transaction together with its row in ``schema_migrations``; a database that is up to date is
left untouched. Where a dialect must spell a step differently, ``NNNN_name.DIALECT.sql`` (e.g.
``0001_event_log.postgresql.sql``) replaces the common file for that dialect only, so the
differences stay small and in plain sight. One runner applies them all; each backend lends it a
:class:`MigrationTarget` that knows how to run a script in a transaction.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)(?:\.([a-z]+))?\.sql$")

#: the dialects the backends speak
DIALECTS = ("sqlite", "postgresql")

#: the same in every dialect: applied_at is ISO 8601 text, as everywhere else in the schema
SCHEMA_MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
)


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


class MigrationTarget(Protocol):
    """One database connection, as the runner needs it."""

    @property
    def dialect(self) -> str: ...

    async def execute(self, sql: str) -> None:
        """Run one statement outside any transaction."""
        ...

    async def applied(self) -> set[int]:
        """The versions recorded in ``schema_migrations``."""
        ...

    async def apply(self, migration: Migration, applied_at: str) -> None:
        """Run the migration's script and record it, in one transaction: all or nothing."""
        ...


def load_migrations(folder: Path = MIGRATIONS, dialect: str = "sqlite") -> list[Migration]:
    """The migrations as ``dialect`` runs them: its own file of a number where there is one,
    else the common file."""
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {dialect!r}")
    common: dict[int, Path] = {}
    own: dict[int, Path] = {}
    names: dict[int, str] = {}
    for path in sorted(folder.glob("*.sql")):
        match = _NAME.match(path.name)
        if match is None:
            raise ValueError(
                f"migration file name must be NNNN_name.sql or NNNN_name.DIALECT.sql, "
                f"not {path.name!r}"
            )
        version, name, variant = int(match.group(1)), match.group(2), match.group(3)
        if names.setdefault(version, name) != name:
            raise ValueError(f"migration {version:04d} has two names: {names[version]!r} and "
                             f"{name!r}")
        if variant is not None and variant not in DIALECTS:
            raise ValueError(f"{path.name}: unknown dialect {variant!r} "
                             f"(one of {', '.join(DIALECTS)})")
        files = common if variant is None else own if variant == dialect else None
        if files is not None:
            if version in files:
                raise ValueError(f"two files for migration {version:04d}: {path.name!r}")
            files[version] = path
    versions = sorted(names)
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migrations must be numbered 0001, 0002, ... without gaps: {versions}")
    migrations = []
    for version in versions:
        chosen = own.get(version) or common.get(version)
        if chosen is None:
            raise ValueError(f"migration {version:04d} has no common file and none for "
                             f"{dialect}")
        sql = chosen.read_text(encoding="utf-8")
        if not sql.startswith("-- Reason:"):
            raise ValueError(f"migration {chosen.name} must start with a '-- Reason:' line")
        migrations.append(Migration(version, names[version], sql))
    return migrations


async def migrate(target: MigrationTarget, folder: Path = MIGRATIONS) -> list[int]:
    """Apply the migrations the database lacks; returns the versions applied now."""
    await target.execute(SCHEMA_MIGRATIONS)
    applied = await target.applied()
    done = []
    for migration in load_migrations(folder, target.dialect):
        if migration.version in applied:
            continue
        await target.apply(migration, datetime.now(UTC).isoformat())
        log.info("applied migration %04d_%s (%s)", migration.version, migration.name,
                 target.dialect)
        done.append(migration.version)
    return done
