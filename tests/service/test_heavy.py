"""Heavy work (bot/service/heavy.py): off the event loop, with a time cap that gives a short
answer and stops the work; the check of an imported history among it."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.cli import main
from bot.service import heavy
from bot.service.errors import Refusal
from tests.long_history import last_game, write_events
from tests.loop_stall import longest_stall


def spin(deadline: heavy.Deadline, seconds: float, done: list[str]) -> str:
    """Pure-Python work for ``seconds``, checking its deadline as the heavy work does."""
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            deadline.check()
            sum(range(1000))
    except heavy.TimeUp:
        done.append("stopped")
        raise
    done.append("finished")
    return threading.current_thread().name


async def test_work_runs_in_a_worker_and_the_loop_keeps_ticking() -> None:
    done: list[str] = []
    deadline = heavy.Deadline(5, "chart_too_slow")
    stall = await longest_stall(heavy.run(lambda d: spin(d, 0.5, done), deadline))
    assert done == ["finished"]
    # Pure Python in a thread lets the loop run at every switch of the interpreter (5 ms).
    assert stall < 0.1


async def test_the_cap_answers_in_time_and_the_work_stops() -> None:
    done: list[str] = []
    deadline = heavy.Deadline(0.2, "evaluation_too_slow", ladder="main")
    started = time.monotonic()
    with pytest.raises(Refusal) as refused:
        await heavy.run(lambda d: spin(d, 5, done), deadline)
    assert time.monotonic() - started < 0.5
    assert (refused.value.key, refused.value.params) == (
        "evaluation_too_slow", {"ladder": "main", "seconds": "0.2"})
    for _ in range(100):
        if done:
            break
        await asyncio.sleep(0.01)
    assert done == ["stopped"]


async def test_waiting_for_a_worker_counts_against_the_cap() -> None:
    done: list[str] = []
    busy = [asyncio.ensure_future(heavy.run(lambda d: spin(d, 1, done),
                                            heavy.Deadline(5, "chart_too_slow")))
            for _ in range(heavy.WORKERS)]
    await asyncio.sleep(0.05)
    started = time.monotonic()
    with pytest.raises(Refusal):
        await heavy.run(lambda d: spin(d, 0.01, done), heavy.Deadline(0.3, "chart_too_slow"))
    assert time.monotonic() - started < 0.6
    await asyncio.gather(*busy)
    assert sorted(done) == ["finished"] * heavy.WORKERS  # the late one never started


async def test_a_cancelled_request_stops_its_work() -> None:
    done: list[str] = []
    task = asyncio.ensure_future(heavy.run(lambda d: spin(d, 5, done),
                                           heavy.Deadline(10, "chart_too_slow")))
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if done:
            break
        await asyncio.sleep(0.01)
    assert done == ["stopped"]


def test_an_import_whose_check_takes_too_long_is_refused_and_nothing_is_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "club.db"
    monkeypatch.setenv("CLUBRATING_DB", str(database))
    events = write_events(tmp_path / "EVENTS.csv", 6000, players=50)
    assert last_game(6000).year == 2020
    monkeypatch.setattr(heavy, "IMPORT_SECONDS", 0.01)
    assert main(["import", "--chat", "console:local", str(events)]) == 2
    err = capsys.readouterr().err
    assert text("import_too_slow", seconds="0.01") in err
    with sqlite3.connect(database) as connection:
        (games,) = connection.execute(
            "SELECT count(*) FROM events WHERE kind = 'game_reported'").fetchone()
    assert games == 0
    # With the cap of a real import, the same file goes in.
    monkeypatch.setattr(heavy, "IMPORT_SECONDS", 120.0)
    assert main(["import", "--chat", "console:local", str(events)]) == 0
    assert "Imported 6,000 games" in capsys.readouterr().out
