"""The directory: what other clubs' lookups need of a club, as rows kept in the same
transaction as its events (issue 41), so that no lookup across clubs folds every club.

A club's rows are a pure function of its folded state and its id (:func:`rows`); every write
replaces the rows that changed (:func:`index`, from ``Session._commit``). Each row is
``(kind, key) -> value`` in table ``directory`` (migration 0008), found by kind and key:

- ``format``: ``""`` -> :data:`FORMAT`, the version of this derivation the rows were made by (a
  club without it, written by an earlier version, is filled at start: :func:`fill`);
- ``moved``: the club the chat of this log joined -> ``""``; such a club has no other row (its
  chat's commands, members and posts are the other club's);
- ``member``: a platform user id -> whether they have a puzzle attempt open (``1``/``0``),
  followed by the language they chose (if any);
- ``puzzles``: ``""`` -> ``1`` when the club has a puzzle ladder;
- ``plans``: ``""`` -> the ladders' posting plans (:class:`schedules.ClubPlans`, JSON);
- ``slug``: a web address a ladder holds (public, or chosen) -> the ladder; ``public``: the
  address of a public ladder -> the ladder;
- ``code``: the hash of a chat link code the club issued -> ``""``;
- ``board``: a platform -> how many live boards the club keeps in its chats;
- ``due``: the earliest time (ISO 8601, naive UTC, to the microsecond) something falls due
  in the club by itself (an auto-confirmation, a puzzle's time-out, a retirement for
  inactivity) -> ``""``; none when nothing will;
- ``season``: a ladder whose seasons close by themselves -> its
  :class:`seasons.SeasonCalendar` (JSON).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable, Mapping
from datetime import datetime

from bot.storage.repository import Repository, Transaction

from . import dues, public, schedules, view
from .ladder_settings import PUZZLE_SYSTEM
from .state import ClubState

log = logging.getLogger(__name__)

#: the derivation's version: raise it whenever :func:`rows` changes, and every club's rows are
#: derived again at the next start
FORMAT = "1"
FORMAT_KIND, MOVED, MEMBER, PUZZLES, PLANS = "format", "moved", "member", "puzzles", "plans"
SLUG, PUBLIC, CODE, BOARD, DUE, SEASON = "slug", "public", "code", "board", "due", "season"
#: rows decoded between two yields to the event loop
ROWS_PER_YIELD = 500
#: a log this long is folded, and a club with an inactivity rule on a ladder of this many rating
#: inputs has its rows derived, in a worker thread (the rule reads the ratings: a replay)
OFF_LOOP_SIZE = 2000


def moment(when: datetime) -> str:
    """A time as a ``due`` key: one fixed width, so that the keys' order is the times'."""
    return when.replace(tzinfo=None).isoformat(timespec="microseconds")


def rows(club: view.Club) -> dict[tuple[str, str], str]:
    """The club's directory rows, as its folded log says now."""
    state = club.state
    found: dict[tuple[str, str], str] = {(FORMAT_KIND, ""): FORMAT}
    if state.moved_to is not None:
        found[(MOVED, str(state.moved_to))] = ""
        return found
    puzzle_ladders = [lad for lad in state.ladders.values()
                      if lad.settings.system == PUZZLE_SYSTEM]
    attempting = {member for lad in puzzle_ladders for member in lad.open_attempts}
    for user in state.by_user:
        member = state.member_of_user(user)
        assert member is not None
        found[(MEMBER, user)] = ("1" if member.id in attempting else "0") + (
            member.language or "")
    if puzzle_ladders:
        found[(PUZZLES, "")] = "1"
    if state.ladders:
        found[(PLANS, "")] = encode_plans(schedules.club_plans(state))
    for name, lad in state.ladders.items():
        for slug in public.taken_slugs([(name, lad.settings)]):
            found[(SLUG, slug)] = name
        if lad.settings.public:
            found[(PUBLIC, public.slug_of(name, lad.settings))] = name
    for digest, code in state.link_codes.items():
        if code.kind == "chat":
            found[(CODE, digest)] = ""
    for board in state.live_boards.values():
        key = (BOARD, board.platform)
        found[key] = str(int(found.get(key, "0")) + 1)
    due = dues.earliest(club)
    if due is not None:
        found[(DUE, moment(due))] = ""
    from .seasons import season_calendar  # (a use case module: it imports the session)

    for name, lad in state.ladders.items():
        calendar = season_calendar(lad)
        if calendar is not None:
            found[(SEASON, name)] = json.dumps([
                calendar.schedule, calendar.zone, _time(calendar.created_at),
                _time(calendar.closed_at)])
    return found


