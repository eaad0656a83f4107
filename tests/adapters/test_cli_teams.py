"""Issue 37: ``clubrating replay`` and ``clubrating evaluate`` rate the team rows of
EVENTS.csv (sides written "ann & bob"), and the chat's /evaluate (bot.service.evaluating)
scores them: one prediction per team game, as for a game of one against one."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.cli import main
from bot.history import read_events
from bot.service.evaluating import compare
from ratings_core.model import TeamGame, games_of
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
