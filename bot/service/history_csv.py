"""Reading a club's history from CSV: EVENTS.csv (the games and membership events, in order)
and PLAYERS.csv (everyone's state before the first event).

The formats are a contract shared with ``clubrating replay``, the import/export of the bot and
users' own scripts; see README, section "History files". Every problem is reported as one
:class:`CsvError` naming the file, the row, the column where one cell is wrong, and what is
wrong: ``EVENTS.csv row 12, column handicap: must be from -1000 to 1000 ...``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import operator
import re
import struct
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from itertools import chain, compress, islice
from pathlib import Path
from typing import TextIO, TypeVar

from bot.service import collector
from bot.service.parsing import MAX_HANDICAP, MAX_SECONDS
from ratings_core.columns import (
    GAME,
    JOIN,
    RETIRE,
    RETURN,
    ColumnsBuilder,
    EventColumns,
)
from ratings_core.model import (
    COLOUR,
    FIRST_MOVE,
    Event,
    Game,
    Join,
    PlayerState,
    RatingPeriod,
    Retire,
    Return,
    Status,
    Step,
    events_of,
    games_of,
)
from ratings_core.table import moment_of, moments_of

EVENT_COLUMNS = ("played_at", "event", "player_a", "player_b", "score_a")
EVENT_OPTIONAL = ("handicap", "seconds", "kind", "colour")

PLAYER_COLUMNS = ("player", "rating")
PLAYER_OPTIONAL = ("games", "deviation", "volatility", "birth_date", "status")
KINDS = ("game", "join", "retire", "return")
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


@dataclass(frozen=True, slots=True)
class History:
    """The steps of EVENTS.csv in the order they apply, with the row of every event."""

    steps: list[Step]
    #: rows[i][k] is the data row (1 = first after the header) of event k of step i
    rows: list[list[int]]
    #: the ``event`` value of each step ("" for a step that is no event)
    labels: list[str]
    #: the file's name, as refusals name it
    file: str = "EVENTS.csv"

    def row_of(self, position: int, event_index: int | None) -> int:
        rows = self.rows[position]
        return rows[event_index or 0] if event_index is not None else rows[-1]

    def event_at(self, position: int, event_index: int | None) -> Event:
        """The event of the row :meth:`row_of` names."""
        events = events_of(self.steps[position])
        return events[event_index or 0] if event_index is not None else events[-1]

    def column_of(self, position: int, event_index: int | None, problem: str) -> str:
        """The column of the player a replay's refusal (``player 'zed' is retired; ...``) is
        about: player_b when it names player_b of that row's game and not player_a, else
        player_a (a join, retire or return row names player_a only)."""
        event = self.event_at(position, event_index)
        if isinstance(event, Game) and (repr(event.player_b) in problem
                                        and repr(event.player_a) not in problem):
            return "player_b"
        return "player_a"

    def fingerprint(self) -> str:
        """What the rows say, whatever the file's layout: the same for the same rows however
        its columns are ordered, its numbers and names written (``1`` or ``1.0``, ``Ann`` or
        ``ann``), its line ends or blank rows. ``clubrating import`` records it with the import
        and refuses a history a ladder has already. Solving times are left out: an import
        stores none."""
        digest = hashlib.sha256()
        line = _CanonicalLines()
        for step, label in zip(self.steps, self.labels, strict=True):
            digest.update("".join(line(event, label) for event in events_of(step)).encode())
        return digest.hexdigest()


class _CanonicalLines:
    """:func:`_canonical`'s JSON line of an event, the same text to the byte, with what repeats
    in a history (names, labels) encoded once: an import of 100,000 games spent 0.45 s here."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.labels: dict[str, str] = {}

    def __call__(self, event: Event, label: str) -> str:
        if type(event) is not Game:
            return json.dumps(_canonical(event, label)) + "\n"
        names, labels = self.names, self.labels
        a = names.get(event.player_a)
        if a is None:
            a = names[event.player_a] = json.dumps(_canonical_name(event.player_a))
        b = names.get(event.player_b)
        if b is None:
            b = names[event.player_b] = json.dumps(_canonical_name(event.player_b))
        held = labels.get(label)
        if held is None:
            held = labels[label] = json.dumps(label.casefold())
        # json.dumps writes a list as "[x, y]", floats and ints by repr, an ISO time unescaped
        return (f'["{event.played_at.isoformat()}", {held}, "game", {a}, {b}, '
                f"{float(event.score_a)!r}, {float(event.handicap)!r}, {event.first_move!r}]\n")


