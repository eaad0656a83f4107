"""Rating bands (issue 38): named rating ranges of a ladder ("Silver" from 1200, "Gold" from
1400), shown beside a member's rating and, on Discord, held as roles.

A band is an event of the club's log (:class:`~bot.service.events.BandAdded`,
:class:`~bot.service.events.BandRemoved`), folded into the ladder's band list. Which band a
member holds is no event: it follows from the member's ratings and the ladder's bands now
(:func:`walk`), so a replay gives the same bands, and a band added today applies to the whole
history as if it had always been there.

The rule (issue 38, "Rating bands"), walked over the member's shown rating (whole points, as
the bot shows ratings) after each rated step that concerns them:

- the band is the highest whose minimum the rating reaches;
- a band held is kept until the rating falls ``band_hysteresis`` points below its minimum
  (Choice: kept while the rating is at least minimum - hysteresis, so a hysteresis of 0 is
  none), then the member gets the highest band whose minimum the rating reaches, or none;
- a member who is provisional, has no games or is retired has none (after such a step the
  walk starts again from nothing).

Every member's walk needs their rating after each step: one replay of the ladder's own steps
(:class:`~bot.service.ratings.LadderRatings`), a step (or a run of games between different
players) at a time, kept per ladder (:class:`_Walk`) and carried on for appended steps; a
changed step (a correction, a void) restarts it from the latest stored checkpoint before the
change. Measured on a ladder of 100,000 games (200 players, one of them in every second game):
the first /top with bands 1.3 s, then 3-8 ms, after a new game 4-6 ms, after a correction of
game 50,000 0.7 s and of game 100 1.3 s.
"""

from __future__ import annotations

import weakref
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from ratings_core.model import (
    Game,
    PlayerState,
    SeasonStart,
    Status,
    Step,
    TeamGame,
    events_of,
)
from ratings_core.replay import Engine
from ratings_core.system import RatingSystem
from ratings_core.table import Table

from . import events as ev
from . import view
from .errors import Refusal
from .identity import Caller
from .ratings import CHECKPOINT_EVERY, LadderRatings, _births, member_of_key, player_key
from .results import Leaderboard, Notice
from .session import Decision
from .state import Band, Ladder, Member
from .view import Club

#: a band's minimum, in rating points (issue 38: "a band below zero or above 4000" is refused)
LOWEST_MINIMUM = 0
HIGHEST_MINIMUM = 4000
#: the most bands a ladder may have, and the longest name of one
MAX_BANDS = 20
MAX_BAND_NAME = 24


# -- the rule ---------------------------------------------------------------------------------


def next_band(held: int | None, shown: int, minimums: Sequence[int], hysteresis: float
              ) -> int | None:
    """The band (its index in ``minimums``, lowest first) a member holds after a step that
    leaves their shown rating at ``shown``, having held ``held`` before it (None: none)."""
    # The highest band whose minimum the rating reaches (-1: none).
    reached = bisect_right(minimums, shown) - 1
    # A band held above it is kept while the rating is at least its minimum less the
    # hysteresis; a band reached above the one held is taken at once.
    if held is not None and held > reached and shown >= minimums[held] - hysteresis:
        return held
    return reached if reached >= 0 else None


def walk(shown_ratings: Iterable[int | None], minimums: Sequence[int], hysteresis: float
         ) -> int | None:
    """The band (index into ``minimums``) a member holds after the sequence of their shown
    ratings, one after each rated step of theirs; None in it: a step after which they were
    provisional or retired, which leaves them no band."""
    held: int | None = None
    for shown in shown_ratings:
        held = None if shown is None else next_band(held, shown, minimums, hysteresis)
    return held


def shown_rating(system: RatingSystem, state: PlayerState) -> int | None:
    """A player's rating as the bot shows it (whole points), or None when it holds no band:
    provisional, without games, or retired."""
    if state.status != Status.ACTIVE or not state.games or system.is_provisional(state):
        return None
    return view.whole_points(state.rating)


# -- every member's band, kept per ladder -----------------------------------------------------


