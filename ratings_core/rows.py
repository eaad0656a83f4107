"""A history kept column by column, for histories of millions of rows: the containers.

A history of steps holds a ``Game`` (and a ``datetime``) for every row: about 150 bytes each
before any rating. Here a history is a few arrays instead: player ids (every name is kept once),
player_a's score, the time as whole microseconds, the row's kind, and handicap, first move and
solving time only when some row has one. A row's values become a ``Game`` only when a rule
needs one, and then only for as long as it needs it. A game of sides (issue 37) is the one row
kept as an object: its :class:`~ratings_core.model.TeamGame` in a list (``teams``), the row
holding its index there, since the engine's runs of team games (``rate_team_sequence``) read
``TeamGame`` values.

This module holds the rows and nothing that rates them: :class:`EventColumns` (a history in
step order) and :class:`ColumnsBuilder` (which makes one), :class:`GameRows` (a run of games
that :meth:`RatingSystem.rate_columns <ratings_core.system.RatingSystem.rate_columns>` gets)
and :class:`GameLists` (games as the per-game loops of :mod:`ratings_core.inlined` read them).
The replay of such a history is :func:`ratings_core.columns.replay_columns`. A leaf of the
package's engine: it imports only ``model`` and ``table``, so that ``system`` may name its rows.

Source: no rating rule of its own. Issue 19 of this project asked for it: ``clubrating replay``
of a million-row file within 1.5x of plain Python and under 120 MB.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from typing import TypeVar

from .model import SCORE_A, Event, Game, Join, Retire, Return, SeasonStart, TeamGame
from .table import datetime_of, moment_of

#: games handed to a system at once when each is its own period (bounds memory, keeps speed):
#: a run of :class:`~ratings_core.system.GameRun` in the replay, :meth:`GameRows.games` here
CHUNK = 8192
#: the row kinds, as stored in :attr:`EventColumns.kind` (TEAM: a game of sides, issue 37;
#: SEASON: a season's start, issue 38)
GAME, JOIN, RETIRE, RETURN, TEAM, SEASON = 0, 1, 2, 3, 4, 5
#: player_b of a team row
NO_PLAYER_B = -2
_N = TypeVar("_N", int, float)


@dataclass(frozen=True, slots=True)
class EventColumns:
    """A history in step order: row r of every array is the r-th event.

    A rating period's rows are consecutive (``periods`` gives each as start, stop); every other
    row is a step of its own. Membership rows have player_b -1 and score NaN. A team row
    (TEAM, issue 37) has player_a its game's index in ``teams`` and player_b
    :data:`NO_PLAYER_B`; its score and moment are its game's, its handicap, first move and
    solving time the defaults (its ``TeamGame`` holds its own). Every member's name is among
    ``names`` too. A season row (SEASON, issue 38) is a step of its own, never in a period: its
    player_a its season's index in ``seasons``, player_b -1, its score the season's factor and
    its moment the season's time.
    """

    #: every player's name, by id
    names: list[str]
    player_a: array[int]
    player_b: array[int]
    #: player_a's score: 1, 0.5 or 0 (NaN in a membership row)
    score: array[float]
    #: :func:`moment_of` the row's time
    moment: array[int]
    #: GAME, JOIN, RETIRE or RETURN
    kind: bytearray
    #: each rating period as its rows' start and stop, in order
    periods: list[tuple[int, int]]
    #: None: every game has handicap 0
    handicap: array[float] | None = None
    #: None: every game has first_move 0
    first_move: array[int] | None = None
    #: solving times, NaN for none; None: no game has one
    seconds: array[float] | None = None
    #: the games of sides, each named by its team row's player_a (issue 37)
    teams: list[TeamGame] = field(default_factory=list)
    #: the seasons' starts, each named by its season row's player_a (issue 38)
    seasons: list[SeasonStart] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.kind)

    @property
    def steps(self) -> int:
        """How many steps the rows make (a period is one)."""
        return len(self) - sum(stop - start for start, stop in self.periods) + len(self.periods)

    def game(self, row: int) -> Game:
        """The game of a GAME row."""
        seconds = None if self.seconds is None else self.seconds[row]
        return Game(
            self.names[self.player_a[row]],
            self.names[self.player_b[row]],
            self.score[row],
            datetime_of(self.moment[row]),
            0.0 if self.handicap is None else self.handicap[row],
            None if seconds is None or math.isnan(seconds) else seconds,
            0 if self.first_move is None else self.first_move[row],
        )

    def event(self, row: int) -> Event:
        """The event of a row that is not a season row (whose step is in ``seasons``)."""
        kind = self.kind[row]
        if kind == GAME:
            return self.game(row)
        if kind == TEAM:
            return self.teams[self.player_a[row]]
        player = self.names[self.player_a[row]]
        when = datetime_of(self.moment[row])
        return Join(player, when) if kind == JOIN else (
            Retire(player, when) if kind == RETIRE else Return(player, when))


class ColumnsBuilder:
    """Collects rows in file order; :meth:`finish` puts them in step order: the rows sharing a
    label form one rating period, placed at its last row (as ``read_events`` does)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.ids: dict[str, int] = {}
        self.label_ids: dict[str, int] = {}
        self.player_a: array[int] = array("i")
        self.player_b: array[int] = array("i")
        self.score: array[float] = array("d")
        self.moment: array[int] = array("q")
        self.kind = bytearray()
        self.label: array[int] | None = None
        self.handicap: array[float] | None = None
        self.first_move: array[int] | None = None
        self.seconds: array[float] | None = None
        self.teams: list[TeamGame] = []
        self.seasons: list[SeasonStart] = []

    def __len__(self) -> int:
        return len(self.kind)

    def intern(self, name: str) -> int:
        """The id of ``name``, a new one the first time."""
        known = self.ids.get(name)
        if known is not None:
            return known
        self.ids[name] = len(self.names)
        self.names.append(name)
        return len(self.names) - 1

    def label_id(self, label: str) -> int:
        """The id of a rating period's label; -1 for none ("")."""
        if not label:
            return -1
        return self.label_ids.setdefault(label, len(self.label_ids))

    def add_games(
        self,
        player_a: array[int],
        player_b: array[int],
        score: Iterable[float],
        moment: Iterable[int],
        label: Iterable[int] | None = None,
        handicap: Iterable[float] | None = None,
        first_move: Iterable[int] | None = None,
        seconds: Iterable[float] | None = None,
    ) -> None:
        """Game rows, given column by column (None: the default for every row)."""
        before = len(self.kind)
        count = len(player_a)
        self.player_a.extend(player_a)
        self.player_b.extend(player_b)
        self.score.extend(score)
        self.moment.extend(moment)
        self.kind.extend(bytes(count))
        self.label = _extend(self.label, "i", -1, before, count, label)
        self.handicap = _extend(self.handicap, "d", 0.0, before, count, handicap)
        self.first_move = _extend(self.first_move, "b", 0, before, count, first_move)
        self.seconds = _extend(self.seconds, "d", math.nan, before, count, seconds)

    def add_teams(self, games: list[TeamGame], moment: Iterable[int],
                  label: Iterable[int] | None = None) -> None:
        """Team rows (issue 37): the games and their times as moments (None: no label). Their
        members' names must be interned already, in the order the rows name them (side_a's,
        then side_b's), as :meth:`add_event` does."""
        before = len(self.kind)
        count = len(games)
        first = len(self.teams)
        self.teams.extend(games)
        self.player_a.extend(range(first, first + count))
        self.player_b.extend(repeat(NO_PLAYER_B, count))
        self.score.extend(map(SCORE_A, games))
        self.moment.extend(moment)
        self.kind.extend(bytes((TEAM,)) * count)
        self.label = _extend(self.label, "i", -1, before, count, label)
        self.handicap = _extend(self.handicap, "d", 0.0, before, count, None)
        self.first_move = _extend(self.first_move, "b", 0, before, count, None)
        self.seconds = _extend(self.seconds, "d", math.nan, before, count, None)

    def add_event(self, event: Event | SeasonStart, label: str = "") -> None:
        """One row, from its event (a game of sides too: a team row, issue 37; a season's
        start: a season row, issue 38, which is in no period)."""
        if isinstance(event, SeasonStart):
            self._add_season(event)
            return
        label_id = self.label_id(label)
        moment = array("q", (moment_of(event.played_at),))
        if isinstance(event, TeamGame):
            for name in event.side_a + event.side_b:
                self.intern(name)
            self.add_teams([event], moment, (label_id,) if label_id >= 0 else None)
            return
        if isinstance(event, Game):
            self.add_games(
                array("i", (self.intern(event.player_a),)),
                array("i", (self.intern(event.player_b),)),
                (event.score_a,),
                moment,
                (label_id,) if label_id >= 0 else None,
                (event.handicap,) if _given(event.handicap) else None,
                (event.first_move,) if event.first_move else None,
                (event.seconds,) if event.seconds is not None else None,
            )
            return
        before = len(self.kind)
        self.player_a.append(self.intern(event.player))
        self.player_b.append(-1)
        self.score.append(math.nan)
        self.moment.extend(moment)
        self.kind.append(JOIN if isinstance(event, Join) else
                         RETIRE if isinstance(event, Retire) else RETURN)
        self.label = _extend(self.label, "i", -1, before, 1,
                             (label_id,) if label_id >= 0 else None)
        self.handicap = _extend(self.handicap, "d", 0.0, before, 1, None)
        self.first_move = _extend(self.first_move, "b", 0, before, 1, None)
        self.seconds = _extend(self.seconds, "d", math.nan, before, 1, None)

    def _add_season(self, season: SeasonStart) -> None:
        before = len(self.kind)
        self.player_a.append(len(self.seasons))
        self.seasons.append(season)
        self.player_b.append(-1)
        self.score.append(season.factor)
        self.moment.append(moment_of(season.played_at))
        self.kind.append(SEASON)
        self.label = _extend(self.label, "i", -1, before, 1, None)
        self.handicap = _extend(self.handicap, "d", 0.0, before, 1, None)
        self.first_move = _extend(self.first_move, "b", 0, before, 1, None)
        self.seconds = _extend(self.seconds, "d", math.nan, before, 1, None)

    def finish(self) -> EventColumns:
        """The rows in step order, a period's rows moved to where its last row was."""
        optional = (self.handicap, self.first_move, self.seconds, self.teams, self.seasons)
        if self.label is None:
            return EventColumns(self.names, self.player_a, self.player_b, self.score,
                                self.moment, self.kind, [], *optional)
        order, periods = _step_order(self.label)
        if order == array("i", range(len(order))):  # each period's rows together already
            return EventColumns(self.names, self.player_a, self.player_b, self.score,
                                self.moment, self.kind, periods, *optional)

        def moved(column: array[int]) -> array[int]:
            return array(column.typecode, map(column.__getitem__, order))

        def moved_floats(column: array[float]) -> array[float]:
            return array(column.typecode, map(column.__getitem__, order))

        return EventColumns(
            self.names, moved(self.player_a), moved(self.player_b), moved_floats(self.score),
            moved(self.moment), bytearray(map(self.kind.__getitem__, order)), periods,
            None if self.handicap is None else moved_floats(self.handicap),
            None if self.first_move is None else moved(self.first_move),
            None if self.seconds is None else moved_floats(self.seconds),
            self.teams,  # a team row keeps its game's index (in player_a)
            self.seasons,  # a season row its season's (issue 38)
        )


