"""Seasons (issue 38): a ladder's history cut by boundaries, each season's table from the replay.

A season's close is one event (:class:`~bot.service.events.SeasonClosed`), folded as a rating
input of its ladder (``("season", index)``): season N is every rated step between boundary N-1
and boundary N, and the season that runs is everything after the last boundary. Nothing else is
stored: a season's table (the rating at the close, the change over the season, the season's
peak and games of each member) is replayed from the ladder's steps, from the stored checkpoint
nearest before the season's start (:class:`~bot.service.ratings.LadderRatings`), and kept per
ladder and season until the ladder's steps are derived again (a correction, a merge, another
system), so that an archived table is the replay's, whatever was played since.

A boundary whose reset is not ``none`` is a :class:`~ratings_core.model.SeasonStart` step of
the replay (:mod:`ratings_core.replay`): the next season starts from the reset ratings.

Choices, where issue 38 decides none: a member's rating at the season's start is the one after
the previous boundary's reset, or for one who joined during the season their starting rating
(the one the replay gave them, with their share of the starting pool); the season's peak is the
highest of that start and the ratings after each of their games in it; the change is the shown
rating at the close less the shown rating at the start (whole points, as ratings are shown);
only members with ``season_min_games`` games in the season are in its table, its champion (the
highest rating at the close) and its most improved (the largest change).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from weakref import WeakKeyDictionary
from zoneinfo import ZoneInfo

from ratings_core.model import (
    games_of,
    players_of,
)
from ratings_core.replay import Engine
from ratings_core.table import Table

from . import events as ev
from . import view
from .errors import Refusal
from .identity import Caller, Who
from .ladder_settings import SEASON_RESETS
from .ratings import LadderRatings, member_of_key, player_key
from .results import Notice, Param, SeasonLine, SeasonList, SeasonSummary, SeasonTable
from .session import Decision
from .state import GameRecord, Ladder
from .view import Club

#: a season's name: one word of at most 32 characters, no ``=`` (it would read as an option)
SEASON_NAME = re.compile(r"^[^\s=]{1,32}$")
#: the word that closes a season at once (``/season close NAME confirm``)
CONFIRM = "confirm"
#: a confirm button's ref: the ladder's place among the club's ladders, times this, plus the
#: season's number
LADDERS_APART = 10_000


@dataclass(slots=True)
class SeasonData:
    """What a season's table is made of, by engine key: ratings at the start and at the close,
    the season's peak and games of each member who played, and the season's games."""

    start: dict[str, float] = field(default_factory=dict)
    close: dict[str, float] = field(default_factory=dict)
    provisional: dict[str, bool] = field(default_factory=dict)
    peak: dict[str, float] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    total: int = 0
    #: when the season's first game was played (None: it has none)
    first: datetime | None = None


#: the closed seasons' data, per ladder's ratings: made for the steps as they were derived
#: (their boundaries, the ladder's generation), dropped when those change
_CACHE: WeakKeyDictionary[LadderRatings, tuple[object, int, dict[int, SeasonData]]] = (
    WeakKeyDictionary())


# -- the replay of a season --------------------------------------------------------------------


def _span(ladder: Ladder, ratings: LadderRatings, index: int) -> tuple[int, int]:
    """The steps of season ``index`` (from 0; ``len(ladder.seasons)``: the one that runs):
    from after the previous boundary (and its reset step) to its own boundary."""
    boundaries = ratings.boundaries
    if index == 0:
        start = 0
    else:
        start = boundaries[index - 1]
        if ladder.seasons[index - 1].reset != "none":
            start += 1  # the reset step itself belongs to no season
    end = boundaries[index] if index < len(ladder.seasons) else len(ratings.steps)
    return start, end


def season_data(club: Club, ladder: Ladder, index: int) -> SeasonData:
    """Season ``index``'s data (the season that runs when ``index`` is the number of closed
    seasons): a closed one's kept until the ladder's steps are derived again."""
    view.ratings(club, ladder)
    ratings = club.ratings[ladder.name]
    start, end = _span(ladder, ratings, index)
    if index == len(ladder.seasons):  # the season that runs changes with every game
        return _replayed(club, ratings, start, end)
    key = ratings.boundaries
    cached = _CACHE.get(ratings)
    if cached is None or cached[0] is not key or cached[1] != ladder.generation:
        cached = (key, ladder.generation, {})
        _CACHE[ratings] = cached
    found = cached[2].get(index)
    if found is None:
        found = cached[2][index] = _replayed(club, ratings, start, end)
    return found


def _replayed(club: Club, ratings: LadderRatings, start: int, end: int) -> SeasonData:
    """Replay steps ``start`` to ``end`` from the last checkpoint before them, noting each
    member's rating at the start (or when they joined), after each of their games, and at the
    end."""
    system = ratings.system
    assert system is not None
    base = max((c for c in ratings.checkpoints if c.position <= start),
               key=lambda c: c.position)
    births = {player_key(m.id): m.birth_date for m in club.state.members.values()
              if m.birth_date is not None}
    engine = Engine(system, births)
    engine.table = Table.restore(base.table)
    engine.pool = base.pool
    steps = ratings.steps
    position = engine.feed(steps[base.position:start], base.position, None, [])
    table = engine.table
    data = SeasonData()
    began = dict(zip(table.names, table.rating, strict=True))
    for step in steps[start:end]:
        for name, rating in engine.starting_ratings(step).items():
            began.setdefault(name, rating)
        position = engine.feed((step,), position, None, [])
        for game in games_of(step):
            data.total += 1
            if data.first is None or game.played_at < data.first:
                data.first = game.played_at
            for name in players_of(game):
                data.games[name] = data.games.get(name, 0) + 1
                rating = table.rating[table.index[name]]
                start_rating = began.get(name, rating)
                data.start.setdefault(name, start_rating)
                data.peak[name] = max(data.peak.get(name, start_rating), rating)
    for name in data.games:
        state = table.at(table.index[name])
        data.close[name] = state.rating
        data.provisional[name] = system.is_provisional(state)
    return data


# -- what people see ---------------------------------------------------------------------------


def _day(ladder: Ladder, when: datetime, before: bool = False) -> str:
    """An instant (naive UTC) as the date in the ladder's zone; ``before``: the day a season
    ends on, which is the day before when it ends at midnight (an automatic close)."""
    local = when.replace(tzinfo=UTC).astimezone(ZoneInfo(view.zone_of(ladder)))
    if before:
        local -= timedelta(microseconds=1)
    return local.date().isoformat()


def _dates(ladder: Ladder, index: int, data: SeasonData, now: datetime) -> tuple[str, str]:
    """A season's first and last days: from the previous boundary (the first season: from its
    first game), to its own boundary (the season that runs: today)."""
    if index > 0:
        start = _day(ladder, ladder.seasons[index - 1].closed_at)
    else:
        start = _day(ladder, data.first or ladder.created_at or now)
    end = (_day(ladder, ladder.seasons[index].closed_at, before=True)
           if index < len(ladder.seasons) else _day(ladder, now))
    return start, end


def _name(club: Club, key: str) -> str:
    return club.state.member(member_of_key(key)).name


def _eligible(ladder: Ladder, data: SeasonData) -> list[str]:
    """The members in the season's table (``season_min_games`` games in it), best first."""
    least = ladder.settings.season_min_games
    return sorted((k for k, n in data.games.items() if n >= least),
                  key=lambda k: (-data.close[k], k))


