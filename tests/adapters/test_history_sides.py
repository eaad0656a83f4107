"""Issue 37: EVENTS.csv carries sides. A side is its members' names joined by " & " in a player
cell; a literal & inside a name is written && (one-on-one rows too, and join, retire, return
rows), and read back as &. A cell of one name is a game of one against one, exactly as before;
two or more names on either side make a TeamGame. Both readers (row by row, and column by
column for long files, a TeamGame there a team row of the columns) read the same values and
refuse the same files; the writer writes what they read back.

The values read are tested here; their ratings in tests/core/test_sides.py and (through the
command line and the chat's evaluation) tests/adapters/test_cli_teams.py.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.chat.messages import text
from bot.cli import main
from bot.history import CsvError, History, read_event_columns, read_events, write_events
from bot.history.cells import split_side
from bot.history.steps import HistoryStep, period, rows_of
from bot.service import events as ev
from bot.service.errors import Refusal
from bot.service.parsing import display_name
from bot.storage.backends import open_repository
from ratings_core.columns import EventColumns
from ratings_core.model import Game, Join, RatingPeriod, Retire, Return, TeamGame
from ratings_core.rows import GAME, TEAM
from tests.adapters.test_cli import run
from tests.chat import START, open_club

HEADER = "played_at,event,player_a,player_b,score_a,handicap,kind"
CONSOLE = "console:local"
TELEGRAM = "telegram:-1001234"
T = datetime(2024, 1, 6, 19)


def at(hours: int) -> datetime:
    return T + timedelta(hours=hours)


def written(folder: Path, steps: list[HistoryStep], labels: list[str],
            name: str = "EVENTS.csv") -> Path:
    """The steps as the export writes them (every key its own name)."""
    names = {key: key for step in steps for row in rows_of(step) for key in _keys(row)}
    path = folder / name
    path.write_text(write_events(steps, names, labels), encoding="utf-8")
    return path


def _keys(row: object) -> tuple[str, ...]:
    if isinstance(row, TeamGame):
        return row.side_a + row.side_b
    if isinstance(row, Game):
        return row.player_a, row.player_b
    assert isinstance(row, Join | Retire | Return)
    return (row.player,)


def same_values(columns: EventColumns, history: History) -> bool:
    """The columns hold the history's events in its step order, and its periods."""
    events = [e for step in history.steps for e in rows_of(step)]
    sizes = [len(step.events) for step in history.steps if isinstance(step, RatingPeriod)]
    return ([columns.event(r) for r in range(len(columns))] == events
            and [stop - start for start, stop in columns.periods] == sizes)


# -- write, then read with both readers -------------------------------------------------------

#: singles, a 2 v 2, a 2 v 3 inside a rating period, a 2 v 1, and Tom & Jerry: in a singles
#: game, a side, a join and a retirement; a side led by a name a spreadsheet would run
MIXED: list[HistoryStep] = [
    Game("ann", "bob", 1.0, at(0), first_move=1),
    TeamGame(("ann", "bob"), ("carl", "dora"), 0.5, at(1), handicap=-12.5),
    Join("Tom & Jerry", at(2)),
    period([
        Game("Tom & Jerry", "ann", 0.0, at(3)),
        TeamGame(("carl", "dora"), ("ann", "bob", "Tom & Jerry"), 1.0, at(3), first_move=-1),
        Game("bob", "carl", 0.5, at(3), handicap=50.0),
    ]),
    TeamGame(("=eve", "Tom & Jerry"), ("R&&D",), 0.0, at(4)),
    Retire("Tom & Jerry", at(5)),
]
MIXED_LABELS = ["", "", "", "night", "", ""]


def test_a_history_with_sides_reads_back_the_same_with_both_readers(tmp_path: Path) -> None:
    path = written(tmp_path, MIXED, MIXED_LABELS)
    history = read_events(path)
    assert history.steps == MIXED
    assert history.labels == MIXED_LABELS
    assert history.rows == [[1], [2], [3], [4, 5, 6], [7], [8]]
    # The columns hold the team games as team rows, in the same steps.
    columns = read_event_columns(path)
    assert same_values(columns, history)
    assert len(columns.teams) == 3 and columns.steps == len(history.steps)
    # Written again, the same text.
    assert write_events(history.steps, {k: k for k in _all_keys(history)},
                        history.labels) == path.read_text(encoding="utf-8")


