"""The per-game loops of ``club`` and ``elo``, written out for speed, compiled where they can be.

This module is plain, fully typed Python. When the package is built on a machine with a C
compiler, ``setup.py`` compiles it with mypyc (as black and mypy are shipped); without one, the
same source runs interpreted. Both give the same floats: mypyc does float arithmetic and
``math.sqrt`` in C doubles with Python's rounding, the one operation whose C form could round
differently (an integer division) is done as :func:`seconds_between` does it, and the build
turns off the fusing of multiplies and adds. ``tests/core/test_inlined.py`` checks the compiled
loops against this source run interpreted; they and the other core tests check the per-game
loops against the period paths (``rate_period`` of ``ClubElo`` and ``ClassicElo``), which stay
the reference.

For mypyc to keep a value in a C double, every local is declared with its type, and nothing of
type ``Any`` flows into arithmetic undeclared. 10^x is ``math.pow(10.0, x)``, which mypyc calls
in C: for a finite x it is the C ``pow`` that ``10.0 ** x`` calls too, and it raises the same
``OverflowError`` (``10.0 ** x`` is ``Any`` to mypy, and slow).

The loops import no rating system: what each reads of its parameters is a Protocol of this
module (:class:`DeviationLoopParams`, :class:`ClassicLoopParams`), which ``club``'s and
``elo``'s parameter classes meet, and the games come as :class:`~ratings_core.rows.GameLists`
(team games, issue 37, as :class:`~ratings_core.rows.TeamLists`, their rules those of
:mod:`ratings_core.sides` written out: a mean of one or two ratings is their plain sum over
the size, which is ``math.fsum``'s correctly rounded sum to the bit; of more, ``math.fsum``).

Source: Glickman 1999 and :mod:`ratings_core.evidence` (the rule, stated there); issue 19 (the
speed target).
"""

from __future__ import annotations

import math
from math import sqrt
from operator import truediv
from typing import Final, Protocol

from .evidence import GROWTH_DAYS
from .rows import GameLists, TeamLists
from .table import Table


class DeviationLoopParams(Protocol):
    """What :func:`rate_each_by_deviation` reads of its parameters: the ``club`` default's
    (:class:`ratings_core.club.ClubParams`), named here so that the loop does not import the
    system it serves."""

    @property
    def first_move_advantage(self) -> float: ...

    @property
    def master_rating(self) -> float: ...

    @property
    def k(self) -> float: ...

    @property
    def k_master(self) -> float: ...

    @property
    def initial_deviation(self) -> float: ...

    @property
    def deviation_growth(self) -> float: ...

    @property
    def newcomer_spread(self) -> float: ...

    @property
    def max_deviation(self) -> float: ...

    @property
    def first_opponents(self) -> float: ...

    @property
    def information(self) -> float: ...


class ClassicLoopParams(Protocol):
    """What :func:`rate_each_classic` reads of its parameters: classic Elo's
    (:class:`ratings_core.elo.EloParams`), named here so that the loop does not import the
    system it serves."""

    @property
    def k(self) -> float: ...

    @property
    def k_master(self) -> float: ...

    @property
    def master_rating(self) -> float: ...

    @property
    def veteran_games(self) -> int | None: ...

    @property
    def floor(self) -> float | None: ...

    @property
    def ratchet(self) -> float | None: ...

    @property
    def first_move_advantage(self) -> float: ...


#: games no one reaches: ``elo``'s veteran K when no veteran_games is set (a small int for mypyc)
_NEVER_VETERAN: Final = 1 << 60
#: the largest gap, in microseconds, that a C double holds exactly
_EXACT: Final = 2**53
_MICROSECONDS: Final = 1_000_000
_PERIOD_SECONDS: Final = GROWTH_DAYS * 86400.0


def seconds_between(later: int, earlier: int) -> float:
    """``(later - earlier).total_seconds()`` for two moments, rounded as Python rounds it.

    Python divides integers exactly and rounds once; compiled code converts each to a double
    first, which is the same only while both are below 2^53 (285 years in microseconds).

    Source: CPython's ``timedelta.total_seconds`` (the microseconds over 10^6, one rounding);
    mypyc's ``CPyTagged_TrueDivide`` (each operand made a double first).
    """
    gap = later - earlier
    if -_EXACT <= gap <= _EXACT:
        return gap / _MICROSECONDS
    return float(truediv(gap, _MICROSECONDS))  # Python's own division, exact then rounded


