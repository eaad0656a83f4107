"""A history kept column by column, and its replay, for histories of millions of rows.

A history of steps holds a ``Game`` (and a ``datetime``) for every row: about 150 bytes each
before any rating. Here a history is a few arrays instead: player ids (every name is kept once),
player_a's score, the time as whole microseconds, the row's kind, and handicap, first move and
solving time only when some row has one. A row's values become a ``Game`` only when a rule
needs one, and then only for as long as it needs it.

:func:`replay_columns` gives the :class:`~ratings_core.replay.ReplayResult` that
:func:`~ratings_core.replay.replay` gives for the same steps. It is the replay engine with the
games in between membership events and rating periods handed to the system as rows
(:meth:`RatingSystem.rate_columns`): membership events and periods go through the engine's own
code, as ``Join``/``Retire``/``Return`` values and periods of ``Game`` values.

Source: no rating rule of its own; the rules are the engine's (replay.py) and the systems'.
Issue 19 of this project asked for it: ``clubrating replay`` of a million-row file within
1.5x of plain Python and under 120 MB.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from itertools import repeat
from typing import TypeVar

from .inlined import GameLists
from .model import Event, Game, Join, PlayerState, Retire, Return
from .replay import CHUNK, Checkpoint, ReplayError, ReplayResult, _Engine
from .system import RatingSystem
from .table import EPOCH, datetime_of, moment_of

#: the row kinds, as stored in :attr:`EventColumns.kind`
GAME, JOIN, RETIRE, RETURN = 0, 1, 2, 3
#: any row that is not a game
_MEMBERSHIP_ROW = re.compile(b"[^\x00]")
_N = TypeVar("_N", int, float)


@dataclass(frozen=True, slots=True)
class EventColumns:
    """A history in step order: row r of every array is the r-th event.

    A rating period's rows are consecutive (``periods`` gives each as start, stop); every other
    row is a step of its own. Membership rows have player_b -1 and score NaN.
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

    def __len__(self) -> int:
        return len(self.kind)

    @property
    def steps(self) -> int:
        """How many steps the rows make (a period is one)."""
        return len(self) - sum(stop - start for start, stop in self.periods) + len(self.periods)

    def game(self, row: int) -> Game:
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
        kind = self.kind[row]
        if kind == GAME:
            return self.game(row)
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

    def add_event(self, event: Event, label: str = "") -> None:
        """One row, from its event."""
        label_id = self.label_id(label)
        moment = array("q", (moment_of(event.played_at),))
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

    def finish(self) -> EventColumns:
        """The rows in step order, a period's rows moved to where its last row was."""
        optional = (self.handicap, self.first_move, self.seconds)
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
        """The games as ``Game`` values, :data:`~ratings_core.replay.CHUNK` at a time."""
        for lo in range(self.start, self.stop, CHUNK):
            yield [self.columns.game(row) for row in range(lo, min(lo + CHUNK, self.stop))]

    def defer_last_played(self) -> None:
        """Say that the rating loop left ``table.last_played`` as it was: the replay sets it
        from the rows' times before anything reads it (a datetime per player instead of one
        per game), after the last step. A system that defers never reads ``last_played`` (in
        ``rate_columns`` or ``rate_period``)."""
        self._deferred.append((self.start, self.stop))


def check_columns(system: RatingSystem, columns: EventColumns) -> None:
    """``system.check`` of every game, raising its ``ValueError`` for one it refuses.

    The base rule looks only at a game's handicap and whether it has a solving time, so it is
    asked once per distinct pair of those; a system with a rule of its own is asked about every
    game.

    Source: RatingSystem.check (the rule), issue 19 (asking once per distinct pair).
    """
    if type(system).check is not RatingSystem.check:
        for row in _game_rows(columns):
            system.check(columns.game(row))
        return
    if columns.handicap is None and columns.seconds is None:
        system.check(Game("a", "b", 1.0, EPOCH))
        return
    games = _game_rows(columns)
    handicaps = {0.0} if columns.handicap is None else set(map(columns.handicap.__getitem__,
                                                               games))
    times: list[float | None] = [None]
    if columns.seconds is not None:
        given = [t for t in map(columns.seconds.__getitem__, games) if not math.isnan(t)]
        times = ([None] if len(given) < len(games) else []) + given[:1]
    for handicap in handicaps:
        for seconds in times:
            system.check(Game("a", "b", 1.0, EPOCH, handicap, seconds))


