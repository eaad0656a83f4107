"""A club's current state, folded from its event log.

Nothing here is stored: the log is the truth and this is its reading. Undone moderator actions
are left out of the fold, which is why an undo rebuilds the state from the whole log.
"""

from __future__ import annotations

import dataclasses
import heapq
import typing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Any, assert_never

from bot.storage.repository import StoredEvent

from . import events
from .events import UNDOABLE as UNDOABLE  # re-exported: imported from here
from .events import Kind as Kind  # re-exported: imported from here

# re-exported: imported from here
from .ladder_settings import DEFAULT_SYSTEM as DEFAULT_SYSTEM
from .ladder_settings import DEFAULT_TIMEZONE as DEFAULT_TIMEZONE
from .ladder_settings import PAST_EDITION
from .ladder_settings import LadderSettings as LadderSettings
from .lookalike import skeletons

DEFAULT_LADDER = "main"
#: apostrophes people type for one another (typographic ’ and ‘, the letter ʼ): in names
#: they are one letter, so "@O’Brien" finds O'Brien (issue 31)
_APOSTROPHES = str.maketrans("’‘ʼ", "'''")


def folded_name(name: str) -> str:
    """``name`` as names are compared: case aside, every apostrophe the straight one."""
    return name.translate(_APOSTROPHES).casefold()


class GameStatus(StrEnum):
    PENDING = "pending"
    DISPUTED = "disputed"
    CONFIRMED = "confirmed"
    WITHDRAWN = "withdrawn"


@dataclass(slots=True)
class Member:
    id: int
    user: str
    name: str
    birth_date: date | None
    registered_at: datetime
    #: the platform's handle (a Telegram @username), as the member's latest update gave it (a
    #: registration before issue 30 left it out when it equalled the display name)
    handle: str | None = None
    #: the language the member reads what only they see in (``/set mylanguage``); None: their
    #: app's
    language: str | None = None
    #: the record is a rated problem's (``tactics``), not a person's: no typed name finds it
    problem: bool = False


@dataclass(slots=True)
class GameRecord:
    """A reported game. ``id`` is its report's event id (what other events name it by);
    ``number`` is what people call it: the club's games are numbered from 1 in the order they
    were reported."""

    id: int
    number: int
    ladder: str
    player_a: int
    player_b: int
    score_a: float
    handicap: float
    colour: str | None
    event: str | None
    played_at: datetime
    reported_at: datetime
    reported_by: int | None
    status: GameStatus
    #: id of the event that made the game count (its place in the rating order)
    seq: int | None = None
    voided: bool = False
    #: bumped by every correction, so cached rating inputs know to rebuild
    version: int = 0
    #: why the opponent disputed it (for the moderators' queue), while it is disputed
    dispute: str | None = None
    #: when its confirmation period began, if not when it was reported: a restore of a report
    #: voided before it counted gives its opponent a fresh period to answer (issue 31)
    pending_since: datetime | None = None
    #: an attempt at a problem (``tactics``): the seconds it took, and the answer typed (None:
    #: the time ran out)
    seconds: float | None = None
    answer: str | None = None
    #: a team game's further members of each side (issue 37): ``player_a`` and
    #: ``partners_a`` are side a; empty for a game of one against one
    partners_a: tuple[int, ...] = ()
    partners_b: tuple[int, ...] = ()

    @property
    def side_a(self) -> tuple[int, ...]:
        return (self.player_a, *self.partners_a)

    @property
    def side_b(self) -> tuple[int, ...]:
        return (self.player_b, *self.partners_b)

    @property
    def players(self) -> tuple[int, ...]:
        """Everyone who played it, side a first."""
        return (self.player_a, *self.partners_a, self.player_b, *self.partners_b)

    @property
    def team(self) -> bool:
        """Whether a side has more than one member."""
        return bool(self.partners_a or self.partners_b)

    @property
    def counts(self) -> bool:
        return self.status is GameStatus.CONFIRMED and not self.voided and self.seq is not None


@dataclass(slots=True)
class Challenge:
    """A challenge: ``id`` is its event's id, ``number`` what people answer it by (the club's
    challenges are numbered from 1, apart from its games)."""

    id: int
    number: int
    ladder: str
    challenger: int
    opponent: int
    at: datetime
    expires_at: datetime
    status: str = "open"


@dataclass(slots=True)
class LinkCode:
    """A one-time link code, by the hash the log keeps (:class:`events.LinkCodeIssued`)."""

    kind: str
    member: str | None
    expires_at: datetime
    used: bool = False
    #: the chat it was asked in (``platform:chat id``; None: written before it was kept)
    chat: str | None = None


@dataclass(frozen=True, slots=True)
class ChatSettings:
    """A chat's own settings in a club of several chats (:class:`events.ChatSettingSet`), for
    its own posts and what is said there; None: the club's (its ladders')."""

    timezone: str | None = None
    language: str | None = None


#: a chat that set none of its own (the club's own chat, every chat of a club of one chat)
NO_CHAT_SETTINGS = ChatSettings()


@dataclass(slots=True)
class Claim:
    """A member's claim to be an imported record (``/claim NAME``), by the id of its event."""

    id: int
    record: int
    claimant: int
    status: str = "open"


@dataclass(slots=True)
class Tournament:
    name: str
    opened: int
    closed: int | None = None


@dataclass(frozen=True, slots=True)
class Season:
    """A closed season of a ladder (issue 38): its name, its boundary's event id and time, and
    the reset that the boundary applies (``none``, ``soft`` or ``hard``, with its factor)."""

    name: str
    id: int
    closed_at: datetime
    reset: str
    factor: float
    automatic: bool = False


