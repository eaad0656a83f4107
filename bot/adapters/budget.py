"""One rate budget per bot token, shared by the processes serving it (issue 41).

Each process serving a token holds one of :data:`SLOTS` advisory locks of the token's namespace
(through the database, :class:`~bot.storage.budget_slots.BudgetSlots`) and counts every
:data:`REFRESH_SECONDS` how many are held: with N processes, each keeps to 1/N of every limit
of the platform. A process that dies lets go of its slot with its connection, and the others'
shares grow back at their next count. No request waits for the database: the count is read
beside them.

Within a process, each limit is a sliding :class:`Window` (never more than its count of sends
in any span of its period, which is what Telegram and Discord count; a leaky bucket such as
aiolimiter's lets a full bucket's burst and the next period's drip through within one period).
Answers to members go before scheduled posts: a send made while
:data:`~bot.scheduling.publishing.SCHEDULED_POST` is True waits while answers wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Hashable
from dataclasses import dataclass

from bot.scheduling.publishing import SCHEDULED_POST
from bot.storage.budget_slots import BudgetSlots
from bot.storage.locks import lock_key

log = logging.getLogger(__name__)

#: Telegram: 30 messages a second in all and 20 a minute in one group (Bot API FAQ "My bot is
#: hitting limits, how do I avoid this?"; python-telegram-bot's ``AIORateLimiter`` defaults,
#: ``telegram.constants.FloodLimit``)
TELEGRAM_PER_SECOND = 30
TELEGRAM_PER_GROUP_MINUTE = 20
#: Discord: 50 requests a second per bot token, interaction responses exempt (developer
#: documentation, "Rate Limits", Global Rate Limit)
DISCORD_PER_SECOND = 50
#: seconds added to every window: a send is counted when its turn comes, the platform counts it
#: when it arrives, and on a busy machine those delays differ from one send to the next
ARRIVAL_SPREAD = 0.25
#: advisory locks one token's processes take their slot among (a process beyond them, none
#: left, still counts itself)
SLOTS = 64
#: seconds between two counts of the processes sharing the budget
REFRESH_SECONDS = 2.0
#: windows of chats (Telegram's groups) kept at most: beyond, idle ones are forgotten
KEPT_WINDOWS = 512


def budget_namespace(platform: str, bot_id: int) -> int:
    """The namespace of one bot's budget slots (the high half of their advisory lock keys,
    :func:`~bot.storage.budget_slots.budget_slot_key`): from the platform and the bot's public
    id (never its token), a positive 31-bit integer."""
    return lock_key(f"clubrating rate budget {platform} {bot_id}") & 0x7FFF_FFFF


@dataclass(frozen=True, slots=True)
class Share:
    """``count`` sends in any ``period`` seconds."""

    count: int
    period: float

    @classmethod
    def of(cls, count: int, period: float, processes: int) -> Share:
        """1/``processes`` of ``count`` a ``period``, rounded down so that the shares never add
        up to more; below one a period, one in a longer period."""
        if count >= processes:
            return cls(count // processes, period)
        return cls(1, period * processes / count)


class Window:
    """A sliding window of sends: at most ``share.count`` in any ``share.period`` seconds (and
    :data:`ARRIVAL_SPREAD`). :meth:`turn` waits for room, answers before scheduled posts, each
    kind in the order it came; the send is counted when the turn's block ends."""

    def __init__(self, share: Share) -> None:
        self.share = share
        self._sent: deque[float] = deque()
        #: tickets waiting: answers', then scheduled posts'
        self._waiting: tuple[deque[object], deque[object]] = (deque(), deque())
        self._changed = asyncio.Event()

    def resize(self, share: Share) -> None:
        self.share = share
        self._wake()

    def idle(self, now: float) -> bool:
        self._forget(now)
        return not self._sent and not any(self._waiting)

    @contextlib.asynccontextmanager
    async def turn(self, post: bool) -> AsyncIterator[None]:
        """Wait for this send's turn; ``post``: a scheduled post, after every waiting answer."""
        ticket = object()
        queue = self._waiting[post]
        queue.append(ticket)
        try:
            while True:
                wait = self._wait(ticket)
                if wait == 0:
                    break
                changed = self._changed
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), wait)
            yield
            # counted when the block ends: after the turns of the other windows it nests
            self._sent.append(_now())
        finally:
            queue.remove(ticket)
            self._wake()

    def _wait(self, ticket: object) -> float | None:
        """Seconds until ``ticket`` may go (0: now), None while another goes first."""
        answers, posts = self._waiting
        if (answers[0] if answers else posts[0]) is not ticket:
            return None
        now = _now()
        self._forget(now)
        if len(self._sent) < self.share.count:
            return 0
        return max(self._sent[-self.share.count] + self.share.period + ARRIVAL_SPREAD - now,
                   1e-3)

    def _forget(self, now: float) -> None:
        while self._sent and self._sent[0] <= now - self.share.period - ARRIVAL_SPREAD:
            self._sent.popleft()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()


