"""Sending the scheduled posts the outbox holds (issue 41): every process that serves a platform
runs a :class:`PostSender` for it, the scheduler's leader or not.

- Each second (or at once when this process's scheduler enqueued) a sender claims the rows of
  its platforms that are due (``Repository.claim_outbox``: ``FOR UPDATE SKIP LOCKED`` on
  PostgreSQL, so two processes never take one row), with a lease: a row whose process died is
  taken again once its lease ended.
- It makes the post (a digest, with its card, or a puzzle's problem), marks the row ``sending``
  once its first request leaves for the platform (after its wait in the rate budget, which lets
  answers to members go first: ``SCHEDULED_POST``; a process killed while the post waits leaves
  a row plainly not sent) and ``sent`` right after the call.
- A row found ``sending`` when claimed was handed to the platform by a sender that died: maybe
  the post was made. Discord sends it again with the same nonce (derived from the row: Discord
  drops a repeated nonce and answers with the first message); Telegram never sends it again
  (at most once) and the row is given up, logged.
- The platform's "wait" (:class:`PostDelayed`, a 429) puts the row back, due that much later;
  other failures are retried with backoff, then given up, logged; a refusal for good
  (:class:`PostRefused`) pauses the ladder's schedule and tells the club's chat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import timedelta
from functools import partial

from bot.scheduling.publishing import (
    POST_LEAVING,
    POST_NONCE,
    SCHEDULED_POST,
    Button,
    Picture,
    PostDelayed,
    PostRefused,
    Publisher,
)
from bot.scheduling.words import PostWords
from bot.service.clock import Clock
from bot.service.club import SYSTEM_ACTOR, Caller, ClubService
from bot.service.errors import Refusal
from bot.service.reasons import automatic
from bot.service.results import Digest
from bot.storage.pictures import PictureStore
from bot.storage.repository import ClaimedPost, DiscordShare, QueuedPost, Repository

log = logging.getLogger(__name__)

#: sends of one post (the first and the retries), waiting BACKOFF, 2 BACKOFF, 4 BACKOFF, ...
ATTEMPTS = 5
BACKOFF_SECONDS = 2.0
#: how long a claimed row is its sender's: longer than a post's sends with their backoff
#: (2 + 4 + 8 + 16 s), short enough that Discord still knows the nonce when another process
#: sends a dead one's post again (Discord checks a nonce's uniqueness over a few minutes)
LEASE_SECONDS = 120.0
#: how often the outbox is looked at: its rows fall due one by one over the post window
TICK_SECONDS = 1.0
#: posts one process sends at once (a stuck platform holds no more than these)
IN_FLIGHT = 20
#: the platforms that drop a send repeated with the same nonce: their "maybe sent" posts are
#: sent again; every other platform's are not (at most once)
NONCE_PLATFORMS = frozenset({"discord"})
#: the platforms whose requests pass a rate limiter that says when each leaves
#: (:func:`~bot.scheduling.publishing.leaving`, :mod:`bot.adapters.budget`): a post there is
#: marked ``sending`` once its turn came; elsewhere (the console) right before it is published
LEAVING_TOLD = frozenset({"telegram", "discord"})
#: the platform's reason for refusing a post, as far as it is kept in the log and shown
MAX_REASON_SHOWN = 150


def this_process() -> str:
    """The claimer's name in the outbox: the machine and the process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def nonce_of(row_id: int) -> str:
    """The post's nonce on the platform: the same for every send of the row (at most 25
    characters, Discord's limit, with room for the piece's number the publisher adds)."""
    return f"clubrating-{row_id}"


async def publish_with_retries(
    publisher: Publisher, chat_id: str, message: str, picture: Picture | None = None,
    buttons: Sequence[Button] = (), *, attempts: int = ATTEMPTS,
    backoff_seconds: float = BACKOFF_SECONDS,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, wait_when_delayed: bool = False,
) -> bool:
    """Publish, retrying with exponential backoff; True once made, False when every attempt
    failed (logged). The platform's refusal for good (:class:`PostRefused`) is raised, as no
    retry mends it; so is its "wait" (:class:`PostDelayed`) unless ``wait_when_delayed`` (an
    announcement, which has no outbox row to put back: it waits here)."""
    platform = publisher.platform
    for attempt in range(1, attempts + 1):
        try:
            await publisher.publish(chat_id, message, picture, buttons)
            return True
        except PostRefused:
            raise
        except PostDelayed as delayed:
            if not wait_when_delayed:
                raise
            error: Exception = delayed
            delay = delayed.retry_after
        except Exception as failed:
            error = failed
            delay = backoff_seconds * 2 ** (attempt - 1)
        if attempt == attempts:
            log.error("posting to %s:%s failed %d times, giving up: %r", platform, chat_id,
                      attempt, error)
            return False
        log.warning("posting to %s:%s failed (%r); attempt %d of %d in %g s", platform,
                    chat_id, error, attempt + 1, attempts, delay)
        await sleep(delay)
    return False


