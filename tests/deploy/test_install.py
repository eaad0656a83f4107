"""requirements.lock, and an install that does what the Dockerfile's builder does (issue 32).

The lock pins every runtime dependency of pyproject.toml with hashes; it is checked here against
pyproject.toml without a network. With PyPI (CI has it): every locked package has a wheel for
Linux on amd64 and on arm64 that the image's Debian can load, and a new virtual environment
gets ``pip install --require-hashes -r requirements.lock``, then ``pip install --no-deps`` of
the image's build context, and the installed bot answers a console session from a folder
outside the checkout, as in the image.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.adapters.test_run import BOARD, SESSION

from .files import LOCK, ROOT, copy_build_context

#: the image's Debian (bookworm) has glibc 2.36: a wheel for manylinux 2.36 or older loads there
GLIBC_MINOR = 36
#: variables that would point the bot at a chat, or Python or pip somewhere else
_DROP = ("TELEGRAM_TOKEN", "DISCORD_TOKEN", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
         "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV", "PIP_TARGET", "PIP_PREFIX", "PIP_USER")


def _locked() -> dict[str, tuple[str, list[str]]]:
    """Each locked package: (version, its hashes)."""
    text = LOCK.read_text(encoding="utf-8")
    locked: dict[str, tuple[str, list[str]]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        pin = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", block)
        if pin:
            locked[canonicalize_name(pin.group(1))] = (
                pin.group(2), re.findall(r"--hash=sha256:([0-9a-f]{64})", block))
    return locked


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if k not in _DROP and not k.startswith("CLUBRATING")}


def _run(args: list[str | Path], *, timeout: float, **kwargs: object
         ) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{args} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
    return done  # type: ignore[no-any-return]


def test_the_lock_pins_what_pyproject_asks() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    locked = _locked()
    assert len(locked) >= len(project["dependencies"])
    for line in project["dependencies"]:
        wanted = Requirement(line)
        name = canonicalize_name(wanted.name)
        assert name in locked, f"{wanted.name} is not in requirements.lock: make it again"
        version, _ = locked[name]
        assert wanted.specifier.contains(version, prereleases=True), (
            f"requirements.lock has {wanted.name}=={version}, pyproject.toml asks {wanted}")
    for name, (version, hashes) in locked.items():
        assert hashes, f"{name}=={version} has no hash"
    text = LOCK.read_text(encoding="utf-8")
    assert "--generate-hashes" in text and "--strip-extras" in text  # as docs/deploy.md says
    assert not re.search(r"^--(?:extra-)?index-url|^--find-links", text, re.MULTILINE), (
        "the lock names an index: make it with --no-emit-index-url --no-emit-find-links")
    assert "-e " not in text and "file://" not in text


@pytest.mark.slow
@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_every_locked_package_has_a_wheel_for_the_image(machine: str, tmp_path: Path) -> None:
    """What the Dockerfile's ``pip install --only-binary=:all: --require-hashes`` would pick on
    linux/amd64 and linux/arm64, asked of the package index without installing (PyPI's
    metadata files): a wheel for CPython 3.11 on glibc 2.36 or older for every package."""
    platforms = [f"--platform=manylinux_2_{minor}_{machine}"
                 for minor in range(17, GLIBC_MINOR + 1)]
    report = tmp_path / "report.json"
    _run([sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
          "--no-deps", "--only-binary=:all:", "--require-hashes", "--python-version=3.11",
          "--implementation=cp", f"--platform=manylinux2014_{machine}", *platforms,
          f"--target={tmp_path / 'target'}", f"--report={report}", "-r", LOCK],
         timeout=600, env=_env())
    chosen = {canonicalize_name(item["metadata"]["name"]):
              item["download_info"]["url"].rsplit("/", 1)[-1]
              for item in json.loads(report.read_text(encoding="utf-8"))["install"]}
    assert set(chosen) == set(_locked()), set(_locked()) ^ set(chosen)
    for name, wheel in chosen.items():
        assert wheel.endswith(".whl"), f"{name}: {wheel}"
        tags = wheel.removesuffix(".whl").split("-")[-1]
        assert tags == "any" or machine in tags, f"{name}: {wheel}"


@pytest.mark.slow
def test_an_install_like_the_image_answers_in_the_console(tmp_path: Path) -> None:
    """The Dockerfile's builder, step by step, outside a container."""
    started = time.monotonic()
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], timeout=300, env=_env())
    pip = venv / "bin" / "pip"
    _run([pip, "install", "--quiet", "--require-hashes", "--only-binary=:all:", "-r", LOCK],
         timeout=900, env=_env())
    source = tmp_path / "src"
    copied = copy_build_context(source)  # what COPY . /src sends, by .dockerignore's rules
    assert "pyproject.toml" in copied and not any(p.endswith(".db") for p in copied)
    _run([pip, "install", "--quiet", "--no-deps", source], timeout=900, env=_env())

    data = tmp_path / "data"  # CLUBRATING_DATA_DIR=/data
    data.mkdir()
    elsewhere = tmp_path / "elsewhere"  # not the checkout: nothing importable by being here
    elsewhere.mkdir()
    env = _env()
    env["CLUBRATING_DATA_DIR"] = str(data)
    clubrating = venv / "bin" / "clubrating"

    where = _run([venv / "bin" / "python", "-c",
                  "import bot, ratings_core.inlined as loop; print(bot.__file__); "
                  "print(loop.__file__)"], timeout=60, env=env, cwd=elsewhere)
    for line in where.stdout.splitlines():
        assert Path(line).resolve().is_relative_to(venv.resolve()), line
    if shutil.which("gcc") or shutil.which("cc"):  # the builder has gcc: the loop is compiled
        assert where.stdout.splitlines()[-1].endswith(".so"), where.stdout

    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["version"]
    shown = _run([clubrating, "--version"], timeout=60, env=env, cwd=elsewhere)
    assert shown.stdout.strip() == f"clubrating {version}", shown.stdout

    done = _run([clubrating, "run"], input=SESSION, timeout=120, env=env, cwd=elsewhere)
    lines = done.stdout.splitlines()
    assert lines[-3:] == ["main ladder", *BOARD], done.stdout + done.stderr
    assert "Game #1 confirmed: alice beat bob." in lines
    assert (data / "clubrating.db").exists()
    assert not list(elsewhere.iterdir()), "the bot wrote outside its data folder"
    print(f"installed from the lock and run in {time.monotonic() - started:.1f} s")
