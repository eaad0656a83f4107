"""``rs-go``: the rating system drafted for the Russian Go Federation (seed 001).

Every player has a rating R and a rating deviation S. Ratings are measured from an ideal player
at 3000: d = 3000 - R is a player's distance from that player and S* = d/4 the largest
deviation the system allows. A game's win probability p(DR, D) depends on the rating difference
DR = R1 - R2 and on the game's distance D = sqrt((3000 - R1)(3000 - R2)): the nearer two players
are to the top, the more predictable their games. A handicap of F stones is worth
h = 100 (F - 0.5) rating points and narrows the giver's rating difference.

A rating period is rated in six steps (seed 001, «Пошаговый алгоритм пересчета»):

1. widen each rated player's deviation for the time they were away;
2. measure how far each rated player's period result lies from the prediction (K_an);
3. move the input rating of a player anomalous upward toward their performance rating R_an;
4. give newcomers a rating from their results against the corrected ratings, and a deviation
   from how precisely those results and their opponents' ratings pin them down;
5. recompute every participant's R and S with Glickman's formulas;
6. widen the deviation of every anomalous player by Ks = sqrt(1 + M K_an^2).

Sources:

- seed 001 (``seeds/001_*.txt``, Russian): notation (d, D, S* = d/4, h = 100 (F - 0.5),
  signed handicaps), «Как определить начальную достоверность» (expert start
  S = d / (12 sqrt(K_st))), the six steps and step 6's Ks = sqrt(1 + M K_an^2). The seed's
  formulas for p(DR, D), K_an and R_an were lost in extraction.
- M. E. Glickman, "Parameter estimation in large dynamic paired comparison experiments",
  Applied Statistics 48 (1999) 377-394, and "The Glicko system" (1995) with its worked example
  (1500 / RD 200 -> 1464 / 151.4): the base update of step 5 and the growth of step 1.
- European Go Federation rating system (europeangodatabase.eu, "EGF rating system"): the
  e-based logistic S_E = 1 / (1 + e^(D/a)) with a = 100 at GoR 2100 (1 dan) that calibrates
  our curve, and the same 100 (F - 0.5) worth of a handicap.

The rules the seed leaves out were decided by the lead engineer; each is marked "Choice" where
it is used and is listed with its reason in ``docs/rating-systems.md`` (section rs-go).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from .model import Match, PlayerState, TeamGame
from .parameters import param, require
from .sides import (
    MetSide,
    PeriodRatio,
    members,
    scaled_change,
    side_deviation,
    uneven_ratio,
)
from .system import RatingSystem
from .table import Table, moment_of

#: the ideal player's rating, the fixed point distances are measured from (seed 001: d = 3000 - R)
IDEAL_RATING = 3000.0
#: S* = d / 4, the largest deviation the system allows (seed 001)
MAX_DEVIATION_SHARE = 4.0
#: the expert start S = d / (12 sqrt(K_st)) (seed 001, «Как определить начальную достоверность»)
EXPERT_DIVISOR = 12.0
#: rating points per handicap stone, and the half stone that even games already hold via komi
#: (seed 001: H = F - 0.5, h = 100 H)
STONE_POINTS = 100.0
HALF_STONE = 0.5
#: the bisection of a performance rating stops after this many halvings (2^-100 of the interval)
BISECTION_ITERATIONS = 100
#: ... or once its interval is narrower than this many rating points
BISECTION_TOLERANCE = 1e-7


# -- the rating scale ----------------------------------------------------------------------------


def distance(rating: float) -> float:
    """d = 3000 - R, a player's distance from the ideal player.

    Source: seed 001 (notation: «d = 3000 - R - расстояние игрока ... от рейтинга идеального
    игрока»).
    """
    return IDEAL_RATING - rating


def max_deviation(rating: float) -> float:
    """S* = d / 4, the largest deviation allowed at ``rating``.

    Source: seed 001 (notation: «S* = d/4 - максимально допустимое в РС отклонение рейтинга»).
    """
    if not rating < IDEAL_RATING:
        raise ValueError(f"rating must be below {IDEAL_RATING:g}, not {rating!r}")
    return distance(rating) / MAX_DEVIATION_SHARE


def game_distance(rating: float, opponent: float) -> float:
    """D = sqrt((3000 - R1)(3000 - R2)), a game's mean distance from the ideal player.

    Source: seed 001 (notation: «D = [(3000 - R1)·(3000 - R2)]^1/2»).
    """
    if not rating < IDEAL_RATING:
        raise ValueError(f"rating must be below {IDEAL_RATING:g}, not {rating!r}")
    if not opponent < IDEAL_RATING:
        raise ValueError(f"opponent must be below {IDEAL_RATING:g}, not {opponent!r}")
    return math.sqrt(distance(rating) * distance(opponent))


def handicap_points(stones: float) -> float:
    """h = 100 (F - 0.5): a handicap of F stones in rating points, with F's sign.

    F = 0 is an even game (h = 0), F = 1 a game without komi (h = 50), F = 3 three stones
    (h = 250). A negative F is a handicap received and gives -h. Choice: the seed knows whole
    stones only; between 0 and 1 stone we go linearly from 0 to 50 points, so that the worth
    of a handicap is continuous and never decreases with its size.
    Source: seed 001 (notation: «H = Ф - 0.5 ... h = 100·H»; averaging: the handicap is signed,
    positive when the player gives it); EGF rating system (the same 100 (F - 0.5)).
    """
    size = abs(stones)
    if size == 0:
        return 0.0
    points = STONE_POINTS * (size - HALF_STONE) if size >= 1 else STONE_POINTS * HALF_STONE * size
    return math.copysign(points, stones)


def _logistic(x: float) -> float:
    """1 / (1 + e^-x), written so that no exponent overflows."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def curve_width(game_distance: float, *, scale_ratio: float) -> float:
    """a = D / scale_ratio, the width of the win curve of a game at distance D.

    Choice (the seed's p(DR, D) was lost): a grows in proportion to D. With scale_ratio 9,
    a = 100 at D = 900 (two players near 2100, about 1 dan), the EGF's a at 2100.
    Source: seed 001 (p depends on DR and D); EGF rating system (a = 100 at GoR 2100).
    """
    if not game_distance > 0:
        raise ValueError(f"game_distance must be positive, not {game_distance!r}")
    if not scale_ratio > 0:
        raise ValueError(f"scale_ratio must be positive, not {scale_ratio!r}")
    return game_distance / scale_ratio


