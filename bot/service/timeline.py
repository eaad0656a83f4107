"""A ladder's ratings through time: one player's state after each step that concerns them, and
everyone's state as it stood at an earlier moment.

Both replay the ladder's own derived steps (:class:`~bot.service.ratings.LadderRatings`) from its
stored checkpoints, so what they show is exactly what the ladder's ratings were: no second
derivation and no rating rule of their own. They work on a :class:`Frozen` copy of those (taken
under the club's lock), so they can run in a worker thread while the club goes on, and call
``check`` between replayed segments (a time cap stops them there, :mod:`bot.service.heavy`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from ratings_core.model import Game, PlayerState, Step, TeamGame, events_of
from ratings_core.replay import Checkpoint, replay
from ratings_core.system import RatingSystem

from .ratings import LadderRatings, _births
from .state import ClubState


@dataclass(frozen=True, slots=True)
class Frozen:
    """A ladder's derived ratings as they stood: its system, steps, stored checkpoints and the
    members' dates of birth, copied so that the club may change while a worker reads them."""

    system: RatingSystem
    steps: Sequence[Step]
    checkpoints: Sequence[Checkpoint]
    births: Mapping[str, date]


def freeze(ratings: LadderRatings, state: ClubState) -> Frozen:
    """A copy of the ladder's synced ratings (cheap: the lists are copied, not their items,
    which are immutable)."""
    assert ratings.system is not None, "sync the ladder's ratings first"
    return Frozen(ratings.system, list(ratings.steps), list(ratings.checkpoints),
                  _births(state))


def _unchecked() -> None:
    pass


def step_time(step: Step) -> datetime:
    """When a step counts: its own time, or a rating period's latest (the period is rated as of
    then; see :class:`ratings_core.model.RatingPeriod`)."""
    return max(event.played_at for event in events_of(step))


def _concerns(step: Step, key: str) -> bool:
    for event in events_of(step):
        if isinstance(event, Game):
            if key in (event.player_a, event.player_b):
                return True
        elif isinstance(event, TeamGame):  # every member of either side (issue 37)
            if key in event.side_a or key in event.side_b:
                return True
        elif event.player == key:
            return True
    return False


def _base(ratings: LadderRatings | Frozen, position: int) -> Checkpoint:
    """The latest stored checkpoint at or before ``position``."""
    return max(
        (c for c in ratings.checkpoints if c.position <= position), key=lambda c: c.position
    )


def trajectory(
    ladder: Frozen, key: str, check: Callable[[], None] = _unchecked
) -> list[tuple[datetime, PlayerState]]:
    """The player's state after every step that concerns them (joining, each game or rating
    period, retiring, returning), with the step's time, in rating order.

    The replay runs in segments that end at those steps, each continuing from the previous
    segment's final state; a replay continued from a checkpoint equals one from the beginning
    (:func:`ratings_core.replay.replay`), so the last point is the player's current state.
    """
    system, steps, births = ladder.system, ladder.steps, ladder.births
    ends = [i for i, step in enumerate(steps) if _concerns(step, key)]
    if not ends:
        return []
    current = _base(ladder, ends[0])
    out: list[tuple[datetime, PlayerState]] = []
    for end in ends:
        check()
        current = replay(system, steps[current.position:end + 1], start=current,
                         birth_dates=births).final
        player = current.state(key)
        if player is not None:
            out.append((step_time(steps[end]), player))
    return out


def position_at(ratings: LadderRatings | Frozen, when: datetime) -> int:
    """How many of the ladder's leading steps had happened by ``when``: the steps up to the
    first one later than ``when``. (A game reported late, with an earlier date, is rated where
    it was confirmed, so the ladder as it stood is its prefix, not a filter by date.)"""
    for i, step in enumerate(ratings.steps):
        if step_time(step) > when:
            return i
    return len(ratings.steps)


def state_at(ratings: LadderRatings, state: ClubState, when: datetime) -> Checkpoint:
    """Everyone's state as the ladder stood at ``when`` (its steps up to then)."""
    return frozen_state_at(freeze(ratings, state), when)


def frozen_state_at(ladder: Frozen, when: datetime) -> Checkpoint:
    """:func:`state_at` on a frozen copy (at most ``CHECKPOINT_EVERY`` steps are replayed)."""
    position = position_at(ladder, when)
    base = _base(ladder, position)
    return replay(ladder.system, ladder.steps[base.position:position], start=base,
                  birth_dates=ladder.births).final


#: steps replayed between two checks of a time cap (about 50 ms of work)
CHECK_EVERY = 5000


def replay_checked(
    system: RatingSystem, steps: Sequence[Step], start: Checkpoint,
    check: Callable[[], None] = _unchecked,
) -> Checkpoint:
    """``replay(system, steps, start=start).final``, in stretches of :data:`CHECK_EVERY` steps
    with ``check`` called before each: a replay continued from a checkpoint equals one from the
    beginning, and a :class:`~ratings_core.replay.ReplayError` names the same position."""
    current = start
    for first in range(0, len(steps), CHECK_EVERY):
        check()
        current = replay(system, steps[first:first + CHECK_EVERY], start=current).final
    return current
