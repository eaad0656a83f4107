"""A club's current state, folded from its event log.

Nothing here is stored: the log is the truth and this is its reading. Undone moderator actions
are left out of the fold, which is why an undo rebuilds the state from the whole log.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from bot.storage.repository import JsonValue, StoredEvent

from .lookalike import skeletons

DEFAULT_LADDER = "main"
DEFAULT_SYSTEM = "club"


class Kind(StrEnum):
    """Every kind of event in a club's log."""

    LADDER_CREATED = "ladder_created"
    SETTINGS_CHANGED = "settings_changed"
    MEMBER_REGISTERED = "member_registered"
    PLAYER_JOINED = "player_joined"
    PLAYER_RETIRED = "player_retired"
    PLAYER_RETURNED = "player_returned"
    PLAYERS_MERGED = "players_merged"
    MODERATOR_NAMED = "moderator_named"
    MODERATOR_REMOVED = "moderator_removed"
    CHALLENGE_ISSUED = "challenge_issued"
    CHALLENGE_ACCEPTED = "challenge_accepted"
    CHALLENGE_DECLINED = "challenge_declined"
    GAME_REPORTED = "game_reported"
    GAME_CONFIRMED = "game_confirmed"
    GAME_AUTO_CONFIRMED = "game_auto_confirmed"
    GAME_DISPUTED = "game_disputed"
    GAME_WITHDRAWN = "game_withdrawn"
    GAME_CORRECTED = "game_corrected"
    GAME_VOIDED = "game_voided"
    GAME_RESTORED = "game_restored"
    EVENT_OPENED = "event_opened"
    EVENT_CLOSED = "event_closed"
    ACTION_UNDONE = "action_undone"
    SCHEDULE_SET = "schedule_set"
    SCHEDULE_PAUSED = "schedule_paused"
    SCHEDULE_RESUMED = "schedule_resumed"


#: moderator actions that /undo can take back
UNDOABLE = frozenset(
    {
        Kind.LADDER_CREATED,
        Kind.SETTINGS_CHANGED,
        Kind.PLAYER_RETIRED,
        Kind.PLAYER_RETURNED,
        Kind.PLAYERS_MERGED,
        Kind.MODERATOR_NAMED,
        Kind.MODERATOR_REMOVED,
        Kind.GAME_CORRECTED,
        Kind.GAME_VOIDED,
        Kind.GAME_RESTORED,
        Kind.EVENT_OPENED,
        Kind.EVENT_CLOSED,
        Kind.SCHEDULE_SET,
        Kind.SCHEDULE_PAUSED,
        Kind.SCHEDULE_RESUMED,
    }
)


class GameStatus(StrEnum):
    PENDING = "pending"
    DISPUTED = "disputed"
    CONFIRMED = "confirmed"
    WITHDRAWN = "withdrawn"


@dataclass(frozen=True, slots=True)
class LadderSettings:
    system: str = DEFAULT_SYSTEM
    params: tuple[tuple[str, str], ...] = ()
    #: hours after which an unanswered report counts as confirmed
    auto_confirm_hours: float = 24.0
    #: hours a challenge stays open
    challenge_hours: float = 48.0
    #: days without a game after which a player is retired; None: never
    inactivity_days: float | None = None
    #: leaderboards leave provisional players out instead of marking them
    hide_provisional: bool = False
    #: the platform's id of a role whose holders moderate the club (Discord); read from the
    #: main ladder, like the club's other club-wide choices
    moderator_role: str | None = None
    #: results on the ladder are announced (new personal bests, upsets)
    announce: bool = False
    #: the IANA time zone of the ladder's posting schedule when the schedule names none
    timezone: str | None = None


@dataclass(slots=True)
class Member:
    id: int
    user: str
    name: str
    birth_date: date | None
    registered_at: datetime
    #: the platform's handle (a Telegram @username) when it differs from the display name
    handle: str | None = None


@dataclass(slots=True)
class GameRecord:
    id: int
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

    @property
    def counts(self) -> bool:
        return self.status is GameStatus.CONFIRMED and not self.voided and self.seq is not None


