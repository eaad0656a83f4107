"""One club never sees or changes another's data, even on the same database."""

from datetime import datetime
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.chat.presenter import render
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.storage.sqlite import SqliteRepository


async def test_clubs_are_apart(tmp_path: Path) -> None:
    repository = await SqliteRepository.open(tmp_path / "bot.db")
    service = ClubService(repository, FakeClock(datetime(2024, 3, 1)))

    def in_chat(chat: str, user: str, moderator: bool = False) -> Caller:
        return Caller("telegram", chat, user, user, moderator)

    for user in ("ann", "bob"):
        await service.register(in_chat("-100", user))
    reported = await service.report(in_chat("-100", "ann"), "bob", "win")
    game = reported.game.id  # type: ignore[union-attr]

    # The same people in another group are strangers there, and the game does not exist.
    with pytest.raises(Refusal) as refused:
        await service.confirm(in_chat("-200", "bob"), game)
    assert render(refused.value) == text("not_registered")
    await service.register(in_chat("-200", "bob"))
    for attempt in (service.confirm(in_chat("-200", "bob"), game),
                    service.void(in_chat("-200", "mod", moderator=True), game)):
        with pytest.raises(Refusal) as refused:
            await attempt
        assert render(refused.value) == text("unknown_game", game=game)
    with pytest.raises(Refusal) as refused:
        await service.report(in_chat("-200", "bob"), "ann", "win")
    assert render(refused.value) == text("unknown_member", name="ann")

    other = await service.leaderboard(in_chat("-200", "bob"))
    assert [row.name for row in other.rows] == ["bob"]  # type: ignore[union-attr]
    first = await service.leaderboard(in_chat("-100", "ann"))
    assert [row.name for row in first.rows] == ["ann", "bob"]  # type: ignore[union-attr]
    await repository.close()