@dataclass(frozen=True, slots=True)
class Membership:
    seq: int
    kind: Kind
    member: int
    #: when it counts for the ratings: the row's date for an imported history, else the event's
    at: datetime
    #: the event whose rating period it belongs to (imported histories), if any
    event: str | None = None
    #: the rating a join starts from, when it is given (a rated problem's)
    rating: float | None = None


@dataclass(slots=True)
class Problem:
    """A rated problem of a ``tactics`` ladder (seed 004). ``id`` is its event's id, which is
    also the id of the member record it is rated under; ``code`` is what people call it."""

    id: int
    ladder: str
    code: str
    prompt: str
    answers: tuple[str, ...]
    image: str | None
    rating: float | None
    added_at: datetime
    #: when a scheduled post showed it to the group, and when a post showed its solution (from
    #: then on it takes no attempts)
    posted_at: datetime | None = None
    revealed_at: datetime | None = None


@dataclass(slots=True)
class Attempt:
    """A member's one attempt at a problem: delivered at ``started_at``; ``game`` is the id of
    the report that ended it (None while it is open)."""

    member: int
    problem: int
    started_at: datetime
    game: int | None = None


@dataclass(slots=True)
class NightBoard:
    """A board of a club night's round (issue 36): its players (member ids; ``first`` is
    white in chess, the left side of ``1-0``), the handicap shown (McMahon's stones), the
    games reported as this board's (their ids), and a forfeit ("+-" or "-+"), if any."""

    number: int
    first: int
    second: int
    handicap: int = 0
    games: list[int] = field(default_factory=list)
    forfeit: str | None = None


@dataclass(slots=True)
class NightRound:
    """A round of a club night: paired (a preview) until it is published."""

    number: int
    boards: list[NightBoard]
    bye: int | None
    reasons: dict[int, str]
    rules: str | None
    published: bool = False


@dataclass(slots=True)
class ClubNight:
    """A club night (issue 36), named by its opening's event id. ``entrants``: every member
    who checked in, in that order, with their status ("in", "paused" or "out"); ``joined``:
    the first round each could be paired in; ``paused``: the round each sits out;
    ``numbers``: the pairing numbers (member ids in order); ``rounds``: the published rounds,
    then at most one paired and not yet published."""

    id: int
    ladder: str
    mode: str
    rounds_wanted: int | None
    opened_at: datetime
    entrants: dict[int, str] = field(default_factory=dict)
    joined: dict[int, int] = field(default_factory=dict)
    paused: dict[int, int] = field(default_factory=dict)
    numbers: list[int] = field(default_factory=list)
    rounds: list[NightRound] = field(default_factory=list)
    forbidden: set[frozenset[int]] = field(default_factory=set)
    closed: bool = False

    @property
    def published(self) -> list[NightRound]:
        return [r for r in self.rounds if r.published]

    @property
    def pending(self) -> NightRound | None:
        """The round paired and not yet published, if any."""
        return self.rounds[-1] if self.rounds and not self.rounds[-1].published else None


@dataclass(frozen=True, slots=True)
class Band:
    """A rating band of a ladder (issue 38): held from a shown rating of ``minimum`` on, with
    the Discord role ``role`` (its id; None: none) that its holders get."""

    name: str
    minimum: int
    role: str | None = None


@dataclass(slots=True)
class Ladder:
    name: str
    settings: LadderSettings
    games: dict[int, GameRecord] = field(default_factory=dict)
    membership: list[Membership] = field(default_factory=list)
    tournaments: dict[str, Tournament] = field(default_factory=dict)
    #: what the ratings are built from, in rating order: ("game", id), ("member", index into
    #: membership) and ("close", tournament key); appended, except where a chat's history is
    #: merged in by time (:func:`merged_by_time`)
    inputs: list[tuple[str, int | str]] = field(default_factory=list)
    #: bumped whenever the rating inputs change in a way other than appending
    generation: int = 0
    #: the game each correction changed, by the generation it made (the other changes that bump
    #: the generation have no entry): what the ratings re-rate in place (``ratings.py``)
    corrections: dict[int, int] = field(default_factory=dict)
    created_at: datetime | None = None
    #: the histories ``clubrating import`` appended, by fingerprint: when and from which file
    #: first
    imported: dict[str, tuple[datetime, str]] = field(default_factory=dict)
    #: a ``tactics`` ladder's problems by their folded code, in the order they were added
    problems: dict[str, Problem] = field(default_factory=dict)
    #: every attempt at a problem, by (member id, problem id); the open ones by member id
    attempts: dict[tuple[int, int], Attempt] = field(default_factory=dict)
    open_attempts: dict[int, Attempt] = field(default_factory=dict)
    #: the problem the latest scheduled post showed (its folded code), if any
    posted: str | None = None
    #: its club nights, oldest first (issue 36); the last is open until it is closed
    nights: list[ClubNight] = field(default_factory=list)
    #: a companion's parent: the ladder whose team games it rates (issue 37), else None
    parent: str | None = None
    #: its rating bands, lowest minimum first (issue 38)
    bands: list[Band] = field(default_factory=list)
    #: the role Discord refused while the ladder's band roles are paused (None: not paused)
    roles_paused: str | None = None
    #: its closed seasons, oldest first (issue 38); each is an input ("season", index)
    seasons: list[Season] = field(default_factory=list)

    @property
    def night(self) -> ClubNight | None:
        """The ladder's open club night, if any."""
        return self.nights[-1] if self.nights and not self.nights[-1].closed else None

    def problem(self, code: str) -> Problem | None:
        return self.problems.get(code.casefold())


