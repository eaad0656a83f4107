"""Starting the bot: the database, the service, and the front-ends the environment asks for.

The composition root: the environment is read here, once (:class:`bot.settings.Settings`), and
what it says is passed down - the database to open, the one rate limiter the chat platforms
share (the console, the operator's own terminal, is never limited), the platforms' addresses,
the daily backups.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bot.chat.forward import Forwarder
from bot.chat.posts import ChatPosts
from bot.chat.ratelimit import RateLimiter
from bot.errors import ConfigError, StartupError
from bot.ops.backup import start_daily_backups
from bot.ops.heartbeat import HEARTBEAT_FILE, Heartbeat
from bot.ops.redaction import redact_in_logs
from bot.scheduling.publishing import Publisher
from bot.scheduling.scheduler import PostScheduler
from bot.scheduling.sender import PostSender
from bot.settings import Settings, database_from_environment

from .adapters.console import ConsolePublisher, run_console
from .adapters.roles import SCHEDULER, Role
from .service.cache import DEFAULT_CAPACITY
from .service.clock import SystemClock
from .service.club import ClubService
from .storage.backends import describe, is_postgres, open_repository
from .storage.errors import DatabaseUnavailable
from .storage.pictures import PictureStore
from .storage.repository import Repository
from .web.server import serve as public_site

if TYPE_CHECKING:
    from .adapters.telegram import Webhook

log = logging.getLogger(__name__)


#: seconds a stopping bot gives itself before it exits anyway: inside the 30 s that Docker
#: (stop_grace_period) and systemd (TimeoutStopSec) wait before they kill it
STOP_SECONDS = 25.0


async def open_service(database: str, backups: Path | None = None,
                       cache_clubs: int = DEFAULT_CAPACITY, keep_snapshots: bool = True,
                       ) -> tuple[ClubService, Repository]:
    """The service on ``database`` (``CLUBRATING_DB``'s value); a database that cannot be
    opened is a :class:`StartupError` naming the setting. An older SQLite database is copied
    into ``backups`` before it is migrated. ``cache_clubs``: ``CLUBRATING_CACHE_CLUBS``;
    ``keep_snapshots``: False for the shell's commands that only read."""
    try:
        repository = await open_repository(database, backups)
    except DatabaseUnavailable as error:
        raise StartupError(f"CLUBRATING_DB: {error}") from error
    return ClubService(repository, SystemClock(), cache_clubs, keep_snapshots), repository


def telegram_webhook(settings: Settings) -> Webhook | None:
    """``TELEGRAM_WEBHOOK_URL`` switches from long polling to a webhook;
    ``TELEGRAM_WEBHOOK_LISTEN`` (default 0.0.0.0:8443) and ``TELEGRAM_WEBHOOK_SECRET``
    (default: a fresh random one) complete it."""
    from .adapters.telegram import Webhook

    url = settings.telegram_webhook_url
    if not url:
        return None
    host, port = settings.telegram_webhook_listen
    if not settings.telegram_webhook_secret and is_postgres(settings.database):
        # Each process sets the webhook at its start: with a secret of its own, Telegram
        # would know only the last one's, and every other process would refuse its POSTs.
        log.warning("TELEGRAM_WEBHOOK_SECRET is not set: with a random one each, only the "
                    "process started last receives Telegram's updates; give every process one "
                    "secret")
    secret = settings.telegram_webhook_secret or secrets.token_urlsafe(32)
    redact_in_logs(secret)
    return Webhook(url, host, port, secret)


def stop_on_signals(deadline: float = STOP_SECONDS) -> asyncio.Event:
    """An event set by SIGINT or SIGTERM: every front-end of the process stops on it. The
    handlers are the process's own, so they hold when it is PID 1 in a container (where a
    signal without a handler is ignored). The first signal also starts a watch: a stop that
    has not ended ``deadline`` seconds later (a platform that does not answer, a stuck job)
    ends the process with status 0 all the same. Nothing acknowledged is lost that way: a
    result is committed before it is answered."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def requested(sig: signal.Signals) -> None:
        if not stop.is_set():
            log.info("%s: stopping", sig.name)
            watch = threading.Timer(deadline, _give_up, args=(deadline,))
            watch.daemon = True
            watch.start()
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, requested, sig)
    return stop


def _give_up(deadline: float) -> None:
    """The stop took longer than ``deadline``: exit now (from the watch's own thread, so a
    blocked event loop cannot hold it)."""
    log.warning("the bot did not stop within %.0f s; exiting anyway", deadline)
    logging.shutdown()
    os._exit(0)


def keep_chart_cache_in(data_dir: Path) -> None:
    """matplotlib keeps its font cache in ``MPLCONFIGDIR``, by default in the home folder,
    which a service's user may not have (or may not write: ``ProtectSystem=strict``, a
    read-only container). Unless the operator chose a folder, it goes into the data folder's
    ``cache/``, or the system's temporary folder when the data folder cannot take it. Set
    before matplotlib is imported."""
    if os.environ.get("MPLCONFIGDIR"):
        return
    for folder in (data_dir / "cache" / "matplotlib",
                   Path(tempfile.gettempdir()) / f"clubrating-matplotlib-{os.getuid()}"):
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            os.environ["MPLCONFIGDIR"] = str(folder)
            return


class ScheduledPosts:
    """The scheduler role's work (issue 41): a PostScheduler made anew each time the role is
    taken (a new one builds its jobs from its first poll; one stopped keeps none)."""

    def __init__(self, make: Callable[[], PostScheduler]) -> None:
        self._make = make
        self._running: PostScheduler | None = None

    async def start(self) -> None:
        self._running = self._make()
        await self._running.start()

    async def failed(self) -> None:
        await asyncio.Event().wait()  # a failed poll or post is the scheduler's own to retry

    async def stop(self) -> None:
        running, self._running = self._running, None
        if running is not None:
            await running.stop()


class FrontEnd(Protocol):
    """A chat platform as the process runs it (``TelegramBot``, ``DiscordBot``): built with
    its publisher, then started, watched and stopped."""

    @property
    def platform(self) -> str: ...

    @property
    def publisher(self) -> Publisher: ...

    async def start(self) -> None:
        """Connected and serving when it returns; raises when the platform refuses."""
        ...

    async def failed(self) -> None:
        """Returns (or raises) when the front-end stops serving by itself."""
        ...

    async def stop(self) -> None: ...

    def explain(self, error: Exception) -> StartupError | None:
        """What to check when the platform refused to start or stopped with ``error``, in one
        line without a secret (a :class:`ConfigError` when a setting must change); None when
        the front-end cannot say."""
        ...


def build_front_ends(service: ClubService, limiter: RateLimiter, settings: Settings,
                     pulse: Callable[[str], None] = lambda platform: None,
                     repository: Repository | None = None) -> list[FrontEnd]:
    """Telegram when its token is set (``TELEGRAM_BASE_URL``: another Bot API server; a
    webhook, see :func:`telegram_webhook`), Discord when its token is set
    (``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` put a proxy in front of Discord's REST API
    and gateway; ``DISCORD_GUILD_ID`` syncs the slash commands to that guild alone, at once,
    instead of globally), all counting commands with ``limiter`` and calling ``pulse`` with
    their platform's name whenever the platform answers (:mod:`bot.ops.heartbeat`). The
    database (``repository``) keeps what Telegram's long polling receives until it is handled,
    and shares the Discord shards, their IDENTIFY turns and the slash commands' hash between
    the bot's processes, and counts the processes sharing each token's rate budget
    (:mod:`bot.adapters.budget`). Each platform's library is imported only when it is asked for."""
    built: list[FrontEnd] = []
    # a report against a member of another chat of the club is posted there (issue 35)
    forward = Forwarder(service)
    if settings.telegram_token:
        from .adapters.telegram import TelegramBot

        built.append(TelegramBot(service, limiter, settings.telegram_token,
                                 settings.telegram_base_url, telegram_webhook(settings),
                                 pulse=partial(pulse, "telegram"),
                                 pictures=PictureStore(settings.data_dir), forward=forward,
                                 repository=repository))
    if settings.discord_token:
        from .adapters.discord import DiscordBot

        shards = settings.discord_shards
        built.append(DiscordBot(service, limiter, settings.discord_token,
                                api_base=settings.discord_api_base,
                                gateway=settings.discord_gateway_url,
                                sync_guild=settings.discord_guild_id,
                                pulse=partial(pulse, "discord"),
                                pictures=PictureStore(settings.data_dir), forward=forward,
                                gateway_store=repository,
                                shard_count=shards.count if shards is not None else None,
                                shard_ids=shards.ids if shards is not None else (),
                                budget_slots=repository))
    forward.publishers = {front.platform: front.publisher for front in built}
    return built


def post_sender(service: ClubService, repository: Repository,
                publishers: Mapping[str, Publisher], settings: Settings) -> PostSender:
    """This process's sender of the outbox's posts (into the guilds of its Discord shards
    alone)."""
    shards = settings.discord_shards
    return PostSender(service, repository, publishers, SystemClock(), ChatPosts(),
                      store=PictureStore(settings.data_dir),
                      discord_shards=None if shards is None or shards.all
                      else (shards.count, shards.ids))


def post_scheduler(service: ClubService, repository: Repository,
                   publishers: Mapping[str, Publisher], settings: Settings,
                   sender: PostSender) -> PostScheduler:
    """The scheduler that enqueues the posts, spread over ``CLUBRATING_POST_WINDOW``, and
    tells this process's ``sender`` at once."""
    return PostScheduler(service, repository, publishers, SystemClock(), ChatPosts(),
                         window=settings.post_window, enqueued=sender.wake)


async def serve(service: ClubService, repository: Repository, front_ends: Sequence[FrontEnd],
                stop: asyncio.Event, settings: Settings, heartbeat: Heartbeat) -> None:
    """Run the chat platforms and what they post (and the daily backups ``settings`` ask for)
    until ``stop`` is set or a platform stops by itself. The order matters: the front-ends are
    built before the scheduler, so the scheduler knows every platform's publisher; they are
    started before it, so that its first post finds them connected; and they are stopped after
    it. The scheduler runs only while this process holds the ``scheduler`` role (one process
    of those on the database: :mod:`bot.adapters.roles`); alone on its database the process
    takes it at once. The heartbeat's file says which platforms are served from the start, and
    is gone once the bot stopped."""
    publishers = {front.platform: front.publisher for front in front_ends}
    # The sender runs in every process, the scheduler in the one holding its role.
    sender = post_sender(service, repository, publishers, settings)
    scheduler = Role(repository, SCHEDULER, ScheduledPosts(partial(
        post_scheduler, service, repository, publishers, settings, sender)))
    heartbeat.start(publishers)
    async with contextlib.AsyncExitStack() as running:
        running.callback(heartbeat.stop)
        for front in front_ends:
            running.push_async_callback(front.stop)
            try:
                await front.start()
            except Exception as error:
                raise platform_failure(front, error) from error
        running.push_async_callback(sender.stop)
        await sender.start()
        running.push_async_callback(scheduler.stop)
        await scheduler.start()
        backups = start_daily_backups(settings.database, settings.backups)
        if backups is not None:
            running.callback(backups.cancel)
        if settings.web_listen is not None:
            site = await public_site(service, settings.web_listen)
            running.push_async_callback(site.cleanup)
        # every process says so, whichever roles it holds (the scheduler's own line comes
        # from one process of those on the database)
        log.info("serving %s", ", ".join(front.platform for front in front_ends))
        watched: dict[asyncio.Future[object], FrontEnd | None] = {
            asyncio.ensure_future(stop.wait()): None,
            asyncio.ensure_future(scheduler.failed()): None}
        watched |= {asyncio.ensure_future(front.failed()): front for front in front_ends}
        try:
            done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in watched:
                task.cancel()
        for task in done:
            failure = None if task.cancelled() else task.exception()
            stopped = watched[task]
            if isinstance(failure, Exception) and stopped is not None:  # a token revoked, ...
                raise platform_failure(stopped, failure) from failure
            if failure is not None:
                raise failure


def platform_failure(front: FrontEnd, error: Exception) -> StartupError:
    """A platform's refusal or absence, in one line naming the setting to check (never the
    token: it is in some of these errors' own text)."""
    return front.explain(error) or StartupError(
        f"{front.platform} stopped: {type(error).__name__}: {error}")


async def run() -> None:
    """Telegram when ``TELEGRAM_TOKEN`` is set, Discord when ``DISCORD_TOKEN`` is (both at
    once when both are: one event loop, one service, one database); otherwise the console
    chat. SIGTERM or SIGINT stops it (also while it starts)."""
    stop = stop_on_signals()
    settings = Settings.from_environment()
    service, repository = await open_service(settings.database, settings.backup_folder,
                                             settings.cache_clubs)
    try:
        # Before the scheduler and the chats: their lookups across clubs read the directory,
        # which a database written by an earlier version lacks.
        await service.fill_directory()
        if settings.telegram_token or settings.discord_token:
            keep_chart_cache_in(settings.data_dir)
            from .chat.pictures import prepare as prepare_pictures

            # One limiter for the process: a member's commands count alike on every
            # front-end's handler.
            limiter = RateLimiter(service.clock, settings.rate)
            await prepare_pictures()  # matplotlib and fonts loaded, then out of the GC's way
            heartbeat = Heartbeat(settings.data_dir / HEARTBEAT_FILE)
            front_ends = build_front_ends(service, limiter, settings, heartbeat.beat,
                                         repository)
            await serve(service, repository, front_ends, stop, settings, heartbeat)
            return
        # The console is the operator's own terminal: nobody there is rate-limited, whatever
        # CLUBRATING_RATE_LIMIT says (it is the platforms' members' rate).
        await run_console_chat(service, repository, RateLimiter(service.clock, None),
                               settings, stop)
    finally:
        await repository.close()


async def run_console_chat(service: ClubService, repository: Repository, limiter: RateLimiter,
                           settings: Settings, stop: asyncio.Event) -> None:
    """The console chat on standard input and output, until its input ends or ``stop`` is
    set. With a terminal, scheduled posts are printed there too; a scripted session's output
    stays exactly its answers. Its heartbeat names no platform: it is healthy while it runs."""
    database = settings.database
    log.info("console chat on %s", describe(database))
    # The console is the chat: a log line per use case would come between the answers.
    logging.getLogger("bot.use_case").setLevel(logging.WARNING)
    interactive = sys.stdin.isatty()
    posts = ConsolePublisher(sys.stdout)
    sender = post_sender(service, repository, {"console": posts}, settings)
    scheduler = post_scheduler(service, repository, {"console": posts}, settings, sender)
    heartbeat = Heartbeat(settings.data_dir / HEARTBEAT_FILE)
    heartbeat.start(())
    if interactive:
        await sender.start()
        await scheduler.start()
    site = (None if settings.web_listen is None
            else await public_site(service, settings.web_listen))
    console = asyncio.ensure_future(run_console(service, limiter, sys.stdin, sys.stdout,
                                                interactive=interactive, posts=posts))
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({console, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        heartbeat.stop()
        for task in (console, stopped):
            task.cancel()
        await scheduler.stop()
        await sender.stop()
        if site is not None:
            await site.cleanup()
    if console.done() and not console.cancelled():
        console.result()  # its own failure, if any


async def run_web(listen: tuple[str, int]) -> None:
    """``clubrating web``: the public web leaderboard alone, reading the database
    ``CLUBRATING_DB`` names, until SIGTERM or SIGINT."""
    stop = stop_on_signals()
    service, repository = await open_service(database_from_environment())
    try:
        await service.fill_directory()  # the public ladders are found in it
        site = await public_site(service, listen)
        try:
            await stop.wait()
        finally:
            await site.cleanup()
    finally:
        await repository.close()


async def sync_discord_commands() -> str:
    """``clubrating sync-commands``: the Discord bot's slash commands written to Discord now
    (to ``DISCORD_GUILD_ID`` alone when set), whether or not they changed, and their hash kept
    in the database, so that the bot's next starts leave them alone until they change. What
    was done, in one line."""
    settings = Settings.from_environment()
    if not settings.discord_token:
        raise ConfigError("DISCORD_TOKEN is not set: sync-commands writes the Discord bot's "
                          "slash commands")
    service, repository = await open_service(settings.database, settings.backup_folder)
    try:
        from .adapters.discord import DiscordBot

        bot = DiscordBot(service, RateLimiter(service.clock, None), settings.discord_token,
                         api_base=settings.discord_api_base,
                         gateway=settings.discord_gateway_url,
                         sync_guild=settings.discord_guild_id, gateway_store=repository)
        synced = await bot.sync_commands()
    finally:
        await repository.close()
    where = ("globally" if settings.discord_guild_id is None
             else f"to the server {settings.discord_guild_id}")
    return f"synced {synced} slash commands {where}"
