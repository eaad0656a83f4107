"""The product as a club runs it: ``clubrating`` started as a process, with only environment
variables and files as input, and the wall clock moved from outside it.

Time comes from libfaketime (Debian's ``faketime`` package), preloaded into the process: its
clock reads ``FAKETIME_TIMESTAMP_FILE``, which a :class:`FakeClock` writes. Writing a new time
into the file moves every clock of the running process there (and on from there), the monotonic
clock too, so asyncio's and APScheduler's timers see the jump as a real suspended machine's
would. Nothing in the product knows it is being tested.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path

#: the installed command, beside the interpreter running the tests
CLUBRATING = str(Path(sys.executable).parent / "clubrating")
#: libfaketime, as Debian installs it
LIBFAKETIME = next(iter(sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1"))), None)
#: seconds after which every process has read a new time (``FAKETIME_CACHE_DURATION`` and a
#: margin)
FAKETIME_READ_AGAIN = 1.2
#: how long a process may take to do what a test waits for
TIMEOUT = 60.0
#: variables of the test's own environment that must not reach the bot
_OWN = ("TELEGRAM_", "DISCORD_", "CLUBRATING_", "FAKETIME", "LD_PRELOAD", "PYTEST")


class FakeClock:
    """The time every process started with :meth:`env` sees, in UTC; :meth:`set` moves it,
    running processes included (libfaketime reads the file again within a second)."""

    def __init__(self, folder: Path, start: datetime) -> None:
        self.file = folder / "faketime"
        self.set(start)

    def set(self, when: datetime) -> None:
        staged = self.file.with_suffix(".new")
        staged.write_text(f"@{when:%Y-%m-%d %H:%M:%S}\n", encoding="utf-8")
        staged.replace(self.file)  # never half-written when libfaketime reads it
        # the processes' clocks run on from ``when``, as this one does from now
        self._set = (when, time.monotonic())

    async def skip(self, seconds: float) -> None:
        """Move the processes' time ``seconds`` ahead of where it ran to, once they read it
        (libfaketime reads the file again within a second): a wait a test does not sit
        through. Their monotonic clocks move too, and with them the bot's rate limits."""
        when, began = self._set
        ahead = when + timedelta(seconds=time.monotonic() - began + seconds)
        self.set(ahead.replace(microsecond=0) + timedelta(seconds=1))
        await asyncio.sleep(FAKETIME_READ_AGAIN)

    def env(self) -> dict[str, str]:
        if LIBFAKETIME is None:
            raise RuntimeError("libfaketime is missing: apt-get install faketime")
        return {"LD_PRELOAD": LIBFAKETIME, "FAKETIME_TIMESTAMP_FILE": str(self.file),
                "FAKETIME_CACHE_DURATION": "1", "TZ": "UTC"}


def environment(folder: Path, clock: FakeClock | None, **variables: str) -> dict[str, str]:
    """The test's environment without anything of its own or of the bot's, plus ``folder`` as
    the data folder (with the database ``club.db``), the clock, and ``variables``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OWN)}
    env["CLUBRATING_DB"] = str(folder / "club.db")
    env["CLUBRATING_DATA_DIR"] = str(folder)  # its heartbeat and backups
    # One chart cache for every bot a test run starts: in each data folder, matplotlib would
    # scan the system's fonts again at every start (a second, and a log line).
    env["MPLCONFIGDIR"] = str(Path(tempfile.gettempdir()) / "clubrating-tests-mpl")
    env["PYTHONUNBUFFERED"] = "1"
    if clock is not None:
        env |= clock.env()
    return env | variables


def clubrating(env: Mapping[str, str], *args: str, input: str | None = None,
               cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run a ``clubrating`` subcommand to its end; its output and status."""
    return subprocess.run([CLUBRATING, *args], env=dict(env), input=input, capture_output=True,
                          text=True, timeout=TIMEOUT, cwd=cwd)


class Bot:
    """``clubrating run`` in the background; its log (standard error) is kept in a file and
    can be waited on. ``wrapper``: a command that runs it (``unshare --pid --fork`` to make it
    PID 1, ``setpriv`` to make it another user)."""

    def __init__(self, env: Mapping[str, str], log: Path, wrapper: Sequence[str] = ()) -> None:
        self.env = dict(env)
        self.log = log
        self.wrapper = tuple(wrapper)
        self.process: asyncio.subprocess.Process | None = None
        self._read = 0  # log characters already matched by wait_log

    async def start(self, ready: str = r"scheduled posts: reading the plans") -> Bot:
        """Start the process and wait for ``ready`` in its log (by default: every front-end
        is serving and the scheduler runs)."""
        self._read = len(self.text())
        with self.log.open("a", encoding="utf-8") as log:
            self.process = await asyncio.create_subprocess_exec(
                *self.wrapper, CLUBRATING, "run", env=self.env, stdin=subprocess.DEVNULL,
                stdout=log, stderr=log)
        try:
            await self.wait_log(ready)
        except BaseException:
            await self.kill()  # never left running behind a failed test
            raise
        return self

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8") if self.log.exists() else ""

    async def wait_log(self, pattern: str, timeout: float = TIMEOUT) -> re.Match[str]:
        """The first match of ``pattern`` in the log written since the last match (or the
        start); fails if the process ends or the time runs out first."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            found = re.compile(pattern).search(self.text(), self._read)
            if found is not None:
                self._read = found.end()
                return found
            if self.process is not None and self.process.returncode is not None:
                raise AssertionError(f"the bot ended ({self.process.returncode}) before "
                                     f"{pattern!r}:\n{self.text()[-4000:]}")
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no {pattern!r} in the bot's log within {timeout} s:\n"
                                     f"{self.text()[-4000:]}")
            await asyncio.sleep(0.05)

    async def stop(self) -> int:
        """SIGTERM, as a service manager stops it; its exit status."""
        return await self._end(signal.SIGTERM)

    async def kill(self) -> int:
        """SIGKILL: no chance to finish anything."""
        return await self._end(signal.SIGKILL)

    @property
    def pid(self) -> int:
        """The process running ``clubrating``: the wrapper's child where it forked one
        (``unshare --fork``), else the process started (a wrapper that exec'd, or none)."""
        assert self.process is not None
        started = self.process.pid
        children = Path(f"/proc/{started}/task/{started}/children")
        forked = children.read_text().split() if self.wrapper and children.exists() else []
        return int(forked[0]) if forked else started

    async def _end(self, how: signal.Signals) -> int:
        process = self.process
        assert process is not None
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, how)
        try:
            return await asyncio.wait_for(process.wait(), TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise AssertionError(
                f"the bot did not stop on {how.name}:\n{self.text()[-4000:]}") from None


async def start_together(bots: Sequence[Bot], ready: str) -> list[Bot]:
    """Start ``bots`` at once, each until ``ready``; when one fails, the others are stopped
    too (none left running behind a failed test) and the failure raised."""
    started = await asyncio.gather(*(bot.start(ready) for bot in bots), return_exceptions=True)
    failures = [result for result in started if isinstance(result, BaseException)]
    if failures:
        for bot in bots:
            if bot.process is not None:
                await bot.kill()
        raise failures[0]
    return list(bots)