def _given(handicap: float) -> bool:
    """Whether a handicap differs from the default 0.0 (-0.0 does, in its sign)."""
    return handicap != 0.0 or math.copysign(1.0, handicap) < 0


def _extend(
    column: array[_N] | None, typecode: str, default: _N, before: int, count: int,
    values: Iterable[_N] | None,
) -> array[_N] | None:
    """An optional column after ``count`` more rows: created (the rows before it given the
    default) only once some row has a value."""
    if values is None:
        if column is not None:
            column.extend(repeat(default, count))
        return column
    if column is None:
        column = array(typecode, repeat(default, before))
    column.extend(values)
    return column


def _step_order(label: array[int]) -> tuple[array[int], list[tuple[int, int]]]:
    """The rows in step order, and each period's place in it."""
    last_row = dict(zip(label, range(len(label)), strict=True))
    order: array[int] = array("i")
    periods: list[tuple[int, int]] = []
    open_periods: dict[int, list[int]] = {}
    for row, period in enumerate(label):
        if period < 0:
            order.append(row)
            continue
        rows = open_periods.setdefault(period, [])
        rows.append(row)
        if last_row[period] == row:
            del open_periods[period]
            periods.append((len(order), len(order) + len(rows)))
            order.extend(rows)
    return order, periods


