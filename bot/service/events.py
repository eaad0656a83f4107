"""The typed payloads of a club's events: one frozen dataclass per kind, and their JSON.

The log stores an event as its kind and a JSON object (``StoredEvent.data``). This module is the
one place that knows those objects: :func:`decode` reads a stored one, :func:`encode` writes one
with exactly the keys, key order and values the writers have always produced (a new event's
stored text is what an earlier build wrote for it), and :func:`new_event` makes the storage's
:class:`NewEvent` from a payload::

    new_event(GameConfirmed(game=7), caller.user, now)

A field is named as its JSON key, and lists in the key order the writers use, except where a key
is no Python identifier (``players_merged``'s ``"from"``): the field's metadata names its key.
Values stay as stored: members by their platform user id, times and dates as ISO text. Fields
that some writers leave out (the import, or an earlier build) have defaults, and their keys are
written only when the field they go with is set (:func:`_with`), so each writer's shape comes
back as it was written.
"""

from __future__ import annotations

import dataclasses
import operator
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, ClassVar

from bot.storage.repository import JsonValue, NewEvent


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
    CHALLENGE_WITHDRAWN = "challenge_withdrawn"
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
    HISTORY_IMPORTED = "history_imported"
    CLAIM_REQUESTED = "claim_requested"
    CLAIM_APPROVED = "claim_approved"
    CLAIM_DECLINED = "claim_declined"
    HANDLE_CHANGED = "handle_changed"
    LANGUAGE_CHOSEN = "language_chosen"
    PROBLEM_ADDED = "problem_added"
    ATTEMPT_STARTED = "attempt_started"
    PUZZLE_POSTED = "puzzle_posted"
    LINK_CODE_ISSUED = "link_code_issued"
    CHAT_LINKED = "chat_linked"
    CHAT_MOVED = "chat_moved"
    MEMBER_LINKED = "member_linked"
    HISTORY_MERGED = "history_merged"
    CHAT_UNLINKED = "chat_unlinked"
    CHAT_RETURNED = "chat_returned"
    CHAT_SETTING_SET = "chat_setting_set"
    NIGHT_OPENED = "night_opened"
    NIGHT_ENTERED = "night_entered"
    ROUND_PAIRED = "round_paired"
    PAIR_FORBIDDEN = "pair_forbidden"
    ROUND_PUBLISHED = "round_published"
    BOARD_FORFEITED = "board_forfeited"
    NIGHT_CLOSED = "night_closed"
    BAND_ADDED = "band_added"
    BAND_REMOVED = "band_removed"
    BAND_ROLES_PAUSED = "band_roles_paused"
    BAND_ROLES_RESUMED = "band_roles_resumed"
    LIVE_BOARD_STARTED = "live_board_started"
    LIVE_BOARD_MOVED = "live_board_moved"
    LIVE_BOARD_STOPPED = "live_board_stopped"
    SEASON_CLOSED = "season_closed"


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
        Kind.CLAIM_APPROVED,
        Kind.CHAT_SETTING_SET,
        Kind.NIGHT_OPENED,
        Kind.ROUND_PAIRED,
        Kind.PAIR_FORBIDDEN,
        Kind.ROUND_PUBLISHED,
        Kind.BOARD_FORFEITED,
        Kind.NIGHT_CLOSED,
        Kind.BAND_ADDED,
        Kind.BAND_REMOVED,
    }
)

#: field metadata: the JSON key of a field named otherwise
_KEY = "key"
#: field metadata: the field whose value decides whether this field's key is written
_WRITTEN_WITH = "written_with"


def _with(anchor: str) -> dict[str, str]:
    """Metadata of a field whose key is written only while field ``anchor`` (the field itself,
    or another one) is not None: what a writer leaves out is left out again."""
    return {_WRITTEN_WITH: anchor}


