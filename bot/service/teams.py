"""Team and doubles games (issue 37): a report's sides checked against the ladder's team
settings, and the ladder that rates them.

A game with a side of two or more members goes to its ladder's companion, ``NAME-teams``,
created with the parent's system, parameters and edition when its first team game is recorded;
``/set team_ladder shared`` rates team games on the ladder itself. The team settings are the
parent's and govern its companion (:meth:`~bot.service.state.ClubState.team_settings`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.storage.repository import NewEvent

from . import events as ev
from . import view
from .errors import Refusal
from .identity import Who
from .ratings import player_key
from .state import Ladder, Member, companion_name
from .view import Club


def named_sides(club: Club, first: Member, mates: Sequence[Who], opponent: Who,
                opponents: Sequence[Who]) -> tuple[list[Member], list[Member], bool]:
    """The sides of a game as a command names them (``/report``, ``/stake``): ``first`` and
    the ``mates`` after ``with``, against ``opponent`` and the other ``opponents``; and
    whether it is a team game (a side of two or more)."""
    side_a = [first, *(view.member(club, who) for who in mates)]
    side_b = [view.member(club, who) for who in (opponent, *opponents)]
    return side_a, side_b, len(side_a) > 1 or len(side_b) > 1


def check_sides(club: Club, ladder: Ladder, side_a: Sequence[Member],
                side_b: Sequence[Member], *, retired: bool = True) -> None:
    """Refuse sides the ladder's team settings do not allow: a member twice on one side or on
    both, a side larger than ``max_side``, uneven sides unless ``uneven_teams``, and with
    ``retired`` a retired member (on the ladder or, for a companion, on its parent)."""
    settings = club.state.team_settings(ladder)
    for side in (side_a, side_b):
        seen: set[int] = set()
        for member in side:
            if member.id in seen:
                raise Refusal("team_member_twice", name=member.name)
            seen.add(member.id)
    across = {m.id for m in side_a}
    for member in side_b:
        if member.id in across:
            raise Refusal("team_member_both_sides", name=member.name)
    largest = max(len(side_a), len(side_b))
    if largest > settings.max_side:
        raise Refusal("team_too_large", count=largest, limit=settings.max_side,
                      ladder=ladder.parent or ladder.name)
    if len(side_a) != len(side_b) and not settings.uneven_teams:
        raise Refusal("team_uneven", a=len(side_a), b=len(side_b),
                      ladder=ladder.parent or ladder.name)
    if not retired:
        return
    rated = [ladder] + [lad for lad in (club.state.ladders.get(ladder.parent or ""),)
                        if lad is not None]
    for lad in rated:
        standings = view.ratings(club, lad)
        for member in (*side_a, *side_b):
            state = standings.state(player_key(member.id))
            if state is not None and state.status != "active":
                raise Refusal("team_member_retired", name=member.name, ladder=lad.name)


def rating_ladder(club: Club, ladder: Ladder, team: bool) -> tuple[Ladder, str, bool]:
    """Where a game reported on ``ladder`` is rated: the ladder to check it against (the
    parent while its companion does not exist yet), the name of the ladder it goes to, and
    whether that ladder must be created first. A one-against-one game never goes to a
    companion, and a companion takes no such game."""
    if not team:
        if ladder.parent is not None:
            raise Refusal("singles_on_team_ladder", ladder=ladder.name, parent=ladder.parent)
        return ladder, ladder.name, False
    if ladder.parent is not None or ladder.settings.team_ladder == "shared":
        return ladder, ladder.name, False
    companion = club.state.companion(ladder)
    if companion is not None:
        return companion, companion.name, False
    name = companion_name(ladder.name)
    if name in club.state.ladders:  # a ladder a moderator made under that name
        raise Refusal("team_ladder_taken", ladder=name, parent=ladder.name)
    return ladder, name, True


def companion_created(parent: Ladder, actor: str, at: datetime) -> NewEvent:
    """The event that creates ``parent``'s companion: its system, parameters and edition."""
    settings = parent.settings
    return ev.new_event(ev.LadderCreated(
        companion_name(parent.name), settings.system, dict(settings.params), settings.edition,
        teams_of=parent.name), actor, at)

