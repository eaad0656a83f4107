"""What the Telegram and Discord round-trip benchmarks share: the load (an open load at a fixed
rate, then as fast as the bot answers), the latency summaries and the CPU probe.

A platform's fake server notes the round trips of reports and confirmations in
``report_trips`` and ``confirm_trips`` (seconds), counts confirmed results towards the target
given to ``reset``, and sets ``finished`` when it is reached; each pair of members sets its
``confirmed`` event when its latest result is confirmed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from multiprocessing.connection import Connection
from typing import Protocol, TypeVar

#: the bot process's CPU seconds so far
CpuProbe = Callable[[], Awaitable[float]]


class Timed(Protocol):
    report_trips: list[float]
    confirm_trips: list[float]
    finished: asyncio.Event

    def reset(self, target: int) -> None: ...


class Pair(Protocol):
    confirmed: asyncio.Event


P = TypeVar("P", bound=Pair)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def summary(label: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return (f"{label}: p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
            f"max {max(ms):.1f} ms ({len(ms):,} round trips)")


def cpu_line(cpu: float, results: int, elapsed: float, what: str) -> str:
    return (f"{what} CPU: {cpu / results * 1000:.1f} ms per confirmed result "
            f"({cpu / elapsed:.0%} of one core)")


async def open_load(server: Timed, pairs: Sequence[P], results: int, rate: float,
                    report: Callable[[P], Awaitable[None]], bot_cpu: CpuProbe, what: str,
                    labels: tuple[str, str, str]) -> None:
    """Reports at ``rate`` per second, on schedule whatever the answers. ``labels``: of the
    report trips, the confirm trips and all of them."""
    server.reset(results)
    cpu = await bot_cpu()
    begin = time.perf_counter()
    for n in range(results):
        await asyncio.sleep(max(0.0, begin + n / rate - time.perf_counter()))
        await report(pairs[n % len(pairs)])
    offered = time.perf_counter() - begin
    await asyncio.wait_for(server.finished.wait(), timeout=60 + results / rate)
    elapsed = time.perf_counter() - begin
    cpu = await bot_cpu() - cpu
    trips = server.report_trips + server.confirm_trips
    verdict = "met" if percentile(trips, 0.99) < 0.050 else "MISSED"
    print(f"open load of {rate:,.0f} results/s (offered for {offered:.1f} s): {results:,} "
          f"confirmed results in {elapsed:.1f} s = {results / elapsed:,.0f} results/s achieved")
    print("  " + summary(labels[0], server.report_trips))
    print("  " + summary(labels[1], server.confirm_trips))
    print("  " + summary(labels[2], trips) + f"; target p99 < 50 ms: {verdict}")
    print("  " + cpu_line(cpu, results, elapsed, what))


async def saturated(server: Timed, pairs: Sequence[P], results: int,
                    report: Callable[[P], Awaitable[None]], bot_cpu: CpuProbe, what: str,
                    label: str) -> None:
    """Every pair reports again as soon as its last result is confirmed."""
    per_pair = results // len(pairs)
    total = per_pair * len(pairs)
    server.reset(total)

    async def play(pair: P) -> None:
        for _ in range(per_pair):
            pair.confirmed.clear()
            await report(pair)
            await pair.confirmed.wait()

    cpu = await bot_cpu()
    begin = time.perf_counter()
    await asyncio.gather(*(play(pair) for pair in pairs))
    elapsed = time.perf_counter() - begin
    cpu = await bot_cpu() - cpu
    print(f"as fast as the bot answers ({len(pairs)} pairs, each waiting for its confirmation): "
          f"{total:,} confirmed results in {elapsed:.1f} s = {total / elapsed:,.0f} results/s")
    print("  " + summary(label, server.report_trips + server.confirm_trips))
    print("  " + cpu_line(cpu, total, elapsed, what))


async def receive(conn: Connection) -> object:
    """The next message from the other process, without blocking the event loop."""
    return await asyncio.get_running_loop().run_in_executor(None, conn.recv)


def remote_cpu(conn: Connection) -> CpuProbe:
    """A probe asking the bot's process, at the other end of ``conn``, for its CPU time."""

    async def bot_cpu() -> float:
        conn.send("cpu")
        answer = await receive(conn)
        assert isinstance(answer, float)
        return answer

    return bot_cpu


def arguments(description: str, platform: str,
              switches: dict[str, str] | None = None) -> argparse.Namespace:
    """The options both benchmarks take, and a benchmark's own ``switches`` (flag: help)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rate", type=float, default=200.0,
                        help="confirmed results per second offered (open load)")
    parser.add_argument("--results", type=int, default=2000)
    parser.add_argument("--members", type=int, default=100, help="an even number")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--no-saturate", dest="saturate_not", action="store_true",
                        help="skip the as-fast-as-possible run")
    parser.add_argument("--one-process", action="store_true",
                        help="the bot, the fake server and the members in one event loop, as "
                             "in the tests (by default the fake server and the members run in "
                             f"a process of their own, as {platform} is not in the bot's "
                             "process)")
    for flag, explained in (switches or {}).items():
        parser.add_argument(flag, action="store_true", help=explained)
    return parser.parse_args()