#: a ladder's posting schedule unless its moderators set one: Mondays 09:00 (issue 6)
DEFAULT_CRON = "0 9 * * MON"
#: rows of the leaderboard in a scheduled post
DEFAULT_DIGEST_SIZE = 10


@dataclass(frozen=True, slots=True)
class Schedule:
    """When and where a ladder's leaderboard is posted. ``timezone`` None: the ladder's
    timezone setting (else UTC); ``channel`` None: the club's own chat. Posts are due only
    after ``since`` (when the schedule was set, resumed, or the ladder created), so a new
    schedule never posts for a time before it existed."""

    cron: str = DEFAULT_CRON
    timezone: str | None = None
    channel: str | None = None
    paused: bool = False
    size: int = DEFAULT_DIGEST_SIZE
    since: datetime | None = None


@dataclass(frozen=True, slots=True)
class LiveBoard:
    """A ladder's live leaderboard (issue 38): the message of chat ``chat`` of ``platform``
    that shows its table, ``message`` None until the front-end posted it. ``id``: the id of
    the event that started it."""

    id: int
    ladder: str
    platform: str
    chat: str
    message: str | None = None
    #: the channel of the chat where the message is (a Discord server's), None: the chat
    channel: str | None = None

    @property
    def where(self) -> str:
        """The platform's id of where its message goes: the channel, else the chat."""
        return self.channel or self.chat


