"""What a club night is made of, as the pairing engines and the standings read it (issue 36).

A night is its players and its rounds so far. Nothing here knows of chats, clocks or the log:
the service builds a :class:`Night` from the club's state and asks for the next round
(:func:`bot.pairing.pair`) or the standings (:func:`bot.pairing.standings`); a replay of the
log builds the same :class:`Night`, so it gets the same answers.

Players are named by a stable key (the rating engine's, ``m17``), never by a display name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Mode(StrEnum):
    """How a night pairs its rounds (``/night open MODE``)."""

    SWISS = "swiss"
    NEAREST = "nearest"
    ROUNDROBIN = "roundrobin"
    MCMAHON = "mcmahon"
    FIDE_DUTCH = "fide-dutch"


class Status(StrEnum):
    """Where a player stands for the next round."""

    IN = "in"  # paired in the next round
    PAUSED = "paused"  # sits the next round out (``/pause``), then is in again
    OUT = "out"  # left the night (``/out``): keeps their standing, never paired again


class Absence(StrEnum):
    """A round a player of the night did not play a board in (FIDE TRF16's codes)."""

    PAIRING_BYE = "U"  # the odd one out of the pairing: ``night_bye_points`` (1 by default)
    HALF_BYE = "H"  # a half-point bye a moderator gave
    ZERO = "Z"  # absent, paused, not yet joined, or out: no point


@dataclass(frozen=True, slots=True)
class Player:
    """One player of the night. ``number`` is their pairing number: rating order (highest
    first, then name) when the first round was paired, late joiners after, in the order they
    joined. ``rating`` is their ladder rating when the night was opened (or when they joined
    late)."""

    key: str
    name: str
    rating: float
    number: int
    status: Status = Status.IN
    #: the first round they could be paired in (1, or later for a late joiner)
    joined_round: int = 1


class Result(StrEnum):
    """A board's result, the first player's score first (``/result BOARD ...``)."""

    FIRST_WINS = "1-0"
    SECOND_WINS = "0-1"
    DRAW = "½-½"
    FIRST_FORFEIT_WIN = "+-"  # the second did not play: not rated
    SECOND_FORFEIT_WIN = "-+"

    @property
    def first_score(self) -> float:
        return {"1-0": 1.0, "0-1": 0.0, "½-½": 0.5, "+-": 1.0, "-+": 0.0}[self.value]

    @property
    def forfeit(self) -> bool:
        return self in (Result.FIRST_FORFEIT_WIN, Result.SECOND_FORFEIT_WIN)


@dataclass(frozen=True, slots=True)
class Board:
    """A board of a round: ``first`` (white in chess, the left side of ``1-0``) and ``second``;
    ``result`` None while it is played. ``handicap`` is McMahon's (stones), else 0."""

    number: int
    first: str
    second: str
    result: Result | None = None
    handicap: int = 0


@dataclass(frozen=True, slots=True)
class Round:
    """A published round: its boards and who played no board in it, and why."""

    number: int
    boards: tuple[Board, ...]
    absent: dict[str, Absence] = field(default_factory=dict)

    def complete(self) -> bool:
        return all(board.result is not None for board in self.boards)


@dataclass(frozen=True, slots=True)
class Settings:
    """A night's rules: its mode and number of rounds (None: a round robin's, everyone once),
    what a pairing bye scores, whether colours matter (chess: alternate and balance them),
    McMahon's band width (rating points a band spans) and bar (how many bands from the top
    start level), the ladder's handicap limit, the seed of the last tie-break, and the
    standings' tie-breaks where the ladder chose its own."""

    mode: Mode = Mode.SWISS
    rounds: int | None = None
    bye_points: float = 1.0
    colours: bool = True
    band_width: float = 100.0
    bar: int = 1
    handicap_limit: int = 9
    seed: int = 0
    #: the tie-breaks, in order (``bot.pairing.tiebreaks`` ids); empty: the mode's own
    tiebreaks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Night:
    """Everything a pairing or the standings read: the players (every one who checked in,
    whatever their status now), the rounds published so far in order, the pairs never to meet
    tonight (``/forbid``), and the rules."""

    players: tuple[Player, ...]
    rounds: tuple[Round, ...]
    settings: Settings
    forbidden: frozenset[frozenset[str]] = frozenset()

    def player(self, key: str) -> Player:
        return next(p for p in self.players if p.key == key)


@dataclass(frozen=True, slots=True)
class Pairing:
    """The next round as an engine proposes it: its boards in order (board 1 the top), the
    player given the pairing bye (None: nobody), each board's short reason where it is not
    obvious (by board number: ``rematch_avoided``, ``score_group``, ``colour``, ...: message
    keys' last words, the chat says them), and the rules' version where the engine has one
    (``FIDE Dutch 2017 (C.04.3)``)."""

    boards: tuple[Board, ...]
    bye: str | None = None
    reasons: dict[int, str] = field(default_factory=dict)
    rules: str | None = None


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings: place (shared places are equal), player, points, and the
    tie-break values in the mode's order."""

    place: int
    key: str
    points: float
    tiebreaks: tuple[float, ...]


def scores(night: Night) -> dict[str, float]:
    """Each player's points after the published rounds (a result that is not in yet counts
    nothing): a board's scores, a pairing bye's ``bye_points``, a half bye's 0.5."""
    points = {p.key: 0.0 for p in night.players}
    for round_ in night.rounds:
        for board in round_.boards:
            if board.result is not None:
                points[board.first] += board.result.first_score
                points[board.second] += 1.0 - board.result.first_score
        for key, absence in round_.absent.items():
            if absence is Absence.PAIRING_BYE:
                points[key] += night.settings.bye_points
            elif absence is Absence.HALF_BYE:
                points[key] += 0.5
    return points


def met(night: Night) -> set[frozenset[str]]:
    """The pairs that played a board tonight (a forfeit counts: they were paired)."""
    return {frozenset((b.first, b.second)) for r in night.rounds for b in r.boards}


def eligible(night: Night) -> list[Player]:
    """The players the next round pairs: checked in, not paused, not out."""
    return [p for p in night.players if p.status is Status.IN]
