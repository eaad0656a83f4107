"""Files that hold members' data (the SQLite database, its ``-wal`` and ``-shm`` files, every
backup) are readable by their owner alone: created 0600 whatever the umask, and narrowed to it
(with a warning) when found wider. Folders of backups are 0700.

SQLite creates a database file with mode 0644 less the umask, but it gives the ``-wal``,
``-shm`` and ``-journal`` files it creates the database file's own mode, whatever the umask
(``findCreateFileMode`` and ``robust_open`` in SQLite's os_unix.c). So a database file created
0600 before SQLite opens it keeps its companions private too; :func:`private_companions`
narrows the ones an older version left wider.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

FILE_MODE = 0o600
FOLDER_MODE = 0o700
#: what SQLite adds to a database's name for its companion files
COMPANIONS = ("-wal", "-shm", "-journal")


def private_file(path: Path) -> None:
    """``path`` exists (created empty if it did not) with no permission for group or others."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        narrow(path, FILE_MODE)
    else:
        os.close(descriptor)


def private_folder(path: Path) -> None:
    """``path`` exists as a folder (created if it did not) with no permission for group or
    others. A shared folder (sticky, like /tmp) or another user's is left as it is, with a
    warning: narrowing it would break other programs."""
    path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    found = path.stat()
    if not found.st_mode & 0o077:
        return
    if found.st_mode & stat.S_ISVTX or found.st_uid != os.geteuid():
        log.warning("%s is open to other users (mode %03o); its backups are not (0600), but "
                    "a folder of its own would hide even their names", path,
                    stat.S_IMODE(found.st_mode))
        return
    narrow(path, FOLDER_MODE)


def private_companions(database: Path) -> None:
    """Narrow the database's ``-wal``, ``-shm`` and ``-journal`` files that exist."""
    for suffix in COMPANIONS:
        companion = database.with_name(database.name + suffix)
        with contextlib.suppress(FileNotFoundError):
            narrow(companion, FILE_MODE)


def narrow(path: Path, mode: int) -> None:
    """Take away what ``path``'s permissions allow beyond ``mode``, with a warning when there
    was something to take."""
    current = stat.S_IMODE(path.stat().st_mode)
    if current & ~mode:
        try:
            os.chmod(path, current & mode)
        except PermissionError:  # another user's file: say so, and go on
            log.warning("%s is open to other users (mode %03o) and not ours to change: "
                        "chmod %03o it", path, current, current & mode)
            return
        log.warning("%s was open to other users (mode %03o): now %03o", path, current,
                    current & mode)
