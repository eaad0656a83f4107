"""Keys of PostgreSQL advisory locks, named by text so that different uses never share one."""

from __future__ import annotations

import hashlib


def lock_key(name: str) -> int:
    """The advisory lock key (a signed 64-bit integer, as ``pg_advisory_lock`` and its kin
    take) of ``name``: a hash, so any text names a lock without a table of numbers."""
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def club_lock_key(club_id: int) -> int:
    """The key of a club's write lock (issue 41)."""
    return lock_key(f"clubrating club {club_id}")
