"""Long polling that confirms an update to Telegram only once it is kept (issue 41).

python-telegram-bot's ``Updater`` confirms a batch (``getUpdates``' offset moves past it) when it
asks for the next one, before the handlers ran: a bot killed then lost every update of the batch
nobody was answered for yet. Here a batch is first kept in the database
(:meth:`~bot.storage.repository.Repository.receive_updates`), then handed to the
``Application`` (its update processor, its handlers, as the ``Updater`` would), and only then
does the next ``getUpdates`` confirm it. An update counts as handled once its handler returned
and its answers were sent (:mod:`bot.adapters.handling`); then its body is dropped. At start the
updates kept but not handled (the bot was killed or stopped meanwhile) are handled first; an
update Telegram delivers again, kept before, is not handled again.

Confirming only what was kept, rather than what was handled, lets the offset move past an
update whose answer waits (a member's earlier command, a group's flood limit): Telegram
answers ``getUpdates`` at once while anything below the offset is unconfirmed, so holding the
offset back would poll without pause while anything waits.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta

from telegram import Update
from telegram.error import InvalidToken, RetryAfter, TelegramError, TimedOut
from telegram.ext import Application

from bot.adapters.handling import Handling, handling
from bot.service.clock import Every
from bot.service.session import ANSWERS_KEPT
from bot.service.tidying import FORGET_EVERY, forget_when_due
from bot.storage.repository import Repository

log = logging.getLogger(__name__)

#: how long a kept update is known: as long as the answers to requests, for the same reason
#: (Telegram keeps an unconfirmed update for 24 hours, so none comes again later)
KEPT = ANSWERS_KEPT
#: seconds Telegram holds a long poll open when there is nothing to deliver (PTB's default)
LONG_POLL = 10
#: the longest wait between tries when getUpdates fails (PTB's own cap)
MOST_BACKOFF = 30.0


def source_of(bot_id: int) -> str:
    """Whose updates these are: the bot's own id (two bots on one database never clash; never
    the token, which is a secret)."""
    return f"telegram:{bot_id}"


class ConfirmedPolling:
    """Polls ``app``'s bot every ``interval`` seconds (a long poll), keeping each batch in
    ``repository`` before anything confirms it; ``now`` gives the time updates are kept at."""

    def __init__(self, app: Application,  # type: ignore[type-arg]
                 repository: Repository, now: Callable[[], datetime],
                 interval: float = 0.0) -> None:
        self.app = app
        self.repository = repository
        self._now = now
        self._interval = interval
        self._source = ""
        #: every update up to this one (excluded) is kept: the next getUpdates confirms them
        self._offset: int | None = None
        #: the offset of the latest getUpdates sent: every update below it is confirmed, and
        #: once handled it is removed (Telegram never delivers a confirmed update again)
        self._asked: int | None = None
        self._polling: asyncio.Task[None] | None = None
        #: handled updates whose mark is not yet written, and the task writing marks
        self._handled: list[int] = []
        #: updates being handled here: not handed on again when polling starts again in this
        #: process (the receiver role lost and taken again, :mod:`bot.adapters.roles`)
        self._in_hand: set[int] = set()
        self._marking: asyncio.Task[None] | None = None
        self._forgetting = Every(FORGET_EVERY)

    async def start(self) -> None:
        """Stop any webhook (as the ``Updater`` does), hand on the updates kept but not
        handled, then poll. ``app`` must be initialised and started."""
        bot = self.app.bot
        self._source = source_of(bot.id)
        await bot.delete_webhook()
        left = [Update.de_json(json.loads(body), bot)
                for body in await self.repository.unhandled_updates(self._source)]
        left = [update for update in left if update.update_id not in self._in_hand]
        if left:
            log.info("handling %d Telegram updates received before the restart", len(left))
        for update in left:
            self._handle(update)
        self._polling = asyncio.create_task(self._poll(), name="telegram:polling")

    async def stop(self) -> None:
        """Stop polling, confirming to Telegram what was kept (it is handled at the next start
        if not before)."""
        if self._polling is None:
            return
        self._polling.cancel()
        await asyncio.gather(self._polling, return_exceptions=True)
        self._polling = None
        if self._offset is not None:
            try:
                await self.app.bot.get_updates(offset=self._offset, timeout=0)
            except TelegramError as error:
                log.info("kept updates not confirmed at stop (they come again): %s",
                         error.message)
            else:
                self._asked = self._offset
                await self._forget_confirmed()

    async def failed(self) -> None:
        """Returns (or raises) only when polling ended by itself: a token Telegram refuses."""
        if self._polling is not None:
            await asyncio.shield(self._polling)

    async def finish(self) -> None:
        """Write the marks of the updates handled so far (call after the handlers and the
        outbox stopped, before the database closes)."""
        while self._marking is not None:
            await asyncio.gather(self._marking, return_exceptions=True)

    async def _poll(self) -> None:
        """One long poll after another, as the ``Updater``'s loop: a failure is logged and
        tried again after a growing pause (at once after a timeout); a refused token ends it."""
        pause = self._interval
        while True:
            try:
                self._asked = self._offset
                updates = await self.app.bot.get_updates(offset=self._offset,
                                                         timeout=LONG_POLL)
                await self._forget_confirmed()
                await self._receive(updates)
            except InvalidToken:
                raise
            except RetryAfter as error:
                wait = error.retry_after
                pause = 0.5 + (wait.total_seconds() if isinstance(wait, timedelta) else wait)
            except TimedOut:
                pause = 0.0
            except TelegramError as error:
                log.warning("getting Telegram updates failed: %s", error.message)
                pause = self._backoff(pause)
            except Exception:
                # the database out of reach: nothing was kept nor confirmed, it comes again
                log.exception("could not keep the Telegram updates received")
                pause = self._backoff(pause)
            else:
                pause = self._interval
            await asyncio.sleep(pause)

    def _backoff(self, pause: float) -> float:
        """The pause after a failure that followed one of ``pause``: 1 s, then half as long
        again each time, up to MOST_BACKOFF (as PTB's own loop)."""
        return 1.0 if pause <= self._interval else min(MOST_BACKOFF, 1.5 * pause)

    async def _receive(self, updates: Sequence[Update]) -> None:
        if not updates:
            return
        now = self._now()
        new = await self.repository.receive_updates(
            self._source, [(u.update_id, json.dumps(u.to_dict())) for u in updates], now)
        for update in updates:
            if update.update_id in new:
                self._handle(update)
            else:
                log.info("Telegram update %d came again: handled once", update.update_id)
        self._offset = updates[-1].update_id + 1
        await self._forget_old(now)

    def _handle(self, update: Update) -> None:
        """Hand the update over, and mark it handled once its work is done."""
        self._in_hand.add(update.update_id)
        hand_over(self.app, update, lambda: self._mark(update.update_id))

    def _mark(self, update_id: int) -> None:
        self._in_hand.discard(update_id)
        self._handled.append(update_id)
        if self._marking is None:
            self._marking = asyncio.create_task(self._write_marks(), name="telegram:handled")

    async def _write_marks(self) -> None:
        """Write the marks that gathered, one statement for all that finished meanwhile."""
        try:
            while self._handled:
                marks, self._handled = self._handled, []
                try:
                    await self.repository.updates_handled(self._source, marks)
                except Exception:
                    # handled again at the next start; answered twice at worst
                    log.exception("could not mark %d Telegram updates handled", len(marks))
                await self._forget_confirmed()
        finally:
            self._marking = None

    async def _forget_confirmed(self) -> None:
        """Remove the handled updates below the latest offset asked for: the table then holds
        only what may still come again, so a flood of refused commands leaves no row behind
        (issue 30). A kill while that getUpdates is on its way may bring one back: it is then
        handled again (a write is still written once: its request's answer stands)."""
        if self._asked is None:
            return
        try:
            await self.repository.forget_confirmed(self._source, self._asked)
        except Exception:
            log.exception("could not remove the Telegram updates already confirmed")

    async def _forget_old(self, now: datetime) -> None:
        await forget_old(self.repository, self._forgetting, now)


def hand_over(app: Application, update: Update,  # type: ignore[type-arg]
              done: Callable[[], None]) -> None:
    """Run ``update`` through ``app``'s processor and handlers, as its own update fetcher
    would; ``done`` is called once its handler returned and its answers were sent (never if
    the bot stopped meanwhile)."""
    work = Handling(done)
    app.create_task(app.update_processor.process_update(
        update, _within(work, app.process_update(update))), update=update)


async def _within(work: Handling, handler: Awaitable[None]) -> None:
    with handling(work):
        await handler


async def forget_old(repository: Repository, forgetting: Every, now: datetime) -> None:
    """Remove the updates no redelivery can bring any more, at most every FORGET_EVERY."""
    await forget_when_due(forgetting, now, lambda: repository.forget_updates(now - KEPT),
                          f"Telegram updates older than {KEPT}")