def _change(data: SeasonData, key: str) -> int:
    """The change over the season as people read it: the shown ratings' difference."""
    return view.whole_points(data.close[key]) - view.whole_points(data.start[key])


def table(club: Club, ladder: Ladder, index: int, state: str, now: datetime,
          given: str | None = None) -> SeasonTable:
    """Season ``index``'s table (0-based; the number of closed seasons: the one that runs,
    named ``given`` if a moderator named it)."""
    data = season_data(club, ladder, index)
    keys = _eligible(ladder, data)
    rows = [SeasonLine(place, _name(club, k), data.close[k], _change(data, k), data.peak[k],
                       data.games[k], data.provisional[k])
            for place, k in enumerate(keys, start=1)]
    best = max(keys, key=lambda k: (_change(data, k), -keys.index(k)), default=None)
    improved = best if best is not None and _change(data, best) > 0 else None
    start, end = _dates(ladder, index, data, now)
    return SeasonTable(ladder.name, index + 1, season_name(ladder, index, given), state, start,
                       end, data.total, ladder.settings.season_min_games, rows,
                       None if improved is None else _name(club, improved),
                       0 if improved is None else _change(data, improved), given is not None)


def season_name(ladder: Ladder, index: int, given: str | None = None) -> str:
    """A season's name: the one its close gave it, else ``S1``, ``S2``, ..."""
    if index < len(ladder.seasons):
        return ladder.seasons[index].name
    return given or f"S{index + 1}"


