"""`clubrating import` applies the chat's rules (issue 15): a new player's name is one /register
takes, handicaps and dates are within the chat's bounds, and a history the ladder has imported
already is refused unless the operator allows it. Every refused row names the file, the row and
the column, and nothing is stored."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.chat.presenter import render
from bot.history import CsvError, History, read_events
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.service.errors import Refusal
from bot.service.events import HistoryImported, Kind, SeasonClosed, decode
from bot.service.parsing import MAX_HANDICAP, MAX_NAME
from bot.service.state import ClubState
from bot.storage.backends import open_repository
from bot.storage.repository import NewEvent, Repository, StoredEvent

NOW = datetime(2024, 3, 1, 19, 0)
HEADER = "played_at,event,player_a,player_b,score_a,handicap,kind"
PLATFORM, CHAT = "console", "rules"
GAMES = f"""{HEADER}
2024-01-06T19:00:00,,ann,bob,1,,
2024-01-13T19:00:00,night,ann,carl,0.5,,
2024-01-13T19:00:00,night,bob,carl,0,,
2024-01-20T19:00:00,,ann,carl,1,50,
"""


@dataclasses.dataclass
class Club:
    service: ClubService
    repository: Repository
    folder: Path

    def file(self, content: str, name: str = "EVENTS.csv") -> History:
        path = self.folder / name
        path.write_text(content, encoding="utf-8", newline="")
        return read_events(path)

    async def import_(self, history: History, ladder: str | None = None,
                      allow_duplicates: bool = False) -> str:
        return render(await self.service.import_history(
            PLATFORM, CHAT, history, history.labels, ladder, allow_duplicates=allow_duplicates))

    async def refused(self, history: History) -> str:
        """The refusal, and that nothing was stored."""
        before = await self.stored()
        with pytest.raises(Refusal) as refused:
            await self.import_(history)
        assert await self.stored() == before
        return render(refused.value)

    async def stored(self) -> list[StoredEvent]:
        club = await self.repository.find_club(PLATFORM, CHAT)
        return [] if club is None else await self.repository.events(club)


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    repository = await open_repository(tmp_path / "club.db")
    try:
        service = ClubService(repository, FakeClock(NOW))
        await service.export_history(PLATFORM, CHAT)  # the club and its main ladder exist
        yield Club(service, repository, tmp_path)
    finally:
        await repository.close()


# -- names: the rule of /register -------------------------------------------------------------


async def test_a_new_name_longer_than_register_takes_is_refused_naming_row_and_column(
        club: Club) -> None:
    long = "x" * (MAX_NAME + 1)
    history = club.file(f"{HEADER}\n2024-01-06,,ann,bob,1,,\n2024-01-07,,bob,{long},0,,\n")
    assert await club.refused(history) == text(
        "import_name_too_long", file="EVENTS.csv", row=2, column="player_b", name=long,
        limit=MAX_NAME)
    # The longest name /register takes is welcome.
    fits = "y" * MAX_NAME
    await club.import_(club.file(f"{HEADER}\n2024-01-06,,ann,{fits},1,,\n"))


@pytest.mark.parametrize(("name", "column"), [("@ann", "player_a"), ("12345", "player_b")])
async def test_a_new_name_register_refuses_is_refused_naming_row_and_column(
        club: Club, name: str, column: str) -> None:
    row = f"{name},zoe" if column == "player_a" else f"zoe,{name}"
    history = club.file(f"{HEADER}\n2024-01-06,,ann,bob,1,,\n2024-01-07,,{row},1,,\n")
    assert await club.refused(history) == text(
        "import_bad_name", file="EVENTS.csv", row=2, column=column, name=name, limit=MAX_NAME)


async def test_an_earlier_imported_name_now_merged_names_its_member(club: Club) -> None:
    await club.import_(club.file(f"{HEADER}\n2024-01-06,,ann,bob,1,,\n"))
    club_id = await club.repository.find_club(PLATFORM, CHAT)
    assert club_id is not None
    # ann's record was merged into a member who registered in the chat as "anna"
    last = (await club.stored())[-1].id
    async with club.repository.transaction(club_id, last) as tx:
        await tx.append([
            NewEvent("member_registered", "u1", NOW, {"user": "u1", "name": "anna",
                                                      "ladder": "main", "birth_date": None,
                                                      "handle": None}),
            NewEvent("players_merged", "mod", NOW, {"from": "import:ann", "into": "u1"}),
        ])
    club.service = ClubService(club.repository, FakeClock(NOW))  # reads the log afresh
    history = club.file(f"{HEADER}\n2024-02-06,,bob,ann,1,,\n", "MORE.csv")
    assert await club.refused(history) == text(
        "import_name_taken", file="MORE.csv", row=1, column="player_b", name="ann",
        member="anna")


# -- handicaps and dates: the chat's bounds ---------------------------------------------------


def test_a_handicap_beyond_the_chats_limit_names_file_row_and_column(tmp_path: Path) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f"{HEADER}\n2024-01-06,,ann,bob,1,{MAX_HANDICAP:g},\n"
                    f"2024-01-07,,ann,bob,1,{MAX_HANDICAP + 1:g},\n", encoding="utf-8")
    with pytest.raises(CsvError) as refused:
        read_events(path)
    assert str(refused.value) == (
        "EVENTS.csv row 2, column handicap: must be from -1000 to 1000 (in the system's unit), "
        "not '1001'")
    assert (refused.value.row, refused.value.column) == (2, "handicap")


async def test_a_game_after_tomorrow_names_file_row_and_column(club: Club) -> None:
    later = (NOW + timedelta(days=2)).date()
    history = club.file(f"{HEADER}\n2024-01-06,,ann,bob,1,,\n{later},,bob,ann,1,,\n")
    assert await club.refused(history) == text(
        "import_bad_date", file="EVENTS.csv", row=2, column="played_at", first="1900-01-01",
        last=(NOW + timedelta(days=1)).date().isoformat(), zone="UTC",
        text=f"{later}T00:00:00")
    assert render(Refusal("import_bad_date", file="E.csv", row=2, column="played_at",
                          first="1900-01-01", last="2024-03-02", zone="UTC",
                          text="2024-03-03T00:00:00")).startswith(
        "E.csv row 2, column played_at: must be a day from 1900-01-01 to 2024-03-02")


async def test_a_row_the_ladder_cannot_take_names_its_column(club: Club) -> None:
    history = club.file(f"{HEADER}\n2024-01-06,,ann,bob,1,,\n2024-01-07,,bob,,,,retire\n"
                        "2024-01-08,,ann,bob,1,,\n")
    assert await club.refused(history) == text(
        "import_row", file="EVENTS.csv", row=3, column="player_b",
        problem="player 'bob' is retired; a 'return' must come before their games")


async def test_look_alikes_name_file_row_and_column(club: Club) -> None:
    await club.import_(club.file(GAMES))
    history = club.file(f"{HEADER}\n2024-02-01,,bob,\u0430nn,1,,\n", "NAMES.csv")
    assert await club.refused(history) == text(
        "import_like_member", file="NAMES.csv", row=1, column="player_b", name="\u0430nn",
        member="ann")


# -- a history imported twice -----------------------------------------------------------------


async def test_the_same_history_is_refused_the_second_time(club: Club) -> None:
    answer = await club.import_(club.file(GAMES))
    assert answer == text("imported", games=4, steps=3, ladder="main")
    assert await club.refused(club.file(GAMES, "AGAIN.csv")) == text(
        "import_duplicate", file="AGAIN.csv", earlier="EVENTS.csv", ladder="main",
        day="2024-03-01")


async def test_the_same_rows_in_another_layout_are_the_same_history(club: Club) -> None:
    await club.import_(club.file(GAMES))
    # columns in another order, numbers and names written otherwise, Windows line ends, a
    # byte order mark and a blank row: the same rows
    relaid = ("\ufeffkind,handicap,score_a,player_b,player_a,event,played_at\r\n"
              ",,1.0,Bob,Ann,,2024-01-06T19:00:00\r\n"
              "game,0,0.5,carl,ann,night,2024-01-13T19:00:00+00:00\r\n"
              "\r\n"
              ",0.0,0,carl,bob,night,2024-01-13T19:00\r\n"
              "game,50.0,1,carl,ann,,2024-01-20T19:00:00\r\n")
    assert await club.refused(club.file(relaid, "RELAID.csv")) == text(
        "import_duplicate", file="RELAID.csv", earlier="EVENTS.csv", ladder="main",
        day="2024-03-01")


async def test_other_rows_or_another_ladder_are_no_duplicate(club: Club) -> None:
    await club.import_(club.file(GAMES))
    # one row more, one row less, one result changed: other histories
    await club.import_(club.file(GAMES + "2024-01-27,,bob,ann,1,,\n", "MORE.csv"))
    await club.import_(club.file("\n".join(GAMES.splitlines()[:-1]) + "\n", "LESS.csv"))
    club_id = await club.repository.find_club(PLATFORM, CHAT)
    assert club_id is not None
    recorded = [decode(e.kind, e.data) for e in await club.stored()
                if e.kind == Kind.HISTORY_IMPORTED]
    assert [(r.ladder, r.file) for r in recorded if isinstance(r, HistoryImported)] == [
        ("main", "EVENTS.csv"), ("main", "MORE.csv"), ("main", "LESS.csv")]


async def test_a_file_of_no_rows_is_no_duplicate(club: Club) -> None:
    for _ in range(2):
        assert await club.import_(club.file(HEADER + "\n")) == text(
            "imported", games=0, steps=0, ladder="main")
    assert [e.kind for e in await club.stored()] == [Kind.LADDER_CREATED]


async def test_allow_duplicates_imports_it_again(club: Club) -> None:
    await club.import_(club.file(GAMES))
    assert await club.import_(club.file(GAMES), allow_duplicates=True) == text(
        "imported", games=4, steps=3, ladder="main")
    games = [e for e in await club.stored() if e.kind == Kind.GAME_REPORTED]
    assert len(games) == 8


async def test_the_import_is_recorded_last_with_its_fingerprint(club: Club) -> None:
    history = club.file(GAMES)
    await club.import_(history)
    last = (await club.stored())[-1]
    assert last.kind == Kind.HISTORY_IMPORTED and last.actor == "import"
    assert last.data == {"ladder": "main", "fingerprint": history.fingerprint(),
                         "file": "EVENTS.csv"}
    state = ClubState.build(await club.stored())
    assert state.ladders["main"].imported == {history.fingerprint(): (NOW, "EVENTS.csv")}


def test_the_fingerprint_is_of_the_rows(tmp_path: Path) -> None:
    def of(content: str) -> str:
        path = tmp_path / "F.csv"
        path.write_text(content, encoding="utf-8")
        return read_events(path).fingerprint()

    base = of(GAMES)
    assert of(GAMES.replace("ann", "ANN")) == base
    assert of(GAMES.replace(",50,", ",50.0,")) == base
    for changed in (GAMES.replace(",50,", ",49,"), GAMES.replace("night", "day"),
                    GAMES.replace("2024-01-06T19:00:00", "2024-01-06T19:00:01"),
                    GAMES.replace("ann,bob,1", "bob,ann,0")):
        assert of(changed) != base


# -- season rows (issue 38) ---------------------------------------------------------------------

SEASONS = GAMES + "2024-01-21T00:00:00,,soft,,0.5,,season\n2024-01-27,,bob,ann,1,,\n"


def test_a_season_row_counts_in_the_fingerprint(tmp_path: Path) -> None:
    def of(content: str) -> str:
        path = tmp_path / "F.csv"
        path.write_text(content, encoding="utf-8")
        return read_events(path).fingerprint()

    base = of(SEASONS)
    assert of(SEASONS.replace(",0.5,,season", ",.50,,season")) == base
    for changed in (SEASONS.replace("soft,,0.5", "hard,,0.5"),
                    SEASONS.replace("soft,,0.5", "soft,,0.25"),
                    SEASONS.replace("2024-01-21T00:00:00", "2024-01-22T00:00:00"),
                    SEASONS.replace("2024-01-21T00:00:00,,soft,,0.5,,season\n", "")):
        assert of(changed) != base


async def test_season_rows_close_seasons_after_the_ladders_own(club: Club) -> None:
    """Each season row is a boundary of the ladder, named after the seasons it has, with the
    row's time, reset and factor."""
    await club.import_(club.file(SEASONS))
    assert await club.import_(club.file(
        f"{HEADER}\n2024-02-01,,ann,bob,1,,\n2024-02-02,,hard,,0.25,,season\n", "NEXT.csv")) == (
        text("imported", games=1, steps=2, ladder="main"))
    closed = [decode(e.kind, e.data) for e in await club.stored()
              if e.kind == Kind.SEASON_CLOSED]
    assert [(c.name, c.reset, c.factor, c.automatic, c.boundary) for c in closed
            if isinstance(c, SeasonClosed)] == [
        ("S1", "soft", 0.5, False, "2024-01-21T00:00:00"),
        ("S2", "hard", 0.25, False, "2024-02-02T00:00:00")]
    seasons = ClubState.build(await club.stored()).ladders["main"].seasons
    assert [(s.name, s.closed_at) for s in seasons] == [
        ("S1", datetime(2024, 1, 21)), ("S2", datetime(2024, 2, 2))]


async def test_a_season_row_after_tomorrow_names_file_row_and_column(club: Club) -> None:
    later = (NOW + timedelta(days=2)).date()
    history = club.file(f"{HEADER}\n2024-01-06,,ann,bob,1,,\n{later},,soft,,0.5,,season\n")
    assert await club.refused(history) == text(
        "import_bad_date", file="EVENTS.csv", row=2, column="played_at", first="1900-01-01",
        last=(NOW + timedelta(days=1)).date().isoformat(), zone="UTC",
        text=f"{later}T00:00:00")
