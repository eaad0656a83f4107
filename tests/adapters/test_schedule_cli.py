"""`clubrating schedule set|show|pause|resume`: the operator's shell commands on the bot's
database, and a running bot picking their change up at its next poll."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.chat.posts import ChatPosts
from bot.chat.presenter import render
from bot.cli import main
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.schedules import next_fire
from bot.storage.sqlite import SqliteRepository
from tests.adapters.test_schedule import Recorder
from tests.scheduled_posts import ScheduledPosts

CHAT = "telegram:-1001234"


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "club.db"
    monkeypatch.setenv("CLUBRATING_DB", str(path))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_set_show_pause_resume(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "schedule", "set", "--chat", CHAT, "--cron", "0 9 * * MON",
                         "--tz", "Europe/Berlin", "--channel", "-1009999", "--size", "15")
    assert code == 0, err
    assert out.splitlines()[0] == "Schedule of main set."
    assert out.splitlines()[1].startswith(
        'top 15 at "0 9 * * MON" (Europe/Berlin) into chat -1009999; next post: ')
    code, out, _ = run(capsys, "schedule", "show", "--chat", CHAT)
    assert code == 0 and out.startswith("Schedule of main:\ntop 15 at")
    code, out, _ = run(capsys, "schedule", "pause", "--chat", CHAT, "--ladder", "main")
    assert code == 0 and out.endswith("next post: none (paused).\n")
    code, out, err = run(capsys, "schedule", "pause", "--chat", CHAT)
    assert (code, out) == (2, "")
    assert err == "clubrating: The scheduled posts of main are already paused.\n"
    code, out, _ = run(capsys, "schedule", "resume", "--chat", CHAT)
    assert code == 0 and out.startswith("Scheduled posts of main resumed.")


@pytest.mark.parametrize(("argv", "message"), [
    (["--cron", "every monday"], 'That is not a cron expression: every monday. Five fields, '
                                 'e.g. cron="0 9 * * MON" (minute hour day month weekday).'),
    (["--tz", "Europe/Nowhere"], "There is no time zone Europe/Nowhere. Use an IANA name, e.g. "
                                 "Europe/Berlin or UTC."),
    (["--ladder", "blitz", "--tz", "UTC"], "There is no ladder blitz. Ladders: main."),
    ([], 'Say what to change: cron="0 9 * * MON", tz=ZONE, channel=ID or size=N.'),
])
def test_bad_input_exits_2_with_one_line(
    database: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "schedule", "set", "--chat", CHAT, *argv)
    assert (code, out, err) == (2, "", f"clubrating: {message}\n")


def test_a_bad_chat_is_refused(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "schedule", "show", "--chat", "-1001234")
    assert code == 2 and err.startswith("clubrating: --chat takes PLATFORM:CHAT_ID")


async def test_a_running_bot_picks_the_shells_change_up(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The shell writes with the system's clock: the bot's fake one starts from it too.
    clock = FakeClock(datetime.now(UTC).replace(tzinfo=None, microsecond=0))
    repository = await SqliteRepository.open(database)
    service = ClubService(repository, clock)
    recorder = Recorder("telegram")
    scheduler = ScheduledPosts(service, repository, {"telegram": recorder}, clock, ChatPosts(),
                              pictures=False)
    try:
        await service.register(Caller("telegram", "-1001234", "7", "alice"))
        await scheduler.poll()
        assert scheduler.plans[(1, "main", "telegram", "-1001234")].cron == "0 9 * * MON"
        # The operator, in a shell, while the bot runs.
        code = await asyncio.to_thread(main, ["schedule", "set", "--chat", CHAT, "--cron",
                                              "0 20 * * FRI", "--tz", "Asia/Tokyo"])
        assert code == 0
        await scheduler.poll()
        plan = scheduler.plans[(1, "main", "telegram", "-1001234")]
        assert (plan.cron, plan.timezone) == ("0 20 * * FRI", "Asia/Tokyo")
        friday_evening = next_fire(plan.trigger, clock.now())
        assert friday_evening is not None and friday_evening.weekday() == 4  # 20:00 JST
        assert friday_evening.hour == 11
        clock.current = friday_evening
        await asyncio.gather(*await scheduler.poll())
        assert [chat for chat, _, _ in recorder.posts] == ["-1001234"]
        audit = await service.audit(Caller("telegram", "-1001234", "0", "x", moderator=True), 1)
        assert "operator set the main ladder's posts: top 10 at \"0 20 * * FRI\"" in render(audit)
    finally:
        await scheduler.stop()
        await repository.close()
