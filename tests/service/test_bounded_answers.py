"""Bounded storage (issue 30): an answer is stored only for a write, the one kind of request
whose redelivery must not be carried out twice, and only for as long as a platform may
redeliver (``session.ANSWERS_KEPT``). A stranger's refused commands store nothing at all."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import session
from bot.service.club import Caller
from bot.service.errors import Refusal
from bot.service.results import GameResult
from tests.chat import Transcript, open_club


@pytest.fixture
async def chat(database: Path | str) -> AsyncIterator[Transcript]:
    async with open_club(database, rate=None) as club:
        for name in ("ann", "bob"):
            await club.as_(name, "/register")
        yield club


def caller(user: str, update: int) -> Caller:
    return Caller("console", "local", user, user, request_id=f"update:{update}")


async def answer_of(chat: Transcript, update: int) -> str | None:
    repository = chat.service._repository
    club_id = await repository.club_id("console", "local", chat.clock.now())
    return await repository.answer(club_id, f"update:{update}")


async def test_a_strangers_refused_requests_store_no_answer(chat: Transcript) -> None:
    for update in range(15):
        with pytest.raises(Refusal) as refused:
            await chat.service.confirm(caller("stranger", update))
        assert refused.value.key == "not_registered"
    for update in range(15):
        assert await answer_of(chat, update) is None
    # a read stores nothing either; a write does
    await chat.service.leaderboard(caller("ann", 100))
    assert await answer_of(chat, 100) is None
    await chat.service.report(caller("ann", 101), "bob", "win")
    assert await answer_of(chat, 101) is not None


async def test_answers_go_once_no_platform_can_redeliver_their_update(chat: Transcript) -> None:
    first = await chat.service.report(caller("ann", 1), "bob", "win")
    assert isinstance(first, GameResult)
    chat.clock.advance(hours=1)
    await chat.service.confirm(caller("bob", 2))
    # Within the window a redelivery gets the first answer and adds nothing.
    chat.clock.advance(seconds=(session.ANSWERS_KEPT.total_seconds() - 3600 - 60))
    assert await chat.service.report(caller("ann", 1), "bob", "win") == first
    assert await answer_of(chat, 1) is not None
    # Past it, the next write removes what is older (at most once every FORGET_EVERY).
    chat.clock.advance(minutes=2)
    await chat.service.report(caller("bob", 3), "ann", "draw")
    assert await answer_of(chat, 1) is None
    assert await answer_of(chat, 2) is not None and await answer_of(chat, 3) is not None
    chat.clock.advance(hours=1, minutes=1)
    await chat.service.confirm(caller("ann", 4))
    assert await answer_of(chat, 2) is None
    assert await answer_of(chat, 3) is not None and await answer_of(chat, 4) is not None
