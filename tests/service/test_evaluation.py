"""`clubrating evaluate` and the metrics under it."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.adapters import console
from bot.chat.messages import text
from bot.cli import main
from bot.history import read_events
from bot.service import evaluating, heavy
from bot.service.club import Caller
from ratings_core.evaluation import (
    brier,
    evaluate,
    log_loss,
    score_predictions,
    scoring_start,
    tune,
)
from ratings_core.model import Game, PlayerState, RatingPeriod
from ratings_core.system import RatingSystem
from ratings_core.systems import GAME_SYSTEMS, MAIN_PARAMETERS, make_system
from tests.chat import Transcript, open_club
from tests.long_history import last_game, write_events
from tests.loop_stall import longest_stall


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
    # 120 days: the last 30 % of the time holds 36 games, more than the 30 a comparison needs
    rows = "\n".join(f"{date(2024, 1, 1) + timedelta(days=d - 1)},,p{d % 3},p{(d + 1) % 3},"
                     f"{(d % 2)}" for d in range(1, 121))
    events = tmp_path / "EVENTS.csv"
    events.write_text("played_at,event,player_a,player_b,score_a\n" + rows + "\n")
    code = main(["evaluate", "--systems", "club,glicko2", "--format", "json", str(events)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [s["system"] for s in out["systems"]] == ["club", "glicko2"]
    for entry in out["systems"]:
        assert set(entry) == {"system", "params", "logloss", "brier", "accuracy", "test_games",
                              "games_per_second"}
        assert entry["test_games"] == 36 and entry["logloss"] > 0  # days 85..120 of 1..120
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


# -- first move, tuning and the in-chat report --------------------------------------------------


def _white_wins(days: int) -> list[Game]:
    """Four equal players; White wins every game (first_move +1 for player_a)."""
    players = ["a", "b", "c", "d"]
    return [Game(players[d % 4], players[(d + 1 + d // 4) % 4 or 1], 1.0,
                 datetime(2024, 1, 1) + timedelta(days=d), first_move=1)
            for d in range(days) if players[d % 4] != players[(d + 1 + d // 4) % 4 or 1]]


def test_the_first_move_advantage_is_part_of_every_prediction() -> None:
    games = _white_wins(60)
    without = evaluate(make_system("elo"), games, 0.5)
    with_it = evaluate(make_system("elo", {"first_move_advantage": "60"}), games, 0.5)
    assert with_it.games == without.games > 0
    assert with_it.logloss < without.logloss
    # the first game of two newcomers: exactly the logistic curve at +60 for White
    system = make_system("elo", {"first_move_advantage": "60"})
    first = games[0]
    assert system.predict(first, PlayerState(1600.0), PlayerState(1600.0)) == pytest.approx(
        1 / (1 + 10 ** (-60 / 400)))
    black = dataclasses.replace(first, first_move=-1)
    assert system.predict(black, PlayerState(1600.0), PlayerState(1600.0)) == pytest.approx(
        1 / (1 + 10 ** (60 / 400)))


def test_tuning_uses_only_the_window_before_the_test_window() -> None:
    games = _white_wins(80)
    steps = list(games)
    values = (8.0, 32.0, 64.0)

    def make(value: float) -> RatingSystem:
        return make_system("elo", {"k": str(value)})

    chosen = tune(make, "k", values, steps, 0.25)
    start = scoring_start(steps, 0.25)
    assert start is not None
    before = [g for g in games if g.played_at < start]
    by_value = {v: evaluate(make(v), before, 1 / 3).logloss for v in values}
    assert chosen.value == min(by_value, key=lambda v: by_value[v])
    assert chosen.validation.logloss == pytest.approx(by_value[chosen.value])
    # what happens in the test window cannot change the choice
    flipped = [g if g.played_at < start else dataclasses.replace(g, score_a=0.0) for g in games]
    assert tune(make, "k", values, flipped, 0.25) == chosen


def test_every_game_system_has_a_main_parameter_to_tune() -> None:
    for name in GAME_SYSTEMS:
        parameter, candidates = MAIN_PARAMETERS[name]
        default = getattr(make_system(name).params, parameter)
        assert default in candidates, name  # tuning can always keep the default
        for value in candidates:
            make_system(name, {parameter: str(value)})  # every candidate is a valid value


def test_evaluate_tune_reports_the_chosen_values(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rows = "\n".join(f"{g.played_at.date()},,{g.player_a},{g.player_b},1,white"
                     for g in _white_wins(200))
    events = tmp_path / "EVENTS.csv"
    events.write_text("played_at,event,player_a,player_b,score_a,colour\n" + rows + "\n")
    assert main(["evaluate", "--tune", "--systems", "elo", "--format", "json",
                 str(events)]) == 0
    out = json.loads(capsys.readouterr().out)
    k = out["systems"][0]["params"]["k"]
    assert k in MAIN_PARAMETERS["elo"][1]
    assert main(["evaluate", "--tune", "--systems", "elo", str(events)]) == 0
    assert f"tuned elo: k={k:g} (validation log-loss" in capsys.readouterr().out


async def test_moderators_ask_in_chat_which_system_predicts_best(tmp_path: Path) -> None:
    rows = []
    for d in range(160):  # p0 strongest ... p5 weakest: the stronger one wins
        a, b = d % 6, (d * 5 + 1) % 6
        if a != b:
            day = datetime(2024, 1, 1) + timedelta(days=d)
            rows.append(f"{day.date()},,p{a},p{b},{1 if a < b else 0}")
    events = tmp_path / "EVENTS.csv"
    events.write_text("played_at,event,player_a,player_b,score_a\n" + "\n".join(rows) + "\n")
    # The club's clock after the history's last game: an import takes no game after tomorrow.
    async with open_club(tmp_path / "club.db", start=datetime(2024, 7, 1)) as chat:
        assert await chat.as_("mod!", "/register", "/evaluate") == text(
            "evaluation_too_few", ladder="main", games=0, needed=30)
        history = read_events(events)
        await chat.service.import_history(console.PLATFORM, console.CHAT, history,
                                          history.labels)
        refused = await chat.as_("p1", "/evaluate")
        assert refused == text("moderators_only")
        answer = await chat.as_("mod!", "/evaluate")
    lines = answer.splitlines()
    assert lines[0].startswith("Which system predicts main's games best")
    ranked = [line.split(":")[0] for line in lines[1:-1]]
    assert ranked[0].startswith("1. ") and len(ranked) == 5
    logloss = [float(line.split("log-loss ")[1].split(",")[0]) for line in lines[1:-1]]
    assert logloss == sorted(logloss)
    best = ranked[0].removeprefix("1. ")
    assert lines[-1] in (text("evaluation_keep", current="club"),
                         text("evaluation_advice", best=best))


def test_evaluate_set_gives_a_parameter_to_every_system_that_has_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = "\n".join(f"{g.played_at.date()},,{g.player_a},{g.player_b},1,white"
                     for g in _white_wins(200))
    events = tmp_path / "EVENTS.csv"
    events.write_text("played_at,event,player_a,player_b,score_a,colour\n" + rows + "\n")
    assert main(["evaluate", "--systems", "elo,rs-go", "--set", "first_move_advantage=60",
                 "--format", "json", str(events)]) == 0
    elo, rsgo = json.loads(capsys.readouterr().out)["systems"]
    assert elo["params"]["first_move_advantage"] == 60.0
    assert "first_move_advantage" not in rsgo["params"]  # rs-go has no such parameter
    plain = evaluate(make_system("elo"), _white_wins(200), 0.3)
    assert elo["logloss"] < plain.logloss  # White's wins were expected this time
    assert main(["evaluate", "--systems", "rs-go", "--set", "first_move_advantage=60",
                 str(events)]) == 2
    assert capsys.readouterr().err == (
        "clubrating: no compared system has the parameter first_move_advantage\n")
    assert main(["evaluate", "--systems", "elo", "--set", "k=lots", str(events)]) == 2
    assert "k" in capsys.readouterr().err


# -- /evaluate never holds the event loop nor the club's lock, and has a time cap -------------

#: a ladder /evaluate takes a second or two on
EVALUATED_GAMES = 3000


@asynccontextmanager
async def evaluated_club(tmp_path: Path) -> AsyncIterator[Transcript]:
    events = write_events(tmp_path / "EVENTS.csv", EVALUATED_GAMES, players=50)
    async with open_club(tmp_path / "club.db",
                         start=last_game(EVALUATED_GAMES) + timedelta(days=1)) as chat:
        history = read_events(events)
        await chat.service.import_history(console.PLATFORM, console.CHAT, history,
                                          history.labels)
        await chat.as_("mod!", "/top")
        yield chat


async def test_evaluate_holds_neither_the_event_loop_nor_the_clubs_lock(
        tmp_path: Path) -> None:
    other = Caller("console", "other", "zed", "zed")
    async with evaluated_club(tmp_path) as chat:
        service = chat.service
        await service.register(other)
        same = chat.console.caller
        loop = asyncio.get_running_loop()
        evaluation = asyncio.create_task(chat.say("/evaluate"))
        waits: dict[str, list[float]] = {"other": [], "same": []}

        async def meanwhile() -> None:
            await asyncio.sleep(0.1)  # the evaluation is under way
            while not evaluation.done():
                for name, caller in (("other", other), ("same", same)):
                    started = loop.time()
                    await service.leaderboard(caller)
                    waits[name].append(loop.time() - started)
                await asyncio.sleep(0.05)

        stall, _ = await asyncio.gather(longest_stall(evaluation), meanwhile())
        assert evaluation.result().startswith("Which system predicts main's games best")
        # The other club and this club's own /top were answered at once all along: the
        # evaluation runs in a worker thread, on a copy of the ladder, outside the lock.
        assert len(waits["other"]) >= 2, waits
        assert max(waits["other"] + waits["same"]) < 0.5, waits
        assert stall < 0.25


async def test_an_evaluation_that_takes_too_long_is_stopped_with_a_short_answer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ended: list[BaseException | None] = []
    compare = evaluating.compare

    def watched(*args: Any, **kwargs: Any) -> Any:
        try:
            result = compare(*args, **kwargs)
        except BaseException as error:
            ended.append(error)
            raise
        ended.append(None)
        return result

    monkeypatch.setattr(evaluating, "compare", watched)
    monkeypatch.setattr(heavy, "EVALUATE_SECONDS", 0.2)
    async with evaluated_club(tmp_path) as chat:
        loop = asyncio.get_running_loop()
        started = loop.time()
        assert await chat.say("/evaluate") == text("evaluation_too_slow", ladder="main",
                                                   seconds="0.2")
        assert loop.time() - started < 0.7
        # The worker stops at its next step, rather than evaluating on for nobody.
        for _ in range(100):
            if ended:
                break
            await asyncio.sleep(0.01)
        assert len(ended) == 1 and isinstance(ended[0], heavy.TimeUp)
