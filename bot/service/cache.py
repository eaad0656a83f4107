"""The clubs' folded states kept in memory, and their locks: a bounded cache, least recently
used out first.

Every club a process ever served used to stay in memory with its whole log (issue 41). Here at
most ``capacity`` clubs are kept; the one used longest ago goes first, unless a command holds or
awaits its lock: a club is never taken from under a command working on it (it would read the
log again halfway). A lock lives while its club is cached or while someone holds or awaits it,
so the locks are bounded too; a lock is never dropped while anyone waits for it (two holders of
two locks of one club would interleave).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the settings read DEFAULT_CAPACITY: no chat or scheduling library for that
    from .view import Club

#: clubs kept in memory unless ``CLUBRATING_CACHE_CLUBS`` says otherwise: a small club takes
#: about 20 kB (bench/cache.py: 19.4 MB for 1,000 clubs of three members and three games), so
#: 1,000 take some 20 MB, within issue 41's 30 MB, while a club used again after a thousand
#: others is read again in milliseconds (a long one from its snapshot)
DEFAULT_CAPACITY = 1000


class ClubCache:
    """Clubs by id, the most recently used last; :meth:`locked` serialises a club's commands."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"a cache of clubs keeps at least one, not {capacity}")
        self.capacity = capacity
        self._clubs: OrderedDict[int, Club] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}
        #: tasks holding or awaiting each club's lock
        self._users: dict[int, int] = {}

    @asynccontextmanager
    async def locked(self, club_id: int) -> AsyncIterator[None]:
        """Hold the club's lock; the club stays cached meanwhile."""
        self._users[club_id] = self._users.get(club_id, 0) + 1
        try:
            async with self._locks.setdefault(club_id, asyncio.Lock()):
                yield
        finally:
            left = self._users[club_id] - 1
            if left:
                self._users[club_id] = left
            else:
                del self._users[club_id]
                if club_id not in self._clubs:
                    self._locks.pop(club_id, None)
            self._evict()

    def get(self, club_id: int) -> Club | None:
        """The cached club, now the most recently used; None when it is not cached."""
        club = self._clubs.get(club_id)
        if club is not None:
            self._clubs.move_to_end(club_id)
        return club

    def peek(self, club_id: int) -> Club | None:
        """The cached club, its place in the order untouched (for the bot's own chores)."""
        return self._clubs.get(club_id)

    def put(self, club: Club) -> None:
        self._clubs[club.id] = club
        self._clubs.move_to_end(club.id)
        self._evict()

    def pop(self, club_id: int, default: Club | None = None) -> Club | None:
        """Forget the club (the next command reads the log again); its lock stays while used."""
        club = self._clubs.pop(club_id, default)
        if club_id not in self._users:
            self._locks.pop(club_id, None)
        return club

    def _evict(self) -> None:
        """Down to the capacity, oldest first, skipping the clubs in use (they go once their
        commands are done: :meth:`locked` evicts again)."""
        excess = len(self._clubs) - self.capacity
        if excess <= 0:
            return
        for club_id in [c for c in self._clubs if c not in self._users][:excess]:
            del self._clubs[club_id]
            self._locks.pop(club_id, None)

    def __getitem__(self, club_id: int) -> Club:
        return self._clubs[club_id]

    def __contains__(self, club_id: object) -> bool:
        return club_id in self._clubs

    def __len__(self) -> int:
        return len(self._clubs)

    def __iter__(self) -> Iterator[int]:
        return iter(self._clubs)

    def values(self) -> list[Club]:
        return list(self._clubs.values())

    @property
    def locks(self) -> int:
        """How many locks are kept (bounded by the cached clubs and the clubs in use)."""
        return len(self._locks)
