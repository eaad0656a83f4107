"""The rows a history holds, typed as the replay engine's (issue 37).

EVENTS.csv's readers give a :class:`~ratings_core.model.TeamGame` for a row of sides of two or
more members (:func:`~bot.history.cells.read_side`); the engine rates it as it rates any game,
so a row is an :data:`~ratings_core.model.Event` and a step a
:data:`~ratings_core.model.Step`.
"""

from __future__ import annotations

from collections.abc import Iterable

from ratings_core.model import Event, Match, RatingPeriod, Step, events_of, games_of

#: one row of EVENTS.csv: a membership event, a game of one against one, or of two sides
Row = Event
#: one step of a history: a row rated on its own, or a rating period of rows
HistoryStep = Step


def period(rows: Iterable[Row]) -> RatingPeriod:
    """The rows of a rating period (an event of the file) as one step; it may hold team
    games."""
    return RatingPeriod(tuple(rows))


def rows_of(step: HistoryStep) -> tuple[Row, ...]:
    """The rows a step is made of: a period's, or the step itself."""
    return events_of(step)


def games_in(step: HistoryStep) -> list[Match]:
    """The games of a step, of one against one or of sides, in order."""
    return games_of(step)


def engine_steps(steps: list[HistoryStep]) -> list[Step]:
    """A history's steps as the replay engine takes them: the same steps (team games too)."""
    return steps
