"""A club's folded state as bytes (table ``snapshots``): what a long club is read from, with the
events after it, instead of its whole log (issue 41).

Pickle, because the state is a graph of the service's own objects (games shared between the
club's and its ladders' tables, events between the log and the undoable actions) that pickle
keeps as it is, and because the bytes only ever come from this bot's own database (a SQLite file
readable by its owner alone, or the operator's PostgreSQL): whoever can write them can write the
log itself. A snapshot is derived data: one of another :data:`FORMAT`, or one that fails to
load, is ignored and the log read instead.

The log and the games are pickled first, in slices, by one pickler (its memo spans the slices,
so the state pickled last refers to them): unpickling a slice is one call that holds the GIL,
and between slices the event loop gets its turn (a 100,000-game club in one call held it
0.27 s; in slices of 2,000, under 0.07 s).

The rating caches are left out: for a 100,000-game club they made the snapshot 61 MB instead
of 50 and its reading 2.4 s instead of 1.3, where replaying the ladder takes 0.6 s (measured
with bench/cache.py's club; docs/benchmarks.md).
"""

from __future__ import annotations

import io
import pickle
from importlib.metadata import PackageNotFoundError, version

from .state import ClubState

#: bump whenever ClubState's shape (or what its objects hold) changes without a new release
SHAPE = 1


def _package_version() -> str:
    try:
        return version("clubrating")
    except PackageNotFoundError:  # a checkout run without installing: no snapshot is reused
        return "unknown"


#: what a snapshot written by this code is: another one is never read
FORMAT = f"clubrating-{_package_version()}/state-{SHAPE}/pickle-{pickle.HIGHEST_PROTOCOL}"
#: events per slice pickled apart (see the module's docstring)
SLICE = 2000


def dumps(state: ClubState) -> bytes:
    """The state as bytes (in a worker thread: 100,000 games take about 1.5 s)."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
    games = list(state.games.values())
    slices: list[list[object]] = [
        list(state.log[n:n + SLICE]) for n in range(0, len(state.log), SLICE)]
    slices += [list(games[n:n + SLICE]) for n in range(0, len(games), SLICE)]
    pickler.dump(len(slices))
    for part in slices:
        pickler.dump(part)
    pickler.dump(state)
    return out.getvalue()


def loads(data: bytes) -> ClubState:
    """:func:`dumps`'s state again; raises whatever unpickling raised when it cannot."""
    unpickler = pickle.Unpickler(io.BytesIO(data))
    for _ in range(unpickler.load()):
        unpickler.load()
    state = unpickler.load()
    if not isinstance(state, ClubState):
        raise TypeError(f"a snapshot holds a {type(state).__name__}, not a ClubState")
    return state
