"""The columnar history and its replay: the same results as the replay of steps, to the bit,
games of sides (issue 37: team rows) among them."""

from __future__ import annotations

import math
import random
import re
import tracemalloc
from array import array
from datetime import date, datetime, timedelta

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ratings_core.columns import check_columns, replay_columns
from ratings_core.model import (
    Event,
    Game,
    Join,
    PlayerState,
    RatingPeriod,
    Retire,
    Return,
    SeasonStart,
    Status,
    Step,
    TeamGame,
    events_of,
)
from ratings_core.replay import ReplayError, ReplayResult, replay
from ratings_core.rows import CHUNK, TEAM, ColumnsBuilder, EventColumns
from ratings_core.system import RatingSystem
from ratings_core.systems import GAME_SYSTEMS, PRESETS, make_system
from ratings_core.table import datetime_of, moment_of
from tests.strategies import team_histories

NAMES = [f"p{i}" for i in range(6)]
PROPERTY = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

Row = tuple[str, Event | SeasonStart]


@st.composite
def moments(draw: st.DrawFn) -> datetime:
    """Times in any order, before and after 1970, some with microseconds."""
    seconds = draw(st.integers(-2_000_000_000, 4_000_000_000))
    micro = draw(st.sampled_from([0, 0, 1, 999_999, 123_456]))
    return datetime(1970, 1, 1) + timedelta(seconds=seconds, microseconds=micro)


@st.composite
def rosters(draw: st.DrawFn) -> dict[str, PlayerState]:
    """PLAYERS.csv states: some players rated before the first row, some of them retired."""
    players = {}
    for name in draw(st.lists(st.sampled_from(NAMES + ["listed only"]), unique=True,
                              max_size=4)):
        rating = draw(st.sampled_from([1150.0, 1500.0, 1724.5, 2450.0]))
        players[name] = PlayerState(
            rating=rating,
            games=draw(st.sampled_from([0, 3, 30, 200])),
            deviation=draw(st.sampled_from([None, 80.0, 300.0])),
            volatility=draw(st.sampled_from([None, 0.06])),
            peak=rating,
            status=draw(st.sampled_from([Status.ACTIVE] * 5 + [Status.RETIRED])),
        )
    return players


@st.composite
def labels(draw: st.DrawFn, used: list[str]) -> str:
    """Mostly none; else the current night's, a new one, or now and then an earlier one (so
    that periods interleave with other rows and with each other)."""
    choice = draw(st.sampled_from(["none"] * 10 + ["current"] * 6 + ["new"] * 2 + ["old"]))
    if choice == "none":
        return ""
    if choice == "new" or not used:
        used.append(f"night {len(used) + 1}")
    return used[-1] if choice != "old" else draw(st.sampled_from(used))


