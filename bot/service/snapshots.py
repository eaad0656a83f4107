"""A club's folded state as bytes (table ``snapshots``): what a long club is read from, with the
events after it, instead of its whole log (issue 41).

Pickle, because the state is a graph of the service's own objects (games shared between the
club's and its ladders' tables, events between the log and the undoable actions) that pickle
keeps as it is, and because the bytes only ever come from this bot's own database (a SQLite file
readable by its owner alone, or the operator's PostgreSQL): whoever can write them can write the
log itself. A snapshot is derived data: one of another :data:`FORMAT`, or one that fails to
load, is ignored and the log read instead.

The log and the games are pickled apart, in slices of :data:`SLICE`, each by a pickler of its
own, and the rest of the state refers to them by id (pickle's persistent ids): pickling or
unpickling a slice is one call that holds the GIL, and between slices the event loop gets its
turn. A 100,000-game club pickled whole held the loop 0.27 s (reading) and 0.26 s (writing, as
one pickler's memo of millions of objects grew); in slices, 0.05 and 0.03 s.

The rating caches are left out: for a 100,000-game club pickled whole they made the snapshot
61 MB instead of 50 and its reading 2.4 s instead of 1.3, where replaying the ladder takes 0.5 s
(bench/cache.py's club; docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
import inspect
import io
import pickle
import typing
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from bot.storage.repository import StoredEvent

from . import events as ev
from .state import ClubState, GameRecord


def _package_version() -> str:
    try:
        return version("clubrating")
    except PackageNotFoundError:  # a checkout run without installing
        return "unknown"


def _shape() -> str:
    """A digest of the sources that define what a state holds: any change to them, even
    between two commits of one version, makes the snapshots of the code before unreadable
    here (a snapshot read by code whose classes changed could hold a state no fold makes)."""
    digest = hashlib.sha256()
    for source in (inspect.getfile(ClubState), inspect.getfile(ev), inspect.getfile(StoredEvent)):
        digest.update(Path(source).read_bytes())
    return digest.hexdigest()[:12]


PROTOCOL = pickle.HIGHEST_PROTOCOL
#: what a snapshot written by this code is: another one is never read
FORMAT = f"clubrating-{_package_version()}/state-{_shape()}/pickle-{PROTOCOL}"
#: events per slice pickled apart (see the module's docstring)
SLICE = 2000


class _StatePickler(pickle.Pickler):
    """The state with its events and games by id (they are pickled apart)."""

    def persistent_id(self, obj: object) -> tuple[str, int] | None:
        kind = type(obj)
        if kind is StoredEvent:
            return ("event", typing.cast(StoredEvent, obj).id)
        if kind is GameRecord:
            return ("game", typing.cast(GameRecord, obj).id)
        return None


class _StateUnpickler(pickle.Unpickler):
    def __init__(self, data: bytes, events: dict[int, StoredEvent],
                 games: dict[int, GameRecord]) -> None:
        super().__init__(io.BytesIO(data))
        self._events = events
        self._games = games

    def persistent_load(self, pid: tuple[str, int]) -> object:
        kind, key = pid
        return self._events[key] if kind == "event" else self._games[key]


def dumps(state: ClubState) -> bytes:
    """The state as bytes (in a worker thread: 100,000 games take about a second)."""
    games = list(state.games.values())
    events = [pickle.dumps(_columns(state.log[n:n + SLICE]), PROTOCOL)
              for n in range(0, len(state.log), SLICE)]
    records = [pickle.dumps(games[n:n + SLICE], PROTOCOL) for n in range(0, len(games), SLICE)]
    rest = io.BytesIO()
    _StatePickler(rest, PROTOCOL).dump(state)
    return pickle.dumps((events, records, rest.getvalue()), PROTOCOL)


def _columns(events: list[StoredEvent]) -> tuple[list[object], ...]:
    """The events' fields, column by column, in StoredEvent's order."""
    return ([e.id for e in events], [e.kind for e in events], [e.actor for e in events],
            [e.at for e in events], [e.data for e in events], [e.reason for e in events])


def loads(data: bytes) -> ClubState:
    """:func:`dumps`'s state again; raises whatever unpickling raised when it cannot."""
    event_slices, game_slices, rest = pickle.loads(data)
    events: dict[int, StoredEvent] = {}
    for part in event_slices:
        # made by their class's __init__: unpickled one by one, each frozen dataclass's
        # __setstate__ took a third of the time
        events.update((event.id, event) for event in map(StoredEvent, *pickle.loads(part)))
    games: dict[int, GameRecord] = {}
    for part in game_slices:
        games.update((game.id, game) for game in pickle.loads(part))
    state = _StateUnpickler(rest, events, games).load()
    if not isinstance(state, ClubState):
        raise TypeError(f"a snapshot holds a {type(state).__name__}, not a ClubState")
    return state