def _game_rows(columns: EventColumns) -> range | list[int]:
    if columns.kind.count(GAME) == len(columns):
        return range(len(columns))
    return [row for row, kind in enumerate(columns.kind) if kind == GAME]


def replay_columns(
    system: RatingSystem,
    columns: EventColumns,
    *,
    players: Mapping[str, PlayerState] | None = None,
    birth_dates: Mapping[str, date] | None = None,
) -> ReplayResult:
    """``replay(system, steps, players=..., birth_dates=...)`` of the steps ``columns`` holds:
    the same final state (no checkpoints on the way), raising the same ``ReplayError``.

    Source: replay.py (the engine, whose code it reuses), issue 19.
    """
    engine = _ColumnEngine(system, birth_dates or {}, columns)
    engine.load_listed(players or {})
    return engine.run_columns()


class _ColumnEngine(_Engine):
    """The replay engine reading its steps from columns."""

    def __init__(self, system: RatingSystem, birth_dates: Mapping[str, date],
                 columns: EventColumns) -> None:
        super().__init__(system, birth_dates)
        self.columns = columns
        #: the table index of each player id, -1 before they are met
        self.slot = [-1] * len(columns.names)
        #: every id below it has a table index (all ids, soon into a long history)
        self.frontier = 0
        #: whether every player's id is their table index (players met in the order of their
        #: ids, none listed before): the rating loops then need no translation
        self.same_numbers = True
        #: the ids of retired players
        self.retired: set[int] = set()
        #: the rows rated without recording last_played (GameRows.defer_last_played)
        self.deferred: list[tuple[int, int]] = []

    def run_columns(self) -> ReplayResult:
        columns = self.columns
        self._refresh(range(len(self.slot)))
        position = 0
        row = 0
        for start, stop in columns.periods:
            position = self._rate_rows(row, start, position)
            self._rate_period(tuple(columns.event(r) for r in range(start, stop)), position)
            self._refresh(set(columns.player_a[start:stop]) | set(columns.player_b[start:stop]))
            position += 1
            row = stop
        position = self._rate_rows(row, len(columns), position)
        self._stamp_last_played()  # runs of Games a system left it for (none by default)
        self._settle_last_played()
        return ReplayResult(Checkpoint(position, self.table.snapshot(), self.pool))

    def _rate_rows(self, start: int, stop: int, position: int) -> int:
        """Rows that are steps of their own: runs of games, and membership events each a
        period of its own (as ``_Engine._apply``); returns the position after them."""
        columns = self.columns
        while start < stop:
            found = _MEMBERSHIP_ROW.search(columns.kind, start, stop)
            end = stop if found is None else found.start()
            if end > start:
                self._rate_games(start, end, position)
                position += end - start
            if found is None:
                break
            self._rate_period((columns.event(end),), position)
            self._refresh((columns.player_a[end],))
            position += 1
            start = end + 1
        return position

    def _rate_games(self, start: int, stop: int, position: int) -> None:
        """A run of games: admit newcomers and refuse retired players (as
        ``_Engine._rate_run``), then let the system rate the rows."""
        player_a = self.columns.player_a[start:stop]
        player_b = self.columns.player_b[start:stop]
        if self.frontier < len(self.slot) and (
                max(player_a) >= self.frontier or max(player_b) >= self.frontier):
            self._admit_rows(start, stop)
        if self.retired and not (self.retired.isdisjoint(player_a)
                                 and self.retired.isdisjoint(player_b)):
            self._refuse_retired(start, stop, position)
        slot = None if self.same_numbers else self.slot
        self.system.rate_columns(
            self.table, GameRows(self.columns, start, stop, slot, self.deferred))

    def _admit_rows(self, start: int, stop: int) -> None:
        """Each game's newcomers join together, when the game is played."""
        columns, slot, names = self.columns, self.slot, self.columns.names
        for row in range(start, stop):
            new = [i for i in (columns.player_a[row], columns.player_b[row]) if slot[i] < 0]
            if new:
                when = datetime_of(columns.moment[row])
                self._admit([(names[i], when, self.birth_dates.get(names[i])) for i in new])
                self._refresh(new)

    def _refuse_retired(self, start: int, stop: int, position: int) -> None:
        columns = self.columns
        for offset, row in enumerate(range(start, stop)):
            for i in (columns.player_a[row], columns.player_b[row]):
                if i in self.retired:
                    raise ReplayError(
                        f"player {columns.names[i]!r} is retired; a 'return' must come before "
                        "their games",
                        position + offset,
                    )

    def _refresh(self, ids: Iterable[int]) -> None:
        """Take the table's word for these players: their index, and whether they are retired."""
        index, active, names, slot = self.table.index, self.table.active, self.columns.names, \
            self.slot
        for i in ids:
            if i < 0:
                continue
            at = index.get(names[i], -1)
            slot[i] = at
            if at != i and at >= 0:
                self.same_numbers = False
            if at >= 0 and not active[at]:
                self.retired.add(i)
            else:
                self.retired.discard(i)
        while self.frontier < len(slot) and slot[self.frontier] >= 0:
            self.frontier += 1

    def _settle_last_played(self) -> None:
        """Record every deferred player's last game's time (see GameRows.defer_last_played).

        A player's last game is found reading the rows back from the last, a stretch at a time,
        until every player of the table has been found (soon, in a long history) or the rows
        run out. When it is in a rating period, the period recorded its time already.
        """
        if not self.deferred:
            return
        columns = self.columns
        found: dict[int, int] = {}  # id -> row of their last game; -1: in a period
        for start, stop, deferred in _stretches_back(self.deferred, columns.periods):
            if deferred:
                rows = range(start, stop)
                # dict() keeps the last row each id is given: a player's last game in the
                # stretch as player_a, and as player_b; the later of the two is the one.
                as_a = dict(zip(columns.player_a[start:stop], rows, strict=True))
                as_b = dict(zip(columns.player_b[start:stop], rows, strict=True))
                for i, row in as_b.items():
                    if as_a.get(i, -1) < row:
                        as_a[i] = row
                for i, row in as_a.items():
                    found.setdefault(i, row)
            else:
                for row in range(start, stop):
                    if columns.kind[row] == GAME:
                        found.setdefault(columns.player_a[row], -1)
                        found.setdefault(columns.player_b[row], -1)
            if len(found) == len(self.table):
                break
        self.deferred.clear()
        last_moment, slot, moment = self.table.last_moment, self.slot, columns.moment
        for i, row in found.items():
            if row >= 0:
                last_moment[slot[i]] = moment[row]


#: rows read at once when looking for players' last games
_STRETCH = 1 << 15


def _stretches_back(deferred: list[tuple[int, int]], periods: list[tuple[int, int]]
                    ) -> Iterator[tuple[int, int, bool]]:
    """The deferred runs (cut into stretches) and the periods after the first of them, the
    last first, each with whether it is a deferred run."""
    first = deferred[0][0]
    ranges = sorted([(start, stop, True) for start, stop in deferred]
                    + [(start, stop, False) for start, stop in periods if start >= first])
    for start, stop, is_deferred in reversed(ranges):
        if not is_deferred:
            yield start, stop, False
            continue
        while stop > start:
            yield max(start, stop - _STRETCH), stop, True
            stop -= _STRETCH
