"""The roles (:mod:`.roles`) of the processes on one SQLite database: an ``flock`` on a file
per role beside the database. Several processes on one SQLite file are not the hosted shape
(PostgreSQL is), but two started by mistake still share the roles correctly: the kernel lets go
of a process's locks when it ends, however it ends, and a lock cannot be lost while it lives.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from pathlib import Path

from .private import FILE_MODE
from .roles import role_file_suffix

log = logging.getLogger(__name__)


class RoleFiles:
    """The role locks of the database ``database`` (None: a database in memory, which no other
    process can open: every role is granted)."""

    def __init__(self, database: Path | None) -> None:
        self._database = database
        #: role -> the open lock file holding it (None: held without a file)
        self._held: dict[str, int | None] = {}

    def take(self, role: str) -> bool:
        if role in self._held:
            return True
        if self._database is None:
            self._held[role] = None
            return True
        path = self._database.with_name(self._database.name + role_file_suffix(role))
        try:
            # owner-only like the database beside it; the file holds nothing but its lock
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
        except OSError as error:
            # one process per SQLite file is the rule: a role that cannot be shared is this
            # process's rather than nobody's
            log.warning("cannot open the lock file %s (%s): role %s taken without it", path,
                        error.strerror or error, role)
            self._held[role] = None
            return True
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            return False
        except BaseException:
            os.close(descriptor)
            raise
        self._held[role] = descriptor
        return True

    def holds(self, role: str) -> bool:
        return role in self._held

    def release(self, role: str) -> None:
        descriptor = self._held.pop(role, None)
        if descriptor is not None:
            os.close(descriptor)  # closing the file's one descriptor lets go of its lock

    def release_all(self) -> None:
        for role in list(self._held):
            with contextlib.suppress(OSError):
                self.release(role)
