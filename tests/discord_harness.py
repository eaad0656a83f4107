"""The product's Discord front-end running against the fake Discord, and the steps of a
transcript: a member runs a slash command and reads the answer, clicks a button and reads what
the click changed (or the answer only they see)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import discord.gateway
import discord.http

from bot.adapters.discord import ClubClient, DiscordFrontEnd, point_discord_py_at
from bot.chat.presenter import render
from bot.chat.ratelimit import DEFAULT_RATE, Rate, RateLimiter
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.storage.sqlite import SqliteRepository
from tests.chat import START
from tests.fake_discord import TOKEN, FakeDiscord, Guild, Member, Output

#: discord.py waits this long for the guilds announced at READY (the spike: ~60 ms start-up)
READY_TIMEOUT = 0.05
#: seconds without output after which an answer is taken to be complete
QUIET = 0.2


@dataclass
class Running:
    dc: FakeDiscord
    client: ClubClient
    front: DiscordFrontEnd
    service: ClubService
    clock: FakeClock


@contextlib.contextmanager
def discord_defaults_kept() -> Iterator[None]:
    """Whatever points discord.py elsewhere inside, its REST base and gateway are put back."""
    base = discord.http.Route.BASE
    gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    try:
        yield
    finally:
        discord.http.Route.BASE = base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway


@contextlib.contextmanager
def pointed_at(dc: FakeDiscord) -> Iterator[None]:
    """discord.py's REST base and gateway point at the fake while inside; restored after."""
    with discord_defaults_kept():
        point_discord_py_at(dc.api_base, dc.gateway_url)
        yield


@asynccontextmanager
async def client_running(dc: FakeDiscord, service: ClubService, sync_guild: int | None = None,
                         rate: Rate | None = DEFAULT_RATE) -> AsyncIterator[ClubClient]:
    """The product's client logged in to the fake and ready (its guilds received); ``rate`` is
    the members' rate limit (``CLUBRATING_RATE_LIMIT``'s default unless told)."""
    front = DiscordFrontEnd(service, RateLimiter(service.clock, rate))
    client = front.client(sync_guild, guild_ready_timeout=READY_TIMEOUT)
    dc.identified.clear()
    task = asyncio.create_task(client.start(TOKEN, reconnect=False))
    try:
        await asyncio.wait_for(client.wait_until_ready(), 10)
        yield client
    finally:
        await client.close()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)


@asynccontextmanager
async def running_bot(path: Path, sync_guild: int | None = None, dc: FakeDiscord | None = None,
                      rate: Rate | None = DEFAULT_RATE) -> AsyncIterator[Running]:
    """A fake Discord, and the real bot connected to it on a database at ``path``; ``rate`` is
    the members' rate limit (``CLUBRATING_RATE_LIMIT``'s default unless told)."""
    repository = await SqliteRepository.open(path)
    clock = FakeClock(START)
    service = ClubService(repository, clock)
    async with contextlib.AsyncExitStack() as stack:
        if dc is None:
            dc = await stack.enter_async_context(FakeDiscord())
        stack.enter_context(pointed_at(dc))
        client = await stack.enter_async_context(client_running(dc, service, sync_guild, rate))
        try:
            yield Running(dc, client, client.front, service, clock)
        finally:
            await repository.close()


async def say(bot: Running, guild: Guild, speaker: Member, command: str,
              subcommand: str | None = None, /, **options: Any) -> Output:
    """``speaker`` runs ``/command`` with ``options``; the bot's answer."""
    await bot.dc.command(guild, speaker, command, subcommand, **options)
    return await bot.dc.output()


async def say_all(bot: Running, guild: Guild, speaker: Member, command: str,
                  subcommand: str | None = None, /, **options: Any) -> list[Output]:
    """``speaker`` runs ``/command``; every message of the answer (a long one has several)."""
    await bot.dc.command(guild, speaker, command, subcommand, **options)
    shown = [await bot.dc.output()]
    while True:
        try:
            shown.append(await bot.dc.output(timeout=QUIET))
        except TimeoutError:
            return shown


async def press(bot: Running, guild: Guild, member: Member, message: Output | int,
                custom_id: str) -> Output:
    """``member`` clicks a button; what the bot answered: an edit of the message ("update")
    or an answer only the member sees ("reply", ephemeral)."""
    await bot.dc.click(guild, member, message, custom_id)
    return await bot.dc.output()


async def club_state(bot: Running, guild: Guild) -> tuple[str, str]:
    """The club's whole log and its leaderboard, as a moderator sees them: equal before and
    after a refusal means nothing changed."""
    moderator = Caller("discord", str(guild.id), "0", "snapshot", moderator=True)
    return (render(await bot.service.audit(moderator, 100)),
            render(await bot.service.leaderboard(moderator)))
