"""A ladder's ratings: its rating inputs turned into replay steps, replayed with checkpoints.

Appending (a confirmed game, a join) replays only the new steps from the last state. Any other
change (a correction, a void, a merge, a new rating system) derives the steps again, finds the
first one that differs and replays from the last checkpoint before it, so a correction of an
early game re-rates exactly what follows it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date

from ratings_core.model import (
    FIRST_MOVE,
    Event,
    Game,
    Join,
    RatingPeriod,
    Retire,
    Return,
    Step,
)
from ratings_core.replay import Checkpoint, replay
from ratings_core.system import RatingSystem
from ratings_core.systems import make_system

from .state import ClubState, GameRecord, Kind, Ladder

#: steps between stored checkpoints: a re-rate replays fewer than this before its change
CHECKPOINT_EVERY = 1000


def player_key(member_id: int) -> str:
    """The name a member has inside the rating engine (stable across renames)."""
    return f"m{member_id}"


def member_of_key(key: str) -> int:
    return int(key[1:])


def system_of(ladder: Ladder) -> RatingSystem:
    settings = ladder.settings
    return make_system(settings.system, dict(settings.params), settings.edition)


def waits_for_event(ladder: Ladder, record: GameRecord) -> bool:
    """Whether a game is held back for its event: the games of an event are rated together when
    it closes; one confirmed after the close counts on its own, and so does one reported before
    the event was opened (an opening taken back by /undo and made again is a new event)."""
    if record.event is None:
        return False
    tournament = ladder.tournaments.get(record.event.casefold())
    if tournament is None or record.id < tournament.opened:
        return False
    return tournament.closed is None or (record.seq or 0) < tournament.closed


class _Derivation:
    """Turns rating inputs into valid steps: joins once, retire only the active, return only the
    retired, and a retired player who plays comes back first (an implicit return)."""

    def __init__(self, state: ClubState, ladder: Ladder, games: dict[int, tuple[object, Game]]):
        self.state = state
        self.ladder = ladder
        self.games = games
        self.known: set[str] = set()
        self.retired: set[str] = set()
        #: the event name of each step made (empty for steps that are no event)
        self.labels: list[str] = []
        self._keys: dict[int, str] = {}

    def key(self, member_id: int) -> str:
        key = self._keys.get(member_id)
        if key is None:
            key = self._keys[member_id] = player_key(self.state.member(member_id).id)
        return key

    def game(self, record: GameRecord) -> Game | None:
        a, b = self.key(record.player_a), self.key(record.player_b)
        if a == b:  # two records of one person, merged: the game no longer means anything
            return None
        # Everything the step is made of: a previewed correction cached under the same id can
        # never be mistaken for a later, different one.
        first_move = FIRST_MOVE[record.colour]
        stamp = (a, b, record.score_a, record.handicap, record.played_at, first_move)
        cached = self.games.get(record.id)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        game = Game(a, b, record.score_a, record.played_at, record.handicap,
                    first_move=first_move)
        self.games[record.id] = (stamp, game)
        return game

    def _returns(self, games: Sequence[Game]) -> list[Step]:
        back: list[Step] = []
        for game in games:
            for key in (game.player_a, game.player_b):
                if key in self.retired:
                    self.retired.discard(key)
                    back.append(Return(key, game.played_at))
        for game in games:
            self.known.update((game.player_a, game.player_b))
        return back

    def steps(self, inputs: Sequence[tuple[str, int | str]]) -> list[Step]:
        out: list[Step] = []
        labels = self.labels
        ladder = self.ladder
        known, retired = self.known, self.retired
        for kind, ref in inputs:
            if kind == "game":
                # The common case, kept lean: a re-rate derives every game of the ladder.
                assert isinstance(ref, int)
                record = ladder.games[ref]
                if not record.counts or (
                    record.event is not None and waits_for_event(self.ladder, record)
                ):
                    continue
                game = self.game(record)
                if game is None:
                    continue
                if retired:
                    for back in self._returns([game]):
                        out.append(back)
                        labels.append("")
                known.add(game.player_a)
                known.add(game.player_b)
                out.append(game)
                labels.append("")
            elif kind == "member":
                assert isinstance(ref, int)
                if ladder.membership[ref].event is None:
                    step = self._membership(ref)
                    if step is not None:
                        out.append(step)
                        labels.append("")
            else:
                assert isinstance(ref, str)
                members, games = self._period(ref)
                if members or games:
                    for back in self._returns(games):
                        out.append(back)
                        labels.append("")
                    out.append(RatingPeriod(tuple[Event, ...]([*members, *games])))
                    labels.append(ladder.tournaments[ref].name)
        return out

    def _period(self, key: str) -> tuple[list[Event], list[Game]]:
        """An event's membership changes and games, rated together at its close."""
        tournament = self.ladder.tournaments[key]
        members: list[Event] = [
            step
            for index, entry in enumerate(self.ladder.membership)
            if entry.event == key
            and (step := self._membership(index)) is not None
        ]
        records = sorted(
            (
                r
                for r in self.ladder.games.values()
                if r.counts and r.event is not None and r.event.casefold() == key
                and tournament.opened < r.id
                and tournament.closed is not None and (r.seq or 0) < tournament.closed
            ),
            key=lambda r: r.seq or 0,
        )
        games = [g for g in (self.game(r) for r in records) if g is not None]
        return members, games

    def _membership(self, index: int) -> Join | Retire | Return | None:
        entry = self.ladder.membership[index]
        member = self.state.member(entry.member)
        if member.id != entry.member:  # a merged-away record: its survivor's own entries count
            return None
        key = player_key(member.id)
        if entry.kind is Kind.PLAYER_JOINED:
            if key in self.known:
                return None
            self.known.add(key)
            return Join(key, entry.at, member.birth_date)
        if entry.kind is Kind.PLAYER_RETIRED:
            if key not in self.known or key in self.retired:
                return None
            self.retired.add(key)
            return Retire(key, entry.at)
        if key not in self.retired:
            return None
        self.retired.discard(key)
        return Return(key, entry.at)


