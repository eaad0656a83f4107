"""``tactics``: rated puzzles solved against the clock (users and problems rated alike).

Source: seed 004 (a blog article on rating users and problems of tactics servers such as Chess
Tempo and Chess Tactics Server: steps (1) to (4), the time adjustment K log2(t/T) with T = 30 s
and K = 125 points per doubling, and its derivation from the linear expectation 0.5 + d/800);
SPEC 3.10.

A game is one attempt: ``player_a`` is the user, ``player_b`` the problem, ``score_a`` 1 when
the user solved it and 0 when they failed, ``seconds`` the time the user took. Over a rating
period, from the ratings held before it:

- each attempt gives the user an estimate: the time-adjusted problem rating (the problem rating
  less K log2(t/T), so a fast solve counts as a harder problem) plus 400 for a success, minus
  400 for a failure; a success's estimate below the user's rating and a failure's estimate above
  it are dropped; the user's new rating is the mean of the estimates kept;
- each attempt gives the problem an estimate the same way from the users' side, with the signs
  turned round: the time-adjusted user rating (user rating plus K log2(t/T)) minus 400 when the
  user solved it (dropped if above the problem's rating), plus 400 when the user failed (dropped
  if below); the problem's new rating is the mean of the estimates kept.

Nothing kept leaves a rating unchanged. Estimates equal to the current rating are kept (the
seed discards only those "less than" or "more than" it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple

from .model import Match, PlayerState, TeamGame
from .parameters import param, require
from .system import RatingSystem
from .table import Table, moment_of

# -- rules -----------------------------------------------------------------------------------------


def time_adjustment(
    seconds: float, *, target_seconds: float, doubling_points: float, cap: float
) -> float:
    """K log2(t / T): how much stronger a user plays for taking ``seconds`` instead of the
    target time T, ``doubling_points`` (K) per doubling of the time, limited to +/- ``cap``.

    Positive when the user is slower than the target, negative when faster.
    Source: seed 004 (d_i = R - R_i + K log2(t_i / T), T = 30 s, K = 125; the graph's time
    adjustment reaches at most 400 points either way), SPEC 3.10.
    """
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a positive number, not {seconds!r}")
    if not (math.isfinite(target_seconds) and target_seconds > 0):
        raise ValueError(f"target_seconds must be a positive number, not {target_seconds!r}")
    raw = doubling_points * math.log2(seconds / target_seconds)
    return max(-cap, min(cap, raw))


class Attempt(NamedTuple):
    """One attempt seen from one side: the other side's rating, the outcome and the time."""

    #: the problem's rating when rating a user, the user's rating when rating a problem
    opponent: float
    #: whether the user solved the problem
    solved: bool
    #: the user's time on the problem, in seconds
    seconds: float


@dataclass(frozen=True, slots=True)
class TacticsParams:
    initial: float = param(
        1500.0, "starting rating of users and problems alike (the conventional average)",
        low=0, high=4000,
    )
    target_seconds: float = param(
        30.0, "time T at which ratings hold: Chess Tempo's average solving time (seed 004)",
        low=1, high=86400,
    )
    doubling_points: float = param(
        125.0, "K: points a user gains for each doubling of the time taken (seed 004)",
        low=0, high=1000,
    )
    time_cap: float = param(400.0, "largest time adjustment either way (seed 004's graph)",
                            low=0, high=2000)
    result_points: float = param(
        400.0, "added for a success, taken for a failure: 800 (s - 0.5) (seed 004)",
        low=0, high=2000,
    )

    def __post_init__(self) -> None:
        require(math.isfinite(self.initial), "initial", "must be a finite number")
        require(
            math.isfinite(self.target_seconds) and self.target_seconds > 0,
            "target_seconds", "must be a positive number",
        )
        require(self.doubling_points >= 0, "doubling_points", "must be >= 0")
        require(self.time_cap >= 0, "time_cap", "must be >= 0")
        require(self.result_points >= 0, "result_points", "must be >= 0")


def _adjustment(seconds: float, p: TacticsParams) -> float:
    return time_adjustment(
        seconds, target_seconds=p.target_seconds, doubling_points=p.doubling_points,
        cap=p.time_cap,
    )


def user_estimate(rating: float, attempt: Attempt, params: TacticsParams) -> float | None:
    """What one attempt says about a user rated ``rating``, or ``None`` when it is dropped.

    The time-adjusted problem rating (problem rating less the time adjustment) plus 400 for a
    success, dropped when below ``rating``; minus 400 for a failure, dropped when above it.
    Source: seed 004, steps (1) to (3), SPEC 3.10.
    """
    adjusted = attempt.opponent - _adjustment(attempt.seconds, params)
    if attempt.solved:
        estimate = adjusted + params.result_points
        return None if estimate < rating else estimate
    estimate = adjusted - params.result_points
    return None if estimate > rating else estimate


