"""Starting the bot: the database, the service, and the front-ends the environment asks for."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .adapters.console import ConsolePublisher, run_console
from .backup import start_daily_backups
from .publishing import Publisher
from .redaction import redact_in_logs
from .scheduler import PostScheduler
from .service.clock import SystemClock
from .service.club import ClubService
from .storage.backends import describe, open_repository
from .storage.repository import Repository

if TYPE_CHECKING:
    from .adapters.telegram import Webhook

log = logging.getLogger(__name__)

DEFAULT_DB = "clubrating.db"


def secret_from_environment(name: str) -> str | None:
    """A token from the variable ``name``, or from the file named by ``name_FILE`` (a mounted
    secret, kept out of the process environment). The error names the file, never its text."""
    value = os.environ.get(name)
    if value:
        return value.strip()
    path = os.environ.get(f"{name}_FILE")
    if not path:
        return None
    try:
        value = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not text"
        raise SystemExit(f"clubrating: {name}_FILE: cannot read {path} ({reason})") from None
    if not value:
        raise SystemExit(f"clubrating: {name}_FILE: {path} is empty")
    return value


def database_path() -> str:
    """``CLUBRATING_DB``: a ``postgresql://`` (or ``postgres://``) address selects the
    PostgreSQL backend, anything else is a SQLite file; ./clubrating.db by default."""
    return os.environ.get("CLUBRATING_DB") or DEFAULT_DB


async def open_service() -> tuple[ClubService, Repository]:
    repository = await open_repository(database_path())
    return ClubService(repository, SystemClock()), repository


def webhook_from_environment() -> Webhook | None:
    """``TELEGRAM_WEBHOOK_URL`` switches from long polling to a webhook;
    ``TELEGRAM_WEBHOOK_LISTEN`` (default 0.0.0.0:8443) and ``TELEGRAM_WEBHOOK_SECRET``
    (default: a fresh random one) complete it."""
    from .adapters.telegram import Webhook

    url = os.environ.get("TELEGRAM_WEBHOOK_URL")
    if not url:
        return None
    host, _, port = (os.environ.get("TELEGRAM_WEBHOOK_LISTEN") or "0.0.0.0:8443").rpartition(":")
    secret = os.environ.get("TELEGRAM_WEBHOOK_SECRET") or secrets.token_urlsafe(32)
    return Webhook(url, host or "0.0.0.0", int(port), secret)


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM: every front-end of the process stops on it."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


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


def front_ends_from_environment(service: ClubService, telegram_token: str | None,
                                discord_token: str | None) -> list[FrontEnd]:
    """Telegram when its token is set (``TELEGRAM_BASE_URL``: another Bot API server; a
    webhook, see :func:`webhook_from_environment`), Discord when its token is set
    (``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` put a proxy in front of Discord's REST API
    and gateway; ``DISCORD_GUILD_ID`` syncs the slash commands to that guild alone, at once,
    instead of globally). Each platform's library is imported only when it is asked for."""
    front_ends: list[FrontEnd] = []
    if telegram_token:
        from .adapters.telegram import TelegramBot

        front_ends.append(TelegramBot(service, telegram_token,
                                      os.environ.get("TELEGRAM_BASE_URL") or None,
                                      webhook_from_environment()))
    if discord_token:
        from .adapters.discord import DiscordBot

        guild = os.environ.get("DISCORD_GUILD_ID")
        front_ends.append(DiscordBot(service, discord_token,
                                     api_base=os.environ.get("DISCORD_API_BASE") or None,
                                     gateway=os.environ.get("DISCORD_GATEWAY_URL") or None,
                                     sync_guild=int(guild) if guild else None))
    return front_ends


async def serve(service: ClubService, repository: Repository, front_ends: Sequence[FrontEnd],
                stop: asyncio.Event) -> None:
    """Run the chat platforms and what they post until ``stop`` is set or a platform stops by
    itself. The order matters: the front-ends are built before the scheduler, so the scheduler
    knows every platform's publisher; they are started before it, so that its first post finds
    them connected; and they are stopped after it."""
    publishers = {front.platform: front.publisher for front in front_ends}
    scheduler = PostScheduler(service, repository, publishers, SystemClock())
    async with contextlib.AsyncExitStack() as running:
        for front in front_ends:
            running.push_async_callback(front.stop)
            await front.start()
        running.push_async_callback(scheduler.stop)
        await scheduler.start()
        backups = start_daily_backups(database_path())
        if backups is not None:
            running.callback(backups.cancel)
        watched: list[asyncio.Future[object]] = [asyncio.ensure_future(stop.wait())]
        watched += [asyncio.ensure_future(front.failed()) for front in front_ends]
        try:
            done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in watched:
                task.cancel()
        for task in done:
            if not task.cancelled():
                task.result()  # a platform's own failure (a refused token, ...)


async def run() -> None:
    """Telegram when ``TELEGRAM_TOKEN`` is set, Discord when ``DISCORD_TOKEN`` is (both at
    once when both are: one event loop, one service, one database); otherwise the console
    chat."""
    service, repository = await open_service()
    try:
        token = secret_from_environment("TELEGRAM_TOKEN")
        discord_token = secret_from_environment("DISCORD_TOKEN")
        redact_in_logs(token, discord_token, os.environ.get("TELEGRAM_WEBHOOK_SECRET"))
        if token or discord_token:
            from .charts.pictures import prepare as prepare_pictures

            await prepare_pictures()  # matplotlib and fonts loaded, then out of the GC's way
            front_ends = front_ends_from_environment(service, token, discord_token)
            await serve(service, repository, front_ends, stop_on_signals())
            return
        await run_console_chat(service, repository)
    finally:
        await repository.close()


async def run_console_chat(service: ClubService, repository: Repository) -> None:
    """The console chat on standard input and output. With a terminal, scheduled posts are
    printed there too; a scripted session's output stays exactly its answers."""
    log.info("console chat on %s", describe(database_path()))
    # The console is the chat: a log line per use case would come between the answers.
    logging.getLogger("bot.use_case").setLevel(logging.WARNING)
    interactive = sys.stdin.isatty()
    scheduler = PostScheduler(service, repository, {"console": ConsolePublisher(sys.stdout)},
                              SystemClock())
    if interactive:
        await scheduler.start()
    try:
        await run_console(service, sys.stdin, sys.stdout, interactive=interactive)
    finally:
        await scheduler.stop()
