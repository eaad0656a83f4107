"""Choosing the storage backend from one setting: a ``postgresql://`` (or ``postgres://``)
address is a PostgreSQL server, anything else a SQLite file."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from .postgres import PostgresRepository, is_postgres_url
from .repository import Repository
from .sqlite import SqliteRepository


def is_postgres(target: str | Path) -> bool:
    return isinstance(target, str) and is_postgres_url(target)


async def open_repository(target: str | Path) -> Repository:
    """Open (creating and migrating where needed) the database ``target`` names."""
    if is_postgres(target):
        return await PostgresRepository.open(str(target))
    return await SqliteRepository.open(target)


def describe(target: str | Path) -> str:
    """The target for logs: a server address without its password."""
    if not is_postgres(target):
        return str(target)
    parts = urlsplit(str(target))
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    user = f"{parts.username}@" if parts.username else ""
    return f"{parts.scheme}://{user}{host}{port}{parts.path}"
