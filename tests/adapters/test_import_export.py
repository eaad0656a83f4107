"""`clubrating import` and `clubrating export`: a history goes in, the effective history comes out
in the same EVENTS.csv format, replays to the ratings the bot shows, and survives a round trip
into another club unchanged. A bad row refuses the whole file and stores nothing."""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.chat.messages import text
from bot.cli import main
from bot.service.club import Caller
from bot.service.results import Leaderboard
from ratings_core.glickman import Q, attenuation
from tests.chat import open_club

HEADER = "played_at,event,player_a,player_b,score_a,handicap,kind"
CONSOLE = "console:local"
TELEGRAM = "telegram:-1001234"

#: games, an event whose rows are rated together, and no membership rows
GAMES = f"""{HEADER}
2024-01-06T19:00:00,,ann,bob,1,,
2024-01-13T19:00:00,night,ann,carl,0.5,,
2024-01-13T19:00:00,night,bob,carl,0,,
2024-01-13T19:00:00,night,dora,ann,1,,
2024-01-20T19:00:00,,ann,carl,1,50,
2024-01-27T19:00:00,,bob,dora,0,-12.5,
"""

#: the same club with join, retire and return rows (one of them inside an event)
MEMBERSHIP = f"""{HEADER}
2024-01-06T19:00:00,,ann,bob,1,,
2024-01-06T19:30:00,,carl,,,,join
2024-01-13T19:00:00,night,ann,carl,0.5,,
2024-01-13T19:00:00,night,bob,carl,0,,
2024-01-13T19:00:00,night,dora,ann,1,,
2024-01-13T19:00:00,night,eve,,,,join
2024-01-20T00:00:00,,bob,,,,retire
2024-01-27T19:00:00,,ann,carl,1,50,
2024-02-03T00:00:00,,bob,,,,return
2024-02-03T19:00:00,,bob,dora,0,,
"""


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "club.db"
    monkeypatch.setenv("CLUBRATING_DB", str(path))
    return path


