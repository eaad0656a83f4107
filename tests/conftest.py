"""Fixtures shared by every test module: a PostgreSQL server for the backend contract.

``CLUBRATING_TEST_PG`` (a ``postgresql://`` address; ``.ci/run`` sets it) names the server;
without it a throwaway server is started here for the session (tests/pg_server.py). When none
can be had the PostgreSQL tests are skipped, loudly, except under CI (``CI`` set), where they
fail: a CI run never passes by leaving a backend out.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.storage.postgres import PostgresRepository
from bot.storage.repository import Repository
from bot.storage.sqlite import SqliteRepository

from . import pg_server


def _blocking(coroutine: Coroutine[Any, Any, object]) -> object:
    """Run a coroutine to the end from synchronous code, without touching the test's loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The address of a PostgreSQL server for this session."""
    given = os.environ.get("CLUBRATING_TEST_PG")
    if given:
        yield given
        return
    folder = Path(tempfile.mkdtemp(prefix="clubrating-pg-"))
    try:
        server = pg_server.start(folder)
    except (pg_server.ServerUnavailable, OSError) as error:
        pg_server.stop(folder)  # whatever initdb left behind
        reason = (f"NO POSTGRESQL SERVER: the PostgreSQL backend is NOT tested ({error}); "
                  "set CLUBRATING_TEST_PG=postgresql://... or install PostgreSQL")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    try:
        yield server.url
    finally:
        pg_server.stop(server.folder)


def with_settings(url: str, **settings: str) -> str:
    """The address with server settings added as query parameters (asyncpg passes them on)."""
    query = "&".join(f"{key}={value}" for key, value in settings.items())
    return f"{url}{'&' if '?' in url else '?'}{query}"


async def _create_schema(url: str, schema: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(f'CREATE SCHEMA "{schema}"')
    finally:
        await connection.close()


async def _drop_schema(url: str, schema: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
    finally:
        await connection.close()


@pytest.fixture
def postgres_db(postgres_server: str) -> Iterator[str]:
    """An empty database of one's own: a fresh schema on the session's server, dropped after
    the test (cheaper than a database per test)."""
    schema = f"test_{uuid.uuid4().hex[:16]}"
    _blocking(_create_schema(postgres_server, schema))
    try:
        yield with_settings(postgres_server, search_path=schema)
    finally:
        _blocking(_drop_schema(postgres_server, schema))


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """What a transcript runs on, each backend in turn: a SQLite file, a PostgreSQL schema."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("postgres_db"))
    return tmp_path / "club.db"


@pytest.fixture(params=["sqlite-file", "sqlite-memory", "postgresql"])
async def repository(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Repository]:
    """A fresh repository of each backend: SQLite on a file and in memory, and PostgreSQL."""
    repo: Repository
    if request.param == "postgresql":
        repo = await PostgresRepository.open(request.getfixturevalue("postgres_db"))
    else:
        path = tmp_path / "club.db" if request.param == "sqlite-file" else ":memory:"
        repo = await SqliteRepository.open(path)
    yield repo
    await repo.close()


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, whatever the test runner's: files' modes are checked under it."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


#: test modules that take more than a few seconds each (processes, long histories, fuzzing):
#: ``pytest -m "not slow"`` leaves them out for a quick round
SLOW_MODULES = {"test_permissions", "test_replay", "test_crash_safety", "test_fuzz", "test_charts",
                "test_derivation", "test_evaluation", "test_heavy", "test_processes"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark what needs a PostgreSQL server (``-m postgres``) and what is slow (``-m slow``)."""
    for item in items:
        # the PostgreSQL fixtures, asked for by name or through a backend fixture (``database``,
        # ``repository``) on its "postgresql" turn
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "postgres_server" in getattr(item, "fixturenames", ()) or any(
            params.get(backend) == "postgresql" for backend in ("database", "repository")
        ):
            item.add_marker(pytest.mark.postgres)
        if Path(str(item.fspath)).stem in SLOW_MODULES or "system" in Path(str(item.fspath)).parts:
            item.add_marker(pytest.mark.slow)
