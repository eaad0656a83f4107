"""Test helpers for the service: a fresh club on a temporary SQLite file (or a PostgreSQL
schema), driven through the console as a transcript (what a member types, what the bot
answers)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

from bot.adapters.console import Console
from bot.chat.ratelimit import DEFAULT_RATE, Rate, RateLimiter
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.storage.backends import open_repository

START = datetime(2024, 3, 1, 19, 0)


class Transcript:
    """Type lines as the console's current user; each answer is returned and kept."""

    def __init__(self, console: Console, clock: FakeClock) -> None:
        self.console = console
        self.clock = clock
        self.lines: list[tuple[str, str]] = []

    @property
    def service(self) -> ClubService:
        return self.console.service

    async def say(self, line: str) -> str:
        answer = await self.console.handle(line)
        self.lines.append((line, answer))
        return answer

    async def log_size(self) -> int:
        """How many events the club's log holds (a refusal must leave it as it was)."""
        repository = self.service._repository
        club_id = await repository.club_id("console", "local", self.clock.now())
        return len(await repository.events(club_id))

    async def as_(self, user: str, *lines: str) -> str:
        """Speak as ``user`` (``name!`` for a moderator); returns the last answer."""
        await self.say(f"/as {user}")
        answer = ""
        for line in lines:
            answer = await self.say(line)
        return answer


@asynccontextmanager
async def open_club(path: Path | str, start: datetime = START,
                    rate: Rate | None = DEFAULT_RATE) -> AsyncIterator[Transcript]:
    """``path`` is a SQLite file, or a ``postgresql://`` address; ``rate`` is the members'
    rate limit (``CLUBRATING_RATE_LIMIT``'s default unless told)."""
    repository = await open_repository(path)
    clock = FakeClock(start)
    try:
        yield Transcript(Console(ClubService(repository, clock), RateLimiter(clock, rate)), clock)
    finally:
        await repository.close()
