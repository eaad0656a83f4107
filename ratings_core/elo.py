"""The logistic Elo family: classic ``elo``, the product default ``club`` and ``asymmetric``.

All three move a rating by K (sum of scores - sum of expected scores) over a rating period,
from the ratings held before the period (seed 002, 算出方法). They differ in the K policy,
starting ratings, floors, provisional newcomers and how losses count.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from .curves import logistic_expected, normal_expected
from .model import Game, PlayerState
from .parameters import first_move_param, param, require
from .provisional import keep_direction, performance_rating, weighted_rating
from .system import PoolRule, RatingSystem
from .table import Table

# -- rules --------------------------------------------------------------------------------------


def elo_change(k: float, score: float, expected: float) -> float:
    """K (S - E); over a period S and E are sums, for N games against one opponent W - N E.

    Source: seed 002 (算出方法: R' = R + K (W - N E)); seed 000 (אופן העדכון); SPEC 3.2.
    """
    return k * (score - expected)


def k_factor(
    peak: float,
    games: int,
    *,
    k: float,
    k_master: float,
    master_rating: float,
    veteran_games: int | None,
) -> float:
    """K = 32 for weaker and less experienced players, 16 for masters and veterans.

    A player counts as a master once their rating has reached ``master_rating`` (it stays so),
    and as a veteran after ``veteran_games`` games (never when that is ``None``).
    Source: seed 000 (אופן העדכון: K=32 / K=16), SPEC 3.2.
    """
    if peak >= master_rating or (veteran_games is not None and games >= veteran_games):
        return k_master
    return k


def age_on(birth_date: date, day: date) -> int:
    """Whole years of age on ``day`` (the age test of the junior start).

    Source: seed 000 (אתחול: "under 14").
    """
    years = day.year - birth_date.year
    return years - ((day.month, day.day) < (birth_date.month, birth_date.day))


def initial_rating(
    birth_date: date | None, day: date, *, adult: float, junior: float, junior_age: int
) -> float:
    """1600 for adults, 1200 for players under 14 on the day they join (when age is known).

    Source: seed 000 (אתחול), SPEC 3.2.
    """
    if birth_date is not None and age_on(birth_date, day) < junior_age:
        return junior
    return adult


def floor_for(peak: float, *, floor: float | None, ratchet: float | None) -> float:
    """The lowest rating allowed: 1200, or 1400 once a player has passed 1400.

    Source: seed 000 (אתחול: nobody drops below 1200; after passing 1400 never below 1400).
    """
    lowest = -math.inf if floor is None else floor
    if ratchet is not None and peak > ratchet:
        lowest = max(lowest, ratchet)
    return lowest


# -- shared period bookkeeping -----------------------------------------------------------------


class _Tally:
    """One player's totals over a period (score, expectation, opponents, wins and losses)."""

    __slots__ = ("score", "expected", "games", "opponents", "wins", "losses")

    def __init__(self) -> None:
        self.score = 0.0
        self.expected = 0.0
        self.games = 0
        self.opponents = 0.0
        self.wins = 0
        self.losses = 0

    def add(self, score: float, expected: float, opponent: float) -> None:
        self.score += score
        self.expected += expected
        self.games += 1
        self.opponents += opponent
        if score == 1.0:
            self.wins += 1
        elif score == 0.0:
            self.losses += 1


def tally_period(
    table: Table, games: Sequence[Game], expected: Callable[[float], float],
    first_move_advantage: float = 0.0,
) -> dict[int, _Tally]:
    """Every participant's totals over a period, from the ratings held before it.

    A handicap narrows the giver's difference: they play as if that much weaker, and their
    opponent's rating counts that much higher in Ravg. The first move counts as a handicap of
    ``first_move_advantage`` received (:meth:`RatingSystem.handicap_of`).
    Source: seed 002 (算出方法, period sums; TAISEN handicap points), seed 001 (h), SPEC 3.4.
    """
    index = table.index
    rating = table.rating
    tallies: dict[int, _Tally] = {}
    for game in games:
        a = index[game.player_a]
        b = index[game.player_b]
        # The giver of a handicap plays as if that much weaker (seed 002 TAISEN, seed 001 h).
        h = game.handicap - first_move_advantage * game.first_move
        e = expected(rating[a] - rating[b] - h)
        s = game.score_a
        tallies.setdefault(a, _Tally()).add(s, e, rating[b] + h)
        tallies.setdefault(b, _Tally()).add(1.0 - s, 1.0 - e, rating[a] - h)
    return tallies


def _record(table: Table, i: int, new_rating: float, games: int, when: datetime) -> None:
    table.rating[i] = new_rating
    table.games[i] += games
    if new_rating > table.peak[i]:
        table.peak[i] = new_rating
    table.last_played[i] = when


# -- classic Elo ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EloParams:
    curve: Literal["logistic", "normal"] = param(
        "logistic", "expected-score curve: logistic (USCF/FIDE today) or normal (Elo's original)"
    )
    k: float = param(32.0, "K for weaker and less experienced players (seed 000)",
                     low=1, high=400)
    k_master: float = param(16.0, "K for masters and veterans (seed 000)", low=1, high=400)
    master_rating: float = param(2400.0, "rating that makes a master for good (seed 000)",
                                 low=0, high=4000)
    veteran_games: int | None = param(None, "games after which K drops to k_master; none: never",
                                      low=0, high=1000)
    adult_rating: float = param(1600.0, "starting rating of an adult (seed 000)",
                                low=0, high=4000)
    junior_rating: float = param(1200.0, "starting rating of a player under junior_age (seed 000)",
                                 low=0, high=4000)
    junior_age: int = param(14, "age below which a newcomer starts at junior_rating (seed 000)",
                            low=0, high=30)
    floor: float | None = param(1200.0, "nobody drops below this (seed 000); none: no floor",
                                low=0, high=4000)
    ratchet: float | None = param(1400.0, "once passed, never drop below it (seed 000); none: off",
                                  low=0, high=4000)
    first_move_advantage: float = first_move_param()

    def __post_init__(self) -> None:
        require(self.k > 0, "k", "must be positive")
        require(self.k_master > 0, "k_master", "must be positive")
        require(self.veteran_games is None or self.veteran_games >= 0, "veteran_games", ">= 0")
        require(self.junior_age >= 0, "junior_age", "must be >= 0")


class ClassicElo(RatingSystem):
    """``elo``: classic Elo with the K policy, starting ratings and floors of seed 000.

    Source: seed 000 (מד כושר), seed 002 (イロレーティング), SPEC 3.2.
    """

    name = "elo"

    def __init__(self, params: EloParams | None = None) -> None:
        self.params: EloParams = params or EloParams()
        self.expected = logistic_expected if self.params.curve == "logistic" else normal_expected

    @property
    def first_move_advantage(self) -> float:
        return self.params.first_move_advantage

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        p = self.params
        rating = initial_rating(
            birth_date, when.date(), adult=p.adult_rating, junior=p.junior_rating,
            junior_age=p.junior_age,
        )
        return PlayerState(rating=rating, peak=rating, birth_date=birth_date)

    def expected_score(self, player: PlayerState, opponent: PlayerState,
                       handicap: float = 0.0) -> float:
        """The preset's curve (logistic or normal). Source: seed 000, SPEC 3.1."""
        return self.expected(player.rating - opponent.rating - handicap)

    def _k(self, table: Table, i: int) -> float:
        p = self.params
        return k_factor(
            table.peak[i], table.games[i], k=p.k, k_master=p.k_master,
            master_rating=p.master_rating, veteran_games=p.veteran_games,
        )

    def _floor(self, table: Table, i: int) -> float:
        return floor_for(table.peak[i], floor=self.params.floor, ratchet=self.params.ratchet)

    def rate_period(self, table: Table, games: Sequence[Game], when: datetime) -> None:
        """R' = R + K (sum S - sum E), then the floors. Source: seed 000, seed 002, SPEC 3.2."""
        tallies = tally_period(table, games, self.expected, self.first_move_advantage)
        updates = []
        for i, t in tallies.items():
            new = table.rating[i] + elo_change(self._k(table, i), t.score, t.expected)
            updates.append((i, max(new, self._floor(table, i)), t.games))
        for i, new, n in updates:
            _record(table, i, new, n, when)

    def rate_sequence(self, table: Table, games: Sequence[Game]) -> None:
        """Each game its own period; the same arithmetic as :meth:`rate_period`, inlined.

        A replay spends nearly all its time here, so the K policy and floors are written out
        instead of called; ``tests/core/test_replay.py`` checks the two paths give equal numbers.
        """
        if self.params.curve != "logistic":
            super().rate_sequence(table, games)
            return
        p = self.params
        k, k_master, master = p.k, p.k_master, p.master_rating
        veteran = sys.maxsize if p.veteran_games is None else p.veteran_games
        floor = -math.inf if p.floor is None else p.floor
        ratchet = math.inf if p.ratchet is None else p.ratchet
        ratchet_floor = max(ratchet, floor)
        advantage = p.first_move_advantage
        index, rating, played, peak, last = (
            table.index, table.rating, table.games, table.peak, table.last_played
        )
        for game in games:
            a = index[game.player_a]
            b = index[game.player_b]
            ra = rating[a]
            rb = rating[b]
            difference = ra - rb - game.handicap
            if advantage:  # classic Elo has none: spare the million-game loop the lookup
                difference += advantage * game.first_move
            try:
                e = 1.0 / (1.0 + 10.0 ** (-difference / 400.0))
            except OverflowError:  # odds beyond 1e308 against player_a: E is 0 in floats
                e = 0.0
            s = game.score_a
            pa = peak[a]
            pb = peak[b]
            ga = played[a]
            gb = played[b]
            ka = k_master if pa >= master or ga >= veteran else k
            kb = k_master if pb >= master or gb >= veteran else k
            na = ra + ka * (s - e)
            nb = rb + kb * ((1.0 - s) - (1.0 - e))
            fa = ratchet_floor if pa > ratchet else floor
            fb = ratchet_floor if pb > ratchet else floor
            if na < fa:
                na = fa
            if nb < fb:
                nb = fb
            rating[a] = na
            rating[b] = nb
            if na > pa:
                peak[a] = na
            if nb > pb:
                peak[b] = nb
            played[a] = ga + 1
            played[b] = gb + 1
            last[a] = last[b] = game.played_at


# -- the club default ----------------------------------------------------------------------------

#: the club default's first-move advantage, fitted on real games (docs/accuracy.md)
CLUB_FIRST_MOVE = 30.0


@dataclass(frozen=True, slots=True)
class ClubParams:
    base: float = param(1500.0, "league mean that newcomers start from (seed 002, SPEC 3.7)",
                        low=0, high=4000)
    k: float = param(32.0, "K for most players (seed 000)", low=1, high=400)
    k_master: float = param(16.0, "K once a player has reached master_rating (seed 000)",
                            low=1, high=400)
    master_rating: float = param(2400.0, "rating that lowers K for good (seed 000)",
                                 low=0, high=4000)
    provisional_games: int = param(24, "games rated provisionally, as Quebec's 24 (seed 003)",
                                   low=0, high=100)
    prior_games: float = param(10.0, "weight of the starting rating, in games, while provisional",
                               low=0, high=100)
    performance_cap: float = param(400.0, "limit of a performance around Ravg (seed 002)",
                                   low=0, high=1000)
    pool_cap: float = param(200.0, "most a newcomer's start may differ from base (SPEC 3.7)",
                            low=0, high=1000)
    first_move_advantage: float = first_move_param(CLUB_FIRST_MOVE)

    def __post_init__(self) -> None:
        require(self.k > 0, "k", "must be positive")
        require(self.k_master > 0, "k_master", "must be positive")
        require(self.provisional_games >= 0, "provisional_games", "must be >= 0")
        require(self.prior_games >= 0, "prior_games", "must be >= 0")
        require(self.performance_cap >= 0, "performance_cap", "must be >= 0")
        require(self.pool_cap >= 0, "pool_cap", "must be >= 0")


class ClubElo(RatingSystem):
    """``club``: logistic Elo with provisional newcomers and inflation-neutral starts.

    - K 32, or 16 once a player has reached 2400 (seed 000).
    - For their first ``provisional_games`` games a player's own new rating is the games-weighted
      mean of their rating (weight: games so far + ``prior_games``) and the period's performance
      Ravg + 400 (W - L) / n (seeds 002 and 003), never moving against the period's result
      (a win never lowers it; seed 004's guard); their opponents are rated against them with
      their normal K.
    - Newcomers start at the base less their share of the retirees' pool (seed 002, SPEC 3.7).

    Source: seed 000, seed 002, seed 003, SPEC 3.6 and 3.7.
    """

    name = "club"

    def __init__(self, params: ClubParams | None = None) -> None:
        self.params: ClubParams = params or ClubParams()

    @property
    def first_move_advantage(self) -> float:
        return self.params.first_move_advantage

    @property
    def pool(self) -> PoolRule:
        return PoolRule(base=self.params.base, cap=self.params.pool_cap)

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        rating = self.params.base - share
        return PlayerState(rating=rating, peak=rating, birth_date=birth_date)

    def is_provisional(self, state: PlayerState) -> bool:
        return state.games < self.params.provisional_games

    def _settle(self, table: Table, i: int, t: _Tally) -> float:
        p = self.params
        rating = table.rating[i]
        games = table.games[i]
        if games < p.provisional_games:
            performance = performance_rating(
                t.opponents / t.games, t.wins, t.losses, t.games, p.performance_cap
            )
            proposed = weighted_rating(rating, games + p.prior_games, performance, t.games)
            return keep_direction(rating, proposed, t.score, t.expected)
        k = p.k_master if table.peak[i] >= p.master_rating else p.k
        return rating + elo_change(k, t.score, t.expected)

    def rate_period(self, table: Table, games: Sequence[Game], when: datetime) -> None:
        """Provisional players by weighted mean, the others by Elo. Source: see the class."""
        tallies = tally_period(table, games, logistic_expected, self.first_move_advantage)
        updates = [(i, self._settle(table, i, t), t.games) for i, t in tallies.items()]
        for i, new, n in updates:
            _record(table, i, new, n, when)

    def rate_sequence(self, table: Table, games: Sequence[Game]) -> None:
        """Each game its own period: :meth:`rate_period`'s arithmetic, inlined for speed."""
        p = self.params
        k, k_master, master = p.k, p.k_master, p.master_rating
        provisional, prior, cap = p.provisional_games, p.prior_games, p.performance_cap
        advantage = p.first_move_advantage
        index, rating, played, peak, last = (
            table.index, table.rating, table.games, table.peak, table.last_played
        )
        for game in games:
            a = index[game.player_a]
            b = index[game.player_b]
            ra = rating[a]
            rb = rating[b]
            h = game.handicap - advantage * game.first_move
            try:
                e = 1.0 / (1.0 + 10.0 ** (-(ra - rb - h) / 400.0))
            except OverflowError:  # odds beyond 1e308 against player_a: E is 0 in floats
                e = 0.0
            s = game.score_a
            ga = played[a]
            gb = played[b]
            if ga < provisional:
                wins = 1 if s == 1.0 else 0
                losses = 1 if s == 0.0 else 0
                perf = performance_rating(rb + h, wins, losses, 1, cap)
                na = keep_direction(ra, weighted_rating(ra, ga + prior, perf, 1), s, e)
            else:
                na = ra + (k_master if peak[a] >= master else k) * (s - e)
            if gb < provisional:
                wins = 1 if s == 0.0 else 0
                losses = 1 if s == 1.0 else 0
                perf = performance_rating(ra - h, wins, losses, 1, cap)
                nb = keep_direction(
                    rb, weighted_rating(rb, gb + prior, perf, 1), 1.0 - s, 1.0 - e
                )
            else:
                nb = rb + (k_master if peak[b] >= master else k) * ((1.0 - s) - (1.0 - e))
            rating[a] = na
            rating[b] = nb
            if na > peak[a]:
                peak[a] = na
            if nb > peak[b]:
                peak[b] = nb
            played[a] = ga + 1
            played[b] = gb + 1
            last[a] = last[b] = game.played_at


# -- asymmetric (81Dojo) ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AsymmetricParams:
    initial: float = param(1500.0, "starting rating (the conventional average, seed 002)",
                           low=0, high=4000)
    k: float = param(32.0, "K of the underlying logistic Elo (seed 002)", low=1, high=400)
    loss_factor: float = param(
        0.75, "share of a computed loss that is taken; wins count in full (seed 002: 81Dojo)",
        low=0.01, high=1,
    )
    first_move_advantage: float = first_move_param()

    def __post_init__(self) -> None:
        require(self.k > 0, "k", "must be positive")
        require(0 < self.loss_factor <= 1, "loss_factor", "must be in (0, 1]")


def asymmetric_change(change: float, loss_factor: float) -> float:
    """A rating change with losses scaled down: gains in full, losses times ``loss_factor``.

    Source: seed 002 (レーティングのインフレ・デフレ: 81Dojo makes ratings harder to lose to
    counter the deflation of online clubs), SPEC 3.8. The seed gives no ratio; ours is a
    parameter (docs/ratings.md).
    """
    return change if change >= 0 else change * loss_factor


class AsymmetricElo(RatingSystem):
    """``asymmetric``: logistic Elo in which a period's net loss is scaled by ``loss_factor``.

    Source: seed 002 (81Dojo), SPEC 3.8.
    """

    name = "asymmetric"

    def __init__(self, params: AsymmetricParams | None = None) -> None:
        self.params: AsymmetricParams = params or AsymmetricParams()

    @property
    def first_move_advantage(self) -> float:
        return self.params.first_move_advantage

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        return PlayerState(rating=self.params.initial, peak=self.params.initial)

    def rate_period(self, table: Table, games: Sequence[Game], when: datetime) -> None:
        """R' = R + f(K (sum S - sum E)), f scaling losses. Source: seed 002, SPEC 3.8."""
        p = self.params
        tallies = tally_period(table, games, logistic_expected, self.first_move_advantage)
        updates = [
            (i, table.rating[i] + asymmetric_change(elo_change(p.k, t.score, t.expected),
                                                    p.loss_factor), t.games)
            for i, t in tallies.items()
        ]
        for i, new, n in updates:
            _record(table, i, new, n, when)