def _canonical_name(text: str) -> str:
    return " ".join(text.split()).casefold()


def _canonical(event: Event, label: str) -> list[object]:
    """An event as the fingerprint reads it (:meth:`History.fingerprint`)."""
    common: list[object] = [event.played_at.isoformat(), label.casefold()]
    if isinstance(event, Game):
        return [*common, "game", _canonical_name(event.player_a),
                _canonical_name(event.player_b), float(event.score_a), float(event.handicap),
                event.first_move]
    kind = "join" if isinstance(event, Join) else "retire" if isinstance(event, Retire) else (
        "return")
    return [*common, kind, _canonical_name(event.player)]


@dataclass(frozen=True, slots=True)
class Roster:
    """PLAYERS.csv: rated players, and dates of birth of everyone listed."""

    players: dict[str, PlayerState]
    birth_dates: dict[str, date]


def _open(path: Path) -> TextIO:
    try:
        return path.open(newline="", encoding="utf-8-sig")
    except OSError as error:
        raise CsvError(path.name, None, f"cannot open the file ({error.strerror})") from None


def _header(reader: Iterator[list[str]], name: str, required: tuple[str, ...],
            optional: tuple[str, ...]) -> list[str]:
    try:
        header = [column.strip() for column in next(reader)]
    except StopIteration:
        raise CsvError(name, None, "the file is empty; it needs a header row") from None
    except (csv.Error, UnicodeDecodeError) as error:
        raise CsvError(name, None, f"not a readable CSV file ({error})") from None
    missing = [c for c in required if c not in header]
    if missing:
        raise CsvError(name, None, f"missing column {', '.join(missing)} in the header")
    unknown = [c for c in header if c not in required + optional]
    if unknown:
        known = ", ".join(required + optional)
        raise CsvError(name, None, f"unknown column {', '.join(unknown)} (known: {known})")
    if len(set(header)) != len(header):
        raise CsvError(name, None, "a column appears twice in the header")
    return header


def _records(path: Path, required: tuple[str, ...], optional: tuple[str, ...]) -> Iterator[
    tuple[int, dict[str, str]]
]:
    name = path.name
    handle = _open(path)
    with handle:
        reader = csv.reader(handle)
        header = _header(reader, name, required, optional)
        row = 0
        try:
            for values in reader:
                row += 1
                if not any(v.strip() for v in values):
                    continue
                if len(values) != len(header):
                    raise CsvError(
                        name, row, f"{len(values)} values for {len(header)} columns"
                    )
                yield row, {c: v.strip() for c, v in zip(header, values, strict=True)}
        except (csv.Error, UnicodeDecodeError) as error:
            raise CsvError(name, row + 1, f"not readable as CSV ({error})") from None


def _moment(text: str, column: str) -> datetime:
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