@st.composite
def file_rows(draw: st.DrawFn, max_rows: int = 40,
              players: dict[str, PlayerState] | None = None, teams: bool = False,
              seasons: bool = False) -> list[Row]:
    """EVENTS.csv rows in file order: games (handicaps, first moves, draws, -0.0), joins,
    retirements and returns, each with its label; with ``teams``, half the games are games
    of sides of one to three, even or not, with a size handicap or none (issue 37). Most
    histories are valid; in one in four or so a row is drawn at random (a retired player
    plays, a stranger retires, ...), which both replays must refuse alike. With ``seasons``,
    now and then a season's soft or hard reset, a row of its own (issue 38)."""
    players = players or {}
    rows: list[Row] = []
    known = set(players)
    retired = {name for name, state in players.items() if state.status == Status.RETIRED}
    used: list[str] = []
    careless_at = draw(st.integers(0, 4 * max_rows))
    for row in range(draw(st.integers(0, max_rows))):
        when = draw(moments())
        kind = draw(st.sampled_from(["game"] * 8 + ["join", "retire", "return"]
                                    + (["season"] if seasons else [])))
        if kind == "season":
            rows.append(("", SeasonStart(when, draw(st.sampled_from(["soft", "hard"])),
                                         draw(st.sampled_from([0.5, 0.0, 1.0, 0.25])))))
            continue
        careless = row == careless_at
        active = [n for n in NAMES if n not in retired]
        if kind == "game":
            pool = NAMES if careless or len(active) < 2 else active
            if teams and len(pool) >= 3 and draw(st.booleans()):
                size_a = draw(st.integers(1, min(3, len(pool) - 1)))
                size_b = draw(st.integers(1 if size_a > 1 else 2, min(3, len(pool) - size_a)))
                members = draw(st.permutations(pool))[:size_a + size_b]
                known.update(members)
                rows.append((draw(labels(used)), TeamGame(
                    tuple(members[:size_a]), tuple(members[size_a:]),
                    draw(st.sampled_from([0.0, 0.5, 1.0, -0.0])), when,
                    draw(st.sampled_from([0.0, 0.0, -0.0, 2.5, -3.0])),
                    draw(st.sampled_from([0, 0, 1, -1])), draw(st.sampled_from([0.0, 50.0])),
                )))
                continue
            a, b = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=2, unique=True))
            known.update((a, b))
            rows.append((draw(labels(used)), Game(
                a, b, draw(st.sampled_from([0.0, 0.5, 1.0, -0.0])), when,
                draw(st.sampled_from([0.0, 0.0, 0.0, -0.0, 1.0, 2.5, -3.0, 150.0])),
                draw(st.sampled_from([None, None, 12.5, 30.0])),
                draw(st.sampled_from([0, 0, 1, -1])),
            )))
            continue
        if kind == "join":
            pool = NAMES if careless else [n for n in NAMES if n not in known]
        elif kind == "retire":
            pool = NAMES if careless else [n for n in sorted(known) if n not in retired]
            if len(active) <= 2 and not careless:
                pool = []
        else:
            pool = NAMES if careless else sorted(retired)
        if not pool:
            continue
        name = draw(st.sampled_from(pool))
        known.add(name)
        if kind == "retire":
            retired.add(name)
        elif kind == "return":
            retired.discard(name)
        event: Event = (Join(name, when) if kind == "join" else
                        Retire(name, when) if kind == "retire" else Return(name, when))
        # A retirement or return in a period applies before its games: keep most outside.
        rows.append((draw(labels(used)) if draw(st.integers(0, 4)) == 0 else "", event))
    return rows


@st.composite
def histories(draw: st.DrawFn, max_rows: int = 40, seasons: bool = False
              ) -> tuple[list[Row], dict[str, PlayerState]]:
    players = draw(rosters())
    return draw(file_rows(max_rows, players, seasons=seasons)), players


BIRTH_DATES = {"p1": date(2015, 5, 1), "p2": date(1980, 1, 1)}


def steps_of(rows: list[Row]) -> list[Step]:
    """The steps read_events makes of rows: rows sharing a label form one period, at the
    place of its last row."""
    last = {label: i for i, (label, _) in enumerate(rows) if label}
    open_periods: dict[str, list[Event]] = {}
    steps: list[Step] = []
    for i, (label, event) in enumerate(rows):
        if not label:
            steps.append(event)
            continue
        assert not isinstance(event, SeasonStart)  # a season row is in no period
        open_periods.setdefault(label, []).append(event)
        if last[label] == i:
            steps.append(RatingPeriod(tuple(open_periods.pop(label))))
    return steps


def columns_of(rows: list[Row], batch_cuts: list[bool]) -> EventColumns:
    """The rows through a ColumnsBuilder: runs of games column by column (add_games), runs
    of team games together (add_teams), each run cut where ``batch_cuts`` says, every other
    row on its own (add_event)."""
    builder = ColumnsBuilder()
    run: list[tuple[int, Game]] = []
    team_run: list[tuple[int, TeamGame]] = []

    def flush_teams() -> None:
        if not team_run:
            return
        games = [g for _, g in team_run]
        labels = [label for label, _ in team_run]
        for g in games:
            for name in g.side_a + g.side_b:
                builder.intern(name)
        builder.add_teams(games, [moment_of(g.played_at) for g in games],
                          labels if any(label >= 0 for label in labels) else None)
        team_run.clear()

    def flush() -> None:
        if not run:
            return
        games = [g for _, g in run]
        labels = [label for label, _ in run]
        ids = [(builder.intern(g.player_a), builder.intern(g.player_b)) for g in games]
        builder.add_games(
            array("i", (a for a, _ in ids)),
            array("i", (b for _, b in ids)),
            [g.score_a for g in games],
            [moment_of(g.played_at) for g in games],
            labels if any(label >= 0 for label in labels) else None,
            [g.handicap for g in games] if any(
                g.handicap or math.copysign(1, g.handicap) < 0 for g in games) else None,
            [g.first_move for g in games] if any(g.first_move for g in games) else None,
            [math.nan if g.seconds is None else g.seconds for g in games] if any(
                g.seconds is not None for g in games) else None,
        )
        run.clear()

    for (label, event), cut in zip(rows, batch_cuts + [False] * len(rows), strict=False):
        if isinstance(event, Game):
            flush_teams()
            run.append((builder.label_id(label), event))
            if cut:
                flush()
        elif isinstance(event, TeamGame):
            flush()
            team_run.append((builder.label_id(label), event))
            if cut:
                flush_teams()
        else:
            flush()
            flush_teams()
            builder.add_event(event, label)
    flush()
    flush_teams()
    return builder.finish()


