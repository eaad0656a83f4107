"""One cell of a history file (EVENTS.csv, PLAYERS.csv): the columns, the rules each cell's text
must keep and the value it stands for, and the errors that name the file, the row and the
column. Every reader of the files (the rows of :mod:`~bot.history.rows`, the columns of
:mod:`~bot.history.columns`, the players of :mod:`~bot.history.players`) reads a cell through
these, so all of them accept the same files with the same values."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, date, datetime

from bot.service.parsing import MAX_HANDICAP, MAX_SECONDS
from bot.service.team_rule import SIDE_JOINER
from ratings_core.model import (
    FIRST_MOVE,
    SEASON_RESETS,
)

EVENT_COLUMNS = ("played_at", "event", "player_a", "player_b", "score_a")
EVENT_OPTIONAL = ("handicap", "seconds", "kind", "colour")

PLAYER_COLUMNS = ("player", "rating")
PLAYER_OPTIONAL = ("games", "deviation", "volatility", "birth_date", "status")
#: ``season``: a new season starts, every rating reset (issue 38, :func:`read_reset`)
KINDS = ("game", "join", "retire", "return", "season")
#: longer names are refused: they would break every table and chat message showing them
MAX_NAME_LENGTH = 100


def where(file: str, row: int | None = None, column: str | None = None) -> str:
    """``EVENTS.csv row 12, column handicap``: the place a problem is reported at."""
    place = file if row is None else f"{file} row {row}"
    return place if column is None else f"{place}, column {column}"


class CsvError(ValueError):
    def __init__(self, file: str, row: int | None, problem: str,
                 column: str | None = None) -> None:
        super().__init__(f"{where(file, row, column)}: {problem}")
        self.file = file
        self.row = row
        self.column = column
        self.problem = problem


class CellError(ValueError):
    """What is wrong with one cell of a row: its column and the problem (``must be ...``)."""

    def __init__(self, column: str, problem: str) -> None:
        super().__init__(f"{column} {problem}")
        self.column = column
        self.problem = problem


def cell_error(message: str) -> CellError | None:
    """A rating system's refusal of a game (``handicap must be 0: ...``) as the cell it is
    about, when its message begins with a column's name."""
    column, _, problem = message.partition(" ")
    if column in EVENT_COLUMNS + EVENT_OPTIONAL and problem:
        return CellError(column, problem)
    return None


