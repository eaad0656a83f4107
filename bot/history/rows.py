"""EVENTS.csv read row by row into replay steps (:class:`History`), with the row of every event
and the history's fingerprint: the strict reader of `clubrating import` and the bot.

A row whose player cells name one member each is a ``Game``, as it always was; a row whose
cells name a side of two or more members (``alice & bob``, :func:`~bot.history.cells.read_side`)
is a ``TeamGame`` (issue 37)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bot.history.cells import (
    EVENT_COLUMNS,
    EVENT_OPTIONAL,
    KINDS,
    CellError,
    CsvError,
    read_colour,
    read_factor,
    read_handicap,
    read_reset,
    read_score,
    read_seconds,
    read_side,
    read_time,
)
from bot.history.csvfile import records
from bot.history.steps import HistoryStep, Row, period, rows_of
from ratings_core.model import (
    Game,
    Join,
    Retire,
    Return,
    SeasonStart,
    TeamGame,
    sides_of,
)


@dataclass(frozen=True, slots=True)
class History:
    """The steps of EVENTS.csv in the order they apply, with the row of every event."""

    steps: list[HistoryStep]
    #: rows[i][k] is the data row (1 = first after the header) of event k of step i
    rows: list[list[int]]
    #: the ``event`` value of each step ("" for a step that is no event)
    labels: list[str]
    #: the file's name, as refusals name it
    file: str = "EVENTS.csv"

    def row_of(self, position: int, event_index: int | None) -> int:
        rows = self.rows[position]
        return rows[event_index or 0] if event_index is not None else rows[-1]

    def event_at(self, position: int, event_index: int | None) -> Row:
        """The event of the row :meth:`row_of` names."""
        events = rows_of(self.steps[position])
        return events[event_index or 0] if event_index is not None else events[-1]

    def column_of(self, position: int, event_index: int | None, problem: str) -> str:
        """The column of the player a replay's refusal (``player 'zed' is retired; ...``) is
        about: player_b when it names a member of that row's side b and none of side a, else
        player_a (a join, retire or return row names player_a only)."""
        event = self.event_at(position, event_index)
        if isinstance(event, Game | TeamGame):
            side_a, side_b = sides_of(event)
            if (any(repr(name) in problem for name in side_b)
                    and not any(repr(name) in problem for name in side_a)):
                return "player_b"
        return "player_a"

    def fingerprint(self) -> str:
        """What the rows say, whatever the file's layout: the same for the same rows however
        its columns are ordered, its numbers and names written (``1`` or ``1.0``, ``Ann`` or
        ``ann``), its line ends or blank rows. ``clubrating import`` records it with the import
        and refuses a history a ladder has already. Solving times are left out: an import
        stores none. A team game's line holds both sides, each as written (issue 37); a
        season row's, its time, reset and factor (issue 38); a file of singles and membership
        rows has the fingerprint it always had."""
        digest = hashlib.sha256()
        line = _CanonicalLines()
        for step, label in zip(self.steps, self.labels, strict=True):
            if isinstance(step, SeasonStart):  # a season row (issue 38)
                digest.update((json.dumps([step.played_at.isoformat(), "", "season", step.reset,
                                           float(step.factor)]) + "\n").encode())
                continue
            digest.update("".join(line(event, label) for event in rows_of(step)).encode())
        return digest.hexdigest()


class _CanonicalLines:
    """:func:`_canonical`'s JSON line of an event, the same text to the byte, with what repeats
    in a history (names, labels) encoded once: an import of 100,000 games spent 0.45 s here."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.labels: dict[str, str] = {}

    def __call__(self, event: Row, label: str) -> str:
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


def _canonical(event: Row, label: str) -> list[object]:
    """An event as the fingerprint reads it (:meth:`History.fingerprint`): a team game's sides
    as lists of names in their order, where a singles game has one name each."""
    common: list[object] = [event.played_at.isoformat(), label.casefold()]
    if isinstance(event, TeamGame):
        return [*common, "game", [_canonical_name(name) for name in event.side_a],
                [_canonical_name(name) for name in event.side_b], float(event.score_a),
                float(event.handicap), event.first_move]
    if isinstance(event, Game):
        return [*common, "game", _canonical_name(event.player_a),
                _canonical_name(event.player_b), float(event.score_a), float(event.handicap),
                event.first_move]
    kind = "join" if isinstance(event, Join) else "retire" if isinstance(event, Retire) else (
        "return")
    return [*common, kind, _canonical_name(event.player)]


