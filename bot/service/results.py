"""What use cases answer: plain values that every front-end renders its own way.

Answers are stored (as JSON) for idempotency, so they hold only text, numbers, lists and other
answers; ``encode`` and ``decode`` turn them into JSON and back.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from dataclasses import dataclass, field
from typing import TypeAlias

from .errors import Refusal

#: a notice's parameter: a value, or a part of the sentence that is a notice of its own (a
#: tuple of them is their sentence parts one after the other), so that every word of it is the
#: catalogue's, in the reader's language
Param: TypeAlias = "str | int | float | None | Notice | tuple[Notice, ...]"


@dataclass(frozen=True, slots=True)
class Notice:
    """A short outcome: a message key of the catalogue and its parameters."""

    key: str
    params: dict[str, Param] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RatingChange:
    name: str
    before: float | None
    after: float | None
    provisional: bool = False
    #: whether ``before`` was provisional, where a change of system may take the mark away
    #: while the rating stays (a /system switch's preview; elsewhere not shown)
    was_provisional: bool = False


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game as people see it. ``played_at``: the instant (ISO, naive UTC; a bare date in
    answers stored before times were shown in the ladder's zone), shown as the date in ``zone``
    (the ladder's time zone); ``colour``: player_a's, None when not given."""

    id: int
    ladder: str
    played_at: str
    player_a: str
    player_b: str
    score_a: float
    status: str
    handicap: float = 0.0
    event: str | None = None
    voided: bool = False
    zone: str = "UTC"
    colour: str | None = None
    #: an attempt at a problem (player_b): the seconds it took
    seconds: float | None = None
    #: a team game's further members of each side, by name (issue 37)
    partners_a: tuple[str, ...] = ()
    partners_b: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameResult:
    """A report, confirmation or correction of one game, with the ratings it moved."""

    key: str
    game: GameLine
    changes: list[RatingChange] = field(default_factory=list)
    #: what the ladder announces about it (new personal bests, upsets), when it announces
    announcements: list[Notice] = field(default_factory=list)
    #: a dispute's answer: the club's named moderators, who settle it (by name, no mention)
    moderators: list[str] = field(default_factory=list)
    #: the open event the game waits for: rated with its other games when it closes
    held: str | None = None
    #: retired players who played it, and are back on the ladder
    back: list[str] = field(default_factory=list)
    #: a report waiting for the opponent: when it counts by itself unless disputed (the
    #: instant, ISO, naive UTC; shown in ``game.zone``)
    counts_at: str | None = None
    #: a report waiting for the opponent on a ladder that shows the points at stake (issue
    #: 38): a ``stake_line`` per member, and ``stake_estimate`` where it is an estimate
    stake: list[Notice] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    name: str
    rating: float
    provisional: bool
    deviation: float | None
    games: int
    #: the rating band the member holds (issue 38), if any
    band: str | None = None


@dataclass(frozen=True, slots=True)
class Leaderboard:
    ladder: str
    rows: list[Standing]
    hidden_provisional: int = 0


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    ladder: str
    rating: float | None
    provisional: bool
    deviation: float | None
    rank: int | None
    games: int
    wins: int
    draws: int
    losses: int
    peak: float | None
    #: the member's scores in their latest games, newest first (1 a win, 0.5 a draw, 0 a loss)
    recent: list[float]
    retired: bool = False
    #: their standing on the ladder's companion, which rates its team games (issue 37)
    team: TeamStanding | None = None
    #: the rating band the member holds on the ladder (issue 38), if any
    band: str | None = None


@dataclass(frozen=True, slots=True)
class TeamStanding:
    """A member's rating from team games (issue 37), and their latest team game."""

    ladder: str
    rating: float
    provisional: bool
    deviation: float | None
    games: int
    last: GameLine | None = None


@dataclass(frozen=True, slots=True)
class History:
    name: str
    ladder: str
    games: list[GameLine]


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A player's state after one step of the ladder that concerned them (``at``: ISO time)."""

    at: str
    rating: float
    provisional: bool
    deviation: float | None
    games: int


@dataclass(frozen=True, slots=True)
class RatingHistory:
    """A member's rating through time, in rating order (what a rating chart plots)."""

    name: str
    ladder: str
    points: list[RatingPoint]


