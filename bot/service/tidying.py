"""Housekeeping: rows no one can ask for any more (answers past every redelivery, Telegram
updates, outbox rows that ended) removed at most once an interval, beside the work they served."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from .clock import Every

log = logging.getLogger(__name__)

#: how often (at most) each kind of old row is removed: one cheap statement an hour keeps a
#: table at about its keeping time's worth of rows
FORGET_EVERY = timedelta(hours=1)


async def forget_when_due(every: Every, now: datetime, forget: Callable[[], Awaitable[int]],
                          what: str) -> None:
    """``forget`` (which says how many rows went) when ``every`` says it is due at ``now``;
    ``what`` names the rows in the log. A failure is logged and left for the next interval: the
    work these rows served is done already."""
    if not every.due(now):
        return
    try:
        forgotten = await forget()
    except Exception:
        log.exception("could not remove %s; trying again in %s", what, every.interval)
        return
    if forgotten:
        log.info("removed %d %s", forgotten, what)