def read_time(text: str, column: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is not None:
            moment = moment.astimezone(UTC).replace(tzinfo=None)
    except ValueError:
        raise CellError(column, f"must be an ISO 8601 date or date-time, not {text!r}") from None
    except OverflowError:  # year 1 or 9999 moved to UTC
        raise CellError(column, f"is out of range, not {text!r}") from None
    # Any year is a date of a history (football's begins in 1872): `clubrating import` holds
    # a ladder's games to the chat's bounds itself (``importing.check_dates``).
    return moment


def read_date(text: str, column: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CellError(column, f"must be an ISO 8601 date (YYYY-MM-DD), not {text!r}") from None


def read_number(text: str, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CellError(column, f"must be a number, not {text!r}") from None
    if not math.isfinite(value):
        raise CellError(column, f"must be a finite number, not {text!r}")
    return value


#: what a spreadsheet takes a cell starting with for a formula (OWASP, "CSV Injection"), and
#: the quote that marks such a cell as text; a name starting with the quote gets one more, so
#: that reading takes exactly one off every name (issue 30)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")
TEXT_MARK = "'"


def name_cell(name: str) -> str:
    """A name as its cell is written (player_a, player_b, player): with one more leading
    ``'`` when it starts with a character a spreadsheet would run as a formula, or with ``'``
    itself. :func:`read_name` reads it back as the name."""
    return TEXT_MARK + name if name.startswith(FORMULA_STARTS) else name


def read_name(text: str, column: str) -> str:
    """A name cell as the name (every reader of the history files goes through here, so that
    import and replay read names alike): exactly one leading ``'`` taken off
    (:func:`name_cell`)."""
    return _one_name(text.removeprefix(TEXT_MARK), column)


def _one_name(text: str, column: str) -> str:
    if not text:
        raise CellError(column, "is empty")
    if len(text) > MAX_NAME_LENGTH:
        raise CellError(column, f"is longer than {MAX_NAME_LENGTH} characters")
    return text


# -- a side of a game in one cell (issue 37) ------------------------------------------------
#
# EVENTS.csv's player_a and player_b cells each hold a side: its members' names joined by
# " & ". Inside a name a literal "&" is written "&&" (members registered before names with "&"
# were refused keep theirs), so a lone "&" only ever joins two names. A cell of one name is a
# game of one against one, as it always was; a name without "&" is written as it always was.

#: what joins the members of a side in a player cell (as chat shows a side)
SIDE_JOIN = SIDE_JOINER
AMPERSAND = "&"
#: a literal ``&`` inside a name, as a player cell writes it
LITERAL_AMPERSAND = "&&"


def member_cell(name: str) -> str:
    """One member's name as its player cell is written: every ``&`` doubled, then marked
    against spreadsheets' formulas (:func:`name_cell`)."""
    return name_cell(name.replace(AMPERSAND, LITERAL_AMPERSAND))


def side_cell(names: Sequence[str]) -> str:
    """A side as its player cell is written: each name with every ``&`` doubled, joined by
    ``" & "``, the cell marked against formulas (:func:`name_cell`). A side of one is
    :func:`member_cell`. :func:`read_side` reads it back as the names."""
    return name_cell(SIDE_JOIN.join(name.replace(AMPERSAND, LITERAL_AMPERSAND)
                                    for name in names))


def read_side(text: str, column: str) -> tuple[str, ...]:
    """A player cell as the names of its side, in order: the cell's one leading ``'`` taken
    off (:func:`name_cell`), then cut at every ``&`` that is not half of ``&&`` (``&&`` is
    a literal ``&`` of a name), each name of two or more trimmed of the spaces around the
    ``&``. Every name is one :func:`read_name` accepts (not empty, at most
    :data:`MAX_NAME_LENGTH` characters: the limit is each name's, not the cell's). A cell
    without ``&`` is :func:`read_name`'s one name, exactly."""
    if AMPERSAND not in text:
        return (read_name(text, column),)
    text = text.removeprefix(TEXT_MARK)
    # without a literal "&" every "&" joins two names: a split in C (the common cell)
    names = split_side(text) if LITERAL_AMPERSAND in text else text.split(AMPERSAND)
    if len(names) == 1:
        return (_one_name(names[0], column),)
    names = [name.strip() for name in names]
    for name in names:
        if not name:
            raise CellError(column, f"has an empty name in {text!r}: a side's names are "
                                    f"joined by {SIDE_JOIN!r} (a & inside a name is "
                                    f"written &&)")
        if len(name) > MAX_NAME_LENGTH:
            raise CellError(column, f"has a name longer than {MAX_NAME_LENGTH} characters "
                                    f"({name[:20]!r}...)")
    return tuple(names)


def split_side(text: str) -> list[str]:
    """``text`` cut at every lone ``&``, each ``&&`` read as one ``&`` (scanning from the
    left: ``a &&& b`` is ``a &`` and `` b``); the pieces untrimmed."""
    names: list[str] = []
    name: list[str] = []
    start = 0
    at = text.find(AMPERSAND)
    while at >= 0:
        if text.startswith(LITERAL_AMPERSAND, at):
            name.append(text[start:at + 1])
            start = at + 2
        else:
            name.append(text[start:at])
            names.append("".join(name))
            name = []
            start = at + 1
        at = text.find(AMPERSAND, start)
    name.append(text[start:])
    names.append("".join(name))
    return names


def read_score(text: str) -> float:
    score = read_number(text, "score_a") if text else math.nan
    if score not in (0.0, 0.5, 1.0):
        raise CellError("score_a", f"must be 1, 0.5 or 0, not {text!r}")
    return score


def read_handicap(text: str) -> float:
    handicap = read_number(text, "handicap") if text else 0.0
    if abs(handicap) > MAX_HANDICAP:
        raise CellError("handicap", f"must be from {-MAX_HANDICAP:g} to {MAX_HANDICAP:g} (in "
                                    f"the system's unit), not {text!r}")
    return handicap


def read_seconds(text: str) -> float | None:
    seconds = read_number(text, "seconds") if text else None
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise CellError("seconds", f"must be above 0 and at most {MAX_SECONDS:g}, "
                                   f"not {text!r}")
    return seconds


def read_colour(text: str) -> int:
    colour = text.strip().casefold() or None
    if colour not in FIRST_MOVE:
        raise CellError("colour", f"must be white, black or empty, not {text!r}")
    return FIRST_MOVE[colour]


# -- a season's start (issue 38) -------------------------------------------------------------
#
# A row of kind "season" is a boundary whose reset changes ratings: played_at its time,
# player_a the reset (soft or hard), score_a the soft reset's factor (written for a hard one
# too, as its boundary carried it), every other cell empty, in no event.


def read_reset(text: str) -> str:
    """A season row's player_a: the reset, ``soft`` or ``hard`` (a ``none`` boundary changes
    no rating and has no row)."""
    if text not in SEASON_RESETS:
        raise CellError("player_a", f"must be the season's reset, soft or hard, not {text!r}")
    return text


def read_factor(text: str) -> float:
    """A season row's score_a: the soft reset's factor, a number from 0 to 1."""
    factor = read_number(text, "score_a") if text else math.nan
    if not 0.0 <= factor <= 1.0:
        raise CellError("score_a", f"must be the season's factor, a number from 0 to 1, "
                                   f"not {text!r}")
    return factor
