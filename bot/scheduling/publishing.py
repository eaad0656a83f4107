"""What front-ends share beyond text: pictures to show, and posting into a chat unasked.

A command may answer with a :class:`Picture` (a leaderboard card, a rating chart); each
front-end shows it its own way (a photo on Telegram, an embed image on Discord, a file in the
console). Scheduled posts and announcements go out through a :class:`Publisher`, one per
platform, so the scheduler knows nothing about any chat platform.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

#: True while a scheduled post is being sent (the outbox's sender sets it): the rate budget a
#: token's processes share lets answers to members go before such sends when it runs short
#: (issue 41). Answers, announcements and everything else leave it False.
SCHEDULED_POST: ContextVar[bool] = ContextVar("scheduled_post", default=False)

#: the identity of the scheduled post being sent (its outbox row's), the same at every send of
#: it, for a platform that drops a repeated send by it (Discord's message nonce): a post that a
#: process was sending when it died is sent again, and made once. None for everything else.
POST_NONCE: ContextVar[str | None] = ContextVar("post_nonce", default=None)


@dataclass(frozen=True, slots=True)
class Picture:
    """A rendered PNG with the file name to give it and a short caption (may be empty)."""

    png: bytes
    filename: str
    caption: str = ""


@dataclass(frozen=True, slots=True)
class Button:
    """A button under a post: its label, the id of the action a press runs
    (:mod:`bot.chat.actions`), and the club's own chat it acts for (a post may go into another
    chat, and a button that opens a private chat names the club)."""

    label: str
    action: str
    club_chat: str


class PostRefused(Exception):
    """The platform refuses the bot's post for good - the bot was removed from the chat, its
    right to post was taken, the chat is gone: trying again will not help."""


#: Set by the outbox's sender while a scheduled post is sent: what to do once its first request
#: to the platform leaves, its turn in the rate budget come (the sender marks the row
#: ``sending`` then). A post waiting for its turn is plainly not sent yet: a process killed
#: meanwhile leaves it to be sent by another, where a mark made before the wait would have it
#: given up (Telegram's posts go at most once). The platforms' rate limiters call
#: :func:`leaving` right before each request.
POST_LEAVING: ContextVar[Callable[[], Awaitable[None]] | None] = ContextVar("post_leaving",
                                                                            default=None)


async def leaving() -> None:
    """A request to a platform leaves now: the scheduled post's hook, if one is set (it acts
    once however many requests the post makes)."""
    hook = POST_LEAVING.get()
    if hook is not None:
        await hook()


class PostDelayed(Exception):
    """The platform asks the bot to wait ``retry_after`` seconds before sending into this
    chat again (HTTP 429, Telegram's flood control): the post was not made; try it again then."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"retry after {retry_after:g} s")
        self.retry_after = retry_after


class Publisher(Protocol):
    """Posts into one platform's chats. ``chat_id`` is the platform's id of the chat or
    channel, as stored for the club; raises :class:`PostRefused` when the platform refuses for
    good, :class:`PostDelayed` when it asks to wait, anything else on a failed send (the
    caller retries)."""

    platform: str

    async def publish(self, chat_id: str, text: str, picture: Picture | None = None,
                      buttons: Sequence[Button] = ()) -> None: ...
