"""When a ladder's leaderboard is posted: a cron expression read in an IANA time zone, and the
pure decision of which post is due now.

The service's times are naive UTC (the clock's). A schedule's cron expression is read in its own
zone, so a post at 09:00 stays at 09:00 local time across daylight-saving changes; the fire
times come from APScheduler's :class:`CronTrigger` (``get_next_fire_time``), the same rule the
running scheduler wakes up by, computed here from an injected ``now`` so tests can use a fake
clock. (croniter was tried instead, issue 14: it differs around daylight-saving gaps and on
single-value ranges, tests/service/test_cron.py pins where; APScheduler 3 has no API of its own
for cron's weekday numbers nor for a previous fire time, hence ``_weekdays`` and ``latest_fire``.)
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger  # type: ignore[import-untyped]

from .errors import Refusal
from .ladder_settings import PUZZLE_SYSTEM
from .ladder_settings import check_timezone as check_timezone  # the zone setting's reader
from .state import DEFAULT_TIMEZONE, ClubState, Ladder

#: the shortest time allowed between two posts: a schedule is a digest, not a stream
MIN_GAP = timedelta(hours=1)
#: the most rows a post's leaderboard may have (a chat message stays readable on a phone)
MAX_SIZE = 50
MAX_CRON = 100
#: how far back the most recent fire time is looked for, widening step by step: an hourly
#: schedule is found in the first window, a yearly one (29 February) in the last
_WINDOWS = tuple(timedelta(days=d) for d in (1 / 24, 1, 8, 32, 367, 8 * 366))
#: cron counts weekdays from Sunday = 0 (and 7); APScheduler 3 from Monday = 0 (the warning in
#: ``CronTrigger.from_crontab``'s docstring, apscheduler issue 286). Names read alike in both.
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MICROSECOND = timedelta(microseconds=1)
#: what names the club's own chat as a schedule's channel
_HERE = ("here", "none", "off")
_CHAT_ID = re.compile(r"^-?[0-9]{1,20}$")
_CHANNEL_NAME = re.compile(r"^@[A-Za-z][A-Za-z0-9_]{3,31}$")


def _weekdays(field: str) -> str:
    """A cron day-of-week field with its numbers turned into day names."""
    if not any(ch.isdigit() for ch in field):
        return field
    names: list[str] = []
    for part in field.split(","):
        body, slash, step_text = part.partition("/")
        if not any(ch.isdigit() for ch in body) and body != "*":
            if slash:
                raise ValueError(f"a step needs numbers: {part!r}")
            names.append(body)
            continue
        if body == "*":
            low, high = 0, 6
        elif "-" in body:
            first, _, last = body.partition("-")
            low, high = int(first), int(last)
        else:
            low = int(body)
            high = 6 if slash else low
        step = int(step_text) if slash else 1
        if not (0 <= low <= high <= 7 and step > 0):
            raise ValueError(f"bad day of week {part!r}")
        names.extend(_WEEKDAYS[day] for day in range(low, high + 1, step))
    return ",".join(dict.fromkeys(names))


@functools.lru_cache(maxsize=1024)
def cron_trigger(cron: str, timezone: str) -> CronTrigger:
    """The trigger of a five-field crontab expression in an IANA zone; ``ValueError`` (or
    ``ZoneInfoNotFoundError``) when either is not valid."""
    fields = cron.split()
    if len(fields) != 5:
        raise ValueError(f"a cron expression has 5 fields, not {len(fields)}")
    fields[4] = _weekdays(fields[4])
    return CronTrigger.from_crontab(" ".join(fields), timezone=ZoneInfo(timezone))


def check_cron(cron: str, timezone: str, now: datetime) -> str:
    """A cron expression that fires, at most once an hour; else a refusal saying why."""
    cron = " ".join(cron.split())
    try:
        if len(cron) > MAX_CRON:
            raise ValueError(cron)
        trigger = cron_trigger(cron, timezone)
    except (ValueError, KeyError):
        raise Refusal("bad_cron", text=cron[:MAX_CRON]) from None
    upcoming = list(itertools.islice(fires(trigger, now, now + timedelta(days=8 * 366)), 4))
    if not upcoming:
        raise Refusal("cron_never_fires", text=cron)
    if any(b - a < MIN_GAP for a, b in zip(upcoming, upcoming[1:], strict=False)):
        raise Refusal("cron_too_often", text=cron)
    return cron


def check_channel(text: str) -> str | None:
    """Where posts go: a chat or channel id (Telegram's -100..., a Discord channel's id or
    mention <#id>), a Telegram channel's @username; "here" for the club's own chat (None)."""
    value = text.strip()
    if value.casefold() in _HERE:
        return None
    value = value.removeprefix("<#").removesuffix(">")
    if not (_CHAT_ID.match(value) or _CHANNEL_NAME.match(value)):
        raise Refusal("bad_channel", text=value[:40])
    return value


def check_size(text: str) -> int:
    try:
        size = int(text)
    except ValueError:
        raise Refusal("bad_size", text=text[:20], limit=MAX_SIZE) from None
    if not 1 <= size <= MAX_SIZE:
        raise Refusal("bad_size", text=text[:20], limit=MAX_SIZE)
    return size


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC)


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


