"""Turning an EVENTS.csv history into the events of a club's log (``clubrating import``)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.history import History, cell_error
from bot.history.steps import HistoryStep, Row, period, rows_of
from bot.storage.repository import JsonValue, NewEvent
from ratings_core.model import (
    COLOUR,
    Event,
    Game,
    Join,
    RatingPeriod,
    Retire,
    Return,
    SeasonStart,
    TeamGame,
    sides_of,
)
from ratings_core.system import RatingSystem

from .errors import Refusal
from .events import (
    EventClosed,
    EventOpened,
    GameReported,
    PlayerJoined,
    PlayerRetired,
    PlayerReturned,
    SeasonClosed,
    new_event,
    plain_keys,
)
from .parsing import EARLIEST
from .state import Ladder
from .team_rule import TeamRule


@dataclass(frozen=True, slots=True)
class Split:
    """A history's steps by the ladder they go to (issue 37): ``own`` to the ladder imported
    into, ``teams`` (its team games) to its companion; each with its position in the
    file's history."""

    own: list[tuple[int, HistoryStep]]
    teams: list[tuple[int, HistoryStep]]


def split_teams(history: History, rule: TeamRule, *, companion: bool,
                only_teams: bool) -> Split:
    """The history's steps, its team games checked by the ladder's team ``rule`` and, with
    ``companion``, set apart for the companion ladder (a team game inside an event of the file
    is refused then: an event is rated on one ladder). ``only_teams``: the ladder is a
    companion, which takes no game of one against one. A refusal names the row."""
    own: list[tuple[int, HistoryStep]] = []
    teams: list[tuple[int, HistoryStep]] = []
    for position, step in enumerate(history.steps):
        rows = rows_of(step)
        for k, row in enumerate(rows):
            problem = None
            if isinstance(row, TeamGame):
                refused = rule.problem(row)
                if refused is not None:
                    problem = Refusal(f"import_{refused.key}", **refused.params)
                elif companion and isinstance(step, RatingPeriod):
                    problem = Refusal("import_team_row_in_event")
            elif isinstance(row, Game) and only_teams:
                problem = Refusal("import_team_row_singles")
            if problem is not None:
                raise Refusal(problem.key, file=history.file, row=history.row_of(position, k),
                              column="player_b", **problem.params)
        (teams if companion and isinstance(step, TeamGame) else own).append((position, step))
    return Split(own, teams)


def names_in(steps: Sequence[HistoryStep]) -> list[str]:
    seen: dict[str, None] = {}
    for step in steps:
        for event in rows_of(step):
            if isinstance(event, Game):
                seen.setdefault(event.player_a)
                seen.setdefault(event.player_b)
            elif isinstance(event, TeamGame):
                seen.update(dict.fromkeys(event.side_a + event.side_b))
            else:
                seen.setdefault(event.player)
    return list(seen)


def first_seen(history: History) -> dict[str, tuple[int, str]]:
    """Each name's first row in the file and the column it stands in there."""
    seen: dict[str, tuple[int, str]] = {}
    for position, step in enumerate(history.steps):
        for k, event in enumerate(rows_of(step)):
            if isinstance(event, TeamGame):
                for side, column in ((event.side_a, "player_a"), (event.side_b, "player_b")):
                    for name in side:
                        if name not in seen:
                            seen[name] = (history.row_of(position, k), column)
            elif isinstance(event, Game):
                # the row is looked up for a name met for the first time only
                for name, column in ((event.player_a, "player_a"), (event.player_b, "player_b")):
                    if name not in seen:
                        seen[name] = (history.row_of(position, k), column)
            elif isinstance(event, Join | Retire | Return) and event.player not in seen:
                seen[event.player] = (history.row_of(position, k), "player_a")
    return seen


def check_dates(history: History, zone: str, now: datetime) -> None:
    """Refuse the first row played before EARLIEST or after tomorrow in the ladder's time zone
    (``zone``; ``now`` is naive UTC), naming its row and column: charts, digests and replays
    of the whole club depend on every game having a date of this world."""
    tz = ZoneInfo(zone)
    today = now.replace(tzinfo=UTC).astimezone(tz).date()
    last = today + timedelta(days=1)
    # The bounds as naive UTC moments: comparing there cannot overflow near year 1 or 9999.
    start = datetime.combine(EARLIEST, time(), tz).astimezone(UTC).replace(tzinfo=None)
    end = datetime.combine(last + timedelta(days=1), time(), tz).astimezone(UTC).replace(
        tzinfo=None)
    for position, step in enumerate(history.steps):
        # a season row's time is its boundary's (issue 38)
        rows = (step,) if isinstance(step, SeasonStart) else rows_of(step)
        for k, event in enumerate(rows):
            if not start <= event.played_at < end:
                raise Refusal("import_bad_date", file=history.file,
                              row=history.row_of(position, k), column="played_at",
                              first=EARLIEST.isoformat(), last=last.isoformat(), zone=zone,
                              text=event.played_at.isoformat())