# -- ladders and members ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LadderCreated:
    """A ladder rated by ``system`` with ``params`` (name to value, as typed) over the defaults
    of ``edition`` (``ratings_core.systems.EDITION``); a ladder created before editions has
    none and keeps edition 1's."""

    KIND: ClassVar[Kind] = Kind.LADDER_CREATED
    ladder: str
    system: str
    params: dict[str, str] = field(default_factory=dict)
    edition: int | None = field(default=None, metadata=_with("edition"))
    #: a companion ladder's parent: the ladder whose team games it rates (issue 37)
    teams_of: str | None = field(default=None, metadata=_with("teams_of"))


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    """Some of a ladder's settings changed: ``settings`` maps a LadderSettings field to its new
    value (``params`` as a name-to-value object). A change of ``system`` carries the ``edition``
    of the defaults it was made under; one written before editions has none (edition 1)."""

    KIND: ClassVar[Kind] = Kind.SETTINGS_CHANGED
    ladder: str
    settings: dict[str, JsonValue]


@dataclass(frozen=True, slots=True)
class MemberRegistered:
    """A member joined the club. Registering in the chat also joins ``ladder`` (the main one)
    and may name the platform ``handle``; the import registers the names of its file without
    either, and so wrote neither key. ``birth_date`` is ISO text."""

    KIND: ClassVar[Kind] = Kind.MEMBER_REGISTERED
    user: str
    name: str
    ladder: str | None = field(default=None, metadata=_with("ladder"))
    birth_date: str | None = None
    handle: str | None = field(default=None, metadata=_with("ladder"))
    #: the chat (``platform:chat id``) the member registered in, in a club of several chats
    #: (issue 35): where they are asked to confirm a result; written only there
    chat: str | None = field(default=None, metadata=_with("chat"))


@dataclass(frozen=True, slots=True)
class _MembershipChange:
    """A member joined, left or came back to a ladder. A row of an imported history keeps its
    own date (``played_at``, ISO text) and its rating event (``event``, None for none); a
    change made in the chat happens when it is written and has neither key."""

    ladder: str
    member: str
    event: str | None = field(default=None, metadata=_with("played_at"))
    played_at: str | None = field(default=None, metadata=_with("played_at"))


@dataclass(frozen=True, slots=True)
class PlayerJoined(_MembershipChange):
    KIND: ClassVar[Kind] = Kind.PLAYER_JOINED


@dataclass(frozen=True, slots=True)
class PlayerRetired(_MembershipChange):
    KIND: ClassVar[Kind] = Kind.PLAYER_RETIRED


@dataclass(frozen=True, slots=True)
class PlayerReturned(_MembershipChange):
    KIND: ClassVar[Kind] = Kind.PLAYER_RETURNED


@dataclass(frozen=True, slots=True)
class PlayersMerged:
    """The duplicate record ``from_`` (key ``"from"``) folded into the member ``into``."""

    KIND: ClassVar[Kind] = Kind.PLAYERS_MERGED
    from_: str = field(metadata={_KEY: "from"})
    into: str


@dataclass(frozen=True, slots=True)
class ModeratorNamed:
    KIND: ClassVar[Kind] = Kind.MODERATOR_NAMED
    member: str


@dataclass(frozen=True, slots=True)
class ModeratorRemoved:
    KIND: ClassVar[Kind] = Kind.MODERATOR_REMOVED
    member: str


@dataclass(frozen=True, slots=True)
class HandleChanged:
    """The member ``member``'s platform username (handle) is ``handle`` now, as an update of
    theirs said: a typed ``@handle`` names them from now on. Written only when it changed."""

    KIND: ClassVar[Kind] = Kind.HANDLE_CHANGED
    member: str
    handle: str


@dataclass(frozen=True, slots=True)
class LanguageChosen:
    """The member ``member`` reads what only they see in ``language`` (``/set mylanguage``);
    None: in their app's language again."""

    KIND: ClassVar[Kind] = Kind.LANGUAGE_CHOSEN
    member: str
    language: str | None


@dataclass(frozen=True, slots=True)
class ClaimRequested:
    """The member ``claimant`` (a registered member without games) asks to be the imported
    record ``member`` (its user key, ``import:NAME``); a moderator approves or declines."""

    KIND: ClassVar[Kind] = Kind.CLAIM_REQUESTED
    member: str
    claimant: str