@dataclass(slots=True)
class _Walk:
    """One ladder's walk: the steps walked (a copy, to find what changed), the engine after
    them, each player's band by engine key, and those bands at every CHECKPOINT_EVERY steps
    (where the ladder's ratings keep a checkpoint to restart from)."""

    system: RatingSystem
    rule: tuple[tuple[int, ...], float]
    steps: list[Step]
    engine: Engine
    held: dict[str, int | None]
    marks: dict[int, dict[str, int | None]] = field(default_factory=dict)
    #: the ladder's generation and the ratings' list of steps walked last: while both are the
    #: same, steps were only appended (a change in place bumps the generation)
    generation: int = -1
    source: list[Step] | None = None


#: each ladder's walk, by its ratings object (gone with it)
_WALKS: weakref.WeakKeyDictionary[LadderRatings, _Walk] = weakref.WeakKeyDictionary()


def _players(step: Step) -> Iterable[str]:
    for event in events_of(step):
        if isinstance(event, Game):
            yield event.player_a
            yield event.player_b
        elif isinstance(event, TeamGame):
            yield from event.side_a
            yield from event.side_b
        else:
            yield event.player


def _first_difference(old: Sequence[Step], new: Sequence[Step]) -> int:
    for i, (was, now) in enumerate(zip(old, new, strict=False)):
        if was is not now and was != now:
            return i
    return min(len(old), len(new))


def _walked(ratings: LadderRatings, club: Club, minimums: tuple[int, ...],
            hysteresis: float, generation: int = -1) -> _Walk:
    """The ladder's walk brought up to its ratings' steps (``generation``: the ladder's, which
    a change of its steps in place bumps; -1: unknown, the steps are compared)."""
    system = ratings.system
    assert system is not None, "sync the ladder's ratings first"
    rule = (minimums, hysteresis)
    found = _WALKS.get(ratings)
    steps = ratings.steps
    start = 0
    if found is not None and found.system is system and found.rule == rule:
        appended = (generation >= 0 and found.generation == generation
                    and found.source is steps and len(steps) >= len(found.steps))
        start = len(found.steps) if appended else _first_difference(found.steps, steps)
        if start == len(found.steps):  # steps appended (or none): carry on
            _feed(found, steps, start, minimums, hysteresis)
            found.generation, found.source = generation, steps
            return found
    # Restart from the latest mark before the change that the ratings keep a checkpoint at.
    kept = {c.position: c for c in ratings.checkpoints}
    base = max((p for p in (found.marks if found is not None and found.system is system
                            and found.rule == rule else {0: {}}) if p <= start and p in kept),
               default=0)
    engine = Engine(system, _births(club.state))
    held: dict[str, int | None] = {}
    marks: dict[int, dict[str, int | None]] = {0: {}}
    if base and found is not None:
        checkpoint = kept[base]
        engine.table = Table.restore(checkpoint.table)
        engine.pool = checkpoint.pool
        held = dict(found.marks[base])
        marks = {p: m for p, m in found.marks.items() if p <= base}
    walked = _Walk(system, rule, [], engine, held, marks)
    walked.steps = list(steps[:base])
    _feed(walked, steps, base, minimums, hysteresis)
    walked.generation, walked.source = generation, steps
    _WALKS[ratings] = walked
    return walked


def _feed(walked: _Walk, steps: Sequence[Step], start: int, minimums: tuple[int, ...],
          hysteresis: float) -> None:
    """Walk ``steps[start:]``: after each step, its players' bands.

    Consecutive games of players who are all different are replayed together, as one run
    (the engine's own way, and far quicker than a game at a time): a game changes only its
    own players' states, so each player's state after the run is their state after their one
    game in it. A run ends before a game of a player already in it, at any other step, and
    where a mark is taken (every CHECKPOINT_EVERY steps)."""
    engine, held, system = walked.engine, walked.held, walked.system
    position = start
    run: list[Step] = []
    playing: set[str] = set()

    def flush() -> None:
        nonlocal position
        if not run:
            return
        position = engine.feed(run, position, None, [])
        table = engine.table
        for key in playing:
            i = table.index.get(key)
            shown = None if i is None else shown_rating(system, table.at(i))
            held[key] = None if shown is None else next_band(
                held.get(key), shown, minimums, hysteresis)
        run.clear()
        playing.clear()
        if position % CHECKPOINT_EVERY == 0:
            walked.marks[position] = dict(held)

    for step in steps[start:]:
        if type(step) is Game:
            if step.player_a in playing or step.player_b in playing:
                flush()
            run.append(step)
            playing.add(step.player_a)
            playing.add(step.player_b)
            if (position + len(run)) % CHECKPOINT_EVERY == 0:
                flush()
            continue
        flush()
        run.append(step)
        # A season's start (issue 38) resets everyone's rating: every band is walked again.
        playing.update(engine.table.names if type(step) is SeasonStart else _players(step))
        flush()
    flush()
    walked.steps.extend(steps[start:])