class ClubState:
    def __init__(self) -> None:
        self.last_id = 0
        self.members: dict[int, Member] = {}
        self.by_user: dict[str, int] = {}
        self.merged_into: dict[int, int] = {}
        #: members the club named moderators (besides the platform's administrators)
        self.moderators: set[int] = set()
        self.ladders: dict[str, Ladder] = {}
        #: posting schedules set for ladders (the others post on the default one)
        self.schedules: dict[str, Schedule] = {}
        self.challenges: dict[int, Challenge] = {}
        #: claims of imported records (``/claim``), open or answered
        self.claims: dict[int, Claim] = {}
        #: link codes by their hashes; the chats linked to the club (platform, chat id); the
        #: club this log's chat moved to (a log whose chat joined another club)
        self.link_codes: dict[str, LinkCode] = {}
        self.linked_chats: list[tuple[str, str]] = []
        self.moved_to: int | None = None
        #: the chats that left the club (``/unlink``) and have not joined again
        self.unlinked_chats: set[tuple[str, str]] = set()
        #: while a chat's history is being merged in: each ladder's inputs before it
        self._merging_from: dict[str, int] | None = None
        #: in a club of several chats, the chat (``platform:chat id``) each account is known
        #: in, and the club's own chat (where its first link code was asked)
        self.chat_of_user: dict[str, str] = {}
        self.home_chat: str | None = None
        #: the settings of their own the chats that joined the club set, by ``platform:chat id``
        self.chat_settings: dict[str, ChatSettings] = {}
        #: every game by id, and the reports still pending or disputed (what confirm and the
        #: sweep look through)
        self.games: dict[int, GameRecord] = {}
        self.open_reports: dict[int, GameRecord] = {}
        #: the event ids of the games and challenges by their numbers (see :meth:`_number`),
        #: and the other way round (an undone report keeps its number too)
        self.game_numbers: dict[int, int] = {}
        self.challenge_numbers: dict[int, int] = {}
        self.number_of: dict[int, int] = {}
        #: moderator actions still in force, oldest first (what /undo takes back)
        self.undoable: list[StoredEvent] = []
        self.log: list[StoredEvent] = []
        #: each ladder's live leaderboard (issue 38), by ladder name
        self.live_boards: dict[str, LiveBoard] = {}

    @classmethod
    def build(cls, log: Iterable[StoredEvent]) -> ClubState:
        stored = list(log)
        undos = [events.decode(e.kind, e.data) for e in stored if e.kind == Kind.ACTION_UNDONE]
        undone = {undo.target for undo in undos if isinstance(undo, events.ActionUndone)}
        state = cls()
        for each in stored:
            state.log.append(each)
            state.last_id = each.id
            state._number(each)
            # Decoded one at a time: a payload is garbage once folded, so the collector never
            # sees a log's worth of them (which made the fold a third slower).
            if each.id not in undone and each.kind != Kind.ACTION_UNDONE:
                state._fold(each, events.decode(each.kind, each.data))
        return state

    # -- lookups ------------------------------------------------------------------------------

    def member(self, member_id: int) -> Member:
        """A member, following merges to the surviving record."""
        while member_id in self.merged_into:
            member_id = self.merged_into[member_id]
        return self.members[member_id]

    def member_of_user(self, user: str) -> Member | None:
        """The member with the platform user id ``user``: the caller, or a member the platform
        pointed at (``identity.UserRef``); never looked up with typed text."""
        member_id = self.by_user.get(user)
        return None if member_id is None else self.member(member_id)

    def member_named(self, name: str) -> Member | None:
        """The member shown as ``name``, or else the one whose platform handle it is (the
        first of :meth:`members_called`'s)."""
        shown, handled = self.members_called(name)
        return next(iter([*shown, *handled]), None)

    def members_called(self, name: str) -> tuple[list[Member], list[Member]]:
        """The current members shown as ``name``, and those whose platform handle it is (case
        aside, and apostrophes: :func:`folded_name`): whom a typed name may mean."""
        wanted = folded_name(name)
        current = [m for m in self.members.values()
                   if m.id not in self.merged_into and not m.problem]
        return ([m for m in current if folded_name(m.name) == wanted],
                [m for m in current
                 if m.handle is not None and folded_name(m.handle) == wanted])

    def member_like(self, name: str, index: dict[str, Member] | None = None) -> Member | None:
        """The member whose name or platform handle looks like ``name`` (the same Unicode
        skeleton: "аlice" with a Cyrillic а, or fullwidth "ａｌｉｃｅ", looks like "alice");
        ``index`` is :meth:`look_alikes`, made once for many names."""
        index = self.look_alikes() if index is None else index
        return next((index[s] for s in sorted(skeletons(name)) if s in index), None)

    def look_alikes(self) -> dict[str, Member]:
        """The current members by the skeletons of their names and handles."""
        index: dict[str, Member] = {}
        for member in self.members.values():
            if member.id in self.merged_into or member.problem:
                continue
            for shown in (member.name, member.handle):
                if shown is not None:
                    for shape in skeletons(shown):
                        index.setdefault(shape, member)
        return index

    def team_settings(self, ladder: Ladder) -> LadderSettings:
        """The settings of ``ladder``'s team games: its parent's, where it is a companion."""
        parent = None if ladder.parent is None else self.ladders.get(ladder.parent)
        return (parent or ladder).settings

    def companion(self, ladder: Ladder) -> Ladder | None:
        """The ladder that rates ``ladder``'s team games, once it exists (issue 37)."""
        found = self.ladders.get(companion_name(ladder.name))
        return found if found is not None and found.parent == ladder.name else None

    def ladder(self, name: str) -> Ladder | None:
        return self.ladders.get(name.casefold())

    def chats_of(self, member_id: int) -> set[str]:
        """The chats (``platform:chat id``) where a member of a club of several chats is
        known, by every account of theirs: the one each registered or was linked in, else the
        club's own chat. Empty in a club of one chat."""
        if not self.linked_chats:
            return set()
        target = self.member(member_id).id
        here = {f"{platform}:{chat_id}" for platform, chat_id in self.linked_chats}
        here.add(self.home_chat or "")
        chats = set()
        for user, record in self.by_user.items():
            if self.member(record).id == target:
                chat = self.chat_of_user.get(user, self.home_chat)
                if chat in here:  # an account of a chat that left is asked nowhere
                    chats.add(chat)
        return chats

    def joined(self, platform: str, chat_id: str) -> bool:
        """Whether the chat joined this club (``/link CODE``): not the club's own chat."""
        return (platform, chat_id) in self.linked_chats

    def own_settings(self, platform: str, chat_id: str) -> ChatSettings:
        """The chat's own settings: what a chat that joined the club set for itself; none for
        the club's own chat, nor in a club of one chat."""
        return self.chat_settings.get(f"{platform}:{chat_id}", NO_CHAT_SETTINGS)

    def schedule(self, ladder: Ladder) -> Schedule:
        """The ladder's posting schedule: the one set for it, else the default since the
        ladder exists."""
        return self.schedules.get(ladder.name) or Schedule(since=ladder.created_at)

    # -- the fold -----------------------------------------------------------------------------

    def append(self, event: StoredEvent) -> None:
        """Fold one new event (an undo needs :meth:`build` instead)."""
        self.log.append(event)
        self.last_id = event.id
        self._number(event)
        self._fold(event, events.decode(event.kind, event.data))

    def _number(self, stored: StoredEvent) -> None:
        """Give a game report or a challenge its number: the next of its kind in the club.
        Every report counts, an undone one too, so that no later game's number ever moves;
        the numbers are those an SQL ``ROW_NUMBER()`` over the club's reports by id gives
        (migration 0005 relies on it)."""
        if stored.kind == Kind.GAME_REPORTED:
            numbers = self.game_numbers
        elif stored.kind == Kind.CHALLENGE_ISSUED:
            numbers = self.challenge_numbers
        else:
            return
        numbers[len(numbers) + 1] = stored.id
        self.number_of[stored.id] = len(numbers)

    def _fold(self, stored: StoredEvent, event: events.Event) -> None:
        """Fold ``stored``, decoded as ``event``. Events name members by their platform user
        key (ids are not known before a write); ``by_user`` gives their ids."""
        if (isinstance(event, events.GameReported) and event.direct) or event.KIND in UNDOABLE:
            self.undoable.append(stored)
        # Each case is an isinstance check: the most frequent kinds come first.
        match event:
            case events.GameReported():
                self._on_game_reported(stored, event)
            case events.GameConfirmed() | events.GameAutoConfirmed():
                self._on_game_confirmed(stored, event.game)
            case events.MemberRegistered():
                self._on_member_registered(stored, event)
            case events.PlayerJoined() | events.PlayerRetired() | events.PlayerReturned():
                self._membership(stored, event.KIND, event.ladder, self.by_user[event.member],
                                 event.event, event.played_at)
            case events.GameDisputed():
                game = self.games.get(event.game)
                if game is not None:
                    game.status = GameStatus.DISPUTED
                    game.dispute = stored.reason
            case events.GameWithdrawn():
                game = self.games.get(event.game)
                if game is not None:
                    game.status = GameStatus.WITHDRAWN
                    self.open_reports.pop(game.id, None)
            case events.GameCorrected():
                self._on_game_corrected(stored, event)
            case events.GameVoided():
                game = self.games.get(event.game)
                if game is not None:
                    game.voided = True
                    self.ladders[game.ladder].generation += 1
            case events.GameRestored():
                game = self.games.get(event.game)
                if game is not None:
                    game.voided = False
                    if event.pending and game.status is not GameStatus.CONFIRMED:
                        # Only a restore written since issue 31 says so: one stored before
                        # folds as it always did (no club's history changes).
                        game.status, game.dispute = GameStatus.PENDING, None
                        game.pending_since = stored.at
                    self.ladders[game.ladder].generation += 1
            case events.ChallengeIssued():
                self.challenges[stored.id] = Challenge(
                    id=stored.id,
                    number=self.number_of[stored.id],
                    ladder=event.ladder,
                    challenger=self.by_user[event.challenger],
                    opponent=self.by_user[event.opponent],
                    at=stored.at,
                    expires_at=datetime.fromisoformat(event.expires_at),
                )
            case events.ChallengeAccepted():
                self.challenges[event.challenge].status = "accepted"
            case events.ChallengeDeclined():
                self.challenges[event.challenge].status = "declined"
            case events.ChallengeWithdrawn():
                self.challenges[event.challenge].status = "withdrawn"
            case events.EventOpened():
                self.ladders[event.ladder].tournaments[event.name.casefold()] = Tournament(
                    event.name, stored.id)
            case events.EventClosed():
                ladder = self.ladders[event.ladder]
                key = event.name.casefold()
                ladder.tournaments[key].closed = stored.id
                ladder.inputs.append(("close", key))
            case events.LadderCreated():
                settings = LadderSettings(system=event.system,
                                          params=tuple(sorted(event.params.items())),
                                          edition=event.edition or PAST_EDITION)
                self.ladders[event.ladder] = Ladder(event.ladder, settings, created_at=stored.at,
                                                    parent=event.teams_of)
            case events.SettingsChanged():
                self._on_settings_changed(stored, event)
            case events.PlayersMerged():
                self.merged_into[self.by_user[event.from_]] = self.by_user[event.into]
                for ladder in self.ladders.values():
                    ladder.generation += 1
            case events.ModeratorNamed():
                self.moderators.add(self.by_user[event.member])
            case events.ModeratorRemoved():
                self.moderators.discard(self.by_user[event.member])
            case events.HandleChanged():
                # the user's own record (a merged duplicate's too: it is found by no name)
                self.members[self.by_user[event.member]].handle = event.handle
            case events.LanguageChosen():
                self.members[self.by_user[event.member]].language = event.language
            case events.ProblemAdded():
                self._on_problem_added(stored, event)
            case events.LinkCodeIssued():
                self.link_codes[event.code] = LinkCode(
                    event.kind, event.member, datetime.fromisoformat(event.expires_at),
                    chat=event.chat)
                if event.kind == "chat" and self.home_chat is None and not self.linked_chats:
                    self.home_chat = event.chat
            case events.ChatLinked():
                self.link_codes[event.code].used = True
                self.linked_chats.append((event.platform, event.chat_id))
                self.unlinked_chats.discard((event.platform, event.chat_id))
                if event.merge:
                    self._merging_from = {name: len(ladder.inputs)
                                          for name, ladder in self.ladders.items()}
            case events.HistoryMerged():
                self._on_history_merged()
            case events.ChatMoved():
                self.moved_to = event.club
            case events.ChatUnlinked():
                chat = (event.platform, event.chat_id)
                self.linked_chats.remove(chat)
                self.unlinked_chats.add(chat)
                self.chat_settings.pop(f"{event.platform}:{event.chat_id}", None)
            case events.ChatReturned():
                self._start_empty()
            case events.ChatSettingSet():
                change: dict[str, Any] = {event.setting: event.value}  # checked when written
                self.chat_settings[event.chat] = dataclasses.replace(
                    self.chat_settings.get(event.chat, NO_CHAT_SETTINGS), **change)
            case events.NightOpened():
                self.ladders[event.ladder].nights.append(ClubNight(
                    stored.id, event.ladder, event.mode, event.rounds, stored.at))
            case events.NightEntered():
                self._on_night_entered(event)
            case events.RoundPaired():
                self._on_round_paired(event)
            case events.PairForbidden():
                night = self.ladders[event.ladder].night
                if night is not None:
                    night.forbidden.add(frozenset(self.member(self.by_user[u]).id
                                                  for u in (event.first, event.second)))
            case events.RoundPublished():
                night = self.ladders[event.ladder].night
                if night is not None and night.pending is not None:
                    night.pending.published = True
            case events.BoardForfeited():
                board = self._board(event.ladder, None, event.round, event.board)
                if board is not None:
                    board.forfeit = event.result
            case events.NightClosed():
                night = self.ladders[event.ladder].night
                if night is not None:
                    night.closed = True
            case events.BandAdded():
                bands = self.ladders[event.ladder].bands
                bands.append(Band(event.name, int(event.minimum), event.role))
                bands.sort(key=lambda band: band.minimum)
            case events.BandRemoved():
                ladder = self.ladders[event.ladder]
                ladder.bands = [band for band in ladder.bands
                                if band.name.casefold() != event.name.casefold()]
            case events.BandRolesPaused():
                self.ladders[event.ladder].roles_paused = event.role
            case events.BandRolesResumed():
                self.ladders[event.ladder].roles_paused = None
            case events.SeasonClosed():
                ladder = self.ladders[event.ladder]
                ladder.inputs.append(("season", len(ladder.seasons)))
                ended = (stored.at if event.boundary is None
                         else datetime.fromisoformat(event.boundary))
                ladder.seasons.append(Season(event.name, stored.id, ended, event.reset,
                                             event.factor, event.automatic))
            case events.MemberLinked():
                self.link_codes[event.code].used = True
                self._on_member_linked(event)
                if event.chat is not None:
                    self.chat_of_user[event.identity] = event.chat
            case events.AttemptStarted():
                ladder = self.ladders[event.ladder]
                problem = ladder.problems[event.problem.casefold()]
                member = self.by_user[event.member]
                attempt = Attempt(member, problem.id, stored.at)
                ladder.attempts[(member, problem.id)] = attempt
                ladder.open_attempts[member] = attempt
            case events.PuzzlePosted():
                ladder = self.ladders[event.ladder]
                if event.revealed is not None:
                    ladder.problems[event.revealed.casefold()].revealed_at = stored.at
                if event.problem is not None:
                    ladder.problems[event.problem.casefold()].posted_at = stored.at
                ladder.posted = None if event.problem is None else event.problem.casefold()
            case events.ScheduleSet():
                name, current = self._schedule_of(event.ladder)
                self.schedules[name] = dataclasses.replace(
                    current, cron=event.cron, timezone=event.timezone, channel=event.channel,
                    size=event.size, since=stored.at,
                )
            case events.SchedulePaused():
                name, current = self._schedule_of(event.ladder)
                self.schedules[name] = dataclasses.replace(current, paused=True)
            case events.ScheduleResumed():
                # Posts missed while paused are not made up for: due again only from now on.
                name, current = self._schedule_of(event.ladder)
                self.schedules[name] = dataclasses.replace(current, paused=False, since=stored.at)
            case events.HistoryImported():
                self.ladders[event.ladder].imported.setdefault(
                    event.fingerprint, (stored.at, event.file))
            case events.ClaimRequested():
                self.claims[stored.id] = Claim(stored.id, self.by_user[event.member],
                                               self.by_user[event.claimant])
            case events.ClaimApproved():
                self._on_claim_approved(event.claim)
            case events.ClaimDeclined():
                self.claims[event.claim].status = "declined"
            case events.LiveBoardStarted():
                self.live_boards[event.ladder] = LiveBoard(
                    stored.id, event.ladder, event.platform, event.chat, channel=event.channel)
            case events.LiveBoardMoved():
                live = self.live_boards.get(event.ladder)
                if live is not None and live.id == event.board:
                    self.live_boards[event.ladder] = dataclasses.replace(
                        live, message=event.message)
            case events.LiveBoardStopped():
                self.live_boards.pop(event.ladder, None)
            case events.ActionUndone():
                # An undo changes what came before it: only build() folds it, by leaving its
                # target out.
                raise ValueError(f"event {stored.id}: an undo is folded by ClubState.build")
            case _:
                assert_never(event)

    def _board(self, ladder: str, night: int | None, round_: int, number: int
               ) -> NightBoard | None:
        """Board ``number`` of round ``round_`` of the ladder's night ``night`` (None: the open
        one), if it stands (an /undo may have taken back what made it)."""
        nights = self.ladders[ladder].nights
        found = (nights[-1] if nights and not nights[-1].closed else None) if night is None \
            else next((n for n in nights if n.id == night), None)
        if found is None or not 0 < round_ <= len(found.rounds):
            return None
        boards = found.rounds[round_ - 1].boards
        return boards[number - 1] if 0 < number <= len(boards) else None

    def _on_night_entered(self, event: events.NightEntered) -> None:
        """A member checks in (from the next round on), leaves, or sits the next round out."""
        night = self.ladders[event.ladder].night
        if night is None:  # its opening was taken back (/undo)
            return
        member = self.member(self.by_user[event.member]).id
        coming = len(night.published) + 1
        if event.status == "paused":
            night.paused[member] = coming
        else:
            night.entrants[member] = event.status
            night.joined.setdefault(member, coming)
            night.paused.pop(member, None)

    def _on_round_paired(self, event: events.RoundPaired) -> None:
        """A paired round replaces the one paired before it, until it is published."""
        night = self.ladders[event.ladder].night
        if night is None:  # its opening was taken back (/undo)
            return
        member = self.by_user.__getitem__
        # each board as written: [first, second, handicap] (user keys, stones)
        seats = [typing.cast(tuple[str, str, int], tuple(board)) for board in event.boards]
        boards = [NightBoard(n, member(first), member(second), handicap)
                  for n, (first, second, handicap) in enumerate(seats, 1)]
        paired = NightRound(event.round, boards,
                            None if event.bye is None else member(event.bye),
                            {int(k): v for k, v in event.reasons.items()}, event.rules)
        if night.pending is not None:
            night.rounds.pop()
        night.rounds.append(paired)
        night.numbers = [member(user) for user in event.numbers]

    def _on_history_merged(self) -> None:
        """A merged chat's history is all in: each ladder's inputs it brought (those after the
        marks its :class:`~events.ChatLinked` made) go among the club's own by time."""
        marks, self._merging_from = self._merging_from or {}, None
        for name, ladder in self.ladders.items():
            mark = marks.get(name, 0)
            if 0 < mark < len(ladder.inputs):
                ladder.inputs = merged_by_time(ladder, ladder.inputs[:mark],
                                               ladder.inputs[mark:])
                ladder.generation += 1

    def _start_empty(self) -> None:
        """This log's chat left the club it had joined: it is a club of its own again, with
        nothing in it; the log keeps what came before (the ids and numbers go on)."""
        kept = {name: getattr(self, name) for name in (
            "log", "last_id", "game_numbers", "challenge_numbers", "number_of")}
        vars(self).update(vars(ClubState()), **kept)

    def _on_member_linked(self, event: events.MemberLinked) -> None:
        """The identity names the member from now on; a record of its own (it has no games)
        is folded into the member's, as by a merge."""
        member = self.member(self.by_user[event.member])
        own = self.by_user.get(event.identity)
        if own is not None and self.member(own).id != member.id:
            self.merged_into[self.member(own).id] = member.id
            if own in self.moderators:
                self.moderators.add(member.id)
            for ladder in self.ladders.values():
                ladder.generation += 1
        self.by_user[event.identity] = member.id

    def _on_claim_approved(self, claim_id: int) -> None:
        """The claimant's platform user becomes the imported record's: it finds the record from
        now on, and their own record (without games) is folded into it, as by a merge."""
        claim = self.claims[claim_id]
        claim.status = "approved"
        record, claimant = self.members[claim.record], self.member(claim.claimant)
        record.user = claimant.user
        record.handle = record.handle or claimant.handle
        self.by_user[claimant.user] = record.id
        self.merged_into[claimant.id] = record.id
        if claimant.id in self.moderators:
            self.moderators.add(record.id)
        for ladder in self.ladders.values():
            ladder.generation += 1

    def _on_settings_changed(self, stored: StoredEvent, event: events.SettingsChanged) -> None:
        ladder = self.ladders[event.ladder]
        settings = ladder.settings
        if "system" in event.settings and "edition" not in event.settings:
            settings = _replace(settings, "edition", PAST_EDITION)
        for key, value in event.settings.items():
            if key == "params":
                assert isinstance(value, dict)
                settings = _replace(settings, key, tuple(sorted(
                    (str(k), str(v)) for k, v in value.items())))
            else:
                settings = _replace(settings, key, value)
        if _rated_by(settings) != _rated_by(ladder.settings):
            ladder.generation += 1
        if settings.team_size_handicap != ladder.settings.team_size_handicap:
            # its team games are rated again, on the ladder and on its companion
            for rated in (ladder, self.companion(ladder)):
                if rated is not None:
                    rated.generation += 1
        ladder.settings = settings

    def _on_problem_added(self, stored: StoredEvent, event: events.ProblemAdded) -> None:
        """A problem is rated under a member record of its own (found by no typed name), which
        joins its ladder with the rating it was given."""
        user = events.problem_user(event.ladder, event.problem)
        self.members[stored.id] = Member(stored.id, user, event.problem, None, stored.at,
                                         problem=True)
        self.by_user[user] = stored.id
        rating = None if event.rating is None else float(event.rating)
        ladder = self.ladders[event.ladder]
        ladder.problems[event.problem.casefold()] = Problem(
            stored.id, ladder.name, event.problem, event.prompt, tuple(event.answers),
            event.image, rating, stored.at)
        self._membership(stored, Kind.PLAYER_JOINED, ladder.name, stored.id, None, None, rating)

    def _on_member_registered(self, stored: StoredEvent, event: events.MemberRegistered) -> None:
        member = Member(
            id=stored.id,
            user=event.user,
            name=event.name,
            birth_date=None if event.birth_date is None else date.fromisoformat(event.birth_date),
            registered_at=stored.at,
            handle=event.handle,
        )
        self.members[member.id] = member
        self.by_user[member.user] = member.id
        if event.chat is not None:
            self.chat_of_user[member.user] = event.chat
        if event.ladder is not None:  # registering in the chat joins the club's main ladder
            self._membership(stored, Kind.PLAYER_JOINED, event.ladder, member.id, None, None)

    def _membership(self, stored: StoredEvent, kind: Kind, ladder_name: str, member: int,
                    tournament: str | None, played_at: str | None,
                    rating: float | None = None) -> None:
        ladder = self.ladders[ladder_name]
        ladder.inputs.append(("member", len(ladder.membership)))
        # An imported history keeps its own dates; a change made in the chat happens now.
        ladder.membership.append(Membership(
            stored.id, kind, member,
            stored.at if played_at is None else datetime.fromisoformat(played_at),
            None if tournament is None else tournament.casefold(), rating,
        ))

    def _on_game_reported(self, stored: StoredEvent, event: events.GameReported) -> None:
        ladder = self.ladders[event.ladder]
        direct = event.direct
        reporter = event.reported_by
        record = ladder.games[stored.id] = GameRecord(
            id=stored.id,
            number=self.number_of[stored.id],
            ladder=ladder.name,
            player_a=self.by_user[event.player_a],
            player_b=self.by_user[event.player_b],
            # float(): JSON gives a whole number written without a point as an int
            score_a=float(event.score_a),
            handicap=float(event.handicap),
            colour=event.colour,
            event=event.event,
            played_at=datetime.fromisoformat(event.played_at),
            reported_at=stored.at,
            reported_by=None if reporter is None else self.by_user.get(reporter),
            status=GameStatus.CONFIRMED if direct else GameStatus.PENDING,
            seq=stored.id if direct else None,
            seconds=None if event.seconds is None else float(event.seconds),
            answer=event.answer,
            partners_a=self._members_of(event.partners_a),
            partners_b=self._members_of(event.partners_b),
        )
        self.games[stored.id] = record
        if event.night is not None and event.round is not None and event.board is not None:
            board = self._board(ladder.name, event.night, event.round, event.board)
            if board is not None:
                board.games.append(stored.id)
        if direct:
            ladder.inputs.append(("game", stored.id))
        else:
            self.open_reports[stored.id] = record
        if event.seconds is not None:  # an attempt at a problem ends
            attempt = ladder.attempts.get((record.player_a, record.player_b))
            if attempt is None:  # imported: tried, though never delivered here
                ladder.attempts[(record.player_a, record.player_b)] = Attempt(
                    record.player_a, record.player_b, record.played_at, stored.id)
            elif attempt.game is None:
                attempt.game = stored.id
                ladder.open_attempts.pop(attempt.member, None)

    def _members_of(self, users: list[str] | None) -> tuple[int, ...]:
        return () if users is None else tuple(self.by_user[user] for user in users)

    def game(self, game_id: int) -> GameRecord | None:
        """A game by its event id."""
        return self.games.get(game_id)

    def game_numbered(self, number: int) -> GameRecord | None:
        """A game by the number people know it by (None for an undone report's number)."""
        event_id = self.game_numbers.get(number)
        return None if event_id is None else self.games.get(event_id)

    def challenge_numbered(self, number: int) -> Challenge | None:
        event_id = self.challenge_numbers.get(number)
        return None if event_id is None else self.challenges.get(event_id)

    # An event about a game whose report was undone has nothing left to change: the handlers
    # of game events look the game up with .get.

    def _on_game_confirmed(self, stored: StoredEvent, game_id: int) -> None:
        game = self.games.get(game_id)
        if game is not None and game.status is not GameStatus.CONFIRMED:
            game.status = GameStatus.CONFIRMED
            game.seq = stored.id
            self.open_reports.pop(game.id, None)
            self.ladders[game.ladder].inputs.append(("game", game.id))

    def _on_game_corrected(self, stored: StoredEvent, event: events.GameCorrected) -> None:
        game = self.games.get(event.game)
        if game is None:
            return
        changes = event.changes
        if changes.player_a is not None:
            game.player_a = self.by_user[changes.player_a]
        if changes.player_b is not None:
            game.player_b = self.by_user[changes.player_b]
        if changes.partners_a is not None:
            game.partners_a = self._members_of(changes.partners_a)
        if changes.partners_b is not None:
            game.partners_b = self._members_of(changes.partners_b)
        if changes.score_a is not None:
            game.score_a = float(changes.score_a)
        if changes.handicap is not None:
            game.handicap = float(changes.handicap)
        game.version += 1
        if game.status is not GameStatus.CONFIRMED:
            # A moderator's correction settles a pending or disputed report.
            game.status = GameStatus.CONFIRMED
            game.seq = stored.id
            self.open_reports.pop(game.id, None)
            self.ladders[game.ladder].inputs.append(("game", game.id))
        ladder = self.ladders[game.ladder]
        ladder.generation += 1
        ladder.corrections[ladder.generation] = game.id

    def _schedule_of(self, ladder_name: str) -> tuple[str, Schedule]:
        ladder = self.ladders[ladder_name]
        return ladder.name, self.schedule(ladder)