def _time(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def _parse(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def encode_plans(plans: schedules.ClubPlans) -> str:
    return json.dumps({
        "ladders": [[lad.ladder, lad.cron, lad.timezone, lad.channel, lad.paused, lad.size,
                     _time(lad.since), lad.puzzles] for lad in plans.ladders],
        "linked": plans.linked, "home": plans.home_chat, "zones": plans.zones,
    }, ensure_ascii=False, separators=(",", ":"))


def decode_plans(text: str) -> schedules.ClubPlans:
    data = json.loads(text)
    return schedules.ClubPlans(
        tuple(schedules.LadderPlan(name, cron, zone, channel, paused, size, _parse(since),
                                   puzzles)
              for name, cron, zone, channel, paused, size, since, puzzles in data["ladders"]),
        data["linked"], data["home"], tuple((chat, zone) for chat, zone in data["zones"]))


def season_calendar(value: str) -> tuple[str, str, datetime | None, datetime | None]:
    """A ``season`` row's value: (schedule, zone, created at, latest close)."""
    schedule, zone, created, closed = json.loads(value)
    return schedule, zone, _parse(created), _parse(closed)


# -- keeping it ---------------------------------------------------------------------------------


async def index(tx: Transaction, club: view.Club) -> None:
    """Write the club's rows that changed, in the transaction that appends its events (after
    they are folded into ``club``). The rows this process wrote last are the baseline while
    nobody else wrote in between (else the stored rows are read)."""
    found = await _derived(club)
    known = club.indexed
    before = known[1] if known is not None and known[0] == tx.read_at else None
    await tx.index(found, before)
    club.indexed = (club.state.last_id, found)


async def _derived(club: view.Club) -> dict[tuple[str, str], str]:
    """:func:`rows`, in a worker thread when an inactivity rule must read the ratings of a
    long ladder (a replay; the caller holds the club's lock, which keeps its state still
    meanwhile). The rest is quick: 3 ms for 10,000 members (docs/benchmarks.md)."""
    if any(lad.settings.inactivity_days is not None and len(lad.inputs) >= OFF_LOOP_SIZE
           for lad in club.state.ladders.values()):
        return await asyncio.to_thread(rows, club)
    return rows(club)


async def fill(repository: Repository) -> int:
    """Derive the rows of every club that has none, or rows of an older :data:`FORMAT` (a
    database an earlier version wrote), one club at a time, each under its write lock, read
    from its log and let go (nothing is kept in memory). How many clubs were filled."""
    current = {club for club, _, value in await repository.directory(FORMAT_KIND)
               if value == FORMAT}
    missing = sorted({club for club, _, _ in await repository.clubs()} - current)
    for club_id in missing:
        async with repository.exclusive(club_id):
            events = await repository.events(club_id)
            state = (await asyncio.to_thread(ClubState.build, events)
                     if len(events) >= OFF_LOOP_SIZE else ClubState.build(events))
            club = view.Club(club_id, state)
            async with repository.transaction(club_id, state.last_id) as tx:
                await tx.index(await _derived(club), None)
    if missing:
        log.info("directory: %d clubs indexed (format %s)", len(missing), FORMAT)
    return len(missing)


# -- reading it ---------------------------------------------------------------------------------


async def routes(repository: Repository) -> dict[int, list[tuple[str, str]]]:
    """Every club's chats (platform, chat id), a chat that joined a club with that club (its
    own club's ``moved`` row, followed along a short chain), in the order of the chats'
    clubs."""
    moved = {club: int(to) for club, to, _ in await repository.directory(MOVED)}
    found: dict[int, list[tuple[str, str]]] = {}
    for club_id, platform, chat_id in await repository.clubs():
        found.setdefault(_destination(club_id, moved), []).append((platform, chat_id))
    return found


def _destination(club_id: int, moved: Mapping[int, int]) -> int:
    for _ in range(8):  # a club that joined another joins its club (a short chain)
        if club_id not in moved:
            break
        club_id = moved[club_id]
    return club_id


async def chats_of(repository: Repository, clubs: Iterable[int], platform: str
                   ) -> list[tuple[int, str]]:
    """The chats of ``platform`` of ``clubs`` (none of which moved) as (club, chat id): each
    club's own, and those of the clubs whose chats joined it; in the order of the chats' own
    clubs."""
    found = []
    for club_id in clubs:
        owners, frontier = [club_id], [club_id]
        for _ in range(8):  # a club that joined another joins its club (a short chain)
            frontier = [club for each in frontier
                        for club, _, _ in await repository.directory(MOVED, str(each))]
            if not frontier:
                break
            owners += frontier
        found += [(owner, club_id, chat) for owner, chat_platform, chat
                  in await repository.club_chats(owners) if chat_platform == platform]
    return [(club_id, chat) for _, club_id, chat in sorted(found)]


async def members(repository: Repository, user: str) -> list[tuple[int, bool, str | None]]:
    """The clubs where ``user`` is a member, by id: (club, an attempt open, chosen
    language)."""
    return [(club, value[:1] == "1", value[1:] or None)
            for club, _, value in await repository.directory(MEMBER, user)]


async def plans(repository: Repository, decoded: dict[int, tuple[str, schedules.ClubPlans]]
                ) -> list[schedules.Plan]:
    """Every ladder's posting plan in every chat of every club. ``decoded``: each club's
    plans as the last call read them, kept by the caller (a poll of 10,000 clubs decodes only
    what changed), yielding to the event loop between batches."""
    chats = await routes(repository)
    found = []
    for number, (club, _, value) in enumerate(await repository.directory(PLANS), 1):
        if number % ROWS_PER_YIELD == 0:
            await asyncio.sleep(0)
        known = decoded.get(club)
        if known is None or known[0] != value:
            known = decoded[club] = (value, decode_plans(value))
        for platform, chat_id in chats.get(club, []):
            found += schedules.chat_plans(club, platform, chat_id, known[1])
    return found
