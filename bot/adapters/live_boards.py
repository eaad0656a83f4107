"""Keeping each live leaderboard's message up to date (issue 38), one keeper per front-end.

The service says where the boards of a platform are and what each shows
(:mod:`bot.service.boards`); a :class:`BoardKeeper` posts, edits and pins their messages through
its platform's :class:`BoardPoster`. It wakes after every write of the process to a club that
has a board (a confirmed game, a correction, a void, a join, ...: the service's commit
listener) and at start-up, and then:

- edits a board's message only when the text it would show differs from the text it showed
  last (after a restart it knows none, so the first refresh edits once; an edit to the same
  text is no failure);
- at most once every ``window`` seconds (10 on Discord, 60 on Telegram): a change inside the
  window is shown at the window's end, together with every other change made meanwhile
  (coalesced: one edit, from the state at that moment);
- posts a new message when the board has none yet (``/board here``) or its message is gone
  (:class:`MessageGone`: deleted), pins it where the bot may pin, and has the service record
  its id;
- after FAILURES_TO_STOP failed posts or edits in a row (each retried a window later), has the
  service stop the board and tells the board's chat once.

The platform's own flood limits apply underneath (the token's shared rate budget,
:mod:`bot.adapters.budget`, and discord.py's rate limit handling): the window keeps a board far
below them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.chat.language import writing_in
from bot.chat.messages import text
from bot.service.boards import FAILURES_TO_STOP, changed
from bot.service.club import ClubService
from bot.service.results import Leaderboard
from bot.service.state import Kind, LiveBoard

log = logging.getLogger(__name__)

#: the writes that start or end a board: the keeper reads the club's boards again
_BOARDS_CHANGED = frozenset({Kind.LIVE_BOARD_STARTED, Kind.LIVE_BOARD_STOPPED})


class MessageGone(Exception):
    """The board's message is no longer there (deleted): a new one is posted."""


class BoardPoster(Protocol):
    """One platform's way with a board's message. ``chat`` and ``message`` are the platform's
    ids as text. :meth:`post` and :meth:`edit` raise on failure (:class:`MessageGone` when
    the message to edit is gone); :meth:`pin` and :meth:`tell` never raise."""

    platform: str
    #: the least number of seconds between two edits of one board's message
    window: float

    def render(self, board: Leaderboard) -> str:
        """The board's text as the platform shows it, in the language being written."""
        ...

    def serves(self, chat: str) -> bool:
        """Whether this process reaches ``chat`` (a sharded Discord bot reaches its shard's
        servers only: another process keeps the others' boards)."""
        ...

    async def post(self, chat: str, shown: str) -> str:
        """Post ``shown`` into ``chat``; the new message's id."""
        ...

    async def edit(self, chat: str, message: str, shown: str) -> None: ...

    async def pin(self, chat: str, message: str) -> None:
        """Pin the message where the bot may pin; nothing where it may not."""
        ...

    async def tell(self, chat: str, said: str) -> None:
        """Say ``said`` in ``chat`` (a failure is logged)."""
        ...


