"""The points at stake (issue 38): what each member of a game would gain or lose for a win, a
draw and a loss, and their side's expected score, at today's ratings.

The game is rated exactly as its confirmation would rate it: replayed three times (a win, a
draw and a loss of the first side) on top of the ladder's final checkpoint, by the ladder's own
system, with everything a report carries (sides, handicap, colour, the team settings), so a
newcomer starts as the replay starts them, a retired player comes back as a game brings them
back, and a pooled or deviation-based system moves as it would
(:func:`bot.service.ratings.hypothetical`). Once the game is confirmed with nothing rated in
between, a member's shown rating after minus before is the stake's number for that result:
exactly, since both are the same replay.

Choices (issue 38, ERRATA):

- A change is of the rating as the bot shows it, in whole points: the shown rating after minus
  the shown rating before (each rounded half to even, as ``f"{r:.0f}"`` shows it); a newcomer's
  "before" is the rating the system starts them at.
- The percentage is the side's expected score from the system's own prediction
  (:meth:`~ratings_core.system.RatingSystem.predict`, ``predict_sides`` for a team game), times
  100, rounded half to even like every number the bot shows: 62.5 % shows as 62, so K = 32 and
  an expected score of 62.5 % give ``+12 / -4 / -20 (win 62%)``. The second side's is one minus
  the first's.
- For a system that rates events together (``rates_competitions``: fqe, rs-go), and for a
  report held for an open event, the numbers are an estimate: the game rated as an event of its
  own closed now; the answer says so in one more line.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime

from ratings_core.model import Game, PlayerState
from ratings_core.system import RatingSystem
from ratings_core.table import LeagueSums

from . import parsing as parse
from . import teams, view
from .errors import Refusal
from .identity import Caller, Who
from .ratings import Hypothetical, hypothetical, player_key
from .results import Notice, Stake
from .state import GameRecord, GameStatus, Ladder, Member
from .view import Club

log = logging.getLogger(__name__)

#: the first side's scores a stake shows, in its order: a win, a draw, a loss
SCORES = (1.0, 0.5, 0.0)
#: the parameter of a challenge's notice that holds its stake lines (``challenge_issued``)
STAKE = "stake"


def signed(points: int) -> str:
    """A change as a stake line writes it: ``+12``, ``-4``, or ``0``."""
    return f"{points:+d}" if points else "0"


def percent(expected: float) -> int:
    """An expected score as a whole percentage, rounded half to even (62.5 % shows 62)."""
    return round(expected * 100)


def line(name: str, before: float, after: Sequence[float], expected: float) -> Notice:
    """One member's stake line: their shown rating's change for a win, a draw and a loss of
    their side (``after``, in that order), and their side's expected score."""
    before_shown = view.whole_points(before)
    win, draw, loss = (view.whole_points(rating) - before_shown for rating in after)
    return Notice("stake_line", {"name": name, "win": signed(win), "draw": signed(draw),
                                 "loss": signed(loss), "percent": percent(expected)})


def lines(club: Club, ladder: Ladder, record: GameRecord, *, created: bool = True,
          held: bool = False) -> list[Notice]:
    """The stake lines of ``record``'s game on ``ladder``, which rates it (``created`` False:
    a companion not made yet, whose ratings start empty under ``ladder``'s system), side a
    first, then ``stake_estimate`` where the numbers are an estimate (``held``: the game
    waits for an open event). None of them for a game that means nothing."""
    state = club.state
    ratings = None
    if created:
        view.ratings(club, ladder)  # made, and in step with the log
        ratings = club.ratings[ladder.name]
    found = hypothetical(ratings, state, ladder, record, SCORES)
    if found is None:
        return []
    system = view.system_of(club, ladder)
    expected = side_a_expected(found, system)
    shown_lines: list[Notice] = []
    for side, side_expected, flipped in ((record.side_a, expected, False),
                                         (record.side_b, 1.0 - expected, True)):
        for member_id in side:
            member = state.member(member_id)
            key = player_key(member.id)
            start = found.before.state(key)
            assert start is not None  # admitted before the game
            after = [c.state(key) for c in found.after]
            ratings_after = [s.rating if s is not None else start.rating for s in after]
            if flipped:  # the first side's loss is this side's win
                ratings_after.reverse()
            shown_lines.append(line(member.name, start.rating, ratings_after, side_expected))
    if system.rates_competitions or held:
        shown_lines.append(Notice("stake_estimate", {"ladder": ladder.name}))
    return shown_lines


