"""The systemd unit and its system user, checked offline by systemd's own tools (issue 32).

``systemd-analyze verify`` needs ExecStart's program to exist, so it reads a copy of the unit
whose ExecStart is this test environment's ``clubrating``, the one line changed.
``systemd-analyze security --offline=yes --threshold=25`` fails above an exposure of 2.5.
``systemd-sysusers --root`` makes the user from clubrating.sysusers in a scratch root.

The unit asks for ``MemoryDenyWriteExecute=yes``. Python, matplotlib, Pillow and the
mypyc-compiled loop need no memory that is writable and executable: the last test runs a console
session that draws pictures under the kernel's own refusal of such memory (``PR_SET_MDWE``,
Linux 6.3 and later), which stops the same mappings systemd's filter stops.
"""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.adapters.test_run import BOARD, SESSION

from .files import SYSUSERS, UNIT, UNIT_PROGRAM, run, systemd_tool

THRESHOLD = "25"  # systemd-analyze's tenths: an exposure of 2.5 at most


def _settings(text: str) -> list[tuple[str, str]]:
    lines = [line for line in text.splitlines()
             if line.strip() and not line.startswith(("#", ";", "["))]
    return [(key.strip(), value.strip())
            for key, _, value in (line.partition("=") for line in lines)]


def _runnable_copy(folder: Path) -> Path:
    """The unit with ExecStart pointed at this environment's clubrating, nothing else changed."""
    program = Path(sys.executable).parent / "clubrating"
    assert program.exists(), program
    text = UNIT.read_text(encoding="utf-8")
    assert text.count(f"ExecStart={UNIT_PROGRAM} run\n") == 1
    copy = folder / "clubrating.service"
    copy.write_text(text.replace(f"ExecStart={UNIT_PROGRAM} ", f"ExecStart={program} "),
                    encoding="utf-8")
    return copy


def test_the_unit_is_what_the_issue_asks() -> None:
    settings = _settings(UNIT.read_text(encoding="utf-8"))
    given = dict(settings)
    assert given["ExecStart"] == f"{UNIT_PROGRAM} run"
    assert given["User"] == "clubrating" and "DynamicUser" not in given
    assert given["StateDirectory"] == "clubrating"
    assert ("Environment", "CLUBRATING_DATA_DIR=%S/clubrating") in settings
    assert given["Restart"] == "on-failure"
    assert given["RestartPreventExitStatus"] == "78"
    assert given["TimeoutStopSec"] == "30s"
    assert given["KillSignal"] == "SIGTERM"
    credentials = {value.partition(":")[0] for key, value in settings if key == "LoadCredential"}
    assert {"telegram_token", "discord_token"} <= credentials
    assert given["RestrictAddressFamilies"].split() == ["AF_INET", "AF_INET6", "AF_UNIX"]
    assert given["ProtectSystem"] == "strict" and given["PrivateTmp"] == "yes"


def test_systemd_analyze_verify_prints_nothing(tmp_path: Path) -> None:
    analyze = systemd_tool("systemd-analyze")
    done = run([analyze, "verify", _runnable_copy(tmp_path)], cwd=tmp_path)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_systemd_analyze_verify_would_say_so(tmp_path: Path) -> None:
    """The check can fail: a misspelt setting is reported (on stderr, with status 0)."""
    analyze = systemd_tool("systemd-analyze")
    copy = _runnable_copy(tmp_path)
    copy.write_text(copy.read_text(encoding="utf-8").replace("RestrictNamespaces=yes",
                                                             "RestrictNamespace=yes"))
    done = run([analyze, "verify", copy], cwd=tmp_path)
    assert "RestrictNamespace" in done.stdout + done.stderr