def _all_keys(history: History) -> set[str]:
    return {key for step in history.steps for row in rows_of(step) for key in _keys(row)}


def test_a_singles_history_with_an_ampersand_in_a_name_reads_alike_in_columns(
        tmp_path: Path) -> None:
    steps: list[HistoryStep] = [
        Join("Tom & Jerry", at(0)),
        Game("Tom & Jerry", "ann", 1.0, at(1)),
        period([Game("ann", "R&&D", 0.5, at(2)), Game("&", "Tom & Jerry", 0.0, at(2))]),
        Game("'Tom & Jerry", "&Co", 1.0, at(3), handicap=25.0),
        Retire("R&&D", at(4)),
        Return("R&&D", at(5)),
    ]
    path = written(tmp_path, steps, ["", "", "cup", "", "", ""])
    assert path.read_text(encoding="utf-8").splitlines()[1:] == [
        "2024-01-06T19:00:00,,Tom && Jerry,,,,join",
        "2024-01-06T20:00:00,,Tom && Jerry,ann,1,0,game",
        "2024-01-06T21:00:00,cup,ann,R&&&&D,0.5,0,game",
        "2024-01-06T21:00:00,cup,&&,Tom && Jerry,0,0,game",
        "2024-01-06T22:00:00,,''Tom && Jerry,&&Co,1,25,game",
        "2024-01-06T23:00:00,,R&&&&D,,,,retire",
        "2024-01-07T00:00:00,,R&&&&D,,,,return",
    ]
    history = read_events(path)
    assert history.steps == steps
    columns = read_event_columns(path)
    assert isinstance(columns, EventColumns)
    assert same_values(columns, history)
    assert set(columns.names) == {"Tom & Jerry", "ann", "R&&D", "&", "'Tom & Jerry", "&Co"}


def test_a_long_file_with_a_side_at_its_end_reads_alike(tmp_path: Path) -> None:
    """Past the column reader's first blocks of plain text, a side is a team row of the
    columns, as the row reader reads it."""
    lines = [HEADER] + [
        f"{(T + timedelta(minutes=n)).isoformat()},,member {n % 150},member {(n + 1) % 150},1,,"
        for n in range(12_000)]
    lines.append("2024-02-01T10:00:00,,member 1 & member 2,member 3,0,,")
    path = tmp_path / "EVENTS.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert path.stat().st_size > 2 * (1 << 17)
    columns = read_event_columns(path)
    assert columns.event(len(columns) - 1) == TeamGame(("member 1", "member 2"), ("member 3",),
                                                       0.0, datetime(2024, 2, 1, 10))
    assert same_values(columns, read_events(path))
    # Without that row, no team row.
    path.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    columns = read_event_columns(path)
    assert not columns.teams and same_values(columns, read_events(path))


def test_the_exact_text_of_a_small_history(tmp_path: Path) -> None:
    steps: list[HistoryStep] = [
        Game("ann", "bob", 1.0, at(0)),
        TeamGame(("ann", "Tom & Jerry"), ("bob", "carl", "=dee"), 0.5, at(1), first_move=-1),
        TeamGame(("=dee", "carl"), ("ann",), 1.0, at(2), handicap=1.5),
        Join("R&D", at(3)),
    ]
    path = written(tmp_path, steps, ["", "", "", ""])
    assert path.read_text(encoding="utf-8") == (
        "played_at,event,player_a,player_b,score_a,handicap,kind,colour\n"
        "2024-01-06T19:00:00,,ann,bob,1,0,game,\n"
        "2024-01-06T20:00:00,,ann & Tom && Jerry,bob & carl & =dee,0.5,0,game,black\n"
        "2024-01-06T21:00:00,,'=dee & carl,ann,1,1.5,game,\n"
        "2024-01-06T22:00:00,,R&&D,,,,join,\n")
    assert read_events(path).steps == steps