def win_probability(difference: float, game_distance: float, *, scale_ratio: float) -> float:
    """p(DR, D) = 1 / (1 + e^(-DR / a)), a = D / scale_ratio.

    p(0, D) = 1/2, p(DR) + p(-DR) = 1, p grows with DR, and for a fixed DR > 0 it grows as D
    shrinks: stronger players are more predictable. Choice: the seed's formula was lost; this is
    the EGF's e-based logistic with a width that follows D.
    Source: seed 001 (notation: «р(DR, D) - функция вероятности выигрыша»); EGF rating system
    (S_E = 1 / (1 + e^(D/a))).
    """
    return _logistic(difference / curve_width(game_distance, scale_ratio=scale_ratio))


def expected_score(
    rating: float, opponent: float, handicap: float = 0.0, *, scale_ratio: float
) -> float:
    """The expected score of ``rating`` against ``opponent`` when giving ``handicap`` points.

    p(R - R_opp - h, D): the handicap narrows the giver's difference (negative h: received);
    D comes from the two real ratings, so the two sides' expectations add up to 1.
    Source: seed 001 (averaging: a handicap given «сокращает разницу в рейтинге на hj»).
    """
    return win_probability(
        rating - opponent - handicap, game_distance(rating, opponent), scale_ratio=scale_ratio
    )


# -- deviations before the period --------------------------------------------------------------


def expert_deviation(rating: float, trust: float) -> float:
    """S = d / (12 sqrt(K_st)) for a rating given by experts with trust K_st in (0, 1], <= S*.

    K_st = 1 (a settled rating from an older list) gives d/12; a quarter of the trust doubles
    it. Source: seed 001 («Как определить начальную достоверность»: S = d/[12·sqrt(Kст)]).
    """
    if not 0 < trust <= 1:
        raise ValueError(f"trust must be in (0, 1], not {trust!r}")
    return min(distance(rating) / (EXPERT_DIVISOR * math.sqrt(trust)), max_deviation(rating))


