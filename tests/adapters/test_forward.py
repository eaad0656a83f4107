"""A report against a member of another chat of the club is posted into their chat, with its
Confirm and Dispute buttons (issue 35), and pressing Confirm there settles it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from bot.chat import intake
from bot.chat.commands import Context, parse
from bot.chat.forward import Forwarder
from bot.chat.ratelimit import RateLimiter
from bot.scheduling.publishing import Button, Picture
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.results import GameResult
from bot.storage.backends import open_repository

GROUP, SERVER = ("telegram", "-1001"), ("discord", "9001")


class Recorder:
    def __init__(self, platform: str) -> None:
        self.platform = platform
        self.posts: list[tuple[str, str, list[Button]]] = []

    async def publish(self, chat_id: str, text: str, picture: Picture | None = None,
                      buttons: Sequence[Button] = ()) -> None:
        self.posts.append((chat_id, text, list(buttons)))


def on(chat: tuple[str, str], user: str, moderator: bool = False) -> Caller:
    return Caller(chat[0], chat[1], user, user, moderator)


async def test_a_report_across_platforms_asks_the_opponent_in_their_chat(
        tmp_path: Path) -> None:
    repository = await open_repository(tmp_path / "club.db")
    clock = FakeClock(datetime(2026, 11, 20, 10, 0))
    try:
        service = ClubService(repository, clock)
        limiter = RateLimiter(clock, None)
        forward = Forwarder(service)
        telegram, discord = Recorder("telegram"), Recorder("discord")
        forward.publishers = {"telegram": telegram, "discord": discord}
        await service.register(on(GROUP, "12"), "bob")
        code = (await service.link_code(on(GROUP, "1", moderator=True))).params["code"]
        assert isinstance(code, str)
        await service.register(on(SERVER, "9101"), "carol")
        await service.link(on(SERVER, "2", moderator=True), code)

        ctx = Context(service, on(SERVER, "9101"), limiter, forward=forward)
        reply = await intake.command(ctx, lambda: parse("/report @bob win"), "report")
        assert reply is not None and isinstance(reply.answer, GameResult)
        number = reply.answer.game.id
        # nothing into Discord's own chat (the answer goes there), the question into bob's
        assert discord.posts == []
        [(chat, shown, buttons)] = telegram.posts
        assert chat == "-1001" and f"#{number}" in shown and "carol beat bob" in shown
        assert [(b.label, b.action, b.club_chat) for b in buttons] == [
            ("Confirm", f"g:confirm:#{number}", "-1001"),
            ("Dispute", f"g:dispute:#{number}", "-1001")]
        # bob presses Confirm in the Telegram group
        pressed = await intake.press(Context(service, on(GROUP, "12"), limiter),
                                     buttons[0].action)
        assert pressed is not None and not pressed.refused
        assert isinstance(pressed.answer, GameResult) and pressed.answer.key == "confirmed"
        # a report within one chat asks nobody elsewhere
        await service.register(on(SERVER, "9102"), "dan")
        ctx = Context(service, on(SERVER, "9102"), limiter, forward=forward)
        await intake.command(ctx, lambda: parse("/report @carol draw"), "report")
        assert len(telegram.posts) == 1 and discord.posts == []
    finally:
        await repository.close()