def listing(club: Club, ladder_name: str | None, now: datetime) -> SeasonList:
    """``/season list``: a line per closed season."""
    lad = view.ladder(club, ladder_name)
    found = []
    for index, season in enumerate(lad.seasons):
        data = season_data(club, lad, index)
        keys = _eligible(lad, data)
        start, end = _dates(lad, index, data, now)
        found.append(SeasonSummary(index + 1, season.name, start, end, data.total,
                                   len(data.games), _name(club, keys[0]) if keys else None))
    return SeasonList(lad.name, found)


def number(text: str, ladder: Ladder) -> int:
    """The 0-based index of the closed season ``season=N`` names, or a refusal."""
    if not (text.isascii() and text.isdigit() and len(text) <= 6):
        raise Refusal("season_bad_number", text=text[:20])
    index = int(text) - 1
    if not 0 <= index < len(ladder.seasons):
        if not ladder.seasons:
            raise Refusal("season_none_closed", ladder=ladder.name)
        raise Refusal("season_unknown", number=int(text), seasons=len(ladder.seasons),
                      ladder=ladder.name)
    return index


def archived(club: Club, now: datetime, ladder_name: str | None, season: str) -> SeasonTable:
    """``/top season=N``: a closed season's table."""
    lad = view.ladder(club, ladder_name)
    return table(club, lad, number(season, lad), "archived", now)


def member_line(club: Club, ladder_name: str | None, who: Who | None, caller: Caller,
                season: str) -> Notice:
    """``/rating [@member] season=N``: the member's line of a closed season."""
    lad = view.ladder(club, ladder_name)
    index = number(season, lad)
    member = (view.member(club, who) if who is not None
              else club.state.member_of_user(caller.user))
    if member is None:
        raise Refusal("not_registered")
    data = season_data(club, lad, index)
    key = player_key(member.id)
    params: dict[str, Param] = {"name": member.name, "season": season_name(lad, index),
                                "ladder": lad.name}
    if key not in data.games:
        return Notice("season_member_none", params)
    keys = _eligible(lad, data)
    place = keys.index(key) + 1 if key in keys else None
    values: dict[str, Param] = {
        **params, "rating": f"{data.close[key]:.0f}", "change": f"{_change(data, key):+d}",
        "peak": f"{data.peak[key]:.0f}", "games": data.games[key]}
    if place is None:
        return Notice("season_member_unplaced", {**values, "least": lad.settings.season_min_games})
    return Notice("season_member", {**values, "place": place})


# -- closing -----------------------------------------------------------------------------------


def _checked_name(ladder: Ladder, given: str | None) -> str:
    index = len(ladder.seasons)
    name = season_name(ladder, index, given)
    if not SEASON_NAME.fullmatch(name):
        raise Refusal("season_bad_name", text=name[:40])
    if any(s.name.casefold() == name.casefold() for s in ladder.seasons):
        raise Refusal("season_name_taken", name=name, ladder=ladder.name)
    return name


def _closable(club: Club, ladder: Ladder) -> SeasonData:
    """The running season's data; refused when it has no game (issue 38, errata)."""
    data = season_data(club, ladder, len(ladder.seasons))
    if data.total == 0:
        raise Refusal("season_no_games", ladder=ladder.name)
    return data