def widen_for_absence(deviation: float, rating: float, periods: float, growth: float) -> float:
    """Step 1: S = min(sqrt(S^2 + c^2 t), S*) after ``periods`` t away, ``growth`` c per period.

    Source: seed 001 (step 1: «Корректируем S по времени неучастия», formula lost); Glickman
    (1995), step 1: RD = min(sqrt(RD^2 + c^2 t), RD_max), with S* as the maximum.
    """
    if periods < 0:
        raise ValueError(f"periods must be >= 0, not {periods!r}")
    if growth < 0:
        raise ValueError(f"growth must be >= 0, not {growth!r}")
    return min(math.sqrt(deviation * deviation + growth * growth * periods), max_deviation(rating))


# -- one player's view of the period ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Encounter:
    """One game of the period as one player saw it.

    ``handicap`` is in rating points, positive when this player gave it (seed 001's signed h).
    """

    opponent_rating: float
    opponent_deviation: float
    handicap: float
    score: float

    @property
    def opponent_effective(self) -> float:
        """The opponent's rating with the handicap added (seed 001: Rф = Rср + hср)."""
        return self.opponent_rating + self.handicap


def _expected_total(rating: float, encounters: Sequence[Encounter], scale_ratio: float) -> float:
    return sum(
        expected_score(rating, e.opponent_rating, e.handicap, scale_ratio=scale_ratio)
        for e in encounters
    )


def period_surprise(
    rating: float, encounters: Sequence[Encounter], *, scale_ratio: float
) -> tuple[float, float]:
    """Step 2: (dN, sigma_N), the score above expectation and its standard deviation.

    dN = sum s_j - sum p_j and sigma_N = sqrt(sum p_j (1 - p_j)), each game a Bernoulli trial.
    Source: seed 001 (notation: «ΔN - отклонение результата в набранных очках-победах от
    вероятностного прогноза»; step 2).
    """
    surplus = 0.0
    variance = 0.0
    for e in encounters:
        p = expected_score(rating, e.opponent_rating, e.handicap, scale_ratio=scale_ratio)
        surplus += e.score - p
        variance += p * (1.0 - p)
    return surplus, math.sqrt(variance)


def anomaly_coefficient(surplus: float, spread: float, *, z_low: float, z_high: float) -> float:
    """Step 2: K_an = clamp((|z| - z_low) / (z_high - z_low), 0, 1), z = dN / sigma_N.

    Results within z_low standard deviations of the prediction are ordinary (0); beyond z_high
    they are fully anomalous (1). With no spread at all (certain games), any surplus is fully
    anomalous. Choice: the seed's formula for K_an was lost.
    Source: seed 001 (step 2: «рассчитываем критерии аномальности и Кан»).
    """
    if not z_high > z_low >= 0:
        raise ValueError(f"z_low, z_high must satisfy 0 <= z_low < z_high, not {z_low}, {z_high}")
    if spread < 0:
        raise ValueError(f"spread must be >= 0, not {spread!r}")
    if spread == 0:
        return 1.0 if surplus != 0 else 0.0
    z = abs(surplus) / spread
    return min(1.0, max(0.0, (z - z_low) / (z_high - z_low)))


def performance_rating(
    encounters: Sequence[Encounter],
    *,
    scale_ratio: float,
    margin: float,
    rating_min: float,
    rating_max: float,
) -> float:
    """R_an: the rating at which the expected score equals the actual score (bisection).

    Searched in [lowest opponent effective rating - margin, highest + margin], clamped to the
    rating bounds; all wins give the top of that interval, all losses the bottom.
    Source: seed 001 (steps 3 and 4: «вычисляем Rан»; the formula was lost).
    """
    if not encounters:
        raise ValueError("encounters must not be empty")
    if not rating_min < rating_max < IDEAL_RATING:
        raise ValueError(f"rating_min and rating_max must satisfy min < max < {IDEAL_RATING:g}")
    effective = [e.opponent_effective for e in encounters]
    low = min(rating_max, max(rating_min, min(effective) - margin))
    high = min(rating_max, max(rating_min, max(effective) + margin))
    actual = sum(e.score for e in encounters)
    if _expected_total(low, encounters, scale_ratio) >= actual:
        return low
    if _expected_total(high, encounters, scale_ratio) <= actual:
        return high
    for _ in range(BISECTION_ITERATIONS):
        middle = 0.5 * (low + high)
        if _expected_total(middle, encounters, scale_ratio) < actual:
            low = middle
        else:
            high = middle
        if high - low < BISECTION_TOLERANCE:
            break
    return 0.5 * (low + high)