def holders(club: Club, ladder: Ladder) -> dict[int, Band]:
    """Each member who holds one of the ladder's bands now, by member id, with the band."""
    if not ladder.bands:
        return {}
    final = view.ratings(club, ladder)
    ratings = club.ratings[ladder.name]
    system = view.system_of(club, ladder)
    minimums = tuple(band.minimum for band in ladder.bands)
    walked = _walked(ratings, club, minimums, ladder_hysteresis(ladder), ladder.generation)
    out: dict[int, Band] = {}
    for key, index in walked.held.items():
        if index is None:
            continue
        state = final.state(key)
        if state is None or shown_rating(system, state) is None:
            continue
        out[member_of_key(key)] = ladder.bands[index]
    return out


def band_of(club: Club, ladder: Ladder, member: Member) -> Band | None:
    """The band ``member`` holds on the ladder now, if any."""
    if not ladder.bands:
        return None
    return holders(club, ladder).get(member.id)


def band_names(club: Club, ladder: Ladder) -> dict[str, str]:
    """The band of each member who holds one, by the name the ladder's boards show them by."""
    return {club.state.member(member).name: band.name
            for member, band in holders(club, ladder).items()}


def ladder_hysteresis(ladder: Ladder) -> float:
    """Points a member's rating may fall below their band's minimum before they lose it."""
    return float(ladder.settings.band_hysteresis)


def banded(club: Club, ladder: Ladder, board: Leaderboard) -> Leaderboard:
    """``board`` (the ladder's standings now) with each member's band."""
    if not ladder.bands:
        return board
    names = band_names(club, ladder)
    return replace(board, rows=[replace(row, band=names.get(row.name)) for row in board.rows])


# -- the moderators' commands ---------------------------------------------------------------


def _named(ladder: Ladder, name: str) -> Band | None:
    wanted = name.casefold()
    return next((band for band in ladder.bands if band.name.casefold() == wanted), None)


def _minimum(typed: str) -> int:
    value = typed.strip()
    number = int(value) if value.isascii() and value.isdigit() and len(value) <= 5 else None
    if number is None or not LOWEST_MINIMUM <= number <= HIGHEST_MINIMUM:
        raise Refusal("band_bad_minimum", text=typed[:20], low=LOWEST_MINIMUM,
                      high=HIGHEST_MINIMUM)
    return number


def add_band(club: Club, now: datetime, caller: Caller, name: str, minimum: str,
             role: str | None, ladder: str | None) -> Decision[Notice]:
    """``/band add NAME MIN_RATING [@role]`` (moderators). ``role``: a Discord role's id,
    which the front-end checked the bot may give."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    shown = name.strip()
    if not shown or len(shown) > MAX_BAND_NAME or not shown.isprintable():
        raise Refusal("band_bad_name", limit=MAX_BAND_NAME)
    points = _minimum(minimum)
    if role is not None and caller.platform != "discord":
        raise Refusal("band_role_discord")
    if _named(lad, shown) is not None:
        raise Refusal("band_exists", band=shown, ladder=lad.name)
    same = next((band for band in lad.bands if band.minimum == points), None)
    if same is not None:
        raise Refusal("band_same_minimum", band=same.name, minimum=points)
    if len(lad.bands) >= MAX_BANDS:
        raise Refusal("band_too_many", limit=MAX_BANDS)
    event = ev.new_event(ev.BandAdded(lad.name, shown, points, role), caller.user, now)
    key = "band_added" if role is None else "band_added_role"
    return [event], lambda: Notice(key, {"band": shown, "minimum": points, "ladder": lad.name,
                                         "role": role or ""})


def check_band(club: Club, now: datetime, caller: Caller, name: str, minimum: str,
               role: str | None, ladder: str | None) -> Notice:
    """What :func:`add_band` would refuse, refused; nothing written."""
    add_band(club, now, caller, name, minimum, role, ladder)
    return Notice("band_checked")


def remove_band(club: Club, now: datetime, caller: Caller, name: str, ladder: str | None
                ) -> Decision[Notice]:
    """``/band remove NAME`` (moderators)."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    band = _named(lad, name)
    if band is None:
        raise Refusal("band_unknown", band=name[:MAX_BAND_NAME], ladder=lad.name,
                      bands=", ".join(b.name for b in lad.bands) or "-")
    event = ev.new_event(ev.BandRemoved(lad.name, band.name), caller.user, now)
    return [event], lambda: Notice("band_removed", {"band": band.name, "ladder": lad.name})


