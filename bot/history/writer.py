"""Replay steps written as EVENTS.csv text (`clubrating export`), which the readers turn back
into the same steps.

A player cell holds a side: its members' names, each ``&`` in a name doubled, joined by
``" & "`` (:func:`~bot.history.cells.side_cell`); a game of one against one has a name in each,
written as it always was unless the name holds ``&`` (issue 37). A season's start is a row of
kind ``season``: its reset in player_a, its factor in score_a (issue 38)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from bot.history.cells import EVENT_COLUMNS, member_cell, side_cell
from bot.history.steps import HistoryStep, Row, games_in, rows_of
from ratings_core.model import (
    COLOUR,
    Game,
    Join,
    RatingPeriod,
    Retire,
    SeasonStart,
    TeamGame,
)


def write_events(steps: Sequence[HistoryStep], names: Mapping[str, str],
                 labels: Sequence[str]) -> str:
    """Steps as EVENTS.csv text that ``read_events`` turns back into the same steps;
    ``names`` maps the steps' player keys to the names written. The ``colour`` column is
    written only when some game has one, the ``seconds`` column only when some game has a
    solving time (a puzzle ladder's attempts)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    coloured = any(g.first_move for step in steps for g in games_in(step))
    timed = any(isinstance(g, Game) and g.seconds is not None
                for step in steps for g in games_in(step))
    writer.writerow([*EVENT_COLUMNS, "handicap", "kind", *(["colour"] if coloured else []),
                     *(["seconds"] if timed else [])])

    def row(event: Row, label: str) -> list[str]:
        seconds = ""
        if isinstance(event, Game):
            cells = [event.played_at.isoformat(), label, member_cell(names[event.player_a]),
                     member_cell(names[event.player_b]), _exact(event.score_a),
                     _exact(event.handicap), "game"]
            colour = COLOUR[event.first_move] or ""
            seconds = "" if event.seconds is None else _exact(event.seconds)
        elif isinstance(event, TeamGame):
            cells = [event.played_at.isoformat(), label,
                     side_cell([names[key] for key in event.side_a]),
                     side_cell([names[key] for key in event.side_b]), _exact(event.score_a),
                     _exact(event.handicap), "game"]
            colour = COLOUR[event.first_move] or ""
        else:
            kind = "join" if isinstance(event, Join) else (
                "retire" if isinstance(event, Retire) else "return")
            cells = [event.played_at.isoformat(), label, member_cell(names[event.player]), "",
                     "", "", kind]
            colour = ""
        return [*cells, *([colour] if coloured else []), *([seconds] if timed else [])]

    def season(step: SeasonStart) -> list[str]:
        """A season's start (issue 38): its reset in player_a, its factor in score_a."""
        cells = [step.played_at.isoformat(), "", step.reset, "", _exact(float(step.factor)), "",
                 "season"]
        return [*cells, *([""] if coloured else []), *([""] if timed else [])]

    for step, label in zip(steps, labels, strict=True):
        if isinstance(step, RatingPeriod):
            for event in rows_of(step):
                writer.writerow(row(event, label))
        elif isinstance(step, SeasonStart):
            writer.writerow(season(step))
        else:
            writer.writerow(row(step, ""))
    return buffer.getvalue()


def _exact(value: float) -> str:
    """A number as text that reads back as the same float ("50", "0.5", "7.123456789")."""
    return str(int(value)) if value.is_integer() else repr(value)