class GameRows:
    """Rows ``start`` to ``stop`` of a history's columns, every one a game that is a period of
    its own, as :meth:`RatingSystem.rate_columns` gets them."""

    __slots__ = ("columns", "start", "stop", "_slot", "_deferred")

    def __init__(self, columns: EventColumns, start: int, stop: int, slot: list[int] | None,
                 deferred: list[tuple[int, int]]) -> None:
        self.columns = columns
        self.start = start
        self.stop = stop
        #: the table index of each player id (None: the same number)
        self._slot = slot
        self._deferred = deferred

    def lists(self, moments: bool) -> GameLists:
        """The games in order, as the inlined loops read them (the players as their places in
        the table), with their times as moments for a rule that reads them (``moments``;
        ``table.last_played`` is then kept by the rule itself, not deferred)."""
        c, lo, hi = self.columns, self.start, self.stop
        player_a, player_b = c.player_a[lo:hi].tolist(), c.player_b[lo:hi].tolist()
        if self._slot is not None:
            player_a = list(map(self._slot.__getitem__, player_a))
            player_b = list(map(self._slot.__getitem__, player_b))
        return GameLists(
            player_a, player_b, c.score[lo:hi].tolist(),
            [0.0] * (hi - lo) if c.handicap is None else c.handicap[lo:hi].tolist(),
            [0] * (hi - lo) if c.first_move is None else c.first_move[lo:hi].tolist(),
            c.moment[lo:hi].tolist() if moments else [])

    def games(self) -> Iterator[list[Game]]:
        """The games as ``Game`` values, :data:`CHUNK` at a time."""
        for lo in range(self.start, self.stop, CHUNK):
            yield [self.columns.game(row) for row in range(lo, min(lo + CHUNK, self.stop))]

    def defer_last_played(self) -> None:
        """Say that the rating loop left ``table.last_played`` as it was: the replay sets it
        from the rows' times before anything reads it (a datetime per player instead of one
        per game), after the last step. A system that defers never reads ``last_played`` (in
        ``rate_columns`` or ``rate_period``)."""
        self._deferred.append((self.start, self.stop))


