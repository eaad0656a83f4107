"""EVENTS.csv read a block and a column at a time into :mod:`ratings_core.rows`: the
reader of `clubrating replay` and `evaluate`, for files of millions of rows. It accepts exactly
what :func:`~bot.history.rows.read_events` accepts, each distinct cell text checked once by the
same cell rules (:mod:`~bot.history.cells`).

A game of sides (issue 37: a player cell naming two or more members) is a team row of the
columns, its :class:`~ratings_core.model.TeamGame` made from its cells' values as read here. A
batch of rows is read as games of one against one until a side cell is met; then its player
cells are read as sides (a column of plain cells cut at every ``" & "`` at once, any other
cell by :func:`~bot.history.cells.read_side`, each distinct text once), the batch cut into runs
of singles and runs of sides, and its other cells read column by column as before. A file
without sides is read exactly as before sides were written, as fast."""

from __future__ import annotations

import csv
import io
import math
import operator
import re
import struct
from array import array
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from functools import partial
from itertools import chain, compress, islice, repeat
from pathlib import Path
from typing import TextIO, TypeVar

from bot.history.cells import (
    AMPERSAND,
    EVENT_COLUMNS,
    EVENT_OPTIONAL,
    KINDS,
    MAX_NAME_LENGTH,
    SIDE_JOIN,
    TEXT_MARK,
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
from bot.history.rows import event_of
from bot.service import collector
from ratings_core.model import TeamGame
from ratings_core.rows import (
    GAME,
    JOIN,
    RETIRE,
    RETURN,
    SEASON,
    ColumnsBuilder,
    EventColumns,
)
from ratings_core.table import EPOCH, moment_of, moments_of

#: rows read_event_columns takes from csv.reader at once
_BATCH = 4096
#: characters read_event_columns reads at once (at most csv's field size limit)
_BLOCK = 1 << 17
#: distinct texts a cell cache of read_event_columns keeps before starting afresh
_CACHE_LIMIT = 1 << 16
_KIND_CODES = {"game": GAME, "join": JOIN, "retire": RETIRE, "return": RETURN,
               "season": SEASON}
_T = TypeVar("_T")
_N = TypeVar("_N", int, float)


class _SideCell(Exception):
    """A player cell names a side of two or more members: the batch's player cells are read
    as sides. Not a ValueError, which sends a batch of rows to the row-by-row reading."""


def read_event_columns(path: Path) -> EventColumns:
    """EVENTS.csv as columns (ratings_core.rows): the steps read_events gives, without an
    object per row but a game of sides' (issue 37), for replaying files of millions of rows.

    The file is read a block and a column at a time. Each distinct text of a cell is checked
    once, by the functions read_events uses, and its value remembered. Rows those cannot settle
    (a blank row, a membership row, a cell that is wrong) go through read_events' own reading of
    a row. It accepts exactly the files read_events accepts, with the same values; on a problem
    it raises ``ValueError`` naming a row that may differ from read_events' (call read_events
    for the message to show).
    """
    # Only rows, their cells and games of sides are made here, and no cycles: nothing for gc
    # to find.
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
        #: a player cell's text as its side's names (cells of one name too), for cells that
        #: are not plain (issue 37)
        self.sides: dict[str, tuple[str, ...]] = {}
        #: the names met in plain player cells (:func:`_plain`)
        self.members: set[str] = set()
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
        self.builder.add_event(event_of(record), record["event"])

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
        """The rows whose kind is join, retire, return or season (issue 38)."""
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
            # the players in: their ids are then their places in its table. Each distinct text
            # once (dict.fromkeys keeps the first of each, in order, in C): a batch early in
            # a file names the same members many times.
            named = chain.from_iterable(zip(names_a, names_b, strict=True))
            try:
                for name in dict.fromkeys(named):
                    _cached(ids, name, self._id)
            except _SideCell:
                self._add_side_cells(cells, skip)
                return
            player_a = list(map(ids.__getitem__, names_a))
            player_b = list(map(ids.__getitem__, names_b))
        self._singles(cells, skip, player_a, player_b)()

    def _add_side_cells(self, cells: Sequence[Sequence[str]], skip: int) -> None:
        """Game rows of which some name a side (issue 37): each player cell read as a side
        (one name or more), the rows cut into runs of games of one against one and runs of
        games of sides, every run read before any is added (a ValueError adds none)."""
        sides_a, sides_b = self._sides(cells[self.player_a], cells[self.player_b])
        # a game of one against one names two players, a game of sides three or more
        named = list(map(operator.add, map(len, sides_a), map(len, sides_b)))
        ids = self.builder.ids
        added: list[Callable[[], None]] = []
        for start, stop, teams in _runs(named):
            part = [column[start:stop] for column in cells] if stop - start < len(named) \
                else cells
            if teams:
                added.append(self._teams(part, skip, sides_a[start:stop], sides_b[start:stop]))
                continue
            player_a = [ids[side[0]] for side in sides_a[start:stop]]
            player_b = [ids[side[0]] for side in sides_b[start:stop]]
            added.append(self._singles(part, skip, player_a, player_b))
        for add in added:
            add()

    def _sides(self, texts_a: Sequence[str], texts_b: Sequence[str]
               ) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
        """Each player cell's side, as :func:`~bot.history.cells.read_side` reads it, its new
        names interned in the order the rows name them.

        Most cells are plain: names that need no reading (see :func:`_plain`) joined by
        ``" & "``, the side the cell cut at each ``" & "`` (in C, for a whole column). Every
        other cell is read by read_side, each distinct text once.
        """
        pieces_a = list(map(str.split, texts_a, repeat(SIDE_JOIN)))
        pieces_b = list(map(str.split, texts_b, repeat(SIDE_JOIN)))
        members = self.members
        if not (all(map(members.__contains__, chain.from_iterable(pieces_a)))
                and all(map(members.__contains__, chain.from_iterable(pieces_b)))):
            intern = self.builder.intern
            for piece in chain.from_iterable(map(operator.add, pieces_a, pieces_b)):
                if piece not in members:
                    if not _plain(piece):
                        return self._read_sides(texts_a, texts_b)
                    members.add(piece)
                    intern(piece)
        return list(map(tuple, pieces_a)), list(map(tuple, pieces_b))

    def _read_sides(self, texts_a: Sequence[str], texts_b: Sequence[str]
                    ) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
        """Each player cell's side, read by read_side (each distinct text once)."""
        sides = self.sides
        if len(sides) > _CACHE_LIMIT:
            sides.clear()
        for text_a, text_b in zip(texts_a, texts_b, strict=True):
            _cached(sides, text_a, self._side)
            _cached(sides, text_b, self._side)
        return list(map(sides.__getitem__, texts_a)), list(map(sides.__getitem__, texts_b))

    def _teams(self, cells: Sequence[Sequence[str]], skip: int, sides_a: list[tuple[str, ...]],
               sides_b: list[tuple[str, ...]]) -> Callable[[], None]:
        """Rows of games of sides read (their other cells as a game's, a solving time
        refused), to be added by the function returned."""
        if self.seconds is not None and any(map(str.strip, cells[self.seconds])):
            raise ValueError("a game of sides has no solving time")
        moments = self._moments(cells[self.played_at], skip if self.played_at == 0 else 0)
        handicap = self._optional("d", self.handicaps, cells, self.handicap, _handicap_text)
        first_move = self._optional("b", self.colours, cells, self.colour, read_colour)
        # each time as datetime_of(its moment), as read_time gives it, the loops in C
        games = list(map(TeamGame, sides_a, sides_b,
                         _values(self.scores, cells[self.score_a], _score_text),
                         map(EPOCH.__add__, map(timedelta, repeat(0), repeat(0), moments)),
                         repeat(0.0) if handicap is None else handicap,
                         repeat(0) if first_move is None else first_move))
        return partial(self.builder.add_teams, games, moments,
                       self._optional("i", self.labels, cells, self.event, self._label))

    def _singles(self, cells: Sequence[Sequence[str]], skip: int, player_a: list[int],
                 player_b: list[int]) -> Callable[[], None]:
        """Rows of games of one against one read, to be added by the function returned."""
        if any(map(operator.eq, player_a, player_b)):
            raise ValueError("a player plays against themself")
        return partial(
            self.builder.add_games,
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
            raise _SideCell
        return self.builder.intern(side[0])

    def _side(self, text: str) -> tuple[str, ...]:
        """A player cell's side, its names interned in order."""
        side = read_side(text.strip(), "player_a")
        for name in side:
            self.builder.intern(name)
        return side

    def _label(self, text: str) -> int:
        return self.builder.label_id(text.strip())


def _plain(piece: str) -> bool:
    """Whether a piece of a player cell cut at its ``" & "``s is a name as it is, so that
    read_side reads the cell as those pieces: no ``&`` in it, no spaces around it, not empty,
    not too long, not starting with the mark against formulas (a cell's leading ``'``)."""
    return (bool(piece) and AMPERSAND not in piece and piece == piece.strip()
            and len(piece) <= MAX_NAME_LENGTH and not piece.startswith(TEXT_MARK))


def _runs(named: list[int]) -> list[tuple[int, int, bool]]:
    """The rows as runs (start, stop, whether they are games of sides) from how many players
    each names: a game of sides names three or more."""
    if min(named) > 2:
        return [(0, len(named), True)]
    runs: list[tuple[int, int, bool]] = []
    start = 0
    for row in range(1, len(named) + 1):
        if row == len(named) or (named[row] > 2) != (named[start] > 2):
            runs.append((start, row, named[start] > 2))
            start = row
    return runs


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
