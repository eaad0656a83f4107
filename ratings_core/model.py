"""Immutable values that go into and come out of a replay.

A history is a sequence of *steps*. A step is one membership event (join, retire, return), one
game rated on its own, or a :class:`RatingPeriod` whose events are rated together (a club night,
a tournament). Times are plain ``datetime`` values handed in by the caller; the core never reads
a clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from operator import attrgetter


class Status(StrEnum):
    ACTIVE = "active"
    RETIRED = "retired"


@dataclass(frozen=True, slots=True)
class PlayerState:
    """A player's rating state between rating periods ("status in, status out")."""

    rating: float
    games: int = 0
    deviation: float | None = None
    volatility: float | None = None
    peak: float | None = None
    status: Status = Status.ACTIVE
    last_played: datetime | None = None
    birth_date: date | None = None

    @property
    def best(self) -> float:
        """The highest rating reached so far (the current one when no peak is known)."""
        return self.rating if self.peak is None else max(self.peak, self.rating)


@dataclass(frozen=True, slots=True)
class Game:
    """One game: ``score_a`` is player_a's score (1, 0.5 or 0).

    ``handicap`` is in the system's unit (stones for ``rs-go``, rating points otherwise) and is
    positive when player_a gives it. ``seconds`` is the solving time for ``tactics``.
    ``first_move`` is +1 when player_a had the first move (White in chess; the home side in a
    team sport), -1 when player_b had it, 0 when unknown or neutral.
    """

    player_a: str
    player_b: str
    score_a: float
    played_at: datetime
    handicap: float = 0.0
    seconds: float | None = None
    first_move: int = 0

    def __post_init__(self) -> None:
        if self.player_a == self.player_b:
            raise ValueError(f"player_a and player_b are the same player ({self.player_a!r})")
        if self.score_a not in (0.0, 0.5, 1.0):
            raise ValueError(f"score_a must be 1, 0.5 or 0, not {self.score_a!r}")
        if not math.isfinite(self.handicap):
            raise ValueError(f"handicap must be a finite number, not {self.handicap!r}")
        if self.seconds is not None and not (math.isfinite(self.seconds) and self.seconds > 0):
            raise ValueError(f"seconds must be a positive number, not {self.seconds!r}")
        if self.first_move not in (-1, 0, 1):
            raise ValueError(f"first_move must be 1, 0 or -1, not {self.first_move!r}")


@dataclass(frozen=True, slots=True)
class TeamGame:
    """A game between two sides of one or more players each (doubles, a team match):
    ``score_a`` is side_a's score (1, 0.5 or 0), ``handicap`` is in the system's unit and
    positive when side_a gives it, ``first_move`` is +1 when side_a moved first.

    A side is a tuple of distinct names; nobody plays on both sides. ``size_handicap`` is the
    rating points per missing member that the smaller side plays above its members' mean (a
    ladder's ``team_size_handicap``; it changes nothing between even sides). A game of two
    sides of one
    is a :class:`Game` for every caller that builds one (the singles fast paths read only
    ``Game``); as a ``TeamGame`` it gives exactly the same numbers (tests/core/test_sides.py).
    Source: issue 37 (team and doubles games).
    """

    side_a: tuple[str, ...]
    side_b: tuple[str, ...]
    score_a: float
    played_at: datetime
    handicap: float = 0.0
    first_move: int = 0
    size_handicap: float = 0.0

    def __post_init__(self) -> None:
        if not (self.side_a and self.side_b):
            raise ValueError("each side needs at least one player")
        members = {*self.side_a, *self.side_b}
        if len(members) != len(self.side_a) + len(self.side_b):
            raise ValueError("a player appears twice among the sides "
                             f"({self.side_a!r} v {self.side_b!r})")
        if self.score_a not in (0.0, 0.5, 1.0):
            raise ValueError(f"score_a must be 1, 0.5 or 0, not {self.score_a!r}")
        if not math.isfinite(self.handicap):
            raise ValueError(f"handicap must be a finite number, not {self.handicap!r}")
        if self.first_move not in (-1, 0, 1):
            raise ValueError(f"first_move must be 1, 0 or -1, not {self.first_move!r}")
        if not (math.isfinite(self.size_handicap) and self.size_handicap >= 0):
            raise ValueError(f"size_handicap must be a number >= 0, not {self.size_handicap!r}")


