"""Choosing the storage backend from one setting: a ``postgresql://`` (or ``postgres://``)
address is a PostgreSQL server, anything else a SQLite file."""

from __future__ import annotations

from pathlib import Path

from .addresses import is_postgres_url, public_address
from .errors import DatabaseUnavailable
from .repository import Repository


def is_postgres(target: str | Path) -> bool:
    """A scheme is case-insensitive: ``POSTGRESQL://`` and ``Postgres://`` are servers too."""
    return isinstance(target, str) and is_postgres_url(_lower_scheme(target))


def _lower_scheme(target: str) -> str:
    scheme, sep, rest = target.partition("://")
    return f"{scheme.lower()}{sep}{rest}" if sep else target


async def open_repository(target: str | Path, backups: Path | None = None) -> Repository:
    """Open (creating and migrating where needed) the database ``target`` names; a SQLite
    database is copied into ``backups`` before a migration changes it (a server's backups are
    its operator's: pg_dump). Each driver is imported when a database of its kind is opened:
    choosing costs nothing."""
    if is_postgres(target):
        from .postgres import PostgresRepository

        return await PostgresRepository.open(_lower_scheme(str(target)))
    if isinstance(target, str) and "://" in target:
        raise DatabaseUnavailable(f"{describe(target)} is neither a postgresql:// address nor "
                                  "a SQLite file's path")
    from .sqlite import SqliteRepository

    return await SqliteRepository.open(target, backups=backups)


def describe(target: str | Path) -> str:
    """The target for logs and answers: an address (a server's, whatever its scheme and its
    case) without its password; a file's path as it is."""
    if isinstance(target, str) and "://" in target:
        return public_address(target)
    return str(target)
