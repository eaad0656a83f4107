"""The heartbeat file and its reading (``bot/ops/heartbeat.py``); the whole journey, a running
bot and ``clubrating healthcheck``, is tests/system/test_service_manager.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ops.heartbeat import HEARTBEAT_FILE, WINDOW, WRITE_EVERY, Heartbeat, health


class Clocks:
    def __init__(self) -> None:
        self.wall, self.monotonic = 1_000_000.0, 50.0

    def advance(self, seconds: float) -> None:
        self.wall += seconds
        self.monotonic += seconds


def test_each_platform_is_healthy_within_the_window_and_named_when_stale(tmp_path: Path) -> None:
    clocks = Clocks()
    beat = Heartbeat(tmp_path / HEARTBEAT_FILE, lambda: clocks.wall, lambda: clocks.monotonic)
    assert health(tmp_path, clocks.wall) == (False, "not running")
    beat.start(["telegram", "discord"])
    assert health(tmp_path, clocks.wall) == (
        False, "discord: no answer yet; telegram: no answer yet")
    beat.beat("telegram")  # a first answer is written at once
    assert health(tmp_path, clocks.wall)[1] == "discord: no answer yet"
    beat.beat("discord")
    clocks.advance(WRITE_EVERY - 1)
    beat.beat("discord")  # within WRITE_EVERY of the last write: kept for the next
    assert health(tmp_path, clocks.wall) == (
        True, "healthy: discord answered 4 s ago, telegram answered 4 s ago")
    clocks.advance(1)
    beat.beat("discord")
    assert health(tmp_path, clocks.wall) == (
        True, "healthy: discord answered 0 s ago, telegram answered 5 s ago")
    clocks.advance(WINDOW - WRITE_EVERY + 1)
    beat.beat("discord")
    assert health(tmp_path, clocks.wall) == (False, "telegram: stale, last answer 91 s ago")
    beat.stop()
    assert health(tmp_path, clocks.wall) == (False, "not running")


def test_a_console_bot_is_healthy_while_it_runs(tmp_path: Path) -> None:
    beat = Heartbeat(tmp_path / HEARTBEAT_FILE)
    beat.start(())
    assert health(tmp_path) == (True, "running (console)")


def test_an_unwritable_folder_is_said_once_and_the_bot_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    beat = Heartbeat(tmp_path / "missing" / HEARTBEAT_FILE)
    beat.start(["telegram"])
    beat.beat("telegram")
    beat.stop()
    assert len([r for r in caplog.records if "cannot write the heartbeat" in r.message]) == 1


def test_a_damaged_file_is_not_running(tmp_path: Path) -> None:
    (tmp_path / HEARTBEAT_FILE).write_text("{not json", encoding="utf-8")
    healthy, line = health(tmp_path)
    assert not healthy and line.startswith("not running (unreadable ")
