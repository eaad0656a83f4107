"""Scheduled leaderboard posts (issue 6): APScheduler wakes the bot, the clubs' logs say what is
due, and the ``posts`` table makes every post go out once.

- The clubs' event logs are the only truth. Every ``poll_seconds`` the scheduler reads every
  ladder's plan (:meth:`ClubService.schedules`, from the directory that each write keeps: no
  club's log is read) and, when any changed (a moderator in a chat, or ``clubrating schedule``
  from the shell writing to the same database), brings the cron jobs up to date: one per
  schedule (a cron expression in a time zone), whose wake-up enqueues the posts of every ladder
  on it, 500 to a transaction (issue 41: 10,000 ladders' jobs waking at once at 09:00 queued
  10,000 transactions for the database's connections ahead of the members' commands).
- Which post is due is a pure function of the plan and the clock
  (:func:`bot.service.schedules.due_post`): the most recent scheduled time, so after downtime the
  last missed post catches up once and older ones are skipped. Both the cron job and the poll
  ask it; whoever gets there first claims the post and, in the same transaction, puts it in the
  outbox (``Repository.enqueue_post``), so a restart or a second process never posts twice.
- The scheduler only enqueues (issue 41): each post is due at a point of the post window
  (:mod:`bot.scheduling.spread`), and the senders of every process serving its platform make it
  (:mod:`bot.scheduling.sender`). Announcements and season posts are sent here, each in its
  own task, retried with backoff and logged, never holding up another club's.
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
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.job import Job  # type: ignore[import-untyped]
from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]
from apscheduler.triggers.interval import IntervalTrigger  # type: ignore[import-untyped]

from bot.scheduling.publishing import PostRefused, Publisher
from bot.scheduling.sender import ATTEMPTS, BACKOFF_SECONDS, publish_with_retries
from bot.scheduling.spread import DEFAULT_POST_WINDOW, POST_RATES, offsets, window_used
from bot.scheduling.words import PostWords
from bot.service.clock import Clock, Every
from bot.service.club import SYSTEM_ACTOR, Caller, ClubService
from bot.service.errors import Refusal
from bot.service.results import Notice
from bot.service.schedules import Plan, cron_trigger, due_post, previous_post
from bot.service.tidying import FORGET_EVERY, forget_when_due
from bot.storage.repository import QueuedPost, Repository

log = logging.getLogger(__name__)

#: how often the plans are read again: a schedule changed from the shell is picked up within it
POLL_SECONDS = 30.0
#: a cron job that could not run on time (a busy loop) still runs this late; the poll catches
#: any later one
MISFIRE_GRACE_SECONDS = 300

#: plans looked at between two yields to the event loop (a poll of 10,000 clubs must not hold
#: it for all of them at once), their due posts enqueued in one transaction
PLANS_PER_YIELD = 500

#: the ids of the cron jobs of the posts' schedules begin with it ("post:Europe/Berlin 0 9 * * 1")
JOB_PREFIX = "post:"

#: how long an outbox row that ended (sent or given up) stays, for an operator to look into;
#: then it goes (the period's claim in ``posts`` stays, which is what keeps a post from being
#: made twice)
OUTBOX_KEPT = timedelta(days=7)

#: the scheduled instants whose posts' places in the window are kept (:meth:`_offset`); more
#: are forgotten at once (a week's instants of every plan fit many times over)
OFFSETS_KEPT = 256


class PostScheduler:
    """Puts every ladder's post in the outbox on its schedule (the senders make it), and posts
    the announcements and season posts through the platforms' publishers."""

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
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        window: timedelta = DEFAULT_POST_WINDOW,
        enqueued: Callable[[], None] = lambda: None,
    ) -> None:
        self.service = service
        self.repository = repository
        self.publishers = dict(publishers)
        self.clock = clock
        self.poll_seconds = poll_seconds
        self.attempts = attempts
        self.backoff_seconds = backoff_seconds
        self.words = words
        self.sleep = sleep
        #: ``CLUBRATING_POST_WINDOW``: the posts of one platform and instant are spread over it
        self.window = window
        #: called when posts were enqueued (this process's sender looks at once)
        self.enqueued = enqueued
        #: per platform and scheduled instant, each post's delay in the window
        self._offsets: dict[tuple[str, datetime], dict[tuple[int, str], timedelta]] = {}
        #: the platforms whose window was stretched, said once per process
        self._stretched: set[str] = set()
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
        self._forgetting = Every(FORGET_EVERY)

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
        """APScheduler's jobs (the poll and one cron job per schedule a ladder posts on)."""
        return [] if self._scheduler is None else list(self._scheduler.get_jobs())

    def _rebuild(self) -> None:
        """One cron job per schedule a ladder posts on (10,000 clubs share a handful): the
        jobs of schedules no ladder uses any more go, new ones come, the others stay."""
        if self._scheduler is None:
            return
        wanted = {schedule_of(plan) for plan in self.plans.values() if not plan.paused}
        for job in self._scheduler.get_jobs():
            if job.id.startswith(JOB_PREFIX) and tuple(job.args) not in wanted:
                job.remove()
        for cron, timezone in wanted:
            job_id = f"{JOB_PREFIX}{timezone} {cron}"
            if self._scheduler.get_job(job_id) is None:
                self._scheduler.add_job(
                    self.fire, cron_trigger(cron, timezone), args=[cron, timezone], id=job_id,
                    coalesce=True, max_instances=1, misfire_grace_time=MISFIRE_GRACE_SECONDS,
                )

    async def fire(self, cron: str, timezone: str) -> list[asyncio.Task[None]]:
        """A schedule's wake-up: post the due post of every ladder on it, if nobody did yet."""
        return await self.check([plan for plan in self.plans.values()
                                 if schedule_of(plan) == (cron, timezone)])

    # -- what each wake-up does --------------------------------------------------------------------

    async def poll(self) -> list[asyncio.Task[None]]:
        """Read every plan again (rebuilding the jobs if any changed), post what is due, and
        post the announcements of results that auto-confirmed. Returns the tasks started."""
        try:
            plans = {p.key: p for p in await self.service.schedules()
                     if p.platform in self.publishers}
            if plans != self.plans:
                log.info("scheduled posts: %d plans (changed), jobs rebuilt", len(plans))
                self.plans = plans
                self._offsets.clear()  # the posts of an instant may be others now
                self._rebuild()
            tasks = await self.check(list(plans.values()))
            tasks += await self._sweep(plans.values())
        except Exception:
            log.exception("scheduled posts: the poll failed; trying again at the next one")
            return []
        try:
            tasks += await self._seasons(plans.values())
        except Exception:
            log.exception("seasons: the poll failed; trying again at the next one")
        now = self.clock.now()
        await forget_when_due(self._forgetting, now,
                              lambda: self.repository.forget_outbox(now - OUTBOX_KEPT),
                              f"outbox rows that ended more than {OUTBOX_KEPT} ago")
        return tasks

    async def check(self, plans: Collection[Plan]) -> list[asyncio.Task[None]]:
        """Claim the due post of each plan and put it in the outbox, due at its place in the
        post window (the senders make it). Returns no task: nothing is sent here."""
        now = self.clock.now()
        due: list[tuple[Plan, QueuedPost]] = []
        enqueued = 0
        for number, plan in enumerate(plans, 1):
            if number % PLANS_PER_YIELD == 0:
                enqueued += await self._enqueue(due, now)
                due = []
                await asyncio.sleep(0)
            when = due_post(plan, now)
            if when is None or self._handled.get(plan.key) == when:
                continue
            due.append((plan, QueuedPost(
                plan.club_id, plan.claimed_as, when, plan.platform, plan.chat_id, plan.target,
                plan.ladder, plan.puzzles, previous_post(plan, when) or plan.since,
                when + self._offset(plan, when, now))))
        enqueued += await self._enqueue(due, now)
        if enqueued:
            self.enqueued()
        return []

    async def _enqueue(self, due: Sequence[tuple[Plan, QueuedPost]], now: datetime) -> int:
        """Put the due posts in the outbox, in one transaction (a wake-up of 10,000 ladders is
        a few of them, not 10,000); how many were new."""
        if not due:
            return 0
        claimed = await self.repository.enqueue_posts([post for _, post in due], now)
        for (plan, post), new in zip(due, claimed, strict=True):
            self._handled[plan.key] = post.scheduled_for
            if new:
                log.info("post of %s:%s %s scheduled for %s claimed, due at %s", plan.platform,
                         plan.chat_id, plan.ladder, post.scheduled_for.isoformat(),
                         post.due_at.isoformat(timespec="seconds"))
        return sum(claimed)

    def _offset(self, plan: Plan, when: datetime, now: datetime) -> timedelta:
        """The plan's post's delay after ``when`` in the post window: its club's rank among the
        clubs with posts of its platform scheduled for ``when``, among every plan known (not
        only those a cron job's wake-up passes), so that whichever wake-up enqueues it, its
        place is the same."""
        instant = (plan.platform, when)
        if instant not in self._offsets:
            if len(self._offsets) >= OFFSETS_KEPT:
                self._offsets.clear()
            keys = [(p.club_id, p.claimed_as) for p in (*self.plans.values(), plan)
                    if p.platform == plan.platform and due_post(p, now) == when]
            count = len(set(keys))
            window = window_used(self.window, count, plan.platform)
            if window > self.window and plan.platform not in self._stretched:
                self._stretched.add(plan.platform)
                log.warning(
                    "scheduled posts: %d %s posts at %s do not fit in the post window of %g s "
                    "at %g posts a second (half the platform's rate); spread over %g s instead",
                    count, plan.platform, when.isoformat(), self.window.total_seconds(),
                    POST_RATES[plan.platform], window.total_seconds())
            self._offsets[instant] = offsets(keys, window)
        return self._offsets[instant].get((plan.club_id, plan.claimed_as), timedelta(0))

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

    async def _announce(self, platform: str, chat_id: str, message: str) -> None:
        try:
            await publish_with_retries(self.publishers[platform], chat_id, message,
                                       attempts=self.attempts,
                                       backoff_seconds=self.backoff_seconds, sleep=self.sleep,
                                       wait_when_delayed=True)
        except PostRefused as refused:
            log.warning("announcement to %s:%s refused by the platform: %s", platform, chat_id,
                        refused)


def schedule_of(plan: Plan) -> tuple[str, str]:
    """The schedule a ladder posts on: its cron expression and the time zone it is read in."""
    return plan.cron, plan.timezone
