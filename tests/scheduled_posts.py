"""The scheduler and a sender of the outbox together, as the unit tests of scheduled posts drive
them (issue 41 split them: the scheduler enqueues, the senders send): each wake-up of the
scheduler (:meth:`poll`, :meth:`fire`) then sends what the outbox holds due, and returns the
tasks of both. The post window is zero unless a test gives one: a post is due at its time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta

from bot.scheduling.publishing import Publisher
from bot.scheduling.scheduler import PostScheduler
from bot.scheduling.sender import PostSender
from bot.scheduling.words import PostWords
from bot.service.clock import Clock
from bot.service.club import ClubService
from bot.storage.pictures import PictureStore
from bot.storage.repository import Repository


class ScheduledPosts(PostScheduler):
    """A :class:`PostScheduler` whose wake-ups also run its :attr:`sender` once."""

    def __init__(self, service: ClubService, repository: Repository,
                 publishers: Mapping[str, Publisher], clock: Clock, words: PostWords, *,
                 pictures: bool = True, store: PictureStore | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 window: timedelta = timedelta(0), **options: float) -> None:
        super().__init__(service, repository, publishers, clock, words, sleep=sleep,
                         window=window, **options)  # type: ignore[arg-type]
        self.sender = PostSender(service, repository, publishers, clock, words,
                                 pictures=pictures, store=store, sleep=sleep,
                                 claimer="test")

    async def poll(self) -> list[asyncio.Task[None]]:
        tasks = await super().poll()
        return tasks + await self.sender.send_due()

    async def fire(self, cron: str, timezone: str) -> list[asyncio.Task[None]]:
        tasks = await super().fire(cron, timezone)
        return tasks + await self.sender.send_due()

    def publish_with(self, platform: str, publisher: Publisher) -> None:
        """Post to ``platform`` through ``publisher`` from now on."""
        self.publishers[platform] = self.sender.publishers[platform] = publisher

    async def stop(self, grace_seconds: float = 5.0) -> None:
        await super().stop(grace_seconds)
        await self.sender.stop(grace_seconds)
