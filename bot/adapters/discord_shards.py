"""Discord shards across processes (issue 41): before a process connects to the gateway it
takes its shards (an advisory lock each, through the database, so two processes never serve one
shard) and checks that Discord still allows enough session starts today; then each IDENTIFY
waits for its bucket's turn, which every process books in the database (Discord allows one
IDENTIFY per 5 seconds per bucket, the shard id modulo ``max_concurrency``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import NoReturn

import discord

from bot.errors import ConfigError
from bot.storage.discord_gateway import DiscordGateway

log = logging.getLogger(__name__)

#: seconds between the turns of two IDENTIFYs of one bucket: Discord's 5 ("Sharding",
#: max_concurrency), and half a second more, since an IDENTIFY reaches Discord a little after
#: its turn, and one late by more than the next is early would be refused
IDENTIFY_SPACING = 5.5
#: session starts a process needs per shard it starts: one now, one spare for a reconnect
#: (Discord resets the token of a bot that exceeds its daily session starts)
STARTS_PER_SHARD = 2


def _named(shard_ids: Sequence[int]) -> str:
    return ("shard " if len(shard_ids) == 1 else "shards ") + ", ".join(map(str, shard_ids))


class ShardPlan:
    """The shards one process serves, taken before it connects (:meth:`claim`), and the turns
    of their IDENTIFYs (:meth:`identify_turn`): ``ids`` of ``count`` (``DISCORD_SHARD_COUNT``,
    ``DISCORD_SHARD_IDS``); ``count`` None: every shard, as many as Discord recommends."""

    def __init__(self, gateway: DiscordGateway, count: int | None = None,
                 ids: Sequence[int] = ()) -> None:
        self.gateway = gateway
        self.count = count
        self.ids = tuple(ids) if count is None or ids else tuple(range(count))
        #: set by :meth:`claim`
        self.application_id = 0
        self.max_concurrency = 1

    async def claim(self, client: discord.AutoShardedClient) -> None:
        """After login, before the gateway: Discord's recommended count when none is set, the
        shards locked, and enough session starts left. Raises :class:`ConfigError` (exit 78:
        starting again would not help) naming the shards another process serves, or saying how
        many starts remain and when they come back."""
        recommended, _, limits = await client.http.get_bot_gateway()
        count = self.count if self.count is not None else recommended
        ids = self.ids if self.count is not None else tuple(range(count))
        client.shard_count = count
        client.shard_ids = list(ids)
        self.application_id = client.application_id or 0
        self.max_concurrency = max(1, int(limits.get("max_concurrency", 1)))
        taken = await self.gateway.hold_shards(self.application_id, ids)
        if taken:
            _refuse(ConfigError(
                f"Discord {_named(taken)} of {count} served already by a running process on "
                "this database: give each process its own DISCORD_SHARD_IDS"))
        remaining, needed = int(limits["remaining"]), STARTS_PER_SHARD * len(ids)
        if remaining < needed:
            reset = timedelta(milliseconds=int(limits["reset_after"]))
            _refuse(ConfigError(
                f"Discord allows {remaining} more session starts of its daily "
                f"{limits['total']} (back in {_duration(reset)}); starting {len(ids)} shards "
                f"needs {needed}: start later (a bot past the limit has its token reset by "
                "Discord)"))
        log.info("Discord %s of %d are this process's (%d session starts left, "
                 "max_concurrency %d)", _named(ids), count, remaining, self.max_concurrency)

    async def identify_turn(self, shard_id: int | None) -> None:
        """Wait for the turn of ``shard_id``'s bucket, booked in the database."""
        bucket = (shard_id or 0) % self.max_concurrency
        wait = await self.gateway.identify_turn(self.application_id, bucket, IDENTIFY_SPACING)
        if wait > 0:
            log.info("shard %s identifies in %.1f s (bucket %d)", shard_id, wait, bucket)
            await asyncio.sleep(wait)


def _refuse(error: ConfigError) -> NoReturn:
    """The reason in the log too (the operator reads the journal), then the refusal."""
    log.error("%s", error)
    raise error


def _duration(span: timedelta) -> str:
    minutes = round(span.total_seconds() / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"
