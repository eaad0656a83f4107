"""`clubrating replay` reads EVENTS.csv column by column: the same values, the same JSON to the
byte, the same refusals as reading it row by row; files with games of sides too (issue 37)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import UsageError, _replay_columns, _replay_history, standings_json
from bot.history import (
    CsvError,
    History,
    read_event_columns,
    read_events,
    read_players,
    write_events,
)
from bot.history.steps import rows_of
from bot.service.team_rule import TeamRule
from ratings_core.model import RatingPeriod, SeasonStart, Step, TeamGame, events_of
from ratings_core.replay import replay
from ratings_core.rows import SEASON, EventColumns
from ratings_core.system import RatingSystem
from ratings_core.systems import PRESETS, make_system
from tests.strategies import team_histories

CLUBRATING = Path(sys.executable).parent / "clubrating"
OPTIONAL = ["handicap", "seconds", "kind", "colour"]
NAMES = ["ann", "bob", "cy", "dee", "Émile", "o'neil"]


def same_steps(columns: EventColumns, history: History) -> bool:
    """The columns hold the history's events in its step order, and its periods; a season
    row its season's start (issue 38)."""
    events = [e for step in history.steps
              for e in ((step,) if isinstance(step, SeasonStart) else events_of(step))]
    sizes = [len(step.events) for step in history.steps if isinstance(step, RatingPeriod)]
    return ([columns.seasons[columns.player_a[r]] if columns.kind[r] == SEASON
             else columns.event(r) for r in range(len(columns))] == events
            and [stop - start for start, stop in columns.periods] == sizes)


# -- the reader against read_events, on files written every way the format allows ----------

TIMES = [
    "{d}T{t}", "{d}T{t}", "{d}T{t}", "{d} {t}", "{d}", " {d}T{t} ", "{d}T{t}.250000",
    "{d}T{t}+02:00", "{d}T{t}Z", "{d}T{t}-05:30", "{d}T{t}:", "1899-12-31T23:59:59",
    "{d}T25:00:00", "yesterday", "",
]
SCORES = ["1", "0", "0.5", "1.0", " 1", "-0", ".5", "2", "NaN", ""]
HANDICAPS = ["", "", "0", "-0", "1.5", " 100 ", "-2", "1e3", "1001", "inf", "x"]
SECONDS = ["", "", "12", "0.5", "86400", "0", "-3", "86401"]
COLOURS = ["", "", "white", "Black", " WHITE ", "red"]
KINDS = ["", "", "", "game", " game", "season", "join", "retire", "return", "leave"]
#: a season row's factor (issue 38); the refused ones last
FACTORS = ["0.5", "0", "1", ".25", " 0.5", "2", "-0.5", "x", ""]


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    """An EVENTS.csv file: columns in any order, cells written in the ways read_events
    accepts (spaces, 1.0, time zones, ...) and now and then one it refuses; quotes, CRLF,
    blank rows, a byte order mark, a last row without a line end."""
    columns = ["played_at", "event", "player_a", "player_b", "score_a"]
    columns += [c for c in OPTIONAL if draw(st.booleans())]
    columns = draw(st.permutations(columns))
    rng = random.Random(draw(st.integers(0, 2**32)))
    wrong = draw(st.integers(0, 3)) == 0  # a cell read_events refuses may come up

    def pick(values: list[str]) -> str:
        return rng.choice(values if wrong else [v for v in values if _fine(v, values)])

    rows = []
    start = datetime(2020, 1, 1) + timedelta(seconds=rng.randrange(10**8))
    for n in range(draw(st.integers(0, 30))):
        when = start + timedelta(minutes=rng.randrange(-3000, 3000), seconds=rng.randrange(60))
        kind = pick(KINDS) if "kind" in columns else ""
        game = kind.strip() in ("", "game", "leave")
        a, b = rng.sample(NAMES, 2)
        cells = {
            "played_at": pick(TIMES).format(d=when.date().isoformat(),
                                            t=when.time().isoformat("seconds")),
            "event": rng.choice(["", "", "", "night", " night", "cup", "  "]),
            "player_a": rng.choice([a, f" {a}", a]),
            "player_b": (rng.choice([b, b, f"{b} "]) if game else "") if not (
                wrong and n == 3) else a,
            "score_a": pick(SCORES) if game else "",
            "handicap": pick(HANDICAPS) if game else "",
            "seconds": pick(SECONDS) if game else "",
            "kind": kind,
            "colour": pick(COLOURS) if game else "",
        }
        if kind.strip() == "season":  # issue 38
            cells.update(player_a=rng.choice(["soft", "hard", " soft"] + (
                ["none", "ann"] if wrong else [])), score_a=pick(FACTORS),
                event=rng.choice(["", "cup"] if wrong else [""]))
        rows.append([cells[c] for c in columns])
    lines = [",".join(columns)] + [",".join(_quoted(c, rng) for c in row) for row in rows]
    if draw(st.booleans()):
        lines.insert(rng.randrange(1, len(lines) + 1), rng.choice(["", ",,,,,", "  "]))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    text = end.join(lines) + (end if draw(st.booleans()) else "")
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode()