def _now() -> float:
    return asyncio.get_running_loop().time()


class Limit:
    """One limit of a platform (``count`` a ``period``), and the windows that keep this process
    to its share of it: one, or one per key (a Telegram group)."""

    def __init__(self, count: int, period: float, described: str) -> None:
        self.count, self.period = count, period
        #: how the log names a process's share ("{share} requests a second each")
        self.described = described
        self.share = Share(count, period)
        self._windows: dict[Hashable, Window] = {}

    def window(self, key: Hashable = None) -> Window:
        found = self._windows.get(key)
        if found is None:
            if len(self._windows) >= KEPT_WINDOWS:
                now = _now()
                for idle in [k for k, w in self._windows.items() if w.idle(now)]:
                    del self._windows[idle]
            found = self._windows[key] = Window(self.share)
        return found

    def described_share(self) -> str:
        """How the log names this process's share: "15 requests a second each"."""
        # below one a period: a fraction ("0.5 a minute in each group")
        return self.described.format(
            share=f"{self.share.count * self.period / self.share.period:.3g}")

    def divide(self, processes: int) -> None:
        self.share = Share.of(self.count, self.period, processes)
        for each in self._windows.values():
            each.resize(self.share)


class RateBudget:
    """A token's limits, divided between the processes serving it: ``name`` for the log
    (``telegram:<bot id>``); ``slots`` None (or never :meth:`start`-ed): one process."""

    def __init__(self, name: str, limits: list[Limit], slots: BudgetSlots | None = None,
                 refresh: float = REFRESH_SECONDS) -> None:
        self.name, self.limits, self._slots, self._refresh = name, limits, slots, refresh
        self.processes = 1
        self._namespace = 0
        self._counting: asyncio.Task[None] | None = None

    async def start(self, platform: str, bot_id: int) -> None:
        """Take a slot among the token's processes, divide the limits by their count, and
        count them again every ``refresh`` seconds until :meth:`stop`."""
        self.name = f"{platform}:{bot_id}"
        if self._slots is None:
            self._apply(1)
            return
        self._namespace = budget_namespace(platform, bot_id)
        await self._slots.hold_budget_slot(self._namespace, SLOTS)
        self._apply(await self._slots.budget_processes(self._namespace))
        self._counting = asyncio.create_task(self._count_forever())

    async def stop(self) -> None:
        if self._counting is not None:
            self._counting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._counting
            self._counting = None

    @contextlib.asynccontextmanager
    async def turns(self, *windows: Window) -> AsyncIterator[None]:
        """Wait for a send's turn in each of ``windows`` (the narrowest first), as an answer or,
        while :data:`SCHEDULED_POST` is set, as a scheduled post."""
        post = SCHEDULED_POST.get()
        async with contextlib.AsyncExitStack() as stack:
            for window in windows:
                await stack.enter_async_context(window.turn(post))
            yield

    async def _count_forever(self) -> None:
        assert self._slots is not None
        while True:
            await asyncio.sleep(self._refresh)
            try:
                # a slot lost with its connection (the server restarted) is taken again
                await self._slots.hold_budget_slot(self._namespace, SLOTS)
                self._apply(await self._slots.budget_processes(self._namespace))
            except Exception as error:  # the database out of reach: keep the last share
                log.warning("rate budget of %s: cannot count its processes (%s)", self.name,
                            error)

    def _apply(self, processes: int) -> None:
        processes = max(1, processes)
        changed = processes != self.processes or self._counting is None
        self.processes = processes
        for limit in self.limits:
            limit.divide(processes)
        if changed:
            log.info("rate budget of %s: %d %s, %s", self.name, processes,
                     "process" if processes == 1 else "processes",
                     ", ".join(limit.described_share() for limit in self.limits))