def companion_name(ladder: str) -> str:
    """The name of the ladder that rates ``ladder``'s team games: ``NAME-teams`` (issue 37)."""
    return f"{ladder}-teams"


def _rated_by(settings: LadderSettings) -> tuple[object, ...]:
    """What a ladder's ratings follow from among its settings."""
    return settings.system, settings.params, settings.edition


def _replace(settings: LadderSettings, key: str, value: object) -> LadderSettings:
    change: dict[str, Any] = {key: value}  # the service checked key and value before writing
    return dataclasses.replace(settings, **change)


def expired(challenge: Challenge, now: datetime) -> bool:
    return challenge.status == "open" and now >= challenge.expires_at


def latest_played(state: ClubState, games: Iterable[GameRecord]) -> dict[int, datetime]:
    """Each player's latest ``played_at`` among the counting ``games``, by the member id their
    games count for (after merges and claims): where inactivity counts from (issue 31; see
    :func:`bot.service.view.last_played`)."""
    latest: dict[int, datetime] = {}
    for game in games:
        if game.counts:
            note_played(state, latest, game)
    return latest


def note_played(state: ClubState, latest: dict[int, datetime], game: GameRecord) -> None:
    """Move ``game``'s players' latest dates in ``latest`` forward to its date (never back); a
    problem (``tactics``) is no player whom inactivity retires, and has none."""
    for player in game.players:
        record = state.member(player)
        if record.problem:
            continue
        member = record.id
        before = latest.get(member)
        if before is None or game.played_at > before:
            latest[member] = game.played_at


def merged_by_time(ladder: Ladder, own: list[tuple[str, int | str]],
                   brought: list[tuple[str, int | str]]) -> list[tuple[str, int | str]]:
    """Two runs of a ladder's rating inputs as one, by time (issue 35's merge of a chat's
    history): each run keeps its order, and an input comes where the latest time of its run
    so far falls among the other's (a game reported late, or an event's close, keeps its place
    behind what came before it); at equal times the club's own come first."""
    Input = tuple[str, int | str]

    def timed(items: list[Input]) -> Iterator[tuple[datetime, Input]]:
        latest = datetime.min
        for item in items:
            kind, ref = item
            at = (ladder.games[ref].played_at if kind == "game" and isinstance(ref, int)
                  else ladder.membership[ref].at if kind == "member" and isinstance(ref, int)
                  else None)
            if at is not None and at > latest:
                latest = at
            yield latest, item

    return [item for _, item in heapq.merge(timed(own), timed(brought), key=lambda t: t[0])]
