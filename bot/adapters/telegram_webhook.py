"""A Telegram webhook that answers 200 only once the update was handled (issue 41).

python-telegram-bot's own webhook server answers Telegram as soon as an update is queued, before
its handler ran: a bot stopped or killed then has updates Telegram counts as delivered and no
one handled, and Telegram sends a chat's next update at once, to whichever process a load
balancer picks, while the first may still be writing. Here Telegram's POST is answered 200 only
once the update counts as handled (its writes committed, its answers sent:
:mod:`bot.adapters.handling`, as for long polling). Telegram sends a chat's updates one at a
time, each after the previous one's 200, so a chat's updates are handled in its order whichever
of several processes receives each.

Each update is claimed first in the table long polling keeps its updates in (same source key):
a new one is handled here; one handled already (Telegram delivers again when a 200 did not
reach it) is answered 200 at once; one another process claimed lately and has not handled yet is
answered 503, so Telegram tries again later, and by then it was handled (200) or it is taken
over and handled here: at once when the claiming process is gone (on PostgreSQL a claim names its
process by a lock it holds while it lives), else once the claim expired after ``CLAIM_EXPIRES``
(a process alive but stuck). Writes stay once however often an update is handled: its
request's first answer stands.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot.adapters.telegram_polling import forget_old, hand_over, source_of
from bot.service.clock import Every
from bot.service.tidying import FORGET_EVERY
from bot.storage.repository import Repository, UpdateClaim

log = logging.getLogger(__name__)

#: how long a live process's claim on an update stands before another process may take it
#: over: longer than a handler waits for Telegram's flood limits (three 429s' pauses), so a
#: slow process's update is not handled twice, and short enough that a chat whose update is
#: with a stuck process waits only minutes (one that died is known at once on PostgreSQL; on
#: SQLite, one machine's processes, its claim stands this long too)
CLAIM_EXPIRES = timedelta(minutes=2)
#: connections Telegram may open at once to the webhook (its default, and PTB's)
MAX_CONNECTIONS = 40
#: the header carrying the webhook's secret token (Bot API, setWebhook)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@dataclass(frozen=True, slots=True)
class Webhook:
    """Telegram posts updates to ``url``; the bot listens on ``listen``:``port`` and accepts
    only requests carrying ``secret``."""

    url: str
    listen: str
    port: int
    secret: str


class ConfirmedWebhook:
    """Receives ``app``'s updates on ``webhook``, each claimed in ``repository`` and answered
    once handled; ``now`` gives the time claims are made at. ``app`` must be initialised and
    started before :meth:`start`."""

    def __init__(self, app: Application,  # type: ignore[type-arg]
                 repository: Repository, now: Callable[[], datetime], webhook: Webhook,
                 close_seconds: float) -> None:
        self.app = app
        self.repository = repository
        self.webhook = webhook
        self._now = now
        self._source = ""
        self._close_seconds = close_seconds
        self._runner: web.AppRunner | None = None
        #: tasks writing the marks of handled updates, whoever still waits for them
        self._marking: set[asyncio.Task[None]] = set()
        self._forgetting = Every(FORGET_EVERY)

    async def start(self) -> None:
        """Listen, then ask Telegram to deliver there (setWebhook, as PTB's updater does)."""
        bot = self.app.bot
        self._source = source_of(bot.id)
        server = web.Application()
        server.router.add_post(urlsplit(self.webhook.url).path or "/", self._receive)
        # Stopping waits this long for the updates being handled to be answered 200.
        runner = web.AppRunner(server, access_log=None, shutdown_timeout=self._close_seconds)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.webhook.listen, self.webhook.port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        await bot.set_webhook(url=self.webhook.url, secret_token=self.webhook.secret,
                              max_connections=MAX_CONNECTIONS)

    async def stop(self) -> None:
        """Stop listening, once the updates being handled were answered (or the close time
        passed: those are delivered again, and handled here or by another process)."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def finish(self) -> None:
        """Write the marks of the updates handled so far (before the database closes)."""
        while self._marking:
            await asyncio.gather(*self._marking, return_exceptions=True)

    async def _receive(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.webhook.secret.encode()):
            return web.Response(status=403)  # not Telegram
        body = await request.text()
        try:
            update = Update.de_json(json.loads(body), self.app.bot)
        except (ValueError, TypeError, KeyError):
            log.warning("the webhook received a body that is no Telegram update")
            return web.Response(status=400)
        now = self._now()
        try:
            claim = await self.repository.claim_update(self._source, update.update_id, body, now,
                                                       now - CLAIM_EXPIRES)
        except Exception:
            log.exception("could not claim Telegram update %d: Telegram delivers it again",
                          update.update_id)
            return web.Response(status=503)
        if claim is UpdateClaim.HANDLED:
            log.info("Telegram update %d came again: handled once", update.update_id)
            return web.Response()
        if claim is UpdateClaim.BUSY:
            log.info("Telegram update %d is being handled by another process: Telegram "
                     "delivers it again", update.update_id)
            return web.Response(status=503)
        handled = asyncio.get_running_loop().create_future()
        hand_over(self.app, update, lambda: self._mark(update.update_id, handled))
        # Not cancelled with this request (Telegram gone, the server stopping): the mark is
        # written by a task of its own whoever waits for it.
        await asyncio.shield(handled)
        await forget_old(self.repository, self._forgetting, now)
        return web.Response()

    def _mark(self, update_id: int, handled: asyncio.Future[None]) -> None:
        task = asyncio.create_task(self._write_mark(update_id, handled),
                                   name=f"telegram:handled:{update_id}")
        self._marking.add(task)
        task.add_done_callback(self._marking.discard)

    async def _write_mark(self, update_id: int, handled: asyncio.Future[None]) -> None:
        try:
            await self.repository.updates_handled(self._source, [update_id])
        except Exception:
            # Answered 200 all the same: its writes are committed and its answers sent, and a
            # 200 withheld would only have it handled again once its claim expired.
            log.exception("could not mark Telegram update %d handled", update_id)
        if not handled.done():
            handled.set_result(None)
