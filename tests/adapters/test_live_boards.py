"""The keeper of live leaderboards (issue 38) against a poster that records what it is asked to
do, on a real club: posted once, one edit per window however many changes came in it, none
when nothing changed, posted again when the message is gone, stopped after three failures in a
row with one notice. (Through ``clubrating run`` on each platform: tests/system/
test_live_board.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.adapters.live_boards import BoardKeeper, MessageGone
from bot.chat.presenter import render
from bot.service.results import Leaderboard
from tests.chat import open_club

WINDOW = 0.3


class Recorder:
    """A platform whose messages are a list; ``failing`` edits raise, ``gone`` ones are
    deleted."""

    platform = "console"
    window = WINDOW

    def __init__(self) -> None:
        self.posted: list[str] = []
        self.edits: list[tuple[str, str]] = []
        self.pinned: list[str] = []
        self.told: list[str] = []
        self.failing = 0
        self.gone: set[str] = set()

    def render(self, board: Leaderboard) -> str:
        return render(board)

    def serves(self, chat: str) -> bool:
        return True

    async def post(self, chat: str, shown: str) -> str:
        self.posted.append(shown)
        return str(len(self.posted))

    async def edit(self, chat: str, message: str, shown: str) -> None:
        if message in self.gone:
            raise MessageGone(message)
        if self.failing:
            self.failing -= 1
            raise RuntimeError("the platform said no")
        self.edits.append((message, shown))

    async def pin(self, chat: str, message: str) -> None:
        self.pinned.append(message)

    async def tell(self, chat: str, said: str) -> None:
        self.told.append(said)


async def settle(seconds: float = WINDOW * 1.5) -> None:
    await asyncio.sleep(seconds)


async def test_one_edit_per_window_only_on_change_reposted_and_stopped(tmp_path: Path) -> None:
    poster = Recorder()
    async with open_club(tmp_path / "club.db", rate=None) as chat:
        keeper = BoardKeeper(chat.service, poster)
        await keeper.start()
        try:
            await chat.as_("ann", "/register")
            await chat.as_("ben", "/register")
            await chat.as_("mod!", "/board here")
            await settle(0.1)
            assert len(poster.posted) == 1 and poster.pinned == ["1"]
            # three results at once: one edit, at the window's end, showing all three
            await chat.as_("mod!", "/report @ann @ben win", "/report @ann @ben win",
                           "/report @ben @ann win")
            assert poster.edits == []
            await settle()
            top = await chat.as_("ann", "/top")
            assert poster.edits == [("1", top)]
            # a pending report changes no rating: nothing is edited
            await chat.as_("ann", "/report @ben win")
            await settle()
            assert len(poster.edits) == 1
            # the message is gone: posted again, pinned again
            poster.gone.add("1")
            await chat.as_("ben", "/confirm")
            await settle()
            assert poster.posted[1:] == [await chat.as_("ann", "/top")]
            assert poster.pinned == ["1", "2"]
            # three failures in a row: stopped, told once
            poster.failing = 3
            await chat.as_("mod!", "/report @ann @ben draw")
            await settle(WINDOW * 4)
            assert poster.told == ["The live leaderboard of main has stopped: its message "
                                   "could not be posted or edited three times in a row. "
                                   "/board here starts it again."]
            assert await chat.as_("mod!", "/board off") == (
                "main has no live leaderboard: /board here starts one.")
        finally:
            await keeper.stop()
