"""What every rating system offers the replay engine.

A system is a preset (a name and a frozen parameter set) plus three rules: the state a newcomer
starts with, how one rating period changes the players who took part, and whether a state counts
as provisional. Systems whose periods of one game are simply applied one after another may
override :meth:`RatingSystem.rate_sequence` with a faster loop that gives the same numbers, and
:meth:`RatingSystem.rate_columns` with the same loop over a history's columns.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import ClassVar

from .curves import logistic_expected
from .model import Game, Match, PlayerState, TeamGame
from .parameters import ParameterSet
from .rows import GameRows
from .sides import side_deviation, side_strength
from .table import LeagueSums, Table


class GameRun(list[Game]):
    """Games the replay engine hands to :meth:`RatingSystem.rate_sequence`. A system whose rule
    never reads ``last_played`` may call :meth:`defer_last_played` instead of recording it: the
    engine records it for all such runs at once, before anything reads it (a snapshot, a rating
    period, the end of the replay). Cheaper than a time for each player of each run.

    Source: issue 19 (speed).
    """

    __slots__ = ("_unstamped",)

    def __init__(self, games: Sequence[Game], unstamped: list[Sequence[Match]]) -> None:
        super().__init__(games)
        self._unstamped = unstamped

    def defer_last_played(self) -> None:
        self._unstamped.append(self)


class TeamRun(list[TeamGame]):
    """Team games, each a period of its own, that the replay engine hands to
    :meth:`RatingSystem.rate_team_sequence`; :meth:`defer_last_played` as
    :class:`GameRun`'s. ``members``: every member's place in the table, side_a's then side_b's,
    game after game, as the engine found them (empty: not given).

    Source: issue 37 (team games at the speed of singles); issue 19 (the deferral).
    """

    __slots__ = ("_unstamped", "members")

    def __init__(self, games: Sequence[TeamGame], unstamped: list[Sequence[Match]],
                 members: list[int] | None = None) -> None:
        super().__init__(games)
        self._unstamped = unstamped
        self.members = members or []

    def defer_last_played(self) -> None:
        self._unstamped.append(self)


@dataclass(frozen=True, slots=True)
class PoolRule:
    """Inflation-neutral starting ratings (SPEC 3.7, seed 002): the league mean and the cap."""

    base: float
    cap: float


def widened_deviation(deviation: float, newcomer: float, threshold: float,
                      factor: float) -> float:
    """A deviation widened by a soft season reset: moved toward a newcomer's by the share of
    the rating that the reset takes away (1 - ``factor``), never narrowed, and, for a rating
    that was not provisional (a deviation at most ``threshold``, the provisional mark's), no
    wider than ``threshold``: an established member stays established.

    Rule, in our words: d' = d + (D0 - d)(1 - f), at least d; at most the threshold when d was.
    Source: issue 38 (a soft reset widens the deviation, leaving provisional status as it was)
    and its errata (the widened deviation stays below the provisional threshold). Choice: the
    same share as the rating's pull, so a rating moved halfway back to the base is half as
    well known as it was, short of the mark.
    """
    widened = max(deviation, deviation + (newcomer - deviation) * (1.0 - factor))
    return min(widened, threshold) if deviation <= threshold else widened


class RatingSystem(ABC):
    #: the preset's name, as given to ``clubrating replay --system``
    name: ClassVar[str]
    #: whether a game may carry a handicap (in the system's unit)
    uses_handicap: ClassVar[bool] = True
    #: the largest handicap either way in the system's own unit, where it has one of its own
    #: (``rs-go``: stones); None: rating points, bounded by the chat's general rule (issue 31:
    #: an rs-go handicap of 500 "stones" was accepted)
    max_handicap: ClassVar[float | None] = None
    #: whether every game must carry its solving time in seconds
    uses_seconds: ClassVar[bool] = False
    #: whether the system's rules rate a competition as one rating period (a club night is
    #: then one event, its games rated together at its close; issue 36)
    rates_competitions: ClassVar[bool] = False
    #: whether the system rates games between sides of several players (issue 37)
    rates_teams: ClassVar[bool] = True
    #: the preset's parameters: a frozen dataclass built with ``parameters.param`` fields
    params: ParameterSet

    @property
    def pool(self) -> PoolRule | None:
        """The starting pool rule, or ``None`` when newcomers do not share a pool."""
        return None

    @abstractmethod
    def newcomer(self, when: datetime, birth_date: date | None, share: float) -> PlayerState:
        """The state of a player who joins at ``when``; ``share`` is their share of the pool."""

    def adopt(self, state: PlayerState) -> PlayerState:
        """Complete a state given from outside (PLAYERS.csv, storage) with system defaults."""
        return state

    def as_rated(self, league: LeagueSums, state: PlayerState) -> PlayerState:
        """``state`` as this system rates and predicts with it in a league with these sums:
        the same, except where a system takes something from the league (``club``: a
        newcomer's deviation)."""
        return state

    @abstractmethod
    def rate_period(self, table: Table, games: Sequence[Match], when: datetime) -> None:
        """Rate one period's games together, from the ratings held before the period; a
        period may hold games of one against one and of sides (:mod:`ratings_core.sides`)."""

    def rate_sequence(self, table: Table, games: Sequence[Game]) -> None:
        """Rate each game as a period of its own, in order."""
        for game in games:
            self.rate_period(table, (game,), game.played_at)

    def rate_team_sequence(self, table: Table, games: Sequence[TeamGame]) -> None:
        """Rate each team game as a period of its own, in order (a system may override it with
        a faster loop that gives the same numbers, as :meth:`rate_sequence`)."""
        for game in games:
            self.rate_period(table, (game,), game.played_at)

    def rate_columns(self, table: Table, rows: GameRows) -> None:
        """Rate rows of a history's columns, each game a period of its own, in order: the
        numbers :meth:`rate_sequence` gives for the same games. By default the rows become
        ``Game`` values a chunk at a time and go through :meth:`rate_sequence`."""
        for games in rows.games():
            self.rate_sequence(table, games)

    def is_provisional(self, state: PlayerState) -> bool:
        return False

    @property
    def keeps_league_sums(self) -> bool:
        """Whether the system keeps the table's :class:`LeagueSums` in its rating loops (a
        season's reset then keeps them too); ``club`` does where newcomers take the league's
        deviation."""
        return False

    def season_base(self, when: datetime) -> float:
        """T of a season's reset: the rating a new adult member starts with before any
        placement (no date of birth, no share of the starting pool).

        Source: issue 38, errata ("T is the system's base rating for a new adult member before
        any placement").
        """
        return self.newcomer(when, None, 0.0).rating

    def season_start(self, state: PlayerState, reset: str, factor: float,
                     when: datetime) -> PlayerState:
        """An active player's state when a season starts at ``when``; the engine takes its
        rating, games, deviation and volatility and keeps everything else (the peak, the
        status, when they last played).

        Rule, in our words: ``soft`` moves the rating to T + (r - T) * ``factor``, T
        :meth:`season_base`, and widens the deviation where the system has one
        (:meth:`season_deviation`); games stay, so a provisional rating stays provisional and
        an established one established. ``hard`` gives the state a newcomer of the system
        starts with (at T, no games): everyone is provisional again where the system marks
        newcomers so.

        Source: issue 38 (``season_reset none|soft|hard``, "leaving provisional status as it
        was") and its errata (T; established members stay established).
        """
        start = self.newcomer(when, None, 0.0)
        if reset == "hard":
            return start
        rating = start.rating + (state.rating - start.rating) * factor
        return dataclasses.replace(state, rating=rating,
                                   deviation=self.season_deviation(state, factor))

    def season_deviation(self, state: PlayerState, factor: float) -> float | None:
        """A soft reset's deviation: as it was for a system whose provisional mark does not
        come from a deviation (``elo``, ``fqe``, ``rs-go``...)."""
        return state.deviation

    def shown_deviation(self, state: PlayerState) -> float | None:
        """The deviation people are shown beside the rating (None: none is shown)."""
        return state.deviation

    @property
    def first_move_advantage(self) -> float:
        """Rating points the player with the first move plays above their rating (0: none)."""
        return 0.0

    def handicap_of(self, game: Match) -> float:
        """The game's handicap with the first-move advantage folded in: the side that moves
        first plays as if ``first_move_advantage`` points stronger, so it counts as a handicap
        received. Source: issue 7 of this project; the World Football Elo Ratings add a fixed
        number of points (100) to the home side in the same way (eloratings.net, "The system");
        the values fitted on real data are in docs/accuracy.md.
        """
        return game.handicap - self.first_move_advantage * game.first_move

    def predict(self, game: Game, a: PlayerState, b: PlayerState) -> float:
        """player_a's expected score in ``game`` from the states ``a`` and ``b``."""
        return self.expected_score(a, b, self.handicap_of(game))

    def predict_sides(self, game: TeamGame, side_a: Sequence[PlayerState],
                      side_b: Sequence[PlayerState]) -> float:
        """side_a's expected score in ``game`` from its members' states: one prediction per
        game, :meth:`expected_score` of the two sides as players (:meth:`side_state`).

        Source: issue 37 ("A side's rating is the mean of its members' ratings; one expected
        score per side from the ladder's curve").
        """
        a = self.side_state(side_a, len(side_b), game.size_handicap)
        b = self.side_state(side_b, len(side_a), game.size_handicap)
        return self.expected_score(a, b, self.handicap_of(game))

    def side_state(self, members: Sequence[PlayerState], other_size: int,
                   size_handicap: float) -> PlayerState:
        """A side as one player, for a prediction: rated at its strength
        (:func:`ratings_core.sides.side_strength`), with the root mean square of its members'
        deviations (none when a member has none) and its least experienced member's games.

        Source: issue 37 (the side's rating, the deviation of a side as one opponent). Choice:
        the fewest games, so that a system which reads them (``fqe``'s unrated players) sees a
        side with a newcomer as it sees the newcomer.
        """
        rating = side_strength([m.rating for m in members], other_size, size_handicap)
        deviations = [m.deviation for m in members]
        known = [d for d in deviations if d is not None]
        deviation = side_deviation(known) if len(known) == len(deviations) else None
        return PlayerState(rating=rating, games=min(m.games for m in members),
                           deviation=deviation, peak=rating)

    def expected_score(self, player: PlayerState, opponent: PlayerState,
                       handicap: float = 0.0) -> float:
        """``player``'s expected score against ``opponent``, giving ``handicap``: the
        system's own prediction of a game. Default: the logistic curve.

        Source: seed 000, seed 002 (E = 1 / (1 + 10^(-(Ra - Rb) / 400))), SPEC 3.1.
        """
        return logistic_expected(player.rating - opponent.rating - handicap)

    def check(self, game: Match) -> None:
        """Raise ``ValueError`` naming the field when this system cannot rate ``game``.

        Callers that read untrusted input (CSV files, chat) call this first so that the error
        can point at the row or message; ``rate_period`` may rely on it having passed. A team
        game follows the handicap rule of a game of one against one (issue 37).
        """
        if isinstance(game, TeamGame):
            if not self.rates_teams:
                raise ValueError(f"{self.name} does not rate team games")
        elif self.uses_seconds and game.seconds is None:
            raise ValueError(f"seconds is required by {self.name}")
        if not self.uses_handicap and game.handicap != 0.0:
            raise ValueError(f"handicap must be 0: {self.name} does not use handicaps")
