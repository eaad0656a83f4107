"""Telegram round trips: report + confirm through the real python-telegram-bot stack and the
fake Bot API server of the test-suite (``tests/fake_telegram.py``), on a real SQLite file.

    .venv/bin/python bench/telegram_roundtrip.py                  # 2,000 results at 200/s
    .venv/bin/python bench/telegram_roundtrip.py --rate 400 --results 4000 --no-saturate

``--members`` (100) members of one group, in pairs: one of each pair sends
``/report @partner win|loss|draw``, the partner presses Confirm on the bot's answer as soon as it
arrives. Reports arrive as an open load of ``--rate`` results per second, whatever the bot's
speed, spread evenly over the pairs; ``--results`` results in all. A round trip runs from the
update being queued at the fake server (what getUpdates hands out) to the bot's answer arriving
there: the sendMessage answering a report, the editMessageText answering a Confirm press
(after its answerCallbackQuery). Then (unless ``--no-saturate``) every pair reports and confirms
as fast as the bot answers: the highest rate the bot sustains.

The bot (the product's ``TelegramFrontEnd`` on a SQLite file, long polling) runs in this process;
the fake server and the members in a process of their own, as Telegram is not in the bot's
process (``--one-process``: all in one event loop, as in the tests). Each measurement also gives
the CPU time the bot's process spent per confirmed result.
Target (issue 4): p99 < 50 ms at 200 results/s.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import telegram

# The per-member command limit would refuse the members' 21st report of a minute: this measures
# the round trips, not the limiter (which the test-suite covers).
os.environ["CLUBRATING_RATE_LIMIT"] = "off"

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.adapters.telegram import POLL_INTERVAL, TelegramFrontEnd  # noqa: E402
from bot.service.clock import FakeClock  # noqa: E402
from bot.service.club import ClubService  # noqa: E402
from bot.storage.sqlite import SqliteRepository  # noqa: E402
from tests.chat import START  # noqa: E402
from tests.fake_telegram import TOKEN, Chat, FakeTelegram, User  # noqa: E402

GROUP = -1001
_OPPONENT = re.compile(r"\. (\S+), please /confirm")
CpuProbe = Callable[[], Awaitable[float]]


@dataclass
class Pair:
    reporter: User
    opponent: User
    #: queued times of this pair's reports still waiting for their answer, oldest first
    reports: deque[float] = field(default_factory=deque)
    #: set when the pair's latest result is confirmed (the bot's edit arrived)
    confirmed: asyncio.Event = field(default_factory=asyncio.Event)


class TimedTelegram(FakeTelegram):
    """The fake server, noting when each update is queued and when the bot's answers arrive;
    a report's answer makes its opponent press Confirm at once."""

    def __init__(self) -> None:
        super().__init__(token=TOKEN)
        self.chat: Chat | None = None
        self.pairs: dict[str, Pair] = {}  # by the opponent's name
        self.queued: dict[int, float] = {}  # update_id -> when it was queued
        #: message_id -> when its Confirm was queued, and by which pair
        self.confirms: dict[int, tuple[float, Pair]] = {}
        self.report_trips: list[float] = []
        self.confirm_trips: list[float] = []
        self.done = 0
        self.finished = asyncio.Event()
        self.target = 0
        self._tasks: set[asyncio.Task[Any]] = set()

    def _enqueue(self, **payload: Any) -> int:
        update_id = super()._enqueue(**payload)
        self.queued[update_id] = time.perf_counter()
        return update_id

    async def api_sendMessage(self, p: dict[str, Any]) -> dict[str, Any]:
        arrived = time.perf_counter()
        message = await super().api_sendMessage(p)
        found = _OPPONENT.search(message.get("text", ""))
        pair = self.pairs.get(found.group(1)) if found else None
        if pair is not None and pair.reports and self.chat is not None:
            self.report_trips.append(arrived - pair.reports.popleft())
            data = message["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
            task = asyncio.create_task(self._confirm(pair, message["message_id"], data))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return message

    async def _confirm(self, pair: Pair, message_id: int, data: str) -> None:
        assert self.chat is not None
        update_id = await self.press(self.chat, pair.opponent, message_id, data)
        self.confirms[message_id] = (self.queued[update_id], pair)

    async def api_editMessageText(self, p: dict[str, Any]) -> dict[str, Any]:
        arrived = time.perf_counter()
        message = await super().api_editMessageText(p)
        confirm = self.confirms.pop(int(p["message_id"]), None)
        if confirm is not None:
            queued, pair = confirm
            assert "confirmed" in message["text"], message["text"]
            self.confirm_trips.append(arrived - queued)
            pair.confirmed.set()
            self.done += 1
            if self.done >= self.target:
                self.finished.set()
        return message

    def reset(self, target: int) -> None:
        self.report_trips.clear()
        self.confirm_trips.clear()
        self.done, self.target = 0, target
        self.finished = asyncio.Event()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def summary(label: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return (f"{label}: p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
            f"max {max(ms):.1f} ms ({len(ms):,} round trips)")


async def report(tg: TimedTelegram, pair: Pair, rng: random.Random) -> None:
    assert tg.chat is not None
    update_id = await tg.send(tg.chat, pair.reporter,
                              f"/report @{pair.opponent.username} "
                              f"{rng.choice(('win', 'loss', 'draw'))}")
    pair.reports.append(tg.queued[update_id])  # send() does not yield: no answer came yet


def cpu_line(cpu: float, results: int, elapsed: float, what: str) -> str:
    return (f"{what} CPU: {cpu / results * 1000:.1f} ms per confirmed result "
            f"({cpu / elapsed:.0%} of one core)")


async def open_load(tg: TimedTelegram, pairs: list[Pair], results: int, rate: float,
                    rng: random.Random, bot_cpu: CpuProbe, what: str) -> None:
    """Reports at ``rate`` per second, on schedule whatever the answers."""
    tg.reset(results)
    cpu = await bot_cpu()
    begin = time.perf_counter()
    for n in range(results):
        await asyncio.sleep(max(0.0, begin + n / rate - time.perf_counter()))
        await report(tg, pairs[n % len(pairs)], rng)
    offered = time.perf_counter() - begin
    await asyncio.wait_for(tg.finished.wait(), timeout=60 + results / rate)
    elapsed = time.perf_counter() - begin
    cpu = await bot_cpu() - cpu
    trips = tg.report_trips + tg.confirm_trips
    verdict = "met" if percentile(trips, 0.99) < 0.050 else "MISSED"
    print(f"open load of {rate:,.0f} results/s (offered for {offered:.1f} s): {results:,} "
          f"confirmed results in {elapsed:.1f} s = {results / elapsed:,.0f} results/s achieved")
    print("  " + summary("report  -> answer (sendMessage)", tg.report_trips))
    print("  " + summary("Confirm -> edit (editMessageText)", tg.confirm_trips))
    print("  " + summary("every update", trips) + f"; target p99 < 50 ms: {verdict}")
    print("  " + cpu_line(cpu, results, elapsed, what))


async def saturated(tg: TimedTelegram, pairs: list[Pair], results: int,
                    rng: random.Random, bot_cpu: CpuProbe, what: str) -> None:
    """Every pair reports again as soon as its last result is confirmed."""
    per_pair = results // len(pairs)
    total = per_pair * len(pairs)
    tg.reset(total)

    async def play(pair: Pair) -> None:
        for _ in range(per_pair):
            pair.confirmed.clear()
            await report(tg, pair, rng)
            await pair.confirmed.wait()

    cpu = await bot_cpu()
    begin = time.perf_counter()
    await asyncio.gather(*(play(pair) for pair in pairs))
    elapsed = time.perf_counter() - begin
    cpu = await bot_cpu() - cpu
    print(f"as fast as the bot answers ({len(pairs)} pairs, each waiting for its confirmation): "
          f"{total:,} confirmed results in {elapsed:.1f} s = {total / elapsed:,.0f} results/s")
    print("  " + summary("every update (queueing included)",
                         tg.report_trips + tg.confirm_trips))
    print("  " + cpu_line(cpu, total, elapsed, what))


async def members_play(tg: TimedTelegram, args: argparse.Namespace, bot_cpu: CpuProbe) -> None:
    """The members' side, once the bot polls: they register, then report and confirm."""
    assert tg.chat is not None
    rng = random.Random(args.seed)
    members = [tg.user(100 + n, f"M{n}", f"m{n:03d}") for n in range(args.members)]
    for member in members:
        await tg.send(tg.chat, member, "/register")
        await tg.reply(tg.chat)
    pairs = [Pair(members[n], members[n + 1]) for n in range(0, len(members) - 1, 2)]
    tg.pairs = {pair.opponent.username or "": pair for pair in pairs}
    where = "in one process" if args.one_process else "in two processes"
    print(f"python-telegram-bot {telegram.__version__}, bot and fake Bot API {where}; "
          f"{len(members)} members in one group, {len(pairs)} reporting pairs", flush=True)
    what = "bot + fake server process" if args.one_process else "bot process"
    await open_load(tg, pairs, args.results, args.rate, rng, bot_cpu, what)
    if not args.saturate_not:
        await saturated(tg, pairs, args.results, rng, bot_cpu, what)


def fake_telegram() -> TimedTelegram:
    tg = TimedTelegram()
    tg.chat = tg.group(GROUP, "Chess club", admins=[tg.user(1, "Ada", "ada")])
    return tg


@asynccontextmanager
async def bot_polling(url: str) -> AsyncIterator[None]:
    """The product's bot on a fresh SQLite file, long-polling the fake Bot API at ``url``."""
    with tempfile.TemporaryDirectory() as folder:
        repository = await SqliteRepository.open(Path(folder) / "club.db")
        try:
            service = ClubService(repository, FakeClock(START))
            app = TelegramFrontEnd(service).application(TOKEN, f"{url}/bot")
            await app.initialize()
            await app.start()
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=POLL_INTERVAL, timeout=10)
            try:
                yield
            finally:
                await app.updater.stop()
                await app.stop()
                await app.shutdown()
        finally:
            await repository.close()


async def _receive(conn: Connection) -> object:
    return await asyncio.get_running_loop().run_in_executor(None, conn.recv)


def _fake_process(conn: Connection, args: argparse.Namespace) -> None:
    """The fake Bot API server and the members, in a process of their own."""

    async def serve() -> None:
        tg = fake_telegram()
        async with tg:
            conn.send(tg.url)
            assert await _receive(conn) == "polling"

            async def bot_cpu() -> float:
                conn.send("cpu")
                answer = await _receive(conn)
                assert isinstance(answer, float)
                return answer

            try:
                await members_play(tg, args, bot_cpu)
            finally:
                conn.send("done")
                await _receive(conn)  # serve until the bot has stopped polling

    asyncio.run(serve())


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
                             "a process of their own, as Telegram is not in the bot's process)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.one_process:

        async def own_cpu() -> float:
            return time.process_time()

        tg = fake_telegram()
        async with tg, bot_polling(tg.url):
            await members_play(tg, args, own_cpu)
        return
    here, there = multiprocessing.get_context("spawn").Pipe()
    fake = multiprocessing.get_context("spawn").Process(target=_fake_process, args=(there, args))
    fake.start()
    try:
        url = await _receive(here)
        assert isinstance(url, str)
        async with bot_polling(url):
            here.send("polling")
            while await _receive(here) == "cpu":  # CPU time of all the bot's threads
                here.send(time.process_time())
        here.send("stopped")
    finally:
        fake.join(timeout=30)


if __name__ == "__main__":
    asyncio.run(main())
