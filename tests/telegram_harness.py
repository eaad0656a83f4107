"""The product's Telegram front-end running against the fake Bot API server, and the steps of a
transcript: a member says a line and reads the answer, presses a button and reads the short
answer to the press."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from telegram.ext import AIORateLimiter, Application

from bot.adapters.telegram import RETRIES, TelegramFrontEnd
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.chat.ratelimit import DEFAULT_RATE, Rate, RateLimiter
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.storage.sqlite import SqliteRepository
from tests.chat import START
from tests.fake_telegram import TOKEN, Chat, FakeTelegram, Output, User


@dataclass
class Running:
    tg: FakeTelegram
    app: Application  # type: ignore[type-arg]
    service: ClubService
    clock: FakeClock


def unpaced() -> AIORateLimiter:
    """The bot's flood limiter without its pacing (a test says more than 20 things a minute in
    one group): it still waits out the 429s the fake answers when told to (``FakeTelegram.flood``),
    as against Telegram."""
    return AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=RETRIES)


@asynccontextmanager
async def running_bot(path: Path, rate: Rate | None = DEFAULT_RATE,
                      paced: bool = False) -> AsyncIterator[Running]:
    """A fake Telegram, and the real bot long-polling it on a fresh database; ``rate`` is the
    members' rate limit (``CLUBRATING_RATE_LIMIT``'s default unless told); ``paced``: the bot's
    own flood limiter, pacing included, instead of :func:`unpaced`."""
    repository = await SqliteRepository.open(path)
    clock = FakeClock(START)
    service = ClubService(repository, clock)
    async with FakeTelegram(token=TOKEN) as tg:
        app = TelegramFrontEnd(service, RateLimiter(clock, rate)).application(
            TOKEN, f"{tg.url}/bot", None if paced else unpaced())
        await app.initialize()  # registers the command menu
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


async def say(bot: Running, chat: Chat, user: User, line: str) -> Output:
    """``user`` sends ``line`` in ``chat``; the bot's next output there."""
    await bot.tg.send(chat, user, line)
    return await bot.tg.reply(chat)


async def press(
    bot: Running, chat: Chat, user: User, message: Output | int, data: str, strict: bool = True
) -> dict[str, Any]:
    """Press a button and wait for the bot's answer to the press (answerCallbackQuery).
    ``strict=False`` presses a button the message no longer shows (an old copy of it)."""
    seen = len(bot.tg.callback_answers)
    await bot.tg.press(chat, user, message, data, strict=strict)
    for _ in range(1000):
        if len(bot.tg.callback_answers) > seen:
            return bot.tg.callback_answers[-1]
        await asyncio.sleep(0.002)
    raise AssertionError("the bot did not answer the button press")


async def quiet(bot: Running, chat: Chat, user: User) -> None:
    """The bot said nothing more in ``chat``: the next output there answers a probe (/help).
    Updates are handled one by one, so anything still to come would come before it."""
    probe = await say(bot, chat, user, "/help")
    assert probe.plain.startswith(text("help_title")), f"the bot also said: {probe.plain!r}"


async def edit(bot: Running, chat: Chat, update_id: int, line: str) -> int:
    """The sender of an earlier message update edits its text to ``line`` (an edited_message
    update, as Telegram sends one); returns the new update's id."""
    tg = bot.tg
    original = tg.updates[update_id]["message"]
    message = copy.deepcopy(tg.message(chat, original["message_id"]))
    assert message is not None
    command = line.split(maxsplit=1)[0] if line.startswith("/") else ""
    message |= {"text": line, "edit_date": message["date"] + 60,
                "entities": [{"type": "bot_command", "offset": 0, "length": len(command)}]}
    if not command:
        del message["entities"]
    return tg._enqueue(edited_message=message)  # the fake has no public edit yet


async def club_state(bot: Running, chat: Chat) -> tuple[str, str]:
    """The club's whole log and its leaderboard, as a moderator sees them: equal before and
    after a refusal means nothing changed."""
    moderator = Caller("telegram", str(chat.id), "0", "snapshot", moderator=True)
    return (render(await bot.service.audit(moderator, 100)),
            render(await bot.service.leaderboard(moderator)))