@dataclass(slots=True)
class Challenge:
    id: int
    ladder: str
    challenger: int
    opponent: int
    at: datetime
    expires_at: datetime
    status: str = "open"


@dataclass(slots=True)
class Tournament:
    name: str
    opened: int
    closed: int | None = None


@dataclass(frozen=True, slots=True)
class Membership:
    seq: int
    kind: Kind
    member: int
    #: when it counts for the ratings: the row's date for an imported history, else the event's
    at: datetime
    #: the event whose rating period it belongs to (imported histories), if any
    event: str | None = None


@dataclass(slots=True)
class Ladder:
    name: str
    settings: LadderSettings
    games: dict[int, GameRecord] = field(default_factory=dict)
    membership: list[Membership] = field(default_factory=list)
    tournaments: dict[str, Tournament] = field(default_factory=dict)
    #: what the ratings are built from, in rating order: ("game", id), ("member", index into
    #: membership) and ("close", tournament key); appended only, so it is always sorted
    inputs: list[tuple[str, int | str]] = field(default_factory=list)
    #: bumped whenever the rating inputs change in a way other than appending
    generation: int = 0
    created_at: datetime | None = None


#: a ladder's posting schedule unless its moderators set one: Mondays 09:00 (issue 6)
DEFAULT_CRON = "0 9 * * MON"
DEFAULT_TIMEZONE = "UTC"
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


def _text(data: dict[str, JsonValue], key: str) -> str:
    value = data[key]
    assert isinstance(value, str), key
    return value


def _int(data: dict[str, JsonValue], key: str) -> int:
    value = data[key]
    assert isinstance(value, int), key
    return value