@dataclass(frozen=True, slots=True)
class ClaimApproved:
    """The claim with event id ``claim`` is approved: the claimant's platform user is the
    imported record's user from now on, and their own record (no games) is folded into it."""

    KIND: ClassVar[Kind] = Kind.CLAIM_APPROVED
    claim: int


@dataclass(frozen=True, slots=True)
class ClaimDeclined:
    KIND: ClassVar[Kind] = Kind.CLAIM_DECLINED
    claim: int


# -- challenges ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChallengeIssued:
    """``challenger`` challenged ``opponent``; open until ``expires_at`` (ISO text)."""

    KIND: ClassVar[Kind] = Kind.CHALLENGE_ISSUED
    ladder: str
    challenger: str
    opponent: str
    expires_at: str


@dataclass(frozen=True, slots=True)
class ChallengeAccepted:
    KIND: ClassVar[Kind] = Kind.CHALLENGE_ACCEPTED
    challenge: int


@dataclass(frozen=True, slots=True)
class ChallengeDeclined:
    KIND: ClassVar[Kind] = Kind.CHALLENGE_DECLINED
    challenge: int


@dataclass(frozen=True, slots=True)
class ChallengeWithdrawn:
    """The challenger took back their open challenge (``/withdraw``, issue 31)."""

    KIND: ClassVar[Kind] = Kind.CHALLENGE_WITHDRAWN
    challenge: int


# -- games -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameReported:
    """A game: ``score_a`` is the first player's. A member's report (``reported_by``) waits for
    the opponent; a ``direct`` one (a moderator's, an import's) counts at once."""

    KIND: ClassVar[Kind] = Kind.GAME_REPORTED
    ladder: str
    player_a: str
    player_b: str
    score_a: float
    handicap: float
    colour: str | None
    event: str | None
    played_at: str
    reported_by: str | None = None
    direct: bool = False
    #: an attempt at a rated problem (``tactics``): the seconds it took, from the moment the
    #: problem was delivered, and the answer as typed (None: none came in time)
    seconds: float | None = field(default=None, metadata=_with("seconds"))
    answer: str | None = field(default=None, metadata=_with("answer"))
    #: a club night's board (issue 36): the night (its opening's id), round and board
    night: int | None = field(default=None, metadata=_with("night"))
    round: int | None = field(default=None, metadata=_with("round"))
    board: int | None = field(default=None, metadata=_with("board"))
    #: a team game's further members of each side, by user (issue 37): ``player_a`` and its
    #: partners are one side, ``player_b`` and its partners the other; written only when set
    partners_a: list[str] | None = field(default=None, metadata=_with("partners_a"))
    partners_b: list[str] | None = field(default=None, metadata=_with("partners_b"))


@dataclass(frozen=True, slots=True)
class GameConfirmed:
    KIND: ClassVar[Kind] = Kind.GAME_CONFIRMED
    game: int


@dataclass(frozen=True, slots=True)
class GameAutoConfirmed:
    """A report nobody answered in time counts, as if confirmed."""

    KIND: ClassVar[Kind] = Kind.GAME_AUTO_CONFIRMED
    game: int


@dataclass(frozen=True, slots=True)
class GameDisputed:
    KIND: ClassVar[Kind] = Kind.GAME_DISPUTED
    game: int


@dataclass(frozen=True, slots=True)
class GameWithdrawn:
    KIND: ClassVar[Kind] = Kind.GAME_WITHDRAWN
    game: int


@dataclass(frozen=True, slots=True)
class GameChanges:
    """What a correction changes in a game: only the fields set are written."""

    score_a: float | None = field(default=None, metadata=_with("score_a"))
    handicap: float | None = field(default=None, metadata=_with("handicap"))
    player_a: str | None = field(default=None, metadata=_with("player_a"))
    player_b: str | None = field(default=None, metadata=_with("player_b"))
    #: new sides (issue 37): each side's further members ([]: the side is one member alone)
    partners_a: list[str] | None = field(default=None, metadata=_with("partners_a"))
    partners_b: list[str] | None = field(default=None, metadata=_with("partners_b"))


