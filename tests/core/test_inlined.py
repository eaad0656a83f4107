"""The compiled ``club`` loop gives the same floats as its source run by the interpreter.

``ratings_core.inlined`` is compiled by mypyc when the package is built where a C compiler is
(setup.py). The same file, loaded from source under another name, is the interpreted loop: the
two are run on copies of one table over random histories (newcomers, listed players with and
without deviations, masters, handicaps, colours, gaps of up to centuries) and must agree to the
bit. The per-game loop's agreement with the period path is tested in test_columns.py and
test_club_deviation.py.
"""

from __future__ import annotations

import importlib.util
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ratings_core.inlined as compiled
from ratings_core.club import ClubElo, ClubParams
from ratings_core.elo import ClassicElo, EloParams
from ratings_core.evidence import established_deviation
from ratings_core.glickman import Q
from ratings_core.model import Game, PlayerState
from ratings_core.rows import GameLists
from ratings_core.table import Table, moment_of

SOURCE = Path(compiled.__file__).with_name("inlined.py")


def _interpreted() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ratings_core._inlined_source", SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


interpreted = _interpreted()


def test_the_loop_is_compiled_where_a_c_compiler_is() -> None:
    """On CI (gcc on the PATH) the editable install built the extension: the benchmarks
    measure it, and the comparisons below compare two different things."""
    if shutil.which("cc") or shutil.which("gcc"):
        assert compiled.__file__ is not None and not compiled.__file__.endswith(".py")
    assert interpreted.__file__ == str(SOURCE)


def test_the_compiled_loop_is_built_from_this_source() -> None:
    """An edit of inlined.py without a rebuild leaves the old extension to be imported first:
    say so plainly, before the comparisons below fail on some number."""
    built = Path(compiled.__file__)
    assert built.stat().st_mtime >= SOURCE.stat().st_mtime, (
        f"{SOURCE.name} changed after {built.name} was built: run `make` or "
        "`.venv/bin/pip install -e .` to compile it again")


@given(st.integers(-(2**62), 2**62), st.integers(-(2**62), 2**62))
def test_seconds_between_rounds_as_python_does(later: int, earlier: int) -> None:
    """Python divides the microseconds exactly and rounds once, even beyond 2^53."""
    expected = (later - earlier) / 1_000_000
    assert compiled.seconds_between(later, earlier) == expected
    assert interpreted.seconds_between(later, earlier) == expected


def test_a_gap_of_centuries_grows_a_deviation_as_timedelta_does() -> None:
    early, late = datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59, 59, 999_999)
    expected = (late - early).total_seconds()
    assert compiled.seconds_between(moment_of(late), moment_of(early)) == expected


_player = st.tuples(
    st.floats(1000, 2700),                                  # rating
    st.one_of(st.none(), st.floats(40, 400)),               # deviation
    st.sampled_from([0, 0, 3, 30]),                         # games
    st.one_of(st.none(), st.integers(0, 4000)),             # days before the start
)
_game = st.tuples(
    st.integers(0, 7), st.integers(0, 7), st.sampled_from([0.0, 0.5, 1.0]),
    st.sampled_from([0.0, 0.0, 50.0, -120.0]), st.sampled_from([0, 0, 1, -1]),
    st.sampled_from([0, 0, 1, 3600, 86_400 * 40, 86_400 * 365 * 300]),  # seconds since last
)


@settings(max_examples=150, deadline=None)
@given(players=st.lists(_player, min_size=8, max_size=8), games=st.lists(_game, max_size=60),
       edition=st.sampled_from([2, 3]), share=st.sampled_from([0.0, 0.5]))