@dataclass(frozen=True, slots=True)
class HeadToHead:
    name: str
    other: str
    ladder: str
    wins: int
    draws: int
    losses: int
    games: list[GameLine]
    #: the record of their games side by side, not against each other (issue 37)
    partners: bool = False


@dataclass(frozen=True, slots=True)
class Preview:
    """Every rating a correction would change (``applied`` once it is committed). An /undo's
    preview has ``undo``: the sentence of the action it takes back; a /merge's has ``merge``; a
    /system's has ``system``. ``game_id`` is the game's number (an undo's: the id of the action,
    as /audit shows it; a merge's: the duplicate's member id; a /system's: what it is filed
    under, ``ladders.system_key``)."""

    game_id: int
    changes: list[RatingChange]
    applied: bool
    undo: Notice | None = None
    #: False: an undo that moves no rating (naming a moderator, a schedule), applied at once
    rates: bool = True
    #: a merge: the records (``from``, ``into``: names) and the games between them that stop
    #: counting (``games``: their numbers, "#3, #5", or ""; ``dropped``: how many)
    merge: Notice | None = None
    #: a /system: the ladder, the system and its parameters it sets (``system_set``)
    system: Notice | None = None
    #: a correction: the game as recorded and as corrected, so the answer says the result in
    #: words before and after (issue 31: "frank beat erin -> erin beat frank")
    was: GameLine | None = None
    becomes: GameLine | None = None
    #: a correction's preview: the id of the log's last event it was computed on; an /apply
    #: after the log moved on applies nothing and previews again (issue 31)
    at: int | None = None
    #: an /apply found the log changed since the preview: this is the new preview, kept for
    #: another /apply (issue 31)
    outdated: bool = False
    #: a /correct of a game whose earlier preview (the caller's) it replaces (issue 31)
    replaces: bool = False
    #: a chat joining a club with its games (``/link CODE merge``) or leaving it (``/unlink``),
    #: issue 35: what it does, in a sentence
    link: Notice | None = None


@dataclass(frozen=True, slots=True)
class AuditLine:
    """One entry of the log; ``at``: its instant (ISO, naive UTC), shown in ``zone``."""

    id: int
    at: str
    actor: str
    kind: str
    summary: str
    #: a member's words, or the bot's own reason as a notice (:mod:`bot.service.reasons`)
    reason: Param = ""
    zone: str = "UTC"
    #: what happened, as a sentence (a message key and its parameters); None in answers
    #: stored before (shown from ``kind`` and ``summary``)
    what: Notice | None = None
    undone: bool = False


@dataclass(frozen=True, slots=True)
class Audit:
    lines: list[AuditLine]


@dataclass(frozen=True, slots=True)
class SystemScore:
    """How well one rating system predicted the ladder's later games (lower is better)."""

    system: str
    logloss: float
    brier: float
    accuracy: float


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The systems compared on a ladder's own history, best first; ``games`` were scored (no
    system is ranked when they are too few)."""

    ladder: str
    current: str
    games: int
    scores: list[SystemScore]


@dataclass(frozen=True, slots=True)
class Dispute:
    """A disputed game, and the reason its opponent gave."""

    game: GameLine
    reason: str


@dataclass(frozen=True, slots=True)
class Pending:
    """A member's open business: reports to answer, own reports waiting, challenges; for a
    moderator, the disputes waiting to be settled too, and the claims of imported players
    waiting for an answer (issue 31)."""

    to_confirm: list[GameLine]
    waiting: list[GameLine]
    challenges: list[Notice]
    disputes: list[Dispute] = field(default_factory=list)
    claims: list[Notice] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ScheduleInfo:
    """A ladder's posting schedule (``key``: what was just done to it, or that it is shown).
    ``channel`` None: the club's own chat; ``next_post``: the next time (the instant, ISO, naive
    UTC; the zone's wall clock as text in answers stored before), None while paused."""

    key: str
    ladder: str
    cron: str
    timezone: str
    channel: str | None
    paused: bool
    size: int
    next_post: str | None


@dataclass(frozen=True, slots=True)
class DigestRow:
    """A leaderboard row of a scheduled post, with the change since the previous post (None:
    not rated then)."""

    standing: Standing
    change: float | None


@dataclass(frozen=True, slots=True)
class Retiring:
    """A player the inactivity rule retires in ``days`` days unless they play."""

    name: str
    days: int