def list_bands(club: Club, caller: Caller, ladder: str | None) -> Notice:
    """``/band list``: the ladder's bands, highest first, each with its minimum, its role
    (as Discord writes a role's mention) and how many members hold it now."""
    lad = view.ladder(club, ladder)
    if not lad.bands:
        return Notice("band_none", {"ladder": lad.name})
    counts: dict[str, int] = {}
    for band in holders(club, lad).values():
        counts[band.name] = counts.get(band.name, 0) + 1
    lines = [Notice("band_line_role" if band.role else "band_line", {
        "band": band.name, "minimum": band.minimum, "role": band.role or "",
        "members": counts.get(band.name, 0)}) for band in reversed(lad.bands)]
    return Notice("band_list", {"ladder": lad.name, "hysteresis": f"{ladder_hysteresis(lad):g}",
                                "bands": tuple(lines)})


# -- Discord roles ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoleBands:
    """What a Discord guild's role sync needs of one ladder: its bands with roles (name, role
    id), whether its role sync is paused (the role Discord refused), and the band role each
    member on Discord should hold now (by Discord user id; None: none of them)."""

    ladder: str
    roles: tuple[tuple[str, str], ...]
    paused: str | None
    wanted: dict[str, str | None]
    #: each such member's name, by user id, for the preview's lines
    names: dict[str, str]


def role_bands(club: Club, platform: str) -> list[RoleBands]:
    """Every ladder with a band that carries a role, as :class:`RoleBands`: its members on
    ``platform`` (identities whose user key is a platform user id: digits)."""
    state = club.state
    out = []
    for lad in state.ladders.values():
        roles = tuple((band.name, band.role) for band in lad.bands if band.role is not None)
        if not roles:
            continue
        held = holders(club, lad)
        final = view.ratings(club, lad)
        wanted: dict[str, str | None] = {}
        names: dict[str, str] = {}
        for user, record in state.by_user.items():
            if not (user.isascii() and user.isdigit()):
                continue
            chat = state.chat_of_user.get(user, state.home_chat)
            if state.linked_chats and chat is not None and not chat.startswith(platform + ":"):
                continue
            member = state.member(record)
            if member.problem or final.state(player_key(member.id)) is None:
                continue
            band = held.get(member.id)
            wanted[user] = None if band is None else band.role
            names[user] = member.name
        out.append(RoleBands(lad.name, roles, lad.roles_paused, wanted, names))
    return out


def roles_of(club: Club, caller: Caller, ladder: str | None) -> RoleBands:
    """The ladder's band roles for ``/band preview`` and ``/band sync`` (moderators)."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    found = next((r for r in role_bands(club, caller.platform) if r.ladder == lad.name), None)
    if found is None:
        raise Refusal("band_no_roles", ladder=lad.name)
    return found


def pause_roles(club: Club, now: datetime, caller: Caller, ladder: str, role: str
                ) -> Decision[Notice]:
    """Discord refused a role change: the ladder's role sync stops until ``/band sync``."""
    lad = view.ladder(club, ladder)
    if lad.roles_paused is not None:
        return [], lambda: Notice("band_roles_paused", {"ladder": lad.name, "role": role})
    event = ev.new_event(ev.BandRolesPaused(lad.name, role), caller.user, now)
    return [event], lambda: Notice("band_roles_paused", {"ladder": lad.name, "role": role})


def resume_roles(club: Club, now: datetime, caller: Caller, ladder: str | None
                 ) -> Decision[Notice]:
    """``/band sync`` resumes a paused ladder's role sync (moderators)."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    if lad.roles_paused is None:
        return [], lambda: Notice("band_roles_running", {"ladder": lad.name})
    event = ev.new_event(ev.BandRolesResumed(lad.name), caller.user, now)
    return [event], lambda: Notice("band_roles_running", {"ladder": lad.name})
