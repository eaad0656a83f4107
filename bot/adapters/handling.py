"""When an update counts as handled: its handler returned and every answer it put in the
:class:`~bot.adapters.outbox.Outbox` was sent (or failed for good).

A front-end that must know it (Telegram's polling confirms an update to Telegram only then,
:mod:`bot.adapters.telegram_polling`) runs the handler inside :func:`handling` with a
:class:`Handling`; the outbox holds it open for each send it takes meanwhile (:func:`hold`),
found through a context variable, so the handlers themselves need not pass anything along.
Without a :class:`Handling` around it, :func:`hold` does nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Handling:
    """One update's work still open: the handler, then each send it put. ``done`` is called
    once, when the last of them finished. Work that was cancelled (the bot stopping) never
    finishes: the update is not handled, and is handled again at the next start."""

    def __init__(self, done: Callable[[], None]) -> None:
        self._open = 0
        self._done = done

    def hold(self) -> Callable[[], None]:
        """One more piece of work; the function that says it finished (once)."""
        self._open += 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._open -= 1
                if self._open == 0:
                    self._done()

        return release


_current: ContextVar[Handling | None] = ContextVar("handling", default=None)


@contextmanager
def handling(work: Handling) -> Iterator[None]:
    """Run an update's handler as ``work``: it finishes when the block ends, unless the block
    was cancelled (a :class:`BaseException` other than :class:`Exception`)."""
    finished = work.hold()
    token = _current.set(work)
    try:
        yield
    except Exception:
        finished()  # a failed handler was told to the member, or cannot be: done
        raise
    else:
        finished()
    finally:
        _current.reset(token)


def hold() -> Callable[[], None]:
    """Hold the update being handled open (if any) until the returned function is called."""
    work = _current.get()
    return (lambda: None) if work is None else work.hold()
