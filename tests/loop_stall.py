"""How long the event loop stalls while some work runs: the tests and bench/charts.py ask it
of picture drawing, which must never hold the loop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable


async def longest_stall(work: Awaitable[object], tick: float = 0.005) -> float:
    """The longest time the event loop went without running a 5 ms ticker while ``work``
    ran (what a blocked loop would stretch)."""
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    longest = 0.0

    async def ticker() -> None:
        nonlocal longest
        last = loop.time()
        while not done.is_set():
            await asyncio.sleep(tick)
            now = loop.time()
            longest = max(longest, now - last)
            last = now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(tick * 2)  # the ticker is running
    try:
        await work
    finally:
        done.set()
        await task
    return longest
