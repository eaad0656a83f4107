"""The reasons the bot writes into the log for what it does by itself: a report that counted
because nobody answered it, a player retired for inactivity, a schedule paused because the
platform refused its post.

A member's or a moderator's reason is their own words, stored and shown as they wrote them. The
bot's own reason is stored as a message key and its values (JSON), so each reader sees it in
their language; it is read back as such only from the bot's own entries (``SYSTEM_ACTOR``), so no
member can make their text pass for one. A reason an earlier build stored in English words reads
as it always did.
"""

from __future__ import annotations

import json

from .results import Notice, Param


def automatic(key: str, **values: str | int | float) -> str:
    """The log's text for the bot's own reason ``key`` with its ``values``."""
    return json.dumps({"reason": key, **values}, ensure_ascii=False, sort_keys=True)


def shown(reason: str, by_the_bot: bool) -> Param:
    """A stored reason to show: the bot's own as its message, anything else as written."""
    if by_the_bot and reason.startswith("{"):
        try:
            data = json.loads(reason)
        except ValueError:
            return reason
        if isinstance(data, dict) and isinstance(data.get("reason"), str):
            key = data.pop("reason")
            return Notice(key, {k: v for k, v in data.items()
                                if isinstance(v, str | int | float)})
    return reason
