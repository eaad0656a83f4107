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

The bot (the product's ``TelegramFrontEnd`` on a SQLite file, long polling with the product's
``ConfirmedPolling``, which keeps every update in the database before Telegram is told it
arrived) runs in this process;
the fake server and the members in a process of their own, as Telegram is not in the bot's
process (``--one-process``: all in one event loop, as in the tests). Each measurement also gives
the CPU time the bot's process spent per confirmed result.
Target (issue 4): p99 < 50 ms at 200 results/s. ``--reference``: the same measurement again
afterwards with python-telegram-bot's own ``Updater`` (which confirms updates before they are
handled, as the product did before issue 41), printed after the product's.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import random
import re
import sys
import tempfile
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import telegram
from telegram.ext import AIORateLimiter

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.roundtrip import (  # noqa: E402
    CpuProbe,
    arguments,
    open_load,
    receive,
    remote_cpu,
    saturated,
)
from bot.adapters.telegram import POLL_INTERVAL, TelegramFrontEnd  # noqa: E402
from bot.adapters.telegram_polling import ConfirmedPolling  # noqa: E402
from bot.chat.ratelimit import RateLimiter  # noqa: E402
from bot.service.clock import FakeClock  # noqa: E402
from bot.service.club import ClubService  # noqa: E402
from bot.storage.sqlite import SqliteRepository  # noqa: E402
from tests.chat import START  # noqa: E402
from tests.fake_telegram import TOKEN, Chat, FakeTelegram, User  # noqa: E402

GROUP = -1001
_OPPONENT = re.compile(r"\. (\S+), please /confirm")


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


async def report(tg: TimedTelegram, pair: Pair, rng: random.Random) -> None:
    assert tg.chat is not None
    update_id = await tg.send(tg.chat, pair.reporter,
                              f"/report @{pair.opponent.username} "
                              f"{rng.choice(('win', 'loss', 'draw'))}")
    pair.reports.append(tg.queued[update_id])  # send() does not yield: no answer came yet


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
    await open_load(tg, pairs, args.results, args.rate,
                    lambda pair: report(tg, pair, rng), bot_cpu, what,
                    ("report  -> answer (sendMessage)", "Confirm -> edit (editMessageText)",
                     "every update"))
    if not args.saturate_not:
        await saturated(tg, pairs, args.results, lambda pair: report(tg, pair, rng),
                        bot_cpu, what, "every update (queueing included)")


def fake_telegram() -> TimedTelegram:
    tg = TimedTelegram()
    tg.chat = tg.group(GROUP, "Chess club", admins=[tg.user(1, "Ada", "ada")])
    return tg


@asynccontextmanager
async def bot_polling(url: str, reference: bool = False) -> AsyncIterator[None]:
    """The product's bot on a fresh SQLite file, long-polling the fake Bot API at ``url`` (the
    ``reference``: with python-telegram-bot's own Updater)."""
    with tempfile.TemporaryDirectory() as folder:
        repository = await SqliteRepository.open(Path(folder) / "club.db")
        try:
            service = ClubService(repository, FakeClock(START))
            # No member rate limit and no pacing of the group's messages (20 a minute): this
            # measures the round trips, not the limits (which the test-suite covers).
            front = TelegramFrontEnd(service, RateLimiter(service.clock, None))
            app = front.application(TOKEN, f"{url}/bot", AIORateLimiter(
                overall_max_rate=0, group_max_rate=0))
            await app.initialize()
            await app.start()
            assert app.updater is not None
            polling = ConfirmedPolling(app, repository, service.clock.now, POLL_INTERVAL)
            if reference:
                await app.updater.start_polling(poll_interval=POLL_INTERVAL, timeout=10)
            else:
                await polling.start()
            try:
                yield
            finally:
                await (app.updater.stop() if reference else polling.stop())
                await app.stop()
                await polling.finish()
                await app.shutdown()
        finally:
            await repository.close()


def _fake_process(conn: Connection, args: argparse.Namespace) -> None:
    """The fake Bot API server and the members, in a process of their own."""

    async def serve() -> None:
        tg = fake_telegram()
        async with tg:
            conn.send(tg.url)
            assert await receive(conn) == "polling"

            bot_cpu = remote_cpu(conn)

            try:
                await members_play(tg, args, bot_cpu)
            finally:
                conn.send("done")
                await receive(conn)  # serve until the bot has stopped polling

    asyncio.run(serve())


async def main() -> None:
    args = arguments(__doc__.splitlines()[0], "Telegram", {
        "--reference": "measure python-telegram-bot's own Updater too, afterwards"})
    logging.basicConfig(level=logging.WARNING)
    for reference in (False, True) if args.reference else (False,):
        print("reference: python-telegram-bot's Updater (confirms before handling)" if reference
              else "the product: ConfirmedPolling (kept before confirmed)", flush=True)
        await measure(args, reference)


async def measure(args: argparse.Namespace, reference: bool) -> None:
    if args.one_process:

        async def own_cpu() -> float:
            return time.process_time()

        tg = fake_telegram()
        async with tg, bot_polling(tg.url, reference):
            await members_play(tg, args, own_cpu)
        return
    here, there = multiprocessing.get_context("spawn").Pipe()
    fake = multiprocessing.get_context("spawn").Process(target=_fake_process, args=(there, args))
    fake.start()
    try:
        url = await receive(here)
        assert isinstance(url, str)
        async with bot_polling(url, reference):
            here.send("polling")
            while await receive(here) == "cpu":  # CPU time of all the bot's threads
                here.send(time.process_time())
        here.send("stopped")
    finally:
        fake.join(timeout=30)


if __name__ == "__main__":
    asyncio.run(main())
