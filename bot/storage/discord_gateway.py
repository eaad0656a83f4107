"""What the processes serving one Discord application share through the database (issue 41):
which process owns which shard, whose turn it is to IDENTIFY, and the hash of the slash commands
last synced. A contract beside :class:`~bot.storage.repository.Repository`, kept by both
backends: PostgreSQL for several processes, SQLite for one (its processes are one).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Protocol

#: a booked IDENTIFY turn further ahead than this (seconds) is taken for a clock that went back
#: (the machine's, the database's), not for a queue: forgotten, so no start waits for it (a
#: queue that long would be 720 shards in one bucket)
FORGET_TURNS_AFTER = 3600.0


def shard_lock_key(application_id: int, shard_id: int) -> int:
    """The advisory lock key (a signed 64-bit integer, as ``pg_try_advisory_lock`` takes) of one
    shard of one application: two applications on one database never share a key."""
    return advisory_key(f"clubrating discord shard {application_id} {shard_id}")


def command_sync_key(application_id: int) -> int:
    """The advisory lock key of syncing one application's slash commands."""
    return advisory_key(f"clubrating discord commands {application_id}")


def advisory_key(name: str) -> int:
    """A signed 64-bit key for ``pg_try_advisory_lock`` derived from ``name`` alone: every
    process finds the same one, and two names share it by a 2**-64 chance."""
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class DiscordGateway(Protocol):
    async def hold_shards(self, application_id: int, shard_ids: Sequence[int]) -> list[int]:
        """Take the shards for this process, for its whole life, in place of any it held: none
        of them, when any is held by a running process; returns those held elsewhere (empty:
        all are this process's now). Released by :meth:`release_shards`, or when the process
        ends."""
        ...

    async def release_shards(self) -> None:
        """Let go of the shards :meth:`hold_shards` took (none held: nothing happens)."""
        ...

    async def identify_turn(self, application_id: int, bucket: int, spacing: float) -> float:
        """Book the bucket's next IDENTIFY, ``spacing`` seconds after the one booked before it
        by any process; how many seconds to wait for it (0: now)."""
        ...

    def command_sync(self, application_id: int) -> AbstractAsyncContextManager[None]:
        """Held by one process at a time while it compares the slash commands' hash and syncs
        them: of processes starting at once with a new tree, one syncs it."""
        ...

    async def command_tree(self, application_id: int, scope: str) -> str | None:
        """The hash of the slash commands last synced to ``scope`` ('global' or 'guild:ID')."""
        ...

    async def keep_command_tree(self, application_id: int, scope: str, digest: str,
                                now: datetime) -> None:
        """Remember that the slash commands of hash ``digest`` were synced to ``scope``."""
        ...
