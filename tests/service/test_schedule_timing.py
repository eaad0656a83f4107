"""Which scheduled post is due: the pure rule, on fixed times (no clock, no database).

Calendar facts the expectations rest on: 2024-03-04, 03-11, 03-18, 03-25, 04-01 are Mondays;
Europe/Berlin moves to summer time (UTC+2) on Sunday 2024-03-31 and back to UTC+1 on Sunday
2024-10-27; America/New_York moves to UTC-4 on 2024-03-10.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from bot.service.errors import Refusal
from bot.service.schedules import (
    Plan,
    check_channel,
    check_cron,
    check_timezone,
    cron_trigger,
    due_post,
    fires,
    latest_fire,
    next_fire,
    previous_post,
)

MONDAY_9 = "0 9 * * MON"


def plan(cron: str = MONDAY_9, timezone: str = "UTC", since: datetime | None = None,
         paused: bool = False) -> Plan:
    return Plan(1, "console", "local", "main", cron, timezone, None, paused, 10,
                since or datetime(2024, 3, 1, 19, 0))


def test_weekly_fires_every_monday_at_nine() -> None:
    trigger = cron_trigger(MONDAY_9, "UTC")
    assert list(fires(trigger, datetime(2024, 3, 1), datetime(2024, 3, 31))) == [
        datetime(2024, 3, d, 9, 0) for d in (4, 11, 18, 25)
    ]


def test_nothing_is_due_before_the_first_time_after_the_schedule_began() -> None:
    weekly = plan()  # set on Friday 1 March 19:00
    assert due_post(weekly, datetime(2024, 3, 4, 8, 59)) is None
    assert due_post(weekly, datetime(2024, 3, 4, 9, 0)) == datetime(2024, 3, 4, 9, 0)
    assert due_post(weekly, datetime(2024, 3, 10, 23, 0)) == datetime(2024, 3, 4, 9, 0)
    assert due_post(weekly, datetime(2024, 3, 11, 9, 0)) == datetime(2024, 3, 11, 9, 0)


def test_after_downtime_only_the_most_recent_missed_post_is_due() -> None:
    weekly = plan()
    # Down from before 4 March to Wednesday 27 March: four Mondays missed, one is due.
    assert due_post(weekly, datetime(2024, 3, 27, 12, 0)) == datetime(2024, 3, 25, 9, 0)


def test_a_schedule_set_after_this_weeks_time_waits_for_the_next() -> None:
    later = plan(since=datetime(2024, 3, 4, 10, 0))  # set one hour after Monday's time
    assert due_post(later, datetime(2024, 3, 6, 12, 0)) is None
    assert due_post(later, datetime(2024, 3, 11, 9, 0)) == datetime(2024, 3, 11, 9, 0)


def test_a_paused_schedule_has_nothing_due() -> None:
    assert due_post(plan(paused=True), datetime(2024, 3, 11, 9, 0)) is None


@pytest.mark.parametrize(("winter", "summer"), [
    # spring: 09:00 CET is 08:00 UTC, a week later 09:00 CEST is 07:00 UTC
    (datetime(2024, 3, 25, 8, 0), datetime(2024, 4, 1, 7, 0)),
])
def test_daylight_saving_keeps_the_local_time_in_spring(winter: datetime,
                                                        summer: datetime) -> None:
    berlin = plan(timezone="Europe/Berlin", since=datetime(2024, 3, 20))
    assert due_post(berlin, winter - timedelta(minutes=1)) is None
    assert due_post(berlin, winter) == winter
    assert due_post(berlin, summer - timedelta(minutes=1)) == winter
    assert due_post(berlin, summer) == summer


def test_daylight_saving_keeps_the_local_time_in_autumn() -> None:
    berlin = plan(timezone="Europe/Berlin", since=datetime(2024, 10, 15))
    trigger = berlin.trigger
    assert list(fires(trigger, datetime(2024, 10, 15), datetime(2024, 11, 5))) == [
        datetime(2024, 10, 21, 7, 0),  # 09:00 CEST
        datetime(2024, 10, 28, 8, 0),  # 09:00 CET, the day after the clocks went back
        datetime(2024, 11, 4, 8, 0),
    ]
    assert previous_post(berlin, datetime(2024, 10, 28, 8, 0)) == datetime(2024, 10, 21, 7, 0)


def test_each_club_posts_in_its_own_time_zone() -> None:
    since = datetime(2024, 3, 1)
    berlin, new_york = plan(timezone="Europe/Berlin", since=since), plan(
        timezone="America/New_York", since=since)
    at = datetime(2024, 3, 4, 8, 0)  # 09:00 in Berlin, 03:00 in New York
    assert due_post(berlin, at) == at
    assert due_post(new_york, at) is None
    assert due_post(new_york, datetime(2024, 3, 4, 14, 0)) == datetime(2024, 3, 4, 14, 0)
    # New York is on summer time from 10 March: 09:00 EDT is 13:00 UTC.
    assert next_fire(new_york.trigger, datetime(2024, 3, 5)) == datetime(2024, 3, 11, 13, 0)


def test_cron_weekday_numbers_count_from_sunday() -> None:
    # APScheduler 3 counts weekdays from Monday = 0; a crontab's 1 is Monday, 0 and 7 Sunday.
    friday = datetime(2024, 3, 1)
    assert next_fire(cron_trigger("0 9 * * 1", "UTC"), friday) == datetime(2024, 3, 4, 9, 0)
    assert next_fire(cron_trigger("0 9 * * 0", "UTC"), friday) == datetime(2024, 3, 3, 9, 0)
    assert next_fire(cron_trigger("0 9 * * 7", "UTC"), friday) == datetime(2024, 3, 3, 9, 0)
    weekdays = cron_trigger("0 18 * * 1-5", "UTC")
    assert [t.day for t in fires(weekdays, friday, datetime(2024, 3, 9))] == [1, 4, 5, 6, 7, 8]


def test_rare_schedules_are_found_far_back() -> None:
    leap_day = cron_trigger("0 12 29 2 *", "UTC")
    assert latest_fire(leap_day, None, datetime(2027, 6, 1)) == datetime(2024, 2, 29, 12, 0)
    monthly = cron_trigger("30 7 1 * *", "UTC")
    assert latest_fire(monthly, None, datetime(2024, 3, 20)) == datetime(2024, 3, 1, 7, 30)


@pytest.mark.parametrize(("cron", "key"), [
    ("0 9 * *", "bad_cron"),
    ("61 9 * * MON", "bad_cron"),
    ("0 9 * * 8", "bad_cron"),
    ("0 9 31 2 *", "cron_never_fires"),
    ("*/5 * * * *", "cron_too_often"),
])
def test_bad_schedules_are_refused(cron: str, key: str) -> None:
    with pytest.raises(Refusal) as refused:
        check_cron(cron, "UTC", datetime(2024, 3, 1))
    assert refused.value.key == key


def test_zones_and_channels_are_checked() -> None:
    assert check_timezone(" Europe/Berlin ") == "Europe/Berlin"
    for bad in ("Mars/Olympus", "", "../etc/passwd"):
        with pytest.raises(Refusal) as refused:
            check_timezone(bad)
        assert refused.value.key == "bad_timezone"
    assert check_channel("-1001234") == "-1001234"
    assert check_channel("<#987654321>") == "987654321"
    assert check_channel("@club_news") == "@club_news"
    assert check_channel("here") is None
    with pytest.raises(Refusal):
        check_channel("general chat")
