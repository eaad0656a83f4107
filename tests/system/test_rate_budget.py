"""One rate budget per token, shared by its processes (issue 41), seen from outside:
``clubrating run`` against the fakes with their flood control on (Telegram answers 429 past 30
sends a second or 20 a minute in one group, Discord past 50 REST requests a second), and two
processes on one PostgreSQL database each keeping to half of Discord's budget until one is
killed, when the other takes the whole of it again."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

from tests.fake_discord import MANAGE_GUILD, FakeDiscord
from tests.fake_telegram import TOKEN, FakeTelegram

from .clubs import telegram_bot
from .process import Bot, start_together
from .test_discord_shards import SERVING, guild_id, shard_process

#: what each of two Discord processes logs once it shares the token's budget with the other
SHARED = r"rate budget of discord:\d+: 2 processes, 25 requests a second each"
#: groups of one burst of commands, one command each
GROUPS = 60
#: commands sent at once in one more group: five more than its 20 answers a minute
BUSY = 25


async def logged(bot: Bot, pattern: str, timeout: float = 20.0) -> None:
    """Wait until ``bot``'s whole log (what it said while starting too) matches ``pattern``."""
    for _ in range(int(timeout * 10)):
        if re.search(pattern, bot.text()):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"no {pattern!r} in the log:\n{bot.text()[-3000:]}")


async def sharing_processes(dc: FakeDiscord, folder: Path, database: str) -> tuple[Bot, Bot]:
    """Two processes of the Discord bot on ``database`` (shards 0-1 and 2-3), started, once
    each said that it shares the budget with the other."""
    first = shard_process(dc, folder / "a", database, "0-1")
    second = shard_process(dc, folder / "b", database, "2-3")
    await start_together([first, second], SERVING)
    try:
        await logged(first, SHARED)
        await logged(second, SHARED)
    except BaseException:
        await asyncio.gather(first.stop(), second.stop())
        raise
    return first, second


def answers(tg: FakeTelegram, chat_id: int) -> int:
    return sum(1 for output in tg.outputs(chat_id) if output.kind == "send")


async def test_a_burst_of_answers_keeps_within_telegrams_flood_limits(tmp_path: Path) -> None:
    async with FakeTelegram(token=TOKEN) as tg:
        tg.flood_control.on = True
        bot = await telegram_bot(tg, tmp_path, None, CLUBRATING_RATE_LIMIT="off").start()
        try:
            ada = tg.user(10, "Ada", "ada")
            members = [tg.user(20 + n, f"M{n}", f"member{n}") for n in range(5)]
            groups = [tg.group(-5000 - n, f"club {n}", admins=[ada], creator=ada)
                      for n in range(GROUPS)]
            busy = tg.group(-4000, "busy club", admins=[ada], creator=ada)
            began = time.monotonic()
            for group in groups:
                await tg.send(group, ada, "/top")
            for n in range(BUSY):
                await tg.send(busy, members[n % 5], "/top")
            # every group answered, the busy one's last five a minute after its first twenty
            for _ in range(1200):
                if (all(answers(tg, g.id) == 1 for g in groups)
                        and answers(tg, busy.id) == BUSY):
                    break
                await asyncio.sleep(0.1)
            took = time.monotonic() - began
            assert [answers(tg, g.id) for g in groups] == [1] * GROUPS, (
                [c[0] for c in tg.calls][-20:], tg.errors[-5:], bot.text()[-3000:])
            assert answers(tg, busy.id) == BUSY
        finally:
            assert await bot.stop() == 0
        sends = tg.flood_control
        assert len(sends.sends) == GROUPS + BUSY
        # never refused (no 429), never past 30 in any second nor 20 in a minute in a group
        assert [e for e in tg.errors if e[1] == 429] == []
        busiest = sends.most(1.0)
        assert 20 <= busiest <= 30, busiest
        assert sends.most(60.0, busy.id) == 20
        assert max(sends.most(60.0, g.id) for g in groups) == 1
        assert 60 < took < 90, took
        assert "rate budget of telegram:123456: 1 process, 30 requests a second each, " \
            "20 a minute in each group" in bot.text()


async def test_two_discord_processes_share_the_tokens_budget_until_one_dies(
        tmp_path: Path, postgres_db: str) -> None:
    async with FakeDiscord() as dc:
        for n in range(4):
            dc.guild(guild_id(n), f"club {n}")
        dc.flood_control.on = True
        first, second = await sharing_processes(dc, tmp_path, postgres_db)
        try:
            assert await second.kill() != 0
            began = time.monotonic()
            whole = r"rate budget of discord:\d+: 1 process, 50 requests a second each"
            await logged(first, SHARED + r"(.|\n)*" + whole)
            assert time.monotonic() - began < 10
        finally:
            assert await first.stop() == 0
        assert [e for e in dc.errors if e[0] == 429] == []
        assert dc.flood_control.most(1.0) <= 50


#: guilds whose live leaderboard is started at once, split over two processes' shards
BOARDS = 120


async def test_two_discord_processes_posting_at_once_keep_within_50_a_second(
        tmp_path: Path, postgres_db: str) -> None:
    # Each server's moderator starts its live leaderboard at once: the answers (interaction
    # responses, exempt) and the boards posted into the channels (REST requests with the
    # bot's token, counted) come from both processes.
    async with FakeDiscord() as dc:
        guilds = [dc.guild(guild_id(n), f"club {n}") for n in range(BOARDS)]
        managers = []
        for n, guild in enumerate(guilds):
            role = dc.role(guild, 800000000000000000 + n, "Managers", MANAGE_GUILD)
            managers.append(dc.member(guild, dc.user(600000000000000000 + n, f"m{n}"), role))
        dc.flood_control.on = True
        first, second = await sharing_processes(dc, tmp_path, postgres_db)
        try:
            dc.flood_control.sends.clear()
            for guild, manager in zip(guilds, managers, strict=True):
                await dc.command(guild, manager, "board", arguments="here")
            said = [await dc.output(60.0) for _ in range(2 * BOARDS)]
            assert sorted(o.kind for o in said) == ["post"] * BOARDS + ["reply"] * BOARDS
        finally:
            assert await second.stop() == 0
            assert await first.stop() == 0
        assert [e for e in dc.errors if e[0] == 429] == []
        posted = dc.flood_control
        # both processes' shares at once (25 each), never more than 50 in any second
        assert len(posted.sends) == BOARDS
        assert 25 < posted.most(1.0) <= 50, posted.most(1.0)
