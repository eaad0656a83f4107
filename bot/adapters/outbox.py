"""Each chat's outgoing messages, sent in the order they were put, by a task of that chat's own.

A handler decides an answer and puts its sending here, then returns: it never waits for the
platform's flood limit of its chat (Telegram: 20 messages a minute in a group), so a busy or
flooded chat keeps none of the bot's processing slots that other chats need (issue 30). One
chat's messages stay in order, because one task sends them one after another; another chat's go
out beside them. Each send runs in the context of the handler that put it (its ``contextvars``:
the reader's language, :mod:`bot.chat.language`), so it is worded as the handler decided, and
holds the handler's update open until it was sent (:mod:`bot.adapters.handling`).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable

from bot.adapters.handling import hold

log = logging.getLogger(__name__)

#: sends waiting in one chat before further ones are dropped: at Telegram's 20 a minute in a
#: group, fifty minutes of answers. The rate limit keeps a chat far below it (each member is
#: answered at most ``CLUBRATING_RATE_LIMIT`` times, then told once); with the limit off, 300
#: reports sent at once are still all answered (issue 30); only memory is bounded here.
MAX_WAITING = 1000

Send = Callable[[], Awaitable[object]]
#: a send waiting in a chat's queue: the send, the context it runs in, and what it tells its
#: update once it was sent
Waiting = tuple[Send, contextvars.Context, Callable[[], None]]


class Outbox:
    def __init__(self, max_waiting: int = MAX_WAITING) -> None:
        self.max_waiting = max_waiting
        self._queues: dict[Hashable, deque[Waiting]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def put(self, chat: Hashable, send: Send) -> None:
        """Send ``send()`` into ``chat`` after what waits there already. A failure is logged:
        the member's request was decided and stays so."""
        queue = self._queues.get(chat)
        if queue is None:
            queue = self._queues[chat] = deque()
            task = asyncio.create_task(self._drain(chat, queue), name=f"outbox:{chat}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if len(queue) >= self.max_waiting:
            log.warning("chat %s has %d messages waiting: one more is dropped", chat, len(queue))
            return
        queue.append((send, contextvars.copy_context(), hold()))

    async def _drain(self, chat: Hashable, queue: deque[Waiting]) -> None:
        try:
            while queue:
                send, context, sent = queue.popleft()
                try:
                    await asyncio.create_task(_awaited(send), context=context)
                except Exception:
                    log.exception("could not send into chat %s", chat)
                # A send given up at shutdown (cancelled) leaves its update unhandled.
                sent()
        finally:
            # No await between the empty queue and this: a put now starts a new task.
            del self._queues[chat]

    async def close(self, timeout: float) -> None:
        """Let what waits go out for up to ``timeout`` seconds, then give the rest up."""
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=timeout)
        for task in pending:
            task.cancel()
        if pending:
            log.warning("gave up %d chats' unsent messages at shutdown", len(pending))
            await asyncio.wait(pending)


async def _awaited(send: Send) -> None:
    await send()