def fires(trigger: CronTrigger, start: datetime, end: datetime) -> Iterator[datetime]:
    """The fire times ``t`` with ``start <= t <= end`` in order, as naive UTC."""
    fire = trigger.get_next_fire_time(None, _aware(start))
    while fire is not None and _naive(fire) <= end:
        yield _naive(fire)
        fire = trigger.get_next_fire_time(fire, fire)


def latest_fire(trigger: CronTrigger, after: datetime | None, until: datetime) -> datetime | None:
    """The most recent fire time ``t`` with ``after < t <= until`` (naive UTC), or None."""
    for window in _WINDOWS:
        start = until - window
        reached = after is not None and start <= after
        if reached:
            assert after is not None
            start = after + _MICROSECOND
        found = None
        for fire in fires(trigger, start, until):
            found = fire
        if found is not None or reached:
            return found
    return None


def next_fire(trigger: CronTrigger, now: datetime) -> datetime | None:
    """The first fire time after ``now`` (naive UTC)."""
    fire = trigger.get_next_fire_time(None, _aware(now + _MICROSECOND))
    return None if fire is None else _naive(fire)


@dataclass(frozen=True, slots=True)
class Plan:
    """One ladder's posting plan as its club's log says it now. ``chat_id`` is the club's chat;
    posts go to ``channel`` when one is set."""

    club_id: int
    platform: str
    chat_id: str
    ladder: str
    cron: str
    timezone: str
    channel: str | None
    paused: bool
    size: int
    #: posts are due only after this time (the schedule set, resumed, or the ladder created)
    since: datetime | None
    #: the ladder rates problems: its post is a puzzle (the last one's solution, a new one)
    puzzles: bool = False
    #: the club spans several chats (issue 35): each gets the post, claimed for it alone
    linked: bool = False

    @property
    def key(self) -> tuple[int, str, str, str]:
        return (self.club_id, self.ladder, self.platform, self.chat_id)

    @property
    def claimed_as(self) -> str:
        """What the post is claimed under (``Repository.claim_post``'s ladder): the ladder,
        and in a club of several chats the chat too, so that each chat gets its post once."""
        return f"{self.ladder} {self.platform}:{self.chat_id}" if self.linked else self.ladder

    @property
    def target(self) -> str:
        """The chat the post goes into."""
        return self.channel or self.chat_id

    @property
    def trigger(self) -> CronTrigger:
        return cron_trigger(self.cron, self.timezone)


def timezone_of(ladder: Ladder, schedule_timezone: str | None,
                chat_timezone: str | None = None) -> str:
    """The zone a ladder's posts are timed and dated in: a chat's own (one that joined a club
    of several chats may set one for its posts, issue 35), else the schedule's, else the
    ladder's timezone setting, else UTC."""
    return chat_timezone or schedule_timezone or ladder.settings.timezone or DEFAULT_TIMEZONE


