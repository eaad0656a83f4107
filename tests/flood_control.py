"""The platforms' flood control, as the fakes play it (issue 41): each send the platform counts
is kept with its arrival time (the fake's clock, ``time.monotonic``) and its key (a chat, or
None), and past a limit (``count`` sends in any ``period`` seconds, of one key or of all) a send
is refused with the seconds to wait, as Telegram and Discord answer 429."""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FloodLimit:
    """``count`` sends in any ``period`` seconds: of all the sends, or (``per_key``) of each
    key's (those with a key)."""

    count: int
    period: float
    per_key: bool = False


@dataclass
class FloodControl:
    limits: Sequence[FloodLimit]
    #: refuse sends past a limit (off: only count them)
    on: bool = False
    #: (arrival, key) of every send let through, in arrival order
    sends: list[tuple[float, Hashable]] = field(default_factory=list)

    def admit(self, key: Hashable = None) -> int | None:
        """Count a send now; None when it goes through, else the whole seconds to wait (it
        was refused and is not counted)."""
        now = time.monotonic()
        if self.on:
            for limit in self.limits:
                if limit.per_key and key is None:
                    continue
                recent = [at for at, of in self.sends if at > now - limit.period
                          and (not limit.per_key or of == key)]
                if len(recent) >= limit.count:
                    return max(1, math.ceil(min(recent) + limit.period - now))
        self.sends.append((now, key))
        return None

    def most(self, period: float, key: Hashable = None) -> int:
        """The most sends (of ``key``, or all when None) that arrived within any ``period``
        seconds (a half-open span: a send exactly ``period`` after another is in the next)."""
        times = [at for at, of in self.sends if key is None or of == key]
        most, first = 0, 0
        for last, at in enumerate(times):
            while times[first] <= at - period:
                first += 1
            most = max(most, last - first + 1)
        return most
