"""The wheel as pip installs it: code and schema, nothing borrowed from the checkout.

A wheel of the repository is built, installed into a fresh virtual environment and its
``clubrating run`` is driven through the console chat from a folder outside the checkout, on a
new SQLite file. Before the schema was shipped as a package (the top-level ``migrations/`` folder,
installed as ``bot.storage.schema``) such a wheel held no ``.sql`` file and the installed bot
started with no tables.

How, and why so:

- The wheel is built from a copy of the checkout (without ``.git``, ``.venv``, ``build/``,
  ``*.egg-info``, compiled ``*.so`` and caches): an in-place build writes ``build/`` and
  ``*.egg-info`` into the checkout other work shares, and a stale ``build/lib`` could hand the
  wheel files the sources no longer have. The build is isolated (pip fetches ``setuptools`` and
  ``mypy`` from its index or cache; with mypyc compiling the club loop, about 20 s): the test
  environment's own setuptools may be too old for ``pyproject.toml`` (PEP 639 ``license =
  "MIT"`` needs setuptools >= 77), so ``--no-build-isolation`` is not relied on.
- The new environment is made ``--without-pip`` and the wheel installed ``--no-deps`` by the
  test's own pip (``pip --python``): about 1 s, against some 30 s (and a package index) for a
  venv with pip plus every dependency. The dependencies are made importable by a ``.pth`` file
  naming the test environment's ``site-packages``. That exposes no ``bot`` or ``ratings_core``:
  the checkout reaches the test environment only through the editable install's import hook,
  itself a ``.pth`` file, and ``.pth`` files inside a directory a ``.pth`` line adds are not
  read. The test checks it: with the new environment's own ``site-packages`` taken off
  ``sys.path``, neither package can be found. So everything of clubrating that runs, code and
  schema, comes from the wheel.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import site
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from bot.storage.migrations import load_migrations
from tests.adapters.test_run import (  # the same session and board as from the checkout
    BOARD,
    SESSION,
)

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]
#: nothing of the checkout, of a build or of a tool's cache goes into the copy built from
_NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
    "*.so",
)
#: variables that would point the bot at a chat, or Python at the checkout
_DROP = ("TELEGRAM_TOKEN", "DISCORD_TOKEN", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")


def _run(args: list[str], *, timeout: float, input: str | None = None,
         env: dict[str, str] | None = None, cwd: Path | None = None
         ) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, input=input,
                          env=env, cwd=cwd)
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
    return done


def _build_wheel(folder: Path) -> Path:
    source = folder / "src"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCES)
    wheels = folder / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels),
          str(source)], timeout=600)
    (wheel,) = wheels.glob("clubrating-*.whl")
    return wheel


def _install(wheel: Path, venv: Path) -> Path:
    """A new environment holding the wheel; the dependencies borrowed (see the docstring)."""
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], timeout=120)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
          "--no-deps", "--no-index", str(wheel)], timeout=300)
    own = Path(_run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                    timeout=60).stdout.strip())
    (own / "_test_dependencies.pth").write_text(
        "".join(f"{path}\n" for path in site.getsitepackages()), encoding="utf-8")
    return python


def test_the_installed_wheel_brings_its_schema_and_runs(tmp_path: Path) -> None:
    started = time.monotonic()
    wheel = _build_wheel(tmp_path / "build")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert "bot/storage/schema/0001_event_log.sql" in names
    assert {f"bot/storage/schema/{f.name}" for f in (ROOT / "migrations").glob("*.sql")
            } <= names
    # the club loop compiled by mypyc (setup.py), beside its source for a machine without it
    assert "ratings_core/inlined.py" in names
    assert any(n.startswith("ratings_core/inlined.") and n.endswith(".so") for n in names), names

    venv = tmp_path / "venv"
    python = _install(wheel, venv)
    env = {k: v for k, v in os.environ.items() if k not in _DROP and not k.startswith("CLUBRATING")}
    env["CLUBRATING_DB"] = str(tmp_path / "club.db")
    elsewhere = tmp_path / "elsewhere"  # not the checkout: nothing importable by being here
    elsewhere.mkdir()

    # The installed packages are the environment's own; the borrowed dependencies hide no
    # copy of them.
    where = _run([str(python), "-c", "import bot, ratings_core.inlined; print(bot.__file__); "
                  "print(ratings_core.__file__); print(ratings_core.inlined.__file__)"],
                 env=env, cwd=elsewhere, timeout=60)
    assert where.stdout.splitlines()[-1].endswith(".so"), where.stdout
    for line in where.stdout.splitlines():
        assert Path(line).resolve().is_relative_to(venv.resolve()), line
        assert not Path(line).resolve().is_relative_to(ROOT), line
    hidden = _run([str(python), "-c",
                   "import importlib.util, site, sys; own = site.getsitepackages()[0]; "
                   "sys.path[:] = [p for p in sys.path if p != own]; "
                   "print([importlib.util.find_spec(n) for n in ('bot', 'ratings_core')])"],
                  env=env, cwd=elsewhere, timeout=60)
    assert hidden.stdout.strip() == "[None, None]"

    done = _run([str(venv / "bin" / "clubrating"), "run"], input=SESSION, env=env,
                cwd=elsewhere, timeout=60)
    lines = done.stdout.splitlines()
    assert lines[-3:] == ["main ladder", *BOARD], done.stdout + done.stderr
    assert "Game #1 confirmed: alice beat bob." in lines

    with contextlib.closing(sqlite3.connect(tmp_path / "club.db")) as db:
        applied = db.execute("SELECT version, name FROM schema_migrations ORDER BY version")
        assert applied.fetchall() == [(m.version, m.name) for m in load_migrations()]
    print(f"wheel built, installed and run in {time.monotonic() - started:.1f} s")