def _day(text: str, column: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CellError(column, f"must be an ISO 8601 date (YYYY-MM-DD), not {text!r}") from None


def _number(text: str, column: str) -> float:
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
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")
_QUOTE = "'"


def name_cell(name: str) -> str:
    """A name as its cell is written (player_a, player_b, player): with one more leading
    ``'`` when it starts with a character a spreadsheet would run as a formula, or with ``'``
    itself. :func:`_name` reads it back as the name."""
    return _QUOTE + name if name.startswith(_FORMULA_STARTS) else name


def _name(text: str, column: str) -> str:
    """A name cell as the name (every reader of the history files goes through here, so that
    import and replay read names alike): exactly one leading ``'`` taken off
    (:func:`name_cell`)."""
    text = text.removeprefix(_QUOTE)
    if not text:
        raise CellError(column, "is empty")
    if len(text) > MAX_NAME_LENGTH:
        raise CellError(column, f"is longer than {MAX_NAME_LENGTH} characters")
    return text


def _score(text: str) -> float:
    score = _number(text, "score_a") if text else math.nan
    if score not in (0.0, 0.5, 1.0):
        raise CellError("score_a", f"must be 1, 0.5 or 0, not {text!r}")
    return score


def _event(values: dict[str, str]) -> Event:
    kind = values.get("kind") or "game"
    if kind not in KINDS:
        raise CellError("kind", f"must be one of {', '.join(KINDS)}, not {kind!r}")
    played_at = _moment(values["played_at"], "played_at")
    player = _name(values["player_a"], "player_a")
    if kind != "game":
        extra = [c for c in ("player_b", "score_a", "handicap", "seconds", "colour")
                 if values.get(c)]
        if extra:
            raise CellError(extra[0], f"must be empty: a {kind} row names player_a only")
        if kind == "join":
            return Join(player, played_at)
        return Retire(player, played_at) if kind == "retire" else Return(player, played_at)
    opponent = _name(values["player_b"], "player_b")
    if opponent == player:
        raise CellError("player_b", f"player {player!r} cannot play against themself")
    handicap = _handicap(values.get("handicap") or "")
    seconds = _seconds(values.get("seconds") or "")
    first_move = _first_move(values.get("colour") or "")
    return Game(player, opponent, _score(values["score_a"]), played_at, handicap, seconds,
                first_move)


def _handicap(text: str) -> float:
    handicap = _number(text, "handicap") if text else 0.0
    if abs(handicap) > MAX_HANDICAP:
        raise CellError("handicap", f"must be from {-MAX_HANDICAP:g} to {MAX_HANDICAP:g} (in "
                                    f"the system's unit), not {text!r}")
    return handicap


def _seconds(text: str) -> float | None:
    seconds = _number(text, "seconds") if text else None
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise CellError("seconds", f"must be above 0 and at most {MAX_SECONDS:g}, "
                                   f"not {text!r}")
    return seconds


def _first_move(text: str) -> int:
    colour = text.strip().casefold() or None
    if colour not in FIRST_MOVE:
        raise CellError("colour", f"must be white, black or empty, not {text!r}")
    return FIRST_MOVE[colour]


def read_events(path: Path) -> History:
    """EVENTS.csv as replay steps: rows sharing a non-empty ``event`` form one rating period,
    rated when its last row is reached; every other row is a step of its own."""
    name = path.name
    parsed: list[tuple[int, str, Event]] = []
    for row, values in _records(path, EVENT_COLUMNS, EVENT_OPTIONAL):
        try:
            parsed.append((row, values["event"], _event(values)))
        except CellError as error:
            raise CsvError(name, row, error.problem, error.column) from None
        except ValueError as error:
            raise CsvError(name, row, str(error)) from None
    last_row_of = {event: row for row, event, _ in parsed if event}
    open_periods: dict[str, tuple[list[Event], list[int]]] = {}
    steps: list[Step] = []
    rows: list[list[int]] = []
    labels: list[str] = []
    for row, event_name, event in parsed:
        if not event_name:
            steps.append(event)
            rows.append([row])
            labels.append("")
            continue
        members, member_rows = open_periods.setdefault(event_name, ([], []))
        members.append(event)
        member_rows.append(row)
        if row == last_row_of[event_name]:
            del open_periods[event_name]
            steps.append(RatingPeriod(tuple(members)))
            rows.append(member_rows)
            labels.append(event_name)
    return History(steps, rows, labels, name)


#: rows read_event_columns takes from csv.reader at once
_BATCH = 4096
#: characters read_event_columns reads at once (at most csv's field size limit)
_BLOCK = 1 << 17
#: distinct texts a cell cache of read_event_columns keeps before starting afresh
_CACHE_LIMIT = 1 << 16
_KIND_CODES = {"game": GAME, "join": JOIN, "retire": RETIRE, "return": RETURN}
_T = TypeVar("_T")
_N = TypeVar("_N", int, float)


def read_event_columns(path: Path) -> EventColumns:
    """EVENTS.csv as columns (ratings_core.columns): the steps read_events gives, without an
    object per row, for replaying files of millions of rows.

    The file is read a block and a column at a time. Each distinct text of a cell is checked
    once, by the functions read_events uses, and its value remembered. Rows those cannot settle
    (a blank row, a membership row, a cell that is wrong) go through read_events' own reading of
    a row. It accepts exactly the files read_events accepts, with the same values; on a problem
    it raises ``ValueError`` naming a row that may differ from read_events' (call read_events
    for the message to show).
    """
    # Only rows and their cells are made here, and no cycles: nothing for gc to find.
    with collector.paused(), _open(path) as handle:
        reader = csv.reader(handle)
        columns = _ColumnReader(_header(reader, path.name, EVENT_COLUMNS, EVENT_OPTIONAL))
        try:
            rest = columns.add_plain_text(handle)
            if rest is not None:
                lines = io.StringIO(rest + handle.readline(), newline="")
                rows = csv.reader(chain(lines, handle))
                while batch := list(islice(rows, _BATCH)):
                    columns.add_rows(batch)
        except (csv.Error, UnicodeDecodeError) as error:
            raise CsvError(path.name, None, f"not readable as CSV ({error})") from None
        return columns.builder.finish()


class _ColumnReader:
    """EVENTS.csv rows into a ColumnsBuilder, with each cell text's value remembered."""

    def __init__(self, header: list[str]) -> None:
        self.header = header
        at = {column: i for i, column in enumerate(header)}
        self.played_at, self.event, self.player_a, self.player_b, self.score_a = (
            at[column] for column in EVENT_COLUMNS)
        self.handicap, self.seconds, self.kind, self.colour = (
            at.get(column) for column in EVENT_OPTIONAL)
        self.builder = ColumnsBuilder()
        self.ids: dict[str, int] = {}
        self.scores: dict[str, float] = {}
        self.labels: dict[str, int] = {}
        self.kinds: dict[str, int] = {}
        self.handicaps: dict[str, float] = {}
        self.times: dict[str, float] = {}
        self.colours: dict[str, int] = {}
        self.days: dict[str, int] = {}
        self.clocks: dict[str, int] = {}

    # -- the text, as long as it is plain -----------------------------------------------------

    def add_plain_text(self, handle: TextIO) -> str | None:
        """Read the file on while its text is plain (see :meth:`_add_plain`); return the text
        from which csv.reader must take over (it starts a line), or None at the end."""
        size = min(_BLOCK, csv.field_size_limit())
        carry = ""
        while True:
            block = handle.read(size)
            text = carry + block
            if not block:
                return text if text and not self._add_plain(text) else None
            cut = text.rfind("\n")
            if cut < 0 or text.find("\n") > size:  # a line longer than csv lets a field be
                if len(text) > size:
                    return text
                carry = text
                continue
            if not self._add_plain(text[:cut]):
                return text
            carry = text[cut + 1:]

    def _add_plain(self, text: str) -> bool:
        """Whole lines without quotes, carriage returns or NULs, whose cells are what lies
        between the commas, as csv.reader would find them; False for other text.

        Each line is cut at its commas all at once; a newline put before every line's first cell
        shows that each line has as many cells as the header.
        """
        if '"' in text or "\r" in text or "\x00" in text:
            return False
        width = len(self.header)
        lines = text.count("\n") + 1
        cells = ("\n" + text.replace("\n", ",\n")).split(",")
        first = cells[::width]
        if len(cells) != lines * width or "".join(first).count("\n") != lines:
            self.add_rows([line.split(",") for line in text.split("\n")])
            return True
        # The first cell of every line carries the newline put before it: every check of a
        # cell's text strips it first, as read_events does.
        self._add_cells([first, *(cells[i::width] for i in range(1, width))], skip=1)
        return True

    # -- rows, a batch at a time -------------------------------------------------------------

    def add_rows(self, batch: list[list[str]]) -> None:
        try:
            cells = list(zip(*batch, strict=True))
        except ValueError:  # rows of different lengths: blank rows, or a bad row
            cells = []
        if len(cells) != len(self.header):
            for values in batch:
                self._add_row(values)
            return
        self._add_cells(cells, skip=0)

    def _add_row(self, values: Sequence[str]) -> None:
        """One row as read_events reads it."""
        if not any(v.strip() for v in values):
            return
        if len(values) != len(self.header):
            raise ValueError(f"{len(values)} values for {len(self.header)} columns")
        record = {c: v.strip() for c, v in zip(self.header, values, strict=True)}
        self.builder.add_event(_event(record), record["event"])

    # -- a batch of rows, column by column -----------------------------------------------------

    def _add_cells(self, cells: Sequence[Sequence[str]], skip: int) -> None:
        """Rows given as columns of cells; ``skip``: characters before the first column's."""
        start = 0
        for row in self._membership_rows(cells):
            self._add_games(cells, skip, start, row)
            self._add_row([column[row] for column in cells])
            start = row + 1
        self._add_games(cells, skip, start, len(cells[0]))

    def _membership_rows(self, cells: Sequence[Sequence[str]]) -> list[int]:
        """The rows whose kind is join, retire or return."""
        if self.kind is None:
            return []
        texts = cells[self.kind]
        if texts.count("") == len(texts):
            return []
        given = compress(range(len(texts)), texts)
        return [row for row in given if _cached(self.kinds, texts[row], _kind) != GAME]

    def _add_games(self, cells: Sequence[Sequence[str]], skip: int, start: int,
                   stop: int) -> None:
        """Game rows start..stop, a column at a time (row by row if that fails)."""
        if start == stop:
            return
        part = cells if stop - start == len(cells[0]) else [c[start:stop] for c in cells]
        try:
            self._add_game_cells(part, skip)
        except ValueError:
            for row in range(start, stop):
                self._add_row([column[row] for column in cells])

    def _add_game_cells(self, cells: Sequence[Sequence[str]], skip: int) -> None:
        names_a, names_b = cells[self.player_a], cells[self.player_b]
        ids = self.ids
        try:
            player_a = list(map(ids.__getitem__, names_a))
            player_b = list(map(ids.__getitem__, names_b))
        except KeyError:
            # New names get ids in the order the rows name them, the order the replay meets
            # the players in: their ids are then their places in its table.
            for name_a, name_b in zip(names_a, names_b, strict=True):
                _cached(ids, name_a, self._id)
                _cached(ids, name_b, self._id)
            player_a = list(map(ids.__getitem__, names_a))
            player_b = list(map(ids.__getitem__, names_b))
        if any(map(operator.eq, player_a, player_b)):
            raise ValueError("a player plays against themself")
        self.builder.add_games(
            _packed("i", player_a), _packed("i", player_b),
            _column("d", self.scores, cells[self.score_a], _score_text),
            self._moments(cells[self.played_at], skip if self.played_at == 0 else 0),
            self._optional("i", self.labels, cells, self.event, self._label),
            self._optional("d", self.handicaps, cells, self.handicap, _handicap_text),
            self._optional("b", self.colours, cells, self.colour, _first_move),
            self._optional("d", self.times, cells, self.seconds, _time_text),
        )

    def _optional(self, typecode: str, cache: dict[str, _N], cells: Sequence[Sequence[str]],
                  column: int | None, value: Callable[[str], _N]) -> array[_N] | None:
        """A column's values, or None when the file has no such column or every cell is empty
        (the column's default then)."""
        if column is None or not any(cells[column]):
            return None
        return _column(typecode, cache, cells[column], value)

    def _moments(self, texts: Sequence[str], skip: int) -> array[int]:
        """Each time as moment_of(_moment(text)).

        A plain time, YYYY-MM-DDTHH:MM:SS (or a space for the T), is its date's moment plus its
        time of day's, each remembered from the first plain text it was read in: two look-ups,
        no parsing. Only plain texts teach them, so a text whose 10 first and 9 last characters
        are both known is plain, and a date or time of day valid in one plain text is valid
        in any. Other times are parsed.
        """
        date_of, clock_of = _PARTS[skip]
        dates = list(map(date_of, texts))
        clocks = list(map(clock_of, texts))
        moments: list[int] = []
        while True:
            start = len(moments)
            try:
                # extend() keeps what it took before a look-up fails
                moments.extend(map(operator.add, map(self.days.__getitem__, dates[start:]),
                                   map(self.clocks.__getitem__, clocks[start:])))
                return _packed("q", moments)
            except KeyError:
                if not self._learn(texts[len(moments)][skip:]):
                    return _parsed_moments(texts)

    def _learn(self, text: str) -> bool:
        """Remember the date and time of day of a plain text; False for a text not plain."""
        if not _PLAIN_TIME.fullmatch(text):
            return False
        if len(self.days) > _CACHE_LIMIT or len(self.clocks) > _CACHE_LIMIT:
            self.days.clear()
            self.clocks.clear()
        moment = _moment(text, "played_at")
        day = self.days[text[:10]] = moment_of(datetime(moment.year, moment.month, moment.day))
        self.clocks[text[10:]] = moment_of(moment) - day
        return True

    def _id(self, text: str) -> int:
        return self.builder.intern(_name(text.strip(), "player_a"))

    def _label(self, text: str) -> int:
        return self.builder.label_id(text.strip())


_PLAIN_TIME = re.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}")
#: a time's date and time of day, after 0 or 1 characters put before it
_PARTS = [(operator.itemgetter(slice(skip, skip + 10)), operator.itemgetter(slice(skip + 10, None)))
          for skip in (0, 1)]