def _float(data: dict[str, JsonValue], key: str) -> float:
    value = data[key]
    assert isinstance(value, int | float), key
    return float(value)


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
        #: every game by id, and the reports still pending or disputed (what confirm and the
        #: sweep look through)
        self.games: dict[int, GameRecord] = {}
        self.open_reports: dict[int, GameRecord] = {}
        #: moderator actions still in force, oldest first (what /undo takes back)
        self.undoable: list[StoredEvent] = []
        self.log: list[StoredEvent] = []

    @classmethod
    def build(cls, events: Iterable[StoredEvent]) -> ClubState:
        events = list(events)
        undone = {
            _int(e.data, "target") for e in events if e.kind == Kind.ACTION_UNDONE
        }
        state = cls()
        for event in events:
            state.log.append(event)
            state.last_id = event.id
            if event.id not in undone and event.kind != Kind.ACTION_UNDONE:
                state.apply(event)
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
        """The member shown as ``name``, or else the one whose platform handle it is."""
        wanted = name.casefold()
        current = [m for m in self.members.values() if m.id not in self.merged_into]
        for member in current:
            if member.name.casefold() == wanted:
                return member
        for member in current:
            if member.handle is not None and member.handle.casefold() == wanted:
                return member
        return None

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
            if member.id in self.merged_into:
                continue
            for shown in (member.name, member.handle):
                if shown is not None:
                    for shape in skeletons(shown):
                        index.setdefault(shape, member)
        return index

    def ladder(self, name: str) -> Ladder | None:
        return self.ladders.get(name.casefold())

    def schedule(self, ladder: Ladder) -> Schedule:
        """The ladder's posting schedule: the one set for it, else the default since the
        ladder exists."""
        return self.schedules.get(ladder.name) or Schedule(since=ladder.created_at)

    # -- the fold -----------------------------------------------------------------------------

    def _ref(self, data: dict[str, JsonValue], key: str) -> int:
        """A member named in an event by their user key (ids are not known before a write)."""
        return self.by_user[_text(data, key)]

    def append(self, event: StoredEvent) -> None:
        """Fold one new event (an undo needs :meth:`build` instead)."""
        self.log.append(event)
        self.last_id = event.id
        self.apply(event)

    def apply(self, event: StoredEvent) -> None:
        kind = Kind(event.kind)
        data = event.data
        if kind in UNDOABLE or (kind is Kind.GAME_REPORTED and data.get("direct")):
            self.undoable.append(event)
        handler = getattr(self, f"_on_{kind.value}")
        handler(event, data)

    def _on_ladder_created(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        name = _text(data, "ladder")
        params = data.get("params") or {}
        assert isinstance(params, dict)
        settings = LadderSettings(
            system=_text(data, "system"),
            params=tuple(sorted((str(k), str(v)) for k, v in params.items())),
        )
        self.ladders[name] = Ladder(name, settings, created_at=event.at)

    def _on_settings_changed(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        ladder = self.ladders[_text(data, "ladder")]
        changes = data["settings"]
        assert isinstance(changes, dict)
        settings = ladder.settings
        for key, value in changes.items():
            if key == "params":
                assert isinstance(value, dict)
                settings = _replace(settings, key, tuple(sorted(
                    (str(k), str(v)) for k, v in value.items())))
            else:
                settings = _replace(settings, key, value)
        if (settings.system, settings.params) != (ladder.settings.system, ladder.settings.params):
            ladder.generation += 1
        ladder.settings = settings

    def _on_member_registered(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        birth = data.get("birth_date")
        member = Member(
            id=event.id,
            user=_text(data, "user"),
            name=_text(data, "name"),
            birth_date=date.fromisoformat(birth) if isinstance(birth, str) else None,
            registered_at=event.at,
            handle=handle if isinstance(handle := data.get("handle"), str) else None,
        )
        self.members[member.id] = member
        self.by_user[member.user] = member.id
        if isinstance(data.get("ladder"), str):  # registering joins the club's main ladder
            self._membership(event, {"ladder": data["ladder"], "member": member.user},
                             Kind.PLAYER_JOINED)

    def _membership(self, event: StoredEvent, data: dict[str, JsonValue], kind: Kind) -> None:
        ladder = self.ladders[_text(data, "ladder")]
        ladder.inputs.append(("member", len(ladder.membership)))
        member = self._ref(data, "member")
        tournament = data.get("event")
        # An imported history keeps its own dates; a change made in the chat happens now.
        played_at = data.get("played_at")
        ladder.membership.append(Membership(
            event.id, kind, member,
            datetime.fromisoformat(played_at) if isinstance(played_at, str) else event.at,
            tournament.casefold() if isinstance(tournament, str) else None,
        ))

    def _on_player_joined(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        self._membership(event, data, Kind.PLAYER_JOINED)

    def _on_player_retired(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        self._membership(event, data, Kind.PLAYER_RETIRED)

    def _on_player_returned(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        self._membership(event, data, Kind.PLAYER_RETURNED)

    def _on_players_merged(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        self.merged_into[self._ref(data, "from")] = self._ref(data, "into")
        for ladder in self.ladders.values():
            ladder.generation += 1

    def _on_moderator_named(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        self.moderators.add(self._ref(data, "member"))

    def _on_moderator_removed(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        self.moderators.discard(self._ref(data, "member"))

    def _on_challenge_issued(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        self.challenges[event.id] = Challenge(
            id=event.id,
            ladder=_text(data, "ladder"),
            challenger=self._ref(data, "challenger"),
            opponent=self._ref(data, "opponent"),
            at=event.at,
            expires_at=datetime.fromisoformat(_text(data, "expires_at")),
        )

    def _on_challenge_accepted(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        self.challenges[_int(data, "challenge")].status = "accepted"

    def _on_challenge_declined(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        self.challenges[_int(data, "challenge")].status = "declined"

    def _on_game_reported(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        ladder = self.ladders[_text(data, "ladder")]
        direct = bool(data.get("direct"))
        reporter = data.get("reported_by")
        reporter_id = self.by_user.get(reporter) if isinstance(reporter, str) else None
        colour = data.get("colour")
        tournament = data.get("event")
        record = ladder.games[event.id] = GameRecord(
            id=event.id,
            ladder=ladder.name,
            player_a=self._ref(data, "player_a"),
            player_b=self._ref(data, "player_b"),
            score_a=_float(data, "score_a"),
            handicap=_float(data, "handicap"),
            colour=colour if isinstance(colour, str) else None,
            event=tournament if isinstance(tournament, str) else None,
            played_at=datetime.fromisoformat(_text(data, "played_at")),
            reported_at=event.at,
            reported_by=reporter_id,
            status=GameStatus.CONFIRMED if direct else GameStatus.PENDING,
            seq=event.id if direct else None,
        )
        self.games[event.id] = record
        if direct:
            ladder.inputs.append(("game", event.id))
        else:
            self.open_reports[event.id] = record

    def game(self, game_id: int) -> GameRecord | None:
        return self.games.get(game_id)

    def _game(self, data: dict[str, JsonValue]) -> GameRecord | None:
        # An event about a game whose report was undone has nothing left to change.
        return self.game(_int(data, "game"))

    def _on_game_confirmed(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        game = self._game(data)
        if game is not None and game.status is not GameStatus.CONFIRMED:
            game.status = GameStatus.CONFIRMED
            game.seq = event.id
            self.open_reports.pop(game.id, None)
            self.ladders[game.ladder].inputs.append(("game", game.id))

    _on_game_auto_confirmed = _on_game_confirmed

    def _on_game_disputed(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        game = self._game(data)
        if game is not None:
            game.status = GameStatus.DISPUTED

    def _on_game_withdrawn(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        game = self._game(data)
        if game is not None:
            game.status = GameStatus.WITHDRAWN
            self.open_reports.pop(game.id, None)

    def _on_game_corrected(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        game = self._game(data)
        if game is None:
            return
        changes = data["changes"]
        assert isinstance(changes, dict)
        if "player_a" in changes:
            game.player_a = self._ref(changes, "player_a")
        if "player_b" in changes:
            game.player_b = self._ref(changes, "player_b")
        if "score_a" in changes:
            game.score_a = _float(changes, "score_a")
        if "handicap" in changes:
            game.handicap = _float(changes, "handicap")
        game.version += 1
        if game.status is not GameStatus.CONFIRMED:
            # A moderator's correction settles a pending or disputed report.
            game.status = GameStatus.CONFIRMED
            game.seq = event.id
            self.open_reports.pop(game.id, None)
            self.ladders[game.ladder].inputs.append(("game", game.id))
        self.ladders[game.ladder].generation += 1

    def _on_game_voided(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        game = self._game(data)
        if game is not None:
            game.voided = True
            self.ladders[game.ladder].generation += 1

    def _on_game_restored(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        game = self._game(data)
        if game is not None:
            game.voided = False
            self.ladders[game.ladder].generation += 1

    def _on_event_opened(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        ladder = self.ladders[_text(data, "ladder")]
        name = _text(data, "name")
        ladder.tournaments[name.casefold()] = Tournament(name, event.id)

    def _on_event_closed(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        ladder = self.ladders[_text(data, "ladder")]
        key = _text(data, "name").casefold()
        ladder.tournaments[key].closed = event.id
        ladder.inputs.append(("close", key))

    def _schedule_of(self, data: dict[str, JsonValue]) -> tuple[str, Schedule]:
        ladder = self.ladders[_text(data, "ladder")]
        return ladder.name, self.schedule(ladder)

    def _on_schedule_set(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        name, current = self._schedule_of(data)
        timezone, channel = data.get("timezone"), data.get("channel")
        self.schedules[name] = dataclasses.replace(
            current, cron=_text(data, "cron"),
            timezone=timezone if isinstance(timezone, str) else None,
            channel=channel if isinstance(channel, str) else None,
            size=_int(data, "size"), since=event.at,
        )

    def _on_schedule_paused(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        name, current = self._schedule_of(data)
        self.schedules[name] = dataclasses.replace(current, paused=True)

    def _on_schedule_resumed(self, event: StoredEvent, data: dict[str, JsonValue]) -> None:
        # Posts missed while paused are not made up for: due again only from now on.
        name, current = self._schedule_of(data)
        self.schedules[name] = dataclasses.replace(current, paused=False, since=event.at)


def _replace(settings: LadderSettings, key: str, value: object) -> LadderSettings:
    change: dict[str, Any] = {key: value}  # the service checked key and value before writing
    return dataclasses.replace(settings, **change)


def expired(challenge: Challenge, now: datetime) -> bool:
    return challenge.status == "open" and now >= challenge.expires_at
