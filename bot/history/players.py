"""PLAYERS.csv: everyone's state before the first event (:class:`Roster`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from bot.history.cells import (
    PLAYER_COLUMNS,
    PLAYER_OPTIONAL,
    CellError,
    CsvError,
    read_date,
    read_name,
    read_number,
)
from bot.history.csvfile import records
from ratings_core.model import (
    PlayerState,
    Status,
)


@dataclass(frozen=True, slots=True)
class Roster:
    """PLAYERS.csv: rated players, and dates of birth of everyone listed."""

    players: dict[str, PlayerState]
    birth_dates: dict[str, date]


def read_players(path: Path) -> Roster:
    """PLAYERS.csv: a row with an empty rating lists a member who has not played yet (e.g. to
    give their date of birth for an age-dependent starting rating)."""
    name = path.name
    players: dict[str, PlayerState] = {}
    birth_dates: dict[str, date] = {}
    seen: set[str] = set()
    for row, values in records(path, PLAYER_COLUMNS, PLAYER_OPTIONAL):
        try:
            player = read_name(values["player"], "player")
            if player in seen:
                raise CellError("player", f"{player!r} is listed twice")
            seen.add(player)
            birth = (read_date(values["birth_date"], "birth_date") if values.get("birth_date")
                     else None)
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
                games_value = read_number(values["games"], "games")
                if games_value < 0 or games_value != int(games_value):
                    raise CellError("games", f"must be a whole number >= 0, "
                                             f"not {values['games']!r}")
                games = int(games_value)
            deviation = _positive(values.get("deviation"), "deviation")
            volatility = _positive(values.get("volatility"), "volatility")
            rating = read_number(values["rating"], "rating")
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
    value = read_number(text, column)
    if value <= 0:
        raise CellError(column, f"must be positive, not {text!r}")
    return value
