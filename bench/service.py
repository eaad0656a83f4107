"""Service speed on SQLite or PostgreSQL: correcting the first game of a long ladder, and
confirmed results per second from many members at once.

    .venv/bin/python bench/service.py                 # both, with the issue's sizes
    .venv/bin/python bench/service.py --part correction   # the import and the correction
    .venv/bin/python bench/service.py --games 20000 --results 2000
    .venv/bin/python bench/service.py --db postgresql://postgres@127.0.0.1:5432/postgres

Each run gets a fresh database: a SQLite file in a temporary folder, or, with ``--db`` (or
``CLUBRATING_DB``) naming a PostgreSQL server, a schema of its own there, dropped at the end.

1. A ladder of ``--games`` (100,000) confirmed games among 1,000 members is imported, as
   ``clubrating import`` does (``import_history``); then a moderator corrects its first game,
   game #1. Timed: the import, beside the same rows stored by plain ``sqlite3`` (one
   ``executemany`` in one transaction into a fresh file of the same schema); the correction
   (``/correct 1 loss apply``) and the next leaderboard, each and together, beside the replay
   of the ladder's own steps by ``ratings_core`` alone (what re-rating from game 1 cannot do
   without); and the bot's two presses, a preview (``/correct 1 win``) then Apply.
   Targets (issue 19): import < 3 s, correction < 150 ms.
2. ``--members`` (100) members, each its own task, report games against a partner who confirms
   them, ``--results`` (5,000) confirmed results in all, every use case with a platform request
   id as Telegram and Discord send: once as an open load of ``--rate`` (500) results per second
   (each member keeps its share, as people do), once as fast as the service goes. Timed:
   confirmed results per second and each use case's latency (p50, p99), queueing included.
   Target: >= 500 confirmed results/s sustained, p99 < 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable
from datetime import datetime, timedelta
from pathlib import Path

from bot.history import History
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService, Correction
from bot.service.results import GameResult
from bot.storage.backends import describe, is_postgres, open_repository
from bot.storage.repository import StoredEvent
from bot.storage.sqlite import SqliteRepository
from ratings_core.model import Game, Step
from ratings_core.replay import replay

START = datetime(2020, 1, 1)


class Databases:
    """Fresh databases for the runs: SQLite files in ``folder``, or schemas on ``server``."""

    def __init__(self, folder: Path, server: str | None) -> None:
        self.folder = folder
        self.server = server
        self.schemas: list[str] = []

    async def fresh(self, name: str) -> str | Path:
        if self.server is None:
            return self.folder / f"{name}.db"
        import asyncpg  # only when a server is measured

        plain = re.sub(r"\W", "_", name).lower()  # search_path folds names to lower case
        schema = f"bench_{plain}_{uuid.uuid4().hex[:8]}"
        connection = await asyncpg.connect(self.server)
        try:
            await connection.execute(f'CREATE SCHEMA "{schema}"')
        finally:
            await connection.close()
        self.schemas.append(schema)
        joiner = "&" if "?" in self.server else "?"
        return f"{self.server}{joiner}search_path={schema}"

    async def drop(self) -> None:
        if self.server is None or not self.schemas:
            return
        import asyncpg

        connection = await asyncpg.connect(self.server)
        try:
            for schema in self.schemas:
                await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
        finally:
            await connection.close()


def caller(user: str, moderator: bool = False, request: str | None = None) -> Caller:
    return Caller("bench", "club", user, user, moderator, request)


async def correction(databases: Databases, games: int, members: int, seed: int) -> None:
    rng = random.Random(seed)
    repository = await open_repository(await databases.fresh("correction"))
    clock = FakeClock(START + timedelta(days=3000))
    service = ClubService(repository, clock)
    names = [f"m{i:04d}" for i in range(members)]
    steps: list[Step] = []
    for n in range(games):
        a, b = rng.sample(names, 2)
        steps.append(Game(a, b, rng.choice((0.0, 0.5, 1.0)), START + timedelta(minutes=n)))
    history = History(steps, [[n + 1] for n in range(games)], [""] * games)
    begin = time.perf_counter()
    await service.import_history("bench", "club", history, history.labels)
    imported = time.perf_counter() - begin
    club = await repository.club_id("bench", "club", START)
    stored = await repository.events(club)
    plain = await plain_sqlite_insert(databases.folder, stored)
    print(f"import: {games:,} games in {imported:.2f} s (target < 3 s); the same "
          f"{len(stored):,} rows by plain sqlite3 executemany {plain:.2f} s; "
          f"ratio {imported / plain:.1f}")
    await service.leaderboard(caller("m0000"))

    ladder = service._session.clubs[club].ratings["main"]  # the bench looks inside
    assert ladder.system is not None
    begin = time.perf_counter()
    replay(ladder.system, ladder.steps)
    core = time.perf_counter() - begin
    moderator = caller("mod", moderator=True)
    begin = time.perf_counter()
    await service.correct(moderator, 1, Correction(result="loss"), apply=True)
    corrected = time.perf_counter() - begin
    begin = time.perf_counter()
    await service.leaderboard(caller("m0000"))
    rerated = time.perf_counter() - begin
    print(f"correction: correcting game 1 of {games:,} {corrected * 1000:.0f} ms + the next "
          f"leaderboard {rerated * 1000:.0f} ms = {(corrected + rerated) * 1000:.0f} ms "
          f"(target < 150 ms); ratings_core's replay of the ladder alone {core * 1000:.0f} ms; "
          f"ratio {corrected / core:.2f}")
    begin = time.perf_counter()
    await service.preview_correction(moderator, 1, Correction(result="win"))
    previewed = time.perf_counter() - begin
    begin = time.perf_counter()
    await service.apply_correction(moderator, 1)
    applied = time.perf_counter() - begin
    print(f"correction with a preview first: preview {previewed * 1000:.0f} ms, then Apply "
          f"{applied * 1000:.0f} ms")
    await repository.close()


async def plain_sqlite_insert(folder: Path, stored: list[StoredEvent]) -> float:
    """Seconds to store ``stored``'s rows by plain sqlite3 (their JSON written, one
    ``executemany`` in one transaction, WAL, synchronous=NORMAL) into a fresh file of the same
    schema: the floor of an import's writing, measured in the same run, with the garbage
    collector paused as the import pauses it."""
    path = folder / f"plain-{uuid.uuid4().hex[:8]}.db"
    await (await SqliteRepository.open(path)).close()  # the schema, migrated
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        club = connection.execute(
            "INSERT INTO clubs (platform, chat_id, created_at) VALUES ('bench', 'plain', '')"
            " RETURNING id").fetchone()[0]
        gc.disable()
        begin = time.perf_counter()
        rows = [(club, e.kind, e.actor, e.at.isoformat(), e.reason,
                 json.dumps(e.data, ensure_ascii=False, separators=(",", ":"))) for e in stored]
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(
            "INSERT INTO events (club_id, kind, actor, at, reason, data)"
            " VALUES (?, ?, ?, ?, ?, ?)", rows)
        connection.execute("COMMIT")
        return time.perf_counter() - begin
    finally:
        gc.enable()
        connection.close()


async def throughput(
    databases: Databases, members: int, results: int, rate: float | None, seed: int
) -> None:
    """Members report and confirm; with ``rate`` each member keeps to its share of that many
    results per second (an open load, as real members are), otherwise as fast as possible."""
    repository = await open_repository(await databases.fresh(f"throughput-{rate}"))
    service = ClubService(repository, FakeClock(START))
    names = [f"p{i:03d}" for i in range(members)]
    for name in names:
        await service.register(caller(name))
    latencies: list[float] = []
    per_member = results // members
    serial = iter(range(10**9))
    interval = members / rate if rate else 0.0

    async def timed(call: Awaitable[object]) -> object:
        begin = time.perf_counter()
        answer = await call
        latencies.append(time.perf_counter() - begin)
        return answer

    async def member(i: int, start: float) -> None:
        rng = random.Random(seed + i)
        me = names[i]
        partner = names[i ^ 1] if (i ^ 1) < members else names[0]
        for k in range(per_member):
            if interval:
                # Members are spread over the interval, so the load arrives evenly.
                await asyncio.sleep(max(0.0, start + (k + i / members) * interval
                                        - time.perf_counter()))
            result = rng.choice(("win", "loss", "draw"))
            reported = await timed(service.report(
                caller(me, request=f"u{next(serial)}"), partner, result))
            assert isinstance(reported, GameResult)
            await timed(service.confirm(caller(partner, request=f"u{next(serial)}"),
                                        reported.game.id))

    begin = time.perf_counter()
    await asyncio.gather(*(member(i, begin) for i in range(members)))
    elapsed = time.perf_counter() - begin
    await repository.close()
    confirmed = per_member * members
    ms = sorted(x * 1000 for x in latencies)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    load = f"offered {rate:,.0f}/s" if rate else "as fast as possible"
    print(f"throughput ({load}): {members} members, {confirmed:,} confirmed results in "
          f"{elapsed:.1f} s = {confirmed / elapsed:,.0f} confirmed/s; per use case "
          f"p50 {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--results", type=int, default=5_000)
    parser.add_argument("--rate", type=float, default=500.0,
                        help="confirmed results per second offered in the open-load run")
    parser.add_argument("--part", choices=("all", "correction", "throughput"), default="all",
                        help="the import and correction (1.), the confirmed results (2.), or both")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--db", default=os.environ.get("CLUBRATING_DB"),
                        help="a postgresql:// server to measure (default: CLUBRATING_DB when it "
                             "names one, else SQLite files in a temporary folder)")
    args = parser.parse_args()
    server = args.db if args.db and is_postgres(args.db) else None
    print(f"backend: {describe(server) if server else 'SQLite (WAL, synchronous=NORMAL)'}")
    with tempfile.TemporaryDirectory() as folder:
        databases = Databases(Path(folder), server)
        try:
            if args.part in ("all", "correction"):
                await correction(databases, args.games, 1000, args.seed)
            if args.part in ("all", "throughput"):
                await throughput(databases, args.members, args.results, args.rate, args.seed)
                await throughput(databases, args.members, args.results, None, args.seed)
        finally:
            await databases.drop()


if __name__ == "__main__":
    asyncio.run(main())