def rate_each_by_deviation(params: DeviationLoopParams, by_league: bool, q: float, floor_k: float,
                           floor_master: float, table: Table, games: GameLists) -> None:
    """Each game its own rating period, by the deviation rule
    (:meth:`ratings_core.club.ClubElo.rate_period` with one game: the same operations in the same
    order, so the numbers are the same to the bit). ``by_league``: a newcomer's deviation is the
    league's (edition 3), else ``params.initial_deviation``; ``q`` is Glicko's q; ``floor_k``
    and ``floor_master`` the established deviations of K and the master's K.

    Source: :mod:`ratings_core.evidence` (the rule and its sources); issue 19.
    """
    e: float
    seconds: float
    away: float
    grown: float
    top: float
    power: float
    start: float
    mean: float
    variance: float
    rda: float
    rdb: float
    advantage: float = params.first_move_advantage
    master: float = params.master_rating
    k: float = params.k
    k_master: float = params.k_master
    start = params.initial_deviation
    fallback: float = start
    growth: float = params.deviation_growth
    growth2: float = growth * growth
    floor_k2: float = floor_k * floor_k
    floor_master2: float = floor_master * floor_master
    spread_factor: float = params.newcomer_spread
    cap: float = params.max_deviation
    share: float = params.first_opponents
    share_of_information: float = params.information
    g_factor: float = 3.0 * q * q  # attenuation's 3 q^2 RD^2 / pi^2, in its order
    pi2: float = math.pi * math.pi
    qq: float = q * q
    rating: list[float] = table.rating
    played: list[int] = table.games
    peak: list[float] = table.peak
    dev: list[float | None] = table.deviation
    league = table.league
    players: int = league.players
    total: float = league.total
    squares: float = league.squares
    last: list[int | None] = table.last_moment
    exact: int = _EXACT
    low: int = -_EXACT
    microseconds: int = _MICROSECONDS
    period_seconds: float = _PERIOD_SECONDS
    player_a, player_b, score_a = games.player_a, games.player_b, games.score_a
    handicaps, first_moves, moments = games.handicap, games.first_move, games.moment
    try:
        for g in range(len(player_a)):
            a = player_a[g]
            b = player_b[g]
            s = score_a[g]
            handicap = handicaps[g]
            first_move = first_moves[g]
            when = moments[g]
            if by_league:  # league_deviation written out
                if players < 2:
                    start = fallback
                else:
                    mean = total / players
                    variance = squares / players - mean * mean
                    start = spread_factor * sqrt(variance) if variance > 0.0 else 0.0
                    start = floor_k if start < floor_k else (cap if start > cap else start)
            # grow_deviation and elapsed_periods written out (conditionals, not min and max)
            stored = dev[a]
            rda = start if stored is None else stored
            moment = last[a]
            if moment is not None:
                gap = when - moment  # seconds_between written out
                if low <= gap <= exact:
                    seconds = gap / microseconds
                else:
                    seconds = float(truediv(gap, microseconds))
                away = seconds / period_seconds
                grown = sqrt(rda * rda + growth2 * (away if away > 0.0 else 0.0))
                top = rda if rda >= start else start
                rda = grown if grown <= top else top
            stored = dev[b]
            rdb = start if stored is None else stored
            moment = last[b]
            if moment is not None:
                gap = when - moment  # seconds_between written out
                if low <= gap <= exact:
                    seconds = gap / microseconds
                else:
                    seconds = float(truediv(gap, microseconds))
                away = seconds / period_seconds
                grown = sqrt(rdb * rdb + growth2 * (away if away > 0.0 else 0.0))
                top = rdb if rdb >= start else start
                rdb = grown if grown <= top else top
            ra = rating[a]
            rb = rating[b]
            ga = played[a]
            gb = played[b]
            if share:  # toward_opponents, for a first game against a player who has played
                if ga == 0 and gb > 0:
                    ra = ra + share * (rb - ra)
                    rating[a] = ra
                    peak[a] = ra
                elif gb == 0 and ga > 0:
                    rb = rb + share * (ra - rb)
                    rating[b] = rb
                    peak[b] = rb
            try:
                power = math.pow(10.0, -(ra - rb - (handicap - advantage * first_move))
                                 / 400.0)
                e = 1.0 / (1.0 + power)
            except OverflowError:  # odds beyond 1e308 against player_a: E is 0 in floats
                e = 0.0
            pa = peak[a]
            pb = peak[b]
            if pa >= master:
                fa, fa2, ka = floor_master, floor_master2, k_master
            else:
                fa, fa2, ka = floor_k, floor_k2, k
            if pb >= master:
                fb, fb2, kb = floor_master, floor_master2, k_master
            else:
                fb, fb2, kb = floor_k, floor_k2, k
            # an established opponent weighs exactly 1 (what the formula gives for no excess)
            excess = rdb * rdb - fb2
            weight_a = 1.0 / sqrt(1.0 + g_factor * excess / pi2) if excess > 0.0 else 1.0
            excess = rda * rda - fa2
            weight_b = 1.0 / sqrt(1.0 + g_factor * excess / pi2) if excess > 0.0 else 1.0
            spread = e * (1.0 - e)
            settled = 1.0 / sqrt(1.0 / (rda * rda) + qq * (
                share_of_information * (weight_a * weight_a * spread)))
            if settled > fa:
                rda = settled
                ka = q * rda * rda
            else:
                rda = fa
            settled = 1.0 / sqrt(1.0 / (rdb * rdb) + qq * (
                share_of_information * (weight_b * weight_b * spread)))
            if settled > fb:
                rdb = settled
                kb = q * rdb * rdb
            else:
                rdb = fb
            na = ra + ka * (weight_a * (s - e))
            nb = rb + kb * (weight_b * ((1.0 - s) - (1.0 - e)))
            if by_league:  # recount written out, a then b
                if ga == 0:
                    players += 1
                    total += na
                    squares += na * na
                else:
                    total += na - ra
                    squares += na * na - ra * ra
                if gb == 0:
                    players += 1
                    total += nb
                    squares += nb * nb
                else:
                    total += nb - rb
                    squares += nb * nb - rb * rb
            rating[a] = na
            rating[b] = nb
            dev[a] = rda
            dev[b] = rdb
            if na > pa:
                peak[a] = na
            if nb > pb:
                peak[b] = nb
            played[a] = ga + 1
            played[b] = gb + 1
            last[a] = when
            last[b] = when
    finally:
        league.players, league.total, league.squares = players, total, squares


