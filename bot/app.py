"""Starting the bot: the database, the service, and the front-ends the environment asks for."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .adapters.console import run_console
from .service.clock import SystemClock
from .service.club import ClubService
from .storage.sqlite import SqliteRepository

if TYPE_CHECKING:
    from telegram.ext import Application

log = logging.getLogger(__name__)

DEFAULT_DB = "clubrating.db"


def database_path() -> Path:
    """``CLUBRATING_DB``, or ./clubrating.db."""
    return Path(os.environ.get("CLUBRATING_DB") or DEFAULT_DB)


async def open_service() -> tuple[ClubService, SqliteRepository]:
    repository = await SqliteRepository.open(database_path())
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


async def run_telegram(service: ClubService, token: str, base_url: str | None) -> None:
    """Serve Telegram until SIGINT or SIGTERM."""
    from .adapters.telegram import TelegramFrontEnd  # only when Telegram is asked for

    app = TelegramFrontEnd(service).application(token, base_url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with app:
        await app.start()
        await start_updates(app, webhook_from_environment())
        log.info("Telegram bot @%s is running", app.bot.username)
        await stop.wait()
        assert app.updater is not None
        await app.updater.stop()
        await app.stop()


async def run() -> None:
    """Telegram when ``TELEGRAM_TOKEN`` is set; otherwise the console chat."""
    service, repository = await open_service()
    try:
        token = os.environ.get("TELEGRAM_TOKEN")
        if token:
            await run_telegram(service, token, os.environ.get("TELEGRAM_BASE_URL") or None)
            return
        if os.environ.get("DISCORD_TOKEN"):
            log.warning("the Discord front-end is not built yet; starting the console chat")
        log.info("console chat on %s", database_path())
        await run_console(service, sys.stdin, sys.stdout, interactive=sys.stdin.isatty())
    finally:
        await repository.close()