@dataclass(frozen=True, slots=True)
class GameCorrected:
    KIND: ClassVar[Kind] = Kind.GAME_CORRECTED
    game: int
    changes: GameChanges


@dataclass(frozen=True, slots=True)
class GameVoided:
    KIND: ClassVar[Kind] = Kind.GAME_VOIDED
    game: int


@dataclass(frozen=True, slots=True)
class GameRestored:
    """A voided game put back. ``pending``: a report voided before it counted, waiting for its
    opponent again with a fresh confirmation period (issue 31); written only then, so a restore
    stored before (always of a confirmed game, or folded as it was) reads as it did."""

    KIND: ClassVar[Kind] = Kind.GAME_RESTORED
    game: int
    pending: bool | None = field(default=None, metadata=_with("pending"))


# -- rating events (tournaments), undo, schedules --------------------------------------------


@dataclass(frozen=True, slots=True)
class EventOpened:
    """A rating event: its games are rated together when it closes."""

    KIND: ClassVar[Kind] = Kind.EVENT_OPENED
    ladder: str
    name: str


@dataclass(frozen=True, slots=True)
class EventClosed:
    KIND: ClassVar[Kind] = Kind.EVENT_CLOSED
    ladder: str
    name: str


@dataclass(frozen=True, slots=True)
class ActionUndone:
    """The moderator action with event id ``target`` is taken back."""

    KIND: ClassVar[Kind] = Kind.ACTION_UNDONE
    target: int


@dataclass(frozen=True, slots=True)
class ScheduleSet:
    """A ladder's posting schedule; ``timezone`` and ``channel`` None: the defaults."""

    KIND: ClassVar[Kind] = Kind.SCHEDULE_SET
    ladder: str
    cron: str
    timezone: str | None
    channel: str | None
    size: int


@dataclass(frozen=True, slots=True)
class SchedulePaused:
    KIND: ClassVar[Kind] = Kind.SCHEDULE_PAUSED
    ladder: str


@dataclass(frozen=True, slots=True)
class ScheduleResumed:
    KIND: ClassVar[Kind] = Kind.SCHEDULE_RESUMED
    ladder: str


@dataclass(frozen=True, slots=True)
class HistoryImported:
    """``clubrating import`` appended the history of ``file`` (its name) to ``ladder``, the
    events before this one; ``fingerprint`` is what its rows say
    (:meth:`bot.history.rows.History.fingerprint`), so that the same history is not
    imported twice by mistake."""

    KIND: ClassVar[Kind] = Kind.HISTORY_IMPORTED
    ladder: str
    fingerprint: str
    file: str


# -- rated problems (seed 004) ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProblemAdded:
    """A moderator added the problem ``problem`` (its id in the ladder) to the ``tactics``
    ladder ``ladder``: its ``prompt``, the ``answers`` accepted, a picture (the name of a file
    in the club's picture store, None for none) and the ``rating`` it starts from (None: the
    system's starting rating). The problem is rated like a member, under user key
    :func:`problem_user`."""

    KIND: ClassVar[Kind] = Kind.PROBLEM_ADDED
    ladder: str
    problem: str
    prompt: str
    answers: list[str]
    image: str | None = None
    rating: float | None = None


@dataclass(frozen=True, slots=True)
class AttemptStarted:
    """The problem ``problem`` of ``ladder`` was delivered to ``member``, privately: their
    clock runs from this event's time. The attempt ends with a :class:`GameReported` that
    carries its ``seconds``."""

    KIND: ClassVar[Kind] = Kind.ATTEMPT_STARTED
    ladder: str
    problem: str
    member: str


@dataclass(frozen=True, slots=True)
class PuzzlePosted:
    """The ladder's scheduled post showed ``problem`` to the group (None: none was left), and
    the solution of ``revealed``, the problem of the post before (None: none), which takes no
    attempts from then on."""

    KIND: ClassVar[Kind] = Kind.PUZZLE_POSTED
    ladder: str
    problem: str | None
    revealed: str | None


