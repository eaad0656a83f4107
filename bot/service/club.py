"""The club's use cases, platform-neutral: every front-end calls these and renders the answers.

Each call runs under the club's lock: read the log's new events, apply what time has made due
(auto-confirmations, inactivity retirements), decide, then append the decision's events and
record the answer in one transaction. A refusal changes nothing and is answered with a
:class:`Refusal`. A call that carries a request id answers a repeat of that id with the first
answer, whatever happened since.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import gc
import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from bot.service.history_csv import History as CsvHistory
from bot.storage.repository import (
    Conflict,
    DuplicateRequest,
    JsonValue,
    NewEvent,
    Repository,
    StoredEvent,
)
from ratings_core.model import Game, PlayerState, Step
from ratings_core.parameters import describe
from ratings_core.replay import Checkpoint, ReplayError
from ratings_core.system import RatingSystem
from ratings_core.systems import make_system, preset_params

from . import evaluating, heavy, importing, news, timeline
from . import parsing as parse
from . import schedules as sched
from .clock import Clock
from .errors import Refusal
from .identity import UserRef, Who, valid_handle, who_from_json, who_to_json
from .lookalike import skeletons
from .parsing import MAX_NAME
from .ratings import LadderRatings, member_of_key, player_key, waits_for_event
from .results import (
    Audit,
    AuditLine,
    GameLine,
    GameResult,
    HeadToHead,
    History,
    Leaderboard,
    Notice,
    Pending,
    Preview,
    Profile,
    RatingChange,
    RatingHistory,
    RatingPoint,
    Result,
    ScheduleInfo,
    Standing,
    decode,
    encode,
)
from .state import (
    DEFAULT_LADDER,
    DEFAULT_SYSTEM,
    DEFAULT_TIMEZONE,
    ClubState,
    GameRecord,
    GameStatus,
    Kind,
    Ladder,
    LadderSettings,
    Member,
    expired,
)

log = logging.getLogger(__name__)

SYSTEM_ACTOR = "system"
MAX_REASON = 200
#: open challenges one member may have issued at once: enough to line up an evening's games,
#: too few to challenge the whole club (spam); answered or expired ones free a place
MAX_OPEN_CHALLENGES = 3
#: announcements of auto-confirmed results kept per club until the scheduler collects them
MAX_UNANNOUNCED = 100
#: events (or a ladder's rating inputs) from which reading, folding and rating them is done in a
#: worker thread rather than on the event loop (10,000 take about 0.1 s)
OFF_LOOP_EVENTS = 2000
#: a ladder sync taking this long made many objects that live as long as the club's cache
LONG_SYNC_SECONDS = 0.2
#: ladders one club may have (the main one included): every ladder is replayed, charted and
#: posted on its own, so their number bounds the work one club can make
MAX_LADDERS = 20
_LADDER_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
_EVENT_NAME = re.compile(r"^[\w-]{1,32}$")
#: settings a moderator may change with /set, and how their text is read


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks, where, and with which platform request id (for idempotency)."""

    platform: str
    chat_id: str
    user: str
    name: str
    moderator: bool = False
    request_id: str | None = None
    #: the caller's platform username (a Telegram @username, a Discord username), if any: never
    #: a full or display name. Stored as the member's handle when it is a valid one.
    handle: str | None = None


@dataclass(frozen=True, slots=True)
class Correction:
    """What a moderator changes in a game; ``None`` keeps the value. ``result`` is player_a's."""

    result: str | None = None
    player_a: Who | None = None
    player_b: Who | None = None
    handicap: str | None = None

    def kept(self) -> str:
        """As kept with a preview: JSON, a member named by user id as ``{"user": id}``."""
        fields = dataclasses.asdict(self)
        for side in ("player_a", "player_b"):
            fields[side] = who_to_json(getattr(self, side))
        return json.dumps(fields, separators=(",", ":"))

    @classmethod
    def from_kept(cls, kept: str) -> Correction:
        fields = json.loads(kept)
        for side in ("player_a", "player_b"):
            fields[side] = who_from_json(fields.get(side))
        return cls(**fields)


@dataclass(slots=True)
class _Club:
    id: int
    state: ClubState
    ratings: dict[str, LadderRatings] = field(default_factory=dict)


Decision = tuple[list[NewEvent], Callable[[], Result]]