def interpolate_anomaly(rating: float, anomalous_rating: float, k_an: float) -> float:
    """Step 3: the input rating R + K_an (R_an - R) of a player anomalous upward.

    Source: seed 001 (step 3: «вычисляем Rан и делаем интерполяцию для R»).
    """
    if not 0 <= k_an <= 1:
        raise ValueError(f"k_an must be in [0, 1], not {k_an!r}")
    return rating + k_an * (anomalous_rating - rating)


def shrink_toward(anchor: float, performance: float, games: int, small_sample: int) -> float:
    """A performance from few games, moved back toward ``anchor``: weight N / small_sample.

    anchor + (performance - anchor) N / small_sample below ``small_sample`` games, the
    performance itself from there on.
    Source: seed 001 (step 4: «не забываем о замечании про малые статистики, т.е. когда
    N < 6»); the remark's rule was lost, the linear weight is our choice.
    """
    if games < 0:
        raise ValueError(f"games must be >= 0, not {games!r}")
    if small_sample < 1:
        raise ValueError(f"small_sample must be >= 1, not {small_sample!r}")
    if games >= small_sample:
        return performance
    return anchor + (performance - anchor) * games / small_sample


def newcomer_rating(
    performance: float, encounters: Sequence[Encounter], *, small_sample: int
) -> float:
    """Step 4: a newcomer's input rating, R_an shrunk toward Ravg below ``small_sample`` games.

    R = Ravg + (R_an - Ravg) N / small_sample for N < small_sample, else R_an; Ravg is the
    mean of the opponents' effective (handicap-adjusted) ratings.
    Source: seed 001 (step 4, small statistics; averaging: Rф = Rср + hср); see
    :func:`shrink_toward`.
    """
    if not encounters:
        raise ValueError("encounters must not be empty")
    n = len(encounters)
    mean = sum(e.opponent_effective for e in encounters) / n
    return shrink_toward(mean, performance, n, small_sample)


def newcomer_deviation(
    rating: float, encounters: Sequence[Encounter], *, scale_ratio: float, min_deviation: float
) -> float:
    """Step 4: a newcomer's input S = min(S*, sqrt(mean S_j^2 + S_perf^2)).

    S_perf = 1 / sqrt(sum (dp/dR)^2 / (p (1 - p))) is the spread of the performance estimate;
    on our curve dp/dR = p (1 - p) / a_j, so the sum is sum p (1 - p) / a_j^2. Games that say
    nothing (p = 0 or 1) leave S at S*.
    Source: seed 001 (step 4: «входное S по специальной методике, учитывающей среднюю точность
    рейтинга соперников»; the method itself is our choice).
    """
    if not encounters:
        raise ValueError("encounters must not be empty")
    ceiling = max_deviation(rating)
    opponents = sum(e.opponent_deviation**2 for e in encounters) / len(encounters)
    information = 0.0
    for e in encounters:
        width = curve_width(game_distance(rating, e.opponent_rating), scale_ratio=scale_ratio)
        p = expected_score(rating, e.opponent_rating, e.handicap, scale_ratio=scale_ratio)
        information += p * (1.0 - p) / (width * width)
    if information <= 0:
        return ceiling
    variance = opponents + 1.0 / information
    if variance >= ceiling * ceiling:
        return ceiling
    return max(min_deviation, math.sqrt(variance))


# -- step 5: Glickman's update on this curve ---------------------------------------------------
# The block mirrors Glickman (1999), section 3.3 (the Glicko update), with q = ln 10 / 400
# replaced by each game's own q_j = 1 / a_j: the same Laplace approximation, on our curve.


@dataclass(frozen=True, slots=True)
class GlickoTerm:
    """One game in Glickman's update: q_j, the opponent's RD_j, the difference, the score."""

    q: float
    opponent_deviation: float
    difference: float
    score: float


