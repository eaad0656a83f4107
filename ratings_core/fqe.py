"""``fqe``: the rating rules of the Quebec chess federation (Fédération québécoise des échecs).

Source: seed 003 (the FQE's description of "la cote du Québec": "L'ordre de cotation", "Les
joueurs sans cote", "Les joueurs avec une cote provisoire", "Les joueurs avec une cote
permanente", the table of "résultats probables", the bonus, 2300 and match paragraphs and the
worked example of Daniel at the COQ); SPEC 3.1 (lookup table) and 3.5.

A rating period is one competition (event). Within an event the players are rated in three
groups, in this order: unrated players (no rated game yet), provisional players (1 to 24 rated
games before the event) and permanent players. A later group sees the ratings just computed for
the players of the earlier groups; players of the same group see each other's ratings from
before the event. Ratings are whole numbers.

- Unrated: the first rating is the performance Cm + 400 (W - L) / n, unrated opponents counting
  as 1100; a performance below 1200 gets half its gap to 1200 added (800 -> 1000).
- Provisional: the games-weighted mean of the old rating and the event's performance
  ((12*1462 + 4*1630) / 16 = 1504), without the 1200 adjustment.
- Permanent: R + 32 (score - expected) with expectations read from the FQE table, then the
  bonus, the halving above 2300 and the 50-point cap on a match (in that order; see
  docs/rating-systems.md, section fqe).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from .model import Match, PlayerState, TeamGame
from .parameters import param, require
from .provisional import performance_rating, weighted_rating
from .rounding import round_half_away
from .sides import MetSide, PeriodRatio, members, scaled_change, side_strength, uneven_ratio
from .system import RatingSystem
from .table import Table, moment_of

# -- the table of expected scores ------------------------------------------------------------------

#: Upper bound of each band of (whole) rating differences in the FQE table, in order: a
#: difference up to ``FQE_BAND_UPPER[j]`` (and above the previous bound) gives the higher-rated
#: player ``50 + j`` per cent; beyond the last bound (735 and more) the higher-rated player is
#: expected to score 100 per cent. Transcribed from seed 003 (0-3 -> 50/50, 4-10 -> 51/49, ...,
#: 620-734 -> 99/1, 735 et plus -> 100/0).
FQE_BAND_UPPER: tuple[int, ...] = (
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68,  # 50 .. 59 %
    76, 83, 91, 98, 106, 113, 121, 129, 137, 145,  # 60 .. 69 %
    153, 162, 170, 179, 188, 197, 206, 215, 225, 235,  # 70 .. 79 %
    245, 256, 267, 278, 290, 302, 315, 328, 344, 357,  # 80 .. 89 %
    374, 391, 411, 432, 456, 484, 517, 559, 619, 734,  # 90 .. 99 %
)


def fqe_expected_percent(difference: float) -> int:
    """The expected score, in whole per cent, of a player rated ``difference`` points above
    the opponent (negative when below), read from the FQE table.

    The difference is first rounded to a whole number (FQE ratings are whole numbers; halves go
    away from zero); the higher-rated side gets the larger share and the two shares add up to 100.
    Source: seed 003 (table of "résultats probables"), SPEC 3.1.
    """
    whole = round_half_away(difference)
    higher = 50 + bisect_left(FQE_BAND_UPPER, abs(whole))
    return higher if whole >= 0 else 100 - higher


def fqe_expected(difference: float) -> float:
    """The expected score (0..1) of a player rated ``difference`` points above the opponent.

    Source: seed 003 (table of "résultats probables"), SPEC 3.1.
    """
    return fqe_expected_percent(difference) / 100.0


# -- rules -----------------------------------------------------------------------------------------


def first_rating(performance: float, threshold: float) -> int:
    """An unrated player's first rating: the performance, plus half its gap to ``threshold``
    when it falls short of it, rounded to a whole number (800 -> 1000, 900 -> 1050 with 1200).

    Source: seed 003 ("Les joueurs sans cote": rajustement de 50 % de la différence), SPEC 3.5.
    """
    if performance < threshold:
        performance += (threshold - performance) / 2.0
    return round_half_away(performance)


def provisional_rating(
    rating: float, games: int, performance: float, event_games: int
) -> int:
    """A provisional player's new rating: the mean of the old ``rating`` (worth ``games``
    games) and the event ``performance`` (worth ``event_games``), rounded; no 1200 adjustment.

    Source: seed 003 ("Les joueurs avec une cote provisoire": (12*1462 + 4*1630) / 16 = 1504),
    SPEC 3.5.
    """
    return round_half_away(weighted_rating(rating, games, performance, event_games))


def elo_gain(k: float, score: float, expected_percent: int) -> int:
    """K (R - Rp), ``score`` the points scored and ``expected_percent`` the sum of the table's
    expectations in per cent, rounded to whole points (32 (5.5 - 2.88) = 83.84 -> 84).

    The sum is kept in whole per cent so the arithmetic is exact. Source: seed 003 ("Les joueurs
    avec une cote permanente": Cote = Ca + 32 x (R - Rp)), SPEC 3.5.
    """
    return round_half_away(k * (100.0 * score - expected_percent) / 100.0)


def bonus_points(
    gain: float, rounds: int, *, bonus_rounds: int, limit: float, step: float
) -> float:
    """Bonus points: one per point of ``gain`` above the limit for an event of ``rounds``
    rounds (24 for 4 rounds, 26 for 5, 28 for 6, ... 32 for 8); none below ``bonus_rounds``.

    Source: seed 003 (bonis: "24 points pour les tournois de 4 rondes ... un point de boni pour
    chaque point de cote gagné dépassant la limite"; Daniel: 84 - 32 = 52), SPEC 3.5.
    """
    if rounds < bonus_rounds:
        return 0.0
    ceiling = limit + step * (rounds - bonus_rounds)
    return max(0.0, gain - ceiling)


def halved_change(rating: float, change: float, threshold: float) -> float:
    """A change with what lies above ``threshold`` halved: the whole change when ``rating`` is
    already above it, the part beyond it when the change crosses it on the way up.

    Source: seed 003 ("lorsque la cote d'un joueur dépasse 2300, soit avant, soit durant une
    compétition, tous les changements ultérieurs de cote sont divisés par deux"), SPEC 3.5.
    """
    if rating > threshold:
        return change / 2.0
    after = rating + change
    if after > threshold:
        return (threshold - rating) + (after - threshold) / 2.0
    return change


def match_capped(change: float, cap: float, is_match: bool) -> float:
    """The gain from a match (all of a player's games in the event against one opponent),
    held to at most ``cap`` points; losses and other events are left alone.

    Source: seed 003 ("l'augmentation de cote acquise lors d'un match ne peut excéder 50
    points"), SPEC 3.5.
    """
    return min(change, cap) if is_match else change


# -- parameters ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QuebecParams:
    k: float = param(32.0, "K of the permanent-rating formula Ca + 32 (R - Rp) (seed 003)",
                     low=1, high=400)
    unrated_opponent: float = param(
        1100.0, "rating an unrated opponent counts as, and a newcomer's shown rating (seed 003)",
        low=0, high=4000,
    )
    adjustment_threshold: float = param(
        1200.0, "a first performance below this gets half the gap added (seed 003)",
        low=0, high=4000,
    )
    provisional_games: int = param(
        24, "a rating is provisional while the player has at most this many games (seed 003)",
        low=0, high=100,
    )
    bonus_rounds: int = param(4, "fewest rounds of an event that can earn a bonus (seed 003)",
                              low=1, high=100)
    bonus_limit: float = param(24.0, "gain above which a 4-round event earns bonus (seed 003)",
                               low=0, high=1000)
    bonus_step: float = param(2.0, "rise of the bonus limit per extra round (seed 003)",
                              low=0, high=100)
    halving_threshold: float = param(
        2300.0, "rating above which further changes are halved (seed 003)", low=0, high=4000,
    )
    match_cap: float = param(50.0, "largest gain from a match against one opponent (seed 003)",
                             low=0, high=1000)

    def __post_init__(self) -> None:
        require(self.k > 0, "k", "must be positive")
        require(self.provisional_games >= 0, "provisional_games", "must be >= 0")
        require(self.bonus_rounds >= 1, "bonus_rounds", "must be >= 1")
        require(self.bonus_limit >= 0, "bonus_limit", "must be >= 0")
        require(self.bonus_step >= 0, "bonus_step", "must be >= 0")
        require(self.match_cap >= 0, "match_cap", "must be >= 0")


def permanent_rating(
    rating: float,
    opponents: Sequence[float],
    scores: Sequence[float],
    *,
    is_match: bool,
    params: QuebecParams | None = None,
) -> int:
    """A permanent player's rating after an event with the given (handicap-adjusted) opponent
    ratings and scores: the Elo gain from the FQE table, plus the bonus, then the halving above
    2300, then the match cap, rounded to a whole number.

    ``is_match`` tells that all the games were against one opponent (a match). The order of the
    three adjustments is ours (the seed lists them without one): see docs/rating-systems.md,
    section fqe.
    Source: seed 003 ("Les joueurs avec une cote permanente", bonis, 2300, match; Daniel 1876 ->
    2012), SPEC 3.5.
    """
    p = params if params is not None else QuebecParams()
    if len(opponents) != len(scores):
        raise ValueError(f"scores must match opponents ({len(scores)} != {len(opponents)})")
    if not opponents:
        raise ValueError("opponents must not be empty")
    expected = sum(fqe_expected_percent(rating - opponent) for opponent in opponents)
    change: float = elo_gain(p.k, sum(scores), expected)
    change += bonus_points(
        change, len(opponents), bonus_rounds=p.bonus_rounds, limit=p.bonus_limit,
        step=p.bonus_step,
    )
    change = halved_change(rating, change, p.halving_threshold)
    change = match_capped(change, p.match_cap, is_match)
    return round_half_away(rating + round_half_away(change))


# -- the system ------------------------------------------------------------------------------------


class _Entry:
    """One game seen from one player: the opponent (a player, or the other side of a team
    game), the score and the handicap given."""

    __slots__ = ("opponent", "score", "handicap")

    def __init__(self, opponent: int | MetSide, score: float, handicap: float) -> None:
        self.opponent = opponent
        self.score = score
        self.handicap = handicap

    def rating(self, seen: Callable[[int], float]) -> float:
        """The opponent's rating as the current group sees it."""
        opponent = self.opponent
        return seen(opponent) if isinstance(opponent, int) else opponent.rating(seen)

    @property
    def met(self) -> int | tuple[int, ...]:
        """Whom the game was against: the opponent, or the other side's members."""
        opponent = self.opponent
        return opponent if isinstance(opponent, int) else opponent.other


class QuebecSystem(RatingSystem):
    """``fqe``: the Quebec federation's rules, one rating period being one event.

    Source: seed 003, SPEC 3.5.
    """

    name = "fqe"
    #: seed 003: one rating period is one event
    rates_competitions = True

    def __init__(self, params: QuebecParams | None = None) -> None:
        self.params: QuebecParams = params if params is not None else QuebecParams()

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        """Rating 1100 (the value given to unrated opponents) with no games: unrated."""
        rating = self.params.unrated_opponent
        return PlayerState(rating=rating, games=0, peak=rating, birth_date=birth_date)

    def is_provisional(self, state: PlayerState) -> bool:
        return state.games <= self.params.provisional_games

    def expected_score(self, player: PlayerState, opponent: PlayerState,
                       handicap: float = 0.0) -> float:
        """The federation's table; an unrated player counts as 1100. Source: seed 003."""
        def seen(state: PlayerState) -> float:
            return self.params.unrated_opponent if state.games == 0 else state.rating

        return fqe_expected(seen(player) - seen(opponent) - handicap)

    def side_state(self, members: Sequence[PlayerState], other_size: int,
                   size_handicap: float) -> PlayerState:
        """A side as one player: its strength from the ratings the federation's table reads
        (an unrated member at 1100), a rated player's state.

        Source: seed 003 (unrated opponents count as 1100); issue 37 (a side's rating is the
        mean of its members').
        """
        p = self.params
        rating = side_strength([p.unrated_opponent if m.games == 0 else m.rating
                                for m in members], other_size, size_handicap)
        return PlayerState(rating=rating, games=1, peak=rating)

    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """Rate one event: unrated, then provisional, then permanent players.

        A team game is a game of the event like any other: each member has an entry against
        the other side as they meet it, rated from the ratings their group sees; a rated member
        of the larger of uneven sides moves by the event's ratio of their change.

        Source: seed 003 ("L'ordre de cotation"), SPEC 3.5; issue 37 ("Quebec (``fqe``) and the
        Russian go system rate a team game inside its event like any other game"). Choices: a
        match (the 50-point cap) is all of a player's games against one opponent or one and
        the same other side; an unrated member's first rating is their performance, not a
        change, so the ratio leaves it whole.
        """
        p = self.params
        index = table.index
        entries: dict[int, list[_Entry]] = {}
        ratios = PeriodRatio()
        for game in games:
            if isinstance(game, TeamGame):
                side_a, side_b = (tuple(side) for side in members(game, index))
                for own, other, score, given in ((side_a, side_b, game.score_a, game.handicap),
                                                 (side_b, side_a, 1.0 - game.score_a,
                                                  -game.handicap)):
                    ratio = uneven_ratio(len(own), len(other))
                    for i in own:
                        view = MetSide(i, own, other, game.size_handicap)
                        entries.setdefault(i, []).append(_Entry(view, score, given))
                        ratios.count(i, ratio)
                continue
            a = index[game.player_a]
            b = index[game.player_b]
            # The giver of a handicap plays as if that much weaker (SPEC 3.4).
            entries.setdefault(a, []).append(_Entry(b, game.score_a, game.handicap))
            entries.setdefault(b, []).append(_Entry(a, 1.0 - game.score_a, -game.handicap))

        unrated = [i for i in entries if table.games[i] == 0]
        provisional = [i for i in entries if 0 < table.games[i] <= p.provisional_games]
        permanent = [i for i in entries if table.games[i] > p.provisional_games]

        new: dict[int, int] = {}

        def seen(j: int) -> float:
            """Opponent j's rating as the current group sees it."""
            if j in new:
                return new[j]
            return p.unrated_opponent if table.games[j] == 0 else table.rating[j]

        for group in (unrated, provisional, permanent):
            results = {i: self._settle(table, i, entries[i], seen) for i in group}
            for i in results:
                ratio = ratios.of(i, len(entries[i]))
                if ratio != 1.0 and table.games[i] > 0:
                    results[i] = round_half_away(scaled_change(table.rating[i], results[i],
                                                               ratio))
            new.update(results)

        for i, rating in new.items():
            if table.games[i] == 0:
                # The shown 1100 was never the player's rating, so it is no peak either.
                table.peak[i] = rating
            elif rating > table.peak[i]:
                table.peak[i] = rating
            table.rating[i] = float(rating)
            table.games[i] += len(entries[i])
            table.last_moment[i] = moment_of(when)

    def _settle(
        self,
        table: Table,
        i: int,
        entries: Sequence[_Entry],
        seen: Callable[[int], float],
    ) -> int:
        p = self.params
        opponents = [e.rating(seen) + e.handicap for e in entries]
        n = len(entries)
        games = table.games[i]
        if games > p.provisional_games:
            is_match = n >= 2 and len({e.met for e in entries}) == 1
            return permanent_rating(
                table.rating[i], opponents, [e.score for e in entries], is_match=is_match,
                params=p,
            )
        wins = sum(1 for e in entries if e.score == 1.0)
        losses = sum(1 for e in entries if e.score == 0.0)
        performance = performance_rating(sum(opponents) / n, wins, losses, n)
        if games == 0:
            return first_rating(performance, p.adjustment_threshold)
        return provisional_rating(table.rating[i], games, performance, n)
