"""A ladder's ratings through time: one player's state after each step that concerns them, and
everyone's state as it stood at an earlier moment.

Both replay the ladder's own derived steps (:class:`~bot.service.ratings.LadderRatings`) from its
stored checkpoints, so what they show is exactly what the ladder's ratings were: no second
derivation and no rating rule of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ratings_core.model import Game, PlayerState, Step, events_of
from ratings_core.replay import Checkpoint, replay

from .ratings import LadderRatings, _births
from .state import ClubState


def step_time(step: Step) -> datetime:
    """When a step counts: its own time, or a rating period's latest (the period is rated as of
    then; see :class:`ratings_core.model.RatingPeriod`)."""
    return max(event.played_at for event in events_of(step))


def _concerns(step: Step, key: str) -> bool:
    for event in events_of(step):
        if isinstance(event, Game):
            if key in (event.player_a, event.player_b):
                return True
        elif event.player == key:
            return True
    return False


def _base(ratings: LadderRatings, position: int) -> Checkpoint:
    """The latest stored checkpoint at or before ``position``."""
    return max(
        (c for c in ratings.checkpoints if c.position <= position), key=lambda c: c.position
    )


def trajectory(
    ratings: LadderRatings, state: ClubState, key: str
) -> list[tuple[datetime, PlayerState]]:
    """The player's state after every step that concerns them (joining, each game or rating
    period, retiring, returning), with the step's time, in rating order.

    The replay runs in segments that end at those steps, each continuing from the previous
    segment's final state; a replay continued from a checkpoint equals one from the beginning
    (:func:`ratings_core.replay.replay`), so the last point is the player's current state.
    """
    system = ratings.system
    assert system is not None, "sync the ladder's ratings first"
    steps: Sequence[Step] = ratings.steps
    ends = [i for i, step in enumerate(steps) if _concerns(step, key)]
    if not ends:
        return []
    births = _births(state)
    current = _base(ratings, ends[0])
    out: list[tuple[datetime, PlayerState]] = []
    for end in ends:
        current = replay(system, steps[current.position:end + 1], start=current,
                         birth_dates=births).final
        player = current.state(key)
        if player is not None:
            out.append((step_time(steps[end]), player))
    return out


def position_at(ratings: LadderRatings, when: datetime) -> int:
    """How many of the ladder's leading steps had happened by ``when``: the steps up to the
    first one later than ``when``. (A game reported late, with an earlier date, is rated where
    it was confirmed, so the ladder as it stood is its prefix, not a filter by date.)"""
    for i, step in enumerate(ratings.steps):
        if step_time(step) > when:
            return i
    return len(ratings.steps)


def state_at(ratings: LadderRatings, state: ClubState, when: datetime) -> Checkpoint:
    """Everyone's state as the ladder stood at ``when`` (its steps up to then)."""
    system = ratings.system
    assert system is not None, "sync the ladder's ratings first"
    position = position_at(ratings, when)
    base = _base(ratings, position)
    return replay(system, ratings.steps[base.position:position], start=base,
                  birth_dates=_births(state)).final