_TZINFO = operator.attrgetter("tzinfo")


def _parsed_moments(texts: Sequence[str]) -> array[int]:
    """Each time as moment_of(_moment(text)), parsed."""
    stamps = list(map(datetime.fromisoformat, map(str.strip, texts)))
    if any(map(_TZINFO, stamps)):
        stamps = [_moment(text.strip(), "played_at") for text in texts]
    return _packed("q", list(moments_of(stamps)))


def _column(typecode: str, cache: dict[str, _N], texts: Sequence[str],
            value: Callable[[str], _N]) -> array[_N]:
    """The value of each text, as an array."""
    return _packed(typecode, _values(cache, texts, value))


def _values(cache: dict[str, _T], texts: Sequence[str], value: Callable[[str], _T]
            ) -> list[_T]:
    """The value of each text: a new text is checked (in order) and its value remembered."""
    try:
        return list(map(cache.__getitem__, texts))
    except KeyError:
        pass
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    for text in texts:
        _cached(cache, text, value)
    return list(map(cache.__getitem__, texts))


def _packed(typecode: str, values: list[_N]) -> array[_N]:
    """An array of the values (struct converts them faster than array does one by one)."""
    return array(typecode, struct.pack(f"{len(values)}{typecode}", *values))


def _cached(cache: dict[str, _T], text: str, value: Callable[[str], _T]) -> _T:
    known = cache.get(text)
    if known is None:
        known = cache[text] = value(text)
    return known


