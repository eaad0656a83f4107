"""`clubrating evaluate` and the metrics under it."""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path

import pytest

from bot.cli import main
from ratings_core.evaluation import brier, evaluate, log_loss, score_predictions
from ratings_core.model import Game, PlayerState, RatingPeriod
from ratings_core.systems import make_system


def test_metrics_by_hand() -> None:
    assert log_loss(0.5, 1.0) == pytest.approx(math.log(2))
    assert log_loss(0.8, 0.5) == pytest.approx(-(0.5 * math.log(0.8) + 0.5 * math.log(0.2)))
    assert log_loss(1.0, 0.0) == pytest.approx(-math.log(1e-6))  # certain and wrong: finite
    assert brier(0.8, 1.0) == pytest.approx(0.04)
    scores = score_predictions([(0.8, 1.0), (0.3, 1.0), (0.5, 0.0), (0.6, 0.5)])
    assert scores.games == 4
    assert scores.brier == pytest.approx((0.04 + 0.49 + 0.25 + 0.01) / 4)
    assert scores.accuracy == pytest.approx((1 + 0 + 0.5) / 3)  # decisive games only
    assert [(b.low, b.games) for b in scores.calibration] == [(0.3, 1), (0.5, 1), (0.6, 1),
                                                              (0.8, 1)]


def test_each_period_is_predicted_from_the_earlier_ones() -> None:
    # Two equal newcomers play twice in one period: both games are predicted at 1/2, however the
    # first comes out; the second period is predicted from the ratings after the first.
    system = make_system("elo")
    january = RatingPeriod((Game("a", "b", 1.0, datetime(2024, 1, 1)),
                            Game("a", "b", 1.0, datetime(2024, 1, 2))))
    february = Game("a", "b", 0.0, datetime(2024, 2, 1))
    scores = evaluate(system, [january, february], test_fraction=1.0)
    after_january = PlayerState(rating=1632.0), PlayerState(rating=1568.0)
    expected = system.expected_score(*after_january)
    assert scores.games == 3
    assert scores.logloss == pytest.approx(
        (2 * math.log(2) + log_loss(expected, 0.0)) / 3)


def test_only_the_test_window_is_scored() -> None:
    games = [Game("a", "b", 1.0, datetime(2024, 1, day)) for day in range(1, 11)]
    assert evaluate(make_system("club"), games, test_fraction=0.3).games == 3


def test_evaluate_prints_the_json_contract(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    rows = "\n".join(f"2024-01-{d:02d},,p{d % 3},p{(d + 1) % 3},{(d % 2)}" for d in range(1, 29))
    events = tmp_path / "EVENTS.csv"
    events.write_text("played_at,event,player_a,player_b,score_a\n" + rows + "\n")
    code = main(["evaluate", "--systems", "club,glicko2", "--format", "json", str(events)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [s["system"] for s in out["systems"]] == ["club", "glicko2"]
    for entry in out["systems"]:
        assert set(entry) == {"system", "params", "logloss", "brier", "accuracy", "test_games",
                              "games_per_second"}
        assert entry["test_games"] == 9 and entry["logloss"] > 0  # days 20..28 of 1..28
    assert out["systems"][0]["params"]["k"] == 32.0
    best = min(out["systems"], key=lambda s: s["logloss"])["system"]
    assert out["recommended"] == best
    assert main(["evaluate", "--systems", "club", str(events)]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split() == ["system", "log-loss", "Brier", "accuracy",
                                             "games", "games/s"]
    assert table.splitlines()[-1].startswith("recommended: club")


@pytest.mark.parametrize(("args", "message"), [
    (["--systems", "nope"], "unknown rating system 'nope'"),
    (["--test-fraction", "0"], "--test-fraction must be in (0, 1]"),
    (["--test-fraction", "1.5"], "--test-fraction must be in (0, 1]"),
])
def test_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                     message: str) -> None:
    events = tmp_path / "EVENTS.csv"
    events.write_text("played_at,event,player_a,player_b,score_a\n2024-01-01,,a,b,1\n")
    assert main(["evaluate", *args, str(events)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err
