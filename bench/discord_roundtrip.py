"""Discord round trips: report + confirm through the real discord.py client and the fake Discord
of the test-suite (``tests/fake_discord.py``), on a real SQLite file.

    .venv/bin/python bench/discord_roundtrip.py                  # 2,000 results at 200/s
    .venv/bin/python bench/discord_roundtrip.py --rate 400 --results 4000 --no-saturate

``--members`` (100) members of one guild, in pairs: one of each pair runs
``/report opponent:@partner result:win|loss|draw``, the partner clicks Confirm on the bot's
answer as soon as it arrives. Reports arrive as an open load of ``--rate`` results per second,
whatever the bot's speed, spread evenly over the pairs; ``--results`` results in all. A round
trip runs from the interaction being sent on the gateway to the bot's answer arriving at the
fake's REST API: the interaction response answering a report, the message update answering a
Confirm click. Then (unless ``--no-saturate``) every pair reports and confirms as fast as the
bot answers: the highest rate the bot sustains.

The bot (the product's ``DiscordFrontEnd`` on a SQLite file) runs in this process; the fake
Discord and the members in a process of their own, as Discord is not in the bot's process
(``--one-process``: all in one event loop, as in the tests). Each measurement also gives the CPU
time the bot's process spent per confirmed result.
Target (issue 5): p99 < 50 ms at 200 results/s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import multiprocessing
import random
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

import discord

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.roundtrip import (  # noqa: E402
    CpuProbe,
    arguments,
    open_load,
    receive,
    remote_cpu,
    saturated,
)
from bot.adapters.discord import DiscordFrontEnd, point_discord_py_at  # noqa: E402
from bot.chat.ratelimit import RateLimiter  # noqa: E402
from bot.service.clock import FakeClock  # noqa: E402
from bot.service.club import ClubService  # noqa: E402
from bot.storage.sqlite import SqliteRepository  # noqa: E402
from tests.chat import START  # noqa: E402
from tests.discord_harness import pointed_at  # noqa: E402
from tests.fake_discord import TOKEN, FakeDiscord, Guild, Member, Output  # noqa: E402

GUILD = 900000000000000001


@dataclass
class Pair:
    reporter: Member
    opponent: Member
    #: send times of this pair's reports still waiting for their answer, oldest first
    reports: deque[float] = field(default_factory=deque)
    #: set when the pair's latest result is confirmed (the bot's update arrived)
    confirmed: asyncio.Event = field(default_factory=asyncio.Event)


class TimedDiscord(FakeDiscord):
    """The fake Discord, noting when each interaction is sent and when the bot's answers
    arrive; a report's answer makes its opponent click Confirm at once."""

    def __init__(self) -> None:
        super().__init__()
        self.club: Guild | None = None
        self.by_interaction: dict[int, Pair] = {}  # report interaction -> its pair
        #: confirm click's interaction id -> when it was sent, and by which pair
        self.confirms: dict[int, tuple[float, Pair]] = {}
        self.report_trips: list[float] = []
        self.confirm_trips: list[float] = []
        self.done = 0
        self.target = 0
        self.finished = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._tag: tuple[str, Pair] | None = None

    def _record(self, output: Output) -> None:
        arrived = time.perf_counter()
        super()._record(output)
        self._outputs.get_nowait()  # nobody reads the queue here
        interaction = output.interaction_id
        if output.kind == "reply" and interaction in self.by_interaction:
            pair = self.by_interaction.pop(interaction)
            self.report_trips.append(arrived - pair.reports.popleft())
            if not output.buttons:
                raise RuntimeError(f"the report was refused: {output.plain}")
            custom_id = output.buttons[0][0][1]
            task = asyncio.create_task(self._confirm(pair, output.message_id, custom_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif output.kind == "update" and interaction in self.confirms:
            sent, pair = self.confirms.pop(interaction)
            assert "confirmed" in output.plain, output.plain
            self.confirm_trips.append(arrived - sent)
            pair.confirmed.set()
            self.done += 1
            if self.done >= self.target:
                self.finished.set()

    def _interaction(self, kind: int, guild: Guild, member: Member, data: dict[str, Any],
                     message: dict[str, Any] | None = None) -> dict[str, Any]:
        payload = super()._interaction(kind, guild, member, data, message)
        if self._tag is not None:  # set by the caller just before: whose interaction this is
            interaction, (label, pair) = int(payload["id"]), self._tag
            if label == "report":
                self.by_interaction[interaction] = pair
                pair.reports.append(time.perf_counter())
            else:
                self.confirms[interaction] = (time.perf_counter(), pair)
            self._tag = None
        return payload

    async def _confirm(self, pair: Pair, message_id: int, custom_id: str) -> None:
        assert self.club is not None
        self._tag = ("confirm", pair)
        await self.click(self.club, pair.opponent, message_id, custom_id)

    def reset(self, target: int) -> None:
        self.report_trips.clear()
        self.confirm_trips.clear()
        self.done, self.target = 0, target
        self.finished = asyncio.Event()


async def report(dc: TimedDiscord, pair: Pair, rng: random.Random) -> None:
    assert dc.club is not None
    dc._tag = ("report", pair)  # the send time is taken as the interaction is built
    await dc.command(dc.club, pair.reporter, "report", opponent=pair.opponent,
                     result=rng.choice(("win", "loss", "draw")))


def fake_discord(members: int) -> tuple[TimedDiscord, list[Member]]:
    dc = TimedDiscord()
    dc.club = dc.guild(GUILD, "Chess club")
    people = [dc.member(dc.club, dc.user(900000000000100000 + n, f"m{n:03d}"))
              for n in range(members)]
    return dc, people


async def members_play(dc: TimedDiscord, people: list[Member], args: argparse.Namespace,
                       bot_cpu: CpuProbe) -> None:
    """The members' side, once the bot is connected: they register, then report and
    confirm."""
    assert dc.club is not None
    rng = random.Random(args.seed)
    registered = 0
    real_record = dc._record

    def count(output: Output) -> None:
        nonlocal registered
        registered += 1
        real_record(output)

    dc._record = count  # type: ignore[method-assign]
    for member in people:
        await dc.command(dc.club, member, "register")
    while registered < len(people):
        await asyncio.sleep(0.01)
    dc._record = real_record  # type: ignore[method-assign]
    pairs = [Pair(people[n], people[n + 1]) for n in range(0, len(people) - 1, 2)]
    where = "in one process" if args.one_process else "in two processes"
    print(f"discord.py {discord.__version__}, bot and fake Discord {where}; "
          f"{len(people)} members in one guild, {len(pairs)} reporting pairs", flush=True)
    what = "bot + fake server process" if args.one_process else "bot process"
    await open_load(dc, pairs, args.results, args.rate,
                    lambda pair: report(dc, pair, rng), bot_cpu, what,
                    ("/report -> response   ", "Confirm -> message edit", "every interaction"))
    if not args.saturate_not:
        await saturated(dc, pairs, args.results, lambda pair: report(dc, pair, rng),
                        bot_cpu, what, "every interaction (queueing included)")


@asynccontextmanager
async def bot_connected(api_base: str, gateway: str) -> AsyncIterator[None]:
    """The product's bot on a fresh SQLite file, connected to the fake Discord."""
    with tempfile.TemporaryDirectory() as folder:
        repository = await SqliteRepository.open(Path(folder) / "club.db")
        try:
            point_discord_py_at(api_base, gateway)
            service = ClubService(repository, FakeClock(START))
            # no member rate limit: this measures the round trips, not the limiter
            client = DiscordFrontEnd(service, RateLimiter(service.clock, None)).client(
                guild_ready_timeout=0.05)
            task = asyncio.create_task(client.start(TOKEN, reconnect=False))
            await asyncio.wait_for(client.wait_until_ready(), 30)
            try:
                yield
            finally:
                await client.close()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        finally:
            await repository.close()


def _fake_process(conn: Connection, args: argparse.Namespace) -> None:
    """The fake Discord and the members, in a process of their own."""

    async def serve() -> None:
        dc, people = fake_discord(args.members)
        async with dc:
            conn.send((dc.api_base, dc.gateway_url))
            assert await receive(conn) == "connected"

            bot_cpu = remote_cpu(conn)

            try:
                await members_play(dc, people, args, bot_cpu)
            finally:
                conn.send("done")
                await receive(conn)  # serve until the bot has disconnected

    asyncio.run(serve())


async def main() -> None:
    args = arguments(__doc__.splitlines()[0], "Discord")
    logging.basicConfig(level=logging.ERROR)
    if args.one_process:

        async def own_cpu() -> float:
            return time.process_time()

        dc, people = fake_discord(args.members)
        async with dc:
            with pointed_at(dc):
                async with bot_connected(dc.api_base, dc.gateway_url):
                    await members_play(dc, people, args, own_cpu)
        return
    here, there = multiprocessing.get_context("spawn").Pipe()
    fake = multiprocessing.get_context("spawn").Process(target=_fake_process, args=(there, args))
    fake.start()
    try:
        addresses = await receive(here)
        assert isinstance(addresses, tuple)
        async with bot_connected(*addresses):
            here.send("connected")
            while await receive(here) == "cpu":  # CPU time of all the bot's threads
                here.send(time.process_time())
        here.send("stopped")
    finally:
        fake.join(timeout=30)


if __name__ == "__main__":
    asyncio.run(main())