class LadderRatings:
    def __init__(self) -> None:
        self.system: RatingSystem | None = None
        self._settings: object = None
        self._generation = -1
        self._consumed = 0
        self._derivation: _Derivation | None = None
        self._games: dict[int, tuple[object, Game]] = {}
        self.steps: list[Step] = []
        #: each step's event name, "" for a step that is no event (export writes it back)
        self.labels: list[str] = []
        self.checkpoints: list[Checkpoint] = []
        self.final: Checkpoint | None = None

    def sync(self, state: ClubState, ladder: Ladder) -> Checkpoint:
        """Bring the ratings up to the ladder's inputs; returns the final state."""
        settings = (ladder.settings.system, ladder.settings.params)
        if (
            self.system is None
            or self._derivation is None
            or self.final is None
            or settings != self._settings
            or ladder.generation != self._generation
            or self._derivation.state is not state
        ):
            return self._rebuild(state, ladder, settings)
        new = self._derivation.steps(ladder.inputs[self._consumed:])
        self.labels = self._derivation.labels
        self._consumed = len(ladder.inputs)
        if new:
            result = replay(self.system, new, start=self.final, birth_dates=_births(state),
                            checkpoint_every=CHECKPOINT_EVERY)
            self.steps.extend(new)
            self.checkpoints.extend(result.checkpoints)
            self.final = result.final
        return self.final

    def _rebuild(self, state: ClubState, ladder: Ladder, settings: object) -> Checkpoint:
        system = system_of(ladder)
        same_system = settings == self._settings and self.system is not None
        derivation = _Derivation(state, ladder, self._games)
        steps = derivation.steps(ladder.inputs)
        if same_system:
            start = self._first_difference(steps)
        else:
            self.checkpoints = [replay(system, []).final]
            start = 0
        base = max(
            (c for c in self.checkpoints if c.position <= start), key=lambda c: c.position
        )
        result = replay(system, steps[base.position:], start=base, birth_dates=_births(state),
                        checkpoint_every=CHECKPOINT_EVERY)
        self.checkpoints = [c for c in self.checkpoints if c.position <= base.position]
        self.checkpoints.extend(result.checkpoints)
        self.system = system
        self._settings = settings
        self._generation = ladder.generation
        self._consumed = len(ladder.inputs)
        self._derivation = derivation
        self.steps = steps
        self.labels = derivation.labels
        self.final = result.final
        return result.final

    def _first_difference(self, steps: Sequence[Step]) -> int:
        for i, (old, new) in enumerate(zip(self.steps, steps, strict=False)):
            if old is not new and old != new:
                return i
        return min(len(self.steps), len(steps))

    def preview(self, state: ClubState, ladder: Ladder, changed: GameRecord) -> Checkpoint:
        """The final state if ``changed`` replaced its record; nothing is kept."""
        assert self.system is not None
        inputs = list(ladder.inputs)
        if ("game", changed.id) not in inputs:  # a pending or disputed report being settled
            inputs.append(("game", changed.id))
        with _substituted(ladder, changed):
            steps = _Derivation(state, ladder, self._games).steps(inputs)
        start = self._first_difference(steps)
        base = max(
            (c for c in self.checkpoints if c.position <= start), key=lambda c: c.position
        )
        return replay(self.system, steps[base.position:], start=base,
                      birth_dates=_births(state)).final


def _births(state: ClubState) -> dict[str, date]:
    """Members' dates of birth by engine key, for players who join a ladder by playing."""
    return {
        player_key(m.id): m.birth_date for m in state.members.values() if m.birth_date is not None
    }


@contextmanager
def _substituted(ladder: Ladder, record: GameRecord) -> Iterator[None]:
    original = ladder.games[record.id]
    ladder.games[record.id] = record
    try:
        yield
    finally:
        ladder.games[record.id] = original
