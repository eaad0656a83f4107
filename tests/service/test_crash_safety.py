"""Crash safety: the bot is killed with SIGKILL at random moments under load, restarted, and no
acknowledged result is ever lost or counted twice.

``tests/crash_driver.py`` runs the real service on a SQLite file in a subprocess: many members
report and confirm through the chat commands, and each result is acknowledged (a line in a file)
only once its use case returned. The test kills it at seeded random moments - during start-up and
migration, during registration, in the middle of the load - restarts it each time, lets a last run
finish by itself, and then checks:

- ``PRAGMA integrity_check`` answers ``ok``;
- every acknowledged result is in the log exactly once: one report and, for a member's report, one
  confirmation; the game counts in the ratings; no game was confirmed twice, acknowledged or not;
- the ratings the last (restarted) run held in its cache, and those a fresh derivation of the log
  gives, equal a from-scratch replay by ``ratings_core``.

Figures (kills, acknowledged, lost) are printed for docs/reliability.md:
``.venv/bin/python -m pytest -q -s tests/service/test_crash_safety.py``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from bot.service.ratings import LadderRatings
from bot.service.state import ClubState, GameStatus, Kind
from bot.storage.repository import StoredEvent
from ratings_core.replay import replay
from ratings_core.systems import make_system

ROOT = Path(__file__).resolve().parents[2]
SEED = 20240301
KILLS = 24
#: a kill lands this long after the driver said it was ready (the load is running by then)
UNDER_LOAD = (0.0, 0.15)
#: every fourth kill is instead timed from the process start: start-up, migration, registering
FROM_START = (0.0, 0.35)


def start(db: Path, acks: Path, seed: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.crash_driver", str(db), str(acks), str(seed), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def wait_ready(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    line = process.stdout.readline()
    errors = process.stderr.read() if line != "ready\n" and process.stderr else ""
    assert line == "ready\n", f"the driver did not start: {line!r} {errors}"


def kill_at_random(db: Path, acks: Path, rng: random.Random, n: int) -> None:
    process = start(db, acks, rng.randrange(2**31))
    try:
        if n % 4 == 3:
            time.sleep(rng.uniform(*FROM_START))
        else:
            wait_ready(process)
            time.sleep(rng.uniform(*UNDER_LOAD))
        # The driver never stops by itself here: it must still be running when killed.
        assert process.poll() is None, process.communicate()[1]
        process.send_signal(signal.SIGKILL)
    finally:
        _, errors = process.communicate()
    assert process.returncode == -signal.SIGKILL, errors


def stored_events(db: Path) -> list[StoredEvent]:
    from datetime import datetime

    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT id, kind, actor, at, reason, data FROM events ORDER BY id").fetchall()
    return [StoredEvent(r[0], r[1], r[2], datetime.fromisoformat(r[3]), json.loads(r[5]), r[4])
            for r in rows]


def test_no_acknowledged_result_is_lost_or_doubled_across_sigkills(tmp_path: Path) -> None:
    db, acks, dump = tmp_path / "club.db", tmp_path / "acks.txt", tmp_path / "cache.json"
    rng = random.Random(SEED)
    for n in range(KILLS):
        kill_at_random(db, acks, rng, n)
    acked_before_last_run = len(acks.read_text().splitlines())
    # A last run, restarted on what the kills left, ends by itself and shows its cache.
    last = start(db, acks, rng.randrange(2**31), "--stop-after", "60", "--dump", str(dump))
    _, errors = last.communicate(timeout=60)
    assert last.returncode == 0, errors

    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]

    lines = acks.read_text().splitlines()
    acknowledged = [(what, int(game)) for what, game in (line.split() for line in lines)]
    events = stored_events(db)
    reports = {e.id: e for e in events if e.kind == Kind.GAME_REPORTED}
    confirmations = Counter(int(e.data["game"]) for e in events  # type: ignore[arg-type]
                            if e.kind == Kind.GAME_CONFIRMED)
    state = ClubState.build(events)
    lost = []
    for what, game in acknowledged:  # acked by the game's number, as the member was told
        report = state.game_numbers.get(game, 0)  # its report's event id (0: no such game)
        record = state.game_numbered(game)
        present = (report in reports and record is not None and record.id == report
                   and record.counts)
        if what == "confirmed":
            present = present and confirmations[report] == 1
        else:
            present = present and reports[report].data["direct"] is True
        if not present:
            lost.append((what, game))
    assert len({game for _, game in acknowledged}) == len(acknowledged), "a game acked twice"
    assert max(confirmations.values()) == 1, "a game was confirmed twice"
    assert all(state.game(g).status is GameStatus.CONFIRMED for g in confirmations)  # type: ignore[union-attr]

    # Ratings: a fresh derivation and the restarted run's cache both equal a scratch replay.
    cached = json.loads(dump.read_text(encoding="utf-8"))
    for name, ladder in state.ladders.items():
        derived = LadderRatings()
        final = derived.sync(state, ladder)
        system = make_system(ladder.settings.system, dict(ladder.settings.params))
        scratch = replay(system, derived.steps).final
        assert dict(final.players) == dict(scratch.players)
        assert cached[name] == {key: [s.rating, s.games, s.status.value]
                                for key, s in scratch.players.items()}
        counted = sum(1 for g in ladder.games.values() if g.counts)
        assert counted == sum(s.games for s in scratch.players.values()) // 2

    print(f"\ncrash safety: kills survived {KILLS}, results acknowledged {len(acknowledged)} "
          f"({acked_before_last_run} before the last restart), results lost {len(lost)}, "
          f"events in the log {len(events)}")
    assert lost == []
    assert acked_before_last_run > KILLS  # the kills did land under load