def test_systemd_analyze_security_rates_it_2_5_or_better(tmp_path: Path) -> None:
    analyze = systemd_tool("systemd-analyze")
    done = run([analyze, "security", "--offline=yes", f"--threshold={THRESHOLD}",
                _runnable_copy(tmp_path)], cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    level = re.search(r"Overall exposure level for \S+: (\d+\.\d)", done.stdout)
    assert level and float(level.group(1)) <= 2.5, done.stdout
    print(f"systemd-analyze security: exposure {level.group(1)}")


def test_systemd_analyze_security_would_say_so(tmp_path: Path) -> None:
    """The check can fail: the same unit without its hardening is far above the threshold."""
    analyze = systemd_tool("systemd-analyze")
    copy = _runnable_copy(tmp_path)
    text = copy.read_text(encoding="utf-8")
    copy.write_text(text[:text.index("# Hardening.")] + text[text.index("[Install]"):])
    done = run([analyze, "security", "--offline=yes", f"--threshold={THRESHOLD}", copy],
               cwd=tmp_path)
    assert done.returncode != 0, done.stdout


def test_the_system_user(tmp_path: Path) -> None:
    sysusers = systemd_tool("systemd-sysusers")
    (tmp_path / "etc").mkdir()
    done = run([sysusers, f"--root={tmp_path}", SYSUSERS])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Trailing garbage" not in done.stderr and "ignoring" not in done.stderr, done.stderr
    (user,) = (tmp_path / "etc" / "passwd").read_text(encoding="utf-8").splitlines()
    name, _, uid, gid, _, home, shell = user.split(":")
    assert name == "clubrating"
    assert 0 < int(uid) < 1000 and uid == gid  # a system user with its own group
    assert home == "/var/lib/clubrating" and shell == "/usr/sbin/nologin"


def _refuse_writable_executable() -> None:
    """In the child, before exec: the kernel's MemoryDenyWriteExecute (prctl PR_SET_MDWE with
    PR_MDWE_REFUSE_EXEC_GAIN), kept across exec."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(65, 1, 0, 0, 0) != 0:
        os._exit(97)


def _kernel_has_mdwe() -> bool:
    probe = subprocess.run([sys.executable, "-c", "pass"], preexec_fn=_refuse_writable_executable,
                           capture_output=True, timeout=60)
    return probe.returncode == 0


@pytest.mark.slow
def test_the_bot_needs_no_writable_executable_memory(tmp_path: Path) -> None:
    if not _kernel_has_mdwe():
        pytest.skip("this kernel has no PR_SET_MDWE (Linux 6.3+): MemoryDenyWriteExecute= "
                    "is not tried here")
    clubrating = Path(sys.executable).parent / "clubrating"
    env = {k: v for k, v in os.environ.items()
           if k not in ("TELEGRAM_TOKEN", "DISCORD_TOKEN") and not k.startswith("CLUBRATING")}
    env["CLUBRATING_DATA_DIR"] = str(tmp_path)
    # a writable and executable mapping is refused indeed
    refused = subprocess.run(
        [sys.executable, "-c", "import mmap; mmap.mmap(-1, 4096, prot=7)"],
        preexec_fn=_refuse_writable_executable, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "Permission denied" in refused.stderr, refused.stderr
    # every library the bot loads, the compiled loop among them, imports
    libraries = ("import discord, telegram.ext, aiohttp, httpx, asyncpg, aiosqlite, apscheduler, "
                 "matplotlib.pyplot, PIL.Image, numpy, bidi, ratings_core.inlined")
    imported = subprocess.run([sys.executable, "-c", libraries], env=env, cwd=tmp_path,
                              preexec_fn=_refuse_writable_executable, capture_output=True,
                              text=True, timeout=120)
    assert imported.returncode == 0, imported.stderr
    # and a console session answers and draws its pictures
    done = subprocess.run([str(clubrating), "run"], input=SESSION + "/card\n/chart\n", env=env,
                          cwd=tmp_path, preexec_fn=_refuse_writable_executable,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(line in done.stdout.splitlines() for line in BOARD), done.stdout
    assert len(list(tmp_path.glob("*.png"))) == 2, done.stdout
