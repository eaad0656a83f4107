"""What the channel is told: a ladder's digest since the previous post, and the announcements a
result earns (a new personal best, an upset).

Both compare two states of the ladder's ratings (before and after), so they follow whatever
rating system the ladder uses; nothing here rates anything itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timedelta

from ratings_core.replay import Checkpoint
from ratings_core.system import RatingSystem

from .ratings import member_of_key, player_key
from .results import Digest, DigestRow, Leaderboard, Notice, RatingChange, Retiring
from .state import ClubState, GameRecord, Ladder, latest_played

#: a win against someone at least this much higher rated is an upset (issue 6)
UPSET_GAP = 200.0
#: climbers and fallers shown in a digest
MOVERS = 3
#: players retired for inactivity within this many days are named in the digest, so that a game
#: this week can keep them on the ladder
RETIREMENT_WARNING_DAYS = 7


def build_digest(
    state: ClubState, ladder: Ladder, system: RatingSystem, board: Leaderboard,
    before: Checkpoint, after: Checkpoint, since: datetime | None, now: datetime, size: int,
    played_from: datetime | None = None,
) -> Digest:
    """The ladder's digest: ``board`` is the leaderboard now, ``before`` the ratings at
    ``since`` (the previous post; None: before the ladder began), ``after`` the ratings now.
    Games played before ``since`` (or, without it, before ``played_from``: the ladder's start)
    are counted apart."""

    def name(key: str) -> str:
        return state.member(member_of_key(key)).name

    rows = []
    for row in board.rows[:size]:
        member = state.member_named(row.name)
        old = before.state(player_key(member.id)) if member is not None else None
        change = None if old is None else row.rating - old.rating
        rows.append(DigestRow(row, change))
    now_players = after.players
    moved: list[RatingChange] = []
    established, newcomers = [], []
    for key, new in now_players.items():
        # a puzzle ladder's problems are rated like members, but are no one's news
        if new.status != "active" or state.member(member_of_key(key)).problem:
            continue
        old = before.state(key)
        if old is None:
            newcomers.append(name(key))
            continue
        if new.rating != old.rating:
            moved.append(RatingChange(name(key), old.rating, new.rating,
                                      system.is_provisional(new)))
        if system.is_provisional(old) and not system.is_provisional(new):
            established.append(name(key))

    def delta(change: RatingChange) -> float:
        assert change.before is not None and change.after is not None
        return change.after - change.before

    played, late = _games_since(state, ladder, since, since or played_from)
    climbers = sorted((c for c in moved if delta(c) > 0), key=lambda c: (-delta(c), c.name))
    fallers = sorted((c for c in moved if delta(c) < 0), key=lambda c: (delta(c), c.name))
    return Digest(
        ladder=ladder.name,
        since="" if since is None else since.isoformat(timespec="minutes"),
        rows=rows,
        climbers=climbers[:MOVERS],
        fallers=fallers[:MOVERS],
        established=sorted(established, key=str.casefold),
        newcomers=sorted(newcomers, key=str.casefold),
        retiring=_retiring(state, ladder, after, now),
        games=played,
        hidden_provisional=board.hidden_provisional,
        late=len(late),
        late_from=min(late).isoformat(timespec="minutes") if late else "",
        late_to=max(late).isoformat(timespec="minutes") if late else "",
    )


def _retiring(state: ClubState, ladder: Ladder, after: Checkpoint, now: datetime
              ) -> list[Retiring]:
    """Active players whom the ladder's inactivity rule retires within the warning days."""
    days = ladder.settings.inactivity_days
    if days is None:
        return []
    out = []
    # The same date as the rule itself (session._due): the latest a member played, not their
    # last game in rating order (issue 31).
    latest = latest_played(state, ladder.games.values())
    for key, player in after.players.items():
        last = latest.get(member_of_key(key))
        if player.status != "active" or last is None:
            continue
        left = last + timedelta(days=days) - now
        if left <= timedelta(days=RETIREMENT_WARNING_DAYS):
            whole = max(0, math.ceil(left / timedelta(days=1)))
            out.append(Retiring(state.member(member_of_key(key)).name, whole))
    return sorted(out, key=lambda r: (r.days, r.name.casefold()))


def _games_since(
    state: ClubState, ladder: Ladder, since: datetime | None, played_from: datetime | None
) -> tuple[int, list[datetime]]:
    """The games that came to count after ``since`` (confirmed, not void; None: all): how many
    of them were played from ``played_from`` on, and when the others were played (imported, or
    recorded late), so that a digest never counts last year's history as this week's games."""
    played, late = 0, []
    for game in counted_since(state, ladder, since):
        if played_from is not None and game.played_at < played_from:
            late.append(game.played_at)
        else:
            played += 1
    return played, late


def counted_since(state: ClubState, ladder: Ladder, since: datetime | None
                  ) -> list[GameRecord]:
    """The ladder's games that came to count after ``since`` (None: all), in rating order."""
    at = {event.id: event.at for event in state.log}
    return sorted((game for game in ladder.games.values() if game.counts and (
        since is None or at.get(game.seq or 0, since) > since)), key=lambda g: g.seq or 0)


def announcements(
    state: ClubState, ladder: Ladder, system: RatingSystem, before: Checkpoint,
    after: Checkpoint, games: Iterable[GameRecord],
) -> list[Notice]:
    """What the results of ``games`` earn, between the ratings ``before`` and ``after`` them:

    - an upset: the winner was rated at least ``UPSET_GAP`` below the loser before the game;
    - a new personal best: an established player (the system's provisional rule) who had
      played before ends above their highest rating so far.
    """
    notices: list[Notice] = []
    bests: dict[str, float] = {}
    for game in games:
        a, b = (player_key(state.member(m).id) for m in (game.player_a, game.player_b))
        if game.score_a != 0.5 and not game.team:  # an upset is one player's over another
            winner, loser = (a, b) if game.score_a == 1.0 else (b, a)
            won, lost = before.state(winner), before.state(loser)
            if won is not None and lost is not None and lost.rating - won.rating >= UPSET_GAP:
                notices.append(Notice("announce_upset", {
                    "winner": state.member(member_of_key(winner)).name,
                    "loser": state.member(member_of_key(loser)).name,
                    "gap": round(lost.rating - won.rating), "ladder": ladder.name,
                }))
        for key in (player_key(state.member(m).id) for m in game.players):
            old, new = before.state(key), after.state(key)
            if (old is not None and new is not None and old.games > 0
                    and new.rating > old.best and not system.is_provisional(new)):
                bests[key] = max(bests.get(key, new.rating), new.rating)
    for key, rating in bests.items():
        notices.append(Notice("announce_best", {
            "name": state.member(member_of_key(key)).name, "rating": round(rating),
            "ladder": ladder.name,
        }))
    return notices
