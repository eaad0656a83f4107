"""The garbage collector around heavy work: paused while it makes objects without cycles, and
told that what it made stays (the club's cache)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: heavy use cases running that keep the garbage collector waiting (:func:`paused`)
_pausing = 0


@contextmanager
def paused() -> Iterator[None]:
    """The garbage collector waits while heavy work makes many objects with no reference cycles
    among them: an import (some ten objects per row, which the collector's full passes would go
    through again and again as they grow, half a second of a 100,000-row import, to find
    nothing), or the reading of a history's columns. Those on the event loop pause it in turn:
    the last to end lets it go on, if it ran before the first began."""
    global _pausing
    if _pausing == 0 and not gc.isenabled():  # paused by someone else: leave it to them
        yield
        return
    _pausing += 1
    gc.disable()
    try:
        yield
    finally:
        _pausing -= 1
        if _pausing == 0:
            gc.enable()


def long_lived() -> None:
    """A big club's state, or its ladder's replay, was just made and stays cached: take it out
    of the garbage collector's full passes (``gc.freeze``, as the bot does with what it loads
    at start, bot.chat.pictures.prepare). A full pass scans every tracked object while it
    holds the GIL, the event loop's too: with 100,000 games cached it took 0.26 s, twice per
    /chart of a long history; frozen, 0.04 s. The club's objects hold no reference cycles, so
    they are still freed when the cache lets them go."""
    gc.freeze()
