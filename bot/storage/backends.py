"""Choosing the storage backend from one setting: a ``postgresql://`` (or ``postgres://``)
address is a PostgreSQL server, anything else a SQLite file."""

from __future__ import annotations

from pathlib import Path

from .errors import DatabaseUnavailable
from .postgres import PostgresRepository, is_postgres_url, public_address
from .repository import Repository
from .sqlite import SqliteRepository


def is_postgres(target: str | Path) -> bool:
    """A scheme is case-insensitive: ``POSTGRESQL://`` and ``Postgres://`` are servers too."""
    return isinstance(target, str) and is_postgres_url(_lower_scheme(target))


def _lower_scheme(target: str) -> str:
    scheme, sep, rest = target.partition("://")
    return f"{scheme.lower()}{sep}{rest}" if sep else target


async def open_repository(target: str | Path) -> Repository:
    """Open (creating and migrating where needed) the database ``target`` names."""
    if is_postgres(target):
        return await PostgresRepository.open(_lower_scheme(str(target)))
    if isinstance(target, str) and "://" in target:
        raise DatabaseUnavailable(f"{describe(target)} is neither a postgresql:// address nor "
                                  "a SQLite file's path")
    return await SqliteRepository.open(target)


def describe(target: str | Path) -> str:
    """The target for logs and answers: an address (a server's, whatever its scheme and its
    case) without its password; a file's path as it is."""
    if isinstance(target, str) and "://" in target:
        return public_address(target)
    return str(target)