@dataclass(frozen=True, slots=True)
class Digest:
    """A ladder's scheduled post: the top of the leaderboard and what happened since ``since``
    (the previous post's time, ISO, UTC; empty when there was none), shown in ``zone``.
    ``began``: when nothing was posted yet, the ladder's start, which the digest covers from.
    ``games`` counts the games played since; ``late`` those that came to count since but were
    played before (an import, a result recorded late), played from ``late_from`` to
    ``late_to`` (ISO)."""

    ladder: str
    since: str
    rows: list[DigestRow]
    climbers: list[RatingChange]
    fallers: list[RatingChange]
    established: list[str]
    newcomers: list[str]
    retiring: list[Retiring]
    games: int
    hidden_provisional: int = 0
    zone: str = "UTC"
    began: str = ""
    late: int = 0
    late_from: str = ""
    late_to: str = ""
    #: the latest team games among them (issue 37), oldest first
    team_games: list[GameLine] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ProblemCard:
    """A problem as it is shown to solve, never with its answers: ``ref`` is its id (what a
    button names it by), ``image`` the name of its picture in the club's picture store."""

    ladder: str
    problem: str
    ref: int
    prompt: str
    rating: float
    image: str | None = None


@dataclass(frozen=True, slots=True)
class PuzzleShown:
    """A problem delivered to one member alone, who answers before ``deadline`` (the instant,
    ISO, naive UTC; ``minutes`` from the delivery). ``again``: their open attempt, sent again
    on the same clock."""

    card: ProblemCard
    deadline: str
    minutes: int
    again: bool = False


@dataclass(frozen=True, slots=True)
class PuzzleInvite:
    """Where a member solves problems privately (asked in a group): ``ref`` the problem a
    button serves (0: the one closest to their rating)."""

    ladder: str
    ref: int = 0


@dataclass(frozen=True, slots=True)
class AttemptResult:
    """A member's attempt ended: solved or not, in ``seconds``, rated at once (``changes``: the
    member's rating, then the problem's). ``answers``: the problem's solution, shown to the
    member now that their attempt has ended. ``game``: the attempt's number among the club's
    games (what /correct and /void name it by)."""

    ladder: str
    problem: str
    solved: bool
    seconds: float
    answers: list[str]
    changes: list[RatingChange]
    game: int


@dataclass(frozen=True, slots=True)
class ProblemLine:
    problem: str
    rating: float
    attempts: int
    solved: int


@dataclass(frozen=True, slots=True)
class ProblemBoard:
    """A puzzle ladder's problems, hardest first, without their answers."""

    ladder: str
    rows: list[ProblemLine]


@dataclass(frozen=True, slots=True)
class Solver:
    name: str
    seconds: float


@dataclass(frozen=True, slots=True)
class PuzzlePost:
    """A puzzle ladder's scheduled post: the solution of the problem the post before showed
    (``revealed``, its accepted ``answers``, its fastest ``solvers`` and how many tried), then
    the next problem to solve (``card``), either one possibly missing."""

    ladder: str
    card: ProblemCard | None
    revealed: str | None = None
    answers: list[str] = field(default_factory=list)
    solvers: list[Solver] = field(default_factory=list)
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class BoardLine:
    """A board of a club night's round as shown: its number, players (the first is white in
    chess, the left side of ``1-0``), McMahon's handicap, its result ("1-0", "0-1", "½-½", "+-",
    "-+"; None while played) and the number of the game that made it, and the reason it is
    paired so where that is not obvious (``bot.pairing`` reason ids)."""

    number: int
    first: str
    second: str
    handicap: int = 0
    result: str | None = None
    game: int | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class NightRoundShown:
    """A round of the ladder's club night: a preview (``/pair``) or published. ``night``: the
    night's id (its opening's event id), which a published round's result buttons name; None
    in an answer stored before they had it."""

    ladder: str
    round: int
    preview: bool
    boards: list[BoardLine]
    bye: str | None = None
    rules: str | None = None
    night: int | None = None


@dataclass(frozen=True, slots=True)
class NightStanding:
    place: int
    name: str
    points: float
    tiebreaks: list[float]


@dataclass(frozen=True, slots=True)
class NightStandings:
    """A club night's standings after ``rounds`` rounds (``final``: the night is closed): the
    mode's tie-breaks by id (``bot.pairing.tiebreaks``), one row per player."""

    ladder: str
    rounds: int
    final: bool
    tiebreaks: list[str]
    rows: list[NightStanding]


