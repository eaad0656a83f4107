"""Time, injected: the service never reads the system clock itself."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time as a naive UTC datetime."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC).replace(tzinfo=None)


class FakeClock:
    """A clock for tests: stands still until moved."""

    def __init__(self, start: datetime) -> None:
        self.current = start

    def now(self) -> datetime:
        return self.current

    def advance(self, **delta: float) -> None:
        self.current += timedelta(**delta)


class Every:
    """Whether a chore is due: at the first call, then at most once every ``interval`` of the
    clock's time (a clock set back makes it due again rather than never)."""

    def __init__(self, interval: timedelta) -> None:
        self.interval = interval
        self._last: datetime | None = None

    def due(self, now: datetime) -> bool:
        last = self._last
        if last is not None and last <= now < last + self.interval:
            return False
        self._last = now
        return True