# -- one club on several chats (issue 35) -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LinkCodeIssued:
    """A one-time code to link another chat to the club (``kind`` "chat", a moderator's
    ``/link``) or another identity to ``member`` (``kind`` "member", ``/link me``; the
    identity's platform user key): only the code's SHA-256 (``code``) is kept, and it is good
    until ``expires_at`` (ISO), once."""

    KIND: ClassVar[Kind] = Kind.LINK_CODE_ISSUED
    kind: str
    code: str
    member: str | None
    expires_at: str
    #: the chat (``platform:chat id``) it was asked in
    chat: str | None = field(default=None, metadata=_with("chat"))


@dataclass(frozen=True, slots=True)
class ChatLinked:
    """The chat ``chat_id`` of ``platform`` joined the club with the code ``code`` (its hash):
    its commands act on this club from now on. ``merge``: the chat brings its games, written
    after this event and closed by :class:`HistoryMerged` (written only then)."""

    KIND: ClassVar[Kind] = Kind.CHAT_LINKED
    platform: str
    chat_id: str
    code: str
    merge: bool | None = field(default=None, metadata=_with("merge"))


@dataclass(frozen=True, slots=True)
class HistoryMerged:
    """The history of the chat that joined with ``merge`` (the events since its
    :class:`ChatLinked`) is complete: each ladder's rating inputs it brought are merged by time
    with the club's own (``games``: how many games it brought)."""

    KIND: ClassVar[Kind] = Kind.HISTORY_MERGED
    platform: str
    chat_id: str
    games: int


@dataclass(frozen=True, slots=True)
class ChatUnlinked:
    """The chat ``chat_id`` of ``platform`` left the club (``/unlink``): its history stays
    with the club, and the chat's commands act on a club of its own again."""

    KIND: ClassVar[Kind] = Kind.CHAT_UNLINKED
    platform: str
    chat_id: str


@dataclass(frozen=True, slots=True)
class ChatReturned:
    """Written into a chat's own log when it left the club ``club`` (its id): the chat's club
    is this one again, and starts empty (what came before this event is the past of a chat
    that joined another club)."""

    KIND: ClassVar[Kind] = Kind.CHAT_RETURNED
    club: int


@dataclass(frozen=True, slots=True)
class ChatMoved:
    """Written into a chat's own log when it joined the club ``club`` (its id): a process that
    still reads this log for the chat learns where the chat's club is now."""

    KIND: ClassVar[Kind] = Kind.CHAT_MOVED
    club: int


@dataclass(frozen=True, slots=True)
class MemberLinked:
    """The platform identity ``identity`` (a user key) is the member ``member`` (theirs) from
    now on, by the code ``code``; a record the identity had (without games) is folded in."""

    KIND: ClassVar[Kind] = Kind.MEMBER_LINKED
    member: str
    identity: str
    code: str
    #: the chat (``platform:chat id``) the identity was linked from
    chat: str | None = field(default=None, metadata=_with("chat"))


@dataclass(frozen=True, slots=True)
class ChatSettingSet:
    """A chat that joined the club (``chat``: ``platform:chat id``) has its own ``setting``,
    ``timezone`` or ``language`` (``bot.service.ladder_settings.CHAT_SETTINGS``), for its own
    posts and what is said there: ``value``, or None to follow the club's (its ladders') again.
    Not a ladder's: the chat's, for every ladder."""

    KIND: ClassVar[Kind] = Kind.CHAT_SETTING_SET
    chat: str
    setting: str
    value: str | None


# -- club nights (issue 36) -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NightOpened:
    """A club night on ``ladder``: paired by ``mode`` (``bot.pairing.model.Mode``) over
    ``rounds`` rounds (None: a round robin's, everyone once). The night is named by this
    event's id."""

    KIND: ClassVar[Kind] = Kind.NIGHT_OPENED
    ladder: str
    mode: str
    rounds: int | None


