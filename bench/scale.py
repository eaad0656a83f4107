"""The load of issue 41: commands at 100 a second (90 % Discord slash commands, 10 % Telegram
messages, a third of them writes, clubs Zipf-distributed) on two ``clubrating run`` processes
sharing one PostgreSQL database, while a weekly run of every club's post falls due in a window
of 120 s and the process holding the ``scheduler`` role is SIGKILLed at 30 % and 70 % of it;
beside the reference measured in the same run: the same load at a tenth of the rate, once the
weekly run is over.

    .venv/bin/python bench/scale.py                          # 1,000 + 1,000 clubs, 300 s
    .venv/bin/python bench/scale.py --clubs 300 --seconds 120

The fakes (``tests/fake_discord.py``, ``tests/fake_telegram.py``) run in this script's event
loop with their flood control on (Telegram: 30 sends a second, 20 a minute per group; Discord:
50 REST calls a second; past them a 429); the bots are the installed ``clubrating run``, on a
fresh schema of a throwaway PostgreSQL server (``tests/pg_server.py``; or
``CLUBRATING_TEST_PG``), ``DISCORD_SHARD_COUNT=4`` split ``0-1`` and ``2-3``, Telegram through
the webhook (each process listening on a port of its own, the fake delivering to both in turn),
``CLUBRATING_POST_WINDOW=120s``. Their clock is the real one during the setup; then they are
stopped and started again with libfaketime's offset (:class:`ShiftedClock`) putting the next
Monday 09:00 UTC, every club's default weekly post, at 20 % of the load.

1. Setup, through the platforms as members do it (no shortcut into the database: each club's
   chat, the one its post goes to, is the one its members spoke in): ``--clubs`` Discord
   guilds and as many Telegram groups, in each alice and bob ``/register`` and ada (a
   moderator: Manage Server on Discord, the group's administrator on Telegram) records a game
   between them; ``--parallel`` clubs at a time.
2. Load: ``--rate`` commands a second for ``--seconds``: writes are ada's one-step ``/report``,
   reads alice's ``/top`` or ``/rating``; clubs drawn Zipf (s = 1.1, seeded); a Telegram group
   is given at most 10 commands a minute (the draw is made again), so that its answers and its
   post stay within Telegram's 20 a minute. A command's latency runs from the fake sending it
   (the interaction on the gateway, the update queued for the webhook) to the fake receiving
   its answer (the interaction's callback or follow-up; a ``sendMessage`` answering it).
3. The weekly run: the processes' logs say which one holds the ``scheduler`` role; it is killed
   at 30 % and 70 % of the window and started again at once. At the end each club's posts are
   counted in the fakes, and the fakes' flood-control records give the most sends in any second
   (any minute for a group) and the 429s answered.
4. Each process's peak resident memory (``VmHWM``) at the end. Then (``--memory-clubs``,
   10,000; 0: skipped; ``--no-load``: this alone) a fresh schema with that many Discord clubs
   written through the service (as the bot writes them, in 26 s rather than the 30,000
   commands' time), one process serving every shard with the default cache, ``/top`` read in
   every guild: its peak memory once ready (the reference) and after the reads.

An error is a command not answered within 15 s, a write not answered "recorded", an answer the
fakes refused (other than a 429), or an ``ERROR`` line in a process's log. Commands sent to a
killed process's Discord shards before its restart are lost as they would be on Discord (the
interaction fails for the member): they are counted apart.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import collections
import itertools
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shards import SHARD_READY, fresh_schema, peak_memory  # noqa: E402
from bot.service.clock import SystemClock  # noqa: E402
from bot.service.club import ClubService  # noqa: E402
from bot.service.identity import Caller, UserRef  # noqa: E402
from bot.storage.backends import open_repository  # noqa: E402
from tests import pg_server  # noqa: E402
from tests.fake_discord import MANAGE_GUILD, FakeDiscord, Guild, Member, Role  # noqa: E402
from tests.fake_discord import Output as DiscordOutput  # noqa: E402
from tests.fake_discord import User as DiscordUser  # noqa: E402
from tests.fake_telegram import TOKEN, Chat, FakeTelegram, User  # noqa: E402
from tests.system.clubs import discord_variables, telegram_variables  # noqa: E402
from tests.system.process import Bot, FakeClock, environment  # noqa: E402
from tests.system.test_web import free_port  # noqa: E402

#: how long before the load starts the processes' clock is at the weekly posts' time at the
#: earliest: their restart with the clock moved must be over by then
RESTART = 60.0
WINDOW = 120.0
HOOK = "https://bots.example.org/telegram/hook"
SECRET = "one-secret_for-both-processes"
SPLITS = ("0-1", "2-3")
SHARDS = 4
SERVING = r"serving discord, telegram|serving telegram, discord"
SCHEDULER = "role scheduler taken"
#: a command not answered within this is an error
ANSWER_TIMEOUT = 15.0
#: Telegram commands a group is given in any minute (its answers, plus its post, stay <= 20)
GROUP_PER_MINUTE = 10
ZIPF = 1.1
#: the members who read and the moderators who record games, in each Discord guild
READERS, MODERATORS = 64, 16


class ShiftedClock(FakeClock):
    """The processes' time as libfaketime's offset from the real clock (``+N`` seconds), not a
    start time: a process started again after a kill sees the same time as those that ran on,
    and no running process sees its clock (nor its monotonic clock, whose timers would all
    fire at once) jump during the run; the offset is set while the processes are stopped."""

    def __init__(self, folder: Path) -> None:
        self.file = folder / "faketime"
        self.shift(0.0)

    def shift(self, seconds: float) -> None:
        staged = self.file.with_suffix(".new")
        staged.write_text(f"+{seconds:.0f}\n", encoding="utf-8")
        staged.replace(self.file)


def next_monday_nine(after: datetime) -> datetime:
    """The first Monday 09:00 (UTC, every club's default weekly post) after ``after``."""
    day = after.replace(hour=9, minute=0, second=0, microsecond=0)
    day += timedelta(days=(7 - day.weekday()) % 7)
    return day if day > after else day + timedelta(days=7)


class TimedDiscord(FakeDiscord):
    """The fake Discord, keeping when each interaction was first answered."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting: dict[int, asyncio.Future[DiscordOutput]] = {}

    def _record(self, output: DiscordOutput) -> None:
        super()._record(output)
        waiter = self.waiting.pop(output.interaction_id or 0, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(output)


class TimedTelegram(FakeTelegram):
    """The fake Bot API, keeping when each update was first answered and each group's posts.
    The bot answers an update before its webhook call returns 200 (and without quoting it), so
    the first output in a chat while one of its updates is being delivered is that update's
    answer; any other output is a post (were a post to come first, the two would swap: the
    counts stay right)."""

    def __init__(self) -> None:
        super().__init__(token=TOKEN)
        self.waiting: dict[int, asyncio.Future[str]] = {}
        self.posts: collections.Counter[int] = collections.Counter()
        #: each chat's update being delivered, until its first answer
        self.in_flight: dict[int, int] = {}

    async def _deliver(self, queued: list[Any]) -> None:
        update = queued[0]
        chat = int(update["message"]["chat"]["id"]) if "message" in update else 0
        self.in_flight[chat] = int(update["update_id"])
        try:
            await super()._deliver(queued)
        finally:
            self.in_flight.pop(chat, None)

    def _output(self, kind: str, message: dict[str, Any], parse_mode: str | None,
                size: int | None = None) -> dict[str, Any]:
        answered = super()._output(kind, message, parse_mode, size)
        chat = int(message["chat"]["id"])
        update = self.in_flight.pop(chat, None)
        if update is None:
            self.posts[chat] += 1
        else:
            waiter = self.waiting.pop(update, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(str(message.get("text") or message.get("caption") or ""))
        return answered


@dataclass
class DiscordClubs:
    """The guilds: in each, alice and bob play; moderators (the Managers role, Manage Server)
    record games and readers look at the board, each of them the next of a pool in turn, since
    one member may send 20 commands a minute (a moderator 100; past it the bot answers once,
    then stays silent) and a hot club gets hundreds: the hottest club's 8 reads a second come
    from 64 readers, each about 8 times a minute."""

    dc: TimedDiscord
    guilds: list[Guild]
    managers: list[Role]
    alice: list[Member]
    bob: list[Member]
    members: dict[tuple[int, int], Member] = field(default_factory=dict)
    #: per guild and pool, how many turns its members took
    turns: collections.Counter[tuple[int, bool]] = field(default_factory=collections.Counter)
    readers: list[DiscordUser] = field(default_factory=list)
    moderators: list[DiscordUser] = field(default_factory=list)

    @classmethod
    def on(cls, dc: TimedDiscord, count: int) -> DiscordClubs:
        alice, bob = dc.user(3_001, "alice"), dc.user(3_002, "bob")
        clubs = cls(dc, [], [], [], [])
        clubs.readers = [dc.user(10_000 + k, f"reader{k}") for k in range(READERS)]
        clubs.moderators = [dc.user(20_000 + k, f"mod{k}") for k in range(MODERATORS)]
        for n in range(count):
            # (id >> 22) % 4 is n % 4: the four shards take turns
            guild = dc.guild((1_000_000 + n) << 22, f"club {n}")
            clubs.guilds.append(guild)
            clubs.managers.append(dc.role(guild, 5_000_000 + n, "Managers", MANAGE_GUILD))
            clubs.alice.append(dc.member(guild, alice))
            clubs.bob.append(dc.member(guild, bob))
        return clubs

    def member(self, n: int, pool: list[DiscordUser], moderator: bool) -> Member:
        """The next member of guild ``n`` from ``pool`` (made a member at their first turn)."""
        user = pool[self.turns[n, moderator] % len(pool)]
        self.turns[n, moderator] += 1
        key = (n, user.id)
        if key not in self.members:
            roles = [self.managers[n]] if moderator else []
            self.members[key] = self.dc.member(self.guilds[n], user, *roles)
        return self.members[key]

    async def say(self, n: int, speaker: Member, command: str, /, **options: Any) -> str:
        """``speaker`` runs ``/command`` in club ``n``; the answer's text."""
        waiter: asyncio.Future[DiscordOutput] = asyncio.get_running_loop().create_future()
        interaction = self.dc.next_id() + 1  # the id command() is about to take
        self.dc.waiting[interaction] = waiter
        sent = await self.dc.command(self.guilds[n], speaker, command, **options)
        if sent != interaction:  # another id was taken meanwhile: wait on the right one
            self.dc.waiting.pop(interaction, None)
            if sent in {o.interaction_id for o in self.dc.log}:
                return next(o.plain for o in self.dc.log if o.interaction_id == sent)
            self.dc.waiting[sent] = waiter
        return (await asyncio.wait_for(waiter, ANSWER_TIMEOUT)).plain

    def write(self, n: int) -> Awaitable[str]:
        return self.say(n, self.member(n, self.moderators, True), "report",
                        player=self.alice[n], opponent=self.bob[n], result="win")

    def read(self, n: int, top: bool) -> Awaitable[str]:
        reader = self.member(n, self.readers, False)
        if top:
            return self.say(n, reader, "top")
        return self.say(n, reader, "rating", member=self.alice[n])

    def posts(self) -> collections.Counter[int]:
        channels = {guild.channel.id: n for n, guild in enumerate(self.guilds)}
        return collections.Counter(channels[int(o.message["channel_id"])]
                                   for o in self.dc.log if o.kind == "post")


@dataclass
class TelegramClubs:
    tg: TimedTelegram
    groups: list[Chat]
    ada: User
    alice: User
    bob: User
    recent: dict[int, collections.deque[float]] = field(default_factory=dict)

    @classmethod
    def on(cls, tg: TimedTelegram, count: int) -> TelegramClubs:
        ada, alice, bob = (tg.user(3_000 + n, name.title(), name) for n, name in
                           enumerate(("ada", "alice", "bob")))
        groups = [tg.group(-1_000_000 - n, f"club {n}", admins=[ada], creator=ada)
                  for n in range(count)]
        return cls(tg, groups, ada, alice, bob)

    async def say(self, n: int, user: User, line: str) -> str:
        # (send() only queues the update: nothing is delivered before the waiter is there)
        update = await self.tg.send(self.groups[n], user, line)
        waiter: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.tg.waiting[update] = waiter
        return await asyncio.wait_for(waiter, ANSWER_TIMEOUT)

    def write(self, n: int) -> Awaitable[str]:
        return self.say(n, self.ada, "/report @alice @bob win")

    def read(self, n: int, top: bool) -> Awaitable[str]:
        return self.say(n, self.alice, "/top" if top else "/rating @alice")

    def room(self, n: int, now: float) -> bool:
        """Whether group ``n`` may be given a command now (fewer than 10 in the last minute),
        counting it when it may."""
        sent = self.recent.setdefault(n, collections.deque())
        while sent and sent[0] <= now - 60.0:
            sent.popleft()
        if len(sent) >= GROUP_PER_MINUTE:
            return False
        sent.append(now)
        return True

    def with_room(self, draws: Zipf, now: float) -> int:
        """A group drawn Zipf among those with room (drawn again up to 20 times, then the
        first in rank order that has room)."""
        for _ in range(20):
            n = draws.draw()
            if self.room(n, now):
                return n
        return next((n for n in range(len(self.groups)) if self.room(n, now)), n)

    def posts(self) -> collections.Counter[int]:
        index = {group.id: n for n, group in enumerate(self.groups)}
        return collections.Counter({index[chat]: count for chat, count in self.tg.posts.items()
                                    if chat in index})


async def set_up(discord: DiscordClubs, telegram: TelegramClubs, parallel: int) -> float:
    """Every club's members registered and a game recorded; the seconds it took."""
    began = time.monotonic()
    gate = asyncio.Semaphore(parallel)

    async def discord_club(n: int) -> None:
        async with gate:
            for member in (discord.alice[n], discord.bob[n]):
                answer = await discord.say(n, member, "register")
                assert answer.startswith("Welcome"), answer
            recorded = await discord.write(n)
            assert "recorded" in recorded, recorded

    async def telegram_club(n: int) -> None:
        async with gate:
            for user in (telegram.alice, telegram.bob):
                answer = await telegram.say(n, user, "/register")
                assert answer.startswith("Welcome"), answer
            recorded = await telegram.write(n)
            assert "recorded" in recorded, recorded

    await asyncio.gather(*(discord_club(n) for n in range(len(discord.guilds))),
                         *(telegram_club(n) for n in range(len(telegram.groups))))
    return time.monotonic() - began


class Zipf:
    """Club indexes 0 .. n-1 drawn with weights 1 / (rank ** s), seeded."""

    def __init__(self, n: int, chance: random.Random) -> None:
        self.chance = chance
        self.cumulative = list(itertools.accumulate(1.0 / (k + 1) ** ZIPF for k in range(n)))

    def draw(self) -> int:
        return bisect.bisect(self.cumulative, self.chance.random() * self.cumulative[-1])


@dataclass
class Load:
    """What one phase of load gave."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: {
        "discord": [], "telegram": []})
    #: the latencies of the commands sent away from the kills (not from 1 s before one to
    #: 30 s after it: a restart's identify turns and cache reads), every platform's
    calm: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: Discord commands lost because they reached a killed process's shard
    lost: int = 0
    sent: int = 0
    writes: int = 0
    seconds: float = 0.0
    #: (seconds into the phase, platform, command, club's rank, latency) of every answer
    answers: list[tuple[float, str, str, int, float]] = field(default_factory=list)

    def keep(self, path: Path) -> None:
        """Every answer's latency as CSV, for a look at when the slow ones came."""
        rows = [f"{at:.3f},{platform},{what},{n},{latency * 1000:.1f}"
                for at, platform, what, n, latency in self.answers]
        path.write_text("sent_s,platform,command,club_rank,latency_ms\n" + "\n".join(rows)
                        + "\n", encoding="utf-8")


async def load(discord: DiscordClubs, telegram: TelegramClubs, rate: float, seconds: float,
               seed: int, processes: Processes) -> Load:
    """``rate`` commands a second for ``seconds``; a Discord command that goes unanswered
    counts as lost, not as an error, when its shard's process was killed between its sending
    and the end of its wait, or was not serving that shard again yet."""
    chance = random.Random(seed)
    guilds, groups = Zipf(len(discord.guilds), chance), Zipf(len(telegram.groups), chance)
    result, tasks = Load(), []
    began = time.monotonic()

    async def one(platform: str, answer: Awaitable[str], write: bool, shard: int | None,
                  what: str, n: int) -> None:
        sent = time.monotonic()
        shard_down = shard in processes.down
        try:
            text = await answer
        except TimeoutError:
            if shard_down or any(shard in shards and sent <= at for at, shards in
                                 processes.kills):
                result.lost += 1
            else:
                where = "" if shard is None else f", shard {shard}"
                result.errors.append(f"{platform} {what}: no answer within "
                                     f"{ANSWER_TIMEOUT:.0f} s (sent at {sent - began:.0f} s"
                                     f"{where})")
            return
        result.latencies[platform].append(time.monotonic() - sent)
        result.answers.append((sent - began, platform, what, n, time.monotonic() - sent))
        if not any(at - 1.0 <= sent <= at + 30.0 for at, _ in processes.kills):
            result.calm.append(time.monotonic() - sent)
        if write and "recorded" not in text:
            result.errors.append(f"{platform}: a write answered {text[:80]!r}")

    for i in itertools.count():
        due = began + i / rate
        if due >= began + seconds:
            break
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        write, top = chance.random() < 1 / 3, chance.random() < 0.5
        if i % 10 == 9:
            n = telegram.with_room(groups, time.monotonic())
            answer = telegram.write(n) if write else telegram.read(n, top)
            platform, shard = "telegram", None
        else:
            n = guilds.draw()
            answer = discord.write(n) if write else discord.read(n, top)
            platform, shard = "discord", n % SHARDS
        result.sent += 1
        result.writes += write
        what = "report" if write else "top" if top else "rating"
        tasks.append(asyncio.create_task(one(platform, answer, write, shard, what, n)))
    result.seconds = time.monotonic() - began
    await asyncio.gather(*tasks)
    return result


def percentiles(values: list[float]) -> str:
    if not values:
        return "no answers"
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return (f"p50 {at(0.50):.0f} ms, p95 {at(0.95):.0f} ms, p99 {at(0.99):.0f} ms, "
            f"max {ordered[-1] * 1000:.0f} ms ({len(ordered):,} answers)")


def report(name: str, phase: Load) -> None:
    print(f"\n{name}: {phase.sent:,} commands in {phase.seconds:.0f} s "
          f"({phase.sent / phase.seconds:.1f}/s), {phase.writes:,} writes")
    for platform, values in phase.latencies.items():
        print(f"  {platform:8} {percentiles(values)}")
    both = phase.latencies["discord"] + phase.latencies["telegram"]
    print(f"  {'all':8} {percentiles(both)}")
    if len(phase.calm) < len(both):
        print(f"  {'away from the kills':8} {percentiles(phase.calm)}")
    print(f"  errors {len(phase.errors)}; Discord commands lost to a killed shard "
          f"{phase.lost}")
    for error, count in collections.Counter(phase.errors).most_common(5):
        print(f"    {count} x {error}")


class Processes:
    """The two ``clubrating run``: each with a Discord shard range of its own and a port of
    its own for the webhook, on one database."""

    def __init__(self, dc: FakeDiscord, tg: FakeTelegram, folder: Path, clock: ShiftedClock,
                 database: str) -> None:
        self.bots: list[Bot] = []
        hooks = []
        for name, ids in zip("ab", SPLITS, strict=True):
            home = folder / name
            home.mkdir()
            port = free_port()
            env = environment(home, clock, **telegram_variables(tg), **discord_variables(dc),
                              CLUBRATING_DB=database, DISCORD_SHARD_COUNT=str(SHARDS),
                              DISCORD_SHARD_IDS=ids, TELEGRAM_WEBHOOK_URL=HOOK,
                              TELEGRAM_WEBHOOK_SECRET=SECRET,
                              TELEGRAM_WEBHOOK_LISTEN=f"127.0.0.1:{port}",
                              CLUBRATING_POST_WINDOW=f"{WINDOW:.0f}s")
            self.bots.append(Bot(env, home / "bot.log"))
            hooks.append(f"http://127.0.0.1:{port}/telegram/hook")
        tg.balancer = hooks
        #: where each process's log began at its latest start
        self.started = [0, 0]
        #: the Discord shards of a killed process not yet serving again
        self.down: set[int] = set()
        #: when a process was killed (monotonic) and its Discord shards
        self.kills: list[tuple[float, set[int]]] = []
        self.restarts: list[asyncio.Task[None]] = []
        #: after each kill: how long each of its shards was without a process
        self.gaps: list[str] = []

    async def start(self, n: int) -> None:
        self.started[n] = len(self.bots[n].text())
        await self.bots[n].start(SERVING)

    async def start_all(self) -> None:
        await asyncio.gather(*(self.start(n) for n in range(len(self.bots))))

    async def stop_all(self) -> list[int]:
        return [await bot.stop() for bot in self.bots]

    def scheduler(self) -> int | None:
        """The process holding the scheduler role since its latest start."""
        held = [n for n, bot in enumerate(self.bots)
                if SCHEDULER in bot.text()[self.started[n]:]]
        return held[0] if len(held) == 1 else None

    async def kill_scheduler(self) -> int:
        """SIGKILL the scheduler role's holder and start it again (in the background); its
        index."""
        holder = self.scheduler()
        assert holder is not None, "no single holder of the scheduler role"
        first, last = SPLITS[holder].split("-")
        shards = set(range(int(first), int(last) + 1))
        self.down |= shards
        self.kills.append((time.monotonic(), shards))
        await self.bots[holder].kill()

        async def again() -> None:
            killed = time.monotonic()
            ready: dict[int, float] = {}
            start = asyncio.create_task(self.start(holder))
            bot = self.bots[holder]
            while set(ready) != shards:
                await asyncio.sleep(0.05)
                for s, _, _ in SHARD_READY.findall(bot.text()[self.started[holder]:]):
                    ready.setdefault(int(s), time.monotonic() - killed)
            await start
            self.down -= shards
            self.gaps.append(f"process {'ab'[holder]}: " + ", ".join(
                f"shard {s} ready {ready[s]:.1f} s after the kill" for s in sorted(ready)))

        self.restarts.append(asyncio.create_task(again()))
        return holder

    async def stop(self) -> list[int]:
        await asyncio.gather(*self.restarts, return_exceptions=True)
        return [await bot.stop() for bot in self.bots]

    def errors(self) -> list[str]:
        return [line for bot in self.bots for line in bot.text().splitlines()
                if " ERROR " in line or "Traceback" in line]


async def weekly_run(processes: Processes, nine: float) -> list[str]:
    """Kill the scheduler's holder at 30 % and 70 % of the window that opens at ``nine`` (Unix
    time: 09:00 by the processes' clock). What was done."""
    done = []
    for share in (0.3, 0.7):
        await asyncio.sleep(max(0.0, nine + share * WINDOW - time.time()))
        killed = await processes.kill_scheduler()
        done.append(f"{share:.0%} of the window: process {'ab'[killed]} (scheduler) killed, "
                    f"started again")
    return done


async def wait_for_posts(discord: DiscordClubs, telegram: TelegramClubs,
                         timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (len(discord.posts()) == len(discord.guilds)
                and len(telegram.posts()) == len(telegram.groups)):
            await asyncio.sleep(10.0)  # a duplicate would come within the senders' lease
            return
        await asyncio.sleep(1.0)


def post_counts(name: str, posts: collections.Counter[int], clubs: int) -> None:
    missing = sum(1 for n in range(clubs) if posts[n] == 0)
    twice = sum(count - 1 for count in posts.values() if count > 1)
    print(f"  {name:8} clubs {clubs:,}: posts {sum(posts.values()):,}, missing {missing}, "
          f"duplicates {twice}")


async def scenario(args: argparse.Namespace, server: str, folder: Path) -> None:
    dc, tg = TimedDiscord(), TimedTelegram()
    async with dc, tg:
        discord, telegram = DiscordClubs.on(dc, args.clubs), TelegramClubs.on(tg, args.clubs)
        clock = ShiftedClock(folder)
        processes = Processes(dc, tg, folder, clock, await fresh_schema(server))
        await processes.start_all()
        try:
            took = await set_up(discord, telegram, args.parallel)
            print(f"setup: {args.clubs:,} Discord guilds and {args.clubs:,} Telegram groups "
                  f"(2 registrations and a game each) in {took:.0f} s")
            # the clock moved while the processes are stopped, so that 09:00 of the next
            # Monday comes at 20 % of the load, the load starting once they serve again
            assert await processes.stop_all() == [0, 0]
            nine = time.time() + RESTART + 0.2 * args.seconds
            now = datetime.now(UTC).replace(tzinfo=None)
            monday = next_monday_nine(now)
            clock.shift((monday - now).total_seconds() - (nine - time.time()))
            await processes.start_all()
            await asyncio.sleep(max(0.0, nine - 0.2 * args.seconds - time.time()))
            for fake in (dc.flood_control, tg.flood_control):
                fake.sends.clear()
                fake.on = True
            dc.errors.clear()
            tg.errors.clear()
            weekly = asyncio.create_task(weekly_run(processes, nine))
            phase = await load(discord, telegram, args.rate, args.seconds, 41, processes)
            done = await weekly
            # a killed process's rows wait for its lease (120 s) to end
            await wait_for_posts(discord, telegram, nine + WINDOW + 180.0 - time.time())
            await asyncio.gather(*processes.restarts)
            reference = await load(discord, telegram, args.rate / 10,
                                   max(30.0, args.seconds / 5), 42, processes)
            peaks = [peak_memory(bot) for bot in processes.bots]
        finally:
            stopped = await processes.stop()
        if args.keep is not None:
            phase.keep(folder / "latencies.csv")
            reference.keep(folder / "latencies-reference.csv")
        report(f"load at {args.rate:g}/s, weekly run during it", phase)
        report(f"reference: the same load at {args.rate / 10:g}/s, no weekly run", reference)
        print(f"\nweekly run of {2 * args.clubs:,} clubs, window {WINDOW:.0f} s")
        for line in done + processes.gaps:
            print(f"  {line}")
        post_counts("discord", discord.posts(), args.clubs)
        post_counts("telegram", telegram.posts(), args.clubs)
        refused = collections.Counter(e[1] for e in tg.errors)
        print(f"  telegram: most sends in any second {tg.flood_control.most(1.0)} (limit 30), "
              f"in any minute of one group "
              f"{max(tg.flood_control.most(60.0, g.id) for g in telegram.groups)} (limit 20); "
              f"answers refused {dict(refused)}")
        statuses = collections.Counter(e[0] for e in dc.errors)
        print(f"  discord: most REST calls in any second {dc.flood_control.most(1.0)} "
              f"(limit 50); answers refused {dict(statuses)}")
        print("\npeak memory (VmHWM): "
              + ", ".join(f"process {'ab'[n]} {mib} MiB" for n, mib in enumerate(peaks))
              + f"; exit statuses {stopped}")
        errors = processes.errors()
        print(f"ERROR lines in the logs: {len(errors)}")
        for line in errors[:5]:
            print(f"  {line[:160]}")
        if phase.latencies["discord"]:
            print(f"\nratio p99 under load / reference: discord "
                  f"{ratio(phase, reference, 'discord')}, telegram "
                  f"{ratio(phase, reference, 'telegram')}")


def memory_guild(n: int) -> int:
    return (2_000_000 + n) << 22


async def write_clubs(database: str, clubs: int, parallel: int) -> float:
    """``clubs`` Discord clubs written through the service (as the bot would write them: alice
    and bob registered, a moderator's game between them); the seconds it took."""
    began = time.monotonic()
    repository = await open_repository(database)
    service = ClubService(repository, SystemClock())
    gate = asyncio.Semaphore(parallel)

    async def club(n: int) -> None:
        guild = str(memory_guild(n))
        async with gate:
            for user, name in (("3001", "alice"), ("3002", "bob")):
                await service.register(Caller("discord", guild, user, name))
            ada = Caller("discord", guild, "3000", "ada", moderator=True)
            await service.report(ada, UserRef("3002"), "win", player=UserRef("3001"))

    try:
        await asyncio.gather(*(club(n) for n in range(clubs)))
    finally:
        await repository.close()
    return time.monotonic() - began


async def memory(args: argparse.Namespace, server: str, folder: Path) -> None:
    """One process (every shard, the default cache) whose database holds ``--memory-clubs``
    clubs, each read once (``/top`` in its guild); its peak memory once ready (the reference)
    and after the reads."""
    database = await fresh_schema(server)
    wrote = await write_clubs(database, args.memory_clubs, args.parallel)
    dc = TimedDiscord()
    async with dc:
        alice = dc.user(3001, "alice")
        guilds = [dc.guild(memory_guild(n), f"club {n}") for n in range(args.memory_clubs)]
        members = [dc.member(guild, alice) for guild in guilds]
        home = folder / "memory"
        home.mkdir()
        bot = Bot(environment(home, None, **discord_variables(dc), CLUBRATING_DB=database),
                  home / "bot.log")
        await bot.start(r"serving discord")
        try:
            ready = peak_memory(bot)
            clubs = DiscordClubs(dc, guilds, [], members, [])
            clubs.readers = [alice]
            gate = asyncio.Semaphore(args.parallel)
            latencies: list[float] = []

            async def read(n: int) -> None:
                async with gate:
                    sent = time.monotonic()
                    answer = await clubs.read(n, top=True)
                    latencies.append(time.monotonic() - sent)
                    assert "alice" in answer, answer

            began = time.monotonic()
            await asyncio.gather(*(read(n) for n in range(args.memory_clubs)))
            took = time.monotonic() - began
            served = peak_memory(bot)
        finally:
            await bot.stop()
    print(f"\nmemory: {args.memory_clubs:,} clubs written through the service in {wrote:.0f} s; "
          f"one process, the default cache")
    print(f"  reference, ready before any read: peak {ready} MiB")
    print(f"  after /top in every one of them ({took:.0f} s, {percentiles(latencies)}): "
          f"peak {served} MiB (target < 500 MB)")


def ratio(phase: Load, reference: Load, platform: str) -> str:
    def p99(values: list[float]) -> float:
        return statistics.quantiles(values, n=100)[98] if len(values) >= 2 else float("nan")

    return f"{p99(phase.latencies[platform]) / p99(reference.latencies[platform]):.1f}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clubs", type=int, default=1_000, help="clubs on each platform")
    parser.add_argument("--rate", type=float, default=100.0, help="commands a second")
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--parallel", type=int, default=40, help="clubs set up at a time")
    parser.add_argument("--memory-clubs", type=int, default=10_000,
                        help="clubs of the memory scenario (0: none)")
    parser.add_argument("--no-load", action="store_true", help="the memory scenario alone")
    parser.add_argument("--keep", type=Path,
                        help="an empty folder to keep the logs and the latencies (CSV) in")
    args = parser.parse_args()
    with (tempfile.TemporaryDirectory(prefix="clubrating-scale-") as temp,
          pg_server.given_or_throwaway() as url):
        folder = args.keep or Path(temp)
        if not args.no_load:
            await scenario(args, url, folder)
        if args.memory_clubs:
            await memory(args, url, folder)


if __name__ == "__main__":
    asyncio.run(main())
