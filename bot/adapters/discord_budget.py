"""Discord's 50 requests a second per bot token, shared by the token's processes (issue 41,
:mod:`bot.adapters.budget`), answers before scheduled posts.

The hook is discord.py's own ``http_trace`` (an ``aiohttp.TraceConfig`` on its HTTP session):
aiohttp awaits ``on_request_start`` before it sends each request, discord.py's retries after a
429 included, so every REST request waits for its turn there. Only requests authorised by the
bot's token count (Discord's global limit is the token's): interaction responses and their
follow-ups (``/interactions/...``, ``/webhooks/<application id>/<interaction token>...``) carry
no token and are exempt, as Discord exempts them, and so is the gateway's connection.
"""

from __future__ import annotations

import types

import aiohttp
import discord
import yarl

from bot.adapters.budget import DISCORD_PER_SECOND, Limit, RateBudget
from bot.scheduling.publishing import leaving
from bot.storage.budget_slots import BudgetSlots

#: the first segment of the paths Discord exempts from the global limit whatever their headers
EXEMPT = frozenset({"interactions", "webhooks"})


class DiscordRequestBudget:
    """The token's requests a second, this process's share; :attr:`budget` is started once
    the application's id is known (``slots`` None: one process, the whole budget)."""

    def __init__(self, slots: BudgetSlots | None = None) -> None:
        self.overall = Limit(DISCORD_PER_SECOND, 1, "{share} requests a second each")
        self.budget = RateBudget("discord", [self.overall], slots)

    def trace(self) -> aiohttp.TraceConfig:
        """For discord.py's ``Client(http_trace=...)``."""
        config = aiohttp.TraceConfig()
        config.on_request_start.append(self._on_request_start)
        return config

    async def _on_request_start(self, session: aiohttp.ClientSession,
                                context: types.SimpleNamespace,
                                params: aiohttp.TraceRequestStartParams) -> None:
        if counted(params.url.path, params.headers.get("Authorization")):
            async with self.budget.turns(self.overall.window()):
                pass
        await leaving()


def counted(path: str, authorization: str | None) -> bool:
    """Whether a request to ``path`` counts in the token's global limit."""
    if authorization is None or not authorization.startswith("Bot "):
        return False
    # the REST API's base is read at each request: DISCORD_API_BASE may move it
    base = yarl.URL(discord.http.Route.BASE).path.rstrip("/")
    route = path[len(base):] if path.startswith(base + "/") else path
    return route.split("/")[1] not in EXEMPT