class ClubService:
    def __init__(self, repository: Repository, clock: Clock) -> None:
        self._repository = repository
        self._clock = clock
        self._clubs: dict[int, _Club] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._club_ids: dict[tuple[str, str], int] = {}
        #: announcements of results that auto-confirmed, until :meth:`due` hands them out
        self._unannounced: dict[int, list[Notice]] = {}

    @property
    def clock(self) -> Clock:
        """The service's clock (front-ends' rate limits count time by it too)."""
        return self._clock

    # -- machinery ------------------------------------------------------------------------------

    async def _club_id(self, platform: str, chat_id: str) -> int:
        key = (platform, chat_id)
        if key not in self._club_ids:
            self._club_ids[key] = await self._repository.club_id(
                platform, chat_id, self._clock.now()
            )
        return self._club_ids[key]

    async def _load(self, club_id: int) -> _Club:
        club = self._clubs.get(club_id)
        if club is None:
            events = await self._repository.events(club_id)
            if len(events) >= OFF_LOOP_EVENTS:  # a long log: the event loop goes on meanwhile
                club = _Club(club_id, await asyncio.to_thread(ClubState.build, events))
                _long_lived()
            else:
                club = _Club(club_id, ClubState.build(events))
            self._clubs[club_id] = club
        return club

    async def _refresh(self, club: _Club) -> bool:
        """Fold what other processes appended since our reading; True if there was any."""
        fresh = await self._repository.events(club.id, after=club.state.last_id)
        await self._fold_off_loop(club, fresh)
        if len(fresh) >= OFF_LOOP_EVENTS:  # e.g. an import by the shell: rate it off the loop
            await self._sync_off_loop(club)
        return bool(fresh)

    async def _fold_off_loop(self, club: _Club, stored: Sequence[StoredEvent]) -> None:
        """:meth:`_fold`, in a worker thread when it is big (an import, an /undo that folds a
        long log again): the club's lock, which the caller holds, keeps the club's other
        commands off the state meanwhile, and the event loop serves the other clubs."""
        rebuild = any(e.kind == Kind.ACTION_UNDONE for e in stored)
        if len(stored) >= OFF_LOOP_EVENTS or (rebuild and len(club.state.log) >= OFF_LOOP_EVENTS):
            await self._in_worker(club, lambda: self._fold(club, stored))
        else:
            self._fold(club, stored)

    async def _sync_off_loop(self, club: _Club) -> None:
        """Bring long ladders' ratings up to date in a worker thread, under the club's lock that
        the caller holds (a first replay of 100,000 games takes a second); what the command
        then asks of them is quick."""
        for ladder in list(club.state.ladders.values()):
            if len(ladder.inputs) >= OFF_LOOP_EVENTS:
                started = time.monotonic()
                await self._in_worker(club, functools.partial(self._ratings, club, ladder))
                if time.monotonic() - started >= LONG_SYNC_SECONDS:  # a replay of many games
                    _long_lived()

    async def _in_worker(self, club: _Club, work: Callable[[], object]) -> None:
        """``work`` on the club's cached state, in a worker thread; if the wait ends otherwise
        (the command is cancelled), the worker may go on changing that state after the lock is
        let go: the cache is forgotten, and the next command reads the log again."""
        try:
            await asyncio.to_thread(work)
        except BaseException:
            self._clubs.pop(club.id, None)
            raise

    async def _execute(
        self, caller: Caller, decide: Callable[[_Club, datetime], Decision],
        off_loop: heavy.Deadline | None = None,
    ) -> Result:
        """Decide under the club's lock and carry the decision out. With ``off_loop`` the
        decision is made in a worker thread, within that deadline (a heavy one: an import)."""
        club_id = await self._club_id(caller.platform, caller.chat_id)
        lock = self._locks.setdefault(club_id, asyncio.Lock())
        async with lock:
            for attempt in range(3):
                try:
                    if attempt == 0:
                        return await self._attempt(club_id, caller, decide, off_loop)
                    return await self._attempt_exclusive(club_id, caller, decide, off_loop)
                except Conflict:
                    # Another process wrote first: read its events and decide again.
                    log.info("club %s changed underneath, retrying (%d)", club_id, attempt + 1)
                except DuplicateRequest:
                    # A redelivered update: its first answer stands, nothing more is written.
                    assert caller.request_id is not None
                    stored = await self._repository.answer(club_id, caller.request_id)
                    assert stored is not None
                    return decode(stored)
            raise RuntimeError(f"club {club_id} keeps changing; giving up")

    async def _attempt_exclusive(
        self, club_id: int, caller: Caller, decide: Callable[[_Club, datetime], Decision],
        off_loop: heavy.Deadline | None = None,
    ) -> Result:
        """An attempt holding the club's write lock from reading to writing: after losing a
        race to a busy process, optimism would keep losing it."""
        try:
            async with self._repository.exclusive(club_id):
                club = self._clubs.get(club_id)
                if club is not None:
                    await self._refresh(club)
                return await self._attempt(club_id, caller, decide, off_loop)
        except Refusal:
            raise
        except BaseException:
            # Releasing the lock commits what was written inside it; if that failed, the
            # cache may hold events the log has not: read the log again.
            self._clubs.pop(club_id, None)
            raise

    async def _attempt(
        self, club_id: int, caller: Caller, decide: Callable[[_Club, datetime], Decision],
        off_loop: heavy.Deadline | None = None,
    ) -> Result:
        """Decide on the state in memory. A write's transaction checks that nobody appended in
        between (else :class:`Conflict`); a read first folds what others appended."""
        club = await self._load(club_id)
        await self._sync_off_loop(club)
        now = self._clock.now()
        due = self._due(club, now)
        while due:
            announcing = self._announcing(club, due)
            await self._commit(club, due, None, None)
            self._announce_due(club, announcing)
            # What that made due in turn: an auto-confirmed game may be old enough already to
            # retire its players for inactivity.
            due = self._due(club, now)
        decision = await self._decided(decide, club, now, off_loop)
        if (isinstance(decision, Refusal) or not decision[0]) and await self._refresh(club):
            # others wrote: answer from their state
            decision = await self._decided(decide, club, now, off_loop)
        if isinstance(decision, Refusal):
            refused = decision
            if caller.request_id is not None:
                await self._commit(club, [], caller.request_id, lambda: refused)
            raise refused
        events, answer = decision
        if not events:
            return answer()
        return await self._commit(club, events, caller.request_id, answer)

    async def _decided(
        self, decide: Callable[[_Club, datetime], Decision], club: _Club, now: datetime,
        off_loop: heavy.Deadline | None,
    ) -> Decision | Refusal:
        """The decision, on the event loop, or in a worker thread within ``off_loop`` (the
        club's lock, held by the caller, keeps the club's state still meanwhile)."""
        if off_loop is None:
            return _decide(decide, club, now)
        try:
            return await heavy.run(lambda deadline: _decide(decide, club, now), off_loop)
        except BaseException:
            # Out of time (or cancelled): the worker may still be reading, or syncing the
            # ratings, when the lock is let go; forget this state and read the log again.
            self._clubs.pop(club.id, None)
            raise

    async def _commit(
        self,
        club: _Club,
        events: Sequence[NewEvent],
        request_id: str | None,
        answer: Callable[[], Result | Refusal] | None,
    ) -> Result:
        try:
            async with self._repository.transaction(club.id, club.state.last_id) as tx:
                stored = await tx.append(events)
                await self._fold_off_loop(club, stored)
                result = answer() if answer is not None else Notice("ok")
                if request_id is not None:
                    await tx.remember(request_id, encode(result))
        except Conflict:
            raise  # refused at the first append, before anything was folded: the cache holds
        except BaseException:
            # The log is the truth: forget what was folded in memory and read it again.
            self._clubs.pop(club.id, None)
            raise
        if isinstance(result, Refusal):
            raise result
        return result

    def _fold(self, club: _Club, stored: Sequence[StoredEvent]) -> None:
        if any(e.kind == Kind.ACTION_UNDONE for e in stored):
            club.state = ClubState.build([*club.state.log, *stored])
        else:
            for event in stored:
                club.state.append(event)

    def _due(self, club: _Club, now: datetime) -> list[NewEvent]:
        """What time has made due: the main ladder of a new club, auto-confirmations of
        unanswered reports, retirements for inactivity."""
        state = club.state
        if not state.ladders:
            return [NewEvent(Kind.LADDER_CREATED, SYSTEM_ACTOR, now,
                             {"ladder": DEFAULT_LADDER, "system": DEFAULT_SYSTEM, "params": {}})]
        due: list[NewEvent] = []
        for game in state.open_reports.values():
            hours = state.ladders[game.ladder].settings.auto_confirm_hours
            if game.status is GameStatus.PENDING and now >= game.reported_at + timedelta(
                hours=hours
            ):
                due.append(NewEvent(Kind.GAME_AUTO_CONFIRMED, SYSTEM_ACTOR, now,
                                    {"game": game.id}, f"unanswered for {hours:g} h"))
        for ladder in state.ladders.values():
            days = ladder.settings.inactivity_days
            if days is not None:
                final = self._ratings(club, ladder)
                for key, player in final.players.items():
                    last = player.last_played
                    if (player.status == "active" and last is not None
                            and now - last >= timedelta(days=days)):
                        member = state.members[member_of_key(key)]
                        due.append(NewEvent(Kind.PLAYER_RETIRED, SYSTEM_ACTOR, now,
                                            {"ladder": ladder.name, "member": member.user},
                                            f"no game for {days:g} days"))
        return due

    def _ratings(self, club: _Club, ladder: Ladder) -> Checkpoint:
        ratings = club.ratings.setdefault(ladder.name, LadderRatings())
        return ratings.sync(club.state, ladder)

    def _announce(
        self, club: _Club, ladder: Ladder, before: Checkpoint, after: Checkpoint,
        games: Sequence[GameRecord],
    ) -> list[Notice]:
        """What results earn on a ladder that announces (its ``announce`` setting)."""
        if not ladder.settings.announce:
            return []
        rated = [g for g in games if g.counts and not waits_for_event(ladder, g)]
        system = club.ratings[ladder.name].system
        assert system is not None
        return news.announcements(club.state, ladder, system, before, after, rated)

    def _announcing(
        self, club: _Club, due: Sequence[NewEvent]
    ) -> tuple[list[int], dict[str, Checkpoint]]:
        """The games due to auto-confirm, and the ratings before them of the ladders that
        announce."""
        ids = [int(str(e.data["game"])) for e in due if e.kind == Kind.GAME_AUTO_CONFIRMED]
        names = sorted({club.state.games[g].ladder for g in ids})
        return ids, {name: self._ratings(club, club.state.ladders[name]) for name in names
                     if club.state.ladders[name].settings.announce}

    def _announce_due(
        self, club: _Club, announcing: tuple[list[int], dict[str, Checkpoint]]
    ) -> None:
        """Keep the announcements of auto-confirmed results for :meth:`due` to hand out."""
        ids, befores = announcing
        for name, before in befores.items():
            ladder = club.state.ladders[name]
            games = [club.state.games[g] for g in ids if club.state.games[g].ladder == name]
            notices = self._announce(club, ladder, before, self._ratings(club, ladder), games)
            kept = self._unannounced.setdefault(club.id, [])
            kept.extend(notices)
            del kept[:-MAX_UNANNOUNCED]  # nobody collects them (no scheduler): keep the latest

    # -- lookups --------------------------------------------------------------------------------

    def _me(self, club: _Club, caller: Caller) -> Member:
        member = club.state.member_of_user(caller.user)
        if member is None:
            raise Refusal("not_registered")
        return member

    def _member(self, club: _Club, who: Who) -> Member:
        """The member a command names: one the platform pointed at by their user id alone;
        typed text by display name or handle alone, never by a user id."""
        if isinstance(who, UserRef):
            found = club.state.member_of_user(who.user)
            if found is None:
                raise Refusal("unknown_member", name=who.shown[:MAX_NAME])
            return found
        name = who.strip().removeprefix("@")
        if not name:
            raise Refusal("name_a_member")
        if len(name) > MAX_NAME:
            raise Refusal("unknown_member", name=name[:MAX_NAME] + "…")
        member = club.state.member_named(name)
        if member is None:
            raise Refusal("unknown_member", name=name)
        return member

    def _ladder(self, club: _Club, name: str | None) -> Ladder:
        ladder = club.state.ladder(name or DEFAULT_LADDER)
        if ladder is None:
            raise Refusal("unknown_ladder", ladder=(name or "")[:MAX_NAME],
                          ladders=", ".join(sorted(club.state.ladders)))
        return ladder

    def _game(self, club: _Club, game_id: int) -> GameRecord:
        game = club.state.game(game_id)
        if game is None:
            raise Refusal("unknown_game", game=game_id)
        return game

    @staticmethod
    def _moderator(club: _Club, caller: Caller) -> None:
        """Moderators are the platform's (admins, a role: ``caller.moderator``) plus the members
        the club has named."""
        if caller.moderator:
            return
        me = club.state.member_of_user(caller.user)
        if me is None or me.id not in club.state.moderators:
            raise Refusal("moderators_only")

    @staticmethod
    def _reason(text: str) -> str:
        text = text.strip()
        if len(text) > MAX_REASON:
            raise Refusal("too_long", limit=MAX_REASON)
        return text

    def _line(self, club: _Club, game: GameRecord) -> GameLine:
        state = club.state
        return GameLine(
            id=game.id,
            ladder=game.ladder,
            played_at=game.played_at.date().isoformat(),
            player_a=state.member(game.player_a).name,
            player_b=state.member(game.player_b).name,
            score_a=game.score_a,
            status=game.status.value,
            handicap=game.handicap,
            event=game.event,
            voided=game.voided,
        )

    def _standing(self, club: _Club, ladder: Ladder, member: Member) -> PlayerState | None:
        return self._ratings(club, ladder).state(player_key(member.id))

    def _changes(
        self, club: _Club, ladder: Ladder, before: Checkpoint, after: Checkpoint,
        members: Sequence[int] | None = None,
    ) -> list[RatingChange]:
        """Rating changes between two states, for the given members or everyone who moved."""
        system = club.ratings[ladder.name].system
        assert system is not None
        keys = (
            [player_key(m) for m in members] if members is not None
            else sorted(set(after.table.names) | set(before.table.names))
        )
        changes = []
        for key in keys:
            old, new = before.state(key), after.state(key)
            old_rating = None if old is None else old.rating
            new_rating = None if new is None else new.rating
            if members is None and old_rating == new_rating:
                continue
            changes.append(RatingChange(
                name=club.state.member(member_of_key(key)).name,
                before=old_rating,
                after=new_rating,
                provisional=new is not None and system.is_provisional(new),
            ))
        return changes

    # -- members --------------------------------------------------------------------------------

    async def register(
        self, caller: Caller, name: str | None = None, birth_date: str | None = None
    ) -> Result:
        """Join the club (and its main ladder) under a display name."""

        def decide(club: _Club, now: datetime) -> Decision:
            existing = club.state.member_of_user(caller.user)
            if existing is not None:
                raise Refusal("already_registered", name=existing.name)
            display = parse.display_name(name if name else caller.name)
            if club.state.member_named(display) is not None:
                raise Refusal("name_taken", name=display)
            # Nor a name that only looks like a member's (a Cyrillic а in "alice"): new names
            # only, the names members already have stay as they are.
            similar = club.state.member_like(display)
            if similar is not None:
                raise Refusal("name_like", name=display, member=similar.name)
            born = parse.birth_date(birth_date, now) if birth_date else None
            data: dict[str, JsonValue] = {
                "user": caller.user, "name": display, "ladder": DEFAULT_LADDER,
                "birth_date": born.isoformat() if born else None,
                # Members are also found by their platform username: a valid one only (a
                # full name, or a number, is no handle).
                "handle": (caller.handle if valid_handle(caller.platform, caller.handle)
                           and caller.handle != display else None),
            }
            event = NewEvent(Kind.MEMBER_REGISTERED, caller.user, now, data)
            return [event], lambda: Notice("registered", {"name": display,
                                                           "ladder": DEFAULT_LADDER})

        return await self._execute(caller, decide)

    async def profile(
        self, caller: Caller, who: Who | None = None, ladder: str | None = None
    ) -> Result:
        """Rating, rank, games, W/D/L, peak and the last five results of a member."""

        def decide(club: _Club, now: datetime) -> Decision:
            member = self._member(club, who) if who else self._me(club, caller)
            lad = self._ladder(club, ladder)
            return [], lambda: self._profile(club, lad, member)

        return await self._execute(caller, decide)

    def _profile(self, club: _Club, ladder: Ladder, member: Member) -> Profile:
        final = self._ratings(club, ladder)
        system = club.ratings[ladder.name].system
        assert system is not None
        state = final.state(player_key(member.id))
        games = self._games_of(club, ladder, member)
        wins = sum(1 for _, score in games if score == 1.0)
        losses = sum(1 for _, score in games if score == 0.0)
        board = self._board(club, ladder)
        rank = next((row.rank for row in board.rows if row.name == member.name), None)
        recent = ["W" if s == 1.0 else "L" if s == 0.0 else "D" for _, s in games[-5:]][::-1]
        return Profile(
            name=member.name,
            ladder=ladder.name,
            rating=None if state is None else state.rating,
            provisional=state is not None and system.is_provisional(state),
            deviation=None if state is None else state.deviation,
            rank=rank,
            games=len(games),
            wins=wins,
            draws=len(games) - wins - losses,
            losses=losses,
            peak=None if state is None else state.best,
            recent=recent,
            retired=state is not None and state.status != "active",
        )

    def _games_of(
        self, club: _Club, ladder: Ladder, member: Member, other: Member | None = None
    ) -> list[tuple[GameRecord, float]]:
        """The member's counting games in rating order, with the member's score."""
        state = club.state
        out = []
        for game in ladder.games.values():
            if not game.counts:
                continue
            a, b = state.member(game.player_a).id, state.member(game.player_b).id
            if a == b or member.id not in (a, b):
                continue
            if other is not None and other.id not in (a, b):
                continue
            out.append((game, game.score_a if a == member.id else 1.0 - game.score_a))
        out.sort(key=lambda item: item[0].seq or 0)
        return out

    async def clubs_of(self, platform: str, user: str) -> list[str]:
        """The chats of the platform whose club has this person as a member (what a private
        chat with the bot speaks about)."""
        found = []
        for club_id, club_platform, chat_id in await self._repository.clubs():
            if club_platform != platform:
                continue
            lock = self._locks.setdefault(club_id, asyncio.Lock())
            async with lock:
                club = await self._load(club_id)
                await self._refresh(club)
                if club.state.member_of_user(user) is not None:
                    found.append(chat_id)
        return found

    async def history(
        self, caller: Caller, who: Who | None = None, ladder: str | None = None,
        limit: int = 10,
    ) -> Result:
        """A member's latest games, newest first."""

        def decide(club: _Club, now: datetime) -> Decision:
            member = self._member(club, who) if who else self._me(club, caller)
            lad = self._ladder(club, ladder)

            def answer() -> History:
                games = self._games_of(club, lad, member)[::-1][:limit]
                return History(member.name, lad.name, [self._line(club, g) for g, _ in games])

            return [], answer

        return await self._execute(caller, decide)

    async def rating_history(
        self, caller: Caller, who: Who | None = None, ladder: str | None = None,
        deadline: heavy.Deadline | None = None,
    ) -> Result:
        """A member's rating after every step of the ladder that concerned them (a chart).
        Replayed in a worker thread on a copy of the ladder's ratings, outside the club's lock,
        within ``heavy.CHART_SECONDS`` (or ``deadline``: the whole /chart's)."""
        deadline = deadline or heavy.Deadline(heavy.CHART_SECONDS, "chart_too_slow")
        work: list[Callable[[heavy.Deadline], RatingHistory]] = []

        def decide(club: _Club, now: datetime) -> Decision:
            member = self._member(club, who) if who else self._me(club, caller)
            lad = self._ladder(club, ladder)
            work.append(self._rating_history(club, lad, member))
            return [], lambda: Notice("ok")

        await self._execute(caller, decide)
        return await heavy.run(work[-1], deadline)

    def _rating_history(
        self, club: _Club, ladder: Ladder, member: Member
    ) -> Callable[[heavy.Deadline], RatingHistory]:
        """The member's history, to be worked out from a frozen copy of the ladder's ratings."""
        self._ratings(club, ladder)
        frozen = timeline.freeze(club.ratings[ladder.name], club.state)
        system, key = frozen.system, player_key(member.id)
        name, ladder_name = member.name, ladder.name

        def history(deadline: heavy.Deadline) -> RatingHistory:
            points = [
                RatingPoint(at.isoformat(), state.rating, system.is_provisional(state),
                            state.deviation, state.games)
                for at, state in timeline.trajectory(frozen, key, deadline.check)
            ]
            return RatingHistory(name, ladder_name, points)

        return history

    async def head_to_head(
        self, caller: Caller, other: Who, ladder: str | None = None
    ) -> Result:
        """The caller's record against another member."""

        def decide(club: _Club, now: datetime) -> Decision:
            me = self._me(club, caller)
            them = self._member(club, other)
            if them.id == me.id:
                raise Refusal("not_yourself")
            lad = self._ladder(club, ladder)

            def answer() -> HeadToHead:
                games = self._games_of(club, lad, me, them)
                wins = sum(1 for _, s in games if s == 1.0)
                losses = sum(1 for _, s in games if s == 0.0)
                return HeadToHead(
                    me.name, them.name, lad.name, wins, len(games) - wins - losses, losses,
                    [self._line(club, g) for g, _ in games[::-1][:10]],
                )

            return [], answer

        return await self._execute(caller, decide)

    async def leaderboard(self, caller: Caller, ladder: str | None = None) -> Result:
        """The ladder's ranking; retired players left out, provisional ones marked."""

        def decide(club: _Club, now: datetime) -> Decision:
            lad = self._ladder(club, ladder)
            return [], lambda: self._board(club, lad)

        return await self._execute(caller, decide)

    async def leaderboard_at(
        self, caller: Caller, when: datetime | timedelta, ladder: str | None = None,
        deadline: heavy.Deadline | None = None,
    ) -> Result:
        """The ladder's ranking as it stood at ``when`` (a moment, or how long before now):
        what changes are measured against. Replayed in a worker thread on a copy of the
        ladder's ratings, outside the club's lock, within ``heavy.CARD_SECONDS`` (or
        ``deadline``: the whole /card's)."""
        deadline = deadline or heavy.Deadline(heavy.CARD_SECONDS, "card_too_slow")
        work: list[Callable[[heavy.Deadline], Leaderboard]] = []

        def decide(club: _Club, now: datetime) -> Decision:
            lad = self._ladder(club, ladder)
            moment = now - when if isinstance(when, timedelta) else when
            self._ratings(club, lad)
            frozen = timeline.freeze(club.ratings[lad.name], club.state)
            names = {player_key(m): club.state.member(m).name for m in club.state.members}
            name, hide = lad.name, lad.settings.hide_provisional

            def board(deadline: heavy.Deadline) -> Leaderboard:
                final = timeline.frozen_state_at(frozen, moment)
                return _standings(name, final, frozen.system, names.__getitem__, hide)

            work.append(board)
            return [], lambda: Notice("ok")

        await self._execute(caller, decide)
        return await heavy.run(work[-1], deadline)

    def _board(self, club: _Club, ladder: Ladder, when: datetime | None = None) -> Leaderboard:
        final = self._ratings(club, ladder)
        if when is not None:
            final = timeline.state_at(club.ratings[ladder.name], club.state, when)
        system = club.ratings[ladder.name].system
        assert system is not None
        return _standings(ladder.name, final, system,
                          lambda key: club.state.member(member_of_key(key)).name,
                          ladder.settings.hide_provisional)

    async def pending(self, caller: Caller) -> Result:
        """The caller's open business: reports to answer, own reports waiting, challenges."""

        def decide(club: _Club, now: datetime) -> Decision:
            me = self._me(club, caller)

            def answer() -> Pending:
                to_confirm, waiting = [], []
                for game in club.state.open_reports.values():
                    if club.state.member(game.player_b).id == me.id and (
                        game.status is GameStatus.PENDING
                    ):
                        to_confirm.append(self._line(club, game))
                    elif game.reported_by == me.id:
                        waiting.append(self._line(club, game))
                challenges = [
                    self._challenge_notice(club, c.id)
                    for c in club.state.challenges.values()
                    if c.status == "open" and not expired(c, now)
                    and me.id in (club.state.member(c.challenger).id,
                                  club.state.member(c.opponent).id)
                ]
                return Pending(to_confirm, waiting, challenges)

            return [], answer

        return await self._execute(caller, decide)

    # -- challenges ------------------------------------------------------------------------------

    def _challenge_notice(self, club: _Club, challenge_id: int, key: str = "challenge") -> Notice:
        challenge = club.state.challenges[challenge_id]
        return Notice(key, {
            "challenge": challenge.id,
            "challenger": club.state.member(challenge.challenger).name,
            "opponent": club.state.member(challenge.opponent).name,
            "ladder": challenge.ladder,
            "expires_at": challenge.expires_at.isoformat(timespec="minutes"),
        })

    async def challenge(
        self, caller: Caller, opponent: Who, ladder: str | None = None
    ) -> Result:
        """Challenge a member to a game; they accept or decline before it expires."""

        def decide(club: _Club, now: datetime) -> Decision:
            me = self._me(club, caller)
            them = self._member(club, opponent)
            if them.id == me.id:
                raise Refusal("not_yourself")
            lad = self._ladder(club, ladder)
            for c in club.state.challenges.values():
                pair = {club.state.member(c.challenger).id, club.state.member(c.opponent).id}
                if c.status == "open" and not expired(c, now) and pair == {me.id, them.id}:
                    raise Refusal("challenge_exists", challenge=c.id, opponent=them.name)
            issued = sum(1 for c in club.state.challenges.values()
                         if c.status == "open" and not expired(c, now)
                         and club.state.member(c.challenger).id == me.id)
            if issued >= MAX_OPEN_CHALLENGES:
                raise Refusal("too_many_challenges", count=issued)
            expires = now + timedelta(hours=lad.settings.challenge_hours)
            event = NewEvent(Kind.CHALLENGE_ISSUED, caller.user, now, {
                "ladder": lad.name, "challenger": me.user, "opponent": them.user,
                "expires_at": expires.isoformat(),
            })
            return [event], lambda: self._challenge_notice(
                club, club.state.last_id, "challenge_issued"
            )

        return await self._execute(caller, decide)

    async def answer_challenge(
        self, caller: Caller, accept: bool, challenge_id: int | None = None
    ) -> Result:
        """Accept or decline a challenge addressed to the caller."""

        def decide(club: _Club, now: datetime) -> Decision:
            me = self._me(club, caller)
            if challenge_id is not None:
                challenge = club.state.challenges.get(challenge_id)
                if challenge is None:
                    raise Refusal("unknown_challenge", challenge=challenge_id)
                if club.state.member(challenge.opponent).id != me.id:
                    raise Refusal("not_your_challenge", challenge=challenge_id)
            else:
                mine = [
                    c for c in club.state.challenges.values()
                    if club.state.member(c.opponent).id == me.id and c.status == "open"
                    and not expired(c, now)
                ]
                if not mine:
                    lapsed = [
                        c for c in club.state.challenges.values()
                        if club.state.member(c.opponent).id == me.id and expired(c, now)
                    ]
                    if lapsed:
                        raise Refusal("challenge_expired", challenge=lapsed[-1].id)
                    raise Refusal("no_challenge")
                if len(mine) > 1:
                    raise Refusal("which_challenge", ids=", ".join(str(c.id) for c in mine))
                challenge = mine[0]
            if expired(challenge, now):
                raise Refusal("challenge_expired", challenge=challenge.id)
            if challenge.status != "open":
                raise Refusal("challenge_answered", challenge=challenge.id,
                              status=challenge.status)
            kind = Kind.CHALLENGE_ACCEPTED if accept else Kind.CHALLENGE_DECLINED
            event = NewEvent(kind, caller.user, now, {"challenge": challenge.id})
            key = "challenge_accepted" if accept else "challenge_declined"
            return [event], lambda: self._challenge_notice(club, challenge.id, key)

        return await self._execute(caller, decide)

    # -- results --------------------------------------------------------------------------------

    async def report(
        self,
        caller: Caller,
        opponent: Who,
        result: str,
        *,
        player: Who | None = None,
        handicap: str | None = None,
        colour: str | None = None,
        event: str | None = None,
        ladder: str | None = None,
    ) -> Result:
        """Report a game: ``result`` is the first player's (the caller's, or ``player``'s when a
        moderator reports for two members). A member's report waits for the opponent; a
        moderator's counts at once."""

        def decide(club: _Club, now: datetime) -> Decision:
            if player is not None:
                self._moderator(club, caller)
                first = self._member(club, player)
            else:
                first = self._me(club, caller)
            second = self._member(club, opponent)
            if first.id == second.id:
                raise Refusal("not_yourself")
            score = parse.score(result)
            points = parse.handicap(handicap)
            side = parse.colour(colour)
            lad = self._ladder(club, ladder)
            before = self._ratings(club, lad)
            system = club.ratings[lad.name].system
            assert system is not None
            try:
                system.check(Game("a", "b", score, now, points))
            except ValueError:
                raise Refusal("system_cannot_rate", system=lad.settings.system) from None
            tournament = None
            if event:
                found = lad.tournaments.get(event.casefold())
                if found is None or found.closed is not None:
                    raise Refusal("no_open_event", event=event[:MAX_NAME])
                tournament = found.name
            direct = caller.moderator
            data: dict[str, JsonValue] = {
                "ladder": lad.name, "player_a": first.user, "player_b": second.user,
                "score_a": score, "handicap": points, "colour": side, "event": tournament,
                "played_at": now.isoformat(), "reported_by": caller.user if not direct else None,
                "direct": direct,
            }
            new = NewEvent(Kind.GAME_REPORTED, caller.user, now, data)

            def answer() -> GameResult:
                game = self._game(club, club.state.last_id)
                if not direct:
                    return GameResult("reported", self._line(club, game))
                if waits_for_event(lad, game):
                    return GameResult("recorded", self._line(club, game))
                after = self._ratings(club, lad)
                changes = self._changes(club, lad, before, after, [first.id, second.id])
                return GameResult("recorded", self._line(club, game), changes,
                                  self._announce(club, lad, before, after, [game]))

            return [new], answer

        return await self._execute(caller, decide)

    def _pending_for(
        self, club: _Club, me: Member, game_id: int | None, *, as_reporter: bool
    ) -> GameRecord:
        """The game a confirm, dispute or withdraw is about: the given id, or the only one."""
        state = club.state
        if game_id is not None:
            game = self._game(club, game_id)
            players = (state.member(game.player_a).id, state.member(game.player_b).id)
            if me.id not in players:
                raise Refusal("not_your_game", game=game_id)
            mine = game.reported_by == me.id if as_reporter else (
                state.member(game.player_b).id == me.id and game.reported_by != me.id
            )
            if not mine:
                raise Refusal("not_yours_to_answer" if not as_reporter else "not_your_report",
                              game=game_id)
            if game.status is GameStatus.CONFIRMED:
                raise Refusal("already_confirmed", game=game_id)
            if game.status is GameStatus.WITHDRAWN:
                raise Refusal("game_withdrawn", game=game_id)
            return game
        candidates = [
            g
            for g in state.open_reports.values()
            if g.status in ((GameStatus.PENDING, GameStatus.DISPUTED) if as_reporter
                            else (GameStatus.PENDING,))
            and (g.reported_by == me.id if as_reporter
                 else state.member(g.player_b).id == me.id and g.reported_by != me.id)
        ]
        if not candidates:
            raise Refusal("nothing_pending")
        if len(candidates) > 1:
            raise Refusal("which_game", ids=", ".join(str(g.id) for g in candidates))
        return candidates[0]

    async def confirm(self, caller: Caller, game_id: int | None = None) -> Result:
        """The opponent confirms a reported result; it counts from now."""

        def decide(club: _Club, now: datetime) -> Decision:
            me = self._me(club, caller)
            game = self._pending_for(club, me, game_id, as_reporter=False)
            if game.status is GameStatus.DISPUTED:
                raise Refusal("game_disputed", game=game.id)
            ladder = club.state.ladders[game.ladder]
            before = self._ratings(club, ladder)
            event = NewEvent(Kind.GAME_CONFIRMED, caller.user, now, {"game": game.id})

            def answer() -> GameResult:
                if waits_for_event(ladder, game):  # rated when the event closes
                    return GameResult("confirmed", self._line(club, game))
                after = self._ratings(club, ladder)
                players = [club.state.member(game.player_a).id,
                           club.state.member(game.player_b).id]
                return GameResult("confirmed", self._line(club, game),
                                  self._changes(club, ladder, before, after, players),
                                  self._announce(club, ladder, before, after, [game]))

            return [event], answer

        return await self._execute(caller, decide)

    async def dispute(
        self, caller: Caller, game_id: int | None = None, reason: str = ""
    ) -> Result:
        """The opponent disputes a reported result; a moderator settles it."""

        def decide(club: _Club, now: datetime) -> Decision:
            me = self._me(club, caller)
            why = self._reason(reason)
            game = self._pending_for(club, me, game_id, as_reporter=False)
            if game.status is GameStatus.DISPUTED:
                raise Refusal("game_disputed", game=game.id)
            event = NewEvent(Kind.GAME_DISPUTED, caller.user, now, {"game": game.id}, why)
            return [event], lambda: GameResult("disputed", self._line(club, game))

        return await self._execute(caller, decide)

    async def withdraw(self, caller: Caller, game_id: int | None = None) -> Result:
        """A member takes back their own report before it counts."""

        def decide(club: _Club, now: datetime) -> Decision:
            me = self._me(club, caller)
            game = self._pending_for(club, me, game_id, as_reporter=True)
            event = NewEvent(Kind.GAME_WITHDRAWN, caller.user, now, {"game": game.id})
            return [event], lambda: GameResult("withdrawn", self._line(club, game))

        return await self._execute(caller, decide)

    # -- moderators -----------------------------------------------------------------------------

    async def correct(
        self,
        caller: Caller,
        game_id: int,
        correction: Correction,
        *,
        apply: bool = False,
        reason: str = "",
    ) -> Result:
        """Change a game's result, players or handicap. Without ``apply`` nothing is written and
        the answer previews every rating that would change."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            why = self._reason(reason)
            game = self._game(club, game_id)
            if game.voided:
                raise Refusal("game_voided", game=game_id)
            if game.status is GameStatus.WITHDRAWN:
                raise Refusal("game_withdrawn", game=game_id)
            changes: dict[str, JsonValue] = {}
            corrected = replace(game, status=GameStatus.CONFIRMED, seq=game.seq or 10**18,
                                version=game.version + 1)
            if correction.result is not None:
                corrected.score_a = changes["score_a"] = parse.score(correction.result)
            if correction.handicap is not None:
                corrected.handicap = changes["handicap"] = parse.handicap(correction.handicap)
            for side, text in (("player_a", correction.player_a),
                               ("player_b", correction.player_b)):
                if text is not None:
                    member = self._member(club, text)
                    setattr(corrected, side, member.id)
                    changes[side] = member.user
            if club.state.member(corrected.player_a).id == club.state.member(
                corrected.player_b
            ).id:
                raise Refusal("not_yourself")
            if not changes and game.status is GameStatus.CONFIRMED:
                raise Refusal("nothing_to_correct")
            ladder = club.state.ladders[game.ladder]
            before = self._ratings(club, ladder)
            if not apply:
                preview = club.ratings[ladder.name].preview(club.state, ladder, corrected)
                moved = self._changes(club, ladder, before, preview)
                return [], lambda: Preview(game_id, moved, applied=False)
            event = NewEvent(Kind.GAME_CORRECTED, caller.user, now,
                             {"game": game_id, "changes": changes}, why)

            def applied() -> Preview:
                # The same numbers the preview showed: the corrected log, re-rated once.
                after = self._ratings(club, ladder)
                return Preview(game_id, self._changes(club, ladder, before, after), applied=True)

            return [event], applied

        return await self._execute(caller, decide)

    async def preview_correction(
        self, caller: Caller, game_id: int, correction: Correction
    ) -> Result:
        """:meth:`correct`'s preview, kept in the repository as the caller's pending correction
        (replacing an earlier one), for :meth:`apply_correction` or :meth:`cancel_correction`
        to find, whichever process and however much later."""
        answer = await self.correct(caller, game_id, correction)
        club_id = await self._club_id(caller.platform, caller.chat_id)
        kept = correction.kept()
        await self._repository.keep_preview(club_id, caller.user, game_id, kept,
                                            self._clock.now())
        return answer

    async def apply_correction(self, caller: Caller, game_id: int | None = None) -> Result | None:
        """Apply the caller's pending correction (only if it is of ``game_id`` when given: an
        older preview's button applies nothing); None when there is none. The preview is taken
        away first, so that it is applied once however often Apply is pressed; an update
        delivered again gets its first answer."""
        club_id = await self._club_id(caller.platform, caller.chat_id)
        if caller.request_id is not None:
            stored = await self._repository.answer(club_id, caller.request_id)
            if stored is not None:
                return decode(stored)
        taken = await self._repository.take_preview(club_id, caller.user, game_id)
        if taken is None:
            return None
        game, kept = taken
        return await self.correct(caller, game, Correction.from_kept(kept), apply=True)

    async def cancel_correction(self, caller: Caller, game_id: int | None = None) -> int | None:
        """Drop the caller's pending correction (of ``game_id`` when given); its game, or None
        when there was none."""
        club_id = await self._club_id(caller.platform, caller.chat_id)
        taken = await self._repository.take_preview(club_id, caller.user, game_id)
        return None if taken is None else taken[0]

    async def void(
        self, caller: Caller, game_id: int, reason: str = "", restore: bool = False
    ) -> Result:
        """Take a game out of the ratings (or put a voided one back)."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            why = self._reason(reason)
            game = self._game(club, game_id)
            if restore and not game.voided:
                raise Refusal("game_not_voided", game=game_id)
            if not restore and game.voided:
                raise Refusal("game_voided", game=game_id)
            ladder = club.state.ladders[game.ladder]
            before = self._ratings(club, ladder)
            kind = Kind.GAME_RESTORED if restore else Kind.GAME_VOIDED
            event = NewEvent(kind, caller.user, now, {"game": game_id}, why)

            def answer() -> GameResult:
                after = self._ratings(club, ladder)
                return GameResult("restored" if restore else "voided", self._line(club, game),
                                  self._changes(club, ladder, before, after))

            return [event], answer

        return await self._execute(caller, decide)

    async def merge(self, caller: Caller, duplicate: Who, into: Who, reason: str = "") -> Result:
        """Fold a duplicate member record into the real one: its games become theirs."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            why = self._reason(reason)
            gone, kept = self._member(club, duplicate), self._member(club, into)
            if gone.id == kept.id:
                raise Refusal("same_member", name=kept.name)
            event = NewEvent(Kind.PLAYERS_MERGED, caller.user, now,
                             {"from": gone.user, "into": kept.user}, why)
            return [event], lambda: Notice("merged", {"from": gone.name, "into": kept.name})

        return await self._execute(caller, decide)

    async def set_membership(
        self, caller: Caller, who: Who, retire: bool, ladder: str | None = None,
        reason: str = "",
    ) -> Result:
        """Retire a player (their deficit goes to the newcomers' pool) or bring them back."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            why = self._reason(reason)
            member = self._member(club, who)
            lad = self._ladder(club, ladder)
            state = self._standing(club, lad, member)
            if state is None:
                raise Refusal("not_in_ladder", name=member.name, ladder=lad.name)
            active = state.status == "active"
            if retire and not active:
                raise Refusal("already_retired", name=member.name)
            if not retire and active:
                raise Refusal("not_retired", name=member.name)
            kind = Kind.PLAYER_RETIRED if retire else Kind.PLAYER_RETURNED
            event = NewEvent(kind, caller.user, now, {"ladder": lad.name, "member": member.user},
                             why)
            key = "retired" if retire else "returned"
            return [event], lambda: Notice(key, {"name": member.name, "ladder": lad.name})

        return await self._execute(caller, decide)

    async def set_event(
        self, caller: Caller, name: str, open_: bool, ladder: str | None = None
    ) -> Result:
        """Open an event (its games are rated together) or close it (and rate them)."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            lad = self._ladder(club, ladder)
            if not _EVENT_NAME.match(name):
                raise Refusal("bad_event_name", limit=MAX_NAME)
            found = lad.tournaments.get(name.casefold())
            if open_ and found is not None:
                raise Refusal("event_exists", event=found.name)
            if not open_ and (found is None or found.closed is not None):
                raise Refusal("no_open_event", event=name)
            kind = Kind.EVENT_OPENED if open_ else Kind.EVENT_CLOSED
            title = name if found is None else found.name
            event = NewEvent(kind, caller.user, now, {"ladder": lad.name, "name": title})
            key = "event_opened" if open_ else "event_closed"

            def answer() -> Notice:
                games = sum(1 for g in lad.games.values()
                            if g.counts and g.event == title) if not open_ else 0
                return Notice(key, {"event": title, "ladder": lad.name, "games": games})

            return [event], answer

        return await self._execute(caller, decide)

    async def create_ladder(
        self, caller: Caller, name: str, system: str = DEFAULT_SYSTEM,
        params: dict[str, str] | None = None,
    ) -> Result:
        """A new ladder of the club with its own rating system."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            key = name.strip().casefold()
            if not _LADDER_NAME.match(key):
                raise Refusal("bad_ladder_name", limit=MAX_NAME)
            if key in club.state.ladders:
                raise Refusal("ladder_exists", ladder=key)
            if len(club.state.ladders) >= MAX_LADDERS:
                raise Refusal("too_many_ladders", limit=MAX_LADDERS)
            checked = parse.system_params(system, params or {})
            event = NewEvent(Kind.LADDER_CREATED, caller.user, now,
                             {"ladder": key, "system": system, "params": dict(checked)})
            return [event], lambda: Notice("ladder_created", {"ladder": key, "system": system})

        return await self._execute(caller, decide)

    async def set_system(
        self, caller: Caller, system: str, params: dict[str, str] | None = None,
        ladder: str | None = None,
    ) -> Result:
        """Change a ladder's rating system or parameters; the whole ladder is re-rated."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            lad = self._ladder(club, ladder)
            checked = parse.system_params(system, params or {})
            event = NewEvent(Kind.SETTINGS_CHANGED, caller.user, now, {
                "ladder": lad.name,
                "settings": {"system": system, "params": dict(checked)},
            })
            return [event], lambda: Notice("system_set", {
                "ladder": lad.name, "system": system,
                "params": ", ".join(f"{k}={v}" for k, v in checked) or "defaults",
            })

        return await self._execute(caller, decide)

    async def set_setting(
        self, caller: Caller, setting: str, value: str, ladder: str | None = None
    ) -> Result:
        """Change one of a ladder's settings (auto-confirm hours, challenge hours, ...)."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            lad = self._ladder(club, ladder)
            parsed = parse.setting(setting, value)
            event = NewEvent(Kind.SETTINGS_CHANGED, caller.user, now,
                             {"ladder": lad.name, "settings": {setting: parsed}})
            return [event], lambda: Notice("setting_set", {
                "ladder": lad.name, "setting": setting, "value": _shown(parsed)})

        return await self._execute(caller, decide)

    async def settings(self, caller: Caller, ladder: str | None = None) -> Result:
        """A ladder's rating system, parameters and settings."""

        def decide(club: _Club, now: datetime) -> Decision:
            lad = self._ladder(club, ladder)
            s = lad.settings
            params = preset_params(make_system(s.system, dict(s.params)))
            described = ", ".join(f"{k}={v}" for k, (v, _) in describe(params).items())
            return [], lambda: Notice("settings", {
                "ladder": lad.name, "system": s.system, "params": described,
                "auto_confirm_hours": _shown(s.auto_confirm_hours),
                "challenge_hours": _shown(s.challenge_hours),
                "inactivity_days": _shown(s.inactivity_days),
                "hide_provisional": _shown(s.hide_provisional),
                "announce": _shown(s.announce),
                "timezone": s.timezone or DEFAULT_TIMEZONE,
                "ladders": ", ".join(sorted(club.state.ladders)),
            })

        return await self._execute(caller, decide)

    async def audit(self, caller: Caller, limit: int = 20) -> Result:
        """Who did what, when and why: the latest entries of the club's log."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)

            def answer() -> Audit:
                undone = {e.data.get("target") for e in club.state.log
                          if e.kind == Kind.ACTION_UNDONE}
                lines = []
                for e in club.state.log[::-1][:max(1, min(limit, 100))]:
                    summary = _summary(e)
                    if e.id in undone:
                        summary += " (undone)"
                    lines.append(AuditLine(e.id, e.at.isoformat(timespec="minutes"), e.actor,
                                           str(e.kind), summary, e.reason))
                return Audit(lines)

            return [], answer

        return await self._execute(caller, decide)

    async def evaluate(self, caller: Caller, ladder: str | None = None) -> Result:
        """Moderators: which rating system would have predicted the ladder's later games best
        (``clubrating evaluate`` in short): worked out in a worker thread on a copy of the
        ladder's steps, outside the club's lock, within ``heavy.EVALUATE_SECONDS``."""
        holder: list[tuple[str, str, list[Step]]] = []

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            lad = self._ladder(club, ladder)
            self._ratings(club, lad)
            holder.append((lad.name, lad.settings.system, list(club.ratings[lad.name].steps)))
            return [], lambda: Notice("ok")

        await self._execute(caller, decide)
        name, current, steps = holder[-1]  # decided again after a refresh: the latest
        deadline = heavy.Deadline(heavy.EVALUATE_SECONDS, "evaluation_too_slow", ladder=name)
        return await heavy.run(
            lambda d: evaluating.compare(name, current, steps, d.check), deadline
        )

    async def moderator_role(self, platform: str, chat_id: str) -> str | None:
        """The platform role whose holders moderate the club (``/set moderator_role``, kept on
        the main ladder), or None. Front-ends ask it to build a :class:`Caller`."""
        club_id = await self._club_id(platform, chat_id)
        async with self._locks.setdefault(club_id, asyncio.Lock()):
            club = await self._load(club_id)
            await self._refresh(club)
            main = club.state.ladder(DEFAULT_LADDER)
            return None if main is None else main.settings.moderator_role

    async def name_moderator(self, caller: Caller, who: Who, named: bool) -> Result:
        """The platform's moderators name a member moderator of the club (or take it back)."""

        def decide(club: _Club, now: datetime) -> Decision:
            if not caller.moderator:
                raise Refusal("platform_moderators_only")
            member = self._member(club, who)
            if named == (member.id in club.state.moderators):
                raise Refusal("already_moderator" if named else "not_moderator",
                              name=member.name)
            kind = Kind.MODERATOR_NAMED if named else Kind.MODERATOR_REMOVED
            event = NewEvent(kind, caller.user, now, {"member": member.user})
            key = "moderator_named" if named else "moderator_removed"
            return [event], lambda: Notice(key, {"name": member.name})

        return await self._execute(caller, decide)

    async def undo(self, caller: Caller) -> Result:
        """Take back the latest moderator action still in force."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            # What the bot did by itself (the main ladder of a new club, retirements for
            # inactivity) is no moderator's action to take back.
            actions = [e for e in club.state.undoable if e.actor != SYSTEM_ACTOR]
            if not actions:
                raise Refusal("nothing_to_undo")
            target = actions[-1]
            if target.kind == Kind.LADDER_CREATED and _ladder_used(club.state, target):
                raise Refusal("ladder_in_use", ladder=str(target.data.get("ladder")))
            event = NewEvent(Kind.ACTION_UNDONE, caller.user, now, {"target": target.id})
            return [event], lambda: Notice("undone", {"action": str(target.kind), "id": target.id,
                                                      "summary": _summary(target)})

        return await self._execute(caller, decide)

    # -- scheduled posts (issue 6) ----------------------------------------------------------------

    def _schedule_info(self, club: _Club, ladder: Ladder, now: datetime, key: str
                       ) -> ScheduleInfo:
        schedule = club.state.schedule(ladder)
        zone = sched.timezone_of(ladder, schedule.timezone)
        upcoming = None if schedule.paused else sched.next_fire(
            sched.cron_trigger(schedule.cron, zone), now)
        return ScheduleInfo(
            key, ladder.name, schedule.cron, zone, schedule.channel, schedule.paused,
            schedule.size, None if upcoming is None else sched.local_time(upcoming, zone),
        )

    async def set_schedule(
        self, caller: Caller, ladder: str | None = None, *, cron: str | None = None,
        timezone: str | None = None, channel: str | None = None, size: str | None = None,
    ) -> Result:
        """Set when (a cron expression in an IANA zone) and where (a channel, or the club's
        own chat) the ladder's leaderboard is posted, and its length; what is not given
        stays as it was."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            lad = self._ladder(club, ladder)
            if cron is None and timezone is None and channel is None and size is None:
                raise Refusal("schedule_nothing")
            current = club.state.schedule(lad)
            zone = sched.check_timezone(timezone) if timezone is not None else current.timezone
            expr = sched.check_cron(cron if cron is not None else current.cron,
                                    sched.timezone_of(lad, zone), now)
            target = current.channel if channel is None else sched.check_channel(channel)
            rows = current.size if size is None else sched.check_size(size)
            event = NewEvent(Kind.SCHEDULE_SET, caller.user, now, {
                "ladder": lad.name, "cron": expr, "timezone": zone, "channel": target,
                "size": rows,
            })
            return [event], lambda: self._schedule_info(club, lad, now, "schedule_set")

        return await self._execute(caller, decide)

    async def show_schedule(self, caller: Caller, ladder: str | None = None) -> Result:
        """When and where the ladder's leaderboard is posted next."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            lad = self._ladder(club, ladder)
            return [], lambda: self._schedule_info(club, lad, now, "schedule_shown")

        return await self._execute(caller, decide)

    async def pause_schedule(
        self, caller: Caller, paused: bool, ladder: str | None = None, reason: str = ""
    ) -> Result:
        """Stop the ladder's scheduled posts, or start them again (from the next time on)."""

        def decide(club: _Club, now: datetime) -> Decision:
            self._moderator(club, caller)
            lad = self._ladder(club, ladder)
            if club.state.schedule(lad).paused == paused:
                raise Refusal("schedule_already_paused" if paused else "schedule_not_paused",
                              ladder=lad.name)
            kind = Kind.SCHEDULE_PAUSED if paused else Kind.SCHEDULE_RESUMED
            event = NewEvent(kind, caller.user, now, {"ladder": lad.name}, self._reason(reason))
            key = "schedule_paused" if paused else "schedule_resumed"
            return [event], lambda: self._schedule_info(club, lad, now, key)

        return await self._execute(caller, decide)

    async def schedules(self) -> list[sched.Plan]:
        """Every ladder's posting plan in every club, as the logs say now (what the scheduler
        builds its jobs from)."""
        plans: list[sched.Plan] = []
        for club_id, platform, chat_id in await self._repository.clubs():
            lock = self._locks.setdefault(club_id, asyncio.Lock())
            async with lock:
                club = await self._load(club_id)
                await self._refresh(club)
                plans.extend(sched.plans_of(club_id, platform, chat_id, club.state))
        return plans

    async def digest(
        self, caller: Caller, ladder: str | None = None, since: datetime | None = None,
        *, scheduled: bool = False,
    ) -> Result:
        """The ladder's digest: its leaderboard's top with each rating's change, climbers and
        fallers, players who became established, newcomers, players close to retirement for
        inactivity and the number of games, since ``since``. Without ``since``: since the
        ladder's latest scheduled post time, or (``scheduled``: the scheduler asks, and there
        was no earlier post) since the ladder began."""

        def decide(club: _Club, now: datetime) -> Decision:
            lad = self._ladder(club, ladder)
            schedule = club.state.schedule(lad)
            start = since
            if start is None and not scheduled:
                zone = sched.timezone_of(lad, schedule.timezone)
                start = sched.latest_fire(sched.cron_trigger(schedule.cron, zone), None, now)

            def answer() -> Result:
                final = self._ratings(club, lad)
                ratings = club.ratings[lad.name]
                assert ratings.system is not None
                before = timeline.state_at(ratings, club.state, start or datetime.min)
                return news.build_digest(club.state, lad, ratings.system, self._board(club, lad),
                                         before, final, start, now, schedule.size)

            return [], answer

        return await self._execute(caller, decide)

    # -- import and export ----------------------------------------------------------------------

    async def export_history(
        self, platform: str, chat_id: str, ladder: str | None = None
    ) -> tuple[list[Step], dict[str, str], list[str]]:
        """The ladder's effective history as replay steps, engine keys -> display names, and
        each step's event name (empty when it is no event)."""
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        holder: list[tuple[list[Step], dict[str, str], list[str]]] = []

        def decide(club: _Club, now: datetime) -> Decision:
            lad = self._ladder(club, ladder)
            self._ratings(club, lad)
            ratings = club.ratings[lad.name]
            names = {player_key(m.id): m.name for m in club.state.members.values()}
            holder.append((list(ratings.steps), names, list(ratings.labels)))
            return [], lambda: Notice("ok")

        await self._execute(caller, decide)
        return holder[0]

    async def import_history(
        self, platform: str, chat_id: str, history: CsvHistory, labels: list[str],
        ladder: str | None = None, actor: str = "import",
    ) -> Result:
        """Append a history read from EVENTS.csv: every row is checked by replaying it on top of
        the ladder first; one bad row refuses the whole file and nothing is stored. The check
        runs in a worker thread (the event loop goes on), within ``heavy.IMPORT_SECONDS``."""
        caller = Caller(platform, chat_id, actor, actor, moderator=True)
        deadline = heavy.Deadline(heavy.IMPORT_SECONDS, "import_too_slow")

        def decide(club: _Club, now: datetime) -> Decision:
            lad = self._ladder(club, ladder)
            self._ratings(club, lad)
            ratings = club.ratings[lad.name]
            assert ratings.system is not None and ratings.final is not None
            by_name = {m.name.casefold(): m for m in club.state.members.values()
                       if m.id not in club.state.merged_into}
            if ratings.system.uses_seconds:
                # The log keeps no solving times (nor does the chat report any): games stored
                # without them would break every later rating of the ladder.
                raise Refusal("system_cannot_rate", system=lad.settings.system)
            importing.check_dates(history, lad.settings.timezone or DEFAULT_TIMEZONE, now)
            keys: dict[str, str] = {}
            events: list[NewEvent] = []
            where = importing.first_seen(history)
            #: the file's new names, by their skeletons: two of them may not look alike either
            new_names: dict[str, str] = {}
            members_like = club.state.look_alikes()
            for name in importing.names_in(history.steps):
                member = by_name.get(name.casefold())
                if member is not None:
                    keys[name] = player_key(member.id)
                    continue
                display = parse.display_name(name)
                user = f"import:{display}"
                if club.state.member_of_user(user) is not None:
                    raise Refusal("name_taken", name=display)
                row, column = where[name]
                similar = club.state.member_like(display, members_like)
                shapes = skeletons(display)
                twin = next((new_names[s] for s in shapes if s in new_names), None)
                if similar is not None:
                    raise Refusal("import_like_member", row=row, column=column, name=name,
                                  member=similar.name)
                if twin is not None:
                    raise Refusal("import_like_row", row=row, column=column, name=name,
                                  other=twin, other_row=where[twin][0])
                new_names.update((s, name) for s in shapes)
                keys[name] = f"new:{display}"
                events.append(NewEvent(Kind.MEMBER_REGISTERED, actor, now,
                                       {"user": user, "name": display, "birth_date": None}))
            # Check every row against the ladder as it stands, before anything is written.
            try:
                timeline.replay_checked(ratings.system, importing.rekey(history.steps, keys),
                                        ratings.final, deadline.check)
            except ReplayError as error:
                # Positions count on from the ladder's own steps; names go back to the file's.
                row = history.row_of(error.position - ratings.final.position, error.event_index)
                problem = error.message
                for name, key in keys.items():
                    problem = problem.replace(repr(key), repr(name))
                raise Refusal("import_row", row=row, problem=problem) from None
            users = {name: (by_name[name.casefold()].user if name.casefold() in by_name
                            else f"import:{parse.display_name(name)}") for name in keys}
            opened: set[str] = {key for key in lad.tournaments}
            for step, label in zip(history.steps, labels, strict=True):
                events.extend(
                    importing.import_events(step, label, lad.name, users, actor, now, opened)
                )
            count = sum(1 for e in events if e.kind == Kind.GAME_REPORTED)
            return events, lambda: Notice("imported", {"games": count, "ladder": lad.name,
                                                       "steps": len(history.steps)})

        return await self._execute(caller, decide, off_loop=deadline)

    async def due(self, platform: str, chat_id: str) -> list[Notice]:
        """Apply what time has made due now (for a scheduler); answers with the announcements
        of results that auto-confirmed since the last call (on ladders that announce)."""
        caller = Caller(platform, chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR)
        await self._execute(caller, lambda club, now: ([], lambda: Notice("ok")))
        return self._unannounced.pop(await self._club_id(platform, chat_id), [])


def _long_lived() -> None:
    """A big club's state, or its ladder's replay, was just made and stays cached: take it out
    of the garbage collector's full passes (``gc.freeze``, as the bot does with what it loads
    at start, bot.charts.pictures.prepare). A full pass scans every tracked object while it
    holds the GIL, the event loop's too: with 100,000 games cached it took 0.26 s, twice per
    /chart of a long history; frozen, 0.04 s. The club's objects hold no reference cycles, so
    they are still freed when the cache lets them go."""
    gc.freeze()


def _standings(
    ladder: str, final: Checkpoint, system: RatingSystem, name_of: Callable[[str], str],
    hide_provisional: bool,
) -> Leaderboard:
    """The ranking of ``final``'s active players (``name_of`` an engine key), best first;
    provisional ones left out and counted when the ladder hides them."""
    rows: list[tuple[float, str, PlayerState]] = []
    hidden = 0
    for key, state in final.players.items():
        if state.status != "active":
            continue
        provisional = system.is_provisional(state)
        if provisional and hide_provisional:
            hidden += 1
            continue
        rows.append((state.rating, name_of(key), state))
    rows.sort(key=lambda row: (-row[0], row[1].casefold()))
    standings = [
        Standing(rank, name, state.rating, system.is_provisional(state), state.deviation,
                 state.games)
        for rank, (_, name, state) in enumerate(rows, start=1)
    ]
    return Leaderboard(ladder, standings, hidden)


# -- parsing and checks ---------------------------------------------------------------------------


def _decide(
    decide: Callable[[_Club, datetime], Decision], club: _Club, now: datetime
) -> Decision | Refusal:
    try:
        return decide(club, now)
    except Refusal as refusal:
        return refusal


def _ladder_used(state: ClubState, created: StoredEvent) -> bool:
    """Whether anything still in force happened on the ladder since ``created`` made it."""
    undone = {e.data.get("target") for e in state.log if e.kind == Kind.ACTION_UNDONE}
    name = created.data.get("ladder")
    return any(
        e.id > created.id and e.id not in undone and e.data.get("ladder") == name
        for e in state.log
    )


def _shown(value: JsonValue) -> str:
    """A setting's value as a moderator types it: 24 (not 24.0), yes/no, off."""
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _summary(event: StoredEvent) -> str:
    data = event.data
    parts = [f"{k}={v}" for k, v in data.items() if v not in (None, "", {}, [])]
    return ", ".join(parts)[:200]


__all__ = ["Caller", "ClubService", "Correction", "LadderSettings", "Refusal"]