def rows_of(steps: list[Step]) -> list[Row]:
    """A history's steps as the rows of a file: each period's under a label of its own."""
    rows: list[Row] = []
    for n, step in enumerate(steps):
        if isinstance(step, RatingPeriod):
            rows.extend((f"night {n}", event) for event in step.events)
        else:
            rows.append(("", step))
    return rows


def outcome(run: object) -> object:
    """A replay's result, or the refusal it raised (message and place)."""
    try:
        return run()  # type: ignore[operator]
    except ReplayError as error:
        return ("refused", error.message, error.position, error.event_index)
    except ValueError as error:
        return ("refused", str(error))


def fits(system: RatingSystem, steps: list[Step]) -> bool:
    try:
        for step in steps:
            for event in events_of(step):
                if isinstance(event, Game | TeamGame):
                    system.check(event)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("name", GAME_SYSTEMS)
@PROPERTY
@given(history=histories(), cuts=st.lists(st.booleans(), max_size=40))
def test_columns_replay_equals_the_replay_of_steps(
    name: str, history: tuple[list[Row], dict[str, PlayerState]], cuts: list[bool]
) -> None:
    _replays_alike(name, history, cuts)


@pytest.mark.parametrize("name", GAME_SYSTEMS)
@PROPERTY
@given(history=histories(seasons=True), cuts=st.lists(st.booleans(), max_size=40))
def test_columns_replay_with_seasons_equals_the_replay_of_steps(
    name: str, history: tuple[list[Row], dict[str, PlayerState]], cuts: list[bool]
) -> None:
    """Seasons' soft and hard resets among the rows (issue 38): the same result, to the
    bit."""
    _replays_alike(name, history, cuts)


def _replays_alike(name: str, history: tuple[list[Row], dict[str, PlayerState]],
                   cuts: list[bool]) -> None:
    rows, players = history
    system = make_system(name)
    steps = steps_of(rows)
    assume(fits(system, steps))
    columns = columns_of(rows, cuts)
    check_columns(system, columns)
    expected = outcome(lambda: replay(system, steps, players=players,
                                      birth_dates=BIRTH_DATES))
    found = outcome(lambda: replay_columns(system, columns, players=players,
                                           birth_dates=BIRTH_DATES))
    assert found == expected  # floats compared with ==: the same to the bit
    if isinstance(found, ReplayResult):
        assert found.position == len(steps) == columns.steps


@PROPERTY
@given(rows=file_rows(), cuts=st.lists(st.booleans(), max_size=40))
def test_columns_hold_the_steps_in_order(rows: list[Row], cuts: list[bool]) -> None:
    columns = columns_of(rows, cuts)
    steps = steps_of(rows)
    assert [columns.event(r) for r in range(len(columns))] == [
        e for step in steps for e in events_of(step)]
    periods = [step for step in steps if isinstance(step, RatingPeriod)]
    assert [len(periods[i].events) for i in range(len(periods))] == [
        stop - start for start, stop in columns.periods]


