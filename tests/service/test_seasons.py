"""Seasons' boundaries in club time (issue 38): 00:00 on the first day of a month or quarter."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.service.seasons import SEASON_NAME, _boundaries

BERLIN = ZoneInfo("Europe/Berlin")
UTC = ZoneInfo("UTC")


@pytest.mark.parametrize(("schedule", "zone", "now", "last", "following"), [
    # 00:00 in Berlin is 23:00 UTC the day before in winter, 22:00 in summer
    ("monthly", BERLIN, datetime(2026, 11, 20, 18), datetime(2026, 10, 31, 23),
     datetime(2026, 11, 30, 23)),
    ("monthly", BERLIN, datetime(2026, 11, 30, 23), datetime(2026, 11, 30, 23),
     datetime(2026, 12, 31, 23)),
    ("monthly", BERLIN, datetime(2026, 11, 30, 22, 59), datetime(2026, 10, 31, 23),
     datetime(2026, 11, 30, 23)),
    ("monthly", UTC, datetime(2026, 12, 31, 12), datetime(2026, 12, 1), datetime(2027, 1, 1)),
    ("quarterly", UTC, datetime(2026, 11, 20), datetime(2026, 10, 1), datetime(2027, 1, 1)),
    ("quarterly", BERLIN, datetime(2026, 5, 1), datetime(2026, 3, 31, 22),
     datetime(2026, 6, 30, 22)),
    ("quarterly", UTC, datetime(2026, 1, 1), datetime(2026, 1, 1), datetime(2026, 4, 1)),
])
def test_boundaries_are_midnight_club_time(schedule: str, zone: ZoneInfo, now: datetime,
                                           last: datetime, following: datetime) -> None:
    assert _boundaries(schedule, zone, now) == (last, following)


def test_a_season_name_is_one_word() -> None:
    assert SEASON_NAME.fullmatch("Autumn-2026")
    assert SEASON_NAME.fullmatch("Осень")
    assert not SEASON_NAME.fullmatch("a=b")
    assert not SEASON_NAME.fullmatch("x" * 33)
