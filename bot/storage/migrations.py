"""Numbered plain-SQL migrations, forward only, applied at start-up, for every SQL dialect.

The files are the repository's top-level ``migrations/`` folder, installed as the package
``bot.storage.schema`` (setup.py) and read through :mod:`importlib.resources`, so an installed
wheel carries its schema as an editable checkout does. Each file ``NNNN_name.sql`` starts with a
``-- Reason:`` line and runs in one transaction together with its row in
``schema_migrations``; a database that is up to date is left untouched. Where a dialect must
spell a step differently, ``NNNN_name.DIALECT.sql`` (e.g. ``0001_event_log.postgresql.sql``)
replaces the common file for that dialect only, so the differences stay small and in plain
sight. A folder that is missing or holds no ``.sql`` file is
an incomplete installation and an error, never a schema of nothing. One runner applies them all;
each backend lends it a :class:`MigrationTarget` that knows how to run a script in a transaction.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Protocol

log = logging.getLogger(__name__)

#: the package's own migrations; a plain :class:`pathlib.Path` is a Traversable too
MIGRATIONS: Traversable = files("bot.storage.schema")
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


def _sql_files(folder: Traversable) -> list[Traversable]:
    """The folder's ``.sql`` files by name; none at all means the installation is incomplete."""
    found = (
        sorted((f for f in folder.iterdir() if f.name.endswith(".sql") and f.is_file()),
               key=lambda f: f.name)
        if folder.is_dir() else []
    )
    if not found:
        raise RuntimeError(f"no schema migrations found in {folder}: the installation is "
                           "incomplete (the package must ship migrations/*.sql as "
                           "bot.storage.schema)")
    return found


def load_migrations(folder: Traversable = MIGRATIONS, dialect: str = "sqlite") -> list[Migration]:
    """The migrations as ``dialect`` runs them: its own file of a number where there is one,
    else the common file. Raises :class:`RuntimeError` when ``folder`` is missing or empty."""
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {', '.join(DIALECTS)}, not {dialect!r}")
    common: dict[int, Traversable] = {}
    own: dict[int, Traversable] = {}
    names: dict[int, str] = {}
    for path in _sql_files(folder):
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


async def migrate(target: MigrationTarget, folder: Traversable = MIGRATIONS) -> list[int]:
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
