"""PROBLEMS.csv: a puzzle ladder's problems (``clubrating puzzles import`` and ``export``).

Columns ``id``, ``prompt``, ``answers`` (the accepted answers, separated by ``|``), and the
optional ``image`` (a picture file's path, relative to the CSV file's folder) and ``rating``
(the problem's starting rating; empty: the system's). Rows are read as text: whether a problem
is one the ladder takes is the service's to say (:func:`bot.service.puzzles.checked`), which
names the row.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.history.cells import TEXT_MARK, CsvError, name_cell
from bot.history.csvfile import records

PROBLEM_COLUMNS = ("id", "prompt", "answers")
PROBLEM_OPTIONAL = ("image", "rating")
#: between two accepted answers in the ``answers`` column
SEPARATOR = "|"


@dataclass(frozen=True, slots=True)
class ProblemRow:
    """One row: ``row`` its number in the file (1 is the first after the header), ``image``
    the picture's path (resolved against the file's folder), or None."""

    row: int
    id: str
    prompt: str
    answers: list[str]
    image: Path | None
    rating: str | None


def read_problems(path: Path) -> list[ProblemRow]:
    rows = []
    for row, values in records(path, PROBLEM_COLUMNS, PROBLEM_OPTIONAL):
        image = values.get("image") or None
        # each text cell as its writer marked it against spreadsheets' formulas (name_cell)
        rows.append(ProblemRow(
            row, values["id"].removeprefix(TEXT_MARK), values["prompt"].removeprefix(TEXT_MARK),
            values["answers"].removeprefix(TEXT_MARK).split(SEPARATOR),
            None if image is None else path.parent / image,
            values.get("rating") or None))
    if not rows:
        raise CsvError(path.name, None, "the file holds no problem")
    return rows


def write_problems(rows: Sequence[ProblemRow]) -> str:
    """The rows as PROBLEMS.csv text that :func:`read_problems` reads back (images by their
    paths as given)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*PROBLEM_COLUMNS, *PROBLEM_OPTIONAL])
    for row in rows:
        writer.writerow([name_cell(row.id), name_cell(row.prompt),
                         name_cell(SEPARATOR.join(row.answers)),
                         "" if row.image is None else str(row.image), row.rating or ""])
    return buffer.getvalue()


def write_players(ratings: dict[str, float]) -> str:
    """PLAYERS.csv with each player's starting rating (a puzzle ladder's problems)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["player", "rating"])
    for name, rating in ratings.items():
        writer.writerow([name_cell(name), str(int(rating)) if rating.is_integer()
                         else repr(rating)])
    return buffer.getvalue()
