"""A ladder's ratings: its rating inputs turned into replay steps, replayed with checkpoints.

Appending (a confirmed game, a join) replays only the new steps from the last state. A
correction that keeps a game's players and date (its result, its handicap) replaces that game's
step where the derivation put it and replays from the last checkpoint before it: nothing else
can differ, since which steps exist follows only from who played when. Any other change (a void,
a merge, a correction of a player, a new rating system) derives the steps again, finds the first
one that differs and replays from the last checkpoint before it. Either way a correction of an
early game re-rates exactly what follows it, and a correction applied right after its preview
takes the preview's replay instead of replaying again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date
from itertools import chain, islice

from ratings_core.model import (
    FIRST_MOVE,
    Event,
    Game,
    Join,
    Match,
    RatingPeriod,
    Retire,
    Return,
    SeasonStart,
    Step,
    TeamGame,
    players_of,
)
from ratings_core.replay import Checkpoint, ReplayResult, replay
from ratings_core.system import RatingSystem
from ratings_core.systems import make_system

from .state import ClubState, GameRecord, Kind, Ladder

#: steps between stored checkpoints: a re-rate replays fewer than this before its change
CHECKPOINT_EVERY = 5000
#: corrections since the last sync beyond which the steps are derived again rather than patched
MAX_PATCHED = 64


def player_key(member_id: int) -> str:
    """The name a member has inside the rating engine (stable across renames)."""
    return f"m{member_id}"


def member_of_key(key: str) -> int:
    return int(key[1:])


def system_of(ladder: Ladder) -> RatingSystem:
    settings = ladder.settings
    return make_system(settings.system, dict(settings.params), settings.edition)


def _rated_by(ladder: Ladder) -> tuple[object, ...]:
    """The settings a ladder's ratings follow from (the system made of them): another value
    means another system, whose checkpoints are none of the old one's."""
    settings = ladder.settings
    return settings.system, settings.params, settings.edition


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

    def __init__(self, state: ClubState, ladder: Ladder, games: dict[int, tuple[object, Match]]):
        self.state = state
        self.ladder = ladder
        self.games = games
        self.known: set[str] = set()
        self.retired: set[str] = set()
        #: the event name of each step made (empty for steps that are no event)
        self.labels: list[str] = []
        #: where each game rated on its own stands among the steps made, by its record's id
        self.positions: dict[int, int] = {}
        #: where each closed season ends among the steps made (the steps before its boundary),
        #: by its index in the ladder's seasons (issue 38)
        self.boundaries: dict[int, int] = {}
        self._keys: dict[int, str] = {}

    def fork(self) -> _Derivation:
        """A derivation that goes on from this one's end without changing it (a preview's)."""
        fork = _Derivation(self.state, self.ladder, self.games)
        fork.known, fork.retired = set(self.known), set(self.retired)
        fork.boundaries = dict(self.boundaries)
        fork._keys = self._keys
        return fork

    def key(self, member_id: int) -> str:
        key = self._keys.get(member_id)
        if key is None:
            key = self._keys[member_id] = player_key(self.state.member(member_id).id)
        return key

    def game(self, record: GameRecord) -> Match | None:
        if record.team:
            return self._team_game(record)
        a, b = self.key(record.player_a), self.key(record.player_b)
        if a == b:  # two records of one person, merged: the game no longer means anything
            return None
        # Everything the step is made of: a previewed correction cached under the same id can
        # never be mistaken for a later, different one.
        first_move = FIRST_MOVE[record.colour]
        stamp = (a, b, record.score_a, record.handicap, record.played_at, first_move,
                 record.seconds)
        cached = self.games.get(record.id)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        game = Game(a, b, record.score_a, record.played_at, record.handicap, record.seconds,
                    first_move)
        self.games[record.id] = (stamp, game)
        return game

    def _team_game(self, record: GameRecord) -> TeamGame | None:
        """A team game as the core rates it (issue 37), with the rating points per missing
        member of the ladder's team settings."""
        side_a = tuple(map(self.key, record.side_a))
        side_b = tuple(map(self.key, record.side_b))
        if len({*side_a, *side_b}) < len(side_a) + len(side_b):
            return None  # a member's records merged on one side or across: it means nothing
        size_handicap = self.state.team_settings(self.ladder).team_size_handicap
        stamp = (side_a, side_b, record.score_a, record.handicap, record.played_at,
                 FIRST_MOVE[record.colour], size_handicap)
        cached = self.games.get(record.id)
        if cached is not None and cached[0] == stamp and isinstance(cached[1], TeamGame):
            return cached[1]
        game = TeamGame(side_a, side_b, record.score_a, record.played_at, record.handicap,
                        FIRST_MOVE[record.colour], size_handicap)
        self.games[record.id] = (stamp, game)
        return game

    def _returns(self, games: Sequence[Match]) -> list[Step]:
        back: list[Step] = []
        for game in games:
            for key in players_of(game):
                if key in self.retired:
                    self.retired.discard(key)
                    back.append(Return(key, game.played_at))
        for game in games:
            self.known.update(players_of(game))
        return back

    def steps(self, inputs: Sequence[tuple[str, int | str]]) -> list[Step]:
        out: list[Step] = []
        labels = self.labels
        positions = self.positions
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
                if type(game) is Game:  # the common case, kept lean
                    known.add(game.player_a)
                    known.add(game.player_b)
                else:
                    known.update(players_of(game))
                positions[ref] = len(labels)
                out.append(game)
                labels.append("")
            elif kind == "member":
                assert isinstance(ref, int)
                if ladder.membership[ref].event is None:
                    step = self._membership(ref)
                    if step is not None:
                        out.append(step)
                        labels.append("")
            elif kind == "season":
                assert isinstance(ref, int)
                self.boundaries[ref] = len(labels)
                season = ladder.seasons[ref]
                if season.reset != "none":  # a boundary without a reset is no step
                    out.append(SeasonStart(season.closed_at, season.reset, season.factor))
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

    def _period(self, key: str) -> tuple[list[Event], list[Match]]:
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
            return Join(key, entry.at, member.birth_date, entry.rating)
        if entry.kind is Kind.PLAYER_RETIRED:
            if key not in self.known or key in self.retired:
                return None
            self.retired.add(key)
            return Retire(key, entry.at)
        if key not in self.retired:
            return None
        self.retired.discard(key)
        return Return(key, entry.at)