def check_games(history: History, system: RatingSystem) -> None:
    """Refuse the first game the ladder's system cannot rate (as the chat refuses its report),
    naming its row and column."""
    for position, step in enumerate(history.steps):
        for k, event in enumerate(rows_of(step)):
            if not isinstance(event, Game):
                continue
            try:
                system.check(event)
            except ValueError as error:
                # The systems name the column first (``handicap must be 0: ...``); one that
                # names none refuses the game for its result.
                cell = cell_error(str(error))
                raise Refusal("import_row", file=history.file, row=history.row_of(position, k),
                              column=cell.column if cell else "score_a",
                              problem=cell.problem if cell else str(error)) from None
            limit = system.max_handicap
            if limit is not None and abs(event.handicap) > limit:
                # in the system's own unit, as the chat bounds a report's (rs-go: stones;
                # issue 31), beyond the reader's general bound
                raise Refusal("import_bad_handicap_stones", file=history.file,
                              row=history.row_of(position, k), system=system.name,
                              limit=f"{limit:g}", text=f"{event.handicap:g}")


def fingerprint_check(history: History, ladder: Ladder, zone: str, fingerprint: str) -> None:
    """Refuse a history ``ladder`` has imported already (the same rows, whatever the file);
    ``fingerprint`` is the history's (:meth:`History.fingerprint`)."""
    if not history.steps:  # a file of no rows adds nothing, however often it comes
        return
    earlier = ladder.imported.get(fingerprint)
    if earlier is None:
        return
    at, file = earlier
    day = at.replace(tzinfo=UTC).astimezone(ZoneInfo(zone)).date()
    raise Refusal("import_duplicate", file=history.file, earlier=file, ladder=ladder.name,
                  day=day.isoformat())


#: an engine key of a member: ``m`` and its id, as ``ratings.player_key`` writes it
_MEMBER_KEY = re.compile(r"m(?:0|[1-9][0-9]*)")


def new_key(name: str, display: str) -> str:
    """The engine key a new player of the file is checked under: the name itself when it can
    be no other player's key (a member's is ``m`` and digits), so that the player's rows need no
    copy; else ``new:`` and the display name. A name with a quote is never its own key: a
    refusal's text, in which keys are turned back into names, reads the same either way."""
    if "'" in name or '"' in name or name.startswith("new:") or _MEMBER_KEY.fullmatch(name):
        return f"new:{display}"
    return name


def rekey(steps: Sequence[HistoryStep], keys: dict[str, str],
          rule: TeamRule | None = None) -> list[HistoryStep]:
    """The steps with every name as the engine key it is checked under; team games with the
    ladder's team ``rule`` (its size handicap)."""
    def game(g: Game) -> Game:
        # every field of Game, in order (what dataclasses.replace does, without its look-ups)
        return Game(keys[g.player_a], keys[g.player_b], g.score_a, g.played_at, g.handicap,
                    g.seconds, g.first_move)

    def team(g: TeamGame) -> TeamGame:
        rekeyed = dataclasses.replace(g, side_a=tuple(keys[n] for n in g.side_a),
                                      side_b=tuple(keys[n] for n in g.side_b))
        return rekeyed if rule is None else rule.applied(rekeyed)

    def row(e: Row) -> Row:
        if isinstance(e, Game):
            return game(e)
        return team(e) if isinstance(e, TeamGame) else _rekey_member(e, keys)

    out: list[HistoryStep] = []
    for step in steps:
        if isinstance(step, Game):
            same = keys[step.player_a] == step.player_a and keys[step.player_b] == step.player_b
            out.append(step if same else game(step))
        elif isinstance(step, RatingPeriod):
            out.append(period(map(row, rows_of(step))))
        elif isinstance(step, TeamGame):
            out.append(team(step))
        elif isinstance(step, SeasonStart):  # names no one (issue 38)
            out.append(step)
        else:
            out.append(_rekey_member(step, keys))
    return out


def _rekey_member(event: Event, keys: dict[str, str]) -> Join | Retire | Return:
    if isinstance(event, Join):
        return Join(keys[event.player], event.played_at, event.birth_date)
    if isinstance(event, Retire):
        return Retire(keys[event.player], event.played_at)
    assert isinstance(event, Return)
    return Return(keys[event.player], event.played_at)


