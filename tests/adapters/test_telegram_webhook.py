"""Webhook mode: Telegram posts updates to the bot, which checks the secret token."""

from __future__ import annotations

import socket
from pathlib import Path

import aiohttp

from bot.adapters.telegram import TelegramBot, Webhook
from bot.chat.messages import text
from bot.chat.ratelimit import DEFAULT_RATE, RateLimiter
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.storage.sqlite import SqliteRepository
from tests.chat import START
from tests.fake_telegram import TOKEN, FakeTelegram


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_updates_arrive_by_webhook_with_the_secret(tmp_path: Path) -> None:
    repository = await SqliteRepository.open(tmp_path / "club.db")
    service = ClubService(repository, FakeClock(START))
    hook = Webhook("https://bot.example.org/telegram/hook", "127.0.0.1", free_port(), "s3cret")
    async with FakeTelegram(token=TOKEN) as tg:
        tg.delivering = False  # the test posts the update itself
        bot = TelegramBot(service, RateLimiter(service.clock, DEFAULT_RATE), TOKEN,
                          f"{tg.url}/bot", hook, repository=repository)
        await bot.start()
        try:
            assert tg.webhook is not None
            assert tg.webhook["url"] == hook.url and tg.webhook["secret_token"] == "s3cret"
            alice = tg.user(2, "Alice", "alice")
            group = tg.group(-1001, "Chess club")
            update = tg.updates[await tg.send(group, alice, "/register")]
            local = f"http://127.0.0.1:{hook.port}/telegram/hook"
            async with aiohttp.ClientSession() as http:
                async with http.post(local, json=update) as refused:
                    assert refused.status == 403  # no secret: not Telegram
                async with http.post(
                    local, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "s3cret"}
                ) as accepted:
                    assert accepted.status == 200
                    # answered only once handled: its answer was sent before the 200
                    assert [o.plain for o in tg.outputs(group)] == [
                        text("registered", name="alice", ladder="main")]
                async with http.post(
                    local, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "s3cret"}
                ) as again:
                    assert again.status == 200  # handled already: 200 at once
            assert len(tg.outputs(group)) == 1  # the refused post and the repeat did nothing
        finally:
            await bot.stop()
            await repository.close()