def _fine(value: str, values: list[str]) -> bool:
    """Whether a cell value is one read_events accepts (the refused ones end each list)."""
    refused = {
        id(TIMES): {"{d}T{t}:", "1899-12-31T23:59:59", "{d}T25:00:00", "yesterday", ""},
        id(SCORES): {"2", "NaN", ""},
        id(HANDICAPS): {"1001", "inf", "x"},
        id(SECONDS): {"0", "-3", "86401"},
        id(COLOURS): {"red"},
        id(KINDS): {"leave", "join", "retire", "return"},
        id(FACTORS): {"2", "-0.5", "x", ""},
    }[id(values)]
    return value not in refused


def _quoted(cell: str, rng: random.Random) -> str:
    return f'"{cell}"' if rng.random() < 0.05 else cell


READER = settings(max_examples=300, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@READER
@given(data=csv_files())
def test_the_reader_accepts_what_read_events_accepts_with_the_same_values(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("csv") / "EVENTS.csv"
    path.write_bytes(data)
    try:
        history = read_events(path)
    except CsvError:
        with pytest.raises(ValueError):
            read_event_columns(path)
        return
    assert same_steps(read_event_columns(path), history)


def _long_file(rows: int, *, seed: int = 7, quote_at: int | None = None, end: str = "\n",
               kind: bool = True) -> str:
    """Many rows (longer than a block of the reader), retirements and returns among them."""
    rng = random.Random(seed)
    lines = ["played_at,event,player_a,player_b,score_a" + (",kind" if kind else "")]
    when = datetime(2019, 3, 1)
    retired: list[str] = []
    names = [f"member {i:03d}" for i in range(150)]
    for n in range(rows):
        when += timedelta(seconds=rng.randrange(1, 4000))
        active = [m for m in names if m not in retired]
        a, b = rng.sample(active, 2)
        label = f"round {n // 40}" if n % 97 < 30 else ""
        cells = [when.isoformat(), label, a, b, rng.choice(["1", "0", "0.5"])]
        if n == quote_at:
            cells[2] = f'"{a}"'
        lines.append(",".join(cells + ([""] if kind else [])))
        if kind and n % 50 == 49:
            if retired and rng.random() < 0.5:
                lines.append(f"{when.isoformat()},,{retired.pop()},,,return")
            else:
                leaver = rng.choice([m for m in active if m not in (a, b)])
                retired.append(leaver)
                lines.append(f"{when.isoformat()},,{leaver},,,retire")
    return end.join(lines) + end


@pytest.mark.parametrize(("quote_at", "end"), [(None, "\n"), (3500, "\n"), (None, "\r\n"),
                                               (10, "\n")])
def test_long_files_read_alike(tmp_path: Path, quote_at: int | None, end: str) -> None:
    """Blocks of text, a quote that hands the rest of the file to csv.reader, CRLF."""
    path = tmp_path / "EVENTS.csv"
    path.write_text(_long_file(6000, quote_at=quote_at, end=end), encoding="utf-8",
                    newline="")
    assert path.stat().st_size > 2 * (1 << 17)
    assert same_steps(read_event_columns(path), read_events(path))


def test_a_long_line_goes_to_csv_reader(tmp_path: Path) -> None:
    path = tmp_path / "EVENTS.csv"
    lines = _long_file(50).splitlines()
    lines[30] = lines[30].replace(",member ", "," + "m" * 200_000, 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CsvError):
        read_events(path)
    with pytest.raises(ValueError):
        read_event_columns(path)


# -- `clubrating replay`, the installed script, against the history path --------------------

def _club_file(path: Path, rows: int, seed: int = 3, teams: bool = False,
               members: tuple[str, ...] = ()) -> None:
    """A club's history: handicaps, colours, nights rated as periods (some interleaved with
    other rows), joins (of none of ``members``), retirements and returns; with ``teams``,
    games of even sides of two and three among them, in runs and alone, in the nights too
    (issue 37)."""
    rng = random.Random(seed)
    names = [f"player {i}" for i in range(40)] + ["Zoë", "José"]
    retired: list[str] = []
    joined: set[str] = set(members)
    lines = ["played_at,event,player_a,player_b,score_a,handicap,kind,colour"]
    when = datetime(2023, 1, 1, 18)
    for n in range(rows):
        when += timedelta(minutes=rng.randrange(0, 300))
        # Every third stretch of 25 rows is a night rated as one period, with games rated
        # on their own in between; nobody retires or returns during a night.
        night = f"night {n // 25}" if (n // 25) % 3 == 0 and rng.random() < 0.8 else ""
        if n % 60 == 59:
            fresh = [m for m in names if m not in joined]
            if fresh:
                joined.add(fresh[0])
                lines.append(f"{when.isoformat()},,{fresh[0]},,,,join,")
        if n % 45 == 44 and (n // 25) % 3 != 0:
            if retired and rng.random() < 0.6:
                lines.append(f"{when.isoformat()},,{retired.pop()},,,,return,")
            else:
                leaver = rng.choice(sorted(joined - set(retired)) or names[:1])
                if leaver in joined and leaver not in retired:
                    retired.append(leaver)
                    lines.append(f"{when.isoformat()},,{leaver},,,,retire,")
        active = [m for m in names if m not in retired]
        a, b = rng.sample(active, 2)
        joined.update((a, b))
        if teams and ((n // 40) % 2 == 1 or rng.random() < 0.1):
            size = rng.choice([2, 2, 3])
            members = rng.sample(active, 2 * size)
            joined.update(members)
            a, b = " & ".join(members[:size]), " & ".join(members[size:])
        lines.append(",".join([
            when.isoformat(), night, a, b, rng.choice(["1", "0", "0.5"]),
            rng.choice(["", "", "", "50", "-25.5"]), "", rng.choice(["", "white", "black"]),
        ]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _reference_output(system_name: str, events: Path, players: Path | None = None,
                      overrides: dict[str, str] | None = None) -> str:
    """What `clubrating replay` printed before the columns: read_events, replay, JSON."""
    system = make_system(system_name, overrides)
    roster = read_players(players) if players else None
    result = replay(system, read_events(events).steps,
                    players=roster.players if roster else None,
                    birth_dates=roster.birth_dates if roster else None)
    return json.dumps(standings_json(system, result), indent=2, ensure_ascii=False) + "\n"


def _clubrating(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLUBRATING), "replay", *args], capture_output=True, text=True,
                          encoding="utf-8", check=False)


@pytest.mark.parametrize("teams", [False, True], ids=["singles", "teams"])
@pytest.mark.parametrize("system", ["club", "elo", "glicko2", "fqe", "shogi24"])
def test_the_script_prints_what_the_history_path_prints(tmp_path: Path, system: str,
                                                        teams: bool) -> None:
    events = tmp_path / "EVENTS.csv"
    _club_file(events, 1500, teams=teams,
               members=("player 3", "player 9") if teams else ())  # PLAYERS.csv's
    assert bool(read_event_columns(events).teams) == teams
    players = tmp_path / "PLAYERS.csv"
    players.write_text("player,rating,games,birth_date,status\nplayer 3,1710,40,,active\n"
                       "old timer,1400,3,2014-02-03,retired\nplayer 9,,,2013-06-01,\n",
                       encoding="utf-8")
    assert _replay_columns(make_system(system), read_players(players), events) is not None
    for extra in ([], ["--players", str(players)]):
        done = _clubrating("--system", system, *extra, str(events))
        assert done.returncode == 0, done.stderr
        assert done.stdout == _reference_output(system, events, players if extra else None)


def test_overrides_and_the_default_system(tmp_path: Path) -> None:
    events = tmp_path / "EVENTS.csv"
    _club_file(events, 400, seed=11)
    done = _clubrating("--set", "k=24", "--set", "first_move_advantage=50", str(events))
    assert done.returncode == 0, done.stderr
    assert done.stdout == _reference_output(
        "club", events, overrides={"k": "24", "first_move_advantage": "50"})


@pytest.mark.parametrize(("rows", "message"), [
    ("2024-01-01,,a,b,1,\n2024-01-02,,a,b,3,",
     "EVENTS.csv row 2, column score_a: must be 1, 0.5 or 0, not '3'"),
    ("2024-01-01,,a,b,1,\n2024-01-02,,a,,,retire\n2024-01-03,,b,a,0,",
     "EVENTS.csv row 3, column player_b: player 'a' is retired; a 'return' must come before "
     "their games"),
    ("2024-01-01,,a,b,1,\n2024-01-02,,c,,,return",
     "EVENTS.csv row 2, column player_a: player 'c' is not a member"),
    ("2024-01-01,,a,b,1,\n\n2024-01-02,,a,,,join",
     "EVENTS.csv row 3, column player_a: player 'a' has already joined"),
    # games of sides (issue 37): a retired member, alone or in a night; uneven sides
    ("2024-01-01,,a,b,1,\n2024-01-02,,a,,,retire\n2024-01-03,,b & c,d & a,0,",
     "EVENTS.csv row 3, column player_b: player 'a' is retired; a 'return' must come before "
     "their games"),
    ("2024-01-01,,a,b,1,\n2024-01-02,,a,,,retire\n2024-01-03,,c & d,e & f,0,\n"
     "2024-01-03,n,c & d,e & b,0,\n2024-01-03,n,a & e,c & b,0,",
     "EVENTS.csv row 5, column player_a: player 'a' is retired; a 'return' must come before "
     "their games"),
    ("2024-01-01,,a & b,c & d,1,\n2024-01-03,,b & c,d,0,",
     "EVENTS.csv row 2, column player_b: sides of 2 and 1 members need uneven_teams=on"),
])
def test_refusals_are_as_before(tmp_path: Path, rows: str, message: str) -> None:
    events = tmp_path / "EVENTS.csv"
    events.write_text("played_at,event,player_a,player_b,score_a,kind\n" + rows + "\n",
                      encoding="utf-8")
    assert _replay_columns(make_system("club"), None, events) is None
    done = _clubrating(str(events))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"clubrating: {message}\n")


def test_a_refusal_deep_in_a_long_file(tmp_path: Path) -> None:
    events = tmp_path / "EVENTS.csv"
    text = _long_file(3000, kind=False).splitlines()
    text[2500] = text[2500].rsplit(",", 1)[0] + ",0.25"
    events.write_text("\n".join(text) + "\n", encoding="utf-8")
    done = _clubrating("--system", "elo", str(events))
    assert done.stderr == ("clubrating: EVENTS.csv row 2500, column score_a: must be 1, 0.5 "
                           "or 0, not '0.25'\n")


# -- files of games of sides, columns against steps (issue 37) ------------------------------

#: every preset that rates teams, and the past editions of ``club`` (their own code paths)
TEAM_SYSTEMS: list[tuple[str, int | None]] = [
    (name, None) for name in sorted(PRESETS) if PRESETS[name].rates_teams
] + [("club", 1), ("club", 2), ("club", 3)]
#: a ladder's team settings: the default (even sides), and uneven sides with and without a
#: size handicap, and at most two a side
RULES = [TeamRule(), TeamRule(True), TeamRule(True, 40.0), TeamRule(True, 40.0, 2)]


def _system(name: str, edition: int | None) -> RatingSystem:
    return make_system(name) if edition is None else make_system(name, edition=edition)


def _labelled(steps: list[Step]) -> list[str]:
    return [f"night {n}" if isinstance(step, RatingPeriod) else ""
            for n, step in enumerate(steps)]


@pytest.mark.parametrize(("name", "edition"), TEAM_SYSTEMS)
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=team_histories(handicaps=True), rule=st.sampled_from(RULES))
def test_a_team_history_replays_alike_from_columns_and_from_steps(
        tmp_path: Path, name: str, edition: int | None, steps: list[Step],
        rule: TeamRule) -> None:
    """tests.strategies' team histories written as EVENTS.csv: the columns' replay (the
    team rule applied to their games) gives the history path's result, to the bit; where the
    history path refuses (a rule, a handicap), the columns give way to it."""
    events = tmp_path / "EVENTS.csv"
    names = {name: name for step in steps for row in rows_of(step)
             for name in _names(row)}
    events.write_text(write_events(steps, names, _labelled(steps)), encoding="utf-8")
    system = _system(name, edition)
    try:
        expected = _replay_history(system, None, events, rule)
    except (CsvError, UsageError):
        assert _replay_columns(system, None, events, rule) is None
        return
    assert _replay_columns(system, None, events, rule) == expected


def _names(row: object) -> tuple[str, ...]:
    if isinstance(row, TeamGame):
        return row.side_a + row.side_b
    return tuple(getattr(row, key) for key in ("player", "player_a", "player_b")
                 if hasattr(row, key))


# -- seasons' resets as rows of kind season (issue 38) --------------------------------------

@pytest.mark.parametrize(("system", "teams"), [
    ("club", False), ("club", True), ("elo", False), ("glicko", False), ("glicko2", True),
    ("fqe", False), ("shogi24", False)])
def test_season_rows_replay_alike_from_columns_and_from_steps(tmp_path: Path, system: str,
                                                              teams: bool) -> None:
    """A club's file with a soft or hard reset every 250 rows (some between the rows of a
    night, whose period comes after them): the columns' replay is the history path's and the
    engine's replay of read_events' steps, to the bit; the seasons are steps of their own in
    file order."""
    events = tmp_path / "EVENTS.csv"
    _club_file(events, 1500, seed=5, teams=teams)
    lines = events.read_text(encoding="utf-8").splitlines()
    with_seasons = lines[:1]
    for n, line in enumerate(lines[1:], 1):
        with_seasons.append(line)
        if n % 250 == 0:
            reset, factor = ("hard", "0.5") if n % 750 == 0 else (
                "soft", ["0.5", "0.25", "1", "0"][n // 250 % 4])
            with_seasons.append(f"{line.split(',', 1)[0]},,{reset},,{factor},,season,")
    events.write_text("\n".join(with_seasons) + "\n", encoding="utf-8")
    history = read_events(events)
    seasons = [step for step in history.steps if isinstance(step, SeasonStart)]
    assert [(s.reset, s.factor) for s in seasons] == [
        ("soft", 0.25), ("soft", 1.0), ("hard", 0.5), ("soft", 0.5), ("soft", 0.25),
        ("hard", 0.5)]
    columns = read_event_columns(events)
    assert columns.seasons == seasons
    rated = make_system(system)
    expected = replay(rated, history.steps)
    assert _replay_history(rated, None, events) == expected
    assert _replay_columns(rated, None, events) == expected
    # the resets count: the file without them replays to other ratings
    assert _replay_columns(rated, None, events) != replay(
        rated, [step for step in history.steps if not isinstance(step, SeasonStart)])


SEASON_HEADER = "played_at,event,player_a,player_b,score_a,handicap,seconds,kind,colour"
ONLY = "must be empty: a season row gives only played_at, its reset (player_a) and its " \
       "factor (score_a)"


@pytest.mark.parametrize(("row", "column", "problem"), [
    ("2024-01-02,,medium,,0.5,,,season,", "player_a",
     "must be the season's reset, soft or hard, not 'medium'"),
    ("2024-01-02,,none,,0.5,,,season,", "player_a",
     "must be the season's reset, soft or hard, not 'none'"),
    ("2024-01-02,,,,0.5,,,season,", "player_a",
     "must be the season's reset, soft or hard, not ''"),
    ("2024-01-02,,soft,,1.5,,,season,", "score_a",
     "must be the season's factor, a number from 0 to 1, not '1.5'"),
    ("2024-01-02,,soft,,-0.1,,,season,", "score_a",
     "must be the season's factor, a number from 0 to 1, not '-0.1'"),
    ("2024-01-02,,hard,,,,,season,", "score_a",
     "must be the season's factor, a number from 0 to 1, not ''"),
    ("2024-01-02,,soft,,half,,,season,", "score_a", "must be a number, not 'half'"),
    ("2024-01-02,,soft,,nan,,,season,", "score_a", "must be a finite number, not 'nan'"),
    ("2024-01-02,,soft,ann,0.5,,,season,", "player_b", ONLY),
    ("2024-01-02,,soft,,0.5,10,,season,", "handicap", ONLY),
    ("2024-01-02,,soft,,0.5,,30,season,", "seconds", ONLY),
    ("2024-01-02,,soft,,0.5,,,season,white", "colour", ONLY),
    ("2024-01-02,cup,soft,,0.5,,,season,", "event",
     "must be empty: a season row is a step of its own, in no event"),
    ("yesterday,,soft,,0.5,,,season,", "played_at",
     "must be an ISO 8601 date or date-time, not 'yesterday'"),
])
def test_a_malformed_season_row_is_refused_naming_its_row_and_column(
        tmp_path: Path, row: str, column: str, problem: str) -> None:
    events = tmp_path / "EVENTS.csv"
    events.write_text(f"{SEASON_HEADER}\n2024-01-01,,ann,bob,1,,,,\n{row}\n"
                      "2024-01-03,,ann,bob,0,,,,\n", encoding="utf-8")
    with pytest.raises(CsvError) as refused:
        read_events(events)
    assert (refused.value.row, refused.value.column, refused.value.problem) == (
        2, column, problem)
    with pytest.raises(ValueError):
        read_event_columns(events)
    assert _replay_columns(make_system("club"), None, events) is None
    done = _clubrating(str(events))
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"clubrating: EVENTS.csv row 2, column {column}: {problem}\n")
