"""What falls due in a club by itself, and when: one rule for the session, which writes what is
due now (``Session._due``), and for the directory, which keeps the earliest time so that the
scheduler looks at a club only then (issue 41).

Three things fall due with time alone:

- an unanswered report counts (is auto-confirmed) ``auto_confirm_hours`` after it was reported,
  or after a restore put it back; a void report never counts by itself (issue 31);
- a puzzle attempt still open ends as a failure at its deadline (issue 34);
- an active member is retired ``inactivity_days`` after the latest date they played (issue 31:
  the latest date, not their last game in rating order, so an imported older game never
  retires someone who played lately).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

from . import view
from .ratings import member_of_key
from .state import Attempt, GameRecord, GameStatus, Ladder
from .view import Club


def confirmations(club: Club) -> Iterator[tuple[datetime, GameRecord]]:
    """Each pending report that will count by itself, with the time it will."""
    state = club.state
    for game in state.open_reports.values():
        if game.status is GameStatus.PENDING and not game.voided:
            hours = state.ladders[game.ladder].settings.auto_confirm_hours
            yield (game.pending_since or game.reported_at) + timedelta(hours=hours), game


def time_outs(club: Club) -> Iterator[tuple[datetime, Ladder, Attempt]]:
    """Each open puzzle attempt, with its deadline."""
    from .puzzles import ATTEMPT_TIME  # (a use case module: it imports the session)

    for ladder in club.state.ladders.values():
        for attempt in ladder.open_attempts.values():
            yield attempt.started_at + ATTEMPT_TIME, ladder, attempt


def retirements(club: Club) -> Iterator[tuple[datetime, Ladder, int]]:
    """Each active member of a ladder with an inactivity rule who has played, with the time
    they fall inactive (and their member id)."""
    for ladder in club.state.ladders.values():
        days = ladder.settings.inactivity_days
        if days is None:
            continue
        latest = view.last_played(club, ladder)
        for key, player in view.ratings(club, ladder).players.items():
            member = member_of_key(key)
            last = latest.get(member)
            if player.status == "active" and last is not None:
                yield last + timedelta(days=days), ladder, member


def earliest(club: Club) -> datetime | None:
    """The earliest time anything falls due in the club by itself (None: nothing will)."""
    return min([at for at, _ in confirmations(club)] + [at for at, _, _ in time_outs(club)]
               + [at for at, _, _ in retirements(club)], default=None)
