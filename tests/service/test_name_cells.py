"""Issue 30, "Names are data, never markup": a name cell a spreadsheet would run as a formula
(starting with ``=``, ``+``, ``-``, ``@``, TAB or CR, OWASP's CSV injection list) is written
with one more leading ``'``, and so is a name starting with ``'``; every reader of the history
files (import, replay, evaluate) takes exactly one leading ``'`` off a name cell. So every name
comes back as it was written, and replay reads an export as import does.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.history import (
    name_cell,
    read_event_columns,
    read_events,
    read_name,
    read_players,
    write_events,
)
from ratings_core.model import Game, Join, Step

RISKY = ["=HYPERLINK(\"http://x\",\"y\")", "=1+1", "+1", "+x", "-x", "-12", "@x", "@bob",
         "'x", "''x", "'quoted", "\tx", "\rx"]
PLAIN = ["alice", "x=1", "a'b", "$ab$", "Ẹ́mẹ́", "1-2"]


@pytest.mark.parametrize("name", RISKY)
def test_a_cell_a_spreadsheet_would_run_gets_one_more_quote(name: str) -> None:
    assert name_cell(name) == "'" + name


@pytest.mark.parametrize("name", PLAIN)
def test_other_cells_are_the_name(name: str) -> None:
    assert name_cell(name) == name


def _history(names: list[str]) -> list[Step]:
    when = datetime(2024, 1, 6, 19)
    steps: list[Step] = [Join(names[0], when)]
    steps += [Game(a, b, 1.0, when) for a, b in zip(names, names[1:], strict=False)]
    return steps


@pytest.mark.parametrize("readers", ["rows", "columns"])
@pytest.mark.parametrize("quoted", [True, False], ids=["csv-quoted cells", "plain text"])
def test_every_name_comes_back_as_it_was_written(tmp_path: Path, readers: str,
                                                 quoted: bool) -> None:
    # Without a cell in double quotes the column reader reads the text itself, not csv's.
    names = [n for n in RISKY + PLAIN if n == n.strip() and (quoted or '"' not in n)]
    steps = _history(names)
    path = tmp_path / "EVENTS.csv"
    path.write_text(write_events(steps, {n: n for n in names}, [""] * len(steps)),
                    encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert all(not cell.startswith(("=", "+", "-", "@")) for line in lines[1:]
               for cell in line.split(",")[2:4])
    if readers == "rows":
        assert read_events(path).steps == steps
    else:
        columns = read_event_columns(path)
        assert [columns.names[i] for i in columns.player_a] == [names[0], *names[:-1]]
        assert [columns.names[i] for i in columns.player_b[1:]] == names[1:]


@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
               max_size=20))
def test_any_name_survives_a_written_cell(name: str) -> None:
    assert read_name(name_cell(name), "player_a") == name


def test_players_csv_reads_a_quoted_name_as_import_does(tmp_path: Path) -> None:
    path = tmp_path / "PLAYERS.csv"
    path.write_text("player,rating\n'=1+1,1600\n''x,1500\n", encoding="utf-8")
    assert sorted(read_players(path).players) == ["'x", "=1+1"]
