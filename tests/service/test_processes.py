"""Several bot processes on one PostgreSQL database (issue 8): two service instances, each in a
process of its own (tests/pg_worker.py), hammer one club at once.

- Both receive the same updates (same request ids): each is handled once, both answer alike.
- Each also reports and confirms with members of its own, two pairs at a time.
- A moderator in each corrects the same game again and again, at the same moment.
- Both try to claim the same scheduled posts: each slot goes to exactly one process.

Afterwards the log holds every result exactly once (none lost, none counted twice), every
correction, and each process's cached ratings equal a from-scratch replay of that log.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path
from typing import IO, Any

import asyncpg

from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.service.ratings import LadderRatings, member_of_key
from bot.service.state import ClubState, Kind
from bot.storage.postgres import PostgresRepository
from ratings_core.replay import replay
from ratings_core.systems import make_system
from tests.pg_worker import CHAT, MEMBERS, OWN_PAIRS, PLATFORM, START, caller

ROOT = Path(__file__).resolve().parents[2]
#: shared updates, results per own pair, corrections per moderator, scheduled-post slots
SHARED, OWN, CORRECTIONS, SLOTS = 25, 25, 12, 40
#: a hung worker is killed after this many seconds (the whole test takes a few)
DEADLINE = 120.0


async def set_up(url: str) -> None:
    repository = await PostgresRepository.open(url)
    try:
        service = ClubService(repository, FakeClock(START))
        for name in MEMBERS:
            await service.register(caller(name))
    finally:
        await repository.close()


async def read_log(url: str) -> tuple[ClubState, list[Any], int]:
    repository = await PostgresRepository.open(url)
    try:
        club = await repository.club_id(PLATFORM, CHAT, START)
        events = await repository.events(club)
    finally:
        await repository.close()
    raw = await asyncpg.connect(url)
    try:
        requests = int(await raw.fetchval("SELECT count(*) FROM requests"))
    finally:
        await raw.close()
    return ClubState.build(events), events, requests


def line(stream: IO[str], worker: subprocess.Popen[str], log: Path) -> str:
    text = stream.readline()
    assert text, f"worker {worker.args} died:\n{log.read_text()[-3000:]}"
    return text.strip()


def test_two_processes_hammering_one_club_lose_and_double_nothing(postgres_db: str) -> None:
    asyncio.run(set_up(postgres_db))
    with tempfile.TemporaryDirectory() as folder:
        logs = [Path(folder) / f"worker{role}.log" for role in (0, 1)]
        workers = [
            subprocess.Popen(
                [sys.executable, "-m", "tests.pg_worker", postgres_db, str(role), str(SHARED),
                 str(OWN), str(CORRECTIONS), str(SLOTS)],
                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=logs[role].open("w"), text=True,
            )
            for role in (0, 1)
        ]
        watchdog = threading.Timer(DEADLINE, lambda: [w.kill() for w in workers])
        watchdog.start()
        try:
            outputs = []
            for expected in ("ready", "done"):
                for worker, log in zip(workers, logs, strict=True):
                    assert worker.stdout is not None
                    assert line(worker.stdout, worker, log) == expected
                for worker in workers:  # both go at once
                    assert worker.stdin is not None
                    worker.stdin.write("go\n")
                    worker.stdin.flush()
            for worker, log in zip(workers, logs, strict=True):
                assert worker.stdout is not None
                outputs.append(json.loads(line(worker.stdout, worker, log)))
                assert worker.wait(DEADLINE) == 0, log.read_text()[-3000:]
            # The processes did race: some writes found the other's events first and retried.
            races = [log.read_text() for log in logs]
            assert sum(text.count("changed underneath") for text in races) > 0
            # ... and a retry holding the club's lock never lost again.
            assert not any("retrying (2)" in text for text in races)
        finally:
            watchdog.cancel()
            for worker in workers:
                worker.kill()
                worker.wait()

    state, events, requests = asyncio.run(read_log(postgres_db))
    first, second = outputs
    kinds = Counter(e.kind for e in events)

    # The same updates, handled by both: answered once, and alike.
    assert first["shared"] == second["shared"]
    assert first["games"] == second["games"] and len(set(first["games"])) == SHARED
    # Every result exactly once: the shared ones and each process's own.
    own_results = sum(len(pairs) for pairs in OWN_PAIRS.values()) * OWN
    assert kinds[Kind.GAME_REPORTED] == SHARED + own_results
    confirmed = Counter(e.data["game"] for e in events if e.kind == Kind.GAME_CONFIRMED)
    assert set(confirmed.values()) == {1} and len(confirmed) == SHARED + own_results
    # Both moderators' corrections of the one game, none lost.
    corrected = [e for e in events if e.kind == Kind.GAME_CORRECTED]
    assert len(corrected) == 2 * CORRECTIONS
    # (the workers answer with game numbers; the events name a game by its report's event id)
    assert {state.number_of[e.data["game"]] for e in corrected} == {first["games"][0]}
    # One stored answer per request id: 2 per shared update pair and own result, 1 per fix.
    assert requests == 2 * SHARED + 2 * own_results + 2 * CORRECTIONS
    # Each scheduled post is claimed by exactly one process.
    assert sorted(first["claimed"] + second["claimed"]) == list(range(SLOTS))

    # The caches of both equal a replay of the log from scratch, and so do their boards.
    assert first["cache_is_replay"] and second["cache_is_replay"]
    ladder = state.ladders["main"]
    derived = LadderRatings()
    derived.sync(state, ladder)
    system = make_system(ladder.settings.system, dict(ladder.settings.params))
    scratch = replay(system, derived.steps).final
    replayed = {state.member(member_of_key(k)).name: s.rating for k, s in scratch.players.items()}
    assert first["ratings"] == second["ratings"] == replayed
    assert len(replayed) == len(MEMBERS)