@dataclass(frozen=True, slots=True)
class _Previewed:
    """A previewed correction's replay: its game at step ``position``, replayed on top of the
    ratings whose final state was ``before``."""

    before: Checkpoint
    position: int
    game: Game
    result: ReplayResult


class LadderRatings:
    def __init__(self) -> None:
        self.system: RatingSystem | None = None
        self._settings: object = None
        self._generation = -1
        self._consumed = 0
        self._derivation: _Derivation | None = None
        self._games: dict[int, tuple[object, Match]] = {}
        self._previewed: _Previewed | None = None
        self.steps: list[Step] = []
        #: each step's event name, "" for a step that is no event (export writes it back)
        self.labels: list[str] = []
        self.checkpoints: list[Checkpoint] = []
        self.final: Checkpoint | None = None

    @property
    def boundaries(self) -> dict[int, int]:
        """Where each closed season of the ladder ends among :attr:`steps` (the number of
        steps before its boundary), by its index in the ladder's seasons (issue 38): another
        dict once the steps are derived again."""
        return {} if self._derivation is None else self._derivation.boundaries

    def sync(self, state: ClubState, ladder: Ladder) -> Checkpoint:
        """Bring the ratings up to the ladder's inputs; returns the final state."""
        settings = _rated_by(ladder)
        derivation = self._derivation
        if (
            self.system is None
            or derivation is None
            or self.final is None
            or settings != self._settings
            or derivation.state is not state
        ):
            return self._rebuild(state, ladder, settings)
        replaced: dict[int, Game] = {}
        if ladder.generation != self._generation:
            found = self._replacements(ladder)
            if found is None:
                return self._rebuild(state, ladder, settings)
            replaced = found
        new = derivation.steps(ladder.inputs[self._consumed:])
        if new or replaced:
            self._go_on(state, replaced, new)
        self._generation = ladder.generation
        self._consumed = len(ladder.inputs)
        self.labels = derivation.labels
        return self.final

    def _replacements(self, ladder: Ladder) -> dict[int, Game] | None:
        """The games corrected since the last sync that differ from their steps, by their
        steps' positions; None when anything else changed (the steps are then derived again).
        A correction that settles a pending report replaces nothing: its game is a new input."""
        derivation = self._derivation
        assert derivation is not None
        gap = ladder.generation - self._generation
        if not 0 < gap <= MAX_PATCHED:
            return None
        corrected = [ladder.corrections.get(self._generation + n) for n in range(1, gap + 1)]
        new_inputs = ladder.inputs[self._consumed:]
        replaced: dict[int, Game] = {}
        for game_id in dict.fromkeys(corrected):
            if game_id is None:  # a change other than a correction
                return None
            position = derivation.positions.get(game_id)
            if position is None:
                if ("game", game_id) in new_inputs:
                    continue
                return None
            old = self.steps[position]
            game = self._game_in_place(ladder, ladder.games[game_id], old)
            if game is None:
                return None
            if game != old:
                replaced[position] = game
        return replaced

    def _game_in_place(self, ladder: Ladder, record: GameRecord, old: Step) -> Game | None:
        """``record``'s step if it can take the place of ``old``, the step it made before: a
        game rated on its own still, between the same players at the same time, so that every
        other step (a join, an implicit return) stays as it was; else None."""
        derivation = self._derivation
        assert derivation is not None
        if not record.counts or waits_for_event(ladder, record):
            return None
        game = derivation.game(record)
        if (
            type(game) is not Game  # None, or a team game: the steps are derived again
            or type(old) is not Game
            or (game.player_a, game.player_b, game.played_at)
            != (old.player_a, old.player_b, old.played_at)
        ):
            return None
        return game

    def _go_on(self, state: ClubState, replaced: dict[int, Game], new: list[Step]) -> None:
        """Put the ``replaced`` games in their places and ``new`` steps after the last, and
        replay from the last checkpoint before the first changed step (from the end when steps
        were only added). A correction previewed just before takes the preview's replay. The
        steps are changed in place: a copy of 100,000 would cost more than the change (and the
        garbage collector's passes over it)."""
        system, final, steps = self.system, self.final, self.steps
        assert system is not None and final is not None
        previewed, self._previewed = self._previewed, None
        first = min(replaced, default=final.position)
        base = final if first >= final.position else self._checkpoint_at(first)
        try:
            for position, game in replaced.items():
                steps[position] = game
            steps.extend(new)
            if (
                previewed is not None
                and previewed.before is final
                and not new
                and list(replaced.items()) == [(previewed.position, previewed.game)]
            ):
                result = previewed.result
            else:
                result = replay(system, islice(steps, base.position, None), start=base,
                                birth_dates=_births(state), checkpoint_every=CHECKPOINT_EVERY)
        except BaseException:
            # The steps may be half changed: the next sync derives and replays everything.
            self.system = self._derivation = None
            raise
        self.checkpoints = [c for c in self.checkpoints if c.position <= base.position]
        self.checkpoints.extend(result.checkpoints)
        self.final = result.final

    def _checkpoint_at(self, position: int) -> Checkpoint:
        """The last stored checkpoint at or before ``position``."""
        return max((c for c in self.checkpoints if c.position <= position),
                   key=lambda c: c.position)

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
        base = self._checkpoint_at(start)
        result = replay(system, steps[base.position:], start=base, birth_dates=_births(state),
                        checkpoint_every=CHECKPOINT_EVERY)
        self.checkpoints = [c for c in self.checkpoints if c.position <= base.position]
        self.checkpoints.extend(result.checkpoints)
        self.system = system
        self._settings = settings
        self._generation = ladder.generation
        self._consumed = len(ladder.inputs)
        self._derivation = derivation
        self._previewed = None
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
        """The final state if ``changed`` replaced its record; nothing is kept but the replay,
        for applying the same correction next."""
        assert self.system is not None
        fast = self._preview_synced(state, ladder, changed)
        if fast is not None:
            return fast
        inputs = list(ladder.inputs)
        if ("game", changed.id) not in inputs:  # a pending or disputed report being settled
            inputs.append(("game", changed.id))
        with _substituted(ladder, changed):
            steps = _Derivation(state, ladder, self._games).steps(inputs)
        start = self._first_difference(steps)
        base = self._checkpoint_at(start)
        return replay(self.system, steps[base.position:], start=base,
                      birth_dates=_births(state)).final

    def _preview_synced(
        self, state: ClubState, ladder: Ladder, changed: GameRecord
    ) -> Checkpoint | None:
        """:meth:`preview` on ratings in sync with the ladder, without deriving its steps again:
        the changed game in its place, or a settled report's game after the last step; None
        when neither applies."""
        derivation, final = self._derivation, self.final
        if (
            derivation is None
            or final is None
            or derivation.state is not state
            or _rated_by(ladder) != self._settings
            or ladder.generation != self._generation
            or self._consumed != len(ladder.inputs)
        ):
            return None
        assert self.system is not None
        position = derivation.positions.get(changed.id)
        if position is None:
            return self._preview_settled(state, ladder, changed)
        old = self.steps[position]
        game = self._game_in_place(ladder, changed, old)
        if game is None:
            return None
        if game == old:
            return final
        base = self._checkpoint_at(position)
        steps = chain(islice(self.steps, base.position, position), (game,),
                      islice(self.steps, position + 1, None))
        result = replay(self.system, steps, start=base, birth_dates=_births(state),
                        checkpoint_every=CHECKPOINT_EVERY)
        self._previewed = _Previewed(final, position, game, result)
        return result.final

    def _preview_settled(
        self, state: ClubState, ladder: Ladder, changed: GameRecord
    ) -> Checkpoint | None:
        """The final state if ``changed``, a pending or disputed report, were settled: its
        step derived after the last one (None when its game is among the steps already)."""
        derivation, final = self._derivation, self.final
        assert derivation is not None and final is not None and self.system is not None
        if ("game", changed.id) in ladder.inputs:
            return None
        with _substituted(ladder, changed):
            new = derivation.fork().steps([("game", changed.id)])
        if not new:
            return final
        return replay(self.system, new, start=final, birth_dates=_births(state)).final


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


