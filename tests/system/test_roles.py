"""Two ``clubrating run`` processes on one PostgreSQL database with one Telegram bot (issue 41):
one of them long-polls (Telegram answers a second concurrent ``getUpdates`` with 409 Conflict,
as the fake does) and one plans the scheduled posts; killed, the other takes both over within
seconds, and what was sent to the bot before the kill is answered once."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from tests.fake_telegram import TOKEN, FakeTelegram

from .clubs import GROUP, TelegramClub, clubrating_output, telegram_bot
from .process import Bot

#: what every process says once its front-ends started, whichever roles it holds
SERVING = r"serving telegram"
#: what the process holding a role says
RECEIVER = r"role telegram-receiver:\d+ taken"
SCHEDULER = r"role scheduler taken"
#: 09:00 in Berlin on the Sunday after FRIDAY is 08:00 UTC: the clock is put a little before
SUNDAY = datetime(2026, 11, 22, 7, 59, 52)
NEXT_SUNDAY = datetime(2026, 11, 29, 7, 59, 57)
#: seconds within which the survivor takes a dead process's roles over (it tries every 1.5 s)
TAKE_OVER = 10.0


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[TelegramClub]:
    async with FakeTelegram(token=TOKEN) as tg:
        yield TelegramClub.on(tg, tmp_path)


def process(club: TelegramClub, name: str, database: str) -> Bot:
    """``clubrating run`` for the club's bot on ``database``, its data folder and log its own."""
    folder = club.folder / name
    folder.mkdir()
    return telegram_bot(club.tg, folder, club.clock, CLUBRATING_DB=database)


async def test_one_process_receives_and_schedules_and_the_other_takes_over_when_it_dies(
        club: TelegramClub, postgres_db: str) -> None:
    tg = club.tg
    first = await process(club, "a", postgres_db).start()  # the scheduler's line: it leads
    second = await process(club, "b", postgres_db).start(SERVING)
    try:
        assert re.search(RECEIVER, first.text()) and re.search(SCHEDULER, first.text())
        assert "role " not in second.text()  # both roles are the first's

        # a member's command is answered once, by the one process that polls
        await club.register(club.alice, club.bob)
        await asyncio.sleep(1)
        assert len(tg.outputs(club.group)) == 2
        assert first.text().count("command=register outcome=ok") == 2
        assert "use_case" not in second.text()

        # the weekly post is made once, by the scheduler
        clubrating_output(first, "schedule", "set", "--chat", f"telegram:{GROUP}", "--cron",
                          "0 9 * * SUN", "--tz", "Europe/Berlin")
        club.clock.set(SUNDAY)
        [post] = await club.next_posts(1)
        assert post.kind == "photo" and "alice" in post.plain
        await first.wait_log(r"scheduled for 2026-11-22T08:00:00 claimed")
        await asyncio.sleep(2)
        assert len(tg.outputs(club.group)) == 3
        assert "claimed" not in second.text()

        # carol writes, and the process that polls is killed at once (before or after it kept
        # her update); a week later the next post is due seconds after the kill
        club.clock.set(NEXT_SUNDAY)
        await tg.send(club.group, club.carol, "/register")
        assert await first.kill() == -9
        killed = time.monotonic()
        await second.wait_log(RECEIVER, timeout=TAKE_OVER)
        receiving = time.monotonic() - killed
        welcome = await tg.reply(club.group, TAKE_OVER)
        assert welcome.plain.startswith("Welcome, carol"), welcome.plain
        await second.wait_log(SCHEDULER, timeout=TAKE_OVER)
        [next_post] = await club.next_posts(1)
        posting = time.monotonic() - killed
        await second.wait_log(r"scheduled for 2026-11-29T08:00:00 claimed")
        assert receiving < TAKE_OVER and posting < TAKE_OVER + 5, (receiving, posting)
        assert next_post.kind == "photo"

        # the survivor answers the next command; everything was said once, and never did two
        # processes poll at once
        board = await club.say(club.alice, "/top")
        assert "alice" in board.plain and "carol" in board.plain, board.plain
        await asyncio.sleep(2)
        assert len(tg.outputs(club.group)) == 6  # 3 welcomes, 2 posts, 1 board
        assert [error for error in tg.errors if error[1] == 409] == []
        assert "2026-11-29T08:00:00 claimed" not in first.text()
    finally:
        assert await second.stop() == 0
