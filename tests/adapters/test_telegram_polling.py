"""Long polling that keeps every update until it is handled (issue 41): what was kept but not
handled when the bot stopped is handled at its next start, an update delivered again is handled
once, and a bot's updates are its own (keyed by its id) on a database shared with another."""

from __future__ import annotations

import json
from pathlib import Path

from bot.adapters.handling import Handling, handling, hold
from bot.adapters.telegram import TelegramBot
from bot.adapters.telegram_polling import source_of
from bot.chat.messages import text
from bot.chat.ratelimit import DEFAULT_RATE, RateLimiter
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.storage.sqlite import SqliteRepository
from tests.chat import START
from tests.fake_telegram import BOT_ID, TOKEN, FakeTelegram


def test_an_update_is_handled_once_its_handler_and_its_sends_finished() -> None:
    done: list[str] = []
    work = Handling(lambda: done.append("done"))
    sent = []
    with handling(work):
        sent.append(hold())
        sent.append(hold())
    assert done == []  # two answers still to send
    sent[0]()
    sent[0]()  # said twice, counted once
    assert done == []
    sent[1]()
    assert done == ["done"]
    hold()()  # outside any update: nothing to hold


async def test_kept_updates_are_handled_at_start_and_once(tmp_path: Path) -> None:
    repository = await SqliteRepository.open(tmp_path / "club.db")
    service = ClubService(repository, FakeClock(START))
    source = source_of(BOT_ID)
    async with FakeTelegram(token=TOKEN) as tg:
        group = tg.group(-1001, "Chess club")
        alice, bob = tg.user(2, "Alice", "alice"), tg.user(3, "Bob", "bob")
        # kept by a bot killed before it handled it (and before Telegram was told)
        kept = await tg.send(group, alice, "/register")
        assert await repository.receive_updates(
            source, [(kept, json.dumps(tg.updates[kept]))], START) == {kept}
        # another bot on the same database: its own update of the same id is none of ours
        assert await repository.receive_updates(
            source_of(BOT_ID + 1), [(kept, "{}")], START) == {kept}
        bot = TelegramBot(service, RateLimiter(service.clock, DEFAULT_RATE), TOKEN,
                          f"{tg.url}/bot", repository=repository)
        await bot.start()
        try:
            welcome = await tg.reply(group)
            assert welcome.plain == text("registered", name="alice", ladder="main")
            read = await tg.send(group, bob, "/top")
            board = await tg.reply(group)
            assert "alice" in board.plain
        finally:
            await bot.stop()
        assert await repository.unhandled_updates(source) == []
        assert await repository.unhandled_updates(source_of(BOT_ID + 1)) == ["{}"]
        # asked past them at the stop, Telegram never delivers them again: they are gone
        assert await repository.receive_updates(source, [(kept, "{}"), (read, "{}")],
                                                START) == {kept, read}
        await repository.updates_handled(source, [kept, read])
        # handled by a bot killed before Telegram was told: Telegram delivers it again, and
        # nothing is done
        handled = await tg.send(group, alice, "/register")
        assert await repository.receive_updates(
            source, [(handled, json.dumps(tg.updates[handled]))], START) == {handled}
        await repository.updates_handled(source, [handled])
        again = TelegramBot(service, RateLimiter(service.clock, DEFAULT_RATE), TOKEN,
                            f"{tg.url}/bot", repository=repository)
        await again.start()
        try:
            await tg.send(group, bob, "/register")
            assert (await tg.reply(group)).plain == text("registered", name="bob",
                                                         ladder="main")
        finally:
            await again.stop()
        assert [o.plain for o in tg.outputs(group)] == [welcome.plain, board.plain,
                                                        text("registered", name="bob",
                                                             ladder="main")]
    await repository.close()
