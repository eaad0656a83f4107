"""A throwaway PostgreSQL server for the tests and benchmarks: a fresh cluster in a temporary
folder, listening on a free loopback port, stopped by its own pid.

Standard library only, so that ``.ci/run`` can use it before the virtual environment exists::

    python3 tests/pg_server.py start DIR   # prints the server's postgresql:// address
    python3 tests/pg_server.py stop DIR

As root (CI containers) the cluster belongs to the ``postgres`` user, as initdb refuses to run
as root; otherwise it belongs to whoever runs it. Trust authentication on 127.0.0.1 only: the
server is never reachable from another machine and lives as long as the test run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: where Debian's ``postgresql`` package puts the server binaries (not on PATH)
DEBIAN_BINARIES = Path("/usr/lib/postgresql")

#: for tests, durability is not wanted: a crash only loses a throwaway cluster
FAST = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")

STOP_TIMEOUT = 30.0


class ServerUnavailable(Exception):
    """No PostgreSQL server can be started here (no binaries, or they failed)."""


@dataclass(frozen=True, slots=True)
class Server:
    url: str
    folder: Path
    pid: int


def binaries() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``: on PATH, else Debian's newest version."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).resolve().parent
    versions = sorted(
        (p for p in DEBIAN_BINARIES.glob("*/bin") if (p / "initdb").exists()),
        key=lambda p: int(re.sub(r"\D", "", p.parent.name) or 0),
    )
    if not versions:
        raise ServerUnavailable(
            "no PostgreSQL binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin; "
            "install them with: apt-get install postgresql"
        )
    return versions[-1]


def _as_owner(command: list[str]) -> list[str]:
    """Run as ``postgres`` when we are root: the server refuses to run as root."""
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(_as_owner(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ServerUnavailable(f"{what} failed ({done.returncode}): {done.stderr.strip()}")


def start(folder: Path, durable: bool = False) -> Server:
    """Create a cluster in ``folder`` (made if missing, must be empty) and start it."""
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        raise ServerUnavailable(f"{folder} is not empty")
    bin_dir = binaries()
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            raise ServerUnavailable("running as root but there is no 'postgres' user") from None
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    data = folder / "data"
    _run([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
          "-E", "UTF8", "--locale=C", "--no-sync"], "initdb")
    settings = [] if durable else [f"-c {s}" for s in FAST]
    for attempt in range(3):
        port = _free_port()
        options = " ".join([f"-p {port}", f"-k {folder}", "-c listen_addresses=127.0.0.1",
                            "-c max_connections=200", *settings])
        try:
            _run([str(bin_dir / "pg_ctl"), "start", "-D", str(data), "-w", "-t", "30",
                  "-l", str(folder / "server.log"), "-o", options], "pg_ctl start")
            break
        except ServerUnavailable:
            if attempt == 2:  # the free port can be taken between probing and binding
                log = folder / "server.log"
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise ServerUnavailable(f"the server did not start: {tail}") from None
    return Server(f"postgresql://postgres@127.0.0.1:{port}/postgres", folder, _pid(folder))


def _pid(folder: Path) -> int:
    # The first line of postmaster.pid is the server's pid.
    return int((folder / "data" / "postmaster.pid").read_text().split()[0])


def stop(folder: Path) -> None:
    """Stop the server of ``folder`` by its pid (fast shutdown) and remove the folder."""
    pid_file = folder / "data" / "postmaster.pid"
    if pid_file.exists():
        pid = _pid(folder)
        try:
            os.kill(pid, signal.SIGINT)  # "fast" shutdown: roll back sessions, exit
            # The server removes its pid file as it exits (as pg_ctl stop waits for); the
            # process itself may linger as a zombie until whoever adopted it reaps it.
            deadline = time.monotonic() + STOP_TIMEOUT
            while pid_file.exists() and time.monotonic() < deadline:
                os.kill(pid, 0)
                time.sleep(0.01)
            if pid_file.exists():
                os.kill(pid, signal.SIGQUIT)  # "immediate" shutdown: it hung
        except ProcessLookupError:
            pass
    shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def given_or_throwaway() -> Iterator[str]:
    """The address of the server ``CLUBRATING_TEST_PG`` names, else of a throwaway one started
    in a folder of its own (the server's user - postgres, as root - must reach it) and stopped
    and removed at the end: what the benchmarks run on."""
    given = os.environ.get("CLUBRATING_TEST_PG")
    if given:
        yield given
        return
    server = start(Path(tempfile.mkdtemp(prefix="clubrating-pg-")))
    try:
        yield server.url
    finally:
        stop(server.folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--durable", action="store_true",
                        help="keep fsync and synchronous commits on (for benchmarks)")
    args = parser.parse_args(argv)
    try:
        if args.action == "start":
            sys.stdout.write(start(args.folder, args.durable).url + "\n")
        else:
            stop(args.folder)
    except ServerUnavailable as error:
        sys.stderr.write(f"pg_server: {error}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