def close_preview(club: Club, now: datetime, caller: Caller, given: str | None,
                  ladder_name: str | None) -> SeasonTable:
    """``/season close [NAME]``: the table the close would archive, to confirm. Nothing is
    stored: the button, or ``/season close NAME confirm``, closes whenever it comes."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder_name)
    name = _checked_name(lad, given)
    _closable(club, lad)
    shown = table(club, lad, len(lad.seasons), "preview", now, None if given is None else name)
    return dataclasses.replace(shown, ref=confirm_ref(club, lad, shown.number))


def close(club: Club, now: datetime, caller: Caller, given: str | None,
          ladder_name: str | None, expected: int | None = None,
          boundary: datetime | None = None) -> Decision[SeasonTable]:
    """Close the ladder's running season: a boundary with the reset its settings say now.
    ``expected``: the season's number a confirm button named (refused when it is closed
    already); ``boundary``: the scheduled boundary of an automatic close."""
    automatic = boundary is not None
    if not automatic:
        view.require_moderator(club, caller)
    lad = view.ladder(club, ladder_name)
    index = len(lad.seasons)
    if expected is not None and expected != index + 1:
        raise Refusal("season_closed_already", number=expected, ladder=lad.name)
    name = _checked_name(lad, given)
    _closable(club, lad)
    settings = lad.settings
    reset = settings.season_reset if settings.season_reset in SEASON_RESETS else "none"
    event = ev.new_event(ev.SeasonClosed(
        lad.name, name, reset, float(settings.season_soft_factor), automatic,
        None if boundary is None else boundary.isoformat()), caller.user, now)

    def answer() -> SeasonTable:
        return table(club, view.ladder(club, lad.name), index, "closed", now)

    return [event], answer


def posted(shown: SeasonTable) -> Notice:
    """A closed season's table as an announcement, for where the ladder's posts go."""
    rows = tuple(Notice("season_post_row", {
        "place": row.place, "name": row.name,
        "rating": f"{row.rating:.0f}" + ("?" if row.provisional else ""),  # as boards mark it
        "change": f"{row.change:+d}"}) for row in shown.rows[:10])
    return Notice("season_post", {"ladder": shown.ladder, "season": shown.name,
                                  "games": shown.games, "rows": rows})


def confirm_ref(club: Club, ladder: Ladder, season: int) -> int:
    """The ref of a confirm button: the ladder and the season's number."""
    return list(club.state.ladders).index(ladder.name) * LADDERS_APART + season


def ladder_of_ref(club: Club, ref: int) -> tuple[str, int]:
    """The ladder and season number a confirm button's ref names (refused: no such ladder)."""
    place, season = divmod(ref, LADDERS_APART)
    names = list(club.state.ladders)
    if not 0 <= place < len(names):
        raise Refusal("season_closed_already", number=season, ladder="?")
    return names[place], season


# -- corrections inside a closed season ---------------------------------------------------------


def closed_season_of(ladder: Ladder, record: GameRecord) -> int | None:
    """The closed season (0-based) a game is rated in, or None: the season that runs, or a game
    not rated (yet)."""
    if not ladder.seasons:
        return None
    key: tuple[str, int | str] = ("game", record.id)
    if key not in ladder.inputs and record.event is not None:
        key = ("close", record.event.casefold())
    try:
        at = ladder.inputs.index(key)
    except ValueError:
        return None
    before = sum(1 for kind, _ in ladder.inputs[:at] if kind == "season")
    return before if before < len(ladder.seasons) else None


def forced_check(club: Club, record: GameRecord, force: bool) -> int | None:
    """Refuse a correction of a game inside a closed season unless ``force``; the season it
    changes (0-based), if any."""
    ladder = club.state.ladders.get(record.ladder)
    if ladder is None:
        return None
    index = closed_season_of(ladder, record)
    if index is not None and not force:
        raise Refusal("season_correction_closed", game=record.number or record.id,
                      season=ladder.seasons[index].name)
    return index


def changed_by(club: Club, number: int) -> Notice | None:
    """What a forced correction of game #``number``, just applied, posts: the closed season's
    table changed (None: the game is in no closed season)."""
    record = view.game(club, number)
    ladder = club.state.ladders.get(record.ladder)
    index = None if ladder is None else closed_season_of(ladder, record)
    if ladder is None or index is None:
        return None
    return Notice("season_table_changed", {"ladder": ladder.name,
                                           "season": ladder.seasons[index].name,
                                           "number": index + 1})


# -- closing by schedule (season_schedule monthly|quarterly) -----------------------------------


#: the months a season of each schedule starts in
_STARTS = {"monthly": tuple(range(1, 13)), "quarterly": (1, 4, 7, 10)}