@dataclass(frozen=True, slots=True)
class Hypothetical:
    """A game not in the log rated as its confirmation would rate it (issue 38's points at
    stake): ``before``, the states it is rated from (its retired players back, its newcomers
    admitted as the system starts them); ``after``, the final state for each score asked."""

    game: Match
    before: Checkpoint
    after: tuple[Checkpoint, ...]


def hypothetical(
    ratings: LadderRatings | None, state: ClubState, ladder: Ladder, record: GameRecord,
    scores: Sequence[float],
) -> Hypothetical | None:
    """``record``, a game that is no step (a waiting report, a game only thought of), replayed
    on top of the ladder's final checkpoint once for each of ``scores`` (the first side's), with
    the steps a confirmation now would append: a retired player's implicit return, then the
    game. ``ratings`` None: a ladder not made yet (a companion before its first team game),
    whose ratings start empty under ``ladder``'s system. Nothing is kept; None for a game that
    means nothing (a member on both sides)."""
    if ratings is None:
        system = system_of(ladder)
        final = replay(system, ()).final
        derivation = _Derivation(state, ladder, {})
    else:
        final = ratings.sync(state, ladder)
        assert ratings.system is not None and ratings._derivation is not None
        system = ratings.system
        derivation = ratings._derivation.fork()
        derivation.games = {}  # nothing of a game that is not in the log is cached
    game = derivation.game(record)
    if game is None:
        return None
    returns = derivation._returns([game])
    births = _births(state)
    newcomers = [key for key in players_of(game) if final.state(key) is None]
    admitted: list[Step] = [RatingPeriod(tuple[Event, ...](
        Join(key, game.played_at, births.get(key)) for key in newcomers))] if newcomers else []
    # The states the game is predicted from: the steps before it, its newcomers admitted
    # together as its own admission admits them (one share of the pool each).
    before = replay(system, [*returns, *admitted], start=final, birth_dates=births).final
    after = tuple(
        replay(system, [*returns, replace(game, score_a=score)], start=final,
               birth_dates=births).final
        for score in scores
    )
    return Hypothetical(game, before, after)