def history_events(
    steps: Sequence[HistoryStep], labels: Sequence[str], ladder: str, users: dict[str, str],
    actor: str, now: datetime, opened: set[str], seasons: list[str] | None = None,
) -> list[NewEvent]:
    """The events of every step of an imported history, in order (:func:`import_events`): a
    game of its own, nearly every step of a long history, made without its payload.
    ``seasons``: the names of the ladder's seasons, each season row's added (issue 38)."""
    seasons = [] if seasons is None else seasons
    reported, keys = GameReported.KIND, plain_keys(GameReported)
    out: list[NewEvent] = []
    for step, label in zip(steps, labels, strict=True):
        if type(step) is Game:
            # GameReported's fields in order
            data: dict[str, JsonValue] = dict(zip(keys, (
                ladder, users[step.player_a], users[step.player_b], step.score_a,
                step.handicap, COLOUR[step.first_move], None, step.played_at.isoformat(), None,
                True,
            ), strict=True))
            if step.seconds is not None:  # an attempt at a problem keeps its time
                data["seconds"] = step.seconds
            out.append(NewEvent(reported, actor, now, data))
        else:
            out.extend(import_events(step, label, ladder, users, actor, now, opened, seasons))
    return out


def import_events(
    step: HistoryStep, label: str, ladder: str, users: dict[str, str], actor: str,
    now: datetime, opened: set[str], seasons: list[str] | None = None,
) -> list[NewEvent]:
    def game(g: Game | TeamGame, event: str | None) -> NewEvent:
        (first, *partners_a), (second, *partners_b) = sides_of(g)
        return new_event(GameReported(
            ladder=ladder, player_a=users[first], player_b=users[second],
            score_a=g.score_a, handicap=g.handicap, colour=COLOUR[g.first_move], event=event,
            played_at=g.played_at.isoformat(), reported_by=None, direct=True,
            seconds=g.seconds if isinstance(g, Game) else None,
            partners_a=[users[n] for n in partners_a] or None,
            partners_b=[users[n] for n in partners_b] or None,
        ), actor, now)

    def member(change: type[PlayerJoined | PlayerRetired | PlayerReturned],
               entry: Join | Retire | Return, event: str | None = None) -> NewEvent:
        # The row's own date and event (None for none): both keys are written.
        return new_event(change(ladder=ladder, member=users[entry.player], event=event,
                                played_at=entry.played_at.isoformat()), actor, now)

    if isinstance(step, Game | TeamGame):
        return [game(step, None)]
    if isinstance(step, Join):
        return [member(PlayerJoined, step)]
    if isinstance(step, Retire):
        return [member(PlayerRetired, step)]
    if isinstance(step, Return):
        return [member(PlayerReturned, step)]
    if isinstance(step, SeasonStart):
        return [season_closed(step, ladder, [] if seasons is None else seasons, actor, now)]
    assert isinstance(step, RatingPeriod)
    name = label or "import"
    base, n = name, 1
    while name.casefold() in opened:
        n += 1
        name = f"{base}-{n}"
    opened.add(name.casefold())
    out = [new_event(EventOpened(ladder=ladder, name=name), actor, now)]
    for event in rows_of(step):
        if isinstance(event, Game | TeamGame):
            out.append(game(event, name))
        elif isinstance(event, Join):
            out.append(member(PlayerJoined, event, name))
        elif isinstance(event, Retire):
            out.append(member(PlayerRetired, event, name))
        else:
            assert isinstance(event, Return)
            out.append(member(PlayerReturned, event, name))
    out.append(new_event(EventClosed(ladder=ladder, name=name), actor, now))
    return out


def season_closed(step: SeasonStart, ladder: str, seasons: list[str], actor: str,
                  now: datetime) -> NewEvent:
    """A season row of an imported history as the boundary it stands for (issue 38): the
    ladder's next season closed at the row's time (``boundary``, by no schedule) with the
    row's reset and factor, so that the ladder rates as the file replays. It is named as a
    close without a name is, ``S`` and the season's number (``S3``), with ``-2``, ``-3``...
    after it when the ladder has a season of that name; the name is added to ``seasons``, the
    names of the ladder's seasons."""
    base = f"S{len(seasons) + 1}"
    name, n = base, 1
    taken = {each.casefold() for each in seasons}
    while name.casefold() in taken:
        n += 1
        name = f"{base}-{n}"
    seasons.append(name)
    return new_event(SeasonClosed(ladder=ladder, name=name, reset=step.reset,
                                  factor=step.factor, automatic=False,
                                  boundary=step.played_at.isoformat()), actor, now)