@dataclass(eq=False)
class _Kept:
    """One board as this keeper knows it."""

    club: int
    board: LiveBoard
    #: the text its message shows, as far as this process knows (None: unknown)
    shown: str | None = None
    #: when (monotonic seconds) it was last posted or edited, or last failed
    last: float | None = None
    failures: int = 0
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class BoardKeeper:
    """The live boards of one platform's chats, kept by ``poster``."""

    def __init__(self, service: ClubService, poster: BoardPoster,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.service = service
        self.poster = poster
        self._monotonic = monotonic
        #: the boards kept, by (club id, ladder)
        self._kept: dict[tuple[int, str], _Kept] = {}
        #: the clubs whose boards are being read again
        self._reading: set[asyncio.Task[None]] = set()
        self._running = False

    async def start(self) -> None:
        """Read every board of the platform and refresh each (a restart's first edit), then
        follow the service's writes."""
        self._running = True
        self.service.on_commit(self._committed)
        for club_id, board in await self.service.live_boards(self.poster.platform):
            self._keep(club_id, board)
        log.info("live leaderboards on %s: %d", self.poster.platform, len(self._kept))

    async def stop(self) -> None:
        self._running = False
        tasks = [k.task for k in self._kept.values() if k.task is not None]
        tasks += list(self._reading)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._kept.clear()

    # -- what wakes a board -----------------------------------------------------------------

    def _committed(self, club_id: int, kinds: Sequence[str]) -> None:
        """The service wrote ``kinds`` into club ``club_id``'s log."""
        if not self._running:
            return
        if _BOARDS_CHANGED.intersection(kinds):
            task = asyncio.get_running_loop().create_task(self._read_club(club_id))
            self._reading.add(task)
            task.add_done_callback(self._reading.discard)
        if all(kind in (Kind.LIVE_BOARD_MOVED, *_BOARDS_CHANGED) for kind in kinds):
            return  # the keeper's own record of a message it posted
        for (club, _), kept in self._kept.items():
            if club == club_id:
                kept.wake.set()

    async def _read_club(self, club_id: int) -> None:
        """Read the club's boards again: keep the new ones, let go of the ended ones."""
        try:
            boards = await self.service.live_boards_of(club_id, self.poster.platform)
        except Exception:
            log.exception("could not read the live boards of club %s", club_id)
            return
        current = {board.ladder: board for board in boards}
        for (club, ladder), kept in list(self._kept.items()):
            if club == club_id and (ladder not in current or current[ladder].id != kept.board.id):
                self._let_go(kept)
        for board in boards:
            if (club_id, board.ladder) not in self._kept:
                self._keep(club_id, board)

    def _keep(self, club_id: int, board: LiveBoard) -> None:
        if not self.poster.serves(board.where):
            log.info("live board of %s in %s:%s is another process's", board.ladder,
                     self.poster.platform, board.where)
            return
        kept = _Kept(club_id, board)
        self._kept[(club_id, board.ladder)] = kept
        kept.task = asyncio.get_running_loop().create_task(
            self._follow(kept), name=f"board:{self.poster.platform}:{board.where}")
        kept.wake.set()

    def _let_go(self, kept: _Kept) -> None:
        if self._kept.get((kept.club, kept.board.ladder)) is kept:
            del self._kept[(kept.club, kept.board.ladder)]
        if kept.task is not None and kept.task is not asyncio.current_task():
            kept.task.cancel()

    # -- refreshing a board -----------------------------------------------------------------

    async def _follow(self, kept: _Kept) -> None:
        """Refresh the board whenever it is woken, at most once a window: a wake inside the
        window waits for its end, and every wake until then is the same refresh."""
        while self._kept.get((kept.club, kept.board.ladder)) is kept:
            await kept.wake.wait()
            if kept.last is not None:
                wait = kept.last + self.poster.window - self._monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
            kept.wake.clear()
            try:
                await self._refresh(kept)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("live board of %s in %s:%s failed", kept.board.ladder,
                              self.poster.platform, kept.board.where)
                await self._failed(kept)

    async def _refresh(self, kept: _Kept) -> None:
        board, language = await self.service.live_board_shown(kept.club, kept.board)
        if board is None:  # stopped or replaced meanwhile
            self._let_go(kept)
            return
        with writing_in(language):
            shown = self.poster.render(board)
        chat, message = kept.board.where, kept.board.message
        if message is not None and not changed(kept.shown, shown):
            return
        if message is not None:
            try:
                await self.poster.edit(chat, message, shown)
            except MessageGone:
                log.info("live board of %s: message %s in %s:%s is gone, posting it again",
                         kept.board.ladder, message, self.poster.platform, chat)
                message = None
        if message is None:
            message = await self.poster.post(chat, shown)
            await self.poster.pin(chat, message)
            await self.service.live_board_moved(kept.club, kept.board, message)
            kept.board = dataclasses.replace(kept.board, message=message)
        kept.shown, kept.last, kept.failures = shown, self._monotonic(), 0

    async def _failed(self, kept: _Kept) -> None:
        """A post or an edit failed: tried again a window later, and after FAILURES_TO_STOP
        failures in a row the board stops and its chat is told once."""
        kept.failures += 1
        kept.last = self._monotonic()
        if kept.failures < FAILURES_TO_STOP:
            kept.wake.set()
            return
        self._let_go(kept)
        try:
            if not await self.service.live_board_failed(kept.club, kept.board):
                return
            language = await self.service.language(self.poster.platform, kept.board.chat)
        except Exception:
            log.exception("could not stop the live board of %s", kept.board.ladder)
            return
        log.warning("live board of %s in %s:%s stopped after %d failures", kept.board.ladder,
                    self.poster.platform, kept.board.where, kept.failures)
        with writing_in(language):
            said = text("board_failed", ladder=kept.board.ladder)
        await self.poster.tell(kept.board.where, said)