def test_a_singles_history_without_ampersands_is_written_as_before(tmp_path: Path) -> None:
    steps: list[HistoryStep] = [
        Game("ann", "bob", 1.0, at(0), first_move=1),
        period([Game("ann", "carl", 0.5, at(1)), Join("dora", at(1))]),
        Game("-x", "dora", 0.0, at(2), handicap=-2.0),
    ]
    path = written(tmp_path, steps, ["", "night", ""])
    assert path.read_text(encoding="utf-8") == (
        "played_at,event,player_a,player_b,score_a,handicap,kind,colour\n"
        "2024-01-06T19:00:00,,ann,bob,1,0,game,white\n"
        "2024-01-06T20:00:00,night,ann,carl,0.5,0,game,\n"
        "2024-01-06T20:00:00,night,dora,,,,join,\n"
        "2024-01-06T21:00:00,,'-x,dora,0,-2,game,\n")


# -- reading a player cell ---------------------------------------------------------------------

@pytest.mark.parametrize(("cell", "names"), [
    ("alice", ["alice"]),
    ("alice & bob", ["alice ", " bob"]),
    ("alice&bob", ["alice", "bob"]),
    ("Tom && Jerry", ["Tom & Jerry"]),
    ("&&", ["&"]),
    ("R&&&&D", ["R&&D"]),
    ("a &&& b", ["a &", " b"]),
    ("a & &&b", ["a ", " &b"]),
    ("&", ["", ""]),
])
def test_a_cell_is_cut_at_every_lone_ampersand(cell: str, names: list[str]) -> None:
    assert split_side(cell) == names


@pytest.mark.parametrize(("player_a", "player_b", "game"), [
    ("alice", "bob", Game("alice", "bob", 1.0, T)),
    ("alice&bob", "carl", TeamGame(("alice", "bob"), ("carl",), 1.0, T)),
    ("  alice   &  bob ", "carl &dora", TeamGame(("alice", "bob"), ("carl", "dora"), 1.0, T)),
    ("'=x & y", "'z", TeamGame(("=x", "y"), ("z",), 1.0, T)),
    ("x & '=y", "z", TeamGame(("x", "'=y"), ("z",), 1.0, T)),
    ("Tom && Jerry & bob", "a &&& b", TeamGame(("Tom & Jerry", "bob"), ("a &", "b"), 1.0, T)),
    ("Ann", "ann & bob", TeamGame(("Ann",), ("ann", "bob"), 1.0, T)),
    # the limit of 100 characters is each name's, not the cell's
    ("a" * 100 + " & " + "b" * 100, "c",
     TeamGame(("a" * 100, "b" * 100), ("c",), 1.0, T)),
    ("a" * 49 + "&&" + "b" * 50, "c", Game("a" * 49 + "&" + "b" * 50, "c", 1.0, T)),
])
def test_player_cells_as_read(tmp_path: Path, player_a: str, player_b: str,
                              game: Game | TeamGame) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f'{HEADER}\n{T.isoformat()},,"{player_a}","{player_b}",1,,\n',
                    encoding="utf-8")
    assert read_events(path).steps == [game]
    columns = read_event_columns(path)
    assert columns.event(0) == game
    assert columns.kind[0] == (TEAM if isinstance(game, TeamGame) else GAME)


TIMED = "played_at,event,player_a,player_b,score_a,handicap,kind,seconds"

