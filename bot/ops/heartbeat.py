"""The running bot's pulse, in a file of its data folder, and ``clubrating healthcheck`` reading it.

A process that runs is not a bot that serves: a revoked token, a dead network or a stuck gateway
leave it running and deaf. So the bot notes, per platform, the last moment the platform answered
it (:class:`Heartbeat`): for Telegram a long poll that came back, or with a webhook a
``getWebhookInfo`` without a recent delivery error (a quiet club sends no updates); for Discord a
message on the gateway, whose heartbeat acknowledgements alone come every 41 s or so. The notes
are written to :data:`HEARTBEAT_FILE` in the data folder, replaced whole (never half-written
when read) and at most every :data:`WRITE_EVERY` seconds; a clean stop removes the file.

:func:`health` is the health check's whole work: it reads that file, and nothing of the chat or
chart libraries is imported for it, so a container's ``HEALTHCHECK`` costs a few milliseconds.
A platform that has not answered for :data:`WINDOW` seconds is stale; no file is ``not
running``. The console has no platform to lose: a console bot is healthy while it runs.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

log = logging.getLogger(__name__)

#: the file's name in the data folder
HEARTBEAT_FILE = "clubrating.heartbeat"
#: seconds without an answer after which a platform is stale (the issue's 90 s: two of
#: Discord's heartbeat intervals, many of Telegram's long polls)
WINDOW = 90.0
#: the file is written at most this often (seconds of the monotonic clock); a note can thus
#: lag its answer by as much, well inside WINDOW
WRITE_EVERY = 5.0


class Heartbeat:
    """The last answer of each platform the process serves, kept in ``path``."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self._clock, self._monotonic = clock, monotonic
        self._answered: dict[str, float | None] = {}
        self._written: float | None = None
        self._started = False
        self._failed = False

    def start(self, platforms: Iterable[str]) -> None:
        """The file, naming the platforms served; those that have not answered yet say so."""
        for platform in platforms:
            self._answered.setdefault(platform, None)
        self._started = True
        self._write()

    def beat(self, platform: str) -> None:
        """``platform`` answered just now (noted in the file once it is started; at once
        when it is the platform's first answer)."""
        first = self._answered.get(platform) is None
        self._answered[platform] = self._clock()
        if self._started and (first or self._written is None
                              or self._monotonic() - self._written >= WRITE_EVERY):
            self._write()

    def stop(self) -> None:
        """The file removed: a stopped bot is not running, at once."""
        self._started = False
        try:
            self.path.unlink(missing_ok=True)
        except OSError as error:
            log.warning("cannot remove the heartbeat file %s: %s", self.path, error.strerror)

    def _write(self) -> None:
        self._written = self._monotonic()
        note = {"pid": os.getpid(), "answered": self._answered}
        staged = self.path.with_name(self.path.name + ".new")
        try:
            staged.write_text(json.dumps(note), encoding="utf-8")
            staged.replace(self.path)
        except OSError as error:
            if not self._failed:  # said once: the bot serves on without it
                self._failed = True
                log.warning("cannot write the heartbeat file %s (%s): clubrating healthcheck "
                            "will say the bot is not running", self.path, error.strerror)


def health(folder: Path, now: float | None = None) -> tuple[bool, str]:
    """Whether the bot whose data folder is ``folder`` serves every platform it was started
    for, and one line saying so or naming what is stale."""
    path = folder / HEARTBEAT_FILE
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
        answered: dict[str, float | None] = note["answered"]
    except FileNotFoundError:
        return False, "not running"
    except (OSError, ValueError, KeyError, TypeError) as error:
        return False, f"not running (unreadable {path}: {error})"
    now = time.time() if now is None else now
    stale = []
    for platform, last in sorted(answered.items()):
        if last is None:
            stale.append(f"{platform}: no answer yet")
        elif now - last > WINDOW:
            stale.append(f"{platform}: stale, last answer {now - last:.0f} s ago")
    if stale:
        return False, "; ".join(stale)
    if not answered:
        return True, "running (console)"
    return True, "healthy: " + ", ".join(
        f"{platform} answered {max(now - last, 0):.0f} s ago"
        for platform, last in sorted(answered.items()) if last is not None)
