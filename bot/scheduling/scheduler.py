"""Scheduled leaderboard posts (issue 6): APScheduler wakes the bot, the clubs' logs say what is
due, and the ``posts`` table makes every post go out once.

- The clubs' event logs are the only truth. Every ``poll_seconds`` the scheduler reads every
  ladder's plan (:meth:`ClubService.schedules`, from the directory that each write keeps: no
  club's log is read) and, when any changed (a moderator in a chat, or ``clubrating schedule``
  from the shell writing to the same database), replaces the cron jobs of the plans that
  changed, one per ladder, in the ladder's time zone.
- Which post is due is a pure function of the plan and the clock
  (:func:`bot.service.schedules.due_post`): the most recent scheduled time, so after downtime the
  last missed post catches up once and older ones are skipped. Both the cron job and the poll
  ask it; whoever gets there first claims the post (``Repository.claim_post``) before sending
  it, and only a successful claim sends, so a restart or a second process never posts twice.
  (The price: a post whose sending keeps failing is not tried again after a restart.)
- Each post is its own task: a platform that fails is retried with backoff and logged, and never
  holds up another club's post.
- The same poll applies what time has made due (auto-confirmations, puzzle time-outs,
  retirements) in the clubs whose earliest due time, as the directory keeps it, has come, and
  posts the announcements those results earn; seasons that close by themselves are looked at
  only when their calendar says a close or a reminder is due. A club with nothing due is not
  read at all (issue 41: 10,000 clubs in one poll).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from apscheduler.job import Job  # type: ignore[import-untyped]
from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]
from apscheduler.triggers.interval import IntervalTrigger  # type: ignore[import-untyped]

from bot.scheduling.publishing import Button, Picture, PostRefused, Publisher
from bot.service.clock import Clock
from bot.service.club import SYSTEM_ACTOR, Caller, ClubService
from bot.service.errors import Refusal
from bot.service.reasons import automatic
from bot.service.results import Digest, Notice, PuzzlePost
from bot.service.schedules import Plan, due_post, previous_post
from bot.storage.pictures import PictureStore
from bot.storage.repository import Repository

log = logging.getLogger(__name__)

#: how often the plans are read again: a schedule changed from the shell is picked up within it
POLL_SECONDS = 30.0
#: sends of one post (the first and the retries), waiting BACKOFF, 2 BACKOFF, 4 BACKOFF, ...
ATTEMPTS = 5
BACKOFF_SECONDS = 2.0
#: a cron job that could not run on time (a busy loop) still runs this late; the poll catches
#: any later one
MISFIRE_GRACE_SECONDS = 300

#: the platform's reason for refusing a post, as far as it is kept in the log and shown
MAX_REASON_SHOWN = 150
#: plans looked at between two yields to the event loop (a poll of 10,000 clubs must not hold
#: it for all of them at once)
PLANS_PER_YIELD = 500

class PostWords(Protocol):
    """What the posts say, in a club's language (None: English): the chat layer's words
    (:class:`bot.chat.posts.ChatPosts`); the scheduler knows no catalogue."""

    def digest(self, digest: Digest, language: str | None) -> str: ...

    def announcements(self, notices: Sequence[Notice], language: str | None) -> str: ...

    def puzzle(self, post: PuzzlePost, club_chat: str, language: str | None
               ) -> tuple[str, list[Button]]: ...

    def paused(self, ladder: str, platform: str, channel: str, reason: str,
               language: str | None) -> str: ...

    async def card(self, digest: Digest, since: datetime | None, when: datetime,
                   language: str | None) -> Picture: ...


class PostScheduler:
    """Posts every ladder's digest on its schedule through the platforms' publishers."""

    def __init__(
        self,
        service: ClubService,
        repository: Repository,
        publishers: Mapping[str, Publisher],
        clock: Clock,
        words: PostWords,
        *,
        poll_seconds: float = POLL_SECONDS,
        attempts: int = ATTEMPTS,
        backoff_seconds: float = BACKOFF_SECONDS,
        pictures: bool = True,
        store: PictureStore | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.service = service
        self.repository = repository
        self.publishers = dict(publishers)
        self.clock = clock
        self.poll_seconds = poll_seconds
        self.attempts = attempts
        self.backoff_seconds = backoff_seconds
        self.words = words
        #: the posts carry their leaderboard card
        self.pictures = pictures
        #: where problems' pictures are kept (None: puzzle posts go without them)
        self.store = store
        self.sleep = sleep
        self.plans: dict[tuple[int, str, str, str], Plan] = {}
        #: per ladder, the latest scheduled time already claimed (here or by another process)
        self._handled: dict[tuple[int, str, str, str], datetime] = {}
        #: per club, the due time (as the directory keeps it) and the latest announcement the
        #: sweep acted on; per ladder, the season close and reminder it acted on
        self._swept: dict[int, str] = {}
        self._heard: dict[int, int] = {}
        self._seasons_done: dict[tuple[int, str, str, str],
                                 tuple[datetime | None, datetime | None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._scheduler: AsyncIOScheduler | None = None

    # -- running under APScheduler ----------------------------------------------------------------

    async def start(self) -> None:
        """Start APScheduler in the running loop: the poll at once and then every
        ``poll_seconds``; the cron jobs follow from the first poll."""
        scheduler = AsyncIOScheduler(timezone=UTC)
        scheduler.start()
        self._scheduler = scheduler
        # A poll that comes late (the machine was suspended, the clock jumped) still runs, once.
        scheduler.add_job(self.poll, IntervalTrigger(seconds=self.poll_seconds), id="poll",
                          next_run_time=datetime.now(UTC), coalesce=True, max_instances=1,
                          misfire_grace_time=None)
        log.info("scheduled posts: reading the plans every %g s", self.poll_seconds)

    async def stop(self, grace_seconds: float = 5.0) -> None:
        """Stop waking up; a job running (a poll reading the plans) and posts being sent get a
        moment to finish, then are cancelled."""
        scheduler, self._scheduler = self._scheduler, None
        if scheduler is not None:
            # APScheduler's shutdown cancels a job that runs and logs that as the job's error:
            # a console's /quit logged a cancelled poll (issue 31). Wake up no more, and let
            # the running jobs end first.
            scheduler.pause()
            executor = scheduler._lookup_executor("default")
            running = [f for f in getattr(executor, "_pending_futures", ()) if not f.done()]
            if running:
                await asyncio.wait(running, timeout=grace_seconds)
            scheduler.shutdown(wait=False)
        if self._tasks:
            _, pending = await asyncio.wait(set(self._tasks), timeout=grace_seconds)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def jobs(self) -> list[Job]:
        """APScheduler's jobs (the poll and one cron job per ladder that posts)."""
        return [] if self._scheduler is None else list(self._scheduler.get_jobs())

    def _rebuild(self, before: Mapping[tuple[int, str, str, str], Plan]) -> None:
        """One cron job per ladder that posts: those of the plans that changed since ``before``
        are replaced (the others keep theirs: 10,000 jobs are not made again for one)."""
        if self._scheduler is None:
            return
        for key, plan in before.items():
            if self.plans.get(key) != plan and not plan.paused:
                job = self._scheduler.get_job(f"post:{plan.club_id}:{plan.claimed_as}")
                if job is not None:
                    job.remove()
        for key, plan in self.plans.items():
            if before.get(key) != plan and not plan.paused:
                self._scheduler.add_job(
                    self.fire, plan.trigger, args=[plan.key],
                    id=f"post:{plan.club_id}:{plan.claimed_as}", coalesce=True,
                    max_instances=1, misfire_grace_time=MISFIRE_GRACE_SECONDS,
                )

    async def fire(self, key: tuple[int, str, str, str]) -> list[asyncio.Task[None]]:
        """A cron job's wake-up: post the ladder's due post, if nobody did yet."""
        plan = self.plans.get(key)
        return [] if plan is None else await self.check([plan])

    # -- what each wake-up does --------------------------------------------------------------------

    async def poll(self) -> list[asyncio.Task[None]]:
        """Read every plan again (rebuilding the jobs if any changed), post what is due, and
        post the announcements of results that auto-confirmed. Returns the tasks started."""
        try:
            plans = {p.key: p for p in await self.service.schedules()
                     if p.platform in self.publishers}
            if plans != self.plans:
                log.info("scheduled posts: %d plans (changed), jobs rebuilt", len(plans))
                before, self.plans = self.plans, plans
                self._rebuild(before)
            tasks = await self.check(list(plans.values()))
            tasks += await self._sweep(plans.values())
        except Exception:
            log.exception("scheduled posts: the poll failed; trying again at the next one")
            return []
        try:
            tasks += await self._seasons(plans.values())
        except Exception:
            log.exception("seasons: the poll failed; trying again at the next one")
        return tasks

    async def check(self, plans: Collection[Plan]) -> list[asyncio.Task[None]]:
        """Claim and start the due post of each plan (each in its own task)."""
        now = self.clock.now()
        tasks = []
        for number, plan in enumerate(plans, 1):
            if number % PLANS_PER_YIELD == 0:
                await asyncio.sleep(0)
            when = due_post(plan, now)
            if when is None or self._handled.get(plan.key) == when:
                continue
            claimed = await self.repository.claim_post(plan.club_id, plan.claimed_as, when,
                                                       now)
            self._handled[plan.key] = when
            if claimed:
                log.info("post of %s:%s %s scheduled for %s claimed", plan.platform,
                         plan.chat_id, plan.ladder, when.isoformat())
                tasks.append(self._spawn(self._post(plan, when)))
        return tasks

    async def _sweep(self, plans: Collection[Plan]) -> list[asyncio.Task[None]]:
        """Apply what time has made due in the clubs where something fell due (or that have
        announcements to hand out); post the announcements it earned into each chat of the
        club (its channel for the result's ladder, if it has one)."""
        tasks = []
        chats: dict[int, set[tuple[str, str]]] = {}
        for p in plans:
            chats.setdefault(p.club_id, set()).add((p.platform, p.chat_id))
        targets = {(p.platform, p.chat_id, p.ladder): p.target for p in plans}
        due = await self.service.due_clubs()
        heard = self.service.announced()
        # A due time acted on stays in the directory when acting wrote nothing: it is not
        # acted on again until it changes.
        clubs = sorted({club for club, when in due.items() if self._swept.get(club) != when}
                       | {club for club, number in heard.items()
                          if self._heard.get(club, 0) < number})
        for club_id in clubs:
            tasks += await self._sweep_club(sorted(chats.get(club_id, ())), targets)
            if club_id in due:
                self._swept[club_id] = due[club_id]
            self._heard[club_id] = self.service.announced().get(club_id, 0)
        return tasks

    async def _sweep_club(self, chats: Sequence[tuple[str, str]],
                          targets: Mapping[tuple[str, str, str], str]
                          ) -> list[asyncio.Task[None]]:
        tasks = []
        for platform, chat_id in chats:
            notices = await self.service.due(platform, chat_id)
            if not notices:
                continue
            by_target: dict[str, list[Notice]] = {}
            for notice in notices:
                ladder = str(notice.params.get("ladder"))
                target = targets.get((platform, chat_id, ladder), chat_id)
                by_target.setdefault(target, []).append(notice)
            language = await self.service.language(platform, chat_id)
            for target, said in by_target.items():
                message = self.words.announcements(said, language)
                tasks.append(self._spawn(self._announce(platform, target, message)))
        return tasks

    async def _seasons(self, plans: Collection[Plan]) -> list[asyncio.Task[None]]:
        """Seasons that close by themselves (issue 38, ``season_schedule``): the reminder the
        day before a boundary, and the close at it, each claimed once (``claim_post``) and
        posted where the ladder's posts go; a season without games is not closed, and the
        club's own chat is told once."""
        tasks = []
        now = self.clock.now()
        calendars = await self.service.season_calendars()
        for plan in plans:
            calendar = calendars.get((plan.club_id, plan.ladder))
            if plan.puzzles or calendar is None:
                continue
            expected = calendar.due(now)
            if expected == (None, None) or self._seasons_done.get(plan.key) == expected:
                continue  # the calendar says nothing is due, or what is was acted on
            caller = Caller(plan.platform, plan.chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR,
                            moderator=True)
            due = await self.service.season_due(caller, plan.ladder)
            # From here each post is claimed before it is made: looking again changes nothing,
            # except for a reminder the season had no games for yet (one may be played today).
            self._seasons_done[plan.key] = (expected[0],
                                            None if due.remind is None else expected[1])
            said: list[tuple[str, Notice]] = []
            if due.remind is not None and due.reminder is not None and \
                    await self.repository.claim_post(plan.club_id,
                                                     f"{plan.claimed_as}:season_reminder",
                                                     due.remind, now):
                log.info("season reminder of %s:%s %s for %s claimed", plan.platform,
                         plan.chat_id, plan.ladder, due.remind.isoformat())
                said.append((plan.target, due.reminder))
            if due.close is not None and await self.repository.claim_post(
                    plan.club_id, f"{plan.ladder}:season_close", due.close, now):
                log.info("season close of %s %s at %s claimed", plan.club_id, plan.ladder,
                         due.close.isoformat())
                try:
                    notice = await self.service.close_season_on_schedule(caller, plan.ladder,
                                                                         due.close)
                except Refusal as refused:
                    log.warning("season close of %s %s refused: %s", plan.club_id,
                                plan.ladder, refused.key)
                    continue
                skipped = notice.key == "season_skipped"
                said.append((plan.chat_id if skipped else plan.target, notice))
            if said:
                language = await self.service.language(plan.platform, plan.chat_id)
                for target, notice in said:
                    message = self.words.announcements([notice], language)
                    tasks.append(self._spawn(self._announce(plan.platform, target, message)))
        return tasks

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _post(self, plan: Plan, when: datetime) -> None:
        """Make the claimed post: the digest since the previous scheduled time, with the
        leaderboard card when pictures are on, in the club's language; a puzzle ladder's
        :meth:`_puzzle`."""
        if plan.puzzles:
            await self._puzzle(plan)
            return
        try:
            language = await self.service.language(plan.platform, plan.chat_id)
            since = previous_post(plan, when) or plan.since
            caller = Caller(plan.platform, plan.chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR,
                            moderator=True)
            digest = await self.service.digest(caller, plan.ladder, since, scheduled=True)
            assert isinstance(digest, Digest)
            if not digest.rows and not digest.games:
                log.info("post of %s:%s %s: nobody is rated yet, nothing posted",
                         plan.platform, plan.chat_id, plan.ladder)
                return
            picture = None
            if self.pictures:
                try:
                    picture = await self.words.card(digest, since, when, language)
                except Exception:
                    log.exception("post of %s:%s %s: the card could not be drawn; text only",
                                  plan.platform, plan.chat_id, plan.ladder)
        except Exception:
            log.exception("post of %s:%s %s scheduled for %s failed", plan.platform,
                          plan.chat_id, plan.ladder, when.isoformat())
            return
        try:
            await self._send(plan.platform, plan.target,
                             self.words.digest(digest, language), picture)
        except PostRefused as refused:
            await self._refused(plan, refused)

    async def _puzzle(self, plan: Plan) -> None:
        """A puzzle ladder's post: the last problem's solution and the next problem, with its
        picture and a button to solve it privately."""
        try:
            language = await self.service.language(plan.platform, plan.chat_id)
            caller = Caller(plan.platform, plan.chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR,
                            moderator=True)
            post = await self.service.puzzle_post(caller, plan.ladder)
            if post is None:
                log.info("post of %s:%s %s: no problem to post", plan.platform, plan.chat_id,
                         plan.ladder)
                return
            message, buttons = self.words.puzzle(post, plan.chat_id, language)
            picture = None
            if post.card is not None and post.card.image and self.store is not None:
                try:
                    picture = Picture(self.store.read(post.card.image), post.card.image)
                except OSError:
                    log.warning("post of %s:%s %s: the picture of %s is missing; text only",
                                plan.platform, plan.chat_id, plan.ladder, post.card.problem)
        except Exception:
            log.exception("puzzle post of %s:%s %s failed", plan.platform, plan.chat_id,
                          plan.ladder)
            return
        try:
            await self._send(plan.platform, plan.target, message, picture, buttons)
        except PostRefused as refused:
            await self._refused(plan, refused)

    async def _send(self, platform: str, chat_id: str, message: str,
                    picture: Picture | None, buttons: Sequence[Button] = ()) -> None:
        """Publish, retrying with exponential backoff; a failure is logged, not raised, except
        the platform's refusal for good (:class:`PostRefused`), which no retry mends."""
        publisher = self.publishers[platform]
        for attempt in range(1, self.attempts + 1):
            try:
                await publisher.publish(chat_id, message, picture, buttons)
                return
            except PostRefused:
                raise
            except Exception as error:
                if attempt == self.attempts:
                    log.error("posting to %s:%s failed %d times, giving up: %r", platform,
                              chat_id, attempt, error)
                    return
                delay = self.backoff_seconds * 2 ** (attempt - 1)
                log.warning("posting to %s:%s failed (%r); attempt %d of %d in %g s",
                            platform, chat_id, error, attempt + 1, self.attempts, delay)
                await self.sleep(delay)

    async def _announce(self, platform: str, chat_id: str, message: str) -> None:
        try:
            await self._send(platform, chat_id, message, None)
        except PostRefused as refused:
            log.warning("announcement to %s:%s refused by the platform: %s", platform, chat_id,
                        refused)

    async def _refused(self, plan: Plan, refused: PostRefused) -> None:
        """The platform refused the ladder's post for good: pause its schedule (no post is
        tried again until a moderator resumes it) and tell the club's own chat, once - the
        pause itself is the record that it was told."""
        reason = str(refused)[:MAX_REASON_SHOWN]
        log.warning("post of %s:%s %s to %s refused by the platform (%s): schedule paused",
                    plan.platform, plan.chat_id, plan.ladder, plan.target, reason)
        caller = Caller(plan.platform, plan.chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        try:
            await self.service.pause_schedule(
                caller, True, plan.ladder,
                # (the platform's own words, cut: the log keeps a reason of 200 characters)
                reason=automatic("reason_post_refused", refusal=reason[:100]))
        except Refusal:
            return  # paused already (another process got there first): told already
        if plan.target == plan.chat_id:
            return  # the club's chat is the one that refuses: nobody to tell there
        notice = self.words.paused(plan.ladder, plan.platform, plan.target, reason,
                                   await self.service.language(plan.platform, plan.chat_id))
        try:
            await self.publishers[plan.platform].publish(plan.chat_id, notice)
        except Exception:
            log.exception("could not tell %s:%s that its scheduled posts are paused",
                          plan.platform, plan.chat_id)
