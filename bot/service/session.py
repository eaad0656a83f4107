"""How every use case runs on a club: under the club's lock, on its state folded from the log.

A use case is a *decision*: a function of the club (:class:`~bot.service.view.Club`) and the
time that returns the events to append and how to answer once they are folded in, or raises a
:class:`Refusal`. :meth:`Session.execute` reads the log's new events, first appends what time
has made due (auto-confirmations, inactivity retirements), decides, then appends the decision's
events in one transaction that holds only the INSERTs (with a placeholder answer under the
request's id); the answer is worked out after the commit and kept in the placeholder's place.
A refusal changes nothing and stores nothing. A write that carries a request id answers a
repeat of that id with the first answer, whatever happened since (for :data:`ANSWERS_KEPT`); a
refused or read-only request is simply decided again. When another process appended first, the
decision is made again on the new state.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import typing
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from bot.storage.repository import (
    Conflict,
    DuplicateRequest,
    NewEvent,
    Repository,
    Snapshot,
    StoredEvent,
)
from ratings_core.replay import Checkpoint
from ratings_core.systems import EDITION

from . import collector, directory, dues, heavy, snapshots, view
from . import events as ev
from .cache import DEFAULT_CAPACITY, ClubCache
from .clock import Clock, Every
from .errors import Refusal
from .identity import Caller, valid_handle
from .reasons import automatic
from .results import Notice, Result, decode, encode
from .state import DEFAULT_LADDER, DEFAULT_SYSTEM, ClubState, Kind
from .tidying import FORGET_EVERY, forget_when_due
from .view import Club

log = logging.getLogger(__name__)

#: the actor of what the bot does by itself (a new club's main ladder, auto-confirmations)
SYSTEM_ACTOR = "system"
#: announcements of auto-confirmed results kept per club until the scheduler collects them
MAX_UNANNOUNCED = 100
#: events (or a ladder's rating inputs) from which reading, folding and rating them is done in a
#: worker thread rather than on the event loop (10,000 take about 0.1 s)
OFF_LOOP_EVENTS = 2000
#: a club read or folded this many events beyond its snapshot (or without one) gets a new one:
#: 2,000 events take about 25 ms to read and fold, and a snapshot costs a row of some 500 bytes
#: an event, so small clubs (most) keep none
SNAPSHOT_EVENTS = 2000
#: what a write's request is answered with while its answer is worked out, after the commit: a
#: redelivery finds it only if the process stopped in between, and gets this short notice
#: rather than a second write
RECORDED = encode(Notice("request_recorded"))
#: how long a redelivery waits for the answer another process (or service) is working out after
#: its commit: a first replay of a 100,000-game ladder takes about a second
ANSWER_WAIT = 3.0
#: a ladder sync taking this long made many objects that live as long as the club's cache
LONG_SYNC_SECONDS = 0.2
#: how long a write's answer is kept for a redelivery of its update: Telegram keeps an update
#: the bot has not fetched for 24 hours (Discord redelivers nothing that old), so twice that
#: covers a bot that was down a whole day, and nothing older is ever asked for again
ANSWERS_KEPT = timedelta(hours=48)

R = TypeVar("R")
#: a use case's decision: the events to append, and the answer once they are folded in (a
#: :data:`Result` whenever there are events: it is kept as the request's answer)
Decision = tuple[list[NewEvent], Callable[[], R]]


class Session:
    """The clubs' cached states (at most ``cache_clubs``, :class:`ClubCache`; a long club read
    again from its snapshot, :mod:`.snapshots`), their locks, and the transaction machinery
    around decisions."""

    def __init__(self, repository: Repository, clock: Clock,
                 cache_clubs: int = DEFAULT_CAPACITY, keep_snapshots: bool = True) -> None:
        self.repository = repository
        self.clock = clock
        #: the clubs' folded states, at most ``cache_clubs`` (``CLUBRATING_CACHE_CLUBS``), and
        #: their locks
        self.clubs = ClubCache(cache_clubs)
        #: the snapshots being kept, by club (:meth:`_snapshot_if_due`); none by a reader that
        #: must leave the database as it was (``clubrating export``)
        self._snapshotting: dict[int, asyncio.Task[None]] = {}
        self._keep_snapshots = keep_snapshots
        self._club_ids: dict[tuple[str, str], int] = {}
        #: announcements of results that auto-confirmed, until :meth:`unannounced` hands them out
        #: the latest announcements of auto-confirmed results by club, numbered, and the number
        #: each chat collected last (every chat of a club of several chats gets them)
        self._unannounced: dict[int, list[tuple[int, Notice]]] = {}
        self._announced: dict[tuple[int, str, str], int] = {}
        self._announcements = 0
        #: when answers older than ANSWERS_KEPT are removed again
        self._forgetting = Every(FORGET_EVERY)
        #: called after each write with the club's id and the kinds of the events written
        #: (the live leaderboards follow the ratings so); a listener must not raise
        self.committed: list[Callable[[int, Sequence[str]], None]] = []

    async def club_id(self, platform: str, chat_id: str) -> int:
        """The chat's club: its own, created on first contact, or the one it joined."""
        key = (platform, chat_id)
        if key not in self._club_ids:
            own = await self.repository.club_id(platform, chat_id, self.clock.now())
            self._club_ids[key] = await self._destination(platform, chat_id, own)
        return self._club_ids[key]

    async def known_club(self, platform: str, chat_id: str) -> int | None:
        """The chat's club id, or None when the chat has no club (none is created)."""
        key = (platform, chat_id)
        if key not in self._club_ids:
            found = await self.repository.find_club(platform, chat_id)
            if found is None:
                return None
            self._club_ids[key] = await self._destination(platform, chat_id, found)
        return self._club_ids[key]

    async def _destination(self, platform: str, chat_id: str, club_id: int) -> int:
        """The club whose commands a chat's own club's run on: the club it joined (its log
        says so: :class:`events.ChatMoved`), else itself. A chat that left the club it joined
        (``/unlink``) while its own log was not told yet is told now."""
        for hop in range(8):  # a club that joined another joins its club (a short chain)
            moved = (await self.current(club_id)).moved_to
            if moved is None:
                return club_id
            if hop == 0 and (platform, chat_id) in (await self.current(moved)).unlinked_chats:
                await self.leave(platform, chat_id, SYSTEM_ACTOR)
                return club_id
            club_id = moved
        return club_id

    async def move(self, platform: str, chat_id: str, to: int, actor: str) -> None:
        """The chat's commands act on club ``to`` from now on: its own club's log says so
        (written once), for every process that reads it."""
        await self._own_log_says(platform, chat_id, actor, lambda state: (
            None if state.moved_to == to else ev.ChatMoved(to)))
        self._club_ids[(platform, chat_id)] = to

    async def leave(self, platform: str, chat_id: str, actor: str) -> None:
        """The chat left the club it joined: its commands act on its own club again, which
        starts empty (its own log says so, written once)."""
        own = await self._own_log_says(platform, chat_id, actor, lambda state: (
            None if state.moved_to is None else ev.ChatReturned(state.moved_to)))
        self._club_ids[(platform, chat_id)] = own

    async def _own_log_says(self, platform: str, chat_id: str, actor: str,
                            marker: Callable[[ClubState], ev.Event | None]) -> int:
        """Append ``marker`` (unless it gives None) to the chat's own club's log; its id."""
        own = await self.repository.club_id(platform, chat_id, self.clock.now())
        async with self.clubs.locked(own):
            club = await self._load(own)
            await self._refresh(club)
            event = marker(club.state)
            if event is not None:
                await self._commit(club, [ev.new_event(event, actor, self.clock.now())], None,
                                   lambda: None)
        return own

    def unannounced(self, club_id: int, platform: str, chat_id: str) -> list[Notice]:
        """The announcements of auto-confirmed results since the chat's last call, handed out
        once to each chat of the club."""
        key = (club_id, platform, chat_id)
        seen = self._announced.get(key, 0)
        kept = self._unannounced.get(club_id, [])
        if kept:
            self._announced[key] = kept[-1][0]
        return [notice for number, notice in kept if number > seen]

    def announce(self, club_id: int, notices: Sequence[Notice]) -> None:
        """Keep ``notices`` for :meth:`unannounced`: the scheduler posts them where their
        ladder's posts go (a closed season's table, issue 38)."""
        kept = self._unannounced.setdefault(club_id, [])
        for notice in notices:
            self._announcements += 1
            kept.append((self._announcements, notice))
        del kept[:-MAX_UNANNOUNCED]

    def announced(self) -> dict[int, int]:
        """The clubs with announcements kept for :meth:`unannounced`, with the number of the
        latest (what a scheduler compares with what it collected last)."""
        return {club: kept[-1][0] for club, kept in self._unannounced.items() if kept}

    async def read(self, club_id: int, look: Callable[[Club], R]) -> R:
        """``look`` at the club as its log says now, under its lock, writing nothing: nor what
        time has made due (the public web pages read; only the chat's commands write)."""
        async with self.clubs.locked(club_id):
            club = await self._load(club_id)
            await self._refresh(club)
            await self._sync_off_loop(club)
            return look(club)

    async def current(self, club_id: int) -> ClubState:
        """The club's state with what other processes appended folded in."""
        async with self.clubs.locked(club_id):
            club = await self._load(club_id)
            await self._refresh(club)
            return club.state

    # -- running a decision -------------------------------------------------------------------

    async def execute(
        self, caller: Caller, decide: Callable[[Club, datetime], Decision[R]],
        off_loop: heavy.Deadline | None = None, club_id: int | None = None,
    ) -> R:
        """Decide under the club's lock and carry the decision out. With ``off_loop`` the
        decision is made in a worker thread, within that deadline (a heavy one: an import).
        ``club_id``: another club than the caller's chat's (the club a chat joins by /link)."""
        routed = club_id is None
        if off_loop is None:
            return await self._locked(caller, lambda club: self._attempt(
                club, caller, decide, off_loop, routed), club_id)
        with collector.paused():
            answer = await self._locked(caller, lambda club: self._attempt(
                club, caller, decide, off_loop, routed), club_id)
            collector.long_lived()  # before the collector goes on: what the import made stays
        return answer

    async def look(self, caller: Caller, look: Callable[[Club, datetime], R],
                   off_loop: heavy.Deadline | None = None) -> R:
        """A read under the club's lock (what is due applied first) that writes nothing: what
        ``look`` returns is the caller's to use outside the lock (e.g. a frozen copy of the
        ratings to chart in a worker thread). With ``off_loop``, ``look`` runs in a worker
        thread within that deadline (a preview that folds the whole log again)."""

        def decide(club: Club, now: datetime) -> Decision[R]:
            found = look(club, now)
            return [], lambda: found

        return await self.execute(caller, decide, off_loop)

    async def work(
        self, caller: Caller, look: Callable[[Club, datetime], Callable[[heavy.Deadline], R]],
        deadline: heavy.Deadline,
    ) -> R:
        """Heavy reading (a chart, a past leaderboard): ``look`` takes what it needs under the
        club's lock (a frozen copy of the ratings), and the work it returns runs in a worker
        thread outside the lock, within ``deadline``."""
        return await heavy.run(await self.look(caller, look), deadline)

    async def _locked(self, caller: Caller, attempt: Callable[[int], Awaitable[R]],
                      club_id: int | None = None) -> R:
        """``attempt`` on the caller's chat's club (or ``club_id``) under its lock. A chat that
        joined another club since this process looked it up (its old log says so) is looked
        up again, and so is one that left the club it had joined."""
        for _ in range(3):
            try:
                return await self._locked_once(caller, attempt, club_id)
            except _Moved:
                self._club_ids.pop((caller.platform, caller.chat_id), None)
        raise RuntimeError(f"{caller.platform}:{caller.chat_id} keeps moving; giving up")

    async def _locked_once(self, caller: Caller, attempt: Callable[[int], Awaitable[R]],
                           club_id: int | None) -> R:
        if club_id is None:
            club_id = await self.club_id(caller.platform, caller.chat_id)
        async with self.clubs.locked(club_id):
            for tries in range(3):
                try:
                    if tries == 0:
                        return await attempt(club_id)
                    return await self._exclusive(club_id, attempt)
                except Conflict:
                    # Another process wrote first: read its events and decide again.
                    log.info("club %s changed underneath, retrying (%d)", club_id, tries + 1)
                except DuplicateRequest:
                    # A redelivered update: its first answer stands, nothing more is written.
                    assert caller.request_id is not None
                    stored = await self.first_answer(club_id, caller.request_id)
                    assert stored is not None
                    # the answer this request got the first time, of the type it had then
                    return typing.cast(R, decode(stored))
            raise RuntimeError(f"club {club_id} keeps changing; giving up")

    async def _exclusive(self, club_id: int, attempt: Callable[[int], Awaitable[R]]) -> R:
        """An attempt holding the club's write lock from reading to writing: after losing a
        race to a busy process, optimism would keep losing it."""
        try:
            async with self.repository.exclusive(club_id):
                club = self.clubs.get(club_id)
                if club is not None:
                    await self._refresh(club)
                return await attempt(club_id)
        except Refusal:
            raise
        except BaseException:
            # Releasing the lock commits what was written inside it; if that failed, the
            # cache may hold events the log has not: read the log again.
            self.clubs.pop(club_id, None)
            raise

    async def _attempt(
        self, club_id: int, caller: Caller, decide: Callable[[Club, datetime], Decision[R]],
        off_loop: heavy.Deadline | None, routed: bool = True,
    ) -> R:
        """Decide on the state in memory. A write's transaction checks that nobody appended in
        between (else :class:`Conflict`); a read first folds what others appended. ``routed``:
        the club is the caller's chat's (not one named: the club a chat joins)."""
        club = await self._load(club_id)
        _check_route(club, caller, routed)
        await self._sync_off_loop(club)
        now = self.clock.now()
        due = self._due(club, now)
        while due:
            announcing = self._announcing(club, due)
            await self._commit(club, due, None, lambda: Notice("ok"))
            self._announce_due(club, announcing)
            # What that made due in turn: an auto-confirmed game may be old enough already to
            # retire its players for inactivity.
            due = self._due(club, now)
        handle = _handle_changed(club.state, caller)
        if handle is not None:
            # Apart from the decision, so that a read or a refused command keeps it too.
            await self._commit(club, [ev.new_event(handle, caller.user, now)], None,
                               lambda: Notice("ok"), caller.sequence)
        decision = await self._decided(decide, club, now, off_loop)
        if (isinstance(decision, Refusal) or not decision[0]) and await self._refresh(club):
            # others wrote: answer from their state
            _check_route(club, caller, routed)
            decision = await self._decided(decide, club, now, off_loop)
        if isinstance(decision, Refusal):
            # A refusal stores nothing, so refused requests (a stranger's flood) never grow the
            # database; a redelivery is decided again. Only a redelivered write that is refused
            # now (a /confirm that counted the first time) gets the first answer back.
            if caller.request_id is not None:
                first = await self.first_answer(club_id, caller.request_id)
                if first is not None:
                    return typing.cast(R, decode(first))
            raise decision
        events, answer = decision
        if not events:
            return answer()
        return await self._commit(club, events, caller.request_id, answer, caller.sequence)

    async def _decided(
        self, decide: Callable[[Club, datetime], Decision[R]], club: Club, now: datetime,
        off_loop: heavy.Deadline | None,
    ) -> Decision[R] | Refusal:
        """The decision, on the event loop, or in a worker thread within ``off_loop`` (the
        club's lock, held by the caller, keeps the club's state still meanwhile)."""
        if off_loop is None:
            return _decide(decide, club, now)
        try:
            return await heavy.run(lambda deadline: _decide(decide, club, now), off_loop)
        except BaseException:
            # Out of time (or cancelled): the worker may still be reading, or syncing the
            # ratings, when the lock is let go; forget this state and read the log again.
            self.clubs.pop(club.id, None)
            raise

    async def _commit(
        self, club: Club, events: Sequence[NewEvent], request_id: str | None,
        answer: Callable[[], R], sequence: int | None = None,
    ) -> R:
        """A commit is the INSERTs (issue 41): the events (with the platform's ``sequence``
        of the update that caused them, if any), and the request's placeholder answer
        (:data:`RECORDED`), folded into the cache; the long ladders' replays and the answer
        come after the transaction, which holds nothing meanwhile, and the answer is kept
        then."""
        try:
            async with self.repository.transaction(club.id, club.state.last_id) as tx:
                stored = await tx.append(events, sequence)
                if request_id is not None:
                    await tx.remember(request_id, RECORDED, self.clock.now())
                await self._fold_off_loop(club, stored)  # cheap appends; a rebuild off the loop
                await directory.index(tx, club)  # the cross-club lookups, in the same commit
        except (Conflict, DuplicateRequest):
            raise  # refused before anything was folded: the cache holds
        except BaseException:
            # The log is the truth: forget what was folded in memory and read it again.
            self.clubs.pop(club.id, None)
            raise
        await self._sync_off_loop(club)  # replays of long ladders: off the loop, outside the tx
        result = answer()
        if request_id is not None:
            await self._keep_answer(club.id, request_id, result)
            await self._forget_old_answers()
        self._snapshot_if_due(club)
        kinds = [e.kind for e in events]
        for listener in self.committed:
            listener(club.id, kinds)
        return result

    async def first_answer(self, club_id: int, request_id: str) -> str | None:
        """The answer recorded for a request, if any. While it is :data:`RECORDED`, the
        process that wrote it may still be working it out (after its commit): waited for, up
        to :data:`ANSWER_WAIT`; a process that stopped in between leaves the placeholder."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + ANSWER_WAIT
        while True:
            stored = await self.repository.answer(club_id, request_id)
            if stored != RECORDED or loop.time() >= give_up:
                return stored
            await asyncio.sleep(0.02)

    async def _keep_answer(self, club_id: int, request_id: str, result: object) -> None:
        """The request's answer in place of :data:`RECORDED`. The write is done whatever
        happens here: a failure leaves a redelivery the short notice."""
        try:
            # a decision with events answers with a Result (Decision)
            await self.repository.keep_answer(club_id, request_id,
                                              encode(typing.cast(Result, result)))
        except Exception:
            log.exception("club %s: the answer to a write could not be kept", club_id)

    async def _forget_old_answers(self) -> None:
        """Remove the answers no redelivery can ask for any more (older than ANSWERS_KEPT), on
        the first write since start and then at most every FORGET_EVERY. A failure here leaves
        the write done: the next try is in FORGET_EVERY."""
        now = self.clock.now()
        await forget_when_due(self._forgetting, now,
                              lambda: self.repository.forget_answers(now - ANSWERS_KEPT),
                              f"answers older than {ANSWERS_KEPT}")

    # -- the cache ------------------------------------------------------------------------------

    async def _load(self, club_id: int) -> Club:
        """The club from the cache, else read (and cached, the least recently used club
        making room)."""
        club = self.clubs.get(club_id)
        if club is None:
            # Reading makes a club's objects, none of them garbage, in worker threads: a full
            # pass of the collector meanwhile (0.1 to 0.25 s with a 100,000-game club around)
            # would hold the event loop and find nothing.
            with collector.paused():
                club = await self._read(club_id)
            self.clubs.put(club)
            self._snapshot_if_due(club)
        return club

    async def _read(self, club_id: int) -> Club:
        """The club from its snapshot and the events after it, or from its whole log when it
        has no snapshot of :data:`snapshots.FORMAT` that loads (the log is the truth)."""
        state = await self._from_snapshot(club_id)
        events = await self.repository.events(club_id, after=0 if state is None else
                                              state.last_id)
        if state is not None:
            log.info("club %s read from its snapshot as of event %d and %d events after it",
                     club_id, state.last_id, len(events))
            club = Club(club_id, state, snapshot_events=len(state.log))
            await self._fold_off_loop(club, events)
        elif len(events) >= OFF_LOOP_EVENTS:  # a long log: the event loop goes on meanwhile
            club = Club(club_id, await asyncio.to_thread(ClubState.build, events))
        else:
            return Club(club_id, ClubState.build(events))
        collector.long_lived()
        return club

    async def _from_snapshot(self, club_id: int) -> ClubState | None:
        try:
            snapshot = await self.repository.snapshot(club_id)
        except Exception as error:  # derived data: the log, read next, says whether it is worse
            log.info("club %s: no snapshot could be read (%r): reading its log", club_id, error)
            return None
        if snapshot is None:
            return None
        if snapshot.format != snapshots.FORMAT:
            log.info("club %s: its snapshot is of another format (%s, not %s): reading its log",
                     club_id, snapshot.format, snapshots.FORMAT)
            return None
        try:
            state = await asyncio.to_thread(snapshots.loads, snapshot.data)
        except Exception as error:
            log.info("club %s: its snapshot could not be read (%r): reading its log", club_id,
                     error)
            return None
        if state.last_id != snapshot.last_id:
            log.info("club %s: its snapshot says event %d but holds %d: reading its log",
                     club_id, snapshot.last_id, state.last_id)
            return None
        return state

    def _snapshot_if_due(self, club: Club) -> None:
        """Keep a snapshot of the club when it has :data:`SNAPSHOT_EVENTS` events beyond its
        last one: in a task of its own that waits for the club's lock (the command that read
        them answers first, and every event folded then is committed)."""
        if (self._keep_snapshots and len(club.state.log) - club.snapshot_events >= SNAPSHOT_EVENTS
                and club.id not in self._snapshotting):
            task = asyncio.get_running_loop().create_task(self._keep_snapshot(club.id))
            self._snapshotting[club.id] = task

    async def _keep_snapshot(self, club_id: int) -> None:
        try:
            async with self.clubs.locked(club_id):
                club = self.clubs.peek(club_id)
                if club is None or len(club.state.log) - club.snapshot_events < SNAPSHOT_EVENTS:
                    return
                data = await asyncio.to_thread(snapshots.dumps, club.state)
                last_id, held = club.state.last_id, len(club.state.log)
                await self.repository.keep_snapshot(
                    club_id, Snapshot(last_id, snapshots.FORMAT, data), self.clock.now())
                club.snapshot_events = held
                log.info("club %s: snapshot as of event %d kept (%d kB)", club_id, last_id,
                         len(data) // 1000)
        except Exception:
            # Only time is lost: the club is read from its older snapshot or its log.
            log.warning("club %s: could not keep a snapshot", club_id, exc_info=True)
        finally:
            self._snapshotting.pop(club_id, None)

    async def _refresh(self, club: Club) -> bool:
        """Fold what other processes appended since our reading; True if there was any."""
        fresh = await self.repository.events(club.id, after=club.state.last_id)
        await self._fold_off_loop(club, fresh)
        if len(fresh) >= OFF_LOOP_EVENTS:  # e.g. an import by the shell: rate it off the loop
            await self._sync_off_loop(club)
            self._snapshot_if_due(club)
        return bool(fresh)

    async def _fold_off_loop(self, club: Club, stored: Sequence[StoredEvent]) -> None:
        """:meth:`_fold`, in a worker thread when it is big (an import, an /undo that folds a
        long log again): the club's lock, which the caller holds, keeps the club's other
        commands off the state meanwhile, and the event loop serves the other clubs."""
        rebuild = any(e.kind == Kind.ACTION_UNDONE for e in stored)
        if len(stored) >= OFF_LOOP_EVENTS or (rebuild and len(club.state.log) >= OFF_LOOP_EVENTS):
            await self._in_worker(club, lambda: _fold(club, stored))
        else:
            _fold(club, stored)

    async def _sync_off_loop(self, club: Club) -> None:
        """Bring long ladders' ratings up to date in a worker thread, under the club's lock that
        the caller holds (a first replay of 100,000 games takes a second); what the command
        then asks of them is quick."""
        for ladder in list(club.state.ladders.values()):
            if len(ladder.inputs) >= OFF_LOOP_EVENTS:
                started = time.monotonic()
                await self._in_worker(club, functools.partial(view.ratings, club, ladder))
                if ladder.bands:  # each member's band (issue 38): a walk of every game
                    from .bands import holders  # (a use case module: it imports this one)

                    await self._in_worker(club, functools.partial(holders, club, ladder))
                if time.monotonic() - started >= LONG_SYNC_SECONDS:  # a replay of many games
                    collector.long_lived()

    async def _in_worker(self, club: Club, work: Callable[[], object]) -> None:
        """``work`` on the club's cached state, in a worker thread; if the wait ends otherwise
        (the command is cancelled), the worker may go on changing that state after the lock is
        let go: the cache is forgotten, and the next command reads the log again."""
        try:
            with collector.paused():  # what it makes is the club's cache, not garbage
                await asyncio.to_thread(work)
        except BaseException:
            self.clubs.pop(club.id, None)
            raise

    # -- what time makes due --------------------------------------------------------------------

    def _due(self, club: Club, now: datetime) -> list[NewEvent]:
        """What time has made due: the main ladder of a new club, auto-confirmations of
        unanswered reports, attempts at problems whose time ran out, retirements for
        inactivity."""
        from .puzzles import timed_out  # (a use case module: it imports this one)

        state = club.state
        if not state.ladders:
            created = ev.LadderCreated(DEFAULT_LADDER, DEFAULT_SYSTEM, edition=EDITION)
            return [ev.new_event(created, SYSTEM_ACTOR, now)]
        due: list[NewEvent] = []
        for at, game in dues.confirmations(club):
            if now >= at:
                hours = state.ladders[game.ladder].settings.auto_confirm_hours
                due.append(ev.new_event(ev.GameAutoConfirmed(game.id), SYSTEM_ACTOR, now,
                                        automatic("reason_unanswered", hours=f"{hours:g}")))
        due += [timed_out(club, ladder, attempt, at, now)
                for at, ladder, attempt in dues.time_outs(club) if now >= at]
        for at, ladder, member in dues.retirements(club):
            if now >= at:
                days = ladder.settings.inactivity_days
                due.append(ev.new_event(
                    ev.PlayerRetired(ladder.name, state.members[member].user), SYSTEM_ACTOR,
                    now, automatic("reason_inactive", days=f"{days:g}")))
        return due

    def _announcing(
        self, club: Club, due: Sequence[NewEvent]
    ) -> tuple[list[int], dict[str, Checkpoint]]:
        """The games due to auto-confirm, and the ratings before them of the ladders that
        announce."""
        ids = [payload.game for payload in (ev.decode(e.kind, e.data) for e in due)
               if isinstance(payload, ev.GameAutoConfirmed)]
        names = sorted({club.state.games[g].ladder for g in ids})
        return ids, {name: view.ratings(club, club.state.ladders[name]) for name in names
                     if club.state.ladders[name].settings.announce}

    def _announce_due(
        self, club: Club, announcing: tuple[list[int], dict[str, Checkpoint]]
    ) -> None:
        """Keep the announcements of auto-confirmed results for :meth:`unannounced`."""
        ids, befores = announcing
        for name, before in befores.items():
            ladder = club.state.ladders[name]
            games = [club.state.games[g] for g in ids if club.state.games[g].ladder == name]
            notices = view.announce(club, ladder, before, view.ratings(club, ladder), games)
            kept = self._unannounced.setdefault(club.id, [])
            for notice in notices:
                self._announcements += 1
                kept.append((self._announcements, notice))
            del kept[:-MAX_UNANNOUNCED]  # each chat collects them, or none does: the latest


class _Moved(Exception):
    """The chat's club was looked up before the chat joined another club, or left one."""