def glicko_update(
    rating: float, deviation: float, terms: Sequence[GlickoTerm]
) -> tuple[float, float]:
    """Glickman's r' and RD' with a q per game; unclamped.

    g_j = 1 / sqrt(1 + 3 q_j^2 RD_j^2 / pi^2), E_j = 1 / (1 + e^(-g_j q_j DR_j)),
    1/d^2 = sum q_j^2 g_j^2 E_j (1 - E_j), r' = r + (1/RD^2 + 1/d^2)^-1 sum q_j g_j (s_j - E_j),
    RD' = (1/RD^2 + 1/d^2)^-1/2. With every q_j = ln 10 / 400 this is the Glicko system.
    Source: Glickman (1999), equations (9)-(11); "The Glicko system" (1995), step 2.
    """
    if not deviation > 0:
        raise ValueError(f"deviation must be positive, not {deviation!r}")
    information = 0.0  # 1 / d^2
    pull = 0.0
    for t in terms:
        g = 1.0 / math.sqrt(1.0 + 3.0 * t.q * t.q * t.opponent_deviation**2 / math.pi**2)
        e = _logistic(g * t.q * t.difference)
        information += (t.q * g) ** 2 * e * (1.0 - e)
        pull += t.q * g * (t.score - e)
    variance = 1.0 / (1.0 / (deviation * deviation) + information)
    return rating + variance * pull, math.sqrt(variance)


def base_update(
    rating: float,
    deviation: float,
    encounters: Sequence[Encounter],
    *,
    scale_ratio: float,
    min_deviation: float,
    rating_min: float,
    rating_max: float,
) -> tuple[float, float]:
    """Step 5: R' and S' by :func:`glicko_update` on our curve, clamped to the named bounds.

    q_j = 1 / a_j = scale_ratio / D_j and DR_j = R - R_j - h_j; R' within the rating bounds,
    S' within [min_deviation, S*(R')].
    Source: seed 001 (step 5: «Пересчитываем рейтинги и отклонения всех игроков по базисным
    формулам»); Glickman (1999).
    """
    terms = [
        GlickoTerm(
            q=scale_ratio / game_distance(rating, e.opponent_rating),
            opponent_deviation=e.opponent_deviation,
            difference=rating - e.opponent_effective,
            score=e.score,
        )
        for e in encounters
    ]
    new_rating, new_deviation = glicko_update(rating, deviation, terms)
    new_rating = min(rating_max, max(rating_min, new_rating))
    return new_rating, min(max_deviation(new_rating), max(min_deviation, new_deviation))


def anomaly_widening(deviation: float, rating: float, k_an: float, *, penalty: float) -> float:
    """Step 6: S' = min(S Ks, S*) with the loss of precision Ks = sqrt(1 + M K_an^2).

    Source: seed 001 (step 6: «Ks = [1 + M·(Kан)^2]^1/2 ... S' = S·Ks»); the cap at S* keeps
    S' within the system's bounds.
    """
    if not 0 <= k_an <= 1:
        raise ValueError(f"k_an must be in [0, 1], not {k_an!r}")
    if penalty < 0:
        raise ValueError(f"penalty must be >= 0, not {penalty!r}")
    return min(deviation * math.sqrt(1.0 + penalty * k_an * k_an), max_deviation(rating))


# -- team games (issue 37) ------------------------------------------------------------------------


#: an opponent of a period's game: a player's place in the table, or the other side of a team
#: game as the member meets it (issue 37; Choice: the curve's width follows the member's own
#: distance from the ideal player and the met rating's, as p(DR, D) of seed 001 reads D from
#: the two ratings that meet)
Opponent = int | MetSide


def _rating(j: Opponent, values: Mapping[int, float]) -> float:
    return values[j] if isinstance(j, int) else j.rating(values.__getitem__)


def _deviation(j: Opponent, values: Mapping[int, float | None]) -> float | None:
    return values[j] if isinstance(j, int) else j.deviation(values.__getitem__)


def _entry_deviation(j: Opponent, values: Mapping[int, float]) -> float:
    """Step 5's deviation of an opponent (every participant has one by then)."""
    if isinstance(j, int):
        return values[j]
    return side_deviation([values[k] for k in j.other])


