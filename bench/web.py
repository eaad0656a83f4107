"""The public web leaderboard under load (issue 35): the page of a 1,000-player ladder at 100
requests per second, beside a trivial aiohttp server sending a body of the same size.

    .venv/bin/python bench/web.py                        # about 110 s
    .venv/bin/python bench/web.py --seconds 5 --players 200 --games 4000
    .venv/bin/python bench/web.py --profile              # where a page's making goes (in-process)

The club is what a club has: an EVENTS.csv of ``--games`` (20,000) games among ``--players``
(1,000) over ``--days`` (180) days up to an hour ago (players of unequal strength and activity),
imported with ``clubrating import``; a moderator sets ``/set public on`` through the service. Then
``clubrating web --listen 127.0.0.1:PORT`` is started as a process on that SQLite file (under
libfaketime, for run (a): moved by nothing before it), and a client in this process sends an
open load of ``--rate`` (100) requests a second: each request leaves on schedule, whatever the
answers, on a pool of keep-alive connections (aiohttp's client). A latency runs from the moment
the request was due to the last byte of the answer.

- cold: the first request after the start (the club's log read and rated).
- (b) ``/l/SLUG`` again and again: the page kept for its ETag; ``.json`` the same.
- (c) ``/l/SLUG`` with ``If-None-Match``: 304 and no body.
- (d) a game reported and confirmed every ``--every`` (2) s by a member in another process (the
  service on the same file, as the bot is): each event changes the ETag and the page is made
  again. "first after a change": the first request that got each new ETag; "all": every request
  of the run.
- (a) a new day every ``--every`` s: the web process's calendar moved on a day (libfaketime,
  its clocks all moved as a suspended machine's would), nothing in the log changes, and the
  page is made again for its new ETag. (libfaketime reads its file at most once a second, so
  some days may be seen together. Its clocks are all moved: with FAKETIME_DONT_FAKE_MONOTONIC,
  which would leave asyncio's alone, every request cost six times the CPU and p99 went from 3
  to 60 ms in every run, cached pages too; with them all moved it costs nothing measurable.)
- reference: the same load against a trivial aiohttp handler answering the board's very bytes,
  a process of its own started the same way: the floor of serving that body from Python on this
  machine at this moment. Judge by the ratio.

Then the resident memory of the web process. Target (issue 35): p99 < 50 ms at 100 requests/s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import math
import multiprocessing
import os
import pstats
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path

import aiohttp
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.roundtrip import percentile  # noqa: E402
from tests.system.process import CLUBRATING, LIBFAKETIME, environment  # noqa: E402

PLATFORM, CHAT = "bench", "club"
SLUG = "main"
TARGET_MS = 50.0
#: the two members of the games added during run (d), registered by the writer
WRITERS = ("writer_a", "writer_b")


# -- the club --------------------------------------------------------------------------------


def write_history(path: Path, players: int, games: int, days: float, seed: int) -> datetime:
    """An EVENTS.csv of ``games`` games among ``players`` members over ``days`` days up to an
    hour ago: each member has a strength (their wins follow it) and an activity (a few play
    most of the games). The last game's time."""
    rng = random.Random(seed)
    names = [f"member{n:04d}" for n in range(players)]
    strength = [rng.gauss(0.0, 1.0) for _ in names]
    activity = [rng.paretovariate(1.5) for _ in names]
    end = datetime.now(UTC).replace(tzinfo=None, microsecond=0) - timedelta(hours=1)
    first = end - timedelta(days=days)
    moments = sorted(rng.uniform(0.0, days * 86400.0) for _ in range(games))
    lines = ["played_at,event,player_a,player_b,score_a"]
    for a, b, at in zip(rng.choices(range(players), activity, k=games),
                        rng.choices(range(players), activity, k=games), moments, strict=True):
        if a == b:
            b = (b + 1 + rng.randrange(players - 1)) % players
        expected = 1.0 / (1.0 + math.exp(strength[b] - strength[a]))
        draw = 0.15
        roll = rng.random()
        score = "1" if roll < expected - draw / 2 else "0.5" if roll < expected + draw / 2 else "0"
        when = first + timedelta(seconds=int(at))
        lines.append(f"{when.isoformat()},,{names[a]},{names[b]},{score}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return first + timedelta(seconds=int(moments[-1]))


def writer(database: str, conn: Connection) -> None:
    """A process holding the service on the club's file (as the bot does): sets the ladder
    public, registers the two members of run (d), then adds a reported and confirmed game at
    each ``"game"`` until ``"stop"``."""
    asyncio.run(_writer(database, conn))


async def _writer(database: str, conn: Connection) -> None:
    from bot.service.clock import SystemClock
    from bot.service.club import Caller, ClubService
    from bot.storage.backends import open_repository

    def caller(user: str, moderator: bool = False, request: str | None = None) -> Caller:
        return Caller(PLATFORM, CHAT, user, user, moderator, request)

    repository = await open_repository(database)
    try:
        service = ClubService(repository, SystemClock())
        answer = await service.set_setting(caller("mod", moderator=True), "public", "on")
        for name in WRITERS:
            await service.register(caller(name))
        conn.send(answer.params["path"])
        n = 0
        loop = asyncio.get_running_loop()
        while (order := await loop.run_in_executor(None, conn.recv)) != "stop":
            assert order == "game"
            me, them = WRITERS if n % 2 == 0 else WRITERS[::-1]
            reported = await service.report(caller(me, request=f"r{n}"), them,
                                            ("win", "draw", "loss")[n % 3])
            await service.confirm(caller(them, request=f"c{n}"), reported.game.id)
            conn.send(time.monotonic())
            n += 1
    finally:
        await repository.close()


# -- the servers -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def reference_server(port: int, body_file: Path) -> None:
    """The reference: a trivial aiohttp handler answering a static body (``--reference``)."""
    body = body_file.read_bytes()

    async def page(request: web.Request) -> web.Response:
        return web.Response(body=body, headers={
            "Content-Type": "text/html; charset=utf-8", "ETag": '"1"', "Cache-Control": "no-cache"})

    app = web.Application()
    app.router.add_get("/page", page)
    web.run_app(app, host="127.0.0.1", port=port, access_log=None, print=None)


class Server:
    """A server process (``command``) with its log in a file; ready when it answers."""

    def __init__(self, command: list[str], env: Mapping[str, str], log: Path, port: int) -> None:
        self.command = command
        self.env = dict(env)
        self.log = log
        self.url = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    async def start(self, session: aiohttp.ClientSession) -> Server:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command, env=self.env, stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while True:  # a path no page has: the 404 page reads no log
            try:
                async with session.get(f"{self.url}/ready-probe") as answer:
                    await answer.read()
                    return self
            except aiohttp.ClientConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{self.command[0]} did not start:\n"
                                       f"{self.log.read_text(errors='replace')[-3000:]}") from None
                await asyncio.sleep(0.05)

    def memory(self) -> tuple[int, int]:
        """Resident and peak resident memory, in bytes."""
        assert self.process is not None
        fields = dict(line.split(":", 1) for line in
                      Path(f"/proc/{self.process.pid}/status").read_text().splitlines())
        return (int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024)

    def cpu(self) -> float:
        """The process's CPU seconds so far."""
        assert self.process is not None
        values = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(values[11]) + int(values[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextlib.asynccontextmanager
async def running(server: Server, session: aiohttp.ClientSession) -> AsyncIterator[Server]:
    try:
        yield await server.start(session)
    finally:
        server.stop()


# -- the load --------------------------------------------------------------------------------


@dataclass
class Sample:
    due: float
    started: float = 0.0
    done: float = 0.0
    status: int = 0
    etag: str = ""
    size: int = 0
    error: str = ""

    @property
    def latency(self) -> float:
        return self.done - self.due


@dataclass
class Run:
    label: str
    samples: list[Sample]
    cpu: float  # the server's CPU seconds during the run
    seconds: float
    subset: str = ""  # a part of the samples shown on their own: "first after a change"
    changes: int = 0

    def picked(self) -> list[Sample]:
        if self.subset != "first":
            return self.samples
        first: dict[str, Sample] = {}
        for sample in sorted(self.samples, key=lambda s: s.started):
            first.setdefault(sample.etag, sample)
        return sorted(first.values(), key=lambda s: s.started)[1:]  # the run's first ETag: none

    def failures(self) -> int:
        return sum(1 for s in self.samples if s.error or s.status not in (200, 304))


async def open_load(session: aiohttp.ClientSession, url: str, rate: float, seconds: float,
                    headers: Mapping[str, str] | None = None,
                    change: Callable[[], Awaitable[None]] | None = None,
                    every: float = 0.0) -> list[Sample]:
    """``rate`` requests a second for ``seconds``, each sent when due whatever the answers;
    ``change`` called every ``every`` seconds meanwhile (from 0.5 s on)."""
    samples: list[Sample] = []
    tasks: list[asyncio.Task[None]] = []

    async def one(sample: Sample) -> None:
        sample.started = time.perf_counter()
        try:
            async with session.get(url, headers=headers) as answer:
                body = await answer.read()
                sample.status, sample.size = answer.status, len(body)
                sample.etag = answer.headers.get("ETag", "")
        except (aiohttp.ClientError, OSError) as error:
            sample.error = repr(error)
        sample.done = time.perf_counter()

    async def changing(begin: float) -> None:
        assert change is not None
        k = 0
        while (due := begin + 0.5 + k * every) < begin + seconds:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            await change()
            k += 1

    begin = time.perf_counter()
    changer = asyncio.create_task(changing(begin)) if change is not None else None
    for n in range(int(rate * seconds)):
        due = begin + n / rate
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        sample = Sample(due)
        samples.append(sample)
        tasks.append(asyncio.create_task(one(sample)))
    await asyncio.gather(*tasks)
    if changer is not None:
        await changer
    return samples


async def measured(server: Server, label: str, load: Awaitable[list[Sample]],
                   seconds: float, subset: str = "") -> Run:
    cpu = server.cpu()
    samples = await load
    return Run(label, samples, server.cpu() - cpu, seconds, subset)


async def warm(session: aiohttp.ClientSession, url: str, times: int = 20) -> bytes:
    body = b""
    for _ in range(times):
        async with session.get(url) as answer:
            body = await answer.read()
    return body


# -- the report ------------------------------------------------------------------------------


def row(run: Run, reference_p99: float | None) -> str:
    picked = run.picked()
    ms = [s.latency * 1000 for s in picked if not s.error]
    if not ms:
        return f"{run.label:<58} (no samples)"
    p99 = percentile(ms, 0.99)
    ratio = f"{p99 / reference_p99:6.1f}" if reference_p99 else "     -"
    over = sum(1 for x in ms if x >= TARGET_MS)
    return (f"{run.label:<58} {len(ms):>5} {statistics.median(ms):7.1f} "
            f"{percentile(ms, 0.95):7.1f} {p99:7.1f} {max(ms):7.1f} {ratio} {over:>6}")


def report(runs: list[Run], reference: Run, cold: float, memory: list[tuple[int, int]],
           reference_memory: tuple[int, int], page_bytes: int) -> None:
    reference_p99 = percentile([s.latency * 1000 for s in reference.samples], 0.99)
    print()
    print(f"{'':<58} {'n':>5} {'p50':>7} {'p95':>7} {'p99':>7} {'max':>7} {'/ref':>6} "
          f"{'>=50ms':>6}   (ms; p99/ref: the p99 over the reference's)")
    print(f"{'cold: the first request after the start':<58} {1:>5} {cold * 1000:7.1f}")
    for run in [*runs, reference]:
        print(row(run, reference_p99))
    print()
    for run in [*runs, reference]:
        achieved = len(run.samples) / run.seconds
        lag = max(s.started - s.due for s in run.samples) * 1000
        print(f"  {run.label.strip():<56} {achieved:5.0f} req/s offered, server CPU "
              f"{run.cpu / run.seconds:4.0%} of a core, "
              f"{run.cpu / len(run.samples) * 1000:5.2f} ms a request; client lag max {lag:.1f} ms"
              + (f"; {run.changes} changes seen" if run.subset else "")
              + "; " + ", ".join(f"{n} x {code}" for code, n in sorted(
                  Counter(s.status for s in run.samples).items()))
              + (f"; {run.failures()} FAILED" if run.failures() else ""))
    print()
    mb = [f"{rss / 2**20:.0f}" for rss, _ in memory]
    print(f"web process, resident: {mb[0]} MB after the first pages, {mb[1]} MB after (b) and "
          f"(c), {mb[2]} MB after the load (peak {memory[-1][1] / 2**20:.0f} MB); the "
          f"reference server {reference_memory[0] / 2**20:.0f} MB; the page {page_bytes:,} bytes")
    print()
    print("target p99 < 50 ms at 100 requests/s:")
    for run in runs:
        ms = [s.latency * 1000 for s in run.picked() if not s.error]
        if ms:
            p99 = percentile(ms, 0.99)
            verdict = ("met" if p99 < TARGET_MS else
                       f"MISSED by {p99 - TARGET_MS:.1f} ms (x{p99 / TARGET_MS:.2f})")
            print(f"  {run.label.strip():<56} p99 {p99:7.1f} ms: {verdict}")


# -- the whole run ---------------------------------------------------------------------------


async def bench(args: argparse.Namespace, folder: Path) -> None:
    database = folder / "club.db"
    events = folder / "EVENTS.csv"
    last = write_history(events, args.players, args.games, args.days, args.seed)
    env = environment(folder, None)
    begin = time.perf_counter()
    imported = subprocess.run([CLUBRATING, "import", "--chat", f"{PLATFORM}:{CHAT}", str(events)],
                              env=env, capture_output=True, text=True, timeout=120)
    if imported.returncode != 0:
        raise RuntimeError(f"clubrating import: {imported.stderr}")
    print(f"club: {args.games:,} games among {args.players:,} members over {args.days:g} days "
          f"(the last {last:%Y-%m-%d %H:%M} UTC), `clubrating import` "
          f"{time.perf_counter() - begin:.1f} s: {imported.stdout.strip()}")

    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    writing = context.Process(target=writer, args=(str(database), theirs), daemon=True)
    writing.start()
    loop = asyncio.get_running_loop()
    path = await loop.run_in_executor(None, ours.recv)
    print(f"/set public on (a moderator, through the service): {path}")

    day = folder / "faketime"
    day.write_text("+0d\n", encoding="utf-8")
    web_env = dict(env)
    if LIBFAKETIME is not None:
        web_env |= {"LD_PRELOAD": LIBFAKETIME, "FAKETIME_TIMESTAMP_FILE": str(day),
                    "FAKETIME_CACHE_DURATION": "1"}
    port = free_port()
    site = Server([CLUBRATING, "web", "--listen", f"127.0.0.1:{port}"], web_env,
                  folder / "web.log", port)
    page = f"{site.url}/l/{SLUG}"
    rate, seconds = args.rate, args.seconds
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        async with running(site, session):
            begin = time.perf_counter()
            async with session.get(page) as answer:
                body = await answer.read()
                etag = answer.headers["ETag"]
                assert answer.status == 200, answer.status
            cold = time.perf_counter() - begin
            await warm(session, page)
            await warm(session, f"{page}.json")
            memory = [site.memory()]
            runs: dict[str, Run] = {}
            runs["b"] = await measured(site, "(b) the board, kept for its ETag",
                                       open_load(session, page, rate, seconds), seconds)
            runs["b2"] = await measured(site, "    its .json, kept for its ETag",
                                        open_load(session, f"{page}.json", rate, seconds), seconds)
            runs["c"] = await measured(site, "(c) the board with If-None-Match: 304",
                                       open_load(session, page, rate, seconds,
                                                 {"If-None-Match": etag}), seconds)
            memory.append(site.memory())

            async def game() -> None:
                ours.send("game")
                await loop.run_in_executor(None, ours.recv)

            long = 3 * seconds
            cpu = site.cpu()
            samples = await open_load(session, page, rate, long, change=game, every=args.every)
            runs["d"] = Run(f"(d) a game every {args.every:g} s: first request after each change",
                            samples, site.cpu() - cpu, long, "first")
            runs["d2"] = Run("    every request of that run", samples, 0.0, long)
            days = 0

            async def new_day() -> None:
                nonlocal days
                days += 1
                staged = day.with_suffix(".new")
                staged.write_text(f"+{days}d\n", encoding="utf-8")
                staged.replace(day)

            if LIBFAKETIME is not None:
                cpu = site.cpu()
                samples = await open_load(session, page, rate, long, change=new_day,
                                          every=args.every)
                runs["a"] = Run(f"(a) a new day every {args.every:g} s: first request after "
                                "each change",
                                samples, site.cpu() - cpu, long, "first")
                runs["a2"] = Run("    every request of that run", samples, 0.0, long)
            memory.append(site.memory())
            ours.send("stop")
        writing.join(30)

        body_file = folder / "body.html"
        body_file.write_bytes(body)
        port = free_port()
        plain = Server([sys.executable, __file__, "--reference", str(port), str(body_file)],
                       env, folder / "reference.log", port)
        async with running(plain, session):
            await warm(session, f"{plain.url}/page")
            reference = await measured(plain, "reference: a static body of the same size",
                                       open_load(session, f"{plain.url}/page", rate, seconds),
                                       seconds)
            reference_memory = plain.memory()

    for key in ("d", "a"):
        if key in runs:
            runs[key].changes = len(runs[key].picked())
            runs[key + "2"].cpu = runs[key].cpu
    order = [runs[k] for k in ("a", "a2", "b", "b2", "c", "d", "d2") if k in runs]
    if LIBFAKETIME is None:
        print("(a) skipped: libfaketime is missing (apt-get install faketime)")
    report(order, reference, cold, memory, reference_memory, len(body))


# -- where a page's making goes --------------------------------------------------------------


async def profile(args: argparse.Namespace, folder: Path) -> None:
    """The same club in this process; a board made again and again: the parts timed, then
    cProfile's functions."""
    from bot.history import read_events
    from bot.service import public, timeline, view
    from bot.service.clock import SystemClock
    from bot.service.club import Caller, ClubService
    from bot.storage.backends import open_repository
    from bot.web import pages

    events = folder / "EVENTS.csv"
    write_history(events, args.players, args.games, args.days, args.seed)
    repository = await open_repository(str(folder / "club.db"))
    try:
        service = ClubService(repository, SystemClock())
        history = read_events(events)
        await service.import_history(PLATFORM, CHAT, history, history.labels)
        await service.set_setting(Caller(PLATFORM, CHAT, "mod", "mod", True), "public", "on")
        await service.public_version(SLUG)
        now = service.clock.now()
        times: dict[str, list[float]] = {}

        def timed(name: str, work: Callable[[], object]) -> object:
            begin = time.perf_counter()
            value = work()
            times.setdefault(name, []).append(time.perf_counter() - begin)
            return value

        def parts(club: view.Club) -> None:
            ladder = club.state.ladders[SLUG]
            timed("view.board (the chat's /top)", lambda: view.board(club, ladder))
            frozen = timed("timeline.freeze", lambda: timeline.freeze(
                club.ratings[ladder.name], club.state))
            week_ago = now - timedelta(days=public.CHANGE_DAYS)
            timed("timeline.frozen_state_at (a week ago)", lambda: timeline.frozen_state_at(
                frozen, week_ago))  # type: ignore[arg-type]
            timed("  of which timeline.position_at", lambda: timeline.position_at(
                frozen, week_ago))  # type: ignore[arg-type]
            timed("public._records (W/D/L)", lambda: public._records(club, ladder))
            timed("public.board (all of the above and the rows)",
                  lambda: public.board(club, ladder, now))

        found = await service._public_ladder(SLUG)  # the bench looks inside
        assert found is not None
        for _ in range(args.runs):
            await service._session.read(found[0], parts)
            begin = time.perf_counter()
            await service.public_version(SLUG)
            times.setdefault("service.public_version (each request)", []).append(
                time.perf_counter() - begin)
            begin = time.perf_counter()
            made = await service.public_board(SLUG, now)
            times.setdefault("service.public_board", []).append(time.perf_counter() - begin)
            assert made is not None
            begin = time.perf_counter()
            html = pages.board(made)
            times.setdefault("pages.board (Jinja2)", []).append(time.perf_counter() - begin)
            begin = time.perf_counter()
            html.encode()
            times.setdefault("encoding the page (each request)", []).append(
                time.perf_counter() - begin)
        print(f"a board of {args.players:,} players, {args.games:,} games; median of {args.runs}:")
        for name, values in times.items():
            print(f"  {name:<50} {statistics.median(values) * 1000:7.1f} ms")

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.runs):
            shown = await service.public_board(SLUG, now)
            assert shown is not None
            pages.board(shown)
        profiler.disable()
        print(f"\ncProfile of {args.runs} boards made (service.public_board + pages.board):")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(18)
    finally:
        await repository.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--days", type=float, default=180.0)
    parser.add_argument("--rate", type=float, default=100.0, help="requests a second")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="each run's length ((a) and (d): three times that)")
    parser.add_argument("--every", type=float, default=2.0,
                        help="seconds between the games of run (d), the days of run (a)")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--profile", action="store_true",
                        help="instead: where the making of a board goes, in this process")
    parser.add_argument("--runs", type=int, default=10, help="boards made with --profile")
    parser.add_argument("--reference", nargs=2, metavar=("PORT", "BODY_FILE"),
                        help=argparse.SUPPRESS)  # the reference server's own process
    args = parser.parse_args()
    if args.reference:
        reference_server(int(args.reference[0]), Path(args.reference[1]))
        return
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run((profile if args.profile else bench)(args, Path(folder)))


if __name__ == "__main__":
    main()
