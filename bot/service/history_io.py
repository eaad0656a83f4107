"""A ladder's history in and out: exporting it as replay steps (EVENTS.csv), and importing a
history read from EVENTS.csv, checked row by row against the ladder before anything is stored.

Each use case is a decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from bot.history import History
from bot.storage.repository import NewEvent
from ratings_core.model import Step
from ratings_core.replay import ReplayError

from . import events as ev
from . import heavy, importing, timeline, view
from . import parsing as parse
from .errors import Refusal
from .lookalike import skeletons
from .ratings import player_key
from .results import Notice
from .session import Decision
from .state import DEFAULT_TIMEZONE, Kind
from .view import Club


class Export(NamedTuple):
    """A ladder's effective history: its replay steps, engine keys -> display names, and each
    step's event name (empty when it is no event)."""

    steps: list[Step]
    names: dict[str, str]
    labels: list[str]


def export(club: Club, ladder: str | None) -> Export:
    lad = view.ladder(club, ladder)
    view.ratings(club, lad)
    ratings = club.ratings[lad.name]
    names = {player_key(m.id): m.name for m in club.state.members.values()}
    return Export(list(ratings.steps), names, list(ratings.labels))


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
    (:class:`~bot.service.events.HistoryImported`)."""
    lad = view.ladder(club, ladder)
    view.ratings(club, lad)
    ratings = club.ratings[lad.name]
    assert ratings.system is not None and ratings.final is not None
    by_name = {m.name.casefold(): m for m in club.state.members.values()
               if m.id not in club.state.merged_into}
    if ratings.system.uses_seconds:
        # The log keeps no solving times (nor does the chat report any): games stored
        # without them would break every later rating of the ladder.
        raise Refusal("system_cannot_rate", system=lad.settings.system)
    zone = lad.settings.timezone or DEFAULT_TIMEZONE
    # what the rows say, worked out once (a second of work for 100,000 rows)
    fingerprint = history.fingerprint() if history.steps else ""
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
    for name in importing.names_in(history.steps):
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
    # Check every row against the ladder as it stands, before anything is written.
    try:
        timeline.replay_checked(ratings.system, importing.rekey(history.steps, keys),
                                ratings.final, deadline.check)
    except ReplayError as error:
        # Positions count on from the ladder's own steps; names go back to the file's.
        position = error.position - ratings.final.position
        row = history.row_of(position, error.event_index)
        problem = error.message
        for name, key in keys.items():
            problem = problem.replace(repr(key), repr(name))
        raise Refusal("import_row", file=file, row=row,
                      column=history.column_of(position, error.event_index, problem),
                      problem=problem) from None
    users = {name: (by_name[name.casefold()].user if name.casefold() in by_name
                    else f"import:{parse.display_name(name)}") for name in keys}
    opened: set[str] = {key for key in lad.tournaments}
    events.extend(importing.history_events(history.steps, labels, lad.name, users, actor, now,
                                           opened))
    if history.steps:
        events.append(ev.new_event(ev.HistoryImported(lad.name, fingerprint, file),
                                   actor, now))
    count = sum(1 for e in events if e.kind == Kind.GAME_REPORTED)
    return events, lambda: Notice("imported", {"games": count, "ladder": lad.name,
                                               "steps": len(history.steps)})


def _new_name(name: str, file: str, row: int, column: str) -> str:
    """A name of the file that is no member's, as the new member's name: the rule of /register
    (:func:`bot.service.parsing.display_name`), refused naming its first row and column."""
    try:
        return parse.display_name(name)
    except Refusal as refusal:
        key = {"name_too_long": "import_name_too_long",
               "name_invisible": "import_name_invisible"}.get(refusal.key, "import_bad_name")
        raise Refusal(key, file=file, row=row, column=column, name=name,
                      limit=parse.MAX_NAME, char=refusal.params.get("char")) from None
