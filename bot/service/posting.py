"""Posting: when and where a ladder's leaderboard is posted (a cron expression in a time
zone, a channel), pausing it, and the digest a post carries.

Each use case is a decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from . import bands, news, timeline, view
from . import events as ev
from . import schedules as sched
from .errors import Refusal
from .identity import Caller
from .results import Digest, ScheduleInfo
from .session import Decision
from .view import Club

#: the team games a digest names by their sides (issue 37), the latest ones
TEAM_GAMES_SHOWN = 5

def set_schedule(
    club: Club, now: datetime, caller: Caller, ladder: str | None, *, cron: str | None,
    timezone: str | None, channel: str | None, size: str | None,
) -> Decision[ScheduleInfo]:
    """Set when (a cron expression in an IANA zone) and where (a channel, or the club's own
    chat) the ladder's leaderboard is posted, and its length; what is not given stays."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    if cron is None and timezone is None and channel is None and size is None:
        raise Refusal("schedule_nothing")
    current = club.state.schedule(lad)
    zone = sched.check_timezone(timezone) if timezone is not None else current.timezone
    expr = sched.check_cron(cron if cron is not None else current.cron,
                            sched.timezone_of(lad, zone), now)
    target = current.channel if channel is None else sched.check_channel(channel)
    rows = current.size if size is None else sched.check_size(size)
    event = ev.new_event(ev.ScheduleSet(lad.name, expr, zone, target, rows), caller.user, now)
    return [event], lambda: view.schedule_info(club, lad, now, "schedule_set", caller)


def show_schedule(club: Club, now: datetime, caller: Caller, ladder: str | None) -> ScheduleInfo:
    """When and where the ladder's leaderboard is posted next."""
    view.require_moderator(club, caller)
    return view.schedule_info(club, view.ladder(club, ladder), now, "schedule_shown",
                              caller)


def pause_schedule(
    club: Club, now: datetime, caller: Caller, paused: bool, ladder: str | None, reason: str
) -> Decision[ScheduleInfo]:
    """Stop the ladder's scheduled posts, or start them again (from the next time on)."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    if club.state.schedule(lad).paused == paused:
        raise Refusal("schedule_already_paused" if paused else "schedule_not_paused",
                      ladder=lad.name)
    change = ev.SchedulePaused if paused else ev.ScheduleResumed
    event = ev.new_event(change(lad.name), caller.user, now, view.reason(reason))
    key = "schedule_paused" if paused else "schedule_resumed"
    return [event], lambda: view.schedule_info(club, lad, now, key, caller)


def digest(
    club: Club, now: datetime, ladder: str | None, since: datetime | None, scheduled: bool,
    chat_timezone: str | None = None,
) -> Digest:
    """The ladder's digest: its leaderboard's top with each rating's change, climbers and
    fallers, players who became established, newcomers, players close to retirement for
    inactivity and the number of games, since ``since``. Without ``since``: since the ladder's
    latest scheduled post time, or since the ladder began when there was none yet (the latest
    post time is before it began, or the scheduler asks for its first post). Its times are
    the posts' of the chat it is for: ``chat_timezone``, a joined chat's own zone, if any."""
    lad = view.ladder(club, ladder)
    schedule = club.state.schedule(lad)
    zone = sched.timezone_of(lad, schedule.timezone, chat_timezone)
    start = since
    if start is None and not scheduled:
        start = sched.latest_fire(sched.cron_trigger(schedule.cron, zone), None, now)
    began = None
    if since is None and lad.created_at is not None and (start is None
                                                         or start < lad.created_at):
        # nothing was posted yet: it covers the ladder from its start (and /digest says so)
        start, began = None, lad.created_at
    final = view.ratings(club, lad)
    ratings = club.ratings[lad.name]
    system = view.system_of(club, lad)
    before = timeline.state_at(ratings, club.state, start or datetime.min)
    board = bands.banded(club, lad, view.board(club, lad))  # each member's band (issue 38)
    digest = news.build_digest(club.state, lad, system, board, before, final,
                               start, now, schedule.size, played_from=began)
    shown = "" if began is None or scheduled else began.isoformat(timespec="minutes")
    # the latest team games by name (issue 37: "alice & bob beat carol & dan")
    team_games = [view.line(club, game) for game in news.counted_since(club.state, lad, start)
                  if game.team][-TEAM_GAMES_SHOWN:]
    return dataclasses.replace(digest, zone=zone, began=shown,  # times in the posts' zone
                               team_games=team_games)
