"""The history files: EVENTS.csv (the games and membership events, in order) and PLAYERS.csv
(everyone's state before the first event), read and written.

The formats are a contract shared with ``clubrating replay``, the import/export of the bot and
users' own scripts; see README, section "History files". Every problem is reported as one
:class:`CsvError` naming the file, the row, the column where one cell is wrong, and what is
wrong: ``EVENTS.csv row 12, column handicap: must be from -1000 to 1000 ...``.

One module a job: :mod:`~bot.history.cells` (the rules of a cell, shared by every reader),
:mod:`~bot.history.csvfile` (the CSV text under them), :mod:`~bot.history.rows` (rows into
replay steps, for import), :mod:`~bot.history.columns` (a column at a time, for replaying long
files), :mod:`~bot.history.writer` (export), :mod:`~bot.history.players` (PLAYERS.csv) and
:mod:`~bot.history.steps` (what a history's steps hold: a game of sides too, issue 37).
No use case lives here: importing and exporting a ladder are :mod:`bot.service.history_io`'s.
"""

from bot.history.cells import (
    EVENT_COLUMNS,
    EVENT_OPTIONAL,
    KINDS,
    MAX_NAME_LENGTH,
    PLAYER_COLUMNS,
    PLAYER_OPTIONAL,
    CellError,
    CsvError,
    cell_error,
    name_cell,
    read_name,
    where,
)
from bot.history.columns import read_event_columns
from bot.history.players import Roster, read_players
from bot.history.rows import History, read_events
from bot.history.writer import write_events

__all__ = ["EVENT_COLUMNS", "EVENT_OPTIONAL", "KINDS", "MAX_NAME_LENGTH", "PLAYER_COLUMNS",
           "PLAYER_OPTIONAL", "CellError", "CsvError", "History", "Roster", "cell_error",
           "name_cell", "read_event_columns", "read_events", "read_name", "read_players",
           "where", "write_events"]