def side_a_expected(found: Hypothetical, system: RatingSystem) -> float:
    """The first side's expected score, as the system predicts the game from the states it
    is rated from (each as the system rates it in the league then)."""
    league = LeagueSums(*found.before.table.league)

    def rated(key: str) -> PlayerState:
        state = found.before.state(key)
        assert state is not None
        return system.as_rated(league, state)

    game = found.game
    if isinstance(game, Game):
        return system.predict(game, rated(game.player_a), rated(game.player_b))
    return system.predict_sides(game, [rated(k) for k in game.side_a],
                                [rated(k) for k in game.side_b])


def stake(
    club: Club, now: datetime, caller: Caller, opponent: Who, *, opponents: Sequence[Who] = (),
    mates: Sequence[Who] = (), ladder: str | None = None, handicap: str | None = None,
    colour: str | None = None,
) -> Stake:
    """``/stake @opp [@opp2] [with @mate]``: the points at stake for every member of a game of
    the caller's side against ``opponent``'s, at today's ratings on the ladder that would rate
    it (a team game's companion, as a report's). Checked as a report is checked (its sides,
    handicap and system), and a retired member is refused: a stake is of members who play.
    Nothing is written."""
    me = view.me(club, caller)
    side_a, side_b, team = teams.named_sides(club, me, mates, opponent, opponents)
    if not team and me.id == side_b[0].id:
        raise Refusal("stake_yourself")
    points = parse.handicap(handicap)
    side = parse.colour(colour)
    named = view.ladder(club, ladder)
    lad, rated_on, create = teams.rating_ladder(club, named, team)
    if team:
        teams.check_sides(club, lad, side_a, side_b)
    else:
        _not_retired(club, lad, [*side_a, *side_b])
    system = view.system_of(club, lad)
    if team and not system.rates_teams:
        raise Refusal("system_cannot_rate_teams", system=lad.settings.system)
    points = view.bounded_handicap(club, lad, points, handicap)
    try:
        system.check(Game("a", "b", 1.0, now, points))
    except ValueError:
        raise Refusal("system_cannot_rate", system=lad.settings.system) from None
    record = GameRecord(
        id=-1, number=0, ladder=rated_on, player_a=side_a[0].id, player_b=side_b[0].id,
        score_a=1.0, handicap=points, colour=side, event=None, played_at=now,
        reported_at=now, reported_by=me.id, status=GameStatus.PENDING,
        partners_a=tuple(m.id for m in side_a[1:]), partners_b=tuple(m.id for m in side_b[1:]))
    return Stake(rated_on, lines(club, lad, record, created=not create))


def _not_retired(club: Club, ladder: Ladder, members: Sequence[Member]) -> None:
    standings = view.ratings(club, ladder)
    for member in members:
        state = standings.state(player_key(member.id))
        if state is not None and state.status != "active":
            raise Refusal("team_member_retired", name=member.name, ladder=ladder.name)


def on_report(club: Club, ladder: Ladder, record: GameRecord) -> list[Notice]:
    """The stake lines a waiting report shows (``show_stake``): none when the ladder does not
    show them. A companion's team games follow their parent's setting, as its team settings
    do: a moderator sets it once, on the ladder they name."""
    owner = club.state.ladders.get(ladder.parent or "", ladder)
    if not owner.settings.show_stake:
        return []
    return _beside(lambda: lines(club, ladder, record, held=record.event is not None))


def on_challenge(club: Club, notice: Notice, ladder: Ladder, challenger: Member,
                 opponent: Member, now: datetime) -> Notice:
    """A new challenge's notice with the points at stake in its game (``show_stake``): the
    challenger's side first, the game as if reported now. A challenge on a companion (which
    rates team games only) has none."""
    if not ladder.settings.show_stake or ladder.parent is not None:
        return notice
    record = GameRecord(
        id=-1, number=0, ladder=ladder.name, player_a=challenger.id, player_b=opponent.id,
        score_a=1.0, handicap=0.0, colour=None, event=None, played_at=now, reported_at=now,
        reported_by=challenger.id, status=GameStatus.PENDING)
    shown_lines = _beside(lambda: lines(club, ladder, record))
    if not shown_lines:
        return notice
    return Notice(notice.key, {**notice.params, STAKE: tuple(shown_lines)})


def _beside(work: Callable[[], list[Notice]]) -> list[Notice]:
    """Lines added to another use case's answer: a report or a challenge is made whatever
    happens to its stake, so a failure here is logged and shows no lines."""
    try:
        return work()
    except Exception:
        log.exception("the points at stake could not be worked out; none shown")
        return []