@pytest.mark.parametrize("name", ["club", "elo"])
@PROPERTY
@given(rows=file_rows(max_rows=60))
def test_the_inlined_loops_match_rate_sequence_without_periods(
    name: str, rows: list[Row]
) -> None:
    """Long runs of single games, the loops of ClassicElo and ClubElo over columns."""
    rows = [("", event) for _, event in rows]
    system = make_system(name)
    steps = steps_of(rows)
    assert outcome(lambda: replay_columns(system, columns_of(rows, []))) == outcome(
        lambda: replay(system, steps))


@pytest.mark.parametrize("overrides", [{"curve": "normal"}, {"first_move_advantage": "35"},
                                       {"veteran_games": "2", "floor": "none"}])
@PROPERTY
@given(rows=file_rows())
def test_elo_variants(overrides: dict[str, str], rows: list[Row]) -> None:
    system = make_system("elo", overrides)
    steps = steps_of(rows)
    assert outcome(lambda: replay_columns(system, columns_of(rows, []))) == outcome(
        lambda: replay(system, steps))


def test_tactics_goes_through_its_own_rule() -> None:
    system = make_system("tactics")
    when = datetime(2024, 1, 1)
    rows: list[Row] = [("", Game("ann", "mate-in-2", 1.0, when, 0.0, 15.0)),
                       ("", Game("bob", "mate-in-2", 0.0, when, 0.0, 40.0)),
                       ("set", Game("ann", "fork", 1.0, when, 0.0, 9.0)),
                       ("set", Game("bob", "pin", 1.0, when, 0.0, 20.0))]
    columns = columns_of(rows, [])
    check_columns(system, columns)
    assert replay_columns(system, columns) == replay(system, steps_of(rows))


@pytest.mark.parametrize(("name", "game", "refused"), [
    ("tactics", Game("ann", "p", 0.5, datetime(2024, 1, 1), 0.0, 10.0), True),
    ("tactics", Game("ann", "p", 1.0, datetime(2024, 1, 1)), True),
    ("tactics", Game("ann", "p", 1.0, datetime(2024, 1, 1), 2.0, 10.0), True),
    ("tactics", Game("ann", "p", 1.0, datetime(2024, 1, 1), 0.0, 10.0), False),
    ("club", Game("ann", "bob", 0.5, datetime(2024, 1, 1), -3.0, 10.0, 1), False),
])
def test_check_columns_asks_the_system(name: str, game: Game, refused: bool) -> None:
    system = make_system(name)
    ok = Game("cat", "q", 1.0, datetime(2024, 1, 1), 0.0, 5.0)
    columns = columns_of([("", ok), ("", Join("dan", datetime(2024, 1, 1))), ("", game)], [])
    if refused:
        with pytest.raises(ValueError) as error:
            system.check(game)
        with pytest.raises(ValueError, match=re.escape(str(error.value))):
            check_columns(system, columns)
    else:
        check_columns(system, columns)


@given(moments())
def test_moments_are_exact(when: datetime) -> None:
    assert datetime_of(moment_of(when)) == when


def test_last_played_comes_from_the_last_game() -> None:
    """Long runs leave last_played to the replay: each player's last game's time, even when
    times go backwards, and a period's time after the runs before it."""
    t = [datetime(2024, 1, d) for d in range(1, 6)]
    rows: list[Row] = [("", Game("a", "b", 1.0, t[3])), ("", Game("c", "a", 0.5, t[1])),
                       ("", Retire("c", t[4])), ("", Game("b", "a", 0.0, t[2])),
                       ("night", Game("b", "d", 1.0, t[0])), ("", Game("d", "a", 1.0, t[4]))]
    for name in ("club", "elo", "glicko2"):
        system = make_system(name)
        result = replay_columns(system, columns_of(rows, []))
        assert result == replay(system, steps_of(rows))
        assert {n: s.last_played for n, s in result.players.items()} == {
            "a": t[4], "b": t[0], "c": t[1], "d": t[4]}


# -- games of sides (issue 37) --------------------------------------------------------------

