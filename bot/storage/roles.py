"""The roles one process at a time holds among those serving one database (issue 41): the
``scheduler`` (the one that plans posts) and, with long polling, the Telegram receiver
(Telegram allows one ``getUpdates`` per token). A contract beside
:class:`~bot.storage.repository.Repository`, kept by both backends: PostgreSQL with a
session-level advisory lock per role, on a connection of its own, so a process that dies lets
go of its roles at once; SQLite with an ``flock`` on a file per role beside the database,
which the kernel lets go of when the process ends.
"""

from __future__ import annotations

import re
from typing import Protocol

from .discord_gateway import advisory_key


def role_lock_key(role: str, schema: str) -> int:
    """The advisory lock key of ``role`` (a name such as ``scheduler`` or
    ``telegram-receiver:<bot id>``: never a secret) among the processes on the tables of
    ``schema`` (an advisory lock is one per database, whatever the schema)."""
    return advisory_key(f"clubrating role {schema} {role}")


def role_file_suffix(role: str) -> str:
    """What the lock file of ``role`` adds to the SQLite database's name: the role's name with
    anything but letters, digits and dashes made a dash (``:`` has no place in every file
    system)."""
    return "-role-" + re.sub(r"[^A-Za-z0-9-]", "-", role)


class RoleLocks(Protocol):
    async def take_role(self, role: str) -> bool:
        """Take ``role`` for this process if no running process holds it; whether this process
        holds it now (True also when it held it already)."""
        ...

    async def role_held(self, role: str) -> bool:
        """Whether this process still holds ``role``: False once it let go, or once the lock's
        hold was lost (the lock's connection to the database closed: another process may hold
        the role by now)."""
        ...

    async def release_role(self, role: str) -> None:
        """Let go of ``role`` (not held: nothing happens)."""
        ...
