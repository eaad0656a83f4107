"""The logistic Elo family: classic ``elo``, the product default ``club`` and ``asymmetric``.

All three move a rating by K (sum of scores - sum of expected scores) over a rating period,
from the ratings held before the period (seed 002, 算出方法). They differ in the K policy,
starting ratings, floors, provisional newcomers and how losses count.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from .curves import logistic_expected, normal_expected
from .evidence import (
    GROWTH_DAYS,
    damped_difference,
    established_deviation,
    k_of,
    league_deviation,
    opponent_weight,
    recount,
    settled_deviation,
    toward_opponents,
)
from .glickman import Q, elapsed_periods, grow_deviation
from .inlined import rate_each_by_deviation, rate_each_classic
from .model import (
    FIRST_MOVE_OF,
    HANDICAP,
    PLAYED_AT,
    PLAYER_A,
    PLAYER_B,
    SCORE_A,
    Game,
    PlayerState,
)
from .parameters import first_move_param, param, require
from .provisional import keep_direction, performance_rating, weighted_rating
from .rows import GameLists, GameRows
from .system import GameRun, PoolRule, RatingSystem
from .table import LeagueSums, Table, moment_of, moments_of

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


def _lists_of(table: Table, games: Sequence[Game], moments: bool) -> GameLists:
    """The games as the inlined loops read them (the same loops rate a history's columns),
    with their times as moments for a rule that reads them. ``map`` runs each field's loop
    in C."""
    index = table.index.__getitem__
    return GameLists(
        list(map(index, map(PLAYER_A, games))), list(map(index, map(PLAYER_B, games))),
        list(map(SCORE_A, games)), list(map(HANDICAP, games)), list(map(FIRST_MOVE_OF, games)),
        list(moments_of(map(PLAYED_AT, games))) if moments else [])


def _leave_last_played(table: Table, games: Sequence[Game]) -> None:
    """For loops that never read last_played: the replay engine records it later, when it
    handed the games over as a :class:`~ratings_core.system.GameRun`; else it is recorded now."""
    if isinstance(games, GameRun):
        games.defer_last_played()
    else:
        table.stamp_last_played(games)


def _record(table: Table, i: int, new_rating: float, games: int, when: datetime) -> None:
    table.rating[i] = new_rating
    table.games[i] += games
    if new_rating > table.peak[i]:
        table.peak[i] = new_rating
    table.last_moment[i] = moment_of(when)


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
        instead of called (:func:`ratings_core.inlined.rate_each_classic`, compiled where it can
        be); ``tests/core/test_replay.py`` checks the two paths give equal numbers.
        """
        if self.params.curve != "logistic":
            super().rate_sequence(table, games)
            return
        rate_each_classic(self.params, table, _lists_of(table, games, moments=False))
        _leave_last_played(table, games)

    def rate_columns(self, table: Table, rows: GameRows) -> None:
        """:meth:`rate_sequence` over a history's columns (``last_played`` left to the replay)."""
        if self.params.curve != "logistic":
            super().rate_columns(table, rows)
            return
        rate_each_classic(self.params, table, rows.lists(moments=False))
        rows.defer_last_played()

# -- the club default ----------------------------------------------------------------------------

#: the club default's first-move advantage, fitted on real games (docs/accuracy.md)
CLUB_FIRST_MOVE = 30.0


@dataclass(frozen=True, slots=True)
class ClubParams:
    base: float = param(1500.0, "league mean that newcomers start from (seed 002, SPEC 3.7)",
                        low=0, high=4000)
    k: float = param(32.0, "K of an established player (seed 000)", low=1, high=400)
    k_master: float = param(16.0, "K once a player has reached master_rating (seed 000)",
                            low=1, high=400)
    master_rating: float = param(2400.0, "rating that lowers K for good (seed 000)",
                                 low=0, high=4000)
    uncertainty: Literal["deviation", "games"] = param(
        "deviation", "how a newcomer's rating settles: deviation (K follows each player's "
                     "uncertainty, issue 19) or games (provisional weighted mean, seed 003)"
    )
    initial_deviation: float = param(150.0, "a newcomer's deviation in rating points while "
                                            "fewer than two have played, or always with "
                                            "newcomer_spread=0 (uncertainty=deviation; issue 19)",
                                     low=1, high=1000)
    newcomer_spread: float = param(1.25, "a newcomer's deviation as this many times the spread "
                                         "of the league's ratings; 0: initial_deviation "
                                         "(uncertainty=deviation; issue 19)", low=0, high=10)
    max_deviation: float = param(350.0, "most a newcomer's deviation may be, as Glicko's "
                                        "unrated player (uncertainty=deviation)", low=1,
                                 high=1000)
    information: float = param(0.75, "share of a game's information (Glicko's) that shrinks a "
                                     "deviation (uncertainty=deviation; issue 19)", low=0.01,
                               high=10)
    first_opponents: float = param(0.5, "share of the way a new player's rating moves to their "
                                        "first opponents' mean (uncertainty=deviation; issue "
                                        "19)", low=0, high=1)
    deviation_growth: float = param(10.0, "deviation growth per 30 days away, Glicko's c "
                                          "(uncertainty=deviation; issue 19)", low=0, high=1000)
    provisional_games: int = param(24, "games rated provisionally, as Quebec's 24 (seed "
                                       "003); with deviations, the games that make a listed "
                                       "player without one established, and the games a "
                                       "newcomer is marked ? at least", low=0, high=100)
    provisional_margin: float = param(50.0, "points a deviation may exceed an established "
                                            "player's before the rating is marked ? "
                                            "(uncertainty=deviation; issue 31; 0 before "
                                            "edition 4)", low=0, high=1000)
    prior_games: float = param(10.0, "weight of the starting rating, in games, while "
                                     "provisional (uncertainty=games)", low=0, high=100)
    performance_cap: float = param(400.0, "limit of a performance around Ravg "
                                          "(uncertainty=games; seed 002)", low=0, high=1000)
    pool_cap: float = param(200.0, "most a newcomer's start may differ from base (SPEC 3.7)",
                            low=0, high=1000)
    first_move_advantage: float = first_move_param(CLUB_FIRST_MOVE)

    def __post_init__(self) -> None:
        require(self.k > 0, "k", "must be positive")
        require(self.k_master > 0, "k_master", "must be positive")
        require(self.uncertainty in ("deviation", "games"), "uncertainty",
                "must be deviation or games")
        require(self.initial_deviation > 0, "initial_deviation", "must be positive")
        require(self.deviation_growth >= 0, "deviation_growth", "must be >= 0")
        require(self.newcomer_spread >= 0, "newcomer_spread", "must be >= 0")
        require(self.max_deviation > 0, "max_deviation", "must be positive")
        require(self.information > 0, "information", "must be positive")
        require(0 <= self.first_opponents <= 1, "first_opponents", "must be in [0, 1]")
        require(self.provisional_games >= 0, "provisional_games", "must be >= 0")
        require(self.provisional_margin >= 0, "provisional_margin", "must be >= 0")
        require(self.prior_games >= 0, "prior_games", "must be >= 0")
        require(self.performance_cap >= 0, "performance_cap", "must be >= 0")
        require(self.pool_cap >= 0, "pool_cap", "must be >= 0")


class ClubElo(RatingSystem):
    """``club``: logistic Elo whose newcomers settle by the evidence, with inflation-neutral
    starts.

    - K 32, or 16 once a player has reached 2400 (seed 000), for an established player.
    - ``uncertainty="deviation"`` (the default since issue 19): each player's K is q RD^2 for
      their deviation RD, which starts high, shrinks with games and grows with time away, never
      below the deviation whose K is 32 (16): :mod:`ratings_core.evidence`. Provisional while
      more than ``provisional_margin`` above it (edition 4, issue 31: 50; editions 2 and 3:
      any deviation above it) and, since edition 3, for the first ``provisional_games`` games
      (:meth:`is_provisional`). Edition 3 takes a newcomer's deviation from the league's
      spread and moves them toward their first opponents; edition 2 (``newcomer_spread=0``,
      ``information=1``, ``first_opponents=0``) starts every newcomer at
      ``initial_deviation``.
    - ``uncertainty="games"`` (ladders set up before issue 19): for their first
      ``provisional_games`` games a player's own new rating is the games-weighted mean of their
      rating (weight: games so far + ``prior_games``) and the period's performance
      Ravg + 400 (W - L) / n (seeds 002 and 003), never moving against the period's result
      (a win never lowers it; seed 004's guard); their opponents are rated against them with
      their normal K.
    - Newcomers start at the base less their share of the retirees' pool (seed 002, SPEC 3.7).

    Source: seed 000, seed 002, seed 003, SPEC 3.6 and 3.7; Glickman 1999 and issue 19 for
    the deviation.
    """

    name = "club"

    def __init__(self, params: ClubParams | None = None) -> None:
        self.params: ClubParams = params or ClubParams()
        self._by_deviation = self.params.uncertainty == "deviation"
        #: every newcomer starts with initial_deviation (edition 2), not the league's spread
        self._fixed_start = self._by_deviation and self.params.newcomer_spread == 0

    @property
    def first_move_advantage(self) -> float:
        return self.params.first_move_advantage

    @property
    def pool(self) -> PoolRule:
        return PoolRule(base=self.params.base, cap=self.params.pool_cap)

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        """Without a deviation when it is the league's, taken at their first game."""
        rating = self.params.base - share
        deviation = self.params.initial_deviation if self._fixed_start else None
        return PlayerState(rating=rating, peak=rating, birth_date=birth_date,
                           deviation=deviation)

    def as_rated(self, league: LeagueSums, state: PlayerState) -> PlayerState:
        """A newcomer's deviation is the league's until they play (:meth:`newcomer`)."""
        if self._by_deviation and state.deviation is None:
            return dataclasses.replace(state, deviation=self._newcomer_deviation(league))
        return state

    def adopt(self, state: PlayerState) -> PlayerState:
        """A listed player without a deviation is established after ``provisional_games``
        games (as the provisional rule would have it), else as uncertain as a newcomer (with
        the league's deviation: none until their first game here)."""
        if self._by_deviation and state.deviation is None:
            p = self.params
            if state.games >= p.provisional_games:
                return dataclasses.replace(state, deviation=self._established(state.best))
            if self._fixed_start:
                return dataclasses.replace(state, deviation=p.initial_deviation)
        return state

    def is_provisional(self, state: PlayerState) -> bool:
        """Whether the rating is marked ``?``: "we do not know this rating yet".

        Rule, in our words: by games in edition 1 (the first ``provisional_games``). With
        deviations, while the deviation is more than ``provisional_margin`` points above an
        established player's; and, where a newcomer's deviation is the league's (which in a
        league of near equals is no more than an established player's), also for their first
        ``provisional_games`` games. Editions 2 and 3 have no margin: any deviation above the
        floor marked a rating, and since a player who plays now and then never quite reaches
        the floor, 70 % of the football teams and 65 % of the tennis players with 24 games or
        more ended their histories marked (issue 31). Edition 4's margin of 50 (a deviation of
        125 for K 32, where K is near three times 32) marks a newcomer until their games have
        told the rating apart from the league's, and on the real histories at most 8 % of
        those with 24 games or more (docs/accuracy.md, "The provisional mark"). The mark is
        only shown: no rating reads it.

        Source: Lichess (a Glicko-2 rating is provisional while its deviation is above 110, 50
        above the 60 its regular players settle at: docs/ratings.md, ``glicko``); seed 003
        (Quebec: provisional for the first 24 games); issue 31 (the margin, measured on the
        real histories).
        """
        p = self.params
        few_games = state.games < p.provisional_games
        if self._by_deviation:
            deviation = p.initial_deviation if state.deviation is None else state.deviation
            return (deviation > self._established(state.best) + p.provisional_margin
                    or (few_games and not self._fixed_start))
        return few_games

    def shown_deviation(self, state: PlayerState) -> float | None:
        """None: the ``?`` mark says what the deviation would (Elo's simplicity, issue 19)."""
        return None

    def expected_score(self, player: PlayerState, opponent: PlayerState,
                       handicap: float = 0.0) -> float:
        """The logistic curve; with deviations, of the difference damped by both players'
        uncertainty (:func:`ratings_core.evidence.damped_difference`)."""
        difference = player.rating - opponent.rating - handicap
        if self._by_deviation:
            start = self.params.initial_deviation
            difference = damped_difference(
                difference, start if player.deviation is None else player.deviation,
                start if opponent.deviation is None else opponent.deviation)
        return logistic_expected(difference)

    def rate_period(self, table: Table, games: Sequence[Game], when: datetime) -> None:
        """By deviation, or provisional players by weighted mean and the others by Elo."""
        if self._by_deviation:
            self._rate_by_deviation(table, games, when)
            return
        tallies = tally_period(table, games, logistic_expected, self.first_move_advantage)
        updates = [(i, self._settle(table, i, t), t.games) for i, t in tallies.items()]
        for i, new, n in updates:
            _record(table, i, new, n, when)

    def rate_sequence(self, table: Table, games: Sequence[Game]) -> None:
        """Each game its own period: :meth:`rate_period`'s arithmetic, inlined for speed."""
        if self._by_deviation:
            self._rate_each_by_deviation(table, _lists_of(table, games, moments=True))
            return
        self._rate_each_by_games(table, _lists_of(table, games, moments=False))
        _leave_last_played(table, games)

    def rate_columns(self, table: Table, rows: GameRows) -> None:
        """:meth:`rate_sequence` over a history's columns."""
        if self._by_deviation:
            self._rate_each_by_deviation(table, rows.lists(moments=True))
            return
        self._rate_each_by_games(table, rows.lists(moments=False))
        rows.defer_last_played()

    # -- uncertainty by games (edition 1) ----------------------------------------------------

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

    def _rate_each_by_games(self, table: Table, games: GameLists) -> None:
        """Each game its own period: :meth:`_settle`'s arithmetic, inlined."""
        p = self.params
        k, k_master, master = p.k, p.k_master, p.master_rating
        provisional, prior, cap = p.provisional_games, p.prior_games, p.performance_cap
        advantage = p.first_move_advantage
        rating, played, peak = table.rating, table.games, table.peak
        for a, b, s, handicap, first_move in zip(games.player_a, games.player_b, games.score_a,
                                                 games.handicap, games.first_move, strict=True):
            ra = rating[a]
            rb = rating[b]
            h = handicap - advantage * first_move
            try:
                e = 1.0 / (1.0 + 10.0 ** (-(ra - rb - h) / 400.0))
            except OverflowError:  # odds beyond 1e308 against player_a: E is 0 in floats
                e = 0.0
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

    # -- uncertainty by deviation (editions 2 and 3) ----------------------------------------

    def _k(self, peak: float) -> float:
        p = self.params
        return p.k_master if peak >= p.master_rating else p.k

    def _established(self, peak: float) -> float:
        return established_deviation(self._k(peak))

    def _newcomer_deviation(self, league: LeagueSums) -> float:
        """A newcomer's deviation now: the league's spread times ``newcomer_spread``, or
        ``initial_deviation`` (:func:`ratings_core.evidence.league_deviation`)."""
        p = self.params
        if self._fixed_start:
            return p.initial_deviation
        return league_deviation(league, p.newcomer_spread, p.initial_deviation,
                                established_deviation(p.k), p.max_deviation)

    def _deviation_entering(self, table: Table, i: int, when: datetime, start: float) -> float:
        """The player's deviation grown for the time since their last game, never past a
        newcomer's (``start``)."""
        p = self.params
        stored = table.deviation[i]
        deviation = start if stored is None else stored
        last = table.last_played(i)
        # never played: a newcomer's deviation, or a listed player's as given
        away = 0.0 if last is None else elapsed_periods(when, last, GROWTH_DAYS)
        return grow_deviation(deviation, p.deviation_growth, away, max(deviation, start))

    def _meet_first_opponents(self, table: Table, games: Sequence[Game]) -> None:
        """Players in their first rated period move toward the mean of the opponents who have
        played (:func:`ratings_core.evidence.toward_opponents`)."""
        index, rating, played = table.index, table.rating, table.games
        met: dict[int, tuple[float, int]] = {}
        for game in games:
            a = index[game.player_a]
            b = index[game.player_b]
            for i, j in ((a, b), (b, a)):
                if played[i] == 0 and played[j] > 0:
                    total, n = met.get(i, (0.0, 0))
                    met[i] = (total + rating[j], n + 1)
        for i, (total, n) in met.items():
            rating[i] = table.peak[i] = toward_opponents(rating[i], total / n,
                                                         self.params.first_opponents)

    def _rate_each_by_deviation(self, table: Table, games: GameLists) -> None:
        """Each game its own period: :meth:`_rate_by_deviation`'s arithmetic, written out in
        :func:`ratings_core.inlined.rate_each_by_deviation` (compiled where it can be)."""
        p = self.params
        rate_each_by_deviation(p, not self._fixed_start, Q, established_deviation(p.k),
                               established_deviation(p.k_master), table, games)

    def _rate_by_deviation(self, table: Table, games: Sequence[Game], when: datetime) -> None:
        """K = q RD'^2 times the g-weighted surplus; see :mod:`ratings_core.evidence`."""
        p = self.params
        index, rating = table.index, table.rating
        advantage = self.first_move_advantage
        start = self._newcomer_deviation(table.league)
        if p.first_opponents:
            self._meet_first_opponents(table, games)
        entering: dict[int, float] = {}
        established: dict[int, float] = {}
        for game in games:
            for i in (index[game.player_a], index[game.player_b]):
                if i not in entering:
                    entering[i] = self._deviation_entering(table, i, when, start)
                    established[i] = self._established(table.peak[i])
        surplus: dict[int, float] = {}
        information: dict[int, float] = {}
        played: dict[int, int] = {}
        for game in games:
            a = index[game.player_a]
            b = index[game.player_b]
            e = logistic_expected(rating[a] - rating[b] - (game.handicap
                                                            - advantage * game.first_move))
            s = game.score_a
            weight_a = opponent_weight(entering[b], established[b])  # what b's doubt leaves
            weight_b = opponent_weight(entering[a], established[a])
            spread = e * (1.0 - e)
            surplus[a] = surplus.get(a, 0.0) + weight_a * (s - e)
            surplus[b] = surplus.get(b, 0.0) + weight_b * ((1.0 - s) - (1.0 - e))
            information[a] = information.get(a, 0.0) + weight_a * weight_a * spread
            information[b] = information.get(b, 0.0) + weight_b * weight_b * spread
            played[a] = played.get(a, 0) + 1
            played[b] = played.get(b, 0) + 1
        updates = []
        for i, points in surplus.items():
            deviation = settled_deviation(entering[i], p.information * information[i],
                                          established[i])
            k = k_of(deviation, established[i], self._k(table.peak[i]))
            updates.append((i, rating[i] + k * points, deviation, played[i]))
        for i, new, deviation, n in updates:
            if not self._fixed_start:
                recount(table.league, table.games[i] == 0, rating[i], new)
            table.deviation[i] = deviation
            _record(table, i, new, n, when)


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
