"""The ``club`` default: logistic Elo whose newcomers settle by the evidence about them, with
inflation-neutral starts (:class:`ClubElo`, its parameters :class:`ClubParams` and its fitted
first-move advantage :data:`CLUB_FIRST_MOVE`).

It moves a rating by K (sum of scores - sum of expected scores) over a rating period, from the
ratings held before the period (seed 002, 算出方法), as classic Elo does: the Elo rules and the
period bookkeeping it shares with ``elo`` and ``asymmetric`` are theirs (:mod:`ratings_core.elo`).
What is its own is how a player's K follows their uncertainty (by deviation, the rule stated in
:mod:`ratings_core.evidence`, from Glickman's formulas in :mod:`ratings_core.glickman`; or, for
ladders set up before issue 19, by games: seed 003's provisional weighted mean) and the starting
pool of SPEC 3.7. Its per-game loop by deviation is written out in :mod:`ratings_core.inlined`.

Source: seed 000, seed 002, seed 003, SPEC 3.6 and 3.7; Glickman 1999 and issue 19 for the
deviation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from .curves import logistic_expected
from .elo import (
    Tally,
    elo_change,
    game_lists,
    leave_last_played,
    record_rating,
    tally_period,
    team_lists,
)
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
from .inlined import rate_each_by_deviation, rate_each_team_by_deviation
from .model import Game, Match, PlayerState, TeamGame
from .parameters import first_move_param, param, require
from .provisional import keep_direction, performance_rating, weighted_rating
from .rows import GameLists, GameRows
from .sides import members, scaled_change, side_deviation, strengths, uneven_ratio
from .system import PoolRule, RatingSystem, widened_deviation
from .table import LeagueSums, Table

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
        above the 60 its regular players settle at: docs/rating-systems.md, ``glicko``); seed 003
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

    @property
    def keeps_league_sums(self) -> bool:
        return self._by_deviation and not self._fixed_start

    def season_deviation(self, state: PlayerState, factor: float) -> float | None:
        """By deviation: widened toward ``initial_deviation``, below the ``?`` mark's threshold
        (an established player's deviation plus ``provisional_margin``) for a rating that was
        not marked (:func:`ratings_core.system.widened_deviation`); a newcomer's deviation that
        is still the league's stays so. By games (edition 1): none. Source: issue 38 and its
        errata. Choice: ``initial_deviation`` as the newcomer's, the league's spread being a
        measure of the players, not of what is known about one."""
        if not self._by_deviation or state.deviation is None:
            return state.deviation
        p = self.params
        return widened_deviation(state.deviation, p.initial_deviation,
                                 self._established(state.best) + p.provisional_margin, factor)

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

    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """By deviation, or provisional players by weighted mean and the others by Elo; each
        member of a side by their own rule (issue 37: :func:`ratings_core.elo.tally_team`,
        :meth:`_tally_team`)."""
        if self._by_deviation:
            self._rate_by_deviation(table, games, when)
            return
        tallies = tally_period(table, games, logistic_expected, self.first_move_advantage)
        updates = [(i, self._settle(table, i, t), t.games) for i, t in tallies.items()]
        for i, new, n in updates:
            record_rating(table, i, new, n, when)

    def rate_sequence(self, table: Table, games: Sequence[Game]) -> None:
        """Each game its own period: :meth:`rate_period`'s arithmetic, inlined for speed."""
        if self._by_deviation:
            self._rate_each_by_deviation(table, game_lists(table, games, moments=True))
            return
        self._rate_each_by_games(table, game_lists(table, games, moments=False))
        leave_last_played(table, games)

    def rate_team_sequence(self, table: Table, games: Sequence[TeamGame]) -> None:
        """Each team game its own period. By deviation (the default): :meth:`rate_period`'s
        arithmetic written out in :func:`ratings_core.inlined.rate_each_team_by_deviation`
        (``tests/core/test_sides.py`` checks the two paths give equal numbers); by games, one
        period at a time. Source: issue 37 (the benchmark's speed)."""
        if not self._by_deviation:
            super().rate_team_sequence(table, games)
            return
        p = self.params
        rate_each_team_by_deviation(p, not self._fixed_start, Q, established_deviation(p.k),
                                    established_deviation(p.k_master), table,
                                    team_lists(table, games, moments=True))

    def rate_columns(self, table: Table, rows: GameRows) -> None:
        """:meth:`rate_sequence` over a history's columns."""
        if self._by_deviation:
            self._rate_each_by_deviation(table, rows.lists(moments=True))
            return
        self._rate_each_by_games(table, rows.lists(moments=False))
        rows.defer_last_played()

    # -- uncertainty by games (edition 1) ----------------------------------------------------

    def _settle(self, table: Table, i: int, t: Tally) -> float:
        p = self.params
        rating = table.rating[i]
        games = table.games[i]
        if games < p.provisional_games:
            performance = performance_rating(
                t.opponents / t.games, t.wins, t.losses, t.games, p.performance_cap
            )
            proposed = weighted_rating(rating, games + p.prior_games, performance, t.games)
            # A member of the larger of uneven sides: ratio of the period's change (issue 37;
            # Choice: the weighted mean is no sum of steps, so its change is scaled).
            return scaled_change(rating, keep_direction(rating, proposed, t.score, t.expected),
                                 t.ratio)
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

    def _meet_first_opponents(self, table: Table, games: Sequence[Match]) -> None:
        """Players in their first rated period move toward the mean of the opponents who have
        played (:func:`ratings_core.evidence.toward_opponents`). A member of a side meets each
        member of the other side who has played.

        Source: issue 19 (the rule); issue 37. Choice: a newcomer in a team game moves toward
        the mean of the other side's members who have played (whom they were paired against),
        not toward their own side's.
        """
        index, rating, played = table.index, table.rating, table.games
        met: dict[int, tuple[float, int]] = {}
        for game in games:
            if isinstance(game, TeamGame):
                side_a, side_b = members(game, index)
                for own, other in ((side_a, side_b), (side_b, side_a)):
                    for i in own:
                        for j in other:
                            if played[i] == 0 and played[j] > 0:
                                total, n = met.get(i, (0.0, 0))
                                met[i] = (total + rating[j], n + 1)
                continue
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

    def _rate_by_deviation(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """K = q RD'^2 times the g-weighted surplus; see :mod:`ratings_core.evidence`; a team
        game by :meth:`_tally_team`."""
        p = self.params
        index, rating = table.index, table.rating
        advantage = self.first_move_advantage
        start = self._newcomer_deviation(table.league)
        if p.first_opponents:
            self._meet_first_opponents(table, games)
        entering: dict[int, float] = {}
        established: dict[int, float] = {}
        for game in games:
            for i in (map(index.__getitem__, game.side_a + game.side_b)
                      if isinstance(game, TeamGame)
                      else (index[game.player_a], index[game.player_b])):
                if i not in entering:
                    entering[i] = self._deviation_entering(table, i, when, start)
                    established[i] = self._established(table.peak[i])
        surplus: dict[int, float] = {}
        information: dict[int, float] = {}
        played: dict[int, int] = {}
        for game in games:
            if isinstance(game, TeamGame):
                self._tally_team(table, game, entering, established, surplus, information,
                                 played)
                continue
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
            record_rating(table, i, new, n, when)

    def _tally_team(self, table: Table, game: TeamGame, entering: dict[int, float],
                    established: dict[int, float], surplus: dict[int, float],
                    information: dict[int, float], played: dict[int, int]) -> None:
        """A team game's part of a period by deviation: one E from the sides' strengths (the
        handicap and first move as for two players); each member's surplus and information
        weighted by g of the other side's doubt, from the root mean square of its members'
        entering deviations and of their established ones; a member of the larger of uneven
        sides counts ratio of the surplus. Each member's own deviation and K do the rest, and
        the league's sums are kept per member (the period's update).

        Source: issue 37 (one expected score per side; the other side as one opponent with the
        root mean square deviation; the uneven ratio); :mod:`ratings_core.evidence` (the rule).
        Choice: the uneven ratio scales the surplus (the step K times it), not the information
        (the game says as much of the member's form either way); the other side's weight is
        g of its members' mean excess over an established deviation (RMS^2 - RMS_est^2).
        """
        index, rating = table.index, table.rating
        side_a, side_b = members(game, index)
        a_strength, b_strength = strengths(game, rating, index)
        e = logistic_expected(a_strength - b_strength - (game.handicap - self.first_move_advantage
                                                         * game.first_move))
        s = game.score_a
        spread = e * (1.0 - e)
        for own, other, won in ((side_a, side_b, s - e), (side_b, side_a, (1.0 - s) - (1.0 - e))):
            weight = opponent_weight(side_deviation([entering[j] for j in other]),
                                     side_deviation([established[j] for j in other]))
            ratio = uneven_ratio(len(own), len(other))
            points = weight * won if ratio == 1.0 else ratio * (weight * won)
            for i in own:
                surplus[i] = surplus.get(i, 0.0) + points
                information[i] = information.get(i, 0.0) + weight * weight * spread
                played[i] = played.get(i, 0) + 1
