"""One club on several chats (issue 35): link codes, a chat joining a club, a member's
identities on several platforms becoming one member.

- A platform moderator's ``/link`` issues a one-time code (:data:`CODE_MINUTES` minutes, used
  once), shown to them alone; a platform moderator of another chat (another platform, or the
  same) sends ``/link CODE`` there, and that chat's commands act on this club from then on. A
  chat without games joins at once, its registered members becoming members of the club (and
  its named moderators its moderators); merging a chat that has games is refused for now.
  Linking changes who moderates, so that the club's named moderators and the holders of its
  moderator role link no chat (:func:`may_link`).
- A member's ``/link me`` issues a code for their identity; ``/link me CODE`` sent by their
  other identity (in a chat of the same club) makes the two one member. At most one of them may
  have games: the other joins that member.

The log keeps only a code's SHA-256 (:func:`code_hash`), never the code. Each use case is a
decision over a club's state (:mod:`bot.service.session`) that reads no clock and draws no
random number: the facade draws each code (:func:`new_code`) and hands it in.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from . import events as ev
from . import view
from .errors import Refusal
from .identity import Caller
from .results import Notice
from .session import Decision
from .state import DEFAULT_LADDER, ClubState, LinkCode
from .view import Club

#: how long a link code may be used
CODE_MINUTES = 10
#: a code's random bytes (80 bits: 16 characters of base 32)
CODE_BYTES = 10
CHAT, MEMBER = "chat", "member"
#: a member's name as the joining chat had it, when the club has a member of that name already
_TAKEN_SUFFIX = " ({platform})"


def new_code() -> str:
    """A fresh one-time code: 80 random bits, as 16 letters and digits (no 0, 1, 8 or 9)."""
    return base64.b32encode(secrets.token_bytes(CODE_BYTES)).decode("ascii")


def chat_of(caller: Caller) -> str:
    """A chat as the log names it: ``platform:chat id``."""
    return f"{caller.platform}:{caller.chat_id}"


def code_hash(code: str) -> str:
    """What the log keeps of a code (its SHA-256), as typed in any case, spaces aside."""
    return hashlib.sha256("".join(code.split()).upper().encode("ascii", "replace")).hexdigest()


def issue(club: Club, now: datetime, caller: Caller, kind: str, code: str) -> Decision[Notice]:
    """A link code: a platform moderator's for another chat (linking one changes who
    moderates: :func:`may_link`), anybody's for their other identity."""
    if kind == CHAT:
        may_link(club, caller)
    expires = now + timedelta(minutes=CODE_MINUTES)
    event = ev.LinkCodeIssued(kind, code_hash(code), caller.user if kind == MEMBER else None,
                              expires.isoformat(timespec="seconds"), chat_of(caller))
    return [ev.new_event(event, caller.user, now)], lambda: Notice(
        "link_code_member" if kind == MEMBER else "link_code_chat",
        {"code": code, "minutes": CODE_MINUTES})


def open_code(state: ClubState, digest: str, kind: str, now: datetime) -> LinkCode | None:
    """The club's code of ``kind`` with that hash, if it is still good."""
    found = state.link_codes.get(digest)
    if found is None or found.kind != kind or found.used or now >= found.expires_at:
        return None
    return found


def joined_with(state: ClubState, digest: str, platform: str, chat_id: str) -> bool:
    """Whether the chat joined this club with the code of that hash (a /link sent again after
    the chat's own log could not be told)."""
    found = state.link_codes.get(digest)
    return (found is not None and found.kind == CHAT and found.used
            and (platform, chat_id) in state.linked_chats)


@dataclass(frozen=True, slots=True)
class JoiningChat:
    """What a chat brings when it joins a club: its registered members (user key, name,
    handle), its named moderators (user keys), and how many games it holds."""

    members: list[tuple[str, str, str | None]]
    moderators: list[str]
    games: int


def may_link(club: Club, caller: Caller) -> None:
    """Whether the caller may link their chat with another: a chat that joins a club makes its
    platform moderators and named moderators the club's, and the club's its own, so that, as
    naming one, it is for the platform's own moderators alone (a moderator the club named, or
    a holder of its moderator role, would else make more)."""
    view.require_moderator(club, caller)
    view.require_platform_moderator(caller)


def joining(club: Club, caller: Caller) -> JoiningChat:
    """The caller's chat as it would join another club; only its platform moderators may link
    it (:func:`may_link`)."""
    may_link(club, caller)
    state = club.state
    people = [m for m in state.members.values()
              if m.id not in state.merged_into and not m.problem]
    return JoiningChat([(m.user, m.name, m.handle) for m in people],
                       [state.members[m].user for m in state.moderators],
                       len(state.games))


def join(club: Club, now: datetime, caller: Caller, code: str, chat: JoiningChat
         ) -> Decision[Notice]:
    """The caller's chat joins this club with ``code``: its members join the club's main
    ladder (under their names, or with their platform after a name the club has), its named
    moderators moderate the club."""
    digest = code_hash(code)
    if open_code(club.state, digest, CHAT, now) is None:
        raise Refusal("link_code_unknown")
    if chat.games:
        raise Refusal("link_has_games", games=chat.games)
    state = club.state
    out = [ev.new_event(ev.ChatLinked(caller.platform, caller.chat_id, digest), caller.user,
                        now)]
    names = {m.name.casefold() for m in state.members.values()}
    joined = 0
    for user, name, handle in chat.members:
        if user in state.by_user:
            continue
        shown = name
        if shown.casefold() in names:
            shown = (name + _TAKEN_SUFFIX.format(platform=caller.platform.title()))[:32]
        names.add(shown.casefold())
        out.append(ev.new_event(ev.MemberRegistered(user, shown, DEFAULT_LADDER, None, handle,
                                                    chat_of(caller)), caller.user, now))
        joined += 1
    for user in chat.moderators:
        out.append(ev.new_event(ev.ModeratorNamed(user), caller.user, now))
    return out, lambda: Notice("chat_linked", {"members": joined})


def link_member(club: Club, now: datetime, caller: Caller, code: str) -> Decision[Notice]:
    """The caller's identity and the one that issued ``code`` become one member."""
    digest = code_hash(code)
    found = open_code(club.state, digest, MEMBER, now)
    if found is None or found.member is None:
        raise Refusal("link_code_unknown")
    state = club.state
    if found.member == caller.user:
        raise Refusal("link_me_same")
    first, second = state.member_of_user(found.member), state.member_of_user(caller.user)
    if first is None and second is None:
        raise Refusal("link_me_register")
    if first is not None and second is not None and first.id == second.id:
        raise Refusal("link_me_same")
    played = {m.id: view.games_count(club, m) for m in (first, second) if m is not None}
    if first is not None and second is not None and played[first.id] and played[second.id]:
        raise Refusal("link_me_both_played", first=first.name, second=second.name)
    # the identity with games (or the one registered, or the code's) keeps its record
    keeps = (first if first is not None and (second is None or played[first.id]
                                             or not played.get(second.id, 0))
             else second)
    assert keeps is not None
    other = caller.user if keeps is first else found.member
    # the chat the joining account is known in: the caller's, or the one the code came from
    chat = chat_of(caller) if other == caller.user else found.chat
    event = ev.MemberLinked(keeps.user, other, digest, chat)
    return [ev.new_event(event, caller.user, now)], lambda: Notice(
        "member_linked", {"name": keeps.name})

