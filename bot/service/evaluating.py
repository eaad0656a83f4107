"""Which rating system would have predicted a ladder's own games best: the in-chat short form
of ``clubrating evaluate`` (same protocol, same systems, every parameter at its default)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ratings_core.evaluation import evaluate
from ratings_core.model import Step, games_of
from ratings_core.systems import GAME_SYSTEMS, make_system

from .results import Evaluation, SystemScore

#: share of the ladder's time span that is scored, as ``clubrating evaluate``'s default
TEST_FRACTION = 0.3
#: fewer scored games than this tell nothing about which system is better
MIN_GAMES = 30


def _unchecked() -> None:
    pass


def compare(
    ladder: str, current: str, steps: Sequence[Step], check: Callable[[], None] = _unchecked
) -> Evaluation:
    """Every system that rates games between two players (and the ladder's own, when it rates
    puzzles: ``tactics``), scored on the last 30% of the
    ladder's history, best (lowest log-loss) first. Systems that cannot rate some game of the
    ladder (a handicap where the system has none) are left out; with fewer than ``MIN_GAMES``
    scored games no system is ranked. CPU-bound: run it in a worker thread; ``check`` is called
    after every step each system rates (a time cap raises there, :mod:`bot.service.heavy`).
    """
    games = [game for step in steps for game in games_of(step)]
    scores = []
    scored = 0
    # a puzzle ladder's own system (tactics) is weighed beside those that rate games
    names = GAME_SYSTEMS if current in GAME_SYSTEMS else [*GAME_SYSTEMS, current]
    for name in names:
        system = make_system(name)
        try:
            for game in games:
                system.check(game)
        except ValueError:
            continue
        result = evaluate(system, steps, TEST_FRACTION, lambda done, total: check())
        scored = result.games
        if result.games:
            scores.append(SystemScore(name, result.logloss, result.brier, result.accuracy))
    scores.sort(key=lambda s: (s.logloss, s.system))
    return Evaluation(ladder, current, scored, scores if scored >= MIN_GAMES else [])
