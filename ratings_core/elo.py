"""The textbook Elo family: classic ``elo`` and ``asymmetric``, and the Elo rules and period
bookkeeping they share with the product default ``club`` (:mod:`ratings_core.club`).

All three move a rating by K (sum of scores - sum of expected scores) over a rating period,
from the ratings held before the period (seed 002, 算出方法). They differ in the K policy,
starting ratings, floors, provisional newcomers and how losses count.

This module holds the shared rules (:func:`elo_change`, :func:`k_factor`,
:func:`initial_rating`, :func:`floor_for`), the shared bookkeeping of a period
(:class:`Tally`, :func:`tally_period`, :func:`record_rating`) and of a run of games handed to the
compiled loops (:func:`game_lists`, :func:`leave_last_played`), and the two textbook systems.
``club`` builds on them in a module of its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from itertools import chain
from operator import add
from typing import Literal

from .curves import logistic_expected, normal_expected
from .inlined import rate_each_classic, rate_each_classic_team
from .model import (
    FIRST_MOVE_OF,
    HANDICAP,
    PLAYED_AT,
    PLAYER_A,
    PLAYER_B,
    SCORE_A,
    SIDE_A,
    SIDE_B,
    SIZE_HANDICAP,
    Game,
    Match,
    PlayerState,
    TeamGame,
)
from .parameters import first_move_param, param, require
from .rows import GameLists, GameRows, TeamLists
from .sides import met_rating, strengths, uneven_ratio
from .system import GameRun, RatingSystem, TeamRun
from .table import Table, moment_of, moments_of

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


class Tally:
    """One player's totals over a period (score, expectation, opponents, wins and losses).

    Source: seed 002 (算出方法: a period's sums of S and E; Ravg, W and L of a performance).
    """

    __slots__ = ("score", "expected", "games", "opponents", "wins", "losses", "short")

    def __init__(self) -> None:
        self.score = 0.0
        self.expected = 0.0
        self.games = 0
        self.opponents = 0.0
        self.wins = 0
        self.losses = 0
        #: the sum of 1 - ratio over the period's team games of an uneven ratio (issue 37)
        self.short = 0.0

    def add(self, score: float, expected: float, opponent: float) -> None:
        self.score += score
        self.expected += expected
        self.games += 1
        self.opponents += opponent
        if score == 1.0:
            self.wins += 1
        elif score == 0.0:
            self.losses += 1

    def add_member(self, score: float, expected: float, opponent: float, ratio: float) -> None:
        """A team game of a member of a side (issue 37): the score and the expectation count
        ``ratio`` of themselves in the sums (the uneven ratio: each game's step K (S - E) is
        ``ratio`` of a full one), the game in full in the games, wins, losses and opponents
        that a performance rating reads (whose change :meth:`ratio` then scales)."""
        if ratio == 1.0:
            self.add(score, expected, opponent)
            return
        self.add(ratio * score, ratio * expected, opponent)
        if score == 1.0:
            self.wins += 1
        elif score == 0.0:
            self.losses += 1
        self.short += 1.0 - ratio

    @property
    def ratio(self) -> float:
        """The period's uneven ratio: the mean over the period's games (1 without a game of an
        uneven ratio). Source: issue 37; Choice: :class:`ratings_core.sides.PeriodRatio`."""
        return 1.0 - self.short / self.games if self.short else 1.0


def tally_team(tallies: dict[int, Tally], table: Table, game: TeamGame,
               expected: Callable[[float], float], first_move_advantage: float) -> None:
    """A team game's tallies: one expectation E from the sides' strengths A and B, given the
    handicap h (the first move folded in as for a game of one against one); each member of
    side_a tallies (S, E, the other side as they meet it + h), each of side_b
    (1 - S, 1 - E, the other side as they meet it - h), each counting ``ratio`` of the step
    (:func:`ratings_core.sides.uneven_ratio`).

    Source: issue 37 ("one expected score per side from the ladder's curve"; the uneven ratio);
    :mod:`ratings_core.sides` (the rules and their Choices). Choice: the opponent a member
    tallies (the Ravg of a provisional performance) is the other side as they meet it
    (:func:`ratings_core.sides.met_rating`), so that a newcomer carried by a strong partner is
    not credited with the partner's strength.
    """
    index = table.index
    rating = table.rating
    a_strength, b_strength = strengths(game, rating, index)
    h = game.handicap - first_move_advantage * game.first_move
    e = expected(a_strength - b_strength - h)
    s = game.score_a
    ratio_a = uneven_ratio(len(game.side_a), len(game.side_b))
    ratio_b = uneven_ratio(len(game.side_b), len(game.side_a))
    for name in game.side_a:
        i = index[name]
        met = met_rating(rating[i], a_strength, b_strength)
        tallies.setdefault(i, Tally()).add_member(s, e, met + h, ratio_a)
    for name in game.side_b:
        i = index[name]
        met = met_rating(rating[i], b_strength, a_strength)
        tallies.setdefault(i, Tally()).add_member(1.0 - s, 1.0 - e, met - h, ratio_b)


def tally_period(
    table: Table, games: Sequence[Match], expected: Callable[[float], float],
    first_move_advantage: float = 0.0,
) -> dict[int, Tally]:
    """Every participant's totals over a period, from the ratings held before it.

    A handicap narrows the giver's difference: they play as if that much weaker, and their
    opponent's rating counts that much higher in Ravg. The first move counts as a handicap of
    ``first_move_advantage`` received (:meth:`RatingSystem.handicap_of`). A team game is
    tallied by :func:`tally_team`.
    Source: seed 002 (算出方法, period sums; TAISEN handicap points), seed 001 (h), SPEC 3.4.
    """
    index = table.index
    rating = table.rating
    tallies: dict[int, Tally] = {}
    for game in games:
        if isinstance(game, TeamGame):
            tally_team(tallies, table, game, expected, first_move_advantage)
            continue
        a = index[game.player_a]
        b = index[game.player_b]
        # The giver of a handicap plays as if that much weaker (seed 002 TAISEN, seed 001 h).
        h = game.handicap - first_move_advantage * game.first_move
        e = expected(rating[a] - rating[b] - h)
        s = game.score_a
        tallies.setdefault(a, Tally()).add(s, e, rating[b] + h)
        tallies.setdefault(b, Tally()).add(1.0 - s, 1.0 - e, rating[a] - h)
    return tallies


def game_lists(table: Table, games: Sequence[Game], moments: bool) -> GameLists:
    """The games as the inlined loops read them (the same loops rate a history's columns),
    with their times as moments for a rule that reads them. ``map`` runs each field's loop
    in C.

    Source: no rule of its own (the loops': :mod:`ratings_core.inlined`); issue 19 (speed).
    """
    index = table.index.__getitem__
    return GameLists(
        list(map(index, map(PLAYER_A, games))), list(map(index, map(PLAYER_B, games))),
        list(map(SCORE_A, games)), list(map(HANDICAP, games)), list(map(FIRST_MOVE_OF, games)),
        list(moments_of(map(PLAYED_AT, games))) if moments else [])


def team_lists(table: Table, games: Sequence[TeamGame], moments: bool) -> TeamLists:
    """Team games as the inlined team loops read them (:class:`~ratings_core.rows.TeamLists`),
    each field's loop in C (``map``), as :func:`game_lists`.

    Source: no rule of its own (the loops'); issue 37 (team games at the speed of singles).
    """
    sides_a = list(map(SIDE_A, games))
    sides_b = list(map(SIDE_B, games))
    members = games.members if isinstance(games, TeamRun) and games.members else list(
        map(table.index.__getitem__, chain.from_iterable(map(add, sides_a, sides_b))))
    return TeamLists(
        list(map(len, sides_a)), list(map(len, sides_b)), members, list(map(SCORE_A, games)),
        list(map(HANDICAP, games)), list(map(FIRST_MOVE_OF, games)),
        list(map(SIZE_HANDICAP, games)),
        list(moments_of(map(PLAYED_AT, games))) if moments else [])


def leave_last_played(table: Table, games: Sequence[Match]) -> None:
    """For loops that never read last_played: the replay engine records it later, when it
    handed the games over as a :class:`~ratings_core.system.GameRun`; else it is recorded now.

    Source: issue 19 (speed: one time per player of a run, not per game).
    """
    if isinstance(games, GameRun):
        games.defer_last_played()
    else:
        table.stamp_last_played(games)


def record_rating(table: Table, i: int, new_rating: float, games: int, when: datetime) -> None:
    """Write one player's rating after a period of ``games`` games at ``when``: the rating,
    the games played, the peak (the master's K and the floors read it) and the last game's time.

    Source: ratings_core/system.py (what ``rate_period`` must update); seed 000 (the peak that
    makes a master and the 1400 ratchet).
    """
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

    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """R' = R + K (sum S - sum E), then the floors; each member of a side by their own K
        (:func:`tally_team`). Source: seed 000, seed 002, SPEC 3.2; issue 37."""
        tallies = tally_period(table, games, self.expected, self.first_move_advantage)
        updates = []
        for i, t in tallies.items():
            new = table.rating[i] + elo_change(self._k(table, i), t.score, t.expected)
            updates.append((i, max(new, self._floor(table, i)), t.games))
        for i, new, n in updates:
            record_rating(table, i, new, n, when)

    def rate_sequence(self, table: Table, games: Sequence[Game]) -> None:
        """Each game its own period; the same arithmetic as :meth:`rate_period`, inlined.

        A replay spends nearly all its time here, so the K policy and floors are written out
        instead of called (:func:`ratings_core.inlined.rate_each_classic`, compiled where it can
        be); ``tests/core/test_replay.py`` checks the two paths give equal numbers.
        """
        if self.params.curve != "logistic":
            super().rate_sequence(table, games)
            return
        rate_each_classic(self.params, table, game_lists(table, games, moments=False))
        leave_last_played(table, games)

    def rate_team_sequence(self, table: Table, games: Sequence[TeamGame]) -> None:
        """Each team game its own period: :meth:`rate_period`'s arithmetic (the sides'
        strengths, one E, each member's K and floors, the uneven ratio) written out in
        :func:`ratings_core.inlined.rate_each_classic_team`; ``tests/core/test_sides.py``
        checks the two paths give equal numbers. Source: issue 37 (the benchmark's speed)."""
        if self.params.curve != "logistic":
            super().rate_team_sequence(table, games)
            return
        latest = [-1] * len(table)
        touched: list[int] = []
        rate_each_classic_team(self.params, table, team_lists(table, games, moments=False),
                               latest, touched)
        last = table.last_moment
        for i in touched:
            last[i] = moment_of(games[latest[i]].played_at)

    def rate_columns(self, table: Table, rows: GameRows) -> None:
        """:meth:`rate_sequence` over a history's columns (``last_played`` left to the replay)."""
        if self.params.curve != "logistic":
            super().rate_columns(table, rows)
            return
        rate_each_classic(self.params, table, rows.lists(moments=False))
        rows.defer_last_played()


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
    parameter (docs/rating-systems.md).
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

    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """R' = R + f(K (sum S - sum E)), f scaling losses; a member of a side by their own
        tally (:func:`tally_team`). Source: seed 002, SPEC 3.8; issue 37."""
        p = self.params
        tallies = tally_period(table, games, logistic_expected, self.first_move_advantage)
        updates = [
            (i, table.rating[i] + asymmetric_change(elo_change(p.k, t.score, t.expected),
                                                    p.loss_factor), t.games)
            for i, t in tallies.items()
        ]
        for i, new, n in updates:
            record_rating(table, i, new, n, when)