def test_compiled_and_interpreted_agree_to_the_bit(
        players: list[tuple[float, float | None, int, int | None]],
        games: list[tuple[int, int, float, float, int, int]], edition: int,
        share: float) -> None:
    params = ClubParams(first_opponents=share) if edition == 3 else ClubParams(
        newcomer_spread=0, information=1, first_opponents=0)
    start = datetime(2000, 1, 1)
    table = Table()
    for n, (rating, deviation, played, days) in enumerate(players):
        last = None if days is None or played == 0 else start - timedelta(days=days)
        table.add(f"p{n}", PlayerState(rating=rating, games=played, deviation=deviation,
                                       peak=rating, last_played=last))
    moment = moment_of(start)
    rows = []
    for a, b, s, handicap, first_move, gap in games:
        moment += gap * 1_000_000
        if a != b:
            rows.append((a, b, s, handicap, first_move, moment))
    floors = established_deviation(params.k), established_deviation(params.k_master)
    results = []
    for module in (compiled, interpreted):
        copy = Table.restore(table.snapshot())
        lists = GameLists(*map(list, zip(*rows, strict=True))) if rows else \
            GameLists([], [], [], [], [], [])
        module.rate_each_by_deviation(params, edition == 3, Q, *floors, copy, lists)
        results.append(copy.snapshot())
    assert repr(results[0]) == repr(results[1])  # repr: every float to the last bit


@settings(max_examples=150, deadline=None)
@given(players=st.lists(_player, min_size=8, max_size=8), games=st.lists(_game, max_size=60),
       k=st.sampled_from([10.0, 32.0]), veteran=st.sampled_from([None, 2]),
       floor=st.sampled_from([None, 1200.0]), ratchet=st.sampled_from([None, 1600.0]),
       advantage=st.sampled_from([0.0, 35.0]))
def test_the_classic_loop_compiled_and_interpreted_agree_to_the_bit(
        players: list[tuple[float, float | None, int, int | None]],
        games: list[tuple[int, int, float, float, int, int]], k: float, veteran: int | None,
        floor: float | None, ratchet: float | None, advantage: float) -> None:
    params = EloParams(k=k, veteran_games=veteran, floor=floor, ratchet=ratchet,
                       first_move_advantage=advantage)
    table = Table()
    for n, (rating, _, played, _) in enumerate(players):
        table.add(f"p{n}", PlayerState(rating=rating, games=played, peak=rating + 900 * (n % 2)))
    rows = [(a, b, s, handicap, first_move) for a, b, s, handicap, first_move, _ in games
            if a != b]
    results = []
    for module in (compiled, interpreted):
        copy = Table.restore(table.snapshot())
        lists = GameLists(*map(list, zip(*rows, strict=True)), []) if rows else \
            GameLists([], [], [], [], [], [])
        module.rate_each_classic(params, copy, lists)
        results.append(copy.snapshot())
    assert repr(results[0]) == repr(results[1])


@pytest.mark.parametrize("gap", [0.0, 122_800.0, 123_300.0, 124_000.0, 129_500.0, 129_700.0,
                                 140_000.0])
def test_the_loops_agree_with_the_period_path_where_the_odds_overflow(gap: float) -> None:
    """10^(d/400) past the largest double (d > 123,200 points) and down among the subnormal
    numbers: math.pow in the loops, ``**`` in the period path, the same expected scores."""
    when = datetime(2000, 1, 1)
    for system in (ClubElo(ClubParams(first_opponents=0)), ClassicElo(EloParams(floor=None))):
        for weaker_first in (True, False):
            ratings = [0.0, gap] if weaker_first else [gap, 0.0]
            tables = []
            for _ in range(2):
                table = Table()
                for n, rating in enumerate(ratings):
                    table.add(f"p{n}", PlayerState(rating=rating, games=30, deviation=80.0,
                                                   peak=rating, last_played=when))
                tables.append(table)
            game = Game("p0", "p1", 0.5, when + timedelta(days=1))
            system.rate_period(tables[0], [game], game.played_at)
            system.rate_sequence(tables[1], [game])
            assert repr(tables[0].snapshot()) == repr(tables[1].snapshot())