class GameLists:
    """Games as the loops read them, one list per field, the n-th game at place n of each:
    the players' places in the table, player_a's score, the handicap, the first move and (for
    ``club``, else empty) the time as a moment (``table.moment_of``). Lists, not a tuple per
    game: compiled code reads a list's item straight into a C variable.

    Source: issue 19 (speed).
    """

    def __init__(self, player_a: list[int], player_b: list[int], score_a: list[float],
                 handicap: list[float], first_move: list[int], moment: list[int]) -> None:
        self.player_a = player_a
        self.player_b = player_b
        self.score_a = score_a
        self.handicap = handicap
        self.first_move = first_move
        self.moment = moment


class TeamLists:
    """Team games as the loops read them (issue 37), one list per field as :class:`GameLists`:
    each game's side sizes, every member's place in the table (side_a's then side_b's, game
    after game, in ``members``), side_a's score, the handicap, the first move, the rating points
    per missing member of the smaller side and (for ``club``, else empty) the time as a moment.

    Source: issue 37 (team games at the speed of singles); issue 19 (lists for the loops).
    """

    __slots__ = ("size_a", "size_b", "members", "score_a", "handicap", "first_move",
                 "size_handicap", "moment")

    def __init__(self, size_a: list[int], size_b: list[int], members: list[int],
                 score_a: list[float], handicap: list[float], first_move: list[int],
                 size_handicap: list[float], moment: list[int]) -> None:
        self.size_a = size_a
        self.size_b = size_b
        self.members = members
        self.score_a = score_a
        self.handicap = handicap
        self.first_move = first_move
        self.size_handicap = size_handicap
        self.moment = moment