@dataclass(frozen=True, slots=True)
class NightEntered:
    """``member`` (a user key) checks in to the ladder's open night (``status`` "in"), leaves
    it ("out": never paired again, kept in the standings) or sits the next round out
    ("paused")."""

    KIND: ClassVar[Kind] = Kind.NIGHT_ENTERED
    ladder: str
    member: str
    status: str


@dataclass(frozen=True, slots=True)
class RoundPaired:
    """The next round of the ladder's open night as it will be published: its boards (each
    ``[first, second, handicap]``, user keys, board 1 first), the player with the pairing bye,
    each board's reason where it is not obvious (by board number, as text), the pairing
    numbers given with it (user keys in order: the first round's, then late joiners'), and
    the pairing rules' version where the engine has one. A round paired again (after
    ``/swap``, ``/forbid`` or ``/bye``) replaces the one before it until it is published."""

    KIND: ClassVar[Kind] = Kind.ROUND_PAIRED
    ladder: str
    round: int
    boards: list[list[JsonValue]]
    bye: str | None
    reasons: dict[str, str]
    numbers: list[str]
    rules: str | None = None


@dataclass(frozen=True, slots=True)
class PairForbidden:
    """Two members (user keys) are never paired on the ladder's night (``/forbid``)."""

    KIND: ClassVar[Kind] = Kind.PAIR_FORBIDDEN
    ladder: str
    first: str
    second: str


@dataclass(frozen=True, slots=True)
class RoundPublished:
    """The ladder's paired round is published: its boards are played from now on."""

    KIND: ClassVar[Kind] = Kind.ROUND_PUBLISHED
    ladder: str
    round: int


@dataclass(frozen=True, slots=True)
class BoardForfeited:
    """Board ``board`` of round ``round`` was not played: ``result`` "+-" (the first player
    wins by forfeit) or "-+". Never rated."""

    KIND: ClassVar[Kind] = Kind.BOARD_FORFEITED
    ladder: str
    round: int
    board: int
    result: str


@dataclass(frozen=True, slots=True)
class NightClosed:
    KIND: ClassVar[Kind] = Kind.NIGHT_CLOSED
    ladder: str


# -- rating bands (issue 38) ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BandAdded:
    """A rating band of ``ladder``: ``name``, held from a shown rating of ``minimum`` on
    (:mod:`bot.service.bands`), with the Discord role ``role`` (its id; None: none) that its
    holders get."""

    KIND: ClassVar[Kind] = Kind.BAND_ADDED
    ladder: str
    name: str
    minimum: int
    role: str | None = None


@dataclass(frozen=True, slots=True)
class BandRemoved:
    KIND: ClassVar[Kind] = Kind.BAND_REMOVED
    ladder: str
    name: str


@dataclass(frozen=True, slots=True)
class BandRolesPaused:
    """Discord refused to change a member's roles for ``ladder``'s bands (``role``: the role
    it was given, its id): the bot changes no roles for the ladder until ``/band sync``
    (:class:`BandRolesResumed`)."""

    KIND: ClassVar[Kind] = Kind.BAND_ROLES_PAUSED
    ladder: str
    role: str


@dataclass(frozen=True, slots=True)
class BandRolesResumed:
    KIND: ClassVar[Kind] = Kind.BAND_ROLES_RESUMED
    ladder: str
# -- the live leaderboard (issue 38) ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LiveBoardStarted:
    """The ladder's table is kept up to date in one message of chat ``chat`` of ``platform``
    (``/board here``; on Discord in the server's text channel ``channel``); the message is
    posted by that platform's front-end, which then says its
    id (:class:`LiveBoardMoved`). It replaces any live board the ladder had before. The board
    is named by this event's id."""

    KIND: ClassVar[Kind] = Kind.LIVE_BOARD_STARTED
    ladder: str
    platform: str
    chat: str
    #: the channel of the chat where the message goes, where the club's chat has several (a
    #: Discord server's text channel); None: the chat itself (a Telegram group)
    channel: str | None = field(default=None, metadata=_with("channel"))


