"""The deterministic replay: fold a history of steps into every player's state.

One engine serves every rating system. It keeps membership (who is active, who is new), the
starting pool of SPEC 3.7 and checkpoints; the system only rates games. Runs of games that are
periods of their own are handed to the system in chunks, so that a system can rate them in one
tight loop.

A checkpoint is the complete state after a number of steps; ``replay(..., start=checkpoint)``
continues from it with the remaining steps and gives the same result as a replay from the
beginning. That is how a correction of an early game re-rates everything after it.

The engine is public (:class:`Engine`) so that another reading of a history can extend it with
the same rules: the columnar replay of :mod:`ratings_core.columns` does.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from itertools import chain, compress, count, repeat
from operator import add, is_not
from types import MappingProxyType
from typing import cast

from . import pool as starting_pool
from .model import (
    PLAYER_A,
    PLAYER_B,
    SIDE_A,
    SIDE_B,
    Event,
    Game,
    Join,
    Match,
    PlayerState,
    Retire,
    Return,
    SeasonStart,
    Status,
    Step,
    TeamGame,
    events_of,
    players_of,
)
from .rows import CHUNK
from .system import GameRun, RatingSystem, TeamRun
from .table import LeagueSums, Table, TableSnapshot


class ReplayError(ValueError):
    """A step that cannot apply (e.g. a retired player plays); names the step and event."""

    def __init__(self, message: str, position: int, event_index: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.event_index = event_index


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Everything needed to continue a replay after ``position`` steps."""

    position: int
    table: TableSnapshot
    pool: float

    @property
    def players(self) -> Mapping[str, PlayerState]:
        """Every player's state (built on each access: keep the mapping if you need it twice)."""
        return MappingProxyType(self.table.states())

    def state(self, player: str) -> PlayerState | None:
        """One player's state, or ``None`` for a player the history has not met."""
        return self.table.state(player)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """The state after the last step (``final``, a checkpoint to continue from) and the
    checkpoints taken on the way."""

    final: Checkpoint
    checkpoints: tuple[Checkpoint, ...] = field(default=())

    @property
    def players(self) -> Mapping[str, PlayerState]:
        return self.final.players

    @property
    def pool(self) -> float:
        return self.final.pool

    @property
    def position(self) -> int:
        return self.final.position

    @property
    def league(self) -> LeagueSums:
        return LeagueSums(*self.final.table.league)


def replay(
    system: RatingSystem,
    steps: Iterable[Step],
    *,
    players: Mapping[str, PlayerState] | None = None,
    birth_dates: Mapping[str, date] | None = None,
    start: Checkpoint | None = None,
    checkpoint_every: int | None = None,
) -> ReplayResult:
    """Apply ``steps`` in order and return every player's final state.

    ``players`` are the states before the first step (ignored when ``start`` is given); their
    retired members' deficits form the initial pool of a pooled system. ``birth_dates`` give
    newcomers' dates of birth for age-dependent starting ratings. With ``checkpoint_every=n`` a
    checkpoint is taken after every n-th step.
    """
    if checkpoint_every is not None and checkpoint_every <= 0:
        raise ValueError(f"checkpoint_every must be positive, not {checkpoint_every}")
    engine = Engine(system, birth_dates or {})
    if start is not None:
        engine.table = Table.restore(start.table)
        engine.pool = start.pool
        position = start.position
    else:
        engine.load_listed(players or {})
        position = 0
    return engine.run(steps, position, checkpoint_every)


class OpenReplay:
    """A replay kept open: steps applied one at a time, every player's state readable between
    them without a checkpoint (a copy of the whole table) after each (``evaluation`` predicts
    each step from the state before it)."""

    def __init__(self, system: RatingSystem) -> None:
        self._engine = Engine(system, {})
        self.position = 0

    def apply(self, step: Step) -> None:
        self.position = self._engine.feed((step,), self.position, None, [])

    def state(self, player: str) -> PlayerState | None:
        table = self._engine.table
        i = table.index.get(player)
        return None if i is None else table.at(i)

    def as_rated(self, state: PlayerState) -> PlayerState:
        """``state`` as the system would rate it in this league now
        (:meth:`RatingSystem.as_rated`)."""
        return self._engine.system.as_rated(self._engine.table.league, state)


