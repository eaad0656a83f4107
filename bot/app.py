"""Starting the bot: the database, the service, and the front-ends the environment asks for."""

from __future__ import annotations

import logging
import os
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


async def run() -> None:
    """Telegram and Discord when their tokens are set; otherwise the console chat."""
    service, repository = await open_service()
    try:
        if os.environ.get("TELEGRAM_TOKEN") or os.environ.get("DISCORD_TOKEN"):
            log.warning("the Telegram and Discord front-ends are not built yet; "
                        "starting the console chat instead")
        log.info("console chat on %s", database_path())
        await run_console(service, sys.stdin, sys.stdout, interactive=sys.stdin.isatty())
    finally:
        await repository.close()