@dataclass(frozen=True, slots=True)
class LiveBoardMoved:
    """The ladder's live board (started by event ``board``) is now the message ``message``
    (the platform's message id): posted first, or again after the one before was deleted."""

    KIND: ClassVar[Kind] = Kind.LIVE_BOARD_MOVED
    ladder: str
    board: int
    message: str


@dataclass(frozen=True, slots=True)
class LiveBoardStopped:
    """The ladder's live board is no longer kept: ``reason`` "off" (``/board off``) or
    "failed" (its message could not be posted or edited three times in a row)."""

    KIND: ClassVar[Kind] = Kind.LIVE_BOARD_STOPPED
    ladder: str
    reason: str
# -- seasons (issue 38) ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeasonClosed:
    """The ladder's current season closed, named ``name``: the boundary between it and the
    next. ``reset`` (none, soft or hard) and ``factor`` are the ladder's ``season_reset`` and
    ``season_soft_factor`` as they were at the close, so that a later change of the settings
    never re-rates an old boundary. ``automatic``: closed by ``season_schedule``, at the
    boundary ``boundary`` (ISO, naive UTC: 00:00 club time on the first day), which is then
    the season's end rather than the moment the scheduler wrote the event."""

    KIND: ClassVar[Kind] = Kind.SEASON_CLOSED
    ladder: str
    name: str
    reset: str
    factor: float
    automatic: bool = False
    boundary: str | None = field(default=None, metadata=_with("boundary"))


def problem_user(ladder: str, problem: str) -> str:
    """The user key a problem is rated under: no platform's user id, nor an imported name's
    (``import:NAME``), has this form."""
    return f"problem:{ladder}:{problem.casefold()}"


Event = (
    LadderCreated | SettingsChanged | MemberRegistered | PlayerJoined | PlayerRetired
    | PlayerReturned | PlayersMerged | ModeratorNamed | ModeratorRemoved | ChallengeIssued
    | ChallengeAccepted | ChallengeDeclined | ChallengeWithdrawn | GameReported | GameConfirmed
    | GameAutoConfirmed | GameDisputed | GameWithdrawn | GameCorrected | GameVoided
    | GameRestored | EventOpened | EventClosed | ActionUndone | ScheduleSet | SchedulePaused
    | ScheduleResumed | HistoryImported | ClaimRequested | ClaimApproved | ClaimDeclined
    | HandleChanged | LanguageChosen | ProblemAdded | AttemptStarted | PuzzlePosted
    | LinkCodeIssued | ChatLinked | ChatMoved | MemberLinked | HistoryMerged | ChatUnlinked
    | ChatReturned | ChatSettingSet | NightOpened | NightEntered | RoundPaired | RoundPublished
    | BoardForfeited | NightClosed | PairForbidden | BandAdded | BandRemoved | BandRolesPaused
    | BandRolesResumed
    | BoardForfeited | NightClosed | PairForbidden
    | LiveBoardStarted | LiveBoardMoved | LiveBoardStopped
    | BoardForfeited | NightClosed | PairForbidden | SeasonClosed
)

#: the payload class of each kind (every member of :data:`Event`)
CLASSES: dict[str, type[Event]] = {cls.KIND: cls for cls in typing.get_args(Event)}


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    key: str
    #: the field whose None leaves this one's key out, if any
    written_with: str | None


def _fields(cls: type) -> tuple[_Field, ...]:
    return tuple(
        _Field(f.name, f.metadata.get(_KEY, f.name), f.metadata.get(_WRITTEN_WITH))
        for f in dataclasses.fields(cls)
    )


#: each payload class's fields in key order (GameChanges is written inside GameCorrected)
_FIELDS: dict[type, tuple[_Field, ...]] = {
    cls: _fields(cls) for cls in (*CLASSES.values(), GameChanges)
}
#: field names by JSON key, for the classes whose keys are not all their fields' names (a
#: field's name is no key of theirs)
_RENAMED: dict[type, dict[str, str]] = {
    cls: {f.key: f.name for f in fields}
    for cls, fields in _FIELDS.items()
    if any(f.key != f.name for f in fields)
}