@dataclass(frozen=True, slots=True)
class Stake:
    """The points at stake in a game not played yet (issue 38, /stake): a ``stake_line``
    notice per member of the game, the asker's side first, and ``stake_estimate`` after them
    where the ladder's system rates events together."""

    ladder: str
    lines: list[Notice]


@dataclass(frozen=True, slots=True)
class SeasonLine:
    """A member's line of a season's table (issue 38): the rating at the close (now, for the
    season that runs), its change over the season (the shown ratings' difference), the
    season's peak and games."""

    place: int
    name: str
    rating: float
    change: int
    peak: float
    games: int
    provisional: bool = False


@dataclass(frozen=True, slots=True)
class SeasonTable:
    """A season's table: ``state`` ``preview`` (a moderator's /season close, to confirm),
    ``closed`` (just closed) or ``archived`` (/top season=N). ``number`` counts the ladder's
    seasons from 1; ``start`` and ``end`` are dates in the ladder's zone. ``improved``: the
    member whose rating rose most, by ``improvement`` points (None: nobody rose)."""

    ladder: str
    number: int
    name: str
    state: str
    start: str
    end: str
    games: int
    min_games: int
    rows: list[SeasonLine]
    improved: str | None = None
    improvement: int = 0
    #: a preview's name was given by the moderator (its button closes only a default name)
    named: bool = False
    #: a preview's confirm button's ref: the ladder and the season (``seasons.confirm_ref``)
    ref: int = 0


@dataclass(frozen=True, slots=True)
class SeasonSummary:
    number: int
    name: str
    start: str
    end: str
    games: int
    players: int
    champion: str | None


@dataclass(frozen=True, slots=True)
class SeasonList:
    ladder: str
    seasons: list[SeasonSummary]


Result = (
    Notice | GameResult | Leaderboard | Profile | History | HeadToHead | Preview | Audit | Pending
    | Evaluation | RatingHistory | Digest | ScheduleInfo | PuzzleShown | PuzzleInvite
    | AttemptResult | ProblemBoard | PuzzlePost | NightRoundShown | NightStandings
    | Stake
    | SeasonTable | SeasonList
)

_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        Notice, RatingChange, GameLine, GameResult, Standing, Leaderboard, Profile, History,
        TeamStanding,
        HeadToHead, Preview, AuditLine, Audit, Dispute, Pending, SystemScore, Evaluation,
        RatingPoint, RatingHistory,
        DigestRow, Retiring, Digest, ScheduleInfo, ProblemCard, PuzzleShown, PuzzleInvite,
        AttemptResult, ProblemLine, ProblemBoard, Solver, PuzzlePost, BoardLine,
        NightRoundShown, NightStanding, NightStandings,
        Stake,
        SeasonLine, SeasonTable, SeasonSummary, SeasonList,
    )
}


#: each answer type's fields that hold a tuple, which JSON gives back as a list
_TUPLES: dict[type, frozenset[str]] = {
    cls: frozenset(f.name for f in dataclasses.fields(cls) if str(f.type).startswith("tuple"))
    for cls in _TYPES.values()
}


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"type": type(value).__name__, **fields}
    if isinstance(value, list | tuple):  # a tuple of a notice's parts comes back as a list
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def encode(answer: Result | Refusal) -> str:
    """JSON for a stored answer; a refusal is stored as one too."""
    if isinstance(answer, Refusal):
        return json.dumps({"type": "Refusal", "key": answer.key, "params": answer.params})
    return json.dumps(_plain(answer), ensure_ascii=False)


def _build(value: object) -> object:
    if isinstance(value, list):
        return [_build(v) for v in value]
    if isinstance(value, dict):
        if "type" in value and value["type"] in _TYPES:
            cls = _TYPES[str(value["type"])]
            args = {k: _build(v) for k, v in value.items() if k != "type"}
            for name in _TUPLES[cls] & args.keys():
                args[name] = tuple(typing.cast(list[object], args[name]))
            return cls(**args)
        return {k: _build(v) for k, v in value.items()}
    return value


def decode(text: str) -> Result:
    """The stored answer again; a stored refusal is raised as it was the first time."""
    data = json.loads(text)
    if data.get("type") == "Refusal":
        raise Refusal(data["key"], **data["params"])
    return typing.cast(Result, _build(data))
