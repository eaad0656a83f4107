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
``elo``'s parameter classes meet, and the games come as :class:`~ratings_core.rows.GameLists`.

Source: Glickman 1999 and :mod:`ratings_core.evidence` (the rule, stated there); issue 19 (the
speed target).
"""

from __future__ import annotations

import math
from math import sqrt
from operator import truediv
from typing import Final, Protocol

from .evidence import GROWTH_DAYS
from .rows import GameLists
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
