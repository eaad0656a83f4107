"""A ladder's history in and out: exporting it as replay steps (EVENTS.csv), and importing a
history read from EVENTS.csv, checked row by row against the ladder before anything is stored.

Each use case is a decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from bot.history import History
from bot.history.steps import HistoryStep, engine_steps, rows_of
from bot.storage.repository import NewEvent
from ratings_core.model import Game, Join, Step, TeamGame
from ratings_core.replay import Checkpoint, ReplayError, replay
from ratings_core.system import RatingSystem

from . import events as ev
from . import heavy, importing, puzzles, teams, timeline, view
from . import parsing as parse
from .errors import Refusal
from .ladder_settings import PUZZLE_SYSTEM
from .lookalike import skeletons
from .ratings import member_of_key, player_key
from .results import Notice
from .session import Decision
from .state import DEFAULT_TIMEZONE, Kind, Ladder, Problem
from .team_rule import TeamRule
from .view import Club

#: what a problem's id is written after in a history (EVENTS.csv, PLAYERS.csv): no member's
#: name starts with it (:func:`bot.service.parsing.display_name`), so a problem and a member of
#: the same name stay two players in a replay of the export
PROBLEM_MARK = "@"


class Export(NamedTuple):
    """A ladder's effective history: its replay steps, engine keys -> display names, and each
    step's event name (empty when it is no event)."""

    steps: list[Step]
    names: dict[str, str]
    labels: list[str]


def export(club: Club, ladder: str | None) -> Export:
    """A puzzle ladder's problems are written with :data:`PROBLEM_MARK` before their ids, and
    their joins are left out: the replay starts them from their ratings in PLAYERS.csv
    (:func:`starting_ratings`), as the bot did."""
    lad = view.ladder(club, ladder)
    view.ratings(club, lad)
    ratings = club.ratings[lad.name]
    members = club.state.members
    names = {player_key(m.id): PROBLEM_MARK + m.name if m.problem else m.name
             for m in members.values()}
    steps, labels = list(ratings.steps), list(ratings.labels)
    if lad.problems:
        kept = [(step, label) for step, label in zip(steps, labels, strict=True)
                if not (isinstance(step, Join) and members[member_of_key(step.player)].problem)]
        steps, labels = [step for step, _ in kept], [label for _, label in kept]
    return Export(steps, names, labels)


def starting_ratings(club: Club, ladder: str | None) -> dict[str, float]:
    """The ratings a ladder's problems start from (the one given, else the system's), by their
    names as :func:`export` writes them: PLAYERS.csv for ``clubrating replay --players``. A
    ladder of games has none."""
    lad = view.ladder(club, ladder)
    return {PROBLEM_MARK + p.code: puzzles.starting_rating(club, lad, p.rating)
            for p in lad.problems.values()}


def import_history(
    club: Club, now: datetime, history: History, labels: list[str], ladder: str | None,
    actor: str, deadline: heavy.Deadline, allow_duplicates: bool = False,
) -> Decision[Notice]:
    """Append a history read from EVENTS.csv, by the rules of the chat: a new player's name is
    one /register takes, handicaps and dates are within the chat's bounds (the reading of the
    file checked them; the dates here: up to tomorrow in the ladder's time zone), every game
    one the ladder's system rates, and every row is checked by replaying it on top of the
    ladder first (the check stops at ``deadline``). A history the ladder has imported already
    is refused unless ``allow_duplicates`` (the operator imports it again, knowingly). One bad
    row refuses the whole file, naming the file, the row and the column, and nothing is stored.
    The import is recorded with the history's fingerprint
    (:class:`~bot.service.events.HistoryImported`). A game of sides (issue 37) goes where
    a report of it goes (:func:`~bot.service.teams.rating_ladder`), checked by the ladder's
    team settings."""
    steps = history.steps
    lad = view.ladder(club, ladder)
    view.ratings(club, lad)
    ratings = club.ratings[lad.name]
    assert ratings.system is not None and ratings.final is not None
    has_teams = any(isinstance(row, TeamGame) for step in steps for row in rows_of(step))
    team_check, team_name, create = teams.rating_ladder(club, lad, True) if has_teams else (
        lad, lad.name, False)
    rule = TeamRule.of(club.state.team_settings(lad))
    split = importing.split_teams(history, rule, companion=team_name != lad.name,
                                  only_teams=lad.parent is not None)
    by_name = {m.name.casefold(): m for m in club.state.members.values()
               if m.id not in club.state.merged_into and not m.problem}
    zone = lad.settings.timezone or DEFAULT_TIMEZONE
    # what the rows say, worked out once (a second of work for 100,000 rows)
    fingerprint = history.fingerprint() if steps else ""
    if not allow_duplicates:
        importing.fingerprint_check(history, lad, zone, fingerprint)
    importing.check_dates(history, zone, now)
    importing.check_games(history, ratings.system)
    keys: dict[str, str] = {}
    events: list[NewEvent] = []
    where = importing.first_seen(history)
    #: the file's new names, by their skeletons: two of them may not look alike either
    new_names: dict[str, str] = {}
    members_like = club.state.look_alikes()
    file = history.file
    problems = _problems_named(club, lad, history)
    for name in importing.names_in(steps):
        if name in problems:
            keys[name] = player_key(problems[name].id)
            continue
        member = by_name.get(name.casefold())
        if member is not None:
            keys[name] = player_key(member.id)
            continue
        row, column = where[name]
        display = _new_name(name, file, row, column)
        user = f"import:{display}"
        earlier = club.state.member_of_user(user)
        if earlier is not None:
            raise Refusal("import_name_taken", file=file, row=row, column=column, name=name,
                          member=earlier.name)
        similar = club.state.member_like(display, members_like)
        shapes = skeletons(display)
        twin = next((new_names[s] for s in shapes if s in new_names), None)
        if similar is not None:
            raise Refusal("import_like_member", file=file, row=row, column=column, name=name,
                          member=similar.name)
        if twin is not None:
            raise Refusal("import_like_row", file=file, row=row, column=column, name=name,
                          other=twin, other_row=where[twin][0])
        new_names.update((s, name) for s in shapes)
        keys[name] = importing.new_key(name, display)
        events.append(ev.new_event(ev.MemberRegistered(user, display), actor, now))
    # Check every row against the ladder as it stands, before anything is written; team
    # games against the ladder that rates them (a companion not made yet: from no one).
    _check_rows(history, split.own, keys, rule, ratings.system, ratings.final, deadline)
    if split.teams:
        system = view.system_of(club, team_check)
        start = replay(system, ()).final if create else view.ratings(club, team_check)
        _check_rows(history, split.teams, keys, rule, system, start, deadline)
    users = {name: (ev.problem_user(lad.name, problems[name].code) if name in problems
                    else by_name[name.casefold()].user if name.casefold() in by_name
                    else f"import:{parse.display_name(name)}") for name in keys}
    opened: set[str] = {key for key in lad.tournaments}
    events.extend(importing.history_events([step for _, step in split.own],
                                           [labels[p] for p, _ in split.own], lad.name, users,
                                           actor, now, opened, [s.name for s in lad.seasons]))
    if split.teams:
        if create:
            events.append(teams.companion_created(lad, actor, now))
        events.extend(importing.history_events([step for _, step in split.teams],
                                               [labels[p] for p, _ in split.teams], team_name,
                                               users, actor, now, set()))
    if steps:
        events.append(ev.new_event(ev.HistoryImported(lad.name, fingerprint, file),
                                   actor, now))
    count = sum(1 for e in events if e.kind == Kind.GAME_REPORTED)
    return events, lambda: Notice("imported", {"games": count, "ladder": lad.name,
                                               "steps": len(steps)})


