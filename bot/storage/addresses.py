"""What a database address says, without a driver: whether it names a PostgreSQL server, and
how to show it without its password. Kept apart from ``postgres`` so that choosing a backend
(every ``clubrating`` command does) does not load asyncpg."""

from __future__ import annotations

from urllib.parse import urlsplit

#: ``CLUBRATING_DB`` values that name a PostgreSQL server (asyncpg reads both)
SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: str) -> bool:
    return target.startswith(SCHEMES)


def public_address(url: str) -> str:
    """``url`` without its password (nor its query: settings, maybe a ``password=``)."""
    parts = urlsplit(url)
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # not a number: shown as it was written
        port = f":{parts.netloc.rpartition(':')[2]}" if ":" in parts.netloc else ""
    user = f"{parts.username}@" if parts.username else ""
    return f"{parts.scheme}://{user}{parts.hostname or ''}{port}{parts.path}"