def decode(kind: str, data: dict[str, JsonValue]) -> Event:
    """The typed payload of a stored event. Values are taken as stored, unchecked (the log holds
    only what the service wrote, and the fold reads every event of a club at start); a kind or
    a key this build does not know, or a missing key without a default, raises ValueError."""
    cls = CLASSES.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    values: dict[str, Any] = data
    try:
        if cls is GameCorrected:  # the one payload with an object inside
            return GameCorrected(values["game"], GameChanges(**values["changes"]))
        renamed = _RENAMED.get(cls)
        if renamed is not None:
            values = {renamed[key]: value for key, value in values.items()}
        return cls(**values)
    except (KeyError, TypeError) as error:
        raise ValueError(f"{kind} event with data {data!r}: {error}") from None


def _plain(cls: type) -> Callable[[object], dict[str, JsonValue]] | None:
    """How a payload of ``cls`` whose values are written as they are becomes its JSON object
    (:func:`_json`'s result, in one call: an import writes 100,000 of them): every key, and
    after them the keys of trailing fields written only when set (a game's ``seconds``); None
    for the other classes."""
    fields = _FIELDS[cls]
    always = [f for f in fields if f.written_with is None]
    optional = fields[len(always):]
    if (cls is GameCorrected or len(always) < 2 or fields[:len(always)] != tuple(always)
            or any(f.written_with != f.name for f in optional)):
        return None
    keys = tuple(f.key for f in always)
    values = operator.attrgetter(*(f.name for f in always))
    if not optional:
        return lambda payload: dict(zip(keys, values(payload), strict=True))

    def plain(payload: object) -> dict[str, JsonValue]:
        data = dict(zip(keys, values(payload), strict=True))
        for f in optional:
            value = getattr(payload, f.name)
            if value is not None:
                data[f.key] = value
        return data

    return plain


#: the payload classes :func:`_plain` writes
_PLAIN: dict[type, Callable[[object], dict[str, JsonValue]]] = {
    cls: plain for cls in CLASSES.values() if (plain := _plain(cls)) is not None
}


def _json(payload: object) -> dict[str, JsonValue]:
    plain = _PLAIN.get(type(payload))
    if plain is not None:
        return plain(payload)
    data: dict[str, JsonValue] = {}
    for f in _FIELDS[type(payload)]:
        value = getattr(payload, f.name)
        if f.written_with is not None and getattr(payload, f.written_with) is None:
            if value is not None:  # would be lost: the key is not written without its anchor
                raise ValueError(f"{type(payload).__name__}.{f.name} needs {f.written_with}")
            continue
        data[f.key] = _json(value) if isinstance(value, GameChanges) else value
    return data


def encode(event: Event) -> tuple[Kind, dict[str, JsonValue]]:
    """The kind and the JSON object stored for ``event``: the keys in field order, values as
    they are (the storage writes them with ``json.dumps``)."""
    return event.KIND, _json(event)


def new_event(event: Event, actor: str, at: datetime, reason: str = "") -> NewEvent:
    """The event to append to a club's log: ``event`` by ``actor`` at ``at``, with ``reason``
    (a moderator's why, or what the bot did by itself)."""
    kind, data = encode(event)
    return NewEvent(kind, actor, at, data, reason)


def plain_keys(cls: type[Event]) -> tuple[str, ...]:
    """The JSON keys of ``cls``'s fields that are always written, in order, for a class whose
    values are stored as they are (most: not ``GameCorrected``, nor one with a key written only
    with another field): ``dict(zip(plain_keys(cls), values))`` is the data of
    ``new_event(cls(*values), ...)`` with its optional trailing fields unset, made without the
    payload (an import makes 100,000)."""
    if cls not in _PLAIN:
        raise ValueError(f"{cls.__name__} is written field by field: use new_event")
    return tuple(f.key for f in _FIELDS[cls] if f.written_with is None)
