"""A Discord bot's shards split over processes (issue 41): ``clubrating run`` started twice on
one PostgreSQL database, ``DISCORD_SHARD_COUNT=4`` with ``DISCORD_SHARD_IDS=0-1`` and ``2-3``,
against the fake Discord, which routes each guild to its shard, refuses IDENTIFYs of one bucket
closer than 5 s (an invalid session), and counts the day's session starts."""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fake_discord import FakeDiscord, Guild

from .clubs import discord_variables
from .process import Bot, clubrating, environment

#: guilds of the test's bot, a quarter on each shard (issue 41's 10,000: ready in about 20 s,
#: bench/shards.py)
GUILDS = 10_000
SHARDS = 4
#: what a process says once each of its shards has its guilds, and once it serves
SHARD_READY = r"Discord shard (\d+) of 4 ready: (\d+) guilds"
SERVING = r"serving discord"


def guild_id(n: int) -> int:
    """The n-th guild's id: snowflakes a millisecond apart, so (id >> 22) % 4 is n % 4."""
    return (1_000_000 + n) << 22


@pytest.fixture
async def dc() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        for n in range(GUILDS):
            fake.guild(guild_id(n), f"club {n}")
        yield fake


def shard_process(dc: FakeDiscord, folder: Path, database: str, ids: str | None) -> Bot:
    """``clubrating run`` for the shards ``ids`` of 4, its data folder and log in ``folder``."""
    folder.mkdir(exist_ok=True)
    shards = {"DISCORD_SHARD_COUNT": str(SHARDS)} | (
        {"DISCORD_SHARD_IDS": ids} if ids is not None else {})
    env = environment(folder, None, **discord_variables(dc), CLUBRATING_DB=database, **shards)
    return Bot(env, folder / "bot.log")


async def beside_fake(bot: Bot, *args: str) -> subprocess.CompletedProcess[str]:
    """``clubrating ARGS`` in ``bot``'s environment, to its end, while the fake Discord (on
    this event loop) answers it."""
    return await asyncio.to_thread(clubrating, bot.env, *args)


def ready_shards(bot: Bot) -> dict[int, int]:
    """Each shard the process made ready, and the guilds it received."""
    return {int(shard): int(count) for shard, count in re.findall(SHARD_READY, bot.text())}


async def test_two_processes_share_four_shards_and_a_third_is_refused(
        dc: FakeDiscord, tmp_path: Path, postgres_db: str) -> None:
    first = shard_process(dc, tmp_path / "a", postgres_db, "0-1")
    second = shard_process(dc, tmp_path / "b", postgres_db, "2-3")
    began = time.monotonic()
    await asyncio.gather(first.start(SERVING), second.start(SERVING))
    took = time.monotonic() - began
    try:
        # both ready in under a minute, each guild received by exactly one process (the
        # quarter of its shard), each shard identified once, no IDENTIFY refused
        assert took < 60, took
        assert ready_shards(first) == {0: GUILDS // 4, 1: GUILDS // 4}, first.text()[-2000:]
        assert ready_shards(second) == {2: GUILDS // 4, 3: GUILDS // 4}, second.text()[-2000:]
        assert sorted(dc.identifies) == [(n, SHARDS) for n in range(SHARDS)]
        assert dc.invalid_sessions == 0
        # the commands were written to Discord once, by whichever process came first
        assert dc.sync_calls == [None]

        # a member's command in a guild of shard 3 is answered, by the second process
        club: Guild = dc.guilds[guild_id(3)]
        alice = dc.member(club, dc.user(2, "alice"))
        await dc.command(club, alice, "register")
        welcome = await dc.output(timeout=20)
        assert welcome.plain.startswith("Welcome, alice!"), welcome.plain

        # a third process whose range overlaps theirs exits 78 before it identifies
        third = await beside_fake(shard_process(dc, tmp_path / "c", postgres_db, "1-2"), "run")
        assert third.returncode == 78, third.stderr
        assert third.stderr.strip().splitlines()[-1] == (
            "clubrating: Discord shards 1, 2 of 4 served already by a running process on "
            "this database: give each process its own DISCORD_SHARD_IDS")
        assert len(dc.identifies) == SHARDS and dc.invalid_sessions == 0
    finally:
        assert await second.stop() == 0
        assert await first.stop() == 0

    # Shards 2 and 3 are free again, but Discord allows only 3 more session starts today: a
    # start of two shards (two starts each, one spare) is refused before it identifies.
    dc.session_starts = 3
    refused = await beside_fake(shard_process(dc, tmp_path / "d", postgres_db, "2-3"), "run")
    assert refused.returncode == 78, refused.stderr
    assert refused.stderr.strip().splitlines()[-1] == (
        "clubrating: Discord allows 3 more session starts of its daily 1000 (back in 4 h 00 "
        "min); starting 2 shards needs 4: start later (a bot past the limit has its token "
        "reset by Discord)")
    assert len(dc.identifies) == SHARDS


async def test_commands_are_synced_when_they_changed_or_on_request(
        dc: FakeDiscord, tmp_path: Path, postgres_db: str) -> None:
    for _ in range(2):  # two starts of one tree: written to Discord once
        bot = await shard_process(dc, tmp_path / "a", postgres_db, None).start(SERVING)
        assert await bot.stop() == 0
    assert dc.sync_calls == [None]
    assert "slash commands unchanged since the last sync (global): not synced" in bot.text()

    synced = await beside_fake(bot, "sync-commands")
    assert synced.returncode == 0, synced.stderr
    assert synced.stdout == f"synced {len(dc.commands[None])} slash commands globally\n"
    assert dc.sync_calls == [None, None]
    assert dc.identifies and all(shards == SHARDS for _, shards in dc.identifies)
    bot = await shard_process(dc, tmp_path / "a", postgres_db, None).start(SERVING)
    assert await bot.stop() == 0
    assert dc.sync_calls == [None, None]
