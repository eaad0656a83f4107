"""A per-member rate limit on chat commands and button presses: a member who sends more than a
few a minute in a club (or in their private chat with the bot) is answered once with a friendly
sentence, then not at all until the window lets them in again, and nothing they send meanwhile
is done. Silence matters as much as the refusal: every answer, a refusal too, is a message that
waits in the platform's per-chat flood limit (Telegram: 20 a minute in a group), so a flood that
was answered line by line would stall its own chat and the bot's sending for minutes (issue 30).

A sliding window per (platform, chat, user), timed by the service's injected clock, so that tests
move time by hand. Commands and button presses count alike. Moderators (the platform's:
administrators, the club's moderator role) enter a tournament's results in bursts: they may send
``MODERATOR_FACTOR`` (5) times the members' rate, but are limited too, so that a moderator's
account (or a script run with it) cannot flood the bot either. ``CLUBRATING_RATE_LIMIT`` sets the
members' rate as ``COMMANDS/SECONDS`` (default ``20/60``, so 100 a minute for moderators) or
``off`` (nobody is limited): the composition root (:mod:`bot.app`) reads it once
(:func:`parse_rate`) and gives the one :class:`RateLimiter` it makes to every front-end.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from datetime import datetime

from bot.service.clock import Clock
from bot.service.errors import Refusal

#: commands one member may send in one club per window: a busy evening's reports, confirmations
#: and lookups fit; a script flooding the chat does not
DEFAULT_COMMANDS = 20
DEFAULT_SECONDS = 60.0
#: moderators may send this many times the members' rate in the same window
MODERATOR_FACTOR = 5
#: members tracked before idle ones are forgotten (bounds memory under a flood of new senders)
MAX_TRACKED = 10_000

Key = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Rate:
    commands: int
    seconds: float


#: the members' rate when ``CLUBRATING_RATE_LIMIT`` is not set
DEFAULT_RATE = Rate(DEFAULT_COMMANDS, DEFAULT_SECONDS)


def parse_rate(text: str) -> Rate | None:
    """The value of ``CLUBRATING_RATE_LIMIT``: ``COMMANDS/SECONDS`` (``20/60``; empty: the
    default), or ``off`` (None: nobody is limited). Raises ``ValueError`` naming the setting."""
    setting = text.strip().lower()
    if not setting:
        return DEFAULT_RATE
    if setting in ("off", "0", "none"):
        return None
    commands, _, seconds = setting.partition("/")
    try:
        rate = Rate(int(commands), float(seconds or DEFAULT_SECONDS))
    except ValueError:
        raise ValueError(
            f"CLUBRATING_RATE_LIMIT must be COMMANDS/SECONDS (e.g. 20/60) or off, not {setting!r}"
        ) from None
    if rate.commands <= 0 or not (math.isfinite(rate.seconds) and rate.seconds > 0):
        raise ValueError(f"CLUBRATING_RATE_LIMIT must be positive, not {setting!r}")
    return rate


class Silenced(Exception):
    """A command or press past the rate whose member was told so already in this window: it is
    dropped without an answer."""


class RateLimiter:
    """The sliding windows of one process: :mod:`bot.app` makes one and gives it to every
    front-end, so that a member's commands count alike whichever handler receives them; a rate
    of None limits nobody."""

    def __init__(self, clock: Clock, rate: Rate | None) -> None:
        self._clock = clock
        self.rate = rate
        self._recent: dict[Key, deque[datetime]] = {}
        #: when each member past the rate was last told so
        self._noticed: dict[Key, datetime] = {}

    def check(self, key: Key, moderator: bool = False) -> None:
        """Count one command (or button press) of ``key``. Past the rate (``MODERATOR_FACTOR``
        times it for a ``moderator``) raises ``Refusal("rate_limited")`` once per window, and
        :class:`Silenced` for the rest of that window; what is refused is not counted, so
        waiting the said seconds is enough."""
        rate = self.rate
        if rate is None:
            return
        allowed = rate.commands * (MODERATOR_FACTOR if moderator else 1)
        now = self._clock.now()
        recent = self._recent.get(key)
        if recent is None:
            if len(self._recent) >= MAX_TRACKED:
                self._forget_idle(now)
            recent = self._recent[key] = deque()
        while recent and (now - recent[0]).total_seconds() >= rate.seconds:
            recent.popleft()
        if len(recent) >= allowed:
            noticed = self._noticed.get(key)
            if noticed is not None and (now - noticed).total_seconds() < rate.seconds:
                raise Silenced
            self._noticed[key] = now
            wait = rate.seconds - (now - recent[-allowed]).total_seconds()
            raise Refusal("rate_limited", seconds=max(1, math.ceil(wait)))
        recent.append(now)

    def _forget_idle(self, now: datetime) -> None:
        assert self.rate is not None
        for key in [k for k, times in self._recent.items()
                    if not times or (now - times[-1]).total_seconds() >= self.rate.seconds]:
            del self._recent[key]
            self._noticed.pop(key, None)