def _check_route(club: Club, caller: Caller, routed: bool) -> None:
    if club.state.moved_to is not None:
        raise _Moved(club.state.moved_to)
    if routed and (caller.platform, caller.chat_id) in club.state.unlinked_chats:
        raise _Moved(club.id)


def _fold(club: Club, stored: Sequence[StoredEvent]) -> None:
    if any(e.kind == Kind.ACTION_UNDONE for e in stored):
        club.state = ClubState.build([*club.state.log, *stored])
    else:
        for event in stored:
            club.state.append(event)


def _handle_changed(state: ClubState, caller: Caller) -> ev.HandleChanged | None:
    """The caller's platform username when it is not the one their record holds: a typed
    @username must name its current holder, whose update this is (issue 30). Only a member's,
    and only a valid one (callers that carry none, or a display name, change nothing)."""
    record = state.by_user.get(caller.user)
    if record is None or caller.handle is None or caller.handle == state.members[record].handle:
        return None
    if not valid_handle(caller.platform, caller.handle):
        return None
    return ev.HandleChanged(caller.user, caller.handle)


def _decide(
    decide: Callable[[Club, datetime], Decision[R]], club: Club, now: datetime
) -> Decision[R] | Refusal:
    try:
        return decide(club, now)
    except Refusal as refusal:
        return refusal
