"""Weekly posts through the outbox (issue 41), as ``clubrating run`` makes them with its clock
moved by libfaketime: three Telegram groups' posts of Monday 09:00 spread over
``CLUBRATING_POST_WINDOW=120s`` by club, one of them answered 429 and made once 2 s later; a
Discord post whose process was SIGKILLed while Discord held back its answer, sent again with
the same nonce after a restart and made once; and two processes on one PostgreSQL database
splitting a run of posts, none made twice."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from datetime import datetime
from pathlib import Path

from bot.adapters.telegram import RETRIES
from tests.fake_discord import FakeDiscord
from tests.fake_telegram import TOKEN, FakeTelegram

from .clubs import DiscordClub, discord_variables, telegram_bot
from .process import Bot, FakeClock, environment

#: every club's default schedule posts on Mondays at 09:00 UTC; the bots start before it
MONDAY = datetime(2026, 11, 23, 9, 0)
BEFORE = datetime(2026, 11, 23, 8, 59, 50)
#: Telegram groups (clubs 1, 2, 3 in the order they are first heard from)
GROUPS = (-1003, -1001, -1002)


def outbox(database: Path) -> list[tuple[int, str, str, int]]:
    """Each outbox row's club, due time, state and sends, by due time."""
    with sqlite3.connect(database) as db:
        return [(int(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in db.execute(
            "SELECT club_id, due_at, state, attempts FROM post_outbox ORDER BY due_at")]


async def test_telegram_posts_spread_over_the_window_and_a_429_moves_one(
        tmp_path: Path) -> None:
    async with FakeTelegram(token=TOKEN) as tg:
        ada = tg.user(1, "Ada", "ada")
        groups = [tg.group(chat, f"club {n}", admins=[ada], creator=ada)
                  for n, chat in enumerate(GROUPS)]
        clock = FakeClock(tmp_path, datetime(2026, 11, 20, 18, 0))
        bot = await telegram_bot(tg, tmp_path, clock, CLUBRATING_POST_WINDOW="120s").start()
        for group in groups:
            await tg.send(group, ada, "/register")
            assert (await tg.reply(group, 10)).plain.startswith("Welcome, ada")
        assert await bot.stop() == 0

        clock.set(BEFORE)
        bot = await telegram_bot(tg, tmp_path, clock, CLUBRATING_POST_WINDOW="120s").start()
        try:
            # club 1 at 09:00, club 2 at 09:00:40, club 3 at 09:01:20: a third of 120 s each
            for group, due in zip(GROUPS, ("09:00:00", "09:00:40", "09:01:20"), strict=True):
                await bot.wait_log(rf"post of telegram:{group} main scheduled for "
                                   rf"2026-11-23T09:00:00 claimed, due at 2026-11-23T{due}")
            first = await tg.reply(groups[0], 60)
            assert first.kind == "photo" and "ada" in first.plain
            await asyncio.sleep(3)  # 09:00:0x by the bot's clock: nothing more due yet
            assert [len(tg.outputs(g)) for g in groups] == [2, 1, 1]

            # Club 2's time: Telegram answers 429 past the rate limiter's own retries, and
            # the post waits the 2 s it was told, in the outbox, then goes out once.
            tg.flood("sendPhoto", retry_after=2, times=RETRIES + 1)
            clock.set(datetime(2026, 11, 23, 9, 0, 40))
            await bot.wait_log(r"post of telegram:-1001 main scheduled for 2026-11-23T09:00:00 "
                               r"delayed by the platform \(retry after 2 s\): due again at "
                               r"2026-11-23T09:00:4\d")
            second = await tg.reply(groups[1], 60)
            assert second.kind == "photo"
            assert len(tg.outputs(groups[2])) == 1  # club 3 still waits for its time

            clock.set(datetime(2026, 11, 23, 9, 1, 20))
            third = await tg.reply(groups[2], 60)
            assert third.kind == "photo"
            await asyncio.sleep(3)
            assert [len(tg.outputs(g)) for g in groups] == [2, 2, 2]  # each post once
            assert [e[1] for e in tg.errors] == [429] * (RETRIES + 1)
        finally:
            assert await bot.stop() == 0
        states = outbox(tmp_path / "club.db")
        assert [(club, state, sends) for club, _, state, sends in states] == [
            (1, "sent", 1), (2, "sent", 2), (3, "sent", 1)]
        assert states[0][1] == "2026-11-23T09:00:00.000000"
        # club 2's post moved from 09:00:40 by the 2 s it was told to wait
        assert re.fullmatch(r"2026-11-23T09:00:4[2-9]\.\d{6}", states[1][1]), states[1][1]
        assert states[2][1] == "2026-11-23T09:01:20.000000"


async def test_a_discord_post_cut_off_by_a_kill_is_sent_again_and_made_once(
        discord: DiscordClub) -> None:
    bot = await discord.bot().start()
    await discord.register(discord.alice, discord.bob)
    assert await bot.stop() == 0

    # Discord makes the post but its answer never reaches the bot, which is killed meanwhile:
    # the row stays "sending", the bot never learned the post was made.
    discord.dc.hold_posts = True
    discord.clock.set(BEFORE)
    bot = await discord.bot().start()
    [post] = await discord.next_posts(1)
    assert await bot.kill() == -9
    assert outbox(discord.folder / "club.db") == [(1, "2026-11-23T09:00:00.000000", "sending", 1)]

    # Restarted once the dead process's lease (120 s) ran out: the post is sent again with
    # the same nonce, and Discord answers with the message it made.
    discord.dc.hold_posts = False
    discord.clock.set(datetime(2026, 11, 23, 9, 3))
    bot = await discord.bot().start()
    try:
        await bot.wait_log(r"post of discord:\d+ main scheduled for 2026-11-23T09:00:00 was "
                           r"being sent when its process stopped: sent again with the same "
                           r"nonce")
        await bot.wait_log(r"post of discord:\d+ main scheduled for 2026-11-23T09:00:00 sent")
        await asyncio.sleep(2)
    finally:
        assert await bot.stop() == 0
    channel = f"/channels/{discord.guild.channel.id}/messages"
    assert [path for method, path in discord.dc.requests if method == "POST"
            and path == channel] == [channel, channel]  # sent twice...
    assert discord.posts() == [post]  # ...made once
    assert post.message["nonce"] == "clubrating-1.0"
    assert outbox(discord.folder / "club.db") == [(1, "2026-11-23T09:00:00.000000", "sent", 2)]


#: guilds of the two processes' bot, half on each shard
GUILDS = 30


def guild_id(n: int) -> int:
    """The n-th guild's id: (id >> 22) % 2 is n % 2, so shards 0 and 1 take turns."""
    return (1_000_000 + n) << 22


async def test_two_processes_on_postgresql_split_a_run_of_posts_none_twice(
        tmp_path: Path, postgres_db: str) -> None:
    """Two processes serving a Discord bot's two shards on one database: the one holding the
    scheduler role enqueues the 30 posts of Monday 09:00, and each process's sender, the other
    one's too, sends those of its own guilds (the only ones its gateway reaches), each once."""
    async with FakeDiscord() as dc:
        guilds = [dc.guild(guild_id(n), f"club {n}") for n in range(GUILDS)]
        clock = FakeClock(tmp_path, datetime(2026, 11, 20, 18, 0))
        bots = []
        for shard in (0, 1):
            folder = tmp_path / f"shard{shard}"
            folder.mkdir()
            env = environment(folder, clock, **discord_variables(dc), CLUBRATING_DB=postgres_db,
                              DISCORD_SHARD_COUNT="2", DISCORD_SHARD_IDS=str(shard),
                              CLUBRATING_POST_WINDOW="0")
            bots.append(Bot(env, folder / "bot.log"))
        await asyncio.gather(*(bot.start(r"serving discord") for bot in bots))
        try:
            for n, guild in enumerate(guilds):
                member = dc.member(guild, dc.user(2_000 + n, f"player{n}"))
                await dc.command(guild, member, "register")
                assert (await dc.output(20)).plain.startswith("Welcome")
            clock.set(BEFORE)
            posts = [await dc.output(60) for _ in range(GUILDS)]
            await asyncio.sleep(5)
            assert dc.pending_outputs() == 0
        finally:
            for bot in bots:
                assert await bot.stop() == 0
        assert all(post.kind == "post" for post in posts)
        assert sorted(int(p.message["channel_id"]) for p in posts) == sorted(
            g.channel.id for g in guilds)  # every guild's post, once
        for shard, bot in enumerate(bots):
            sent = re.findall(r"post of discord:(\d+) main scheduled for 2026-11-23T09:00:00 sent",
                              bot.text())
            assert sorted(int(guild) for guild in sent) == [
                guild_id(n) for n in range(shard, GUILDS, 2)], bot.text()[-3000:]
            assert "refused" not in bot.text()