def _kind(text: str) -> int:
    kind = text.strip() or "game"
    if kind not in _KIND_CODES:
        raise CellError("kind", f"must be one of {', '.join(KINDS)}, not {kind!r}")
    return _KIND_CODES[kind]


def _score_text(text: str) -> float:
    return _score(text.strip())


def _handicap_text(text: str) -> float:
    return _handicap(text.strip())


def _time_text(text: str) -> float:
    seconds = _seconds(text.strip())
    return math.nan if seconds is None else seconds


def write_events(steps: list[Step], names: dict[str, str], labels: list[str]) -> str:
    """Steps as EVENTS.csv text that ``read_events`` turns back into the same steps;
    ``names`` maps the steps' player keys to the names written. The ``colour`` column is
    written only when some game has one."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    coloured = any(g.first_move for step in steps for g in games_of(step))
    writer.writerow([*EVENT_COLUMNS, "handicap", "kind", *(["colour"] if coloured else [])])

    def row(event: Event, label: str) -> list[str]:
        if isinstance(event, Game):
            cells = [event.played_at.isoformat(), label, name_cell(names[event.player_a]),
                     name_cell(names[event.player_b]), _exact(event.score_a),
                     _exact(event.handicap), "game"]
            colour = COLOUR[event.first_move] or ""
        else:
            kind = "join" if isinstance(event, Join) else (
                "retire" if isinstance(event, Retire) else "return")
            cells = [event.played_at.isoformat(), label, name_cell(names[event.player]), "", "",
                     "", kind]
            colour = ""
        return [*cells, colour] if coloured else cells

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


def read_players(path: Path) -> Roster:
    """PLAYERS.csv: a row with an empty rating lists a member who has not played yet (e.g. to
    give their date of birth for an age-dependent starting rating)."""
    name = path.name
    players: dict[str, PlayerState] = {}
    birth_dates: dict[str, date] = {}
    seen: set[str] = set()
    for row, values in _records(path, PLAYER_COLUMNS, PLAYER_OPTIONAL):
        try:
            player = _name(values["player"], "player")
            if player in seen:
                raise CellError("player", f"{player!r} is listed twice")
            seen.add(player)
            birth = _day(values["birth_date"], "birth_date") if values.get("birth_date") else None
            if birth is not None:
                birth_dates[player] = birth
            status_text = values.get("status") or Status.ACTIVE.value
            if status_text not in (Status.ACTIVE.value, Status.RETIRED.value):
                raise CellError("status", f"must be active or retired, not {status_text!r}")
            if not values["rating"]:
                given = [c for c in ("games", "deviation", "volatility") if values.get(c)]
                if status_text != Status.ACTIVE.value:
                    given.insert(0, "status")
                if given:
                    raise CellError(given[0], "must be empty: a player without a rating can "
                                              "only give a birth_date")
                continue
            games = 0
            if values.get("games"):
                games_value = _number(values["games"], "games")
                if games_value < 0 or games_value != int(games_value):
                    raise CellError("games", f"must be a whole number >= 0, "
                                             f"not {values['games']!r}")
                games = int(games_value)
            deviation = _positive(values.get("deviation"), "deviation")
            volatility = _positive(values.get("volatility"), "volatility")
            rating = _number(values["rating"], "rating")
            players[player] = PlayerState(
                rating=rating,
                games=games,
                deviation=deviation,
                volatility=volatility,
                peak=rating,
                status=Status(status_text),
                birth_date=birth,
            )
        except CellError as error:
            raise CsvError(name, row, error.problem, error.column) from None
        except ValueError as error:
            raise CsvError(name, row, str(error)) from None
    return Roster(players, birth_dates)


def _positive(text: str | None, column: str) -> float | None:
    if not text:
        return None
    value = _number(text, column)
    if value <= 0:
        raise CellError(column, f"must be positive, not {text!r}")
    return value