def problem_estimate(rating: float, attempt: Attempt, params: TacticsParams) -> float | None:
    """What one attempt says about a problem rated ``rating``, or ``None`` when it is dropped.

    The mirror of :func:`user_estimate`: the time-adjusted user rating (user rating plus the
    time adjustment) minus 400 when the user solved it, dropped when above ``rating``; plus 400
    when the user failed, dropped when below it.
    Source: seed 004 ("the time adjustment has the same magnitude but the opposite sign ... The
    success/failure adjustment for each user also has the same magnitude and the opposite
    sign"), SPEC 3.10.
    """
    adjusted = attempt.opponent + _adjustment(attempt.seconds, params)
    if attempt.solved:
        estimate = adjusted - params.result_points
        return None if estimate > rating else estimate
    estimate = adjusted + params.result_points
    return None if estimate < rating else estimate


def _mean_kept(rating: float, estimates: Sequence[float | None]) -> float:
    kept = [e for e in estimates if e is not None]
    if not kept:
        return rating
    # Averaging the offsets from the current rating keeps the sign exact: a mean of results all
    # at or above the rating can never come out a rounding error below it.
    return rating + math.fsum(value - rating for value in kept) / len(kept)


def user_rating(
    rating: float, attempts: Sequence[Attempt], params: TacticsParams | None = None
) -> float:
    """A user's new rating: the mean of the estimates kept from the period's ``attempts``
    (each against a problem's pre-period rating); unchanged when none is kept.

    Source: seed 004, step (4), SPEC 3.10.
    """
    p = params if params is not None else TacticsParams()
    return _mean_kept(rating, [user_estimate(rating, a, p) for a in attempts])


def problem_rating(
    rating: float, attempts: Sequence[Attempt], params: TacticsParams | None = None
) -> float:
    """A problem's new rating: the mean of the estimates kept from the period's ``attempts``
    (each by a user at their pre-period rating); unchanged when none is kept.

    Source: seed 004 (problems rated "similar to" users, signs turned round), SPEC 3.10.
    """
    p = params if params is not None else TacticsParams()
    return _mean_kept(rating, [problem_estimate(rating, a, p) for a in attempts])


# -- the system ------------------------------------------------------------------------------------


class Tactics(RatingSystem):
    """``tactics``: users and rated problems, both rated from the period's starting ratings.

    Source: seed 004, SPEC 3.10.
    """

    name = "tactics"
    #: a rated problem is solved by one member at a time
    rates_teams = False
    uses_handicap = False
    uses_seconds = True

    def __init__(self, params: TacticsParams | None = None) -> None:
        self.params: TacticsParams = params if params is not None else TacticsParams()

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        """Users and problems both start at ``initial`` (a newcomer's role is not known yet)."""
        rating = self.params.initial
        return PlayerState(rating=rating, peak=rating, birth_date=birth_date)

    def check(self, game: Match) -> None:
        """An attempt needs its time, no handicap, and is solved (1) or failed (0); it is one
        member's attempt at one problem, never a team game's (issue 37: ``rates_teams`` is
        False)."""
        if isinstance(game, TeamGame):
            raise ValueError("tactics rates one member's attempt at a problem, not team games")
        super().check(game)
        if game.score_a == 0.5:
            raise ValueError("score_a must be 1 (solved) or 0 (failed) for tactics, not 0.5")

    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """Rate every user and problem of the period. Source: seed 004, SPEC 3.10."""
        p = self.params
        index, rating = table.index, table.rating
        by_user: dict[int, list[Attempt]] = {}
        by_problem: dict[int, list[Attempt]] = {}
        for game in games:
            self.check(game)
            assert not isinstance(game, TeamGame)  # check() refuses team games
            assert game.seconds is not None  # check() refuses attempts without a time
            seconds = game.seconds
            u = index[game.player_a]
            q = index[game.player_b]
            solved = game.score_a == 1.0
            by_user.setdefault(u, []).append(Attempt(rating[q], solved, seconds))
            by_problem.setdefault(q, []).append(Attempt(rating[u], solved, seconds))
        both = by_user.keys() & by_problem.keys()
        if both:
            name = table.names[min(both)]
            raise ValueError(
                f"games: {name!r} is both a user (player_a) and a problem (player_b) in one period"
            )
        updates = [(u, user_rating(rating[u], a, p), len(a)) for u, a in by_user.items()]
        updates += [(q, problem_rating(rating[q], a, p), len(a)) for q, a in by_problem.items()]
        for i, new, n in updates:
            rating[i] = new
            table.games[i] += n
            if new > table.peak[i]:
                table.peak[i] = new
            table.last_moment[i] = moment_of(when)
