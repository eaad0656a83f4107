"""What the scheduled posts say, as the scheduler and the outbox's senders ask for it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from bot.scheduling.publishing import Button, Picture
from bot.service.results import Digest, Notice, PuzzlePost


class PostWords(Protocol):
    """What the posts say, in a club's language (None: English): the chat layer's words
    (:class:`bot.chat.posts.ChatPosts`); the scheduler knows no catalogue."""

    def digest(self, digest: Digest, language: str | None) -> str: ...

    def announcements(self, notices: Sequence[Notice], language: str | None) -> str: ...

    def puzzle(self, post: PuzzlePost, club_chat: str, language: str | None
               ) -> tuple[str, list[Button]]: ...

    def paused(self, ladder: str, platform: str, channel: str, reason: str,
               language: str | None) -> str: ...

    async def card(self, digest: Digest, since: datetime | None, when: datetime,
                   language: str | None) -> Picture: ...
