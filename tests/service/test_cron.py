"""What a schedule's cron expression means, pinned where libraries disagree.

The fire times come from APScheduler 3's ``CronTrigger`` (the scheduler wakes up by the same
rule). Issue 14 tried croniter 7.0.0 instead: it passes tests/service/test_schedule_timing.py but
a comparison over random crons and times around daylight-saving changes found it differs, so
the meaning below stays APScheduler's and these cases would catch a swap:

- a single-value range ("1-1", "9-9") is that value; croniter 7.0.0 reads it as "*";
- a local time the clocks skip in spring fires shifted by the gap (02:30 -> 03:30 CEST, 02:03 ->
  02:33 on Lord Howe), where croniter fires at the first minute that exists (03:00, 02:30);
- a midnight skipped (America/Santiago) is no post that day; croniter posts at 01:00;
- day of month and day of week must both hold (croniter's default is either, as in Vixie cron).

Calendar facts: Europe/Berlin: summer time from 2024-03-31 02:00, back on 2024-10-27 03:00;
Australia/Lord_Howe: +10:30 -> +11 at 02:00 on 2023-10-01; America/Santiago: -4 -> -3 at
midnight on 2023-09-03; 2024-01-01, 2024-04-01 and 2024-07-01 are Mondays.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.service.schedules import cron_trigger, fires, latest_fire, next_fire

FAST = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])


def local(times: list[datetime], zone: str) -> list[str]:
    return [f"{t.replace(tzinfo=UTC).astimezone(ZoneInfo(zone)):%m-%d %H:%M%z}" for t in times]


def fired(cron: str, zone: str, start: datetime, end: datetime) -> list[str]:
    return local(list(fires(cron_trigger(cron, zone), start, end)), zone)


def test_a_single_value_range_is_that_value() -> None:
    assert fired("48 9-9 1-1 * *", "UTC", datetime(2024, 3, 30), datetime(2024, 4, 2)) == [
        "04-01 09:48+0000"]


def test_a_time_the_clocks_skip_fires_shifted_by_the_gap() -> None:
    assert fired("30 2 * * *", "Europe/Berlin", datetime(2024, 3, 29), datetime(2024, 4, 2)) == [
        "03-29 02:30+0100", "03-30 02:30+0100", "03-31 03:30+0200", "04-01 02:30+0200"]
    assert fired("3 2 * * *", "Australia/Lord_Howe", datetime(2023, 9, 29),
                 datetime(2023, 10, 2)) == [
        "09-30 02:03+1030", "10-01 02:33+1100", "10-02 02:03+1100"]


def test_a_skipped_midnight_is_no_post_that_day() -> None:
    assert fired("0 0 * * *", "America/Santiago", datetime(2023, 9, 1),
                 datetime(2023, 9, 4, 12)) == [
        "09-01 00:00-0400", "09-02 00:00-0400", "09-04 00:00-0300"]


def test_an_hour_the_clocks_repeat_fires_twice_an_hour_apart() -> None:
    assert fired("30 2 * * *", "Europe/Berlin", datetime(2024, 10, 26, 12),
                 datetime(2024, 10, 28, 12)) == [
        "10-27 02:30+0200", "10-27 02:30+0100", "10-28 02:30+0100"]


def test_day_of_month_and_day_of_week_must_both_hold() -> None:
    assert fired("0 9 1 * MON", "UTC", datetime(2024, 1, 1), datetime(2024, 12, 31)) == [
        "01-01 09:00+0000", "04-01 09:00+0000", "07-01 09:00+0000"]
    assert fired("0 9 1 * 1", "UTC", datetime(2024, 1, 1), datetime(2024, 12, 31)) == [
        "01-01 09:00+0000", "04-01 09:00+0000", "07-01 09:00+0000"]


# -- properties of today's arithmetic ----------------------------------------------------------

ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe"]
#: instants (naive UTC) where those zones change their clocks, and quiet days between
AROUND = [datetime(2024, 3, 31, 1), datetime(2024, 10, 27, 1), datetime(2024, 3, 10, 7),
          datetime(2024, 11, 3, 6), datetime(2024, 4, 6, 15), datetime(2024, 10, 5, 15, 30),
          datetime(2024, 6, 15, 12)]


def moments() -> st.SearchStrategy[datetime]:
    return st.builds(lambda at, seconds, micro: at + timedelta(seconds=seconds,
                                                               microseconds=micro),
                     st.sampled_from(AROUND), st.integers(-4 * 86400, 4 * 86400),
                     st.sampled_from([0, 0, 1, 500000, 999999]))


def weekday_part() -> st.SearchStrategy[str]:
    number = st.integers(0, 7)
    pair = st.tuples(number, number).map(sorted)
    return st.one_of(
        number.map(str),
        pair.map(lambda p: f"{p[0]}-{p[1]}"),
        st.integers(1, 7).map(lambda s: f"*/{s}"),
        st.tuples(pair, st.integers(1, 7)).map(lambda t: f"{t[0][0]}-{t[0][1]}/{t[1]}"),
        st.tuples(st.integers(0, 6), st.integers(1, 7)).map(lambda t: f"{t[0]}/{t[1]}"),
    )


def cron_days(field: str) -> set[int]:
    """The days (cron's numbering, Sunday = 0) a numeric day-of-week field names."""
    days: set[int] = set()
    for part in field.split(","):
        body, _, step = part.partition("/")
        if body == "*":
            low, high = 0, 6
        elif "-" in body:
            low, high = (int(n) for n in body.split("-"))
        else:
            low = int(body)
            high = 6 if step else low
        days.update(d % 7 for d in range(low, high + 1, int(step or 1)))
    return days


@FAST
@given(st.lists(weekday_part(), min_size=1, max_size=3).map(",".join), st.sampled_from(ZONES),
       moments())
def test_weekday_numbers_are_crons_sunday_first(field: str, zone: str, start: datetime) -> None:
    trigger = cron_trigger(f"0 12 * * {field}", zone)
    days = {int(f"{t.replace(tzinfo=UTC).astimezone(ZoneInfo(zone)):%w}")
            for t in fires(trigger, start, start + timedelta(days=14))}
    assert days == cron_days(field)


CRONS = st.builds(
    lambda minute, hours, weekdays: f"{minute} {hours} * * {weekdays}",
    st.integers(0, 59),
    st.sampled_from(["*", "2", "0-3", "*/5", "9", "1,2,3"]),
    st.sampled_from(["*", "MON", "1-5", "0", "sat,sun"]),
)


@FAST
@given(CRONS, st.sampled_from(ZONES), moments(), st.integers(0, 10 * 86400 * 10**6))
def test_the_latest_fire_is_the_last_fire_since(cron: str, zone: str, after: datetime,
                                                 micros: int) -> None:
    trigger = cron_trigger(cron, zone)
    until = after + timedelta(microseconds=micros)
    *_, last = [None, *fires(trigger, after + timedelta(microseconds=1), until)]
    assert latest_fire(trigger, after, until) == last


@FAST
@given(CRONS, st.sampled_from(ZONES), moments())
def test_the_next_fire_is_the_first_fire_after_now(cron: str, zone: str, now: datetime) -> None:
    trigger = cron_trigger(cron, zone)
    upcoming = fires(trigger, now + timedelta(microseconds=1), now + timedelta(days=8))
    assert next_fire(trigger, now) == next(itertools.chain(upcoming, [None]))
