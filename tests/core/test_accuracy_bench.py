"""bench/accuracy.py: the peer adapters and the loop they share with `evaluate`'s protocol."""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest

from ratings_core.evaluation import evaluate
from ratings_core.model import Game, RatingPeriod, Step, games_of
from ratings_core.replay import Checkpoint, replay
from ratings_core.system import RatingSystem
from ratings_core.systems import make_system


def _load_bench() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "accuracy.py"
    spec = importlib.util.spec_from_file_location("clubrating_bench_accuracy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


bench = _load_bench()
DAY0 = datetime(2024, 1, 1)


def period(day: int, *games: tuple[str, str, float]) -> RatingPeriod:
    when = DAY0 + timedelta(days=day)
    return RatingPeriod(tuple(Game(a, b, s, when) for a, b, s in games))


def tiny_history() -> list[Step]:
    return [
        period(0, ("ann", "bob", 1.0), ("cat", "dan", 0.5)),
        period(1, ("bob", "cat", 0.0), ("dan", "ann", 0.0)),
        period(2, ("ann", "cat", 0.5), ("bob", "dan", 1.0)),
    ]


@pytest.mark.parametrize("name", sorted(bench.PEERS))
def test_every_peer_predicts_inside_0_1_and_moves_the_right_way(name: str) -> None:
    for score, direction in ((1.0, +1), (0.0, -1)):
        peer = bench.PEERS[name]()
        for step in tiny_history():
            for game in games_of(step):
                assert 0.0 < peer.predict(game.player_a, game.player_b) < 1.0
            peer.rate(games_of(step))
        before = peer.predict("ann", "bob")
        peer.rate([Game("ann", "bob", score, DAY0 + timedelta(days=3))])
        after = peer.predict("ann", "bob")
        assert 0.0 < after < 1.0
        assert (after - before) * direction > 0, (name, score, before, after)


def test_elo_k40_by_hand() -> None:
    """Period 1: ann beats bob, both 1500: E = 1/2, ann +20, bob -20. Period 2: bob (1480)
    beats ann (1520): E_bob = 1 / (1 + 10^(40/400)) = 0.4426884, bob + 40 (1 - E_bob)."""
    peer = bench.EloK40()
    history = [period(0, ("ann", "bob", 1.0)), period(1, ("bob", "ann", 1.0))]
    scores = bench.run_peer(peer, history, test_fraction=1.0)
    assert peer.ratings == pytest.approx({"ann": 1497.70753, "bob": 1502.29247})
    assert scores.games == 2
    assert scores.logloss == pytest.approx((math.log(2) - math.log(0.4426884)) / 2)
    assert scores.brier == pytest.approx((0.25 + (1 - 0.4426884) ** 2) / 2)


def test_elo_k40_rates_a_period_from_the_ratings_held_before_it() -> None:
    batch, online = bench.EloK40(), bench.EloK40(online=True)
    games = [Game("ann", "bob", 1.0, DAY0), Game("ann", "cat", 1.0, DAY0)]
    batch.rate(games)
    online.rate(games)
    assert batch.ratings == {"ann": 1540.0, "bob": 1480.0, "cat": 1480.0}
    # one after another, ann's second game starts from 1520: 40 (1 - 1/(1 + 10^(-20/400)))
    assert online.ratings["ann"] == pytest.approx(1520 + 18.84998, abs=1e-4)


class Spy:
    """A peer that remembers the results it was given and predicts them back: if a game's
    prediction could see its own result, it would be certain and right."""

    name = "spy"
    settings = ""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], float] = {}
        self.calls: list[tuple[str, object]] = []

    def predict(self, a: str, b: str) -> float:
        self.calls.append(("predict", (a, b)))
        return self.seen.get((a, b), 0.5)

    def rate(self, games: Sequence[Game]) -> None:
        self.calls.append(("rate", len(games)))
        for g in games:
            self.seen[(g.player_a, g.player_b)] = g.score_a


def test_the_loop_predicts_a_period_before_rating_it() -> None:
    spy = Spy()
    scores = bench.run_peer(spy, tiny_history(), test_fraction=1.0)
    assert scores.games == 6
    assert scores.logloss == pytest.approx(math.log(2))  # no prediction saw its own game
    assert spy.calls[:3] == [("predict", ("ann", "bob")), ("predict", ("cat", "dan")),
                             ("rate", 2)]


def test_the_loop_scores_only_the_test_window_and_rates_everything() -> None:
    history = [period(day, ("ann", "bob", 1.0)) for day in range(11)]  # days 0..10
    spy = Spy()
    scores = bench.run_peer(spy, history, test_fraction=0.3)
    assert scores.games == 4  # days 7, 8, 9 and 10: from day 0 + 10 * 0.7
    assert [c for c in spy.calls if c[0] == "rate"] == [("rate", 1)] * 11
    assert scores.logloss == pytest.approx(-math.log(1 - 1e-6))  # all seen before: certain


class OursAsPeer:
    """One of our presets behind the peer interface, to check the loop against `evaluate`."""

    name = "ours"
    settings = ""

    def __init__(self, system: RatingSystem) -> None:
        self.system = system
        self.state: Checkpoint = replay(system, []).final
        self.when = DAY0

    def predict(self, a: str, b: str) -> float:
        states = self.state.players
        newcomer = self.system.newcomer(self.when, None, 0.0)
        return self.system.expected_score(states.get(a, newcomer), states.get(b, newcomer))

    def rate(self, games: Sequence[Game]) -> None:
        self.state = replay(self.system, [RatingPeriod(tuple(games))], start=self.state).final
        self.when = games[-1].played_at


def test_the_loop_is_evaluates_protocol() -> None:
    rng = random.Random(7)
    names = [f"p{i}" for i in range(12)]
    history: list[Step] = []
    for day in range(40):
        pairs = [rng.sample(names, 2) for _ in range(rng.randint(1, 4))]
        history.append(period(day, *((a, b, rng.choice((0.0, 0.5, 1.0))) for a, b in pairs)))
    expected = evaluate(make_system("elo"), history, 0.3)
    got = bench.run_peer(OursAsPeer(make_system("elo")), history, 0.3)
    assert got.games == expected.games > 0
    assert got.logloss == pytest.approx(expected.logloss, abs=1e-12)
    assert got.brier == pytest.approx(expected.brier, abs=1e-12)


def test_constant_predicts_the_mean_score_so_far() -> None:
    peer = bench.Constant()
    assert peer.predict("ann", "bob") == 0.5
    peer.rate([Game("ann", "bob", 1.0, DAY0), Game("cat", "dan", 0.5, DAY0)])
    peer.rate([Game("bob", "ann", 1.0, DAY0)])
    assert peer.predict("x", "y") == pytest.approx(2.5 / 3)


def test_system_names_and_groups() -> None:
    assert bench.systems_named("club,whr") == ["club", "whr"]
    assert bench.systems_named("peers") == list(bench.PEERS)
    assert set(bench.systems_named("all")) == set(bench.OURS) | set(bench.PEERS)
    with pytest.raises(SystemExit, match="unknown system"):
        bench.systems_named("club,nonsense")