def _newcomer_view(j: Opponent, ratings: Mapping[int, float],
                   deviations: Mapping[int, float | None]) -> float:
    """Step 4's deviation of an opponent: a newcomer counts with the widest deviation S*."""
    if isinstance(j, int):
        dev_j = deviations[j]
        return max_deviation(ratings[j]) if dev_j is None else dev_j
    return side_deviation([max_deviation(ratings[k]) if (dev_k := deviations[k]) is None
                           else dev_k for k in j.other])


# -- the system ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RussianGoParams:
    initial: float = param(
        1000.0, "placeholder rating of a newcomer before their first period (shown provisional)",
        low=-900, high=2990,
    )
    scale_ratio: float = param(
        9.0, "D / a of the win curve: a = 100 at D = 900 (about 1 dan), the EGF's a at 2100",
        low=1, high=50,
    )
    absence_growth: float = param(
        40.0, "c: deviation growth per period away; d/12 = 100 at 1800 reaches S* in ~4 years",
        low=0, high=1000,
    )
    period_days: float = param(30.0, "days in one period of absence for step 1 (a month)",
                               low=1, high=365)
    z_low: float = param(2.0, "|z| up to which a period's result is ordinary (K_an = 0)",
                         low=0, high=20)
    z_high: float = param(4.0, "|z| from which a period's result is fully anomalous (K_an = 1)",
                          low=0, high=20)
    anomaly_penalty: float = param(3.0, "M in Ks = sqrt(1 + M K_an^2) (001); 3: K_an = 1 doubles S",
                                   low=0, high=100)
    small_sample: int = param(
        6, "games below which a newcomer's performance is shrunk and a player is provisional (001)",
        low=1, high=100,
    )
    anomaly_min_games: int = param(
        6, "fewest games against rated players for a period to be judged anomalous (001: N < 6)",
        low=1, high=100,
    )
    expert_trust: float = param(
        1.0, "K_st of ratings listed without a deviation: S = d / (12 sqrt(K_st)) (seed 001)",
        low=0.01, high=1,
    )
    performance_margin: float = param(
        500.0, "a performance is searched this far beyond the opponents' ratings (5 stones)",
        low=1, high=3000,
    )
    rating_min: float = param(0.0, "lowest rating, about 21 kyu on the EGF scale (20 kyu = 100)",
                              low=-900, high=2990)
    rating_max: float = param(2950.0, "highest rating, so that d >= 50 stays positive",
                              low=-900, high=2990)
    min_deviation: float = param(1.0, "smallest deviation, so that 1/S^2 stays finite",
                                 low=0.1, high=1000)

    def __post_init__(self) -> None:
        require(self.scale_ratio > 0, "scale_ratio", "must be positive")
        require(self.absence_growth >= 0, "absence_growth", "must be >= 0")
        require(self.period_days > 0, "period_days", "must be positive")
        require(self.z_low >= 0, "z_low", "must be >= 0")
        require(self.z_high > self.z_low, "z_high", "must be greater than z_low")
        require(self.anomaly_penalty >= 0, "anomaly_penalty", "must be >= 0")
        require(self.small_sample >= 1, "small_sample", "must be >= 1")
        require(self.anomaly_min_games >= 1, "anomaly_min_games", "must be >= 1")
        require(0 < self.expert_trust <= 1, "expert_trust", "must be in (0, 1]")
        require(self.performance_margin > 0, "performance_margin", "must be positive")
        require(self.rating_min < self.rating_max, "rating_max", "must be above rating_min")
        require(self.rating_max < IDEAL_RATING, "rating_max", f"must be below {IDEAL_RATING:g}")
        require(self.rating_min <= self.initial <= self.rating_max, "initial",
                "must lie within rating_min..rating_max")
        require(
            0 < self.min_deviation <= max_deviation(self.rating_max), "min_deviation",
            "must be positive and at most S* at rating_max",
        )