@dataclass(frozen=True, slots=True)
class LadderPlan:
    """What one ladder's plan says in every chat of its club (``timezone``: the schedule's,
    else the ladder's setting, else UTC; a chat's own zone comes first, :func:`chat_plans`)."""

    ladder: str
    cron: str
    timezone: str
    channel: str | None
    paused: bool
    size: int
    since: datetime | None
    puzzles: bool


@dataclass(frozen=True, slots=True)
class ClubPlans:
    """Everything a club's log says about its posts, whichever chat they go to: what the
    directory keeps of a club for the scheduler (:mod:`bot.service.directory`)."""

    ladders: tuple[LadderPlan, ...]
    #: the club spans several chats; its own chat (``platform:chat id``); the zones the chats
    #: that joined it set for themselves
    linked: bool = False
    home_chat: str | None = None
    zones: tuple[tuple[str, str], ...] = ()


def club_plans(state: ClubState) -> ClubPlans:
    """The club's ladders' plans (the default one for ladders without a schedule of their
    own), for :func:`chat_plans` to give each chat of the club."""
    ladders = []
    for ladder in state.ladders.values():
        schedule = state.schedule(ladder)
        ladders.append(LadderPlan(
            ladder.name, schedule.cron, timezone_of(ladder, schedule.timezone),
            schedule.channel, schedule.paused, schedule.size, schedule.since,
            ladder.settings.system == PUZZLE_SYSTEM))
    zones = tuple(sorted((chat, settings.timezone) for chat, settings
                         in state.chat_settings.items() if settings.timezone))
    return ClubPlans(tuple(ladders), bool(state.linked_chats), state.home_chat, zones)


def chat_plans(club_id: int, platform: str, chat_id: str, plans: ClubPlans) -> list[Plan]:
    """Every ladder's plan for the chat ``chat_id`` of the club. In a club of several chats
    every chat gets its ladders' posts, into itself (a schedule's channel is the club's own
    chat's); a puzzle ladder's post (which shows a solution and a new problem) is the club's
    own chat's alone, and a chat that joined the club times its posts in its own zone when it
    set one."""
    chat = f"{platform}:{chat_id}"
    own = not plans.linked or chat == plans.home_chat
    zone = dict(plans.zones).get(chat)
    return [Plan(club_id, platform, chat_id, lad.ladder, lad.cron, zone or lad.timezone,
                 lad.channel if own else None, lad.paused, lad.size, lad.since, lad.puzzles,
                 plans.linked)
            for lad in plans.ladders if own or not lad.puzzles]


def plans_of(club_id: int, platform: str, chat_id: str, state: ClubState) -> list[Plan]:
    """Every ladder's plan for the chat ``chat_id`` of the club (:func:`chat_plans`)."""
    return chat_plans(club_id, platform, chat_id, club_plans(state))


def due_post(plan: Plan, now: datetime) -> datetime | None:
    """Which post of the plan is due at ``now``: its scheduled time, the most recent one after
    ``plan.since`` and not after ``now``; None when paused or nothing is scheduled yet.

    Only the most recent time is ever due, so after downtime one post catches up and the older
    missed ones are skipped (issue 6: "not a burst of every missed week"). Whether that post was
    already made is for the store to say (``Repository.claim_post``), which is what makes a
    restart never post twice.
    """
    if plan.paused:
        return None
    latest = fires_around(plan.cron, plan.timezone, now)[0]
    # the most recent time after ``since`` is the most recent time, if it is after ``since``
    return latest if latest is not None and (plan.since is None or latest > plan.since) else None


@functools.lru_cache(maxsize=4096)
def fires_around(cron: str, timezone: str, now: datetime) -> tuple[datetime | None,
                                                                   datetime | None]:
    """The schedule's most recent fire time at or before ``now`` and its first after it: one
    cron computation for every ladder on the same schedule at one poll (10,000 clubs share a
    handful of schedules, issue 41)."""
    trigger = cron_trigger(cron, timezone)
    return latest_fire(trigger, None, now), next_fire(trigger, now)


def previous_post(plan: Plan, scheduled_for: datetime) -> datetime | None:
    """The scheduled time before ``scheduled_for``: what "since the last post" counts from."""
    return fires_around(plan.cron, plan.timezone, scheduled_for - _MICROSECOND)[0]
