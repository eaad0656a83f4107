"""Starting the bot: the database, the service, and the front-ends the environment asks for."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

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
    from telegram.ext import Application

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


@dataclass(frozen=True, slots=True)
class Webhook:
    """Telegram posts updates to ``url``; the bot listens on ``listen``:``port`` and accepts
    only requests carrying ``secret``."""

    url: str
    listen: str
    port: int
    secret: str


def webhook_from_environment() -> Webhook | None:
    """``TELEGRAM_WEBHOOK_URL`` switches from long polling to a webhook;
    ``TELEGRAM_WEBHOOK_LISTEN`` (default 0.0.0.0:8443) and ``TELEGRAM_WEBHOOK_SECRET``
    (default: a fresh random one) complete it."""
    url = os.environ.get("TELEGRAM_WEBHOOK_URL")
    if not url:
        return None
    host, _, port = (os.environ.get("TELEGRAM_WEBHOOK_LISTEN") or "0.0.0.0:8443").rpartition(":")
    secret = os.environ.get("TELEGRAM_WEBHOOK_SECRET") or secrets.token_urlsafe(32)
    return Webhook(url, host or "0.0.0.0", int(port), secret)


async def start_updates(app: Application, webhook: Webhook | None) -> None:  # type: ignore[type-arg]
    """Start receiving updates: long polling by default, the webhook when one is set."""
    from .adapters.telegram import POLL_INTERVAL

    assert app.updater is not None
    if webhook is None:
        await app.updater.start_polling(poll_interval=POLL_INTERVAL)
        return
    await app.updater.start_webhook(
        listen=webhook.listen,
        port=webhook.port,
        url_path=urlsplit(webhook.url).path.lstrip("/"),
        webhook_url=webhook.url,
        secret_token=webhook.secret,
    )


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM: every front-end of the process stops on it."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


async def run_telegram(service: ClubService, token: str, base_url: str | None,
                       stop: asyncio.Event | None = None,
                       started: Callable[[Publisher], None] | None = None) -> None:
    """Serve Telegram until ``stop`` is set (default: SIGINT or SIGTERM). ``started``
    receives the publisher that posts into Telegram chats (for the scheduled posts)."""
    from .adapters.telegram import TelegramFrontEnd, TelegramPublisher  # only when asked for

    app = TelegramFrontEnd(service).application(token, base_url)
    stop = stop or stop_on_signals()
    async with app:
        await app.start()
        if started is not None:
            started(TelegramPublisher(app.bot))
        await start_updates(app, webhook_from_environment())
        log.info("Telegram bot @%s is running", app.bot.username)
        await stop.wait()
        assert app.updater is not None
        await app.updater.stop()
        await app.stop()


async def run_discord(service: ClubService, token: str, stop: asyncio.Event,
                      started: Callable[[Publisher], None] | None = None) -> None:
    """Serve Discord until ``stop`` is set. ``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL``
    put a proxy in front of Discord's REST API and gateway; ``DISCORD_GUILD_ID`` syncs the
    slash commands to that guild alone (at once, for development) instead of globally.
    ``started`` receives the publisher that posts into Discord channels."""
    from .adapters.discord import serve_discord  # only when Discord is asked for

    guild = os.environ.get("DISCORD_GUILD_ID")
    try:
        await serve_discord(service, token, stop,
                            api_base=os.environ.get("DISCORD_API_BASE") or None,
                            gateway=os.environ.get("DISCORD_GATEWAY_URL") or None,
                            sync_guild=int(guild) if guild else None, started=started)
    finally:
        stop.set()  # a failed Discord client (a bad token) stops Telegram too, cleanly


async def run() -> None:
    """Telegram when ``TELEGRAM_TOKEN`` is set, Discord when ``DISCORD_TOKEN`` is (both at
    once when both are); otherwise the console chat."""
    service, repository = await open_service()
    # Scheduled posts: each front-end hands the scheduler its publisher once it runs.
    publishers: dict[str, Publisher] = {}
    scheduler = PostScheduler(service, repository, publishers, SystemClock())

    def started(publisher: Publisher) -> None:
        publishers[publisher.platform] = publisher

    backups: asyncio.Task[None] | None = None
    try:
        token = secret_from_environment("TELEGRAM_TOKEN")
        discord_token = secret_from_environment("DISCORD_TOKEN")
        redact_in_logs(token, discord_token, os.environ.get("TELEGRAM_WEBHOOK_SECRET"))
        if token or discord_token:
            stop = stop_on_signals()
            backups = start_daily_backups(database_path())
            from .charts.pictures import prepare as prepare_pictures

            await prepare_pictures()  # matplotlib and fonts loaded, then out of the GC's way
            await scheduler.start()
            # Both platforms may run at once: one event loop, one service, one database.
            await asyncio.gather(*(
                ([run_telegram(service, token, os.environ.get("TELEGRAM_BASE_URL") or None,
                               stop, started)] if token else [])
                + ([run_discord(service, discord_token, stop, started)]
                   if discord_token else [])))
            return
        log.info("console chat on %s", describe(database_path()))
        # The console is the chat: a log line per use case would come between the answers.
        logging.getLogger("bot.use_case").setLevel(logging.WARNING)
        interactive = sys.stdin.isatty()
        if interactive:  # a scripted session's output stays exactly its answers
            started(ConsolePublisher(sys.stdout))
            await scheduler.start()
        await run_console(service, sys.stdin, sys.stdout, interactive=interactive)
    finally:
        if backups is not None:
            backups.cancel()
        await scheduler.stop()
        await repository.close()
