"""One club on several chats (issue 35): link codes, a chat joining a club, a member's
identities on several platforms becoming one member.

- A platform moderator's ``/link`` issues a one-time code (:data:`CODE_MINUTES` minutes, used
  once), shown to them alone; a platform moderator of another chat (another platform, or the
  same) sends ``/link CODE`` there, and that chat's commands act on this club from then on. A
  chat without games joins at once, its registered members becoming members of the club (and
  its named moderators its moderators). Linking changes who moderates, so that the club's
  named moderators and the holders of its moderator role link no chat (:func:`may_link`). A
  chat with games joins only by ``/link CODE merge``, previewed first: its games are merged
  with the club's by time and every rating is replayed (:func:`merge_join`). ``/unlink`` in a
  chat that joined splits it off again, previewed too: the club keeps its history, and the
  chat starts as an empty club of its own (:func:`unlink`).
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

from bot.storage.repository import NewEvent
from ratings_core.model import Game, Step, TeamGame, events_of
from ratings_core.replay import ReplayError

from . import events as ev
from . import history_io, importing, moderation, view
from .errors import Refusal
from .identity import Caller
from .ladder_settings import LadderSettings
from .ratings import player_key
from .results import Notice, Preview
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
class BroughtLadder:
    """A ladder of a chat that joins a club: its settings, and (when the chat merges its
    games) its history as ``clubrating export`` writes it (steps, their event names), players
    by user key."""

    name: str
    settings: LadderSettings
    steps: list[Step]
    labels: list[str]
    users: dict[str, str]
    #: a companion's parent, whose team games it rates (issue 37)
    parent: str | None = None

    @property
    def games(self) -> int:
        return sum(isinstance(event, Game | TeamGame)
                   for step in self.steps for event in events_of(step))


@dataclass(frozen=True, slots=True)
class JoiningChat:
    """What a chat brings when it joins a club: its registered members (user key, name,
    handle, date of birth), its named moderators (user keys), how many games it holds, and its
    ladders (with their histories when it merges them)."""

    members: list[tuple[str, str, str | None, str | None]]
    moderators: list[str]
    games: int
    ladders: list[BroughtLadder]


def may_link(club: Club, caller: Caller) -> None:
    """Whether the caller may link their chat with another: a chat that joins a club makes its
    platform moderators and named moderators the club's, and the club's its own, so that, as
    naming one, it is for the platform's own moderators alone (a moderator the club named, or
    a holder of its moderator role, would else make more)."""
    view.require_moderator(club, caller)
    view.require_platform_moderator(caller)


def joining(club: Club, caller: Caller, merge: bool = False) -> JoiningChat:
    """The caller's chat as it would join another club (with its histories, to ``merge``);
    only its platform moderators may link it (:func:`may_link`), and only a chat that is a club
    of one chat."""
    may_link(club, caller)
    state = club.state
    if state.linked_chats:
        raise Refusal("link_has_chats")
    people = [m for m in state.members.values()
              if m.id not in state.merged_into and not m.problem]
    ladders = []
    users = {player_key(m.id): m.user for m in state.members.values()}
    for ladder in state.ladders.values():
        if not merge:  # its ladders alone, without games
            ladders.append(BroughtLadder(ladder.name, ladder.settings, [], [], users,
                                         ladder.parent))
            continue
        if ladder.problems:
            raise Refusal("link_merge_puzzles", ladder=ladder.name)
        exported = history_io.export(club, ladder.name)
        ladders.append(BroughtLadder(ladder.name, ladder.settings, exported.steps,
                                     exported.labels, users, ladder.parent))
    return JoiningChat(
        [(m.user, m.name, m.handle, m.birth_date.isoformat() if m.birth_date else None)
         for m in people],
        [state.members[m].user for m in state.moderators], len(state.games), ladders)


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
    out = [ev.new_event(ev.ChatLinked(caller.platform, caller.chat_id, digest), caller.user,
                        now)]
    newcomers = _newcomers(club.state, caller, chat, now, DEFAULT_LADDER)
    out += newcomers
    out += _ladders_only_it_has(club.state, caller, chat, now)
    out += _moderators(caller, chat, now)
    joined = sum(e.kind == ev.Kind.MEMBER_REGISTERED for e in newcomers)
    return out, lambda: Notice("chat_linked", {"members": joined})


def merge_join(club: Club, now: datetime, caller: Caller, digest: str, chat: JoiningChat,
               apply: bool) -> Decision[Preview]:
    """The caller's chat joins this club with its games (the code's hash ``digest``): its
    members become the club's (as :func:`join`), a ladder only it has comes with its system,
    and each ladder's history is written after a :class:`~events.ChatLinked` marked ``merge``
    and before a :class:`~events.HistoryMerged`, which merges it with the club's by time
    (:func:`bot.service.state.merged_by_time`); the club's ladders keep their systems. Every
    rating that would change is previewed; with ``apply`` it is done."""
    state = club.state
    if open_code(state, digest, CHAT, now) is None:
        raise Refusal("link_code_unknown")
    actor = caller.user
    out = [ev.new_event(ev.ChatLinked(caller.platform, caller.chat_id, digest, merge=True),
                        actor, now)]
    newcomers = _newcomers(state, caller, chat, now, None)
    out += newcomers
    out += _ladders_only_it_has(state, caller, chat, now)
    games = 0
    for brought in chat.ladders:
        ladder = state.ladder(brought.name)
        opened = set() if ladder is None else set(ladder.tournaments)
        name = brought.name if ladder is None else ladder.name
        seasons = [] if ladder is None else [season.name for season in ladder.seasons]
        out += importing.history_events(brought.steps, brought.labels, name, brought.users,
                                        actor, now, opened, seasons)
        games += brought.games
    out.append(ev.new_event(ev.HistoryMerged(caller.platform, caller.chat_id, games), actor,
                            now))
    out += _moderators(caller, chat, now)
    after = moderation.supposing_all(club, out)
    for brought in chat.ladders:
        ladder = after.state.ladder(brought.name)
        assert ladder is not None
        try:
            view.ratings(after, ladder)
        except ReplayError as error:
            raise Refusal("link_merge_bad", ladder=ladder.name, problem=error.message) from None
    sentence = Notice("chat_merged" if apply else "link_merge_preview",
                      {"games": games,
                       "members": sum(e.kind == ev.Kind.MEMBER_REGISTERED for e in newcomers),
                       "ladders": ", ".join(b.name for b in chat.ladders)})
    preview = Preview(0, moderation.moved(after, moderation.everyone(club)), applied=apply,
                      link=sentence)
    return (out if apply else []), lambda: preview


def _newcomers(state: ClubState, caller: Caller, chat: JoiningChat, now: datetime,
               ladder: str | None) -> list[NewEvent]:
    """The registrations of the joining chat's members the club does not have (joining
    ``ladder``): under their names, or with their platform after a name the club has. Without
    a ladder (their history brings their joins) a registration keeps no handle: each handle
    follows as its own event."""
    names = {m.name.casefold() for m in state.members.values()}
    out = []
    for user, name, handle, birth in chat.members:
        if user in state.by_user:
            continue
        shown = name
        if shown.casefold() in names:
            shown = (name + _TAKEN_SUFFIX.format(platform=caller.platform.title()))[:32]
        names.add(shown.casefold())
        kept = handle if ladder is not None else None
        out.append(ev.new_event(ev.MemberRegistered(user, shown, ladder, birth, kept,
                                                    chat_of(caller)), caller.user, now))
        if handle is not None and kept is None:
            out.append(ev.new_event(ev.HandleChanged(user, handle), caller.user, now))
    return out


def _ladders_only_it_has(state: ClubState, caller: Caller, chat: JoiningChat, now: datetime
                         ) -> list[NewEvent]:
    """The joining chat's ladders the club has none of the same name of: they come along,
    with their systems and parameters (one of the same name keeps the club's)."""
    return [ev.new_event(ev.LadderCreated(b.name, b.settings.system, dict(b.settings.params),
                                          b.settings.edition, teams_of=b.parent),
                         caller.user, now)
            for b in chat.ladders if state.ladder(b.name) is None]


def _moderators(caller: Caller, chat: JoiningChat, now: datetime) -> list[NewEvent]:
    """The joining chat's named moderators become the club's."""
    return [ev.new_event(ev.ModeratorNamed(user), caller.user, now) for user in chat.moderators]


def unlink(club: Club, now: datetime, caller: Caller, apply: bool) -> Decision[Preview]:
    """The caller's chat, which joined the club, leaves it (a moderator's ``/unlink``): the
    club keeps its whole history and its other chats; the chat's commands act on a club of its
    own again, which starts empty. Previewed first; with ``apply`` it is done. The chat that
    holds the club's log (where the club began) cannot leave it."""
    view.require_moderator(club, caller)
    state = club.state
    here = (caller.platform, caller.chat_id)
    if here not in state.linked_chats:
        raise Refusal("unlink_home" if state.linked_chats else "unlink_alone")
    games = sum(1 for g in state.games.values() if g.counts)
    members = sum(1 for m in state.members.values()
                  if m.id not in state.merged_into and not m.problem)
    sentence = Notice("chat_unlinked" if apply else "unlink_preview",
                      {"games": games, "members": members})
    preview = Preview(0, [], applied=apply, link=sentence)
    if not apply:
        return [], lambda: preview
    return [ev.new_event(ev.ChatUnlinked(*here), caller.user, now)], lambda: preview


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