#: every preset that rates teams, and the past editions of ``club`` (their own code paths)
TEAM_SYSTEMS: list[tuple[str, int | None]] = [
    (name, None) for name in sorted(PRESETS) if PRESETS[name].rates_teams
] + [("club", 1), ("club", 2), ("club", 3)]
TEAMS = settings(max_examples=40, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _system(name: str, edition: int | None) -> RatingSystem:
    return make_system(name) if edition is None else make_system(name, edition=edition)


@pytest.mark.parametrize(("name", "edition"), TEAM_SYSTEMS)
@TEAMS
@given(steps=team_histories(handicaps=True), players=rosters(),
       cuts=st.lists(st.booleans(), max_size=30))
def test_columns_replay_of_a_team_history_equals_the_replay_of_its_steps(
    name: str, edition: int | None, steps: list[Step], players: dict[str, PlayerState],
    cuts: list[bool],
) -> None:
    """tests.strategies' team histories (periods of singles and team games, membership
    events, size handicaps) as columns: the replay's numbers to the bit, or its refusal (a
    listed player retired)."""
    system = _system(name, edition)
    assume(fits(system, steps))
    rows = rows_of(steps)
    assert steps_of(rows) == steps
    columns = columns_of(rows, cuts)
    check_columns(system, columns)
    expected = outcome(lambda: replay(system, steps, players=players, birth_dates=BIRTH_DATES))
    found = outcome(lambda: replay_columns(system, columns, players=players,
                                           birth_dates=BIRTH_DATES))
    assert found == expected
    if isinstance(found, ReplayResult):
        assert found.position == len(steps) == columns.steps


@pytest.mark.parametrize(("name", "edition"), TEAM_SYSTEMS)
@TEAMS
@given(rows=file_rows(teams=True), cuts=st.lists(st.booleans(), max_size=40))
def test_team_rows_among_interleaved_periods_and_careless_rows(
    name: str, edition: int | None, rows: list[Row], cuts: list[bool]
) -> None:
    """Team rows in periods that interleave with other rows and with each other, runs of
    them between singles and membership rows, a retired member now and then (refused at
    the same step)."""
    system = _system(name, edition)
    steps = steps_of(rows)
    assume(fits(system, steps))
    columns = columns_of(rows, cuts)
    assert [columns.event(r) for r in range(len(columns))] == [
        e for step in steps for e in events_of(step)]
    assert outcome(lambda: replay_columns(system, columns)) == outcome(
        lambda: replay(system, steps))


def test_a_team_row_holds_its_game() -> None:
    game = TeamGame(("ann", "bob"), ("cy",), 0.5, datetime(2024, 1, 1), -2.0, 1, 50.0)
    builder = ColumnsBuilder()
    builder.add_event(Game("dee", "ann", 1.0, datetime(2023, 1, 1)))
    builder.add_event(game, "night")
    columns = builder.finish()
    assert columns.names == ["dee", "ann", "bob", "cy"]
    assert (columns.kind[1], columns.player_a[1], columns.player_b[1]) == (TEAM, 0, -2)
    assert (columns.score[1], columns.moment[1]) == (0.5, moment_of(game.played_at))
    assert columns.event(1) is game and columns.teams == [game]
    assert columns.periods == [(1, 2)]


@pytest.mark.parametrize(("name", "refused"), [("tactics", True), ("elo", False),
                                               ("rs-go", False)])
def test_check_columns_asks_about_team_games(name: str, refused: bool) -> None:
    system = make_system(name)
    game = TeamGame(("ann", "bob"), ("cy", "dee"), 1.0, datetime(2024, 1, 1), 1.0)
    columns = columns_of([("", Game("cat", "q", 1.0, datetime(2024, 1, 1), 0.0, 5.0)),
                          ("", game)], [])
    if refused:
        with pytest.raises(ValueError) as error:
            system.check(game)
        with pytest.raises(ValueError, match=re.escape(str(error.value))):
            check_columns(system, columns)
    else:
        system.check(game)
        check_columns(system, columns)
    no_handicaps = make_system("glicko2")
    if not no_handicaps.uses_handicap:
        with pytest.raises(ValueError):
            check_columns(no_handicaps, columns)


@pytest.mark.parametrize(("name", "edition"), [("elo", None), ("club", None), ("club", 1),
                                               ("glicko2", None), ("fqe", None)])
def test_last_played_of_members_whose_last_game_is_a_team_game_or_a_singles_game(
        name: str, edition: int | None) -> None:
    """A run of singles leaves last_played to the end of the replay (elo, club of edition 1),
    which reads the rows back: a member whose last game is a team game after their singles
    keeps the team game's time, one whose last game is a singles game after their team game
    gets the singles game's, whatever the order of the times; a team game in a period too."""
    t = [datetime(2024, 1, d) for d in range(1, 10)]
    rows: list[Row] = [
        ("", Game("a", "b", 1.0, t[5])),
        ("", Game("c", "d", 0.5, t[1])),
        ("", TeamGame(("a", "c"), ("e", "f"), 0.0, t[2])),  # a's last: after a singles game
        ("", TeamGame(("b", "g"), ("d", "h"), 1.0, t[8])),
        ("", Game("d", "e", 0.0, t[0])),  # d and e: a singles game after a team game
        ("", Game("g", "i", 1.0, t[3])),
        ("cup", TeamGame(("h", "i"), ("f",), 0.5, t[6])),  # h, i, f: in a period, last
        ("", Game("j", "k", 1.0, t[7])),
    ]
    system = _system(name, edition)
    result = replay_columns(system, columns_of(rows, []))
    assert result == replay(system, steps_of(rows))
    assert {n: s.last_played for n, s in result.players.items()} == {
        "a": t[2], "b": t[8], "c": t[2], "d": t[0], "e": t[0], "f": t[6], "g": t[3],
        "h": t[6], "i": t[6], "j": t[7], "k": t[7]}


# -- a run of games longer than a chunk (issue 41) ---------------------------------------------

def _long_run(games: int, players: int, seed: int) -> list[Row]:
    """One run of games (no membership row), a game a minute between players drawn at random
    from ``players``: newcomers keep arriving long after the first chunk when ``players`` is
    large."""
    rng = random.Random(seed)
    start = datetime(2024, 1, 1)
    rows: list[Row] = []
    for n in range(games):
        a, b = rng.sample(range(players), 2)
        rows.append(("", Game(f"m{a}", f"m{b}", rng.choice((0.0, 0.5, 1.0)),
                              start + timedelta(minutes=n))))
    return rows


@pytest.mark.parametrize("name", ["club", "elo", "glicko2"])
def test_a_run_longer_than_a_chunk_equals_the_replay_of_steps(name: str) -> None:
    """Chunks of a run go to the system one after the other: newcomers met in a later chunk,
    each player's last_played read back across the chunks, the numbers to the bit."""
    rows = _long_run(2 * CHUNK + 123, 3 * CHUNK, seed=41)
    system = make_system(name)
    result = replay_columns(system, columns_of(rows, []))
    assert result == replay(system, steps_of(rows))
    assert result.position == 2 * CHUNK + 123
    last = rows[-1][1]
    assert isinstance(last, Game)
    assert result.players[last.player_a].last_played == datetime(2024, 1, 1) + timedelta(
        minutes=2 * CHUNK + 122)


def test_a_retired_players_game_in_a_later_chunk_is_refused_at_its_step() -> None:
    when = datetime(2024, 1, 1)
    rows: list[Row] = [("", Game("ann", "cy", 1.0, when)), ("", Retire("ann", when))]
    rows += [("", Game("bob", "cy", 0.5, when))] * (CHUNK + 10)
    rows += [("", Game("cy", "ann", 0.0, when))]
    system = make_system("club")
    refused = outcome(lambda: replay_columns(system, columns_of(rows, [])))
    assert refused == outcome(lambda: replay(system, steps_of(rows)))
    assert refused == ("refused", "player 'ann' is retired; a 'return' must come before their "
                       "games", CHUNK + 12, None)


@pytest.mark.parametrize("name", ["club", "elo"])
def test_memory_of_a_replay_does_not_grow_with_the_run(name: str) -> None:
    """The replay's own memory beyond its columns (tracemalloc's peak while it runs) is a
    chunk's worth (about 1 MB) whether the run is 3 or 24 chunks long; given whole to the
    system, the run of 24 chunks took 24 MB (``club``) and 14 MB (``elo``)."""
    def peak(games: int) -> int:
        columns = columns_of(_long_run(games, 200, seed=7), [])
        tracemalloc.start()
        try:
            replay_columns(make_system(name), columns)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    short, long = peak(3 * CHUNK), peak(24 * CHUNK)
    assert long < 2 * 2**20
    assert long < short * 1.1