def _check_rows(history: History, steps: list[tuple[int, HistoryStep]], keys: dict[str, str],
                rule: TeamRule, system: RatingSystem, start: Checkpoint,
                deadline: heavy.Deadline) -> None:
    """Replay ``steps`` (each with its position in the file's history) on top of ``start``;
    a step the replay refuses is refused naming its row and column, with the file's names."""
    try:
        timeline.replay_checked(system, engine_steps(importing.rekey(
            [step for _, step in steps], keys, rule)), start, deadline.check)
    except ReplayError as error:
        # Positions count on from the ladder's own steps; names go back to the file's.
        position = steps[error.position - start.position][0]
        row = history.row_of(position, error.event_index)
        problem = error.message
        for name, key in keys.items():
            problem = problem.replace(repr(key), repr(name))
        raise Refusal("import_row", file=history.file, row=row,
                      column=history.column_of(position, error.event_index, problem),
                      problem=problem) from None


def _problems_named(club: Club, ladder: Ladder, history: History) -> dict[str, Problem]:
    """A puzzle ladder's problems that the history's attempts name (:data:`PROBLEM_MARK` and
    the id, as the export writes them), by name; an attempt at anything but a problem of the
    ladder, or a problem in the member's column, is refused naming its row (import the
    problems first: ``clubrating puzzles import``)."""
    found: dict[str, Problem] = {}
    if ladder.settings.system != PUZZLE_SYSTEM:
        return found
    where = importing.first_seen(history)
    for position, step in enumerate(history.steps):
        for k, event in enumerate(rows_of(step)):
            if isinstance(event, Game) and not event.player_b.startswith(PROBLEM_MARK):
                raise Refusal("import_not_a_problem", file=history.file,
                              row=history.row_of(position, k), name=event.player_b,
                              ladder=ladder.name)
    for name in importing.names_in(history.steps):
        if not name.startswith(PROBLEM_MARK):
            continue
        row, column = where[name]
        problem = ladder.problem(name[len(PROBLEM_MARK):])
        if problem is None:
            raise Refusal("import_unknown_problem", file=history.file, row=row, column=column,
                          name=name, ladder=ladder.name)
        found[name] = problem
    for position, step in enumerate(history.steps):
        for k, event in enumerate(rows_of(step)):
            if isinstance(event, Game) and event.player_a in found:
                raise Refusal("import_problem_first", file=history.file,
                              row=history.row_of(position, k), name=event.player_a)
    return found


def _new_name(name: str, file: str, row: int, column: str) -> str:
    """A name of the file that is no member's, as the new member's name: the rule of /register
    (:func:`bot.service.parsing.display_name`), refused naming its first row and column."""
    try:
        return parse.display_name(name)
    except Refusal as refusal:
        key = {"name_too_long": "import_name_too_long",
               "name_invisible": "import_name_invisible",
               "name_ampersand": "import_name_ampersand"}.get(refusal.key, "import_bad_name")
        raise Refusal(key, file=file, row=row, column=column, name=name,
                      limit=parse.MAX_NAME, char=refusal.params.get("char")) from None
