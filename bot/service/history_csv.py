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
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from bot.service.parsing import EARLIEST, MAX_HANDICAP, MAX_SECONDS
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

EVENT_COLUMNS = ("played_at", "event", "player_a", "player_b", "score_a")
EVENT_OPTIONAL = ("handicap", "seconds", "kind", "colour")

PLAYER_COLUMNS = ("player", "rating")
PLAYER_OPTIONAL = ("games", "deviation", "volatility", "birth_date", "status")
KINDS = ("game", "join", "retire", "return")
#: longer names are refused: they would break every table and chat message showing them
MAX_NAME_LENGTH = 100
#: no game is played before EARLIEST (the chat's bound too); `clubrating import` also refuses
#: games after tomorrow in the ladder's time zone, which a file alone does not know
_EARLIEST = datetime(EARLIEST.year, EARLIEST.month, EARLIEST.day)


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
        for step, label in zip(self.steps, self.labels, strict=True):
            for event in events_of(step):
                digest.update(json.dumps(_canonical(event, label)).encode() + b"\n")
        return digest.hexdigest()


def _canonical(event: Event, label: str) -> list[object]:
    def name(text: str) -> str:
        return " ".join(text.split()).casefold()

    common: list[object] = [event.played_at.isoformat(), label.casefold()]
    if isinstance(event, Game):
        return [*common, "game", name(event.player_a), name(event.player_b),
                float(event.score_a), float(event.handicap), event.first_move]
    kind = "join" if isinstance(event, Join) else "retire" if isinstance(event, Retire) else (
        "return")
    return [*common, kind, name(event.player)]


@dataclass(frozen=True, slots=True)
class Roster:
    """PLAYERS.csv: rated players, and dates of birth of everyone listed."""

    players: dict[str, PlayerState]
    birth_dates: dict[str, date]


def _records(path: Path, required: tuple[str, ...], optional: tuple[str, ...]) -> Iterator[
    tuple[int, dict[str, str]]
]:
    name = path.name
    try:
        handle = path.open(newline="", encoding="utf-8-sig")
    except OSError as error:
        raise CsvError(name, None, f"cannot open the file ({error.strerror})") from None
    with handle:
        reader = csv.reader(handle)
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
    if moment < _EARLIEST:
        raise CellError(column, f"must be {EARLIEST} or later, not {text!r}")
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


def _name(text: str, column: str) -> str:
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
    handicap = _number(values["handicap"], "handicap") if values.get("handicap") else 0.0
    if abs(handicap) > MAX_HANDICAP:
        raise CellError("handicap", f"must be from {-MAX_HANDICAP:g} to {MAX_HANDICAP:g} (in "
                                    f"the system's unit), not {values['handicap']!r}")
    seconds = _number(values["seconds"], "seconds") if values.get("seconds") else None
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise CellError("seconds", f"must be above 0 and at most {MAX_SECONDS:g}, "
                                   f"not {values['seconds']!r}")
    colour = (values.get("colour") or "").strip().casefold() or None
    if colour not in FIRST_MOVE:
        raise CellError("colour", f"must be white, black or empty, not {values['colour']!r}")
    return Game(player, opponent, _score(values["score_a"]), played_at, handicap, seconds,
                FIRST_MOVE[colour])


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
            cells = [event.played_at.isoformat(), label, names[event.player_a],
                     names[event.player_b], _exact(event.score_a), _exact(event.handicap), "game"]
            colour = COLOUR[event.first_move] or ""
        else:
            kind = "join" if isinstance(event, Join) else (
                "retire" if isinstance(event, Retire) else "return")
            cells = [event.played_at.isoformat(), label, names[event.player], "", "", "", kind]
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
