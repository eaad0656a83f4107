"""Simplified linear Elo of the Japanese go and shogi sites: ``shogi24`` and ``taisen``.

Source: seed 002 (イロレーティング, section 擬似的な算出方法): with the linear curve
E = 0.5 + d/800, a winner gains K/2 + K (R_loser - R_winner) / 800 and the loser loses the same.
Shogi Club 24 and Kindai Shogi dojo use K = 32 (16 + 0.04 d), round to whole points with halves
up and hold every change within 1..31. TAISEN go uses K = 24 and adds the points fixed for the
game's handicap to the difference, so that a win with the handicap counts less.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from .curves import LINEAR_SPAN, linear_expected
from .model import Match, PlayerState, TeamGame
from .parameters import param, require
from .rounding import round_half_away
from .sides import members, strengths, uneven_ratio
from .system import RatingSystem
from .table import Table, moment_of


def linear_change(
    rating: float,
    opponent: float,
    score: float,
    *,
    k: float,
    handicap: float = 0.0,
    min_change: int,
    max_change: int,
) -> int:
    """The whole-point change of a player with ``rating`` who scores ``score`` against
    ``opponent``, giving ``handicap`` points (negative when receiving).

    K (S - E) with E = 0.5 + (R - R_opp - handicap) / 800, rounded half up in size; the size of
    a win's or loss's change is held within ``min_change``..``max_change`` (1..31 at Shogi Club
    24, whatever the difference); a draw's within 0..``max_change``.

    Source: seed 002 (擬似的な算出方法: 16 + 0.04 (R_B - R_A), 1500 beats 1700 -> +24 / -24;
    TAISEN with K = 24 and handicap points); SPEC 3.3, 3.4. The seed describes decisive games
    only; a draw (rare in shogi) follows the same formula with S = 0.5.
    """
    raw = k * (score - (0.5 + (rating - opponent - handicap) / LINEAR_SPAN))
    if score == 0.5:
        size = min(max_change, round_half_away(abs(raw)))
        return size if raw > 0 else -size
    # The winner's gain, however lopsided the pairing, stays within min..max (seed 002).
    winner_gain = raw if score == 1.0 else -raw
    gain = max(min_change, min(max_change, round_half_away(winner_gain)))
    return gain if score == 1.0 else -gain


@dataclass(frozen=True, slots=True)
class LinearParams:
    initial: float = param(1500.0, "starting rating (the conventional average, seed 002)",
                           low=0, high=4000)
    k: float = param(32.0, "K of the linear formula: 32 at Shogi Club 24, 24 at TAISEN (seed 002)",
                     low=1, high=400)
    min_change: int = param(1, "smallest change of a decided game (seed 002: 1)", low=0, high=400)
    max_change: int = param(31, "largest change of a game (seed 002: 31 with K = 32)",
                            low=0, high=400)

    def __post_init__(self) -> None:
        require(self.k > 0, "k", "must be positive")
        require(self.min_change >= 0, "min_change", "must be >= 0")
        require(self.max_change >= self.min_change, "max_change", "must be >= min_change")


class LinearElo(RatingSystem):
    """Linear Elo with whole-point, clamped changes. Source: seed 002, SPEC 3.3, 3.4."""

    name = "shogi24"

    def __init__(self, params: LinearParams | None = None) -> None:
        self.params: LinearParams = params or LinearParams()

    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        return PlayerState(rating=self.params.initial, peak=self.params.initial)

    def expected_score(self, player: PlayerState, opponent: PlayerState,
                       handicap: float = 0.0) -> float:
        """The linear curve 0.5 + d/800, clipped. Source: seed 002, SPEC 3.3."""
        return linear_expected(player.rating - opponent.rating - handicap)

    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """Each game's change from the ratings before the period, summed per player; a team
        game's by :meth:`_team_changes`."""
        p = self.params
        index, rating = table.index, table.rating
        changes: dict[int, int] = {}
        counts: dict[int, int] = {}
        for game in games:
            if isinstance(game, TeamGame):
                self._team_changes(table, game, changes, counts)
                continue
            a, b = index[game.player_a], index[game.player_b]
            change = linear_change(
                rating[a], rating[b], game.score_a, k=p.k, handicap=game.handicap,
                min_change=p.min_change, max_change=p.max_change,
            )
            # The loser loses exactly what the winner gains (seed 002).
            changes[a] = changes.get(a, 0) + change
            changes[b] = changes.get(b, 0) - change
            counts[a] = counts.get(a, 0) + 1
            counts[b] = counts.get(b, 0) + 1
        for i, change in changes.items():
            table.rating[i] = rating[i] + change
            table.games[i] += counts[i]
            table.peak[i] = max(table.peak[i], table.rating[i])
            table.last_moment[i] = moment_of(when)

    def _team_changes(self, table: Table, game: TeamGame, changes: dict[int, int],
                      counts: dict[int, int]) -> None:
        """A team game: the whole-point change of :func:`linear_change` between the sides'
        strengths (the handicap points as for two players); each member of the winning side
        gains it and each of the losing side loses it, a member of the larger of uneven sides
        ratio of it, rounded half away from zero to whole points as every change is.

        Source: issue 37 ("Systems with handicaps ... use the sides' means for the rating
        difference"; the uneven ratio); seed 002 (the change, whole points, the loser loses
        what the winner gains). Choice: the ratio is taken of the rounded, clamped change and
        rounded again, so that even sides exchange exactly seed 002's points.
        """
        p = self.params
        side_a, side_b = members(game, table.index)
        a_strength, b_strength = strengths(game, table.rating, table.index)
        change = linear_change(
            a_strength, b_strength, game.score_a, k=p.k, handicap=game.handicap,
            min_change=p.min_change, max_change=p.max_change,
        )
        for own, other, own_change in ((side_a, side_b, change), (side_b, side_a, -change)):
            ratio = uneven_ratio(len(own), len(other))
            step = own_change if ratio == 1.0 else round_half_away(ratio * own_change)
            for i in own:
                changes[i] = changes.get(i, 0) + step
                counts[i] = counts.get(i, 0) + 1


class TaisenElo(LinearElo):
    """``taisen``: TAISEN go's linear Elo, K = 24 with handicap points. Source: seed 002."""

    name = "taisen"

    def __init__(self, params: LinearParams | None = None) -> None:
        super().__init__(params or LinearParams(k=24.0, max_change=23))