#: (header, row, column, problem): each refused naming the file, row 1 and the column
REFUSED = [
    ("empty name at the end", HEADER, "2024-01-06,,alice & ,bob,1,,", "player_a",
     "has an empty name in 'alice &': a side's names are joined by ' & ' (a & inside a name "
     "is written &&)"),
    ("empty name at the start", HEADER, "2024-01-06,,alice, & bob,1,,", "player_b",
     "has an empty name in '& bob': a side's names are joined by ' & ' (a & inside a name "
     "is written &&)"),
    ("empty name inside", HEADER, "2024-01-06,,alice &  & bob,carl,1,,", "player_a",
     "has an empty name in 'alice &  & bob': a side's names are joined by ' & ' (a & inside "
     "a name is written &&)"),
    ("a lone ampersand", HEADER, "2024-01-06,,alice,&,1,,", "player_b",
     "has an empty name in '&': a side's names are joined by ' & ' (a & inside a name is "
     "written &&)"),
    ("a name too long in a side", HEADER, f"2024-01-06,,alice & {'x' * 101},bob,1,,",
     "player_a", "has a name longer than 100 characters ('xxxxxxxxxxxxxxxxxxxx'...)"),
    ("a name too long with &&", HEADER, f"2024-01-06,,alice,{'x' * 99}&&y,1,,", "player_b",
     "is longer than 100 characters"),
    ("twice on one side", HEADER, "2024-01-06,,alice & alice,bob,1,,", "player_a",
     "names player 'alice' twice: a member plays once in a game"),
    ("on both sides", HEADER, "2024-01-06,,alice & bob,carl & alice,1,,", "player_b",
     "names player 'alice' twice: a member plays once in a game"),
    ("alone against her side", HEADER, "2024-01-06,,alice,bob & alice,1,,", "player_b",
     "names player 'alice' twice: a member plays once in a game"),
    ("one against themself, as before", HEADER, "2024-01-06,,Tom && Jerry,Tom && Jerry,1,,",
     "player_b", "player 'Tom & Jerry' cannot play against themself"),
    ("a side joins", HEADER, "2024-01-06,,alice & bob,,,,join", "player_a",
     "must name one member: a join row is about one member, not a side (2 names)"),
    ("a side retires", HEADER, "2024-01-06,,alice & bob & carl,,,,retire", "player_a",
     "must name one member: a retire row is about one member, not a side (3 names)"),
    ("a side returns", HEADER, "2024-01-06,,alice & bob,,,,return", "player_a",
     "must name one member: a return row is about one member, not a side (2 names)"),
    ("a solving time for sides", TIMED, "2024-01-06,,alice & bob,carl,1,,,12", "seconds",
     "must be empty: a game of sides has no solving time"),
]


@pytest.mark.parametrize(("case", "header", "row", "column", "problem"), REFUSED,
                         ids=[r[0] for r in REFUSED])
def test_a_bad_side_is_refused_naming_file_row_and_column(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, header: str, row: str,
        column: str, problem: str) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f"{header}\n2024-01-05,,zed,yan,1,,{',' if header == TIMED else ''}\n"
                    f"{row}\n", encoding="utf-8")
    with pytest.raises(CsvError) as refused:
        read_events(path)
    assert str(refused.value) == f"EVENTS.csv row 2, column {column}: {problem}"
    with pytest.raises(ValueError):  # the column reader refuses it too (read_events names it)
        read_event_columns(path)
    # and `clubrating replay`, which reads it as columns first, says what read_events says
    assert run(capsys, "replay", str(path)) == (2, "", f"clubrating: {refused.value}\n")


#: player cells as people write them, each with the names it holds: sides plain and not
#: (spaces, no spaces, a mark against formulas, a literal &), single names
GOOD_CELLS = [
    ("ann", {"ann"}), ("bob", {"bob"}), ("fay", {"fay"}), ("ann & bob", {"ann", "bob"}),
    ("cy & dee", {"cy", "dee"}), ("bob & cy & dee", {"bob", "cy", "dee"}),
    ("gus & hal", {"gus", "hal"}), (" ann  &bob ", {"ann", "bob"}), ("dee&eve", {"dee", "eve"}),
    ("'=x & cy", {"=x", "cy"}), ("Tom && Jerry & eve", {"Tom & Jerry", "eve"}),
    ("R&&&&D", {"R&&D"}), ("&&", {"&"}), ("fay & '=y", {"fay", "'=y"}), ("'=x", {"=x"}),
]
#: cells both readers refuse in a game row
BAD_CELLS = ["ann & ", "& bob", "ann & ann", "ann &  & bob", "x" * 101 + " & y", "", "&"]


