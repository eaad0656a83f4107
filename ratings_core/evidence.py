"""A K that follows the evidence about each player: the ``club`` default's uncertainty rule.

Sources: Glickman, "Parameter estimation in large dynamic paired comparison experiments"
(Applied Statistics 48, 1999), section 3: a rating's deviation RD grows with time away as a
random walk's spread, each game's information shrinks it, and a game moves the rating by
q RD'^2 g(RD_opponent) (S - E); seed 000 (K 32, 16 for masters); issue 19 of this project
(the rule and its defaults, fitted on the older part of real histories: docs/accuracy.md).

Rule, in our words: every player carries a deviation in rating points, high for a newcomer.
Before a rating period it grows with the time since their last game (never past a newcomer's).
The period's games shrink it by the information they carry, which is less against an uncertain
opponent, but never below the *established* deviation: the one at which K is the classic 32
(16 for a master). K is q RD^2, so a newcomer's K can start several times an established
player's and settle to 32 over some twenty games; a player back from a long absence moves faster
for a while. An opponent's uncertainty beyond an established player's damps what a game says
(Glickman's g): beating a newcomer proves less than beating a known player. The rating is
provisional (``?``) while its deviation is above the established one (edition 3: and for the
first ``provisional_games`` games, since the league may start a newcomer at the floor). A game
is predicted with the difference damped by both players' whole deviations.

Edition 3 (issue 19, the default since) adds what the league says about a newcomer. We know of a
new player only that they joined this league, so their deviation is the spread of the league's
ratings (``newcomer_spread`` times its standard deviation, 150 until two players have played, at
most 350 as Glicko's unrated player): wide in a league of very unequal teams, narrow in a club of
near equals. Whom they are paired with says something too (players meet players of their level:
the regularisation in Sismanis' Elo++, which won Sonas' Kaggle contest), so before their first
rated game a new player's rating moves ``first_opponents`` of the way to their opponents' mean. And
a game shrinks a deviation by ``information`` (3/4) of Glicko's information: a player's form is not
a fixed number, so each game tells a little less than the model says.

Departures from Glicko, for Elo's simplicity: the established deviation is a floor and an
established opponent weighs 1, so two established players are rated exactly by K 32/16 (seed
000's examples hold to the digit); a period's rating change is K times the summed weighted
surplus, with the K of the deviation after the period, as in Glicko's update.
"""

from __future__ import annotations

import math

from .glickman import Q, attenuation
from .table import LeagueSums

#: the time, in days, over which a deviation grows by ``deviation_growth`` (Glicko's c per
#: rating period of a month)
GROWTH_DAYS = 30.0


def established_deviation(k: float) -> float:
    """The deviation whose K (q RD^2) is ``k``: sqrt(k / q), 74.6 for K 32, 52.7 for K 16.

    Source: Glickman 1999, eq. (8) (a rating moves by q RD'^2 per unit of surplus); seed 000
    (K 32 and 16). See the module's docstring.
    """
    return math.sqrt(k / Q)


def k_of(deviation: float, established: float, k: float) -> float:
    """K = q RD^2: how far one point of surplus moves a rating with this deviation; exactly
    the established ``k`` at the ``established`` deviation (the floor).

    Source: Glickman 1999, eq. (8); seed 000 (K 32, 16). See the module's docstring.
    """
    return k if deviation == established else Q * deviation * deviation


def opponent_weight(deviation: float, established: float) -> float:
    """g of the opponent's uncertainty beyond an established player's,
    g(sqrt(RD^2 - RD_established^2)): 1 against an established opponent, so that two of them
    play classic Elo, and less the less is known of the opponent.

    Source: Glickman 1999, eq. (8) (each game weighted by g(RD_opponent)); the excess over the
    floor is ours (module docstring).
    """
    excess = deviation * deviation - established * established  # a variance
    return 1.0 / math.sqrt(1.0 + 3.0 * Q * Q * max(0.0, excess) / (math.pi * math.pi))


def settled_deviation(deviation: float, information: float, floor: float) -> float:
    """The deviation after a period whose games carry ``information`` (the sum of
    g(RD_opponent)^2 E (1 - E)): 1/RD'^2 = 1/RD^2 + q^2 information, never below ``floor``.

    Source: Glickman 1999, eq. (9); the floor is ours (module docstring).
    """
    return max(floor, 1.0 / math.sqrt(1.0 / (deviation * deviation) + Q * Q * information))


def damped_difference(difference: float, deviation_a: float, deviation_b: float) -> float:
    """A rating difference shrunk by both players' uncertainty: g(sqrt(RD_a^2 + RD_b^2)) times
    it, so that the expected score of two uncertain players stays nearer 1/2.

    Source: Glickman, "The Glicko system", the expected outcome of a game between two rated
    players (E = 1 / (1 + 10^(-g(sqrt(RD_i^2 + RD_j^2)) (r_i - r_j) / 400))).
    """
    return difference * attenuation(math.sqrt(deviation_a * deviation_a
                                              + deviation_b * deviation_b))


def league_deviation(league: LeagueSums, factor: float, fallback: float, floor: float,
                     cap: float) -> float:
    """A newcomer's deviation in this league: ``factor`` times the standard deviation of the
    ratings of everyone who has played, between ``floor`` (an established player's) and ``cap``;
    ``fallback`` while fewer than two have played.

    Source: empirical Bayes (a new player is a draw from the league, so the league's spread is
    the doubt about them); Glickman, "The Glicko system" (350 for an unrated player) for the
    cap; issue 19 (the factor, fitted on the older part of real histories: docs/accuracy.md).
    """
    n = league.players
    if n < 2:
        return fallback
    mean = league.total / n
    variance = league.squares / n - mean * mean
    deviation = factor * math.sqrt(variance) if variance > 0.0 else 0.0
    return floor if deviation < floor else (cap if deviation > cap else deviation)


def toward_opponents(rating: float, opponents_mean: float, share: float) -> float:
    """A new player's rating before their first rated game: ``share`` of the way from where
    they start to the mean rating of the opponents they meet (players who have played).

    Source: Sismanis, "How I won the 'Chess ratings - Elo vs the rest of the world'
    competition" (2010): Elo++ pulls each rating toward its opponents' average, since pairings
    follow strength; ours does it once, for a player nothing else is known of (issue 19).
    """
    return rating + share * (opponents_mean - rating)


def recount(league: LeagueSums, first: bool, before: float, after: float) -> None:
    """Keep ``league`` up to date with a rating that went from ``before`` to ``after``: a
    player's ``first`` rated game adds them to it.

    Source: the sums behind a population variance (the mean of the squares less the square of
    the mean), kept as the ratings change; issue 19.
    """
    if first:
        league.players += 1
        league.total += after
        league.squares += after * after
    else:
        league.total += after - before
        league.squares += after * after - before * before
