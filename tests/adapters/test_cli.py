"""`clubrating replay`: the JSON contract and every bad input refused with one clear line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

HEADER = "played_at,event,player_a,player_b,score_a"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text.strip() + "\n", encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_contract_shape_and_pool_example(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    players = write(tmp_path, "PLAYERS.csv", """
player,rating,games,status
r1,1300,40,active
r2,1200,40,active
""")
    events = write(tmp_path, "EVENTS.csv", HEADER + ",kind\n" + """
2024-01-01,,r1,,,retire
2024-01-01,,r2,,,retire
2024-01-08T19:00:00,night,n1,,,join
2024-01-08T19:00:00,night,n2,,,join
2024-01-08T19:00:00,night,n3,,,join
2024-01-08T19:00:00,night,n4,,,join
2024-01-08T19:00:00,night,n5,,,join
""")
    code, out, err = run(capsys, "replay", "--players", str(players), str(events))
    assert code == 0, err
    data = json.loads(out)
    assert data["system"] == "club"
    assert data["pool"] == 0.0
    by_name = {p["player"]: p for p in data["players"]}
    assert set(by_name) == {"r1", "r2", "n1", "n2", "n3", "n4", "n5"}
    # A newcomer's deviation is the league's (club, docs/rating-systems.md): 1.25 x the spread of r1
    # and r2's 1300 and 1200 is 62.5, below an established player's 74.56, so 74.56; n3 is
    # provisional all the same, for their first 24 games.
    assert by_name["n3"] == {
        "player": "n3", "rating": 1400.0, "games": 0, "provisional": True,
        "deviation": 74.55849628554498, "volatility": None, "status": "active",
    }
    assert by_name["r1"]["status"] == "retired"
    assert [p["rating"] for p in data["players"]] == sorted(
        (p["rating"] for p in data["players"]), reverse=True)


def test_japanese_example_with_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players = write(tmp_path, "PLAYERS.csv", "player,rating,games\nA,1500,30\nB,1700,30")
    events = write(tmp_path, "EVENTS.csv", HEADER + "\n2024-05-01,,A,B,1")
    code, out, _ = run(capsys, "replay", "--system", "elo", "--set", "k=32",
                       "--players", str(players), str(events))
    assert code == 0
    ratings = {p["player"]: round(p["rating"], 2) for p in json.loads(out)["players"]}
    assert ratings == {"A": 1524.31, "B": 1675.69}


def test_event_rows_are_rated_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players = write(tmp_path, "PLAYERS.csv", "player,rating,games\nA,1500,30\nB,1500,30\nC,1500,30")
    together = write(tmp_path, "E1.csv", HEADER + "\n2024-05-01,cup,A,B,1\n2024-05-01,cup,A,C,1")
    apart = write(tmp_path, "E2.csv", HEADER + "\n2024-05-01,,A,B,1\n2024-05-01,,A,C,1")
    ratings = []
    for events in (together, apart):
        code, out, _ = run(capsys, "replay", "--system", "elo", "--players", str(players),
                           str(events))
        assert code == 0
        ratings.append({p["player"]: p["rating"] for p in json.loads(out)["players"]})
    assert ratings[0]["A"] == 1532.0  # both from 1500 vs 1500
    assert ratings[1]["A"] < 1532.0  # the second game from A's raised rating


#: bad files: the row and the column named ("" when the problem is the header or the whole
#: row), and the problem
BAD_EVENTS = [
    ("played_at,player_a,player_b,score_a\n2024-01-01,a,b,1", None, "", "missing column event"),
    (HEADER + "\n2024-01-01,,a,b,2", 1, "score_a", "must be 1, 0.5 or 0"),
    (HEADER + "\n2024-01-01,,a,b,NaN", 1, "score_a", "must be a finite number"),
    (HEADER + "\n2024-01-01,,a,b,1\n2024-01-02,,a,a,1", 2, "player_b", "against themself"),
    (HEADER + "\nyesterday,,a,b,1", 1, "played_at", "must be an ISO 8601"),
    (HEADER + ",handicap\n2024-01-01,,a,b,1,inf", 1, "handicap", "must be a finite number"),
    (HEADER + ",kind\n2024-01-01,,a,,,leave", 1, "kind", "must be one of"),
    (HEADER + ",kind\n2024-01-01,,a,b,1,\n2024-01-02,,a,,,return", 2, "player_a",
     "not retired"),
    (HEADER + ",kind\n2024-01-01,,a,b,1,\n2024-01-02,,a,,,retire\n2024-01-03,,a,b,0,", 3,
     "player_a", "retired"),
    (HEADER + ",kind\n2024-01-01,,a,b,1,\n2024-01-02,,b,,,retire\n2024-01-03,,a,b,0,", 3,
     "player_b", "retired"),
    (HEADER + ",kind\n2024-01-01,,a,b,1,retire", 1, "player_b", "must be empty"),
    (HEADER + ",komi\n2024-01-01,,a,b,1,6.5", None, "", "unknown column komi"),
    (HEADER + ",colour\n2024-01-01,,a,b,1,red", 1, "colour", "must be white, black or empty"),
    (HEADER + "\n2024-01-01,,a,b", 1, "", "4 values for 5 columns"),
    (HEADER + "\n2024-01-01,,," + "x" * 500 + ",1", 1, "player_a", "is empty"),
    (HEADER + "\n2024-01-01,,a," + "x" * 500 + ",1", 1, "player_b", "longer than 100"),
    ("", None, "", "empty"),
]


@pytest.mark.parametrize(("text", "row", "column", "message"), BAD_EVENTS)
def test_bad_events_exit_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, row: int | None, column: str,
    message: str,
) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "replay", str(path))
    assert code != 0
    assert out == ""  # no partial JSON
    assert err.count("\n") == 1 and "EVENTS.csv" in err and message in err
    if row is not None:
        place = f"EVENTS.csv row {row}, column {column}: " if column else f"row {row}: "
        assert place in err


BAD_PLAYERS = [
    ("player,rating,status\na,1500,banned", "row 1, column status: must be active or retired"),
    ("player,rating\na,fast", "row 1, column rating: must be a number"),
    ("player,rating\na,NaN", "row 1, column rating: must be a finite number"),
    ("player,rating,games\na,1500,-3", "row 1, column games: must be a whole number"),
    ("player,rating,deviation\na,1500,0", "row 1, column deviation: must be positive"),
    ("player,rating\na,1500\na,1600", "row 2, column player: 'a' is listed twice"),
    ("player,games\na,3", "missing column rating"),
    ("player,rating,birth_date\na,1500,13/05/2010",
     "row 1, column birth_date: must be an ISO 8601 date"),
    ("player,rating,status\na,,retired", "row 1, column status: must be empty: a player "
                                          "without a rating can only give a birth_date"),
]


@pytest.mark.parametrize(("text", "message"), BAD_PLAYERS)
def test_bad_players_exit_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    players = write(tmp_path, "PLAYERS.csv", text)
    events = write(tmp_path, "EVENTS.csv", HEADER + "\n2024-01-01,,a,b,1")
    code, out, err = run(capsys, "replay", "--players", str(players), str(events))
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "PLAYERS.csv" in err and message in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--system", "trueskill"], "unknown rating system 'trueskill'"),
        (["--set", "kk=3"], "unknown parameter 'kk'"),
        (["--set", "k=fast"], "parameter 'k' must be a number"),
        (["--set", "k=-5"], "k is a number from 1 to 400 (not -5)."),
        (["--set", "k"], "--set takes KEY=VALUE"),
        (["--system", "elo", "--set", "curve=cubic"], "must be one of logistic, normal"),
    ],
)
def test_bad_options_exit_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    events = write(tmp_path, "EVENTS.csv", HEADER + "\n2024-01-01,,a,b,1")
    code, out, err = run(capsys, "replay", *args, str(events))
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("2024-01-01,,ann,mate-in-2,1,", "column seconds: is required by tactics"),
        ("2024-01-01,,ann,mate-in-2,0.5,20",
         "column score_a: must be 1 (solved) or 0 (failed)"),
    ],
)
def test_tactics_needs_times_and_decided_attempts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: str, message: str
) -> None:
    events = write(tmp_path, "EVENTS.csv", HEADER + ",seconds\n2024-01-01,,bo,mate-in-3,1,9\n"
                   + rows)
    code, out, err = run(capsys, "replay", "--system", "tactics", str(events))
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and f"EVENTS.csv row 2, {message}" in err


def test_tactics_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Seed 004: a 1500 user solving a 1500 problem in 15 s (125 points faster than the
    # 30 s target) is estimated at 1500 + 125 + 400 = 2025.
    events = write(tmp_path, "EVENTS.csv", HEADER + ",seconds\n2024-01-01,,ann,mate-in-2,1,15")
    code, out, _ = run(capsys, "replay", "--system", "tactics", str(events))
    assert code == 0
    ratings = {p["player"]: p["rating"] for p in json.loads(out)["players"]}
    assert ratings["ann"] == pytest.approx(2025.0)


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "replay", str(tmp_path / "nope.csv"))
    assert code != 0 and out == "" and "nope.csv: cannot open the file" in err


def test_console_script_is_installed(tmp_path: Path) -> None:
    events = write(tmp_path, "EVENTS.csv", HEADER + "\n2024-01-01,,a,b,1")
    script = Path(sys.executable).parent / "clubrating"
    done = subprocess.run([str(script), "replay", "--system", "shogi24", str(events)],
                          capture_output=True, text=True, check=True)
    ratings = {p["player"]: p["rating"] for p in json.loads(done.stdout)["players"]}
    assert ratings == {"a": 1516.0, "b": 1484.0}
