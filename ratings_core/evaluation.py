"""How well a rating system predicts a history's games: log-loss, Brier score, accuracy and
calibration, each game predicted from the ratings left by earlier rating periods.

Protocol: the steps are folded in order; before a step is rated, each of its games is predicted
with the system's own expected score from the state left by the earlier steps; games whose
step lies in the last ``test_fraction`` of the history's time span are scored. Systems keep
learning through the test window, as a club's ladder would.

Source: the evaluation protocol of the Kaggle "Elo versus the Rest of the World" competition
(predict a month from the months before it); Brier, "Verification of forecasts expressed in
terms of probability" (1950); log-loss as the binary cross-entropy with a draw scoring 1/2.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from .model import PlayerState, Step, TeamGame, events_of, games_of
from .replay import OpenReplay
from .system import RatingSystem

#: predictions are kept within (EPSILON, 1 - EPSILON) so a certain, wrong one costs a finite loss
EPSILON = 1e-6
#: calibration bins of the predicted score: [0, 0.1), [0.1, 0.2), ..., [0.9, 1]
BINS = 10


@dataclass(frozen=True, slots=True)
class CalibrationBin:
    low: float
    high: float
    games: int
    predicted: float
    scored: float


@dataclass(frozen=True, slots=True)
class Scores:
    """The metrics over the scored games (lower log-loss and Brier are better)."""

    logloss: float
    brier: float
    accuracy: float
    games: int
    calibration: tuple[CalibrationBin, ...]


def log_loss(predicted: float, score: float) -> float:
    """-(s ln p + (1 - s) ln(1 - p)), with p kept within (1e-6, 1 - 1e-6).

    Source: binary cross-entropy; a draw scores 1/2 (seed 002: a draw counts as half a win).
    """
    p = min(1.0 - EPSILON, max(EPSILON, predicted))
    return -(score * math.log(p) + (1.0 - score) * math.log(1.0 - p))


def brier(predicted: float, score: float) -> float:
    """(p - s)^2. Source: Brier (1950)."""
    return (predicted - score) ** 2


def score_predictions(pairs: Sequence[tuple[float, float]]) -> Scores:
    """Metrics of (predicted, actual score) pairs. Accuracy counts decisive games only: a
    prediction of exactly 1/2 earns half a hit. Source: see the module docstring."""
    if not pairs:
        return Scores(math.nan, math.nan, math.nan, 0, ())
    n = len(pairs)
    decisive = [(p, s) for p, s in pairs if s != 0.5]
    hits = sum(0.5 if p == 0.5 else float((p > 0.5) == (s == 1.0)) for p, s in decisive)
    bins = []
    for k in range(BINS):
        low, high = k / BINS, (k + 1) / BINS
        inside = [(p, s) for p, s in pairs if low <= p < high or (k == BINS - 1 and p == 1.0)]
        if inside:
            bins.append(CalibrationBin(
                low, high, len(inside),
                sum(p for p, _ in inside) / len(inside), sum(s for _, s in inside) / len(inside),
            ))
    return Scores(
        logloss=sum(log_loss(p, s) for p, s in pairs) / n,
        brier=sum(brier(p, s) for p, s in pairs) / n,
        accuracy=hits / len(decisive) if decisive else math.nan,
        games=n,
        calibration=tuple(bins),
    )


def _moment(step: Step) -> datetime | None:
    moments = [e.played_at for e in events_of(step)]
    return max(moments) if moments else None


def scoring_start(steps: Sequence[Step], test_fraction: float) -> datetime | None:
    """The moment from which games are scored: the last ``test_fraction`` of the time span
    from the first step to the last (``None`` for a history without events).

    Source: issue 7 of this project (metrics on the last ``test-fraction`` of the time span).
    """
    if not 0 < test_fraction <= 1:
        raise ValueError(f"test_fraction must be in (0, 1], not {test_fraction!r}")
    moments = [m for m in (_moment(s) for s in steps) if m is not None]
    if not moments:
        return None
    first, last = min(moments), max(moments)
    return first + (last - first) * (1.0 - test_fraction)


def evaluate(
    system: RatingSystem,
    steps: Sequence[Step],
    test_fraction: float = 0.3,
    progress: Callable[[int, int], None] | None = None,
) -> Scores:
    """Predict every game from the earlier periods, rate it, and score the last
    ``test_fraction`` of the time span. ``progress(done, total)`` is told about each step.

    Source: the protocol of the Kaggle "Elo versus the Rest of the World" competition (each
    month predicted from the months before it); issue 7 of this project.
    """
    start_of_test = scoring_start(steps, test_fraction)
    if start_of_test is None:
        return score_predictions([])
    pairs: list[tuple[float, float]] = []
    rated = OpenReplay(system)
    for done, step in enumerate(steps, start=1):
        moment = _moment(step)
        games = games_of(step)
        if games and moment is not None and moment >= start_of_test:
            for game in games:
                if isinstance(game, TeamGame):  # one prediction per game (issue 37)
                    side_a = [_state(system, rated, m, game.played_at) for m in game.side_a]
                    side_b = [_state(system, rated, m, game.played_at) for m in game.side_b]
                    pairs.append((system.predict_sides(game, side_a, side_b), game.score_a))
                    continue
                a = _state(system, rated, game.player_a, game.played_at)
                b = _state(system, rated, game.player_b, game.played_at)
                pairs.append((system.predict(game, a, b), game.score_a))
        rated.apply(step)
        if progress is not None:
            progress(done, len(steps))
    return score_predictions(pairs)


@dataclass(frozen=True, slots=True)
class Tuning:
    """The value of ``parameter`` that predicted the validation window best, and its scores."""

    parameter: str
    value: float
    validation: Scores


def tune(
    make: Callable[[float], RatingSystem],
    parameter: str,
    candidates: Sequence[float],
    steps: Sequence[Step],
    test_fraction: float = 0.3,
) -> Tuning:
    """Try each candidate value of a system's main parameter (``make(value)`` builds the
    system) on the validation window: the stretch of time, as long as the test window, just
    before it (at most the later half of the history before it). Nothing of the test window is
    seen, so the test scores of the chosen value stay honest.

    Source: the usual train / validation / test split of forecasting (each window predicted
    only from what came before it); issue 7 of this project.
    """
    start_of_test = scoring_start(steps, test_fraction)
    before = [s for s in steps if (m := _moment(s)) is not None and start_of_test is not None
              and m < start_of_test]
    fraction = min(test_fraction / (1.0 - test_fraction), 0.5) if test_fraction < 1 else 0.5
    best: Tuning | None = None
    for value in candidates:
        scores = evaluate(make(value), before, fraction)
        if scores.games and (best is None or scores.logloss < best.validation.logloss):
            best = Tuning(parameter, value, scores)
    if best is None:
        raise ValueError("the validation window holds no game to tune on")
    return best


def _state(system: RatingSystem, rated: OpenReplay, player: str, when: datetime) -> PlayerState:
    state = rated.state(player)
    if state is None:  # not met yet: as the system would start them
        state = system.newcomer(when, None, 0.0)
    return rated.as_rated(state)
