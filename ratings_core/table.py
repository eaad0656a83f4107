"""The replay's working copy of every player's state, kept column by column.

A replay touches ratings millions of times, so the engine holds them in plain lists indexed by
small integers instead of rebuilding immutable records after every game. Times are kept as
moments, whole microseconds from :data:`EPOCH` (integer arithmetic, no object per game). The
table never leaves ``ratings_core``: callers give and receive
:class:`~ratings_core.model.PlayerState` values.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import astuple, dataclass
from datetime import date, datetime, timedelta
from itertools import chain, repeat
from operator import add, floordiv, sub

from .model import PLAYER_A, PLAYER_B, SIDE_A, SIDE_B, Match, PlayerState, Status, players_of

COLUMNS = (
    "names",
    "rating",
    "games",
    "deviation",
    "volatility",
    "peak",
    "active",
    "last_moment",
    "birth_date",
)

#: moments are whole microseconds from this time (naive, UTC like every time of a history)
EPOCH = datetime(1970, 1, 1)
MICROSECOND = timedelta(microseconds=1)


def moment_of(when: datetime) -> int:
    """A naive datetime as whole microseconds from :data:`EPOCH` (exact both ways).

    Source: issue 19 (integer times in columns).
    """
    return (when - EPOCH) // MICROSECOND


def moments_of(times: Iterable[datetime]) -> Iterator[int]:
    """:func:`moment_of` of each time, the loop in C (``map``). Source: issue 19."""
    return map(floordiv, map(sub, times, repeat(EPOCH)), repeat(MICROSECOND))


def datetime_of(moment: int) -> datetime:
    """The datetime :func:`moment_of` came from. Source: issue 19."""
    return EPOCH + timedelta(microseconds=moment)


@dataclass(slots=True)
class LeagueSums:
    """How many players have played a rated game, and the sum and the sum of squares of their
    ratings: the league's mean and spread at any moment without a pass over the table. A player
    listed with games counts from when they are added; after that the systems whose newcomers
    depend on the league (``club``) keep the sums in their rating loops, in the order they
    change ratings, so every path to a table gives the same floats."""

    players: int = 0
    total: float = 0.0
    squares: float = 0.0


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """An immutable copy of a table: cheap to take (a tuple per column), so a replay can keep
    many checkpoints without rebuilding every player's record each time."""

    names: tuple[str, ...]
    rating: tuple[float, ...]
    games: tuple[int, ...]
    deviation: tuple[float | None, ...]
    volatility: tuple[float | None, ...]
    peak: tuple[float, ...]
    active: tuple[bool, ...]
    last_moment: tuple[int | None, ...]
    birth_date: tuple[date | None, ...]
    league: tuple[int, float, float] = (0, 0.0, 0.0)

    def states(self) -> dict[str, PlayerState]:
        return {name: self.at(i) for i, name in enumerate(self.names)}

    def state(self, name: str) -> PlayerState | None:
        """One player's state, without rebuilding everyone's (``None`` if unknown)."""
        try:
            return self.at(self.names.index(name))
        except ValueError:
            return None

    def at(self, i: int) -> PlayerState:
        """The state of the i-th player (in the order players were met)."""
        return _state_at(self, i)


def _state_at(self: TableSnapshot | Table, i: int) -> PlayerState:
    moment = self.last_moment[i]
    return PlayerState(
            rating=self.rating[i],
            games=self.games[i],
            deviation=self.deviation[i],
            volatility=self.volatility[i],
            peak=self.peak[i],
            status=Status.ACTIVE if self.active[i] else Status.RETIRED,
            last_played=None if moment is None else datetime_of(moment),
            birth_date=self.birth_date[i],
        )


class Table:
    __slots__ = ("index", "league", *COLUMNS)

    def __init__(self) -> None:
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.rating: list[float] = []
        self.games: list[int] = []
        self.deviation: list[float | None] = []
        self.volatility: list[float | None] = []
        self.peak: list[float] = []
        self.active: list[bool] = []
        #: when each player last played, as a moment (:func:`moment_of`)
        self.last_moment: list[int | None] = []
        self.birth_date: list[date | None] = []
        self.league = LeagueSums()

    def __len__(self) -> int:
        return len(self.names)

    def add(self, name: str, state: PlayerState) -> int:
        if name in self.index:
            raise ValueError(f"player {name!r} is already in the table")
        i = len(self.names)
        self.index[name] = i
        self.names.append(name)
        rating = float(state.rating)
        self.rating.append(rating)
        self.games.append(state.games)
        self.deviation.append(state.deviation)
        self.volatility.append(state.volatility)
        self.peak.append(state.best)
        self.active.append(state.status == Status.ACTIVE)
        self.last_moment.append(None if state.last_played is None
                                else moment_of(state.last_played))
        self.birth_date.append(state.birth_date)
        if state.games > 0:
            league = self.league
            league.players += 1
            league.total += rating
            league.squares += rating * rating
        return i

    def states(self) -> dict[str, PlayerState]:
        return self.snapshot().states()

    def at(self, i: int) -> PlayerState:
        """The state of the i-th player, read from the live table."""
        return _state_at(self, i)

    def stamp_last_played(self, games: Sequence[Match]) -> None:
        """Each game's players last played at its time, in order: the last game naming a
        player, as player_a or player_b or a member of a side, gives their time. (``dict``
        finds each player's last game in C; a time is then made a moment once per player, not
        once per game.)"""
        try:
            named = chain.from_iterable(zip(map(PLAYER_A, games), map(PLAYER_B, games),
                                            strict=True))
            latest = dict(zip(named, chain.from_iterable(zip(games, games, strict=True)),
                              strict=True))
        except AttributeError:  # team games among them (issue 37): every member of each
            try:
                everyone = list(map(add, map(SIDE_A, games), map(SIDE_B, games)))
            except AttributeError:  # games of both kinds
                everyone = list(map(players_of, games))
            latest = dict(zip(chain.from_iterable(everyone),
                              chain.from_iterable(map(repeat, games, map(len, everyone))),
                              strict=True))
        index, last = self.index, self.last_moment
        for name, game in latest.items():
            last[index[name]] = moment_of(game.played_at)

    def last_played(self, i: int) -> datetime | None:
        """When the i-th player last played, as a datetime (None: never)."""
        moment = self.last_moment[i]
        return None if moment is None else datetime_of(moment)

    def snapshot(self) -> TableSnapshot:
        columns = {column: tuple(getattr(self, column)) for column in COLUMNS}
        return TableSnapshot(**columns, league=astuple(self.league))

    @classmethod
    def restore(cls, snapshot: TableSnapshot) -> Table:
        table = cls()
        for column in COLUMNS:
            setattr(table, column, list(getattr(snapshot, column)))
        table.index = {name: i for i, name in enumerate(table.names)}
        table.league = LeagueSums(*snapshot.league)
        return table