class PostSender:
    """Claims this process's platforms' due outbox rows and makes their posts."""

    def __init__(
        self,
        service: ClubService,
        repository: Repository,
        publishers: Mapping[str, Publisher],
        clock: Clock,
        words: PostWords,
        *,
        attempts: int = ATTEMPTS,
        backoff_seconds: float = BACKOFF_SECONDS,
        pictures: bool = True,
        store: PictureStore | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        lease_seconds: float = LEASE_SECONDS,
        claimer: str | None = None,
        discord_shards: DiscordShare | None = None,
    ) -> None:
        self.service = service
        self.repository = repository
        self.publishers = dict(publishers)
        self.clock = clock
        self.words = words
        self.attempts = attempts
        self.backoff_seconds = backoff_seconds
        #: the posts carry their leaderboard card
        self.pictures = pictures
        #: where problems' pictures are kept (None: puzzle posts go without them)
        self.store = store
        self.sleep = sleep
        self.lease = timedelta(seconds=lease_seconds)
        self.claimer = claimer or this_process()
        #: the Discord shards this process serves (None: all): it posts into their guilds only
        self.discord_shards = discord_shards
        #: the rows being sent here, by id: a row whose lease ran out while its send hangs here
        #: is not started a second time by this process
        self._sending: dict[int, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None

    # -- running ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Look at the outbox every :data:`TICK_SECONDS` (and when :meth:`wake` is called)."""
        self._loop = asyncio.get_running_loop().create_task(self._run())
        log.info("scheduled posts: sending from the outbox for %s", ", ".join(self.publishers))

    def wake(self) -> None:
        """Rows were enqueued here: look now, not at the next tick."""
        self._wake.set()

    async def stop(self, grace_seconds: float = 5.0) -> None:
        """Claim no more; posts being sent get a moment to finish, then are cancelled (their
        rows' leases run out and another process, or the next start, takes them)."""
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.cancel()
            await asyncio.gather(loop, return_exceptions=True)
        if self._sending:
            _, pending = await asyncio.wait(set(self._sending.values()), timeout=grace_seconds)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            try:
                await self.send_due()
            except Exception:
                log.exception("scheduled posts: the outbox could not be read; trying again")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), TICK_SECONDS)
            self._wake.clear()

    async def send_due(self) -> list[asyncio.Task[None]]:
        """Claim the due rows (as many as may be sent at once) and start each post in its own
        task; the tasks started."""
        room = IN_FLIGHT - len(self._sending)
        if room <= 0 or not self.publishers:
            return []
        now = self.clock.now()
        claimed = await self.repository.claim_outbox(list(self.publishers), self.claimer, now,
                                                     now + self.lease, room,
                                                     self.discord_shards)
        tasks = []
        for row in claimed:
            if row.id in self._sending:
                continue  # its send still hangs here; the platform has it or will fail it
            task = asyncio.get_running_loop().create_task(self._guarded(row))
            self._sending[row.id] = task
            task.add_done_callback(partial(self._sent, row.id))
            tasks.append(task)
        return tasks

    def _sent(self, row_id: int, _: asyncio.Task[None]) -> None:
        self._sending.pop(row_id, None)

    # -- one post ---------------------------------------------------------------------------------

    async def _guarded(self, row: ClaimedPost) -> None:
        try:
            await self._deliver(row)
        except Exception:
            # The database out of reach mid-way: the row keeps its state, and once its lease
            # ends it is taken again (as "maybe sent" if it was being sent).
            log.exception("post of %s:%s %s scheduled for %s: the outbox could not be updated",
                          row.post.platform, row.post.chat_id, row.post.ladder,
                          row.post.scheduled_for.isoformat())

    async def _deliver(self, row: ClaimedPost) -> None:
        post = row.post
        where = f"{post.platform}:{post.chat_id} {post.ladder}"
        when = post.scheduled_for.isoformat()
        if row.maybe_sent and post.platform not in NONCE_PLATFORMS:
            log.warning("post of %s scheduled for %s was being sent when its process stopped: "
                        "maybe made, not sent again (at most once)", where, when)
            await self.repository.outbox_done(row.id, "given_up", self.clock.now())
            return
        if row.maybe_sent:
            log.info("post of %s scheduled for %s was being sent when its process stopped: "
                     "sent again with the same nonce", where, when)
        try:
            made = await self._make(post)
        except Exception:
            log.exception("%spost of %s scheduled for %s failed",
                          "puzzle " if post.puzzles else "", where, when)
            await self.repository.outbox_done(row.id, "given_up", self.clock.now())
            return
        if made is None:  # nothing was owed (nobody rated, no problem left): done
            await self.repository.outbox_done(row.id, "sent", self.clock.now())
            return
        message, picture, buttons = made
        marked = False

        async def mark_sending() -> None:
            nonlocal marked
            if not marked:
                marked = True
                await self.repository.outbox_sending(row.id, self.clock.now())

        if post.platform not in LEAVING_TOLD:
            await mark_sending()
        scheduled, nonce = SCHEDULED_POST.set(True), POST_NONCE.set(nonce_of(row.id))
        hook = POST_LEAVING.set(mark_sending)
        try:
            sent = await publish_with_retries(
                self.publishers[post.platform], post.target, message, picture, buttons,
                attempts=self.attempts, backoff_seconds=self.backoff_seconds, sleep=self.sleep)
        except PostDelayed as delayed:
            due = self.clock.now() + timedelta(seconds=delayed.retry_after)
            await self.repository.outbox_later(row.id, due)
            log.info("post of %s scheduled for %s delayed by the platform (%s): due again at %s",
                     where, when, delayed, due.isoformat(timespec="seconds"))
            return
        except PostRefused as refused:
            await self.repository.outbox_done(row.id, "given_up", self.clock.now())
            await self._refused(post, refused)
            return
        finally:
            POST_LEAVING.reset(hook)
            POST_NONCE.reset(nonce)
            SCHEDULED_POST.reset(scheduled)
        await self.repository.outbox_done(row.id, "sent" if sent else "given_up",
                                          self.clock.now())
        if sent:
            log.info("post of %s scheduled for %s sent", where, when)

    async def _make(self, post: QueuedPost
                    ) -> tuple[str, Picture | None, Sequence[Button]] | None:
        """The post's message, picture and buttons: the digest since the previous scheduled
        time, with the leaderboard card when pictures are on, in the club's language, or a
        puzzle ladder's :meth:`_puzzle`; None when there is nothing to post."""
        if post.puzzles:
            return await self._puzzle(post)
        language = await self.service.language(post.platform, post.chat_id)
        caller = Caller(post.platform, post.chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        digest = await self.service.digest(caller, post.ladder, post.since, scheduled=True)
        assert isinstance(digest, Digest)
        if not digest.rows and not digest.games:
            log.info("post of %s:%s %s: nobody is rated yet, nothing posted", post.platform,
                     post.chat_id, post.ladder)
            return None
        picture = None
        if self.pictures:
            try:
                picture = await self.words.card(digest, post.since, post.scheduled_for,
                                                language)
            except Exception:
                log.exception("post of %s:%s %s: the card could not be drawn; text only",
                              post.platform, post.chat_id, post.ladder)
        return self.words.digest(digest, language), picture, ()

    async def _puzzle(self, post: QueuedPost
                      ) -> tuple[str, Picture | None, Sequence[Button]] | None:
        """A puzzle ladder's post: the last problem's solution and the next problem, with its
        picture and a button to solve it privately."""
        language = await self.service.language(post.platform, post.chat_id)
        caller = Caller(post.platform, post.chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        puzzle = await self.service.puzzle_post(caller, post.ladder)
        if puzzle is None:
            log.info("post of %s:%s %s: no problem to post", post.platform, post.chat_id,
                     post.ladder)
            return None
        message, buttons = self.words.puzzle(puzzle, post.chat_id, language)
        picture = None
        if puzzle.card is not None and puzzle.card.image and self.store is not None:
            try:
                picture = Picture(self.store.read(puzzle.card.image), puzzle.card.image)
            except OSError:
                log.warning("post of %s:%s %s: the picture of %s is missing; text only",
                            post.platform, post.chat_id, post.ladder, puzzle.card.problem)
        return message, picture, buttons

    async def _refused(self, post: QueuedPost, refused: PostRefused) -> None:
        """The platform refused the ladder's post for good: pause its schedule (no post is
        tried again until a moderator resumes it) and tell the club's own chat, once - the
        pause itself is the record that it was told."""
        reason = str(refused)[:MAX_REASON_SHOWN]
        log.warning("post of %s:%s %s to %s refused by the platform (%s): schedule paused",
                    post.platform, post.chat_id, post.ladder, post.target, reason)
        caller = Caller(post.platform, post.chat_id, SYSTEM_ACTOR, SYSTEM_ACTOR, moderator=True)
        try:
            await self.service.pause_schedule(
                caller, True, post.ladder,
                # (the platform's own words, cut: the log keeps a reason of 200 characters)
                reason=automatic("reason_post_refused", refusal=reason[:100]))
        except Refusal:
            return  # paused already (another process got there first): told already
        if post.target == post.chat_id:
            return  # the club's chat is the one that refuses: nobody to tell there
        notice = self.words.paused(post.ladder, post.platform, post.target, reason,
                                   await self.service.language(post.platform, post.chat_id))
        try:
            await self.publishers[post.platform].publish(post.chat_id, notice)
        except Exception:
            log.exception("could not tell %s:%s that its scheduled posts are paused",
                          post.platform, post.chat_id)
