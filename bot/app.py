"""Starting the bot: the database, the service, and the front-ends the environment asks for."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from pathlib import Path

from .adapters.console import run_console
from .service.clock import SystemClock
from .service.club import ClubService
from .storage.sqlite import SqliteRepository

log = logging.getLogger(__name__)

DEFAULT_DB = "clubrating.db"


def database_path() -> Path:
    """``CLUBRATING_DB``, or ./clubrating.db."""
    return Path(os.environ.get("CLUBRATING_DB") or DEFAULT_DB)


async def open_service() -> tuple[ClubService, SqliteRepository]:
    repository = await SqliteRepository.open(database_path())
    return ClubService(repository, SystemClock()), repository


async def run_telegram(service: ClubService, token: str, base_url: str | None) -> None:
    """Long polling until SIGINT or SIGTERM."""
    from .adapters.telegram import TelegramFrontEnd  # only when Telegram is asked for

    app = TelegramFrontEnd(service).application(token, base_url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling()
        log.info("Telegram bot @%s is polling", app.bot.username)
        await stop.wait()
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
