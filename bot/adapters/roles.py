"""Work one process at a time does among those serving one database (issue 41): the scheduler,
and the Telegram receiver of long polling. A :class:`Role` runs its work only while this process
holds the role's lock (:class:`~bot.storage.roles.RoleLocks`). A process that does not hold it
tries again every :data:`RETRY_SECONDS`, so when the holder dies (its lock goes with its
connection) another takes the work over within seconds; a holder checks every
:data:`CHECK_SECONDS` that it still holds the lock, and stops the work at once when it does not
(another process may have it by now), then tries again like the others.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from bot.storage.roles import RoleLocks

log = logging.getLogger(__name__)

#: seconds between two tries of a process that does not hold the role: a dead holder's work
#: is taken over within about as long (after the database noticed the death)
RETRY_SECONDS = 1.5
#: seconds between two checks of the holder that its lock is still held
CHECK_SECONDS = 3.0

#: the role of the process that plans and sends the scheduled posts
SCHEDULER = "scheduler"


def telegram_receiver(bot_id: int) -> str:
    """The role of the process that long-polls the Telegram bot ``bot_id`` (its id, never its
    token): Telegram answers a second concurrent ``getUpdates`` with 409 Conflict."""
    return f"telegram-receiver:{bot_id}"


class RoleWork(Protocol):
    """What the holder of a role runs: started when the role is taken, stopped when it is lost
    or let go of; ``failed`` returns (or raises) when the work ended by itself."""

    async def start(self) -> None: ...

    async def failed(self) -> None: ...

    async def stop(self) -> None: ...


class Role:
    """``work`` run while this process holds ``name`` in ``locks``."""

    def __init__(self, locks: RoleLocks, name: str, work: RoleWork, *,
                 retry_seconds: float = RETRY_SECONDS,
                 check_seconds: float = CHECK_SECONDS) -> None:
        self.locks = locks
        self.name = name
        self.work = work
        self.retry_seconds = retry_seconds
        self.check_seconds = check_seconds
        #: the work runs (it was started and not stopped since)
        self.held = False
        self._keeping: asyncio.Task[None] | None = None
        #: the last try could not reach the database (said once, not every try)
        self._unreachable = False

    async def start(self) -> None:
        """Take the role now if it is free (a process alone on its database holds it, and its
        work runs, once this returns; a failure to start the work is raised), then keep
        trying in the background."""
        if await self._take():
            await self._begin()
        self._keeping = asyncio.create_task(self._keep(), name=f"role:{self.name}")

    async def failed(self) -> None:
        """Raises the work's failure when it failed by itself; waits for ever otherwise."""
        if self._keeping is not None:
            await asyncio.shield(self._keeping)
        await asyncio.Event().wait()

    async def stop(self) -> None:
        """Stop trying, stop the work if it runs, and let go of the role."""
        keeping, self._keeping = self._keeping, None
        if keeping is not None:
            keeping.cancel()
            # its failure, if any, was :meth:`failed`'s to raise
            await asyncio.gather(keeping, return_exceptions=True)
        if self.held:
            await self._end()
            log.info("role %s released", self.name)

    async def _keep(self) -> None:
        while True:
            if self.held:
                if not await self._watch():
                    return  # the work ended by itself
                log.warning("role %s lost (its lock's hold on the database ended): its work "
                            "stops", self.name)
                await self._end()
            await asyncio.sleep(self.retry_seconds)
            if await self._take():
                try:
                    await self._begin()
                except Exception as error:
                    # (the role was let go of) a platform or the database out of reach for a
                    # moment must not end a process that serves other things: tried again
                    log.warning("role %s: its work did not start (%s: %s); trying again",
                                self.name, type(error).__name__, error)

    async def _take(self) -> bool:
        try:
            taken = await self.locks.take_role(self.name)
        except Exception as error:  # the database out of reach: tried again
            if not self._unreachable:
                log.warning("role %s: could not ask the database (%s: %s); trying again "
                            "every %g s", self.name, type(error).__name__, error,
                            self.retry_seconds)
            self._unreachable = True
            return False
        self._unreachable = False
        return taken

    async def _begin(self) -> None:
        log.info("role %s taken: this process does its work", self.name)
        self.held = True
        try:
            await self.work.start()
        except BaseException:
            await self._end()
            raise

    async def _end(self) -> None:
        self.held = False
        try:
            await self.work.stop()
        finally:
            await self.locks.release_role(self.name)

    async def _watch(self) -> bool:
        """While the work runs: False once it ended by itself (raising its failure), True once
        the role's lock is no longer held."""
        ended = asyncio.ensure_future(self.work.failed())
        try:
            while True:
                done, _ = await asyncio.wait({ended}, timeout=self.check_seconds)
                if done:
                    ended.result()
                    return False
                if not await self._still_held():
                    return True
        finally:
            ended.cancel()

    async def _still_held(self) -> bool:
        try:
            return await self.locks.role_held(self.name)
        except Exception as error:
            log.warning("role %s: could not check its lock (%s: %s)", self.name,
                        type(error).__name__, error)
            return False