def rate_each_classic(params: ClassicLoopParams, table: Table, games: GameLists) -> None:
    """Each game its own rating period, by ``elo``'s logistic rule
    (:meth:`ratings_core.elo.ClassicElo.rate_period` with one game, its K policy and floors
    written out: the same numbers to the bit).

    Source: seed 000 and seed 002 (K, K 16 for masters and veterans, R' = R + K (S - E)),
    SPEC 3.2 (floors); see :mod:`ratings_core.elo`.
    """
    e: float
    power: float
    difference: float
    k: float = params.k
    k_master: float = params.k_master
    master: float = params.master_rating
    veteran: int = _NEVER_VETERAN if params.veteran_games is None else params.veteran_games
    floor: float = -math.inf if params.floor is None else params.floor
    ratchet: float = math.inf if params.ratchet is None else params.ratchet
    ratchet_floor: float = ratchet if ratchet >= floor else floor  # max(ratchet, floor)
    advantage: float = params.first_move_advantage
    rating: list[float] = table.rating
    played: list[int] = table.games
    peak: list[float] = table.peak
    player_a, player_b, score_a = games.player_a, games.player_b, games.score_a
    handicaps, first_moves = games.handicap, games.first_move
    for g in range(len(player_a)):
        a = player_a[g]
        b = player_b[g]
        s = score_a[g]
        handicap = handicaps[g]
        first_move = first_moves[g]
        ra = rating[a]
        rb = rating[b]
        difference = ra - rb - handicap
        if advantage:  # classic Elo has none: spare the million-game loop the work
            difference += advantage * first_move
        try:
            power = math.pow(10.0, -difference / 400.0)
            e = 1.0 / (1.0 + power)
        except OverflowError:  # odds beyond 1e308 against player_a: E is 0 in floats
            e = 0.0
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


# -- team games (issue 37) ---------------------------------------------------------------------


