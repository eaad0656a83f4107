"""The product's Telegram front-end running against the fake Bot API server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from telegram.ext import Application

from bot.adapters.telegram import TelegramFrontEnd
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.storage.sqlite import SqliteRepository
from tests.chat import START
from tests.fake_telegram import TOKEN, FakeTelegram


@dataclass
class Running:
    tg: FakeTelegram
    app: Application  # type: ignore[type-arg]
    service: ClubService
    clock: FakeClock


@asynccontextmanager
async def running_bot(path: Path) -> AsyncIterator[Running]:
    """A fake Telegram, and the real bot long-polling it on a fresh database."""
    repository = await SqliteRepository.open(path)
    clock = FakeClock(START)
    service = ClubService(repository, clock)
    async with FakeTelegram(token=TOKEN) as tg:
        app = TelegramFrontEnd(service).application(TOKEN, f"{tg.url}/bot")
        await app.initialize()
        await app.post_init(app)  # type: ignore[misc]  # run_polling would call it
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=10)
        try:
            yield Running(tg, app, service, clock)
        finally:
            await app.updater.stop()
            await app.stop()
            await app.shutdown()
            await repository.close()