@st.composite
def side_files(draw: st.DrawFn) -> bytes:
    """An EVENTS.csv file of games of one against one and of sides, membership rows (now and
    then naming a side), periods, columns in any order (player_a first too), quotes, CRLF;
    in one file in three a cell is drawn that read_events refuses (a bad side, a side in a
    join row, a solving time for sides)."""
    timed = draw(st.booleans())
    columns = draw(st.permutations(["played_at", "event", "player_a", "player_b", "score_a",
                                    "handicap", "kind", "colour"]
                                   + (["seconds"] if timed else [])))
    rng = random.Random(draw(st.integers(0, 2**32)))
    wrong = draw(st.integers(0, 2)) == 0
    lines = [",".join(columns)]
    for n in range(draw(st.integers(1, 40))):
        cell_a, names_a = rng.choice(GOOD_CELLS)
        cell_b = rng.choice([cell for cell, names in GOOD_CELLS if not names & names_a])
        kind = rng.choice(["", "", "", "", "game", "join", "retire", "return"])
        if wrong and rng.random() < 0.1:
            cell_a = rng.choice([*BAD_CELLS, cell_a])
            cell_b = rng.choice([*BAD_CELLS, cell_b, cell_a])
        membership = kind in ("join", "retire", "return")
        if membership and not wrong:
            cell_a = rng.choice([cell for cell, names in GOOD_CELLS if len(names) == 1])
        cells = {
            "played_at": f"2024-01-{1 + n % 28:02d}T{rng.randrange(24):02d}:00:00",
            "event": rng.choice(["", "", "", "night", "cup"]),
            "player_a": cell_a,
            "player_b": "" if membership else cell_b,
            "score_a": "" if membership else rng.choice(["1", "0", "0.5", " 1.0"]),
            "handicap": "" if membership else rng.choice(["", "", "0", "-0", "12.5"]),
            "kind": kind,
            "colour": "" if membership else rng.choice(["", "", "white", "Black"]),
            "seconds": "" if membership or not (wrong or "&" not in cell_a + cell_b) else
            rng.choice(["", "", "12"]),
        }
        lines.append(",".join(f'"{cells[c]}"' if rng.random() < 0.03 else cells[c]
                              for c in columns))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return (end.join(lines) + end).encode()


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=side_files())
def test_both_readers_accept_the_same_files_of_sides_with_the_same_values(
        tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("csv") / "EVENTS.csv"
    path.write_bytes(data)
    try:
        history = read_events(path)
    except CsvError:
        with pytest.raises(ValueError):
            read_event_columns(path)
        return
    columns = read_event_columns(path)
    assert same_values(columns, history)
    teams = [columns.event(r) for r in range(len(columns)) if columns.kind[r] == TEAM]
    assert teams == [e for step in history.steps for e in rows_of(step)
                     if isinstance(e, TeamGame)]


def test_a_long_file_of_singles_sides_and_members_reads_alike(tmp_path: Path) -> None:
    """Blocks of plain text that mix runs of singles and of sides (some cells not plain),
    membership rows and interleaved periods; then a quoted cell hands the rest to csv.reader;
    the names' ids follow the order the rows name them."""
    rng = random.Random(5)
    names = [f"m{i}" for i in range(60)]
    lines = [HEADER]
    when = datetime(2024, 1, 1)
    for n in range(9000):
        when += timedelta(minutes=rng.randrange(1, 90))
        label = f"night {n // 30}" if n % 211 < 40 else ""
        if n % 500 == 250:
            lines.append(f"{when.isoformat()},,new {n},,,,join")
        stretch = (n // 37) % 3  # singles, sides, both
        if stretch == 0 or (stretch == 2 and rng.random() < 0.5):
            a, b = rng.sample(names, 2)
            lines.append(f"{when.isoformat()},{label},{a},{b},{rng.choice('10')},,")
            continue
        size_a, size_b = rng.choice([(2, 2), (2, 1), (3, 3), (1, 3)])
        members = rng.sample(names, size_a + size_b)
        join = rng.choice([" & ", " & ", "&", "  &  "])
        cell_a = join.join(members[:size_a])
        cell_b = join.join(members[size_a:])
        if n == 7000:
            cell_a = f'"{cell_a}"'
        lines.append(f"{when.isoformat()},{label},{cell_a},{cell_b},{rng.choice('10')},,game")
    path = tmp_path / "EVENTS.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert path.stat().st_size > 2 * (1 << 17)
    history = read_events(path)
    columns = read_event_columns(path)
    assert same_values(columns, history)
    assert len(columns.teams) > 2000 and len(columns.periods) > 20
    first_named: dict[str, None] = {}
    for row in range(1, len(lines)):
        values = lines[row].split(",")
        for cell in values[2:4]:
            for name in cell.strip('"').split("&"):
                if name.strip():
                    first_named.setdefault(name.strip(), None)
    assert columns.names == list(first_named)


def test_a_solving_time_still_goes_with_a_singles_game(tmp_path: Path) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f"{TIMED}\n2024-01-06,,Tom && Jerry,@p1,1,,,12\n", encoding="utf-8")
    assert read_events(path).steps == [Game("Tom & Jerry", "@p1", 1.0, datetime(2024, 1, 6),
                                            seconds=12.0)]


# -- fingerprints --------------------------------------------------------------------------------

SINGLES = """played_at,event,player_a,player_b,score_a,handicap,kind,colour
2024-01-06T19:00:00,,ann,bob,1,,,white
2024-01-13T19:00:00,night,Ann,carl,0.5,,,
2024-01-13T19:00:00,night,bob,carl,0,25,,black
2024-01-14T10:00:00,,dora,,,,join,
2024-01-20T19:00:00,,'=cmd,dora,1,-12.5,,
"""


def fingerprint(folder: Path, content: str) -> str:
    path = folder / "EVENTS.csv"
    path.write_text(content, encoding="utf-8")
    return read_events(path).fingerprint()


def test_a_singles_history_keeps_its_fingerprint(tmp_path: Path) -> None:
    # What the bot recorded for this file before sides were read (an upgrade changes no
    # club's record of its imports).
    assert fingerprint(tmp_path, SINGLES) == (
        "6de517d11e67025285e28de277c2da82b71155b85a8a4aa0b78754bdc8a28fbc")


def test_a_team_rows_fingerprint_holds_both_sides_in_order(tmp_path: Path) -> None:
    def of(player_a: str, player_b: str) -> str:
        return fingerprint(tmp_path, f"{HEADER}\n2024-01-06,,{player_a},{player_b},1,,\n")

    doubles = of("ann & bob", "carl & dora")
    assert of("Ann  &  BOB", "carl&dora") == doubles  # names as the fingerprint reads them
    assert of("bob & ann", "carl & dora") != doubles  # the order as written
    assert of("ann & bob", "dora & carl") != doubles
    assert of("carl & dora", "ann & bob") != doubles
    assert of("ann & bob", "carl & dora & eve") != doubles
    assert of("ann && bob", "carl && dora") != doubles  # two names, not four
    assert len({of("ann & bob", "carl"), of("ann", "bob & carl"), of("ann", "bob")}) == 3


# -- clubrating replay and import -------------------------------------------------------------

@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "club.db"
    monkeypatch.setenv("CLUBRATING_DB", str(path))
    return path


def test_replay_reads_a_literal_ampersand_in_a_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f"{HEADER}\n2024-01-06,,Tom && Jerry,R&&&&D,1,,\n", encoding="utf-8")
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0, err
    assert [p["player"] for p in json.loads(out)["players"]] == ["Tom & Jerry", "R&&D"]