def side_mean(rating: list[float], members: list[int], start: int, size: int) -> float:
    """:func:`ratings_core.sides.side_strength`'s mean of the members ``members[start:start +
    size]``: a sum of one or two floats rounds as ``math.fsum`` does, so it is done plainly.

    Source: issue 37 (a side's rating is the mean of its members'); :mod:`ratings_core.sides`.
    """
    if size == 1:
        return rating[members[start]]
    if size == 2:
        return (rating[members[start]] + rating[members[start + 1]]) / 2
    return math.fsum([rating[members[m]] for m in range(start, start + size)]) / size


def side_rms(values: list[float], start: int, size: int) -> float:
    """:func:`ratings_core.sides.side_deviation` of ``values[start:start + size]``.

    Source: issue 37 (the root mean square of the other side's deviations).
    """
    if size == 1:
        return values[start]
    if size == 2:
        return sqrt((values[start] * values[start] + values[start + 1] * values[start + 1])
                    / 2)
    return sqrt(math.fsum([values[m] * values[m] for m in range(start, start + size)]) / size)


def rate_each_classic_team(params: ClassicLoopParams, table: Table, games: TeamLists,
                           latest: list[int], touched: list[int]) -> None:
    """Each team game its own rating period, by ``elo``'s logistic rule
    (:meth:`ratings_core.elo.ClassicElo.rate_period` with one team game: the sides' strengths,
    one E, each member's own K and floors, a larger side's members ratio of their step; the
    same operations in the same order, so the same numbers to the bit). ``latest`` (-1 for
    every player) gets each member's last game of the run, and ``touched`` the members met,
    for the caller to record when they last played (one time per member, not per game).

    Source: issue 37 (the team rule, :mod:`ratings_core.sides`); seed 000, seed 002, SPEC 3.2.
    """
    e: float
    power: float
    difference: float
    strength_a: float
    strength_b: float
    ratio: float
    won: float
    change: float
    k: float = params.k
    k_master: float = params.k_master
    master: float = params.master_rating
    veteran: int = _NEVER_VETERAN if params.veteran_games is None else params.veteran_games
    floor: float = -math.inf if params.floor is None else params.floor
    ratchet: float = math.inf if params.ratchet is None else params.ratchet
    ratchet_floor: float = ratchet if ratchet >= floor else floor  # max(ratchet, floor)
    advantage: float = params.first_move_advantage
    rating: list[float] = table.rating
    played: list[int] = table.games
    peak: list[float] = table.peak
    members = games.members
    sizes_a, sizes_b, score_a = games.size_a, games.size_b, games.score_a
    handicaps, first_moves, size_handicaps = games.handicap, games.first_move, \
        games.size_handicap
    start = 0
    for g in range(len(score_a)):
        size_a = sizes_a[g]
        size_b = sizes_b[g]
        s = score_a[g]
        strength_a = side_mean(rating, members, start, size_a)
        strength_b = side_mean(rating, members, start + size_a, size_b)
        if size_a < size_b:
            strength_a = strength_a + size_handicaps[g] * (size_b - size_a)
        elif size_b < size_a:
            strength_b = strength_b + size_handicaps[g] * (size_a - size_b)
        difference = strength_a - strength_b - (handicaps[g] - advantage * first_moves[g])
        try:
            power = math.pow(10.0, -difference / 400.0)
            e = 1.0 / (1.0 + power)
        except OverflowError:  # odds beyond 1e308 against side_a: E is 0 in floats
            e = 0.0
        for m in range(start, start + size_a + size_b):
            i = members[m]
            if m < start + size_a:
                ratio = size_b / size_a if size_a > size_b else 1.0
                won = s - e if ratio == 1.0 else ratio * s - ratio * e
            else:
                ratio = size_a / size_b if size_b > size_a else 1.0
                won = ((1.0 - s) - (1.0 - e) if ratio == 1.0
                       else ratio * (1.0 - s) - ratio * (1.0 - e))
            r = rating[i]
            p = peak[i]
            n = played[i]
            change = (k_master if p >= master or n >= veteran else k) * won
            new = r + change
            lowest = ratchet_floor if p > ratchet else floor
            if new < lowest:
                new = lowest
            rating[i] = new
            if new > p:
                peak[i] = new
            played[i] = n + 1
            if latest[i] < 0:
                touched.append(i)
            latest[i] = g
        start += size_a + size_b


