"""The rows a history holds while team games are not yet the replay engine's events (issue 37).

EVENTS.csv's readers give a :class:`~ratings_core.model.TeamGame` for a row of sides of two or
more members (:func:`~bot.history.cells.read_side`). The engine's types (``Event``, ``Step``,
``RatingPeriod``) hold no ``TeamGame`` yet: the change that teaches the engine to rate one adds
it to ``Event``. Until then the history files type their rows here. Once ``Event`` holds
``TeamGame``, :data:`Row` is ``Event``, :data:`HistoryStep` is ``Step``, and the casts of
:func:`period` and :func:`engine_steps` are no longer needed (mypy says so: they are
redundant then).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from ratings_core.model import Event, Game, RatingPeriod, Step, TeamGame

#: one row of EVENTS.csv: a membership event, a game of one against one, or of two sides
Row = Event | TeamGame
#: one step of a history: a row rated on its own, or a rating period of rows
HistoryStep = Step | TeamGame


def period(rows: Iterable[Row]) -> RatingPeriod:
    """The rows of a rating period (an event of the file) as one step; it may hold team
    games (the engine refuses a period holding one until it rates them)."""
    return RatingPeriod(cast("tuple[Event, ...]", tuple(rows)))


def rows_of(step: HistoryStep) -> tuple[Row, ...]:
    """The rows a step is made of: a period's, or the step itself (``events_of`` of the
    engine, for steps that may be team games)."""
    return step.events if isinstance(step, RatingPeriod) else (step,)


def games_in(step: HistoryStep) -> list[Game | TeamGame]:
    """The games of a step, of one against one or of sides, in order."""
    return [row for row in rows_of(step) if isinstance(row, Game | TeamGame)]


def engine_steps(steps: list[HistoryStep]) -> list[Step]:
    """A history's steps as the replay engine takes them. A team game is no ``Step`` of the
    engine yet: it refuses one with a ``ReplayError`` naming its position (which the callers
    turn into the file's row) until it rates team games, and rates them from then on."""
    return cast("list[Step]", steps)
