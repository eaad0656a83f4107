"""When each scheduled post is due: the posts of one platform scheduled for the same instant are
spread over the post window (``CLUBRATING_POST_WINDOW``, issue 41), so that 10,000 clubs that
all post on Sunday at 09:00 do not ask the platform for 10,000 sends at once.

The i-th of n clubs (ranked by club id) posts at ``scheduled + window * i / n``: one club
alone posts at its time, every ladder of it included (a self-hosted club with two ladders
posting at 09:00 gets both at 09:00, not the second an hour later), many are spread evenly.
A window too short for the n posts at the posts' share of the platform's rate
(:data:`POST_RATES`) is stretched to the shortest that fits.
Pure functions of their arguments (stdlib only: :mod:`bot.settings` reads the window with them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import timedelta

#: ``CLUBRATING_POST_WINDOW``'s default
DEFAULT_POST_WINDOW = timedelta(hours=2)

#: the scheduled posts' share of each platform's send rate, per second: half of what the
#: platform allows a bot token (Telegram about 30 messages a second, Discord 50 requests a
#: second), so that answers to members keep the other half while the posts go out
POST_RATES: Mapping[str, float] = {"telegram": 15.0, "discord": 25.0}

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*([smh]?)$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600}


def parse_window(text: str) -> timedelta:
    """A duration as ``CLUBRATING_POST_WINDOW`` takes it: seconds (``7200``), or a number with
    ``s``, ``m`` or ``h`` (``120s``, ``30m``, ``2h``); ``0`` spreads nothing. ValueError
    otherwise."""
    found = _DURATION.match(text.strip().lower())
    if found is None:
        raise ValueError(text)
    return timedelta(seconds=float(found[1]) * _UNITS[found[2]])


def window_needed(posts: int, platform: str) -> timedelta:
    """The shortest window ``posts`` posts fit in at the posts' share of the platform's rate
    (zero for a platform without a limit here: the console)."""
    rate = POST_RATES.get(platform)
    return timedelta(0) if rate is None else timedelta(seconds=posts / rate)


def window_used(window: timedelta, posts: int, platform: str) -> timedelta:
    """The window ``posts`` posts of ``platform`` scheduled for one instant are spread over:
    ``window``, stretched to :func:`window_needed` when it is too short for them. A window of
    zero is the operator's choice of no spread at all, and is kept."""
    if window <= timedelta(0):
        return timedelta(0)
    return max(window, window_needed(posts, platform))


def offsets(keys: Iterable[tuple[int, str]], window: timedelta) -> dict[tuple[int, str],
                                                                        timedelta]:
    """Each post's delay after its scheduled time, for the posts (club id, ladder key) of one
    instant: the i-th of the n clubs' posts at ``window * i / n``."""
    posts = set(keys)
    clubs = {club: rank for rank, club in enumerate(sorted({club for club, _ in posts}))}
    return {key: window * clubs[key[0]] / len(clubs) for key in posts}