def entering_deviation(stored: float | None, moment: int | None, when: int, start: float,
                       growth2: float) -> float:
    """:meth:`ratings_core.club.ClubElo._deviation_entering` written out: the stored deviation
    (a newcomer's ``start`` when none) grown for the time since ``moment``, never past
    ``start`` or itself, whichever is larger (as :func:`rate_each_by_deviation` does).

    Source: :mod:`ratings_core.evidence` (Glickman 1999: a deviation grows with time away).
    """
    seconds: float
    away: float
    grown: float
    top: float
    deviation: float = start if stored is None else stored
    if moment is None:
        return deviation
    gap = when - moment  # seconds_between written out
    if -_EXACT <= gap <= _EXACT:
        seconds = gap / _MICROSECONDS
    else:
        seconds = float(truediv(gap, _MICROSECONDS))
    away = seconds / _PERIOD_SECONDS
    grown = sqrt(deviation * deviation + growth2 * (away if away > 0.0 else 0.0))
    top = deviation if deviation >= start else start
    return grown if grown <= top else top


def side_weight(rating: list[float], members: list[int], dev: list[float | None],
                last: list[int | None], peak: list[float], start_at: int, size: int,
                when: int, start: float, growth2: float, master: float, floor_k: float,
                floor_master: float, g_factor: float, pi2: float) -> float:
    """:func:`ratings_core.evidence.opponent_weight` of a side as one opponent: g of the root
    mean square of its members' entering deviations over that of their established ones
    (:func:`ratings_core.sides.side_deviation`, a sum of two squares rounding as
    ``math.fsum``'s does).

    Source: issue 37 (the other side's root mean square deviation); Glickman 1999 (g).
    """
    entering: float
    established: float
    excess: float
    if size == 1:
        i = members[start_at]
        entering = entering_deviation(dev[i], last[i], when, start, growth2)
        established = floor_master if peak[i] >= master else floor_k
    elif size == 2:
        i = members[start_at]
        j = members[start_at + 1]
        entering = entering_deviation(dev[i], last[i], when, start, growth2)
        excess = entering_deviation(dev[j], last[j], when, start, growth2)
        entering = sqrt((entering * entering + excess * excess) / 2)
        established = floor_master if peak[i] >= master else floor_k
        excess = floor_master if peak[j] >= master else floor_k
        established = sqrt((established * established + excess * excess) / 2)
    else:
        ins: list[float] = []
        ests: list[float] = []
        for m in range(start_at, start_at + size):
            i = members[m]
            entering = entering_deviation(dev[i], last[i], when, start, growth2)
            ins.append(entering * entering)
            established = floor_master if peak[i] >= master else floor_k
            ests.append(established * established)
        entering = sqrt(math.fsum(ins) / size)
        established = sqrt(math.fsum(ests) / size)
    excess = entering * entering - established * established
    return 1.0 / sqrt(1.0 + g_factor * (excess if excess > 0.0 else 0.0) / pi2)


