"""Heavy work off the event loop, with a time cap.

A rating chart of a long history, the leaderboard as it stood a week ago, ``/evaluate`` and the
check of an imported history are pure computations on a snapshot of a ladder: they run in a
small pool of worker threads, never on the event loop, so every other chat keeps being answered
while they work. Each has a time cap (:data:`CHART_SECONDS`, ...): the caller gets a short
refusal when it is reached, and the work itself stops at its next check of the
:class:`Deadline` (they check after every replayed step or segment), so an abandoned job does
not go on using the processor.

The pool is small on purpose: pure-Python work holds the GIL between the interpreter's switches
(every 5 ms), and every busy worker is one more thread the event loop takes turns with. Work
waiting for a free worker counts against its cap, so every request is answered within it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from .errors import Refusal

#: /chart (the member's history and the drawing together)
CHART_SECONDS = 30.0
#: /card (the standings a week ago and the drawing together)
CARD_SECONDS = 30.0
#: /evaluate (20,000 games take about 11 s; longer histories are for ``clubrating evaluate``)
EVALUATE_SECONDS = 30.0
#: checking a history to import (``clubrating import``; 100,000 games take a few seconds)
IMPORT_SECONDS = 120.0
#: /system and its Apply (the whole log folded again and the ladder re-rated: 100,000 games
#: take about 1.2 s)
SWITCH_SECONDS = 120.0
#: heavy jobs running at once; more wait for a free worker
WORKERS = 2

T = TypeVar("T")

_pool: ThreadPoolExecutor | None = None


class TimeUp(Exception):
    """Raised inside the work when its deadline has passed (or its requester gave up)."""


class Deadline:
    """A time cap counted from now; ``key`` names the refusal given when it is reached (its
    message has a ``{seconds}`` field; ``params`` fill the others)."""

    def __init__(self, seconds: float, key: str, **params: str | int | float | None) -> None:
        self.seconds = seconds
        self.key = key
        self.params = params
        self._end = time.monotonic() + seconds
        self._abandoned = False

    def remaining(self) -> float:
        return self._end - time.monotonic()

    def check(self) -> None:
        """Raise :class:`TimeUp` if the cap is reached or the work was abandoned: called by
        the work between its steps."""
        if self._abandoned or time.monotonic() > self._end:
            raise TimeUp(self.key)

    def abandon(self) -> None:
        self._abandoned = True

    def refusal(self) -> Refusal:
        return Refusal(self.key, seconds=f"{self.seconds:g}", **self.params)


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="heavy")
    return _pool


async def within(work: Awaitable[T], deadline: Deadline) -> T:
    """``work``'s result, or the deadline's refusal when the cap is reached first (for work
    that runs elsewhere and cannot be told to stop, e.g. drawing a picture)."""
    try:
        return await asyncio.wait_for(work, max(deadline.remaining(), 0.0))
    except TimeoutError:
        deadline.abandon()
        raise deadline.refusal() from None


def _started(work: Callable[[Deadline], T], deadline: Deadline) -> T:
    deadline.check()  # it may have waited for a worker until too late
    return work(deadline)


async def run(work: Callable[[Deadline], T], deadline: Deadline) -> T:
    """``work(deadline)`` in a worker thread; its result, or the deadline's refusal when the
    cap is reached first (the work is told to stop, and stops at its next check)."""
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(_executor(), _started, work, deadline)
    try:
        return await asyncio.wait_for(future, max(deadline.remaining(), 0.0))
    except (TimeoutError, TimeUp):
        deadline.abandon()
        raise deadline.refusal() from None
    except BaseException:
        deadline.abandon()  # cancelled (e.g. shutting down): the worker stops too
        raise
