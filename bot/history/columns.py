"""EVENTS.csv read a block and a column at a time into :mod:`ratings_core.rows`: the
reader of `clubrating replay` and `evaluate`, for files of millions of rows. It accepts exactly
what :func:`~bot.history.rows.read_events` accepts, each distinct cell text checked once by the
same cell rules (:mod:`~bot.history.cells`).

The columns hold games of one against one only. A file with a game of sides (issue 37: a
player cell naming two or more members) is read by :func:`~bot.history.rows.read_events`
instead, whole: the reader gives that :class:`~bot.history.rows.History`. A player cell's
text is checked once whatever the file's length, so a file without sides is read as fast as
before sides were written."""

from __future__ import annotations

import csv
import io
import math
import operator
import re
import struct
from array import array
from collections.abc import Callable, Sequence
from datetime import datetime
from itertools import chain, compress, islice
from pathlib import Path
from typing import TextIO, TypeVar

from bot.history.cells import (
    EVENT_COLUMNS,
    EVENT_OPTIONAL,
    KINDS,
    CellError,
    CsvError,
    read_colour,
    read_handicap,
    read_score,
    read_seconds,
    read_side,
    read_time,
)
from bot.history.csvfile import header_of, open_file
from bot.history.rows import History, event_of, read_events
from bot.service import collector
from ratings_core.model import TeamGame
from ratings_core.rows import (
    GAME,
    JOIN,
    RETIRE,
    RETURN,
    ColumnsBuilder,
    EventColumns,
)
from ratings_core.table import moment_of, moments_of

#: rows read_event_columns takes from csv.reader at once
_BATCH = 4096
#: characters read_event_columns reads at once (at most csv's field size limit)
_BLOCK = 1 << 17
#: distinct texts a cell cache of read_event_columns keeps before starting afresh
_CACHE_LIMIT = 1 << 16
_KIND_CODES = {"game": GAME, "join": JOIN, "retire": RETIRE, "return": RETURN}
_T = TypeVar("_T")
_N = TypeVar("_N", int, float)


class _SidesMet(Exception):
    """A row names a side of two or more members: the columns cannot hold it. Not a
    ValueError, which sends a batch of rows to the row-by-row reading."""


def read_event_columns(path: Path) -> EventColumns | History:
    """EVENTS.csv as columns (ratings_core.rows): the steps read_events gives, without an
    object per row, for replaying files of millions of rows; a file with a game of sides
    (issue 37) as read_events' History, read again by it from the start.

    The file is read a block and a column at a time. Each distinct text of a cell is checked
    once, by the functions read_events uses, and its value remembered. Rows those cannot settle
    (a blank row, a membership row, a cell that is wrong) go through read_events' own reading of
    a row. It accepts exactly the files read_events accepts, with the same values; on a problem
    it raises ``ValueError`` naming a row that may differ from read_events' (call read_events
    for the message to show).
    """
    try:
        return _read_columns(path)
    except _SidesMet:
        return read_events(path)


def _read_columns(path: Path) -> EventColumns:
    # Only rows and their cells are made here, and no cycles: nothing for gc to find.
    with collector.paused(), open_file(path) as handle:
        reader = csv.reader(handle)
        columns = _ColumnReader(header_of(reader, path.name, EVENT_COLUMNS, EVENT_OPTIONAL))
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
        event = event_of(record)
        if isinstance(event, TeamGame):
            raise _SidesMet
        self.builder.add_event(event, record["event"])

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
            self._optional("b", self.colours, cells, self.colour, read_colour),
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
        """Each time as moment_of(read_time(text)).

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
        moment = read_time(text, "played_at")
        day = self.days[text[:10]] = moment_of(datetime(moment.year, moment.month, moment.day))
        self.clocks[text[10:]] = moment_of(moment) - day
        return True

    def _id(self, text: str) -> int:
        """The id of a player cell's one member (its text is read once: a name with a
        literal ``&``, written ``&&``, costs nothing more to a file than any other name)."""
        side = read_side(text.strip(), "player_a")
        if len(side) > 1:
            raise _SidesMet
        return self.builder.intern(side[0])

    def _label(self, text: str) -> int:
        return self.builder.label_id(text.strip())


_PLAIN_TIME = re.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}")
#: a time's date and time of day, after 0 or 1 characters put before it
_PARTS = [(operator.itemgetter(slice(skip, skip + 10)), operator.itemgetter(slice(skip + 10, None)))
          for skip in (0, 1)]
_TZINFO = operator.attrgetter("tzinfo")


def _parsed_moments(texts: Sequence[str]) -> array[int]:
    """Each time as moment_of(read_time(text)), parsed."""
    stamps = list(map(datetime.fromisoformat, map(str.strip, texts)))
    if any(map(_TZINFO, stamps)):
        stamps = [read_time(text.strip(), "played_at") for text in texts]
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
    return read_score(text.strip())


def _handicap_text(text: str) -> float:
    return read_handicap(text.strip())


def _time_text(text: str) -> float:
    seconds = read_seconds(text.strip())
    return math.nan if seconds is None else seconds