def event_of(values: dict[str, str]) -> Row | SeasonStart:
    """One row's event: a game of one against one when each player cell names one member, a
    team game when either names a side of several; a season row is a season's start (issue
    38)."""
    kind = values.get("kind") or "game"
    if kind not in KINDS:
        raise CellError("kind", f"must be one of {', '.join(KINDS)}, not {kind!r}")
    played_at = read_time(values["played_at"], "played_at")
    if kind == "season":
        return season_of(values, played_at)
    side = read_side(values["player_a"], "player_a")
    if kind != "game":
        if len(side) > 1:
            raise CellError("player_a", f"must name one member: a {kind} row is about one "
                                        f"member, not a side ({len(side)} names)")
        extra = [c for c in ("player_b", "score_a", "handicap", "seconds", "colour")
                 if values.get(c)]
        if extra:
            raise CellError(extra[0], f"must be empty: a {kind} row names player_a only")
        player = side[0]
        if kind == "join":
            return Join(player, played_at)
        return Retire(player, played_at) if kind == "retire" else Return(player, played_at)
    other = read_side(values["player_b"], "player_b")
    if len(side) == 1 == len(other):
        player, opponent = side[0], other[0]
        if opponent == player:
            raise CellError("player_b", f"player {player!r} cannot play against themself")
        handicap = read_handicap(values.get("handicap") or "")
        seconds = read_seconds(values.get("seconds") or "")
        first_move = read_colour(values.get("colour") or "")
        return Game(player, opponent, read_score(values["score_a"]), played_at, handicap,
                    seconds, first_move)
    _check_sides(side, other)
    handicap = read_handicap(values.get("handicap") or "")
    if values.get("seconds"):
        raise CellError("seconds", "must be empty: a game of sides has no solving time")
    first_move = read_colour(values.get("colour") or "")
    return TeamGame(side, other, read_score(values["score_a"]), played_at, handicap,
                    first_move)


def season_of(values: dict[str, str], played_at: datetime) -> SeasonStart:
    """A season row as the season's start it stands for (issue 38): player_a the reset,
    score_a its factor, every other cell empty; a step of its own, so in no event."""
    if values.get("event"):
        raise CellError("event", "must be empty: a season row is a step of its own, in no "
                                 "event")
    reset = read_reset(values["player_a"])
    extra = [c for c in ("player_b", "handicap", "seconds", "colour") if values.get(c)]
    if extra:
        raise CellError(extra[0], "must be empty: a season row gives only played_at, its "
                                  "reset (player_a) and its factor (score_a)")
    return SeasonStart(played_at, reset, read_factor(values["score_a"]))


def _check_sides(side_a: tuple[str, ...], side_b: tuple[str, ...]) -> None:
    """Refuse a member named twice in a game of sides (on one side, or on both), naming the
    column of the second time."""
    seen: set[str] = set()
    for column, side in (("player_a", side_a), ("player_b", side_b)):
        for name in side:
            if name in seen:
                raise CellError(column, f"names player {name!r} twice: a member plays once "
                                        f"in a game")
            seen.add(name)


def read_events(path: Path) -> History:
    """EVENTS.csv as replay steps: rows sharing a non-empty ``event`` form one rating period,
    rated when its last row is reached; every other row is a step of its own."""
    name = path.name
    parsed: list[tuple[int, str, Row | SeasonStart]] = []
    for row, values in records(path, EVENT_COLUMNS, EVENT_OPTIONAL):
        try:
            parsed.append((row, values["event"], event_of(values)))
        except CellError as error:
            raise CsvError(name, row, error.problem, error.column) from None
        except ValueError as error:
            raise CsvError(name, row, str(error)) from None
    last_row_of = {event: row for row, event, _ in parsed if event}
    open_periods: dict[str, tuple[list[Row], list[int]]] = {}
    steps: list[HistoryStep] = []
    rows: list[list[int]] = []
    labels: list[str] = []
    for row, event_name, event in parsed:
        if not event_name:
            steps.append(event)
            rows.append([row])
            labels.append("")
            continue
        assert not isinstance(event, SeasonStart)  # a season row is in no event (season_of)
        members, member_rows = open_periods.setdefault(event_name, ([], []))
        members.append(event)
        member_rows.append(row)
        if row == last_row_of[event_name]:
            del open_periods[event_name]
            steps.append(period(members))
            rows.append(member_rows)
            labels.append(event_name)
    return History(steps, rows, labels, name)