class Engine:
    """The fold itself: one ``system``'s table of players and starting pool, changed step by
    step. :func:`replay` and :class:`OpenReplay` drive it with steps (:meth:`feed`).

    Another way of reading a history extends it (the columnar replay,
    :class:`ratings_core.columns.ColumnEngine`): it may hand the system runs of games its own
    way and, for everything else, call the engine's rules: :meth:`apply_period` (a step's
    events: joins, retirements, returns and a period's games), :meth:`admit` (newcomers who
    join together) and :meth:`stamp_last_played` (the times that systems left to the engine).
    Those rules are the engine's alone: a subclass that keeps to them gives the numbers a
    replay of the same steps gives.

    Source: SPEC 3.7 (the starting pool); issue 19 (runs of games, the columnar replay).
    """

    def __init__(self, system: RatingSystem, birth_dates: Mapping[str, date]) -> None:
        #: the rating system whose rules rate the games
        self.system = system
        #: newcomers' dates of birth, for age-dependent starting ratings
        self.birth_dates = birth_dates
        #: every player's state so far
        self.table = Table()
        #: the retirees' pool that newcomers share (SPEC 3.7), 0 for a system without one
        self.pool = 0.0
        #: runs whose system left last_played to the engine (GameRun.defer_last_played)
        self.unstamped: list[Sequence[Match]] = []

    # -- state in and out -------------------------------------------------------------------

    def load_listed(self, players: Mapping[str, PlayerState]) -> None:
        """Start from ``players``' states; retired ones put their deficits in the pool."""
        rule = self.system.pool
        for name, state in players.items():
            self.table.add(name, self.system.adopt(state))
            if rule is not None and state.status == Status.RETIRED:
                self.pool = starting_pool.retire(self.pool, state.rating, rule.base)

    # -- the fold ---------------------------------------------------------------------------

    def run(
        self, steps: Iterable[Step], position: int, checkpoint_every: int | None
    ) -> ReplayResult:
        """Apply ``steps`` from ``position`` on: the final state and the checkpoints taken."""
        checkpoints: list[Checkpoint] = []
        position = self.feed(steps, position, checkpoint_every, checkpoints)
        final = Checkpoint(position, self.table.snapshot(), self.pool)
        return ReplayResult(final, tuple(checkpoints))

    def feed(self, steps: Iterable[Step], position: int, checkpoint_every: int | None,
             checkpoints: list[Checkpoint]) -> int:
        """Apply ``steps`` from ``position`` on, taking checkpoints; the position after them.

        Games between other steps go to the system in runs of at most :data:`CHUNK`, cut where
        a checkpoint falls; the other steps are found all at once (``map`` over the steps' types
        runs in C), not by looking at every step in Python. Consecutive team games, each a step
        of its own, go to the system in runs the same way (issue 37).
        """
        steps = steps if isinstance(steps, Sequence) else list(steps)
        others = [*compress(count(), map(is_not, map(type, steps), repeat(Game))), len(steps)]
        #: the steps that are no team game, found when the first team game is met
        non_teams: list[int] | None = None
        i = 0
        n = 0
        while n < len(others):
            other = others[n]
            while i < other:  # the games steps[i:other]
                stop = self._cut(i, other, position, checkpoint_every)
                self._rate_run(cast("Sequence[Game]", steps[i:stop]), position)
                position += stop - i
                i = stop
                self._checkpoint(position, checkpoint_every, checkpoints)
            if i == len(steps):
                break
            if type(steps[i]) is TeamGame:  # a run of team games, steps[i:end]
                if non_teams is None:
                    non_teams = [*compress(count(), map(is_not, map(type, steps),
                                                        repeat(TeamGame))), len(steps)]
                end = non_teams[bisect_right(non_teams, i)]
                while i < end:
                    stop = self._cut(i, end, position, checkpoint_every)
                    self._rate_team_run(cast("Sequence[TeamGame]", steps[i:stop]), position)
                    position += stop - i
                    i = stop
                    self._checkpoint(position, checkpoint_every, checkpoints)
                n = bisect_left(others, end, n)
                continue
            self._apply(steps[i], position)  # the other step itself
            position += 1
            i += 1
            n += 1
            self._checkpoint(position, checkpoint_every, checkpoints)
        self.stamp_last_played()
        return position

    @staticmethod
    def _cut(i: int, end: int, position: int, checkpoint_every: int | None) -> int:
        """Where a run that starts at step ``i`` (the ``position``-th) and may go on to
        ``end`` stops: after at most :data:`CHUNK` steps, and where a checkpoint falls."""
        stop = min(end, i + CHUNK)
        if checkpoint_every is not None:
            stop = min(stop, i + checkpoint_every - position % checkpoint_every)
        return stop

    def stamp_last_played(self) -> None:
        """Record last_played for the runs whose system left it (GameRun.defer_last_played)."""
        if self.unstamped:
            runs, self.unstamped = self.unstamped, []
            if len(runs) > 1 and any(type(run) is TeamRun for run in runs):
                for run in runs:  # in order: a later run's time is the last
                    self.table.stamp_last_played(run)
                return
            self.table.stamp_last_played(runs[0] if len(runs) == 1
                                         else list(chain.from_iterable(runs)))

    def _checkpoint(self, position: int, every: int | None, checkpoints: list[Checkpoint]
                    ) -> None:
        if every is not None and position % every == 0:
            self.stamp_last_played()
            checkpoints.append(Checkpoint(position, self.table.snapshot(), self.pool))

    def _apply(self, step: Step, position: int) -> None:
        """A membership event is a period of its own; games arrive through runs."""
        if type(step) is SeasonStart:
            self.start_season(step)
            return
        self.apply_period(events_of(step), position)

    def start_season(self, step: SeasonStart) -> None:
        """Reset every active player's rating, games, deviation and volatility by the system's
        rule (:meth:`RatingSystem.season_start`), in table order; the league's sums, where the
        system keeps them, are summed again (a player whom a hard reset leaves without games
        leaves them, as a newcomer is not in them).

        Rule, in our words: a boundary moves ratings, nothing else. Choice (issue 38 decides
        none of these): a retired player is left as they were, so the deficit their
        retirement put in the starting pool (SPEC 3.7) is the one their return takes back;
        the pool itself is unchanged, since nobody joins or leaves; the peak, the best rating
        ever reached, stays, or becomes the reset rating where that is higher (a season's own
        peak is the bot's, from the season's steps); an
        event-rated system (``fqe``, ``rs-go``) resets between its events, as every other.

        Source: issue 38 (seasons) and its errata.
        """
        self.stamp_last_played()  # the system may read it, and the table's times stay whole
        table = self.table
        system = self.system
        for i in range(len(table)):
            if not table.active[i]:
                continue
            after = system.season_start(table.at(i), step.reset, step.factor, step.played_at)
            rating = float(after.rating)
            table.rating[i] = rating
            table.games[i] = after.games
            table.deviation[i] = after.deviation
            table.volatility[i] = after.volatility
            table.peak[i] = max(table.peak[i], rating)
        if system.keeps_league_sums:  # summed again: exact, whoever a hard reset took out
            league = LeagueSums()
            for rating, games in zip(table.rating, table.games, strict=True):
                if games > 0:
                    league.players += 1
                    league.total += rating
                    league.squares += rating * rating
            table.league = league

    def _rate_run(self, games: Sequence[Game], first_position: int) -> None:
        """Admit newcomers and check every game of a run, then let the system rate it."""
        index = self.table.index
        active = self.table.active
        named = set(map(PLAYER_A, games))
        named.update(map(PLAYER_B, games))
        if not (named <= index.keys() and all(map(active.__getitem__,
                                                  map(index.__getitem__, named)))):
            self._admit_and_check(games, first_position)
        self.system.rate_sequence(self.table, GameRun(games, self.unstamped))

    def _admit_and_check(self, games: Sequence[Game], first_position: int) -> None:
        """Newcomers join when their first game is played; a retired player's game is refused."""
        index = self.table.index
        active = self.table.active
        for offset, game in enumerate(games):
            a = index.get(game.player_a)
            b = index.get(game.player_b)
            if a is None or b is None:
                names = [n for n in (game.player_a, game.player_b) if n not in index]
                self.admit([(n, game.played_at, self.birth_dates.get(n)) for n in names])
                a = index[game.player_a]
                b = index[game.player_b]
            if not (active[a] and active[b]):
                retired = game.player_a if not active[a] else game.player_b
                raise ReplayError(
                    f"player {retired!r} is retired; a 'return' must come before their games",
                    first_position + offset,
                )

    def _rate_team_run(self, games: Sequence[TeamGame], first_position: int) -> None:
        """A run of team games, each a period of its own: every member's newcomers admitted
        (those of one game together, sharing the pool as a period's newcomers do), a retired
        member's game refused, then the system rates the run (issue 37)."""
        index = self.table.index
        active = self.table.active
        everyone = list(chain.from_iterable(map(add, map(SIDE_A, games), map(SIDE_B, games))))
        try:
            members = list(map(index.__getitem__, everyone))
            slow = not all(active) and not all(map(active.__getitem__, members))
        except KeyError:  # newcomers
            slow = True
        if slow:  # newcomers to admit, or a retired player among the members
            for offset, game in enumerate(games):
                names = players_of(game)
                new = [name for name in names if name not in index]
                if new:
                    self.admit([(name, game.played_at, self.birth_dates.get(name))
                                for name in new])
                for name in names:
                    if not active[index[name]]:
                        raise ReplayError(f"player {name!r} is retired; a 'return' must come "
                                          "before their games", first_position + offset)
            members = list(map(index.__getitem__, everyone))
        self.stamp_last_played()  # the system may read it (as a period's games do)
        self.system.rate_team_sequence(self.table, TeamRun(games, self.unstamped, members))

    def apply_period(self, events: Sequence[Event], position: int) -> None:
        """The events of the step at ``position`` as one rating period: retirements and
        returns, then joins and the games' newcomers admitted together, then the games rated
        together by the system. Raises :class:`ReplayError` (naming the step and event) for
        an event that cannot apply."""
        table = self.table
        joins: list[tuple[str, datetime, date | None]] = []
        #: the ratings some joiners bring (rated problems), by name
        known: dict[str, float] = {}
        games: list[tuple[int, Match]] = []
        for k, event in enumerate(events):
            if isinstance(event, Retire | Return):
                self._membership(event, position, k)
            elif isinstance(event, Join):
                if event.player in table.index or any(j[0] == event.player for j in joins):
                    raise ReplayError(f"player {event.player!r} has already joined", position, k)
                birth = event.birth_date or self.birth_dates.get(event.player)
                joins.append((event.player, event.played_at, birth))
                if event.rating is not None:
                    known[event.player] = event.rating
            elif isinstance(event, Game | TeamGame):
                games.append((k, event))
            else:
                raise ReplayError(f"a rating period cannot contain {event!r}", position, k)
        newcomers = list(joins)
        seen = {j[0] for j in joins}
        for _, game in games:
            for name in players_of(game):
                if name not in table.index and name not in seen:
                    seen.add(name)
                    newcomers.append((name, game.played_at, self.birth_dates.get(name)))
        self.admit(newcomers, known)
        for k, game in games:
            for name in players_of(game):
                if not table.active[table.index[name]]:
                    raise ReplayError(
                        f"player {name!r} is retired; a 'return' must come before their games",
                        position,
                        k,
                    )
        if games:
            self.stamp_last_played()  # the period may read and record it
            when = max(event.played_at for event in events)
            self.system.rate_period(table, [g for _, g in games], when)

    def _membership(self, event: Retire | Return, position: int, k: int) -> None:
        table = self.table
        i = table.index.get(event.player)
        if i is None:
            raise ReplayError(f"player {event.player!r} is not a member", position, k)
        rule = self.system.pool
        if isinstance(event, Retire):
            if not table.active[i]:
                raise ReplayError(f"player {event.player!r} is already retired", position, k)
            table.active[i] = False
            if rule is not None:
                self.pool = starting_pool.retire(self.pool, table.rating[i], rule.base)
        else:
            if table.active[i]:
                raise ReplayError(f"player {event.player!r} is not retired", position, k)
            table.active[i] = True
            if rule is not None:
                self.pool = starting_pool.come_back(self.pool, table.rating[i], rule.base)

    def admit(self, newcomers: Sequence[tuple[str, datetime, date | None]],
               known: Mapping[str, float] | None = None) -> None:
        """Give newcomers who join together their starting states and their share of the pool;
        one who joins with a ``known`` rating starts from it (its peak too, where the system
        keeps one), the rest of their state as the system gives a newcomer."""
        if not newcomers:
            return
        share, self.pool = self._share(len(newcomers))
        for name, when, birth in newcomers:
            state = self.system.newcomer(when, birth, share)
            if known and name in known:
                rating = known[name]
                state = replace(state, rating=rating,
                                peak=None if state.peak is None else rating)
            self.table.add(name, state)

    def _share(self, count: int) -> tuple[float, float]:
        """Each of ``count`` newcomers' share of the starting pool, and the pool left after
        them (SPEC 3.7); no share and the pool as it is for a system without one."""
        rule = self.system.pool
        if rule is None:
            return 0.0, self.pool
        return starting_pool.share(self.pool, count, rule.cap)

    def starting_ratings(self, step: Step) -> dict[str, float]:
        """The ratings the players ``step`` brings in will start with, before it is applied
        (a season's table starts a newcomer there; issue 38). The rule is :meth:`admit`'s as
        the step applies it: those who join in one step join together, sharing the pool,
        explicit joins first, then each game's players met for the first time; one who joins
        with a known rating starts from it. Nothing changes."""
        index = self.table.index
        joining: dict[str, tuple[datetime, date | None, float | None]] = {}
        events = events_of(step)
        for event in events:
            if isinstance(event, Join) and event.player not in index:
                joining.setdefault(event.player, (
                    event.played_at, event.birth_date or self.birth_dates.get(event.player),
                    event.rating))
        for event in events:
            if isinstance(event, Game | TeamGame):
                for name in players_of(event):
                    if name not in index:
                        joining.setdefault(name, (event.played_at, self.birth_dates.get(name),
                                                  None))
        if not joining:
            return {}
        share, _ = self._share(len(joining))
        return {name: rating if rating is not None
                else self.system.newcomer(when, birth, share).rating
                for name, (when, birth, rating) in joining.items()}
