"""Who a member is: the platform's user id, never a name that looks like one.

A member the platform points at - a Telegram text mention or a reply, a Discord ``<@id>`` or a
member picked in the member picker - comes as a :class:`UserRef` and is found by that user id
alone. A member typed as text (``@bob``, ``Bob``) is found by display name or platform handle
(username), never by user id: a member called "1001" is never the member whose id is 1001.

A handle is stored only when it is a valid username of its platform (:func:`valid_handle`): a
full name, or a number, is no handle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class UserRef:
    """A member named by the platform itself: their user id on the caller's platform.
    ``label`` is how the platform showed them (a mention's text, a name), for answers only;
    it never decides who is meant."""

    user: str
    label: str = field(default="", compare=False)

    @property
    def shown(self) -> str:
        return self.label or self.user


#: how a command names a member: typed text (a name or an @handle) or the platform's user id
Who = str | UserRef


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks, where, and with which platform request id (for idempotency)."""

    platform: str
    chat_id: str
    user: str
    name: str
    #: the platform's own moderator: a Telegram group administrator, a Discord member with
    #: Manage Server (and the host's tools)
    moderator: bool = False
    request_id: str | None = None
    #: the caller's platform username (a Telegram @username, a Discord username), if any: never
    #: a full or display name. Stored as the member's handle when it is a valid one, and kept
    #: current from each update of theirs (a typed @username names its current holder).
    handle: str | None = None
    #: a holder of the role the club names its moderators by (Discord's ``moderator_role``):
    #: a moderator of the club's games and settings, but - unlike ``moderator``, the platform's
    #: own (a Telegram group administrator, a Discord member with Manage Server) - never one
    #: who may change who moderates (the role itself, the club's named moderators).
    role_moderator: bool = False
    #: the platform's own number of the update that asks (Telegram's update_id, a Discord
    #: interaction's snowflake), kept with the events it causes (issue 41); None elsewhere
    sequence: int | None = None


def who_to_json(who: Who | None) -> str | dict[str, str] | None:
    """A member reference as JSON (a kept correction): text stays text, a user id becomes
    ``{"user": id, "label": shown}``, so that it is read back as a user id again."""
    if isinstance(who, UserRef):
        return {"user": who.user, "label": who.label}
    return who


def who_from_json(value: object) -> Who | None:
    if isinstance(value, dict) and isinstance(value.get("user"), str):
        label = value.get("label")
        return UserRef(value["user"], label if isinstance(label, str) else "")
    return value if isinstance(value, str) else None

#: Telegram usernames: 5 to 32 letters, digits and underscores, starting with a letter
_TELEGRAM = re.compile(r"[A-Za-z][A-Za-z0-9_]{4,31}")
#: Discord usernames: 2 to 32 lowercase letters, digits, underscores and periods, never two
#: periods in a row
_DISCORD = re.compile(r"(?!.*\.\.)[a-z0-9_.]{2,32}")
#: elsewhere (the console, the host's own terminal): one word
_OTHER = re.compile(r"[\w.-]{1,32}")


def valid_handle(platform: str, handle: str | None) -> bool:
    """Whether ``handle`` is a username the platform could have given (and so may be stored
    as the member's handle)."""
    if not handle:
        return False
    rule = {"telegram": _TELEGRAM, "discord": _DISCORD}.get(platform, _OTHER)
    return rule.fullmatch(handle) is not None