#: any game the replay rates: one against one, or side against side
Match = Game | TeamGame


def sides_of(game: Match) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A game's two sides: a game of one against one has sides of one."""
    if isinstance(game, TeamGame):
        return game.side_a, game.side_b
    return (game.player_a,), (game.player_b,)


def players_of(game: Match) -> tuple[str, ...]:
    """Everyone who played ``game``, side_a first."""
    side_a, side_b = sides_of(game)
    return side_a + side_b


#: a game's fields as functions, for reading many games with ``map`` (the loop then runs in C)
PLAYER_A, PLAYER_B, SCORE_A, HANDICAP, FIRST_MOVE_OF, PLAYED_AT = map(
    attrgetter, ("player_a", "player_b", "score_a", "handicap", "first_move", "played_at"))

#: a team game's fields as functions, as the game's above (issue 37)
SIDE_A, SIDE_B, SIZE_HANDICAP = map(attrgetter, ("side_a", "side_b", "size_handicap"))

#: player_a's colour as a game's ``first_move`` (White moves first; None: not known), and back
FIRST_MOVE: dict[str | None, int] = {"white": 1, "black": -1, None: 0}
COLOUR: dict[int, str | None] = {move: colour for colour, move in FIRST_MOVE.items()}


@dataclass(frozen=True, slots=True)
class Join:
    """``player`` joins. ``rating``: the rating they join with when it is known already (a rated
    problem of ``tactics`` given its difficulty, seed 004); None: the system's starting rating."""

    player: str
    played_at: datetime
    birth_date: date | None = None
    rating: float | None = None

    def __post_init__(self) -> None:
        if self.rating is not None and not math.isfinite(self.rating):
            raise ValueError(f"rating must be a finite number, not {self.rating!r}")


@dataclass(frozen=True, slots=True)
class Retire:
    player: str
    played_at: datetime


@dataclass(frozen=True, slots=True)
class Return:
    player: str
    played_at: datetime


Event = Game | TeamGame | Join | Retire | Return


@dataclass(frozen=True, slots=True)
class RatingPeriod:
    """Events rated together, as of the latest ``played_at`` among them.

    Inside a period, retirements and returns apply first (in order), then every newcomer (an
    explicit join or a first appearance in a game) takes a starting rating, then all games are
    rated from the ratings held before the period.
    """

    events: tuple[Event, ...]


#: how a season boundary resets ratings (issue 38): ``soft`` pulls every rating toward the
#: system's base, ``hard`` starts everyone again as a newcomer
SEASON_RESETS = ("soft", "hard")


@dataclass(frozen=True, slots=True)
class SeasonStart:
    """A new season starts at ``played_at``: every active player's rating is reset by the
    system's rule (:meth:`~ratings_core.system.RatingSystem.season_start`). ``reset`` is
    ``soft`` (ratings moved to ``T + (r - T) * factor``) or ``hard`` (everyone a newcomer
    again). A boundary whose reset is ``none`` is no step at all: it changes no rating.

    Source: issue 38 (seasons, ``season_reset``) and its errata.
    """

    played_at: datetime
    reset: str
    factor: float = 0.5

    def __post_init__(self) -> None:
        if self.reset not in SEASON_RESETS:
            raise ValueError(f"reset must be soft or hard, not {self.reset!r}")
        if not (math.isfinite(self.factor) and 0.0 <= self.factor <= 1.0):
            raise ValueError(f"factor must be a number in [0, 1], not {self.factor!r}")


Step = Event | RatingPeriod | SeasonStart


def events_of(step: Step) -> tuple[Event, ...]:
    """The events a step is made of: a period's, or the step itself (none for a season's
    start, which is no event of anyone's)."""
    if isinstance(step, RatingPeriod):
        return step.events
    if isinstance(step, SeasonStart):
        return ()
    return (step,)


def games_of(step: Step) -> list[Match]:
    """The games of a step, of one against one or of sides, in order."""
    return [event for event in events_of(step) if isinstance(event, Game | TeamGame)]
