"""The replay of a history kept column by column (:mod:`ratings_core.rows`).

:func:`replay_columns` gives the :class:`~ratings_core.replay.ReplayResult` that
:func:`~ratings_core.replay.replay` gives for the same steps. Its :class:`ColumnEngine` extends
the replay's public :class:`~ratings_core.replay.Engine`: the games in between membership events,
team games and rating periods are handed to the system as rows
(:meth:`RatingSystem.rate_columns`), while membership events, periods and runs of team games
(issue 37) go through the engine's own code, as ``Join``/``Retire``/``Return`` values, periods
of ``Game`` and ``TeamGame`` values, and runs of ``TeamGame`` values (the engine's runs of team
games, which hand them to ``rate_team_sequence``); a season's start (issue 38) through the
engine's ``start_season``, as its own step.

Source: no rating rule of its own; the rules are the engine's (replay.py) and the systems'.
Issue 19 of this project asked for it: ``clubrating replay`` of a million-row file within
1.5x of plain Python and under 120 MB; issue 37, team games read and replayed as columns.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import date

from .model import HANDICAP, Game, PlayerState, TeamGame, players_of
from .replay import Checkpoint, Engine, ReplayError, ReplayResult
from .rows import CHUNK, GAME, SEASON, TEAM, EventColumns, GameRows
from .system import RatingSystem
from .table import EPOCH, datetime_of

#: any row that is not a game of one against one
_OTHER_ROW = re.compile(b"[^\x00]")
#: any row that is not a game of sides
_NOT_TEAM_ROW = re.compile(b"[^\x04]")


def check_columns(system: RatingSystem, columns: EventColumns) -> None:
    """``system.check`` of every game, of one against one and of sides (issue 37), raising
    its ``ValueError`` for one it refuses.

    The base rule looks only at a game's handicap and whether it has a solving time (and at
    whether it is a game of sides), so it is asked once per distinct pair of those; a system
    with a rule of its own is asked about every game.

    Source: RatingSystem.check (the rule), issue 19 (asking once per distinct pair).
    """
    if type(system).check is not RatingSystem.check:
        for row in _game_rows(columns):
            system.check(columns.game(row))
        for game in columns.teams:
            system.check(game)
        return
    for handicap in set(map(HANDICAP, columns.teams)):
        system.check(TeamGame(("a",), ("b",), 1.0, EPOCH, handicap))
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
    engine = ColumnEngine(system, birth_dates or {}, columns)
    engine.load_listed(players or {})
    return engine.run_columns()


class ColumnEngine(Engine):
    """The replay engine reading its steps from columns: runs of game rows go to the system as
    :class:`~ratings_core.rows.GameRows`, every other step through the engine's own rules
    (:meth:`Engine.apply_period`, :meth:`Engine.admit`, :meth:`Engine.stamp_last_played`, and
    the engine's runs of team games for consecutive team rows).

    Source: replay.py (the engine, whose rules it reuses), issue 19, issue 37.
    """

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
        #: the runs of team rows rated outside periods (their last_played is recorded)
        self.team_runs: list[tuple[int, int]] = []
        #: each name's id (made when a team row first needs it)
        self._name_ids: dict[str, int] | None = None

    def run_columns(self) -> ReplayResult:
        columns = self.columns
        self._refresh(range(len(self.slot)))
        position = 0
        row = 0
        for start, stop in columns.periods:
            position = self._rate_rows(row, start, position)
            self.apply_period(tuple(columns.event(r) for r in range(start, stop)), position)
            self._refresh(self._row_ids(start, stop))
            position += 1
            row = stop
        position = self._rate_rows(row, len(columns), position)
        self.stamp_last_played()  # runs of Games a system left it for (none by default)
        self._settle_last_played()
        return ReplayResult(Checkpoint(position, self.table.snapshot(), self.pool))

    def _rate_rows(self, start: int, stop: int, position: int) -> int:
        """Rows that are steps of their own: runs of games, runs of team games, membership
        events each a period of its own and seasons' starts (as ``Engine._apply``); returns the
        position after them."""
        columns = self.columns
        while start < stop:
            found = _OTHER_ROW.search(columns.kind, start, stop)
            end = stop if found is None else found.start()
            if end > start:
                self._rate_games(start, end, position)
                position += end - start
            if found is None:
                break
            if columns.kind[end] == TEAM:
                after = _NOT_TEAM_ROW.search(columns.kind, end, stop)
                start = stop if after is None else after.start()
                self._rate_teams(end, start, position)
                position += start - end
                continue
            if columns.kind[end] == SEASON:  # moves ratings, no one's place (issue 38)
                self.start_season(columns.seasons[columns.player_a[end]])
            else:
                self.apply_period((columns.event(end),), position)
                self._refresh((columns.player_a[end],))
            position += 1
            start = end + 1
        return position

    def _rate_games(self, start: int, stop: int, position: int) -> None:
        """A run of games, :data:`~ratings_core.rows.CHUNK` rows at a time as ``Engine.feed``
        hands a run of ``Game`` values to the system.

        The system turns the rows it gets into lists of Python objects (``GameRows.lists``,
        about 180 bytes a game): given a whole run at once, a history without membership rows
        (issue 41: a run as long as the file) held 180 MB of them for a million games. In
        chunks they are a chunk's, whatever the run's length, for the same numbers: each game
        is a period of its own, rated in order either way."""
        for lo in range(start, stop, CHUNK):
            hi = min(lo + CHUNK, stop)
            self._rate_chunk(lo, hi, position + lo - start)

    def _rate_chunk(self, start: int, stop: int, position: int) -> None:
        """Games of a run: admit newcomers and refuse retired players (as
        ``Engine._rate_run``), then let the system rate the rows."""
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

    def _rate_teams(self, start: int, stop: int, position: int) -> None:
        """A run of team rows: the engine's run of team games (``Engine._rate_team_run``:
        newcomers admitted, a retired member's game refused, the system's
        ``rate_team_sequence``), :data:`~ratings_core.rows.CHUNK` games at a time as
        ``Engine.feed`` hands them; then the newcomers' places taken (issue 37)."""
        teams, player_a = self.columns.teams, self.columns.player_a
        known = len(self.table)
        for lo in range(start, stop, CHUNK):
            hi = min(lo + CHUNK, stop)
            self._rate_team_run(list(map(teams.__getitem__, player_a[lo:hi])),
                                position + lo - start)
        if len(self.table) > known:
            self._refresh(map(self._ids().__getitem__, self.table.names[known:]))
        self.team_runs.append((start, stop))

    def _ids(self) -> dict[str, int]:
        """Each name's id."""
        if self._name_ids is None:
            self._name_ids = {name: i for i, name in enumerate(self.columns.names)}
        return self._name_ids

    def _row_ids(self, start: int, stop: int) -> set[int]:
        """The ids of the players the rows name (every member of a team row's sides)."""
        columns = self.columns
        if TEAM not in columns.kind[start:stop]:
            return set(columns.player_a[start:stop]) | set(columns.player_b[start:stop])
        named = self._ids()
        ids: set[int] = set()
        for row in range(start, stop):
            if columns.kind[row] == TEAM:
                game = columns.teams[columns.player_a[row]]
                ids.update(map(named.__getitem__, players_of(game)))
            else:
                ids.update((columns.player_a[row], columns.player_b[row]))
        return ids

    def _admit_rows(self, start: int, stop: int) -> None:
        """Each game's newcomers join together, when the game is played."""
        columns, slot, names = self.columns, self.slot, self.columns.names
        for row in range(start, stop):
            new = [i for i in (columns.player_a[row], columns.player_b[row]) if slot[i] < 0]
            if new:
                when = datetime_of(columns.moment[row])
                self.admit([(names[i], when, self.birth_dates.get(names[i])) for i in new])
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
        run out. When it is in a rating period or a team game (issue 37), its time is
        recorded already.
        """
        if not self.deferred:
            return
        columns = self.columns
        named = self._ids() if columns.teams else {}
        found: dict[int, int] = {}  # id -> row of their last game; -1: recorded already
        for start, stop, deferred in _stretches_back(self.deferred,
                                                     columns.periods + self.team_runs):
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
                    kind = columns.kind[row]
                    if kind == GAME:
                        found.setdefault(columns.player_a[row], -1)
                        found.setdefault(columns.player_b[row], -1)
                    elif kind == TEAM:
                        for name in players_of(columns.teams[columns.player_a[row]]):
                            found.setdefault(named[name], -1)
            if len(found) == len(self.table):
                break
        self.deferred.clear()
        last_moment, slot, moment = self.table.last_moment, self.slot, columns.moment
        for i, row in found.items():
            if row >= 0:
                last_moment[slot[i]] = moment[row]


#: rows read at once when looking for players' last games
_STRETCH = 1 << 15


def _stretches_back(deferred: list[tuple[int, int]], recorded: list[tuple[int, int]]
                    ) -> Iterator[tuple[int, int, bool]]:
    """The deferred runs and the recorded ones (periods, runs of team games) after the first
    of them, the last first, each cut into stretches, with whether it is a deferred run."""
    first = deferred[0][0]
    ranges = sorted([(start, stop, True) for start, stop in deferred]
                    + [(start, stop, False) for start, stop in recorded if start >= first])
    for start, stop, is_deferred in reversed(ranges):
        while stop > start:
            yield max(start, stop - _STRETCH), stop, is_deferred
            stop -= _STRETCH
