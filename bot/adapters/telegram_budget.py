"""python-telegram-bot's rate limiter over the token's shared budget (issue 41,
:mod:`bot.adapters.budget`): 30 sends a second in all and 20 a minute in one group, each divided
by the processes serving the token, answers before scheduled posts.

Like python-telegram-bot's ``AIORateLimiter``, which it replaces (a call carrying a ``chat_id``
counts in all, one into a group or channel in that chat's minute too; a 429 answer halts every
call for its ``retry_after`` and the call is tried again up to ``max_retries`` times), except
that a call which only reads (``get...``: a chat's administrators, a member's rights) is counted
in neither: Telegram's flood limits count messages sent, and a busy group must not make the bot
wait to learn who its moderators are.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot.adapters.budget import (
    TELEGRAM_PER_GROUP_MINUTE,
    TELEGRAM_PER_SECOND,
    Limit,
    RateBudget,
    Window,
)
from bot.scheduling.publishing import leaving
from bot.storage.budget_slots import BudgetSlots

log = logging.getLogger(__name__)

#: seconds waited beyond a 429's ``retry_after`` (python-telegram-bot's own margin)
RETRY_MARGIN = 0.1


class SharedFloodLimits(BaseRateLimiter[int]):
    """The rate limiter of the bot's ``Application``; :attr:`budget` is started once the bot's
    id is known (``slots`` None: one process, the whole budget)."""

    def __init__(self, slots: BudgetSlots | None = None, max_retries: int = 0) -> None:
        self.overall = Limit(TELEGRAM_PER_SECOND, 1, "{share} requests a second each")
        self.groups = Limit(TELEGRAM_PER_GROUP_MINUTE, 60, "{share} a minute in each group")
        self.budget = RateBudget("telegram", [self.overall, self.groups], slots)
        self._max_retries = max_retries
        #: cleared while a 429's wait runs: no call goes meanwhile
        self._not_halted = asyncio.Event()
        self._not_halted.set()

    async def initialize(self) -> None:
        """Nothing to set up: the budget starts when the bot's id is known."""

    async def shutdown(self) -> None:
        await self.budget.stop()

    def windows(self, endpoint: str, data: dict[str, Any]) -> list[Window]:
        """The windows a call counts in: its group's (narrowest first), then the overall one."""
        chat_id = data.get("chat_id")
        if chat_id is None or endpoint.lower().startswith("get"):
            return []
        with contextlib.suppress(ValueError, TypeError):
            chat_id = int(chat_id)
        # a negative id, or an @username, is a group or a channel (python-telegram-bot's rule)
        group = isinstance(chat_id, str) or (isinstance(chat_id, int) and chat_id < 0)
        overall = self.overall.window()
        return [self.groups.window(chat_id), overall] if group else [overall]

    async def process_request(self, callback: Callable[..., Coroutine[Any, Any, Any]],
                              args: Any, kwargs: dict[str, Any], endpoint: str,
                              data: dict[str, Any], rate_limit_args: int | None) -> Any:
        max_retries = rate_limit_args or self._max_retries
        windows = self.windows(endpoint, data)
        for attempt in range(max_retries + 1):
            await self._not_halted.wait()
            async with self.budget.turns(*windows):
                pass
            await leaving()
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as refused:
                if attempt == max_retries:
                    log.warning("Telegram's flood control refused %s %d times", endpoint,
                                attempt + 1)
                    raise
                wait = _seconds(refused) + RETRY_MARGIN
                log.info("Telegram's flood control: %s waits %.1f s", endpoint, wait)
                self._not_halted.clear()
                try:
                    await asyncio.sleep(wait)
                finally:
                    self._not_halted.set()
        raise AssertionError("unreachable")  # the last attempt returned or raised


def _seconds(refused: RetryAfter) -> float:
    after = refused.retry_after
    return float(after) if isinstance(after, int) else after.total_seconds()