def rate_each_team_by_deviation(params: DeviationLoopParams, by_league: bool, q: float,
                                floor_k: float, floor_master: float, table: Table,
                                games: TeamLists) -> None:
    """Each team game its own rating period, by the deviation rule
    (:meth:`ratings_core.club.ClubElo.rate_period` with one team game: a newcomer's first
    opponents, every member's entering deviation, one E from the sides' strengths, each side's
    weight from the other's root mean square deviations, each member's own deviation and K, a
    larger side's members ratio of their surplus, the league's sums member by member; the same
    operations in the same order, so the same numbers to the bit).

    Source: issue 37 (the team rule, :mod:`ratings_core.sides`); :mod:`ratings_core.evidence`.
    """
    e: float
    power: float
    start: float
    mean: float
    variance: float
    total_met: float
    strength_a: float
    strength_b: float
    weight: float
    weight_a: float
    weight_b: float
    won: float
    points: float
    settled: float
    deviation: float
    floor: float
    ratio: float
    spread: float
    advantage: float = params.first_move_advantage
    master: float = params.master_rating
    k: float = params.k
    k_master: float = params.k_master
    start = params.initial_deviation
    fallback: float = start
    growth: float = params.deviation_growth
    growth2: float = growth * growth
    spread_factor: float = params.newcomer_spread
    cap: float = params.max_deviation
    share: float = params.first_opponents
    share_of_information: float = params.information
    g_factor: float = 3.0 * q * q  # attenuation's 3 q^2 RD^2 / pi^2, in its order
    pi2: float = math.pi * math.pi
    qq: float = q * q
    rating: list[float] = table.rating
    played: list[int] = table.games
    peak: list[float] = table.peak
    dev: list[float | None] = table.deviation
    league = table.league
    players: int = league.players
    total: float = league.total
    squares: float = league.squares
    last: list[int | None] = table.last_moment
    members = games.members
    sizes_a, sizes_b, score_a = games.size_a, games.size_b, games.score_a
    handicaps, first_moves, size_handicaps = games.handicap, games.first_move, \
        games.size_handicap
    moments = games.moment
    first = 0
    try:
        for g in range(len(score_a)):
            size_a = sizes_a[g]
            size_b = sizes_b[g]
            size = size_a + size_b
            s = score_a[g]
            when = moments[g]
            if by_league:  # league_deviation written out
                if players < 2:
                    start = fallback
                else:
                    mean = total / players
                    variance = squares / players - mean * mean
                    start = spread_factor * sqrt(variance) if variance > 0.0 else 0.0
                    start = floor_k if start < floor_k else (cap if start > cap else start)
            if share:  # _meet_first_opponents: toward the other side's members who played
                for m in range(first, first + size):
                    i = members[m]
                    if played[i] == 0:
                        other = first + size_a if m < first + size_a else first
                        other_size = size_b if m < first + size_a else size_a
                        total_met = 0.0
                        met = 0
                        for o in range(other, other + other_size):
                            j = members[o]
                            if played[j] > 0:
                                total_met = total_met + rating[j]
                                met += 1
                        if met:
                            r = rating[i]
                            r = r + share * (total_met / met - r)
                            rating[i] = r
                            peak[i] = r
            strength_a = side_mean(rating, members, first, size_a)
            strength_b = side_mean(rating, members, first + size_a, size_b)
            if size_a < size_b:
                strength_a = strength_a + size_handicaps[g] * (size_b - size_a)
            elif size_b < size_a:
                strength_b = strength_b + size_handicaps[g] * (size_a - size_b)
            try:
                power = math.pow(10.0, -(strength_a - strength_b
                                         - (handicaps[g] - advantage * first_moves[g])) / 400.0)
                e = 1.0 / (1.0 + power)
            except OverflowError:  # odds beyond 1e308 against side_a: E is 0 in floats
                e = 0.0
            # each side's weight: g of the other side's doubt (entering deviations before any
            # member of the game is written)
            weight_a = side_weight(rating, members, dev, last, peak, first + size_a, size_b,
                                   when, start, growth2, master, floor_k, floor_master,
                                   g_factor, pi2)
            weight_b = side_weight(rating, members, dev, last, peak, first, size_a, when,
                                   start, growth2, master, floor_k, floor_master, g_factor,
                                   pi2)
            spread = e * (1.0 - e)
            for m in range(first, first + size):
                i = members[m]
                if m < first + size_a:
                    weight = weight_a
                    won = s - e
                    ratio = size_b / size_a if size_a > size_b else 1.0
                else:
                    weight = weight_b
                    won = (1.0 - s) - (1.0 - e)
                    ratio = size_a / size_b if size_b > size_a else 1.0
                points = weight * won if ratio == 1.0 else ratio * (weight * won)
                r = rating[i]
                p = peak[i]
                deviation = entering_deviation(dev[i], last[i], when, start, growth2)
                floor = floor_master if p >= master else floor_k
                settled = 1.0 / sqrt(1.0 / (deviation * deviation) + qq * (
                    share_of_information * (weight * weight * spread)))
                if settled > floor:
                    deviation = settled
                    kk = q * deviation * deviation
                else:
                    deviation = floor
                    kk = k_master if p >= master else k
                new = r + kk * points
                n = played[i]
                if by_league:  # recount written out
                    if n == 0:
                        players += 1
                        total += new
                        squares += new * new
                    else:
                        total += new - r
                        squares += new * new - r * r
                dev[i] = deviation
                rating[i] = new
                played[i] = n + 1
                if new > p:
                    peak[i] = new
                last[i] = when
            first += size
    finally:
        league.players, league.total, league.squares = players, total, squares