def write(folder: Path, name: str, content: str) -> Path:
    path = folder / name
    path.write_text(content, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def import_(capsys: pytest.CaptureFixture[str], folder: Path, content: str,
            chat: str = CONSOLE) -> int:
    code, _, err = run(capsys, "import", "--chat", chat, str(write(folder, "EVENTS.csv", content)))
    assert err == ""
    return code


def export(capsys: pytest.CaptureFixture[str], chat: str = CONSOLE) -> str:
    code, out, err = run(capsys, "export", "--chat", chat)
    assert code == 0, err
    return out


def replayed(capsys: pytest.CaptureFixture[str], folder: Path, content: str,
             *options: str) -> object:
    """The `clubrating replay` JSON of a history (the club system, like the bot's ladder;
    ``options`` such as ``--set uncertainty=games`` as the ladder was set)."""
    path = write(folder, "replayed.csv", content)
    code, out, err = run(capsys, "replay", *options, str(path))
    assert code == 0, err
    return json.loads(out)


def stored_events(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        (count,) = connection.execute("SELECT count(*) FROM events").fetchone()
    return int(count)


def test_import_then_export_gives_the_effective_history(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "import", "--chat", CONSOLE,
                         str(write(tmp_path, "EVENTS.csv", GAMES)))
    assert (code, out) == (0, text("imported", games=6, steps=4, ladder="main") + "\n"), err

    exported = export(capsys)
    assert exported == f"""{HEADER}
2024-01-06T19:00:00,,ann,bob,1,0,game
2024-01-13T19:00:00,night,ann,carl,0.5,0,game
2024-01-13T19:00:00,night,bob,carl,0,0,game
2024-01-13T19:00:00,night,dora,ann,1,0,game
2024-01-20T19:00:00,,ann,carl,1,50,game
2024-01-27T19:00:00,,bob,dora,0,-12.5,game
"""
    # The export replays to exactly what the original file replays to.
    assert replayed(capsys, tmp_path, exported) == replayed(capsys, tmp_path, GAMES)


async def test_the_bot_shows_what_the_export_replays_to(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # main() runs its own event loop: call it from a worker thread of this async test.
    events = write(tmp_path, "EVENTS.csv", GAMES)
    code = await asyncio.to_thread(main, ["import", "--chat", CONSOLE, str(events)])
    assert code == 0
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["export", "--chat", CONSOLE]) == 0
    exported = capsys.readouterr().out
    data = replayed(capsys, tmp_path, exported)
    assert isinstance(data, dict)
    expected = {p["player"]: p["rating"] for p in data["players"]}
    # ann beat bob as two newcomers of deviation 150 (issue 19, the console smoke test): each
    # weighs the other by w = g(sqrt(150^2 - 74.56^2)) = 0.924, the game's information (3/4 of
    # Glicko's) shrinks 150 to 141.8, K = q 141.8^2 = 115.7: 1500 +- 115.7 x 0.924 x 1/2 =
    # 1553.47 and 1446.53.
    w = attenuation(math.sqrt(150.0**2 - 32 / Q))
    deviation = 1.0 / math.sqrt(1.0 / 150.0**2 + Q * Q * (0.75 * (w * w * 0.25)))
    k = Q * deviation * deviation
    first = replayed(capsys, tmp_path, "\n".join(GAMES.splitlines()[:2]) + "\n")
    assert isinstance(first, dict)
    assert {p["player"]: p["rating"] for p in first["players"]} == {
        "ann": 1500.0 + k * (w * (1.0 - 0.5)), "bob": 1500.0 + k * (w * (0.0 - 0.5))}
    assert round(k * w / 2, 2) == 53.47

    async with open_club(db) as chat:
        board = await chat.as_("visitor", "/top")
        for name, rating in expected.items():
            profile = await chat.say(f"/rating @{name}")
            assert profile.startswith(f"{name} (main): {rating:.0f}"), profile
        shown = [line.split()[1] for line in board.splitlines()[1:]]
        assert shown == [p["player"] for p in data["players"]]


def test_round_trip_into_another_club_is_exact(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert import_(capsys, tmp_path, GAMES) == 0
    first = export(capsys)
    again = write(tmp_path, "first-export.csv", first)
    assert run(capsys, "import", "--chat", TELEGRAM, str(again))[0] == 0
    assert export(capsys, TELEGRAM) == first
    # The console club was not touched by the other club's import.
    assert export(capsys) == first


def test_colours_go_in_and_come_out_and_count(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    coloured = f"""{HEADER},colour
2024-01-06T19:00:00,,ann,bob,1,0,game,white
2024-01-13T19:00:00,,bob,carl,0.5,0,game,black
2024-01-20T19:00:00,,carl,ann,0,0,game,
"""
    assert import_(capsys, tmp_path, coloured) == 0
    assert export(capsys) == coloured
    # White's 30 points (club's first-move advantage) change the ratings: the same games
    # without colours replay to other numbers.
    plain = coloured.replace(",white\n", ",\n").replace(",black\n", ",\n")
    assert replayed(capsys, tmp_path, coloured) != replayed(capsys, tmp_path, plain)


def test_round_trip_keeps_membership_rows_and_their_dates(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = write(tmp_path, "EVENTS.csv", MEMBERSHIP)
    assert run(capsys, "import", "--chat", CONSOLE, str(events))[0] == 0
    first = export(capsys)
    assert replayed(capsys, tmp_path, first) == replayed(capsys, tmp_path, MEMBERSHIP)
    # Members who join inside an event come first in its period; everything else in file order.
    assert first == f"""{HEADER}
2024-01-06T19:00:00,,ann,bob,1,0,game
2024-01-06T19:30:00,,carl,,,,join
2024-01-13T19:00:00,night,eve,,,,join
2024-01-13T19:00:00,night,ann,carl,0.5,0,game
2024-01-13T19:00:00,night,bob,carl,0,0,game
2024-01-13T19:00:00,night,dora,ann,1,0,game
2024-01-20T00:00:00,,bob,,,,retire
2024-01-27T19:00:00,,ann,carl,1,50,game
2024-02-03T00:00:00,,bob,,,,return
2024-02-03T19:00:00,,bob,dora,0,0,game
"""
    assert run(capsys, "import", "--chat", TELEGRAM,
               str(write(tmp_path, "first-export.csv", first)))[0] == 0
    assert export(capsys, TELEGRAM) == first


def test_membership_rows_replay_to_the_same_ratings(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = write(tmp_path, "EVENTS.csv", MEMBERSHIP)
    code, out, err = run(capsys, "import", "--chat", CONSOLE, str(events))
    assert (code, out) == (0, text("imported", games=6, steps=7, ladder="main") + "\n"), err
    first = export(capsys)
    assert replayed(capsys, tmp_path, first) == replayed(capsys, tmp_path, MEMBERSHIP)
    kinds = [line.rsplit(",", 1)[1] for line in first.splitlines()[1:]]
    assert kinds == ["game", "join", "join", "game", "game", "game", "retire", "game", "return",
                     "game"]


def test_output_writes_the_file(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert import_(capsys, tmp_path, GAMES) == 0
    on_stdout = export(capsys)
    target = tmp_path / "out" / "EXPORT.csv"
    target.parent.mkdir()
    assert run(capsys, "export", "--chat", CONSOLE, "--output", str(target)) == (0, "", "")
    assert target.read_text(encoding="utf-8") == on_stdout


#: bad files, the row named and the problem (data rows count from 1 after the header)
BAD = [
    ("score of 2", "2024-03-01,,ann,bob,1,,\n2024-03-02,,ann,bob,2,,\n",
     "BAD.csv row 2, column score_a: must be 1, 0.5 or 0, not '2'"),
    ("self-play", "2024-03-01,,ann,bob,1,,\n2024-03-02,,carl,carl,1,,\n",
     "BAD.csv row 2, column player_b: player 'carl' cannot play against themself"),
]
#: rows that are well-formed but cannot apply to the ladder; refused by the service, naming the
#: file, the row and the column
BAD_FOR_LADDER = [
    ("retired player plays", "2024-03-01,,zed,ann,1,,\n2024-03-02,,zed,,,,retire\n"
     "2024-03-03,,ann,dora,1,,\n2024-03-04,,dora,zed,0.5,,\n", 4, "player_b",
     "player 'zed' is retired; a 'return' must come before their games"),
    ("return of an active player", "2024-03-01,,zed,ann,1,,\n2024-03-02,,ann,,,,return\n", 2,
     "player_a", "player 'ann' is not retired"),
]


@pytest.mark.parametrize(("case", "rows", "message"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_row_refuses_the_whole_file(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, rows: str,
    message: str,
) -> None:
    assert import_(capsys, tmp_path, GAMES) == 0
    before, count = export(capsys), stored_events(db)
    code, out, err = run(capsys, "import", "--chat", CONSOLE,
                         str(write(tmp_path, "BAD.csv", HEADER + "\n" + rows)))
    assert (code, out, err) == (2, "", f"clubrating: {message}\n")
    assert stored_events(db) == count
    assert export(capsys) == before


@pytest.mark.parametrize(("case", "rows", "row", "column", "problem"), BAD_FOR_LADDER,
                         ids=[b[0] for b in BAD_FOR_LADDER])
def test_a_row_that_cannot_apply_refuses_a_first_import(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, rows: str,
    row: int, column: str, problem: str,
) -> None:
    code, out, err = run(capsys, "import", "--chat", CONSOLE,
                         str(write(tmp_path, "BAD.csv", HEADER + "\n" + rows)))
    assert (code, out) == (2, "")
    refusal = text("import_row", file="BAD.csv", row=row, column=column, problem="PROBLEM")
    start, end = refusal.split("PROBLEM")
    assert err.startswith(f"clubrating: {start}") and err.endswith(end + "\n")
    assert err.count("\n") == 1
    # nothing of the file: the club holds only the main ladder it began with
    assert stored_events(db) == 1
    assert export(capsys) == HEADER + "\n"


@pytest.mark.parametrize(("case", "rows", "row", "column", "problem"), BAD_FOR_LADDER,
                         ids=[b[0] for b in BAD_FOR_LADDER])
def test_the_refusal_names_players_as_the_file_does(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, rows: str,
    row: int, column: str, problem: str,
) -> None:
    code, out, err = run(capsys, "import", "--chat", CONSOLE,
                         str(write(tmp_path, "BAD.csv", HEADER + "\n" + rows)))
    refusal = text("import_row", file="BAD.csv", row=row, column=column, problem=problem)
    assert (code, out, err) == (2, "", f"clubrating: {refusal}\n")
    assert err.startswith(f"clubrating: BAD.csv row {row}, column {column}: ")


@pytest.mark.parametrize(("case", "rows", "row", "column", "problem"), BAD_FOR_LADDER,
                         ids=[b[0] for b in BAD_FOR_LADDER])
def test_a_row_that_cannot_apply_refuses_an_import_on_top_of_a_history(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, rows: str,
    row: int, column: str, problem: str,
) -> None:
    assert import_(capsys, tmp_path, GAMES) == 0
    before, count = export(capsys), stored_events(db)
    code, out, err = run(capsys, "import", "--chat", CONSOLE,
                         str(write(tmp_path, "BAD.csv", HEADER + "\n" + rows)))
    refusal = text("import_row", file="BAD.csv", row=row, column=column, problem=problem)
    assert (code, out, err) == (2, "", f"clubrating: {refusal}\n")
    assert stored_events(db) == count
    assert export(capsys) == before


def test_chat_without_a_colon_is_a_one_line_error(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = write(tmp_path, "EVENTS.csv", GAMES)
    for argv in (["export", "--chat", "consolelocal"],
                 ["import", "--chat", "consolelocal", str(events)]):
        assert run(capsys, *argv) == (2, "", "clubrating: --chat takes PLATFORM:CHAT_ID "
                                             "(e.g. telegram:-1001234), not 'consolelocal'\n")
    assert not db.exists()


def test_unknown_ladder_is_a_one_line_error(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = write(tmp_path, "EVENTS.csv", GAMES)
    refusal = text("unknown_ladder", ladder="blitz", ladders="main")
    # (an export creates nothing: before the import there is no club to export from)
    assert run(capsys, "import", "--chat", CONSOLE, "--ladder", "blitz", str(events)) == (
        2, "", f"clubrating: EVENTS.csv: {refusal}\n")
    assert run(capsys, "export", "--chat", CONSOLE, "--ladder", "blitz") == (
        2, "", f"clubrating: {refusal}\n")
    assert export(capsys) == HEADER + "\n"


def pool_history() -> str:
    """Seed 002's pool example without PLAYERS.csv, on a ladder set to edition 1's provisional
    rule (``uncertainty=games``): r1 and r2 reach 1300 and 1200 as newcomers
    in one event (ten and thirty losses to w at 1500: performance 1100, weighted with 10 prior
    games at 1500: (10*1500 + 10*1100) / 20 = 1300 and (10*1500 + 30*1100) / 40 = 1200),
    retire, and five newcomers who join together share the 500-point pool: 1400 each.
    w, a newcomer too, wins all 40: (10*1500 + 40*1900) / 50 = 1820."""
    rows = [HEADER]
    rows += ["2024-01-01T19:00:00,warmup,r1,w,0,,"] * 10
    rows += ["2024-01-01T19:00:00,warmup,r2,w,0,,"] * 30
    rows += ["2024-01-02T00:00:00,,r1,,,,retire", "2024-01-02T00:00:00,,r2,,,,retire"]
    rows += [f"2024-01-08T19:00:00,night,n{i},,,,join" for i in range(1, 6)]
    return "\n".join(rows) + "\n"


async def test_pool_example_of_seed_002_through_import(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with open_club(db) as chat:  # the arithmetic below is edition 1's
        assert (await chat.as_("mod!", "/system club uncertainty=games")).startswith(
            "Ladder main now uses club (uncertainty=games)")
    events = write(tmp_path, "POOL.csv", pool_history())
    assert await asyncio.to_thread(main, ["import", "--chat", CONSOLE, str(events)]) == 0
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["export", "--chat", CONSOLE]) == 0
    data = replayed(capsys, tmp_path, capsys.readouterr().out, "--set", "uncertainty=games")
    assert isinstance(data, dict)
    assert data["pool"] == 0.0
    assert [(p["player"], p["rating"], p["status"]) for p in data["players"]] == [
        ("w", 1820.0, "active"),
        *((f"n{i}", 1400.0, "active") for i in range(1, 6)),
        ("r1", 1300.0, "retired"),
        ("r2", 1200.0, "retired"),
    ]

    async with open_club(db) as chat:
        board = await chat.as_("visitor", "/top")
        assert [line.split()[1:3] for line in board.splitlines()[1:]] == [
            ["w", "1820"], *([f"n{i}", "1400?"] for i in range(1, 6))]
        # w (40 games) and r2 (30) are past the 24 provisional games; r1 (10) is not.
        assert (await chat.say("/rating @r1")).startswith("r1 (main): 1300?")
        assert (await chat.say("/rating @r2")).startswith("r2 (main): 1200, ")




#: values outside every door's bounds: refused by the reading of the file, the row and the
#: column named, whatever the ladder (`clubrating replay` refuses them alike)
OUT_OF_BOUNDS = [
    ("handicap 1e308", "2024-03-01,,ann,bob,1,1e308,,", "handicap",
     "must be from -1000 to 1000 (in the system's unit), not '1e308'"),
    ("handicap -1001", "2024-03-01,,ann,bob,1,-1001,,", "handicap",
     "must be from -1000 to 1000 (in the system's unit), not '-1001'"),
    ("year 1 with a time zone", "0001-01-01T00:00:00+01:00,,ann,bob,1,,,", "played_at",
     "is out of range, not '0001-01-01T00:00:00+01:00'"),
    ("year 9999 with a time zone", "9999-12-31T23:00:00-05:00,,ann,bob,1,,,", "played_at",
     "is out of range, not '9999-12-31T23:00:00-05:00'"),
    ("seconds -1", "2024-03-01,,ann,bob,1,,,-1", "seconds",
     "must be above 0 and at most 86400, not '-1'"),
    ("seconds 0", "2024-03-01,,ann,bob,1,,,0", "seconds",
     "must be above 0 and at most 86400, not '0'"),
    ("seconds 86401", "2024-03-01,,ann,bob,1,,,86401", "seconds",
     "must be above 0 and at most 86400, not '86401'"),
]


@pytest.mark.parametrize(("case", "row", "column", "problem"), OUT_OF_BOUNDS,
                         ids=[b[0] for b in OUT_OF_BOUNDS])
def test_a_value_out_of_bounds_refuses_the_whole_file(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, row: str,
    column: str, problem: str,
) -> None:
    assert import_(capsys, tmp_path, GAMES) == 0
    before, count = export(capsys), stored_events(db)
    content = f"{HEADER},seconds\n2024-02-01,,ann,bob,0,,,\n{row}\n2024-03-02,,bob,ann,1,,,\n"
    path = write(tmp_path, "BAD.csv", content)
    line = f"clubrating: BAD.csv row 2, column {column}: {problem}\n"
    assert run(capsys, "import", "--chat", CONSOLE, str(path)) == (2, "", line)
    assert stored_events(db) == count
    assert export(capsys) == before
    # `clubrating replay` reads the file alike: the same one line, exit 2.
    assert run(capsys, "replay", str(path)) == (2, "", line)


def tomorrow_in(zone: str) -> date:
    return datetime.now(ZoneInfo(zone)).date() + timedelta(days=1)


#: days before 1900: any history's file reads them (`clubrating replay`, `evaluate`), only
#: `clubrating import` refuses them, with the ladder's own bounds (``importing.check_dates``)
BEFORE_1900 = [("0001-01-01", "0001-01-01T00:00:00"),
               ("1899-12-31T23:59:59", "1899-12-31T23:59:59")]


@pytest.mark.parametrize(("played_at", "moment"), BEFORE_1900, ids=[b[0] for b in BEFORE_1900])
def test_a_game_before_1900_refuses_the_whole_import_but_replays(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], played_at: str, moment: str,
) -> None:
    assert import_(capsys, tmp_path, GAMES) == 0
    before, count = export(capsys), stored_events(db)
    content = f"{HEADER},seconds\n2024-02-01,,ann,bob,0,,,\n{played_at},,ann,bob,1,,,\n"
    path = write(tmp_path, "BAD.csv", content)
    refusal = text("import_bad_date", file="BAD.csv", row=2, column="played_at",
                   first="1900-01-01", last=tomorrow_in("UTC").isoformat(), zone="UTC",
                   text=moment)
    assert run(capsys, "import", "--chat", CONSOLE, str(path)) == (
        2, "", f"clubrating: {refusal}\n")
    assert stored_events(db) == count
    assert export(capsys) == before
    # `clubrating replay` reads the same file: the game of year 1 or 1899 is rated first.
    code, out, err = run(capsys, "replay", str(path))
    assert (code, err) == (0, "")
    assert {p["player"]: p["games"] for p in json.loads(out)["players"]} == {"ann": 2, "bob": 2}


def test_replay_reads_a_history_from_1872(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The first international football match, Scotland 0 England 0, Glasgow, 30 November 1872;
    # then England beat Scotland 4-2 at the Oval on 8 March 1873.
    path = write(tmp_path, "FOOTBALL.csv", f"{HEADER}\n"
                 "1872-11-30T14:00:00,,Scotland,England,0.5,,\n"
                 "1873-03-08T14:00:00,,England,Scotland,1,,\n")
    code, out, err = run(capsys, "replay", str(path))
    assert (code, err) == (0, "")
    players = {p["player"]: p for p in json.loads(out)["players"]}
    assert {name: p["games"] for name, p in players.items()} == {"England": 2, "Scotland": 2}
    # The draw of two equals moves nobody and shrinks both deviations from 150 to 141.8. Time
    # away grows a deviation no further than a newcomer's, and a league of two equals gives a
    # newcomer the floor (74.56), so 98 days on they are still 141.8: w 0.934, settled at
    # 134.6, K 104.3, and the win moves both by 104.3 x 0.934 x 1/2 = 48.7.
    assert [(round(p["rating"], 1), round(p["deviation"], 1)) for p in players.values()] == [
        (1548.7, 134.6), (1451.3, 134.6)]


@pytest.mark.parametrize("played_at", ["9999-12-31", "AFTER_TOMORROW"])
def test_a_game_after_tomorrow_refuses_the_whole_file(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], played_at: str
) -> None:
    assert import_(capsys, tmp_path, GAMES) == 0
    before, count = export(capsys), stored_events(db)
    last = tomorrow_in("UTC")
    if played_at == "AFTER_TOMORROW":
        played_at = (last + timedelta(days=1)).isoformat()
    rows = f"2024-03-01,,ann,bob,1,,\n{played_at},,bob,ann,1,,\n"
    code, out, err = run(capsys, "import", "--chat", CONSOLE,
                         str(write(tmp_path, "BAD.csv", HEADER + "\n" + rows)))
    moment = datetime.fromisoformat(played_at).isoformat()
    refusal = text("import_row", file="BAD.csv", row=2, column="played_at", problem=(
        f"must be a day from 1900-01-01 to {last} (tomorrow in the ladder's time zone, "
        f"UTC), not '{moment}'"))
    assert (code, out, err) == (2, "", f"clubrating: {refusal}\n")
    assert stored_events(db) == count
    assert export(capsys) == before


async def test_tomorrow_is_the_ladders_tomorrow(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Kiritimati is 14 hours ahead of UTC: its tomorrow is a day or two after UTC's today.
    zone = "Pacific/Kiritimati"
    async with open_club(db) as chat:
        assert "timezone" in await chat.as_("mod!", f"/set timezone {zone}")
    last = tomorrow_in(zone)
    # Tomorrow there ends at 10:00 UTC of that day: a game from then on is refused...
    late = write(tmp_path, "LATE.csv", f"{HEADER}\n{last}T10:00:00,,ann,bob,1,,\n")
    code, _, err = await asyncio.to_thread(run, capsys, "import", "--chat", CONSOLE, str(late))
    assert code == 2 and f"to {last} (tomorrow in the ladder's time zone, {zone})" in err
    # ... and its last minute is welcome, although UTC's tomorrow may be over by then.
    on_time = write(tmp_path, "ON_TIME.csv", f"{HEADER}\n{last}T09:59:00,,ann,bob,1,,\n")
    code, _, err = await asyncio.to_thread(run, capsys, "import", "--chat", CONSOLE,
                                           str(on_time))
    assert code == 0, err


def test_a_look_alike_of_a_members_name_refuses_the_whole_file(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert import_(capsys, tmp_path, GAMES) == 0
    before, count = export(capsys), stored_events(db)
    for rows, row, problem in [
        # a Cyrillic а in ann; fullwidth ｂｏｂ
        ("2024-03-01,,bob,\u0430nn,1,,\n", 1, "column player_b: '\u0430nn' looks too much "
                                            "like the member 'ann'"),
        ("2024-03-01,,ann,carl,1,,\n2024-03-02,,\uff42\uff4f\uff42,,,,join\n", 2,
         "column player_a: '\uff42\uff4f\uff42' looks too much like the member 'bob'"),
        # two new names of the file that look alike: the second is refused
        ("2024-03-01,,eve,ann,1,,\n2024-03-02,,ann,\u0435ve,1,,\n", 2,
         "column player_b: '\u0435ve' looks too much like 'eve' of row 1"),
    ]:
        code, out, err = run(capsys, "import", "--chat", CONSOLE,
                             str(write(tmp_path, "NAMES.csv", HEADER + "\n" + rows)))
        line = f"clubrating: NAMES.csv row {row}, {problem}. Nothing was imported.\n"
        assert (code, out, err) == (2, "", line)
        assert stored_events(db) == count
        assert export(capsys) == before
    # The very names of the members (in any case) are theirs: their games are imported.
    assert import_(capsys, tmp_path, f"{HEADER}\n2024-03-01,,ANN,Bob,1,,\n") == 0
    assert export(capsys).endswith("\n2024-03-01T00:00:00,,ann,bob,1,0,game\n")


async def test_a_puzzle_ladder_takes_attempts_at_its_own_problems_only(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 34: the log keeps an attempt's seconds, and a puzzle ladder's attempts name its
    # problems as the export writes them (@ID); an attempt at anything else is refused.
    async with open_club(db) as chat:
        assert "created" in await chat.as_("mod!", "/ladder create puzzles tactics")
        await chat.say("/puzzle add p1 answers=Qh7 White mates")
    puzzles = write(tmp_path, "PUZZLES.csv", f"{HEADER},seconds\n2024-03-01,,ann,p1,1,,,20\n")
    count = stored_events(db)
    code, out, err = await asyncio.to_thread(run, capsys, "import", "--chat", CONSOLE,
                                             "--ladder", "puzzles", str(puzzles))
    refusal = text("import_not_a_problem", file="PUZZLES.csv", row=1, name="p1",
                   ladder="puzzles")
    assert (code, out, err) == (2, "", f"clubrating: {refusal}\n")
    assert stored_events(db) == count
    unknown = write(tmp_path, "UNKNOWN.csv", f"{HEADER},seconds\n2024-03-01,,ann,@p9,1,,,20\n")
    code, out, err = await asyncio.to_thread(run, capsys, "import", "--chat", CONSOLE,
                                             "--ladder", "puzzles", str(unknown))
    assert code == 2 and "puzzles has no problem @p9" in err
    good = write(tmp_path, "GOOD.csv", f"{HEADER},seconds\n2024-03-01,,ann,'@p1,1,,,20\n")
    code, out, err = await asyncio.to_thread(run, capsys, "import", "--chat", CONSOLE,
                                             "--ladder", "puzzles", str(good))
    assert (code, out) == (0, "Imported 1 game (1 entry) into puzzles.\n"), err
    async with open_club(db) as chat:
        # 20 s: adj = 125 log2(20/30) = -73.1; ann: 1500 + 73.1 + 400 = 1973.1
        assert (await chat.as_("ann", "/rating @ann ladder=puzzles")).startswith(
            "ann (puzzles): 1973, rank 1, 1 game")


# -- seasons' resets as rows of kind season (issue 38) --------------------------------------

MOD = Caller("console", "local", "mod", "mod", moderator=True)


async def test_a_ladder_with_a_hard_and_a_soft_reset_exports_what_the_bot_shows(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Season S1 closes with a hard reset (everyone a newcomer again), S2 with a soft one of
    factor 0.25: the export writes both boundaries as season rows, its replay gives the bot's
    ratings to the bit, and imported into another club it is the same ladder."""
    async with open_club(db) as chat:
        for name in ("mod!", "ann", "bob", "cid"):
            await chat.as_(name, "/register")
        await chat.as_("mod!", "/set season_reset hard", "/report @ann @bob win")
        chat.clock.advance(hours=1)
        await chat.say("/report @cid @bob draw")
        chat.clock.advance(days=1)
        assert "Season S1 on main is closed" in await chat.say("/season close S1 confirm")
        chat.clock.advance(days=1)
        await chat.say("/report @bob @ann win")
        await chat.as_("mod!", "/set season_reset soft", "/set season_soft_factor 0.25")
        chat.clock.advance(days=1)
        assert "Season S2 on main is closed" in await chat.say("/season close S2 confirm")
        await chat.say("/report @cid @ann win")
        board = await chat.service.leaderboard(MOD, None)
        assert isinstance(board, Leaderboard)
        shown = {row.name: row.rating for row in board.rows}
    exported = await asyncio.to_thread(export, capsys)
    assert exported == f"""{HEADER}
2024-03-01T19:00:00,,mod,,,,join
2024-03-01T19:00:00,,ann,,,,join
2024-03-01T19:00:00,,bob,,,,join
2024-03-01T19:00:00,,cid,,,,join
2024-03-01T19:00:00,,ann,bob,1,0,game
2024-03-01T20:00:00,,cid,bob,0.5,0,game
2024-03-02T20:00:00,,hard,,0.5,,season
2024-03-03T20:00:00,,bob,ann,1,0,game
2024-03-04T20:00:00,,soft,,0.25,,season
2024-03-04T20:00:00,,cid,ann,1,0,game
"""
    data = replayed(capsys, tmp_path, exported)
    assert isinstance(data, dict)
    assert {p["player"]: p["rating"] for p in data["players"]} == shown
    # after the hard reset bob beat ann as two newcomers: 1553.47 (the first game of
    # test_the_bot_shows_what_the_export_replays_to); the soft reset took him a quarter of the
    # way back from 1500, and he has not played since
    assert shown["bob"] == 1500.0 + (1553.4693004625915 - 1500.0) * 0.25
    assert round(shown["bob"], 4) == 1513.3673
    # without its season rows the file replays to other ratings
    plain = "".join(line for line in exported.splitlines(keepends=True)
                    if not line.endswith(",season\n"))
    assert replayed(capsys, tmp_path, plain) != data
    # imported into another club: the same boundaries (S1, S2), the same ratings and export
    code, out, err = await asyncio.to_thread(
        run, capsys, "import", "--chat", TELEGRAM, str(write(tmp_path, "export.csv", exported)))
    assert (code, out) == (0, text("imported", games=4, steps=10, ladder="main") + "\n"), err
    assert await asyncio.to_thread(export, capsys, TELEGRAM) == exported
    with sqlite3.connect(db) as reading:
        closes = reading.execute("SELECT data FROM events WHERE kind = 'season_closed' AND "
                                 "actor = 'import' ORDER BY id").fetchall()
    reading.close()
    assert [json.loads(data) for (data,) in closes] == [
        {"ladder": "main", "name": "S1", "reset": "hard", "factor": 0.5, "automatic": False,
         "boundary": "2024-03-02T20:00:00"},
        {"ladder": "main", "name": "S2", "reset": "soft", "factor": 0.25, "automatic": False,
         "boundary": "2024-03-04T20:00:00"}]