def test_import_refuses_uneven_sides_the_ladder_does_not_allow(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f"{HEADER}\n2024-01-06,,ann,bob,1,,\n2024-01-07,,ann,bob & carl,1,,\n",
                    encoding="utf-8")
    assert run(capsys, "import", "--chat", CONSOLE, str(path)) == (
        2, "", "clubrating: EVENTS.csv row 2, column player_b: sides of 1 and 2 members need "
               "/set uneven_teams on. Nothing was imported.\n")
    assert run(capsys, "export", "--chat", CONSOLE) == (0, HEADER + "\n", "")


async def test_import_rates_team_rows_on_the_companion_as_a_replay_of_the_file_does(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The singles rows go to the ladder imported into, the team rows to its companion
    (created by the import), and the companion's export is the file's team rows: replayed,
    the ratings the bot shows (issue 37)."""
    rows = ["2024-01-06T10:00:00,,ann,bob,1,0,game",
            "2024-01-07T10:00:00,,ann & carl,bob & dora,0.5,0,game",
            "2024-01-08T10:00:00,,dora & bob,carl & ann,1,0,game"]
    path = tmp_path / "EVENTS.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")

    def cli(*argv: str) -> tuple[int, str, str]:
        return run(capsys, *argv)

    code, out, err = await asyncio.to_thread(cli, "import", "--chat", CONSOLE, str(path))
    assert code == 0, err
    code, exported, err = await asyncio.to_thread(cli, "export", "--chat", CONSOLE,
                                                  "--ladder", "main-teams")
    assert code == 0, err
    assert exported == "\n".join([HEADER, *rows[1:]]) + "\n"
    teams = tmp_path / "TEAMS.csv"
    teams.write_text(exported, encoding="utf-8")
    code, out, err = await asyncio.to_thread(cli, "replay", str(teams))
    assert code == 0, err
    replayed = {p["player"]: round(p["rating"]) for p in json.loads(out)["players"]}
    async with open_club(db, start=START) as chat:
        board = await chat.as_("visitor", "/top main-teams")
        singles = await chat.as_("visitor", "/top")
    shown = {m[1]: int(m[2]) for m in re.finditer(r"\d+\. (\w+)\s+(\d+)", board)}
    assert shown == replayed and len(shown) == 4
    assert re.search(r"1\. ann\s+\d+\?  1 game", singles), singles


def test_import_refuses_a_team_row_inside_an_event_and_singles_on_the_companion(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f"{HEADER}\n2024-01-06,open,ann,bob,1,,\n"
                    "2024-01-07,open,ann & carl,bob & dora,1,,\n", encoding="utf-8")
    assert run(capsys, "import", "--chat", CONSOLE, str(path)) == (
        2, "", "clubrating: EVENTS.csv row 2, column player_b: a team game inside an event "
               "would be rated apart from it, on the ladder's companion: /set team_ladder "
               "shared, or import the team games on their own. Nothing was imported.\n")
    path.write_text(f"{HEADER}\n2024-01-07,,ann & carl,bob & dora,1,,\n", encoding="utf-8")
    assert run(capsys, "import", "--chat", CONSOLE, str(path))[0] == 0
    path.write_text(f"{HEADER}\n2024-01-08,,ann,bob,1,,\n", encoding="utf-8")
    assert run(capsys, "import", "--chat", CONSOLE, "--ladder", "main-teams", str(path)) == (
        2, "", "clubrating: EVENTS.csv row 1, column player_b: this ladder rates team games "
               "only; import the games of one against one on its parent. Nothing was "
               "imported.\n")


def test_import_refuses_a_new_name_with_an_ampersand(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f"{HEADER}\n2024-01-06,,ann,bob,1,,\n2024-01-07,,bob,R&&D,1,,\n",
                    encoding="utf-8")
    refusal = text("import_name_ampersand", file="EVENTS.csv", row=2, column="player_b",
                   name="R&D")
    assert run(capsys, "import", "--chat", CONSOLE, str(path)) == (
        2, "", f"clubrating: {refusal}\n")
    assert run(capsys, "export", "--chat", CONSOLE) == (0, HEADER + "\n", "")


# -- a member registered with & before the rule -------------------------------------------------

def test_a_new_name_may_not_hold_an_ampersand() -> None:
    with pytest.raises(Refusal) as refused:
        display_name("Tom & Jerry")
    assert refused.value.key == "name_ampersand"
    assert display_name("Tom and Jerry") == "Tom and Jerry"


async def test_register_refuses_an_ampersand(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        await chat.as_("alice", "/register")
        before = await chat.log_size()
        assert await chat.as_("tom", "/register Tom & Jerry") == text("name_ampersand")
        assert await chat.as_("tom", "/register Tom&Jerry") == text("name_ampersand")
        assert await chat.log_size() == before
        assert (await chat.as_("tom", "/register Tom and Jerry")).startswith(
            "Welcome, Tom and Jerry!")


async def test_a_member_named_with_an_ampersand_before_keeps_it_through_export_and_import(
        db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with open_club(db) as chat:
        await chat.as_("alice", "/register")
        await chat.as_("bob", "/register")
    # An older bot registered tom as "Tom & Jerry": its log holds the name as typed.
    repository = await open_repository(db)
    try:
        club_id = await repository.club_id("console", "local", START)
        last = (await repository.events(club_id))[-1].id
        async with repository.transaction(club_id, last) as tx:
            await tx.append([ev.new_event(ev.MemberRegistered("tom", "Tom & Jerry", "main"),
                                          "tom", START)])
    finally:
        await repository.close()
    async with open_club(db, start=START + timedelta(minutes=1)) as chat:
        assert "Tom & Jerry" in await chat.as_("tom", "/report @alice win")
        await chat.as_("alice", "/confirm")
        await chat.as_("bob", "/report @alice loss")
        await chat.as_("alice", "/confirm")
        board = await chat.as_("visitor", "/top")

    def cli(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    code, exported, err = await asyncio.to_thread(cli, "export", "--chat", CONSOLE)
    assert code == 0, err
    assert exported == (f"{HEADER}\n"
                        "2024-03-01T19:00:00,,alice,,,,join\n"
                        "2024-03-01T19:00:00,,bob,,,,join\n"
                        "2024-03-01T19:00:00,,Tom && Jerry,,,,join\n"
                        "2024-03-01T19:01:00,,Tom && Jerry,alice,1,0,game\n"
                        "2024-03-01T19:01:00,,bob,alice,0,0,game\n")
    # The export replays to the ratings the bot shows.
    path = tmp_path / "EXPORT.csv"
    path.write_text(exported, encoding="utf-8")
    code, out, err = await asyncio.to_thread(cli, "replay", "--system", "club", str(path))
    assert code == 0, err
    players = json.loads(out)["players"]
    assert [p["player"] for p in players] == ["Tom & Jerry", "alice", "bob"]
    shown = [re.fullmatch(r"\s*\d+\. (.+?)\s+(\d+)\?.*", line) for line in
             board.splitlines()[1:]]
    assert [(m.group(1), m.group(2)) for m in shown if m] == [
        (p["player"], f"{p['rating']:.0f}") for p in players]
    # Imported into another ladder of the club, which knows Tom & Jerry: the same rows.
    async with open_club(db, start=START + timedelta(minutes=2)) as chat:
        assert "created" in await chat.as_("mod!", "/ladder create blitz")
    code, _, err = await asyncio.to_thread(cli, "import", "--chat", CONSOLE, "--ladder",
                                           "blitz", str(path))
    assert code == 0, err
    code, again, err = await asyncio.to_thread(cli, "export", "--chat", CONSOLE, "--ladder",
                                               "blitz")
    assert (code, again) == (0, exported), err
    # Into another club, Tom & Jerry would be a new member: refused.
    refusal = text("import_name_ampersand", file="EXPORT.csv", row=3, column="player_a",
                   name="Tom & Jerry")
    assert await asyncio.to_thread(cli, "import", "--chat", TELEGRAM, str(path)) == (
        2, "", f"clubrating: {refusal}\n")