def _boundaries(schedule: str, zone: ZoneInfo, now: datetime) -> tuple[datetime, datetime]:
    """The latest boundary at or before ``now`` and the next one (naive UTC): 00:00 in
    ``zone`` on the first day of a month (``monthly``) or of a quarter (``quarterly``)."""
    local = now.replace(tzinfo=UTC).astimezone(zone)
    starts = _STARTS[schedule]
    month = max(m for m in starts if m <= local.month)
    last = datetime(local.year, month, 1, tzinfo=zone)
    later = [m for m in starts if m > month]
    following = (datetime(local.year, later[0], 1, tzinfo=zone) if later
                 else datetime(local.year + 1, starts[0], 1, tzinfo=zone))

    def utc(when: datetime) -> datetime:
        return when.astimezone(UTC).replace(tzinfo=None)

    return utc(last), utc(following)


@dataclass(frozen=True, slots=True)
class SeasonCalendar:
    """What decides when a ladder's season closes by itself (``season_schedule``): kept in
    the directory (:mod:`bot.service.directory`), so the scheduler knows without reading the
    club's log when there is something to do."""

    schedule: str
    zone: str
    #: when the ladder was created, and when its latest season closed
    created_at: datetime | None
    closed_at: datetime | None

    def due(self, now: datetime) -> tuple[datetime | None, datetime | None]:
        """The boundary whose close is due at ``now`` (a boundary that passed after the
        ladder was created, and no close came at or after it), and the next boundary from
        00:00 club time on the day before it (its reminder; whether the season has games to
        remind of is :func:`due`'s to say)."""
        zone = ZoneInfo(self.zone)
        last, following = _boundaries(self.schedule, zone, now)
        closed = self.closed_at
        close = (last if self.created_at is not None and self.created_at < last
                 and (closed is None or closed < last) else None)
        eve = (following.replace(tzinfo=UTC).astimezone(zone) - timedelta(days=1))
        remind = following if now >= eve.astimezone(UTC).replace(tzinfo=None) else None
        return close, remind


def season_calendar(lad: Ladder) -> SeasonCalendar | None:
    """The ladder's season calendar; None when its seasons close only by hand."""
    schedule = lad.settings.season_schedule
    if schedule not in _STARTS:
        return None
    assert schedule is not None
    return SeasonCalendar(schedule, view.zone_of(lad), lad.created_at,
                          lad.seasons[-1].closed_at if lad.seasons else None)


@dataclass(frozen=True, slots=True)
class SeasonDue:
    """What time has made due on a ladder with a ``season_schedule``: the boundary whose close
    is due (None: none), and the boundary of tomorrow whose reminder is due (None: none)."""

    close: datetime | None
    remind: datetime | None
    reminder: Notice | None


def due(club: Club, ladder_name: str, now: datetime) -> SeasonDue:
    """A close is due once a boundary has passed that no close of the ladder's (a moderator's
    or an earlier automatic one) came at or after, on a ladder that existed before it; a
    reminder from 00:00 club time on the day before the next boundary, for a season with games
    (one without will not close).

    Source: issue 38 ("closes automatically at 00:00 club time on the first day, through the
    existing scheduler, with a reminder the day before"). The scheduler claims each once
    (``Repository.claim_post``), so each is posted once however many processes try.
    """
    lad = club.state.ladders.get(ladder_name)
    calendar = None if lad is None else season_calendar(lad)
    if lad is None or calendar is None:
        return SeasonDue(None, None, None)
    close, remind = calendar.due(now)
    if remind is not None and season_data(club, lad, len(lad.seasons)).total == 0:
        remind = None  # a season without games will not close: nothing to remind of
    reminder = None if remind is None else Notice("season_reminder", {
        "season": season_name(lad, len(lad.seasons)), "ladder": lad.name})
    return SeasonDue(close, remind, reminder)


def close_on_schedule(club: Club, now: datetime, caller: Caller, ladder_name: str,
                      boundary: datetime) -> Decision[Notice]:
    """The scheduler's close at ``boundary``: the final table as a post, or, for a season
    without games (the errata: skipped, the season runs on), what the moderators are told
    instead. Choice: a game played after the boundary but recorded before the close (the bot
    was down) stays in the closing season: the log's order is the ratings' order."""
    lad = view.ladder(club, ladder_name)
    if season_data(club, lad, len(lad.seasons)).total == 0:
        skipped = Notice("season_skipped", {"season": season_name(lad, len(lad.seasons)),
                                            "ladder": lad.name})
        return [], lambda: skipped
    events, answer = close(club, now, caller, None, ladder_name, boundary=boundary)
    return events, lambda: posted(answer())
