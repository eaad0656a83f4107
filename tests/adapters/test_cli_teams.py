"""Issue 37: ``clubrating replay`` and ``clubrating evaluate`` rate the team rows of
EVENTS.csv (sides written "ann & bob"), and the chat's /evaluate (bot.service.evaluating)
scores them: one prediction per team game, as for a game of one against one. ``replay``
reads the file as columns, team rows too, and rates them by the ladder's team settings given
with ``--set`` (uneven sides, their size handicap, the largest side), as the history path
does."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.cli import _replay_columns, _replay_history, main, standings_json
from bot.history import read_events
from bot.service.evaluating import compare
from bot.service.team_rule import TeamRule
from ratings_core.model import Event, RatingPeriod, Step, TeamGame, games_of
from ratings_core.replay import replay
from ratings_core.systems import make_system

HEADER = "played_at,event,player_a,player_b,score_a,handicap,kind"
NAMES = ["ann", "bob", "carl", "dora", "eve", "finn"]


def _history(games: int) -> str:
    start = datetime(2024, 1, 1)
    rows = [HEADER]
    for n in range(games):
        when = (start + timedelta(days=n)).date().isoformat()
        a, b, c, d = (NAMES[(n + k) % 6] for k in (0, 1, 2, 3))
        score = ("1", "0", "0.5")[n % 3]
        if n % 2:
            rows.append(f"{when},,{a} & {b},{c} & {d},{score},,")
        else:
            rows.append(f"{when},,{a},{c},{score},,")
    return "\n".join(rows) + "\n"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_rates_team_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(_history(20), encoding="utf-8")
    code, out, err = _run(capsys, "replay", "--system", "elo", str(path))
    assert code == 0, err
    players = {p["player"]: p for p in json.loads(out)["players"]}
    steps = read_events(path).steps
    assert sum(isinstance(s, TeamGame) for s in steps) == 10
    expected = replay(make_system("elo"), steps).players
    assert {n: p["rating"] for n, p in players.items()} == {
        n: s.rating for n, s in expected.items()}
    assert players["ann"]["games"] == expected["ann"].games


def test_evaluate_counts_team_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(_history(80), encoding="utf-8")
    code, out, err = _run(capsys, "evaluate", "--systems", "elo,glicko2", "--format", "json",
                          "--test-fraction", "1", str(path))
    assert code == 0, err
    systems = json.loads(out)["systems"]
    assert [s["test_games"] for s in systems] == [80, 80]


def test_evaluate_refuses_team_rows_for_tactics(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f"{HEADER}\n2024-01-06,,ann & bob,carl & dora,1,,\n", encoding="utf-8")
    code, out, err = _run(capsys, "evaluate", "--systems", "tactics", str(path))
    assert (code, out) == (2, "")
    assert err == ("clubrating: EVENTS.csv row 1: tactics rates one member's attempt at a "
                   "problem, not team games\n")


def test_the_chats_evaluation_scores_every_team_game(tmp_path: Path) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(_history(120), encoding="utf-8")
    steps = read_events(path).steps
    evaluation = compare("club", "club", steps)
    assert sum(len(games_of(s)) for s in steps) == 120
    assert evaluation.scores
    assert "tactics" not in {s.system for s in evaluation.scores}
    # the last 30 % of the time span: days 83.3 to 119, every game of them (both kinds)
    assert evaluation.games == 36


# -- uneven sides and the ladder's team settings --------------------------------------------

#: a 3 v 1 (row 2), a 1 v 2 and a 2 v 1 in a night (rows 3 and 4), even sides around them
UNEVEN = "\n".join([
    HEADER,
    "2024-01-01,,ann & bob,carl & dora,1,,",
    "2024-01-02,,ann & bob & eve,carl,0,,",
    "2024-01-03,night,ann,bob & carl,0.5,,",
    "2024-01-03,night,dora & eve,finn,1,,",
    "2024-01-04,,eve,finn,1,,",
    "2024-01-05,,finn & ann,carl & dora,0,,",
]) + "\n"


def _uneven(tmp_path: Path) -> Path:
    path = tmp_path / "EVENTS.csv"
    path.write_text(UNEVEN, encoding="utf-8")
    return path


@pytest.mark.parametrize(("given", "refusal"), [
    ([], "row 2, column player_b: sides of 3 and 1 members need uneven_teams=on"),
    (["team_size_handicap=50"],
     "row 2, column player_b: sides of 3 and 1 members need uneven_teams=on"),
    (["uneven_teams=on", "max_side=2"],
     "row 2, column player_b: a side has 3 members, more than max_side 2"),
])
def test_replay_refuses_sides_the_ladder_does_not_take(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], given: list[str],
        refusal: str) -> None:
    path = _uneven(tmp_path)
    sets = [arg for pair in given for arg in ("--set", pair)]
    assert _run(capsys, "replay", *sets, str(path)) == (
        2, "", f"clubrating: EVENTS.csv {refusal}\n")
    rule = TeamRule.taken_from(dict(pair.split("=") for pair in given))
    assert _replay_columns(make_system("club"), None, path, rule) is None


def _ruled(steps: list[Step], rule: TeamRule) -> list[Step]:
    """The steps with the rule's size handicap on each team game."""
    def one(event: Event) -> Event:
        return rule.applied(event) if isinstance(event, TeamGame) else event
    return [RatingPeriod(tuple(one(e) for e in step.events))
            if isinstance(step, RatingPeriod) else one(step) for step in steps]


@pytest.mark.parametrize("system", ["elo", "club", "glicko2", "fqe"])
@pytest.mark.parametrize("given", [
    ["uneven_teams=on"],
    ["uneven_teams=on", "team_size_handicap=60"],
    ["uneven_teams=on", "team_size_handicap=60", "max_side=3", "a parameter of the system"],
])
def test_replay_rates_uneven_sides_with_the_ladders_size_handicap(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], system: str,
        given: list[str]) -> None:
    """The JSON the columns give is the replay of the file's steps with the size handicap on
    its uneven games; the columnar path gives it (not the history path after a problem)."""
    path = _uneven(tmp_path)
    given = [{"elo": "k=24", "club": "k=24", "glicko2": "tau=0.4", "fqe": "k=24"}[system]
             if pair == "a parameter of the system" else pair for pair in given]
    sets = [arg for pair in given for arg in ("--set", pair)]
    code, out, err = _run(capsys, "replay", "--system", system, *sets, str(path))
    assert code == 0, err
    overrides = dict(pair.split("=") for pair in given)
    rule = TeamRule.taken_from(overrides)
    rating = make_system(system, overrides)
    expected = replay(rating, _ruled(read_events(path).steps, rule))
    assert out == json.dumps(standings_json(rating, expected), indent=2) + "\n"
    columns = _replay_columns(rating, None, path, rule)
    assert columns is not None and columns == _replay_history(rating, None, path, rule)
    if rule.size_handicap:
        assert expected.players != replay(rating, read_events(path).steps).players