class RussianGo(RatingSystem):
    """``rs-go``: rating and deviation per period in the six steps of seed 001.

    Source: seed 001, SPEC 3.4 and 3.9; see the module docstring.
    """

    name = "rs-go"
    #: a handicap is in stones (seed 001: F stones), and 9 is the most the 19x19 board's
    #: handicap points take under the usual rules (Japanese and the EGF's); more is no game of
    #: go but a typing error (issue 31)
    max_handicap = 9.0
    #: seed 001: a tournament's games are rated together, from the ratings held before it
    rates_competitions = True

    def __init__(self, params: RussianGoParams | None = None) -> None:
        self.params: RussianGoParams = params if params is not None else RussianGoParams()

    def _clamp(self, rating: float) -> float:
        return min(self.params.rating_max, max(self.params.rating_min, rating))

    def _bounded_deviation(self, deviation: float, rating: float) -> float:
        return min(max_deviation(rating), max(self.params.min_deviation, deviation))

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        """A placeholder rating and no deviation: the first period rates them from scratch."""
        return PlayerState(rating=self.params.initial, birth_date=birth_date)

    def adopt(self, state: PlayerState) -> PlayerState:
        """A listed rating without a deviation is an expert start: S = d / (12 sqrt(K_st)).

        Ratings are clamped to the bounds and given deviations to [min_deviation, S*].
        Source: seed 001 («Как определить начальную достоверность»).
        """
        rating = self._clamp(state.rating)
        if state.deviation is None:
            deviation = expert_deviation(rating, self.params.expert_trust)
        else:
            deviation = state.deviation
        return dataclasses.replace(
            state, rating=rating, deviation=self._bounded_deviation(deviation, rating)
        )

    def is_provisional(self, state: PlayerState) -> bool:
        return state.deviation is None or state.games < self.params.small_sample

    def season_start(self, state: PlayerState, reset: str, factor: float,
                     when: datetime) -> PlayerState:
        """The reset of every system (:meth:`RatingSystem.season_start`), the deviation kept
        within the bounds of the moved rating (the widest, S*, follows the rating: seed 001).
        Source: issue 38; seed 001. Choice: no widening, since rs-go's provisional mark comes
        from its games (errata: only club, glicko and glicko2 widen)."""
        new = super().season_start(state, reset, factor, when)
        if new.deviation is None:
            return new
        return dataclasses.replace(new, deviation=self._bounded_deviation(new.deviation,
                                                                          new.rating))

    def expected_score(self, player: PlayerState, opponent: PlayerState,
                       handicap: float = 0.0) -> float:
        """p(DR, D) with the handicap in stones. Source: seed 001, SPEC 3.4 and 3.9."""
        return expected_score(self._clamp(player.rating), self._clamp(opponent.rating),
                              handicap_points(handicap), scale_ratio=self.params.scale_ratio)

    def _periods_away(self, last_played: datetime | None, when: datetime) -> float:
        if last_played is None:
            return 0.0
        days = (when - last_played).total_seconds() / 86400.0
        return max(0.0, days / self.params.period_days)

    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """The six steps of seed 001 over one period, from the states held before it.

        A team game's members each have a game against the other side as they meet it
        (:class:`~ratings_core.sides.MetSide`); a rated member of the larger of uneven sides
        moves by the period's ratio of their change (its deviation as computed).

        Source: seed 001 («Пошаговый алгоритм пересчета»), SPEC 3.9; issue 37. Choice: the
        ratio scales the change of step 5 from the rating held before the period; a newcomer's
        first rating is no change, so the ratio leaves it whole.
        """
        p = self.params
        index = table.index
        # Each participant's games as (opponent, handicap points given, score).
        sides: dict[int, list[tuple[Opponent, float, float]]] = {}
        ratios = PeriodRatio()
        for game in games:
            if isinstance(game, TeamGame):
                h = handicap_points(game.handicap)
                side_a, side_b = (tuple(side) for side in members(game, index))
                for own, other, given, score in ((side_a, side_b, h, game.score_a),
                                                 (side_b, side_a, -h, 1.0 - game.score_a)):
                    ratio = uneven_ratio(len(own), len(other))
                    for i in own:
                        view = MetSide(i, own, other, game.size_handicap)
                        sides.setdefault(i, []).append((view, given, score))
                        ratios.count(i, ratio)
                continue
            a = index[game.player_a]
            b = index[game.player_b]
            h = handicap_points(game.handicap)
            sides.setdefault(a, []).append((b, h, game.score_a))
            sides.setdefault(b, []).append((a, -h, 1.0 - game.score_a))

        rating = {i: self._clamp(table.rating[i]) for i in sides}
        # Step 1: rated players' deviations widened for their time away; newcomers have none.
        deviation: dict[int, float | None] = {}
        for i in sides:
            held = table.deviation[i]
            if held is None:
                deviation[i] = None
            else:
                deviation[i] = widen_for_absence(
                    self._bounded_deviation(held, rating[i]), rating[i],
                    self._periods_away(table.last_played(i), when), p.absence_growth,
                )

        # Steps 2 and 3, rated players only. Choice: games against newcomers are left out,
        # since a newcomer's placeholder says nothing about their strength.
        entry_rating = dict(rating)
        anomaly: dict[int, float] = {}
        for i, side in sides.items():
            if deviation[i] is None:
                continue
            rated = [
                Encounter(_rating(j, rating), dev_j, h, s)
                for j, h, s in side
                if (dev_j := _deviation(j, deviation)) is not None
            ]
            # Choice: a handful of games is no evidence of an anomaly. One upset win already has
            # z = sqrt((1 - p) / p) > 4 when p < 1/17, which would lift the input rating to the
            # opponent + 500; seed 001 warns about such small statistics below N = 6.
            if len(rated) < p.anomaly_min_games:
                continue
            surplus, spread = period_surprise(rating[i], rated, scale_ratio=p.scale_ratio)
            k_an = anomaly_coefficient(surplus, spread, z_low=p.z_low, z_high=p.z_high)
            if k_an == 0:
                continue
            anomaly[i] = k_an
            if surplus > 0:
                r_an = performance_rating(
                    rated, scale_ratio=p.scale_ratio, margin=p.performance_margin,
                    rating_min=p.rating_min, rating_max=p.rating_max,
                )
                # Guard: an upward anomaly never lowers the input rating, even when the player
                # stands above the searched interval.
                r_an = max(r_an, rating[i])
                entry_rating[i] = interpolate_anomaly(rating[i], r_an, k_an)

        # Step 4: newcomers, against the corrected ratings of the others; another newcomer
        # counts at their placeholder with the widest deviation S*.
        entry_deviation: dict[int, float] = {}
        newcomer_entry: dict[int, float] = {}
        for i, side in sides.items():
            held_dev = deviation[i]
            if held_dev is not None:
                entry_deviation[i] = held_dev
                continue
            seen = [
                Encounter(
                    _rating(j, entry_rating),
                    _newcomer_view(j, entry_rating, deviation),
                    h,
                    s,
                )
                for j, h, s in side
            ]
            r_an = performance_rating(
                seen, scale_ratio=p.scale_ratio, margin=p.performance_margin,
                rating_min=p.rating_min, rating_max=p.rating_max,
            )
            start = self._clamp(newcomer_rating(r_an, seen, small_sample=p.small_sample))
            newcomer_entry[i] = start
            entry_deviation[i] = newcomer_deviation(
                start, seen, scale_ratio=p.scale_ratio, min_deviation=p.min_deviation
            )
        entry_rating.update(newcomer_entry)

        # Step 5 for everyone from the input values, then step 6; written only at the end.
        updates: list[tuple[int, float, float]] = []
        for i, side in sides.items():
            encounters = [
                Encounter(_rating(j, entry_rating), _entry_deviation(j, entry_deviation), h, s)
                for j, h, s in side
            ]
            new_rating, new_deviation = base_update(
                entry_rating[i], entry_deviation[i], encounters, scale_ratio=p.scale_ratio,
                min_deviation=p.min_deviation, rating_min=p.rating_min, rating_max=p.rating_max,
            )
            ratio = ratios.of(i, len(side))
            if ratio != 1.0 and deviation[i] is not None:
                new_rating = self._clamp(scaled_change(rating[i], new_rating, ratio))
                new_deviation = self._bounded_deviation(new_deviation, new_rating)
            if i in anomaly:
                new_deviation = anomaly_widening(
                    new_deviation, new_rating, anomaly[i], penalty=p.anomaly_penalty
                )
            updates.append((i, new_rating, new_deviation))
        for i, new_rating, new_deviation in updates:
            was_newcomer = table.deviation[i] is None
            table.rating[i] = new_rating
            table.deviation[i] = new_deviation
            table.games[i] += len(sides[i])
            # Choice: a newcomer's placeholder is no rating they reached, so it is not a peak.
            table.peak[i] = new_rating if was_newcomer else max(table.peak[i], new_rating)
            table.last_moment[i] = moment_of(when)
