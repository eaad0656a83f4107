"""Replay steps written as EVENTS.csv text (`clubrating export`), which the readers turn back
into the same steps."""

from __future__ import annotations

import csv
import io

from bot.history.cells import EVENT_COLUMNS, name_cell
from ratings_core.model import (
    COLOUR,
    Event,
    Game,
    Join,
    RatingPeriod,
    Retire,
    Step,
    games_of,
)


def write_events(steps: list[Step], names: dict[str, str], labels: list[str]) -> str:
    """Steps as EVENTS.csv text that ``read_events`` turns back into the same steps;
    ``names`` maps the steps' player keys to the names written. The ``colour`` column is
    written only when some game has one, the ``seconds`` column only when some game has a
    solving time (a puzzle ladder's attempts)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    coloured = any(g.first_move for step in steps for g in games_of(step))
    timed = any(g.seconds is not None for step in steps for g in games_of(step))
    writer.writerow([*EVENT_COLUMNS, "handicap", "kind", *(["colour"] if coloured else []),
                     *(["seconds"] if timed else [])])

    def row(event: Event, label: str) -> list[str]:
        if isinstance(event, Game):
            cells = [event.played_at.isoformat(), label, name_cell(names[event.player_a]),
                     name_cell(names[event.player_b]), _exact(event.score_a),
                     _exact(event.handicap), "game"]
            colour = COLOUR[event.first_move] or ""
            seconds = "" if event.seconds is None else _exact(event.seconds)
        else:
            kind = "join" if isinstance(event, Join) else (
                "retire" if isinstance(event, Retire) else "return")
            cells = [event.played_at.isoformat(), label, name_cell(names[event.player]), "", "",
                     "", kind]
            colour = seconds = ""
        return [*cells, *([colour] if coloured else []), *([seconds] if timed else [])]

    for step, label in zip(steps, labels, strict=True):
        if isinstance(step, RatingPeriod):
            for event in step.events:
                writer.writerow(row(event, label))
        else:
            writer.writerow(row(step, ""))
    return buffer.getvalue()


def _exact(value: float) -> str:
    """A number as text that reads back as the same float ("50", "0.5", "7.123456789")."""
    return str(int(value)) if value.is_integer() else repr(value)
