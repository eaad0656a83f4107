"""The Dockerfile and its build context, read without a container engine (issue 32).

hadolint, the Dockerfile linter a CI would run, finds nothing at warning level or above; the
rest reads the file for what the issue asks of the image: a pinned two-stage build from the lock
file, tini as PID 1 in front of ``clubrating``, a numeric user, the data volume, the health
check, and a build context that carries the project and none of a checkout's data or secrets.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

from .files import (
    DOCKERFILE,
    DOCKERIGNORE,
    ROOT,
    build_context,
    hadolint,
    ignore_rules,
    ignored,
    run,
)


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments left out."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):  # a comment inside a continued instruction
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        whole = pending + stripped
        pending = ""
        keyword, _, rest = whole.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    return out


def _stages(text: str) -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for keyword, rest in _instructions(text):
        if keyword == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((keyword, rest))
    return stages


def test_hadolint_finds_nothing() -> None:
    done = run([hadolint(), "--no-color", "--failure-threshold", "warning", DOCKERFILE])
    assert done.returncode == 0, done.stdout + done.stderr


def test_hadolint_would_say_so(tmp_path: Path) -> None:
    """The check can fail: an unpinned package without --no-install-recommends is reported."""
    broken = tmp_path / "Dockerfile"
    broken.write_text(DOCKERFILE.read_text(encoding="utf-8")
                      + "RUN apt-get update && apt-get install -y curl\n", encoding="utf-8")
    done = run([hadolint(), "--no-color", "--failure-threshold", "warning", broken])
    assert done.returncode != 0
    assert "DL3008" in done.stdout and "DL3015" in done.stdout, done.stdout


def test_every_ignore_says_why_and_no_heredoc() -> None:
    """An inline ``# hadolint ignore=`` has its reason in a comment right above it; no ``RUN
    <<EOF`` (hadolint cannot parse heredocs, so it would check nothing there)."""
    lines = DOCKERFILE.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        if "hadolint ignore=" in line:
            above = lines[number - 1].strip() if number else ""
            assert above.startswith("#") and "hadolint" not in above and len(above) > 10, (
                f"line {number + 1}: an ignore without its reason on the line above")
        assert not re.search(r"<<-?\s*['\"]?[A-Za-z_]+", line), f"heredoc on line {number + 1}"


def test_two_stages_on_one_pinned_python() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", text, re.MULTILINE)
    assert base, "the base image is one ARG"
    assert re.fullmatch(r"python:3\.11\.\d+-slim-(bookworm|trixie)", base.group(1)), base.group(1)
    builder, final = _stages(text)
    assert builder[0] == ("FROM", "${PYTHON_IMAGE} AS builder")
    assert final[0] == ("FROM", "${PYTHON_IMAGE}")


def test_the_builder_installs_the_lock_then_the_project() -> None:
    builder, final = _stages(DOCKERFILE.read_text(encoding="utf-8"))
    runs = [rest for keyword, rest in builder if keyword == "RUN"]
    locked = [r for r in runs if "-r /tmp/requirements.lock" in r]
    assert len(locked) == 1 and "--require-hashes" in locked[0], runs
    assert "--only-binary=:all:" in locked[0]
    project = [r for r in runs if r.rstrip().endswith("/src")]
    assert len(project) == 1 and "--no-deps" in project[0], runs
    assert runs.index(locked[0]) < runs.index(project[0])
    assert ("COPY", "requirements.lock /tmp/requirements.lock") in builder
    # the compiler stays in the builder
    compilers = [r for r in runs if re.search(r"\bgcc\b", r)]
    assert compilers and all("--no-install-recommends" in r for r in compilers)
    final_runs = " ".join(rest for keyword, rest in final if keyword == "RUN")
    assert not re.search(r"\bgcc\b", final_runs)
    assert ("COPY", "--from=builder /opt/clubrating /opt/clubrating") in final


def test_the_final_image() -> None:
    _, final = _stages(DOCKERFILE.read_text(encoding="utf-8"))
    given = dict(final)
    assert json.loads(given["ENTRYPOINT"]) == ["tini", "--", "clubrating"]
    assert json.loads(given["CMD"]) == ["run"]
    check = given["HEALTHCHECK"]
    assert json.loads(check[check.index("CMD ") + 4:]) == ["clubrating", "healthcheck"]
    user = given["USER"]
    assert re.fullmatch(r"\d+:\d+", user) and not user.startswith("0:"), user
    assert given["VOLUME"] == "/data"
    assert "CLUBRATING_DATA_DIR=/data" in given["ENV"]
    assert "/opt/clubrating/bin" in given["ENV"]
    installs = given["RUN"]
    assert "--no-install-recommends" in installs
    for package in ("tini", "fonts-ipafont-gothic"):
        assert re.search(rf"\b{package}=\S+", installs), package  # pinned, for hadolint
    assert f"--uid {user.split(':')[0]}" in installs and "--owner=" + user.split(":")[0] in installs
    labels = given["LABEL"]
    for key in ("title", "description", "version", "revision", "licenses"):
        assert f"org.opencontainers.image.{key}=" in labels, key


def test_the_image_version_is_the_project_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    version = re.search(r"^ARG VERSION=(\S+)$", DOCKERFILE.read_text(encoding="utf-8"),
                        re.MULTILINE)
    assert version and version.group(1) == project["version"]


def test_the_build_context_has_the_project_and_nothing_private(tmp_path: Path) -> None:
    """.dockerignore, read by Docker's rules (the last matching rule decides, a folder's rule
    covers what is inside): the project's sources are sent, a club's data and secrets, the
    checkout's tools and caches are not."""
    rules = ignore_rules(DOCKERIGNORE.read_text(encoding="utf-8"))
    for kept in ("pyproject.toml", "setup.py", "README.md", "requirements.lock",
                 "bot/__init__.py", "bot/storage/sqlite.py", "ratings_core/inlined.py",
                 "migrations/__init__.py", "migrations/0001_event_log.sql"):
        assert not ignored(kept, rules), kept
    for left_out in (".git/config", ".venv/bin/python", "clubrating.db", "clubrating.db-wal",
                     "data/club.db", "bot/old.db-shm", ".env", ".env.local",
                     "secrets/telegram_token",
                     "build/lib/bot/cli.py", "dist/x.whl", "clubrating.egg-info/PKG-INFO",
                     "bot/__pycache__/cli.cpython-311.pyc", "ratings_core/inlined.cpython-311.so",
                     ".mypy_cache/x", "backups/clubrating-before-0001.db", "tests/conftest.py"):
        assert ignored(left_out, rules), left_out

    # And on a real tree: a checkout with a database, a .env and secrets beside the sources.
    tree = tmp_path / "checkout"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", ".venv", "build", "tests",
                                                              "bench", "*.egg-info", ".*_cache"))
    for private in ("clubrating.db", "clubrating.db-wal", ".env", "secrets/telegram_token",
                    "backups/daily.db"):
        (tree / private).parent.mkdir(parents=True, exist_ok=True)
        (tree / private).write_text("private", encoding="utf-8")
    sent = set(build_context(tree))
    assert not {"clubrating.db", "clubrating.db-wal", ".env", "secrets/telegram_token",
                "backups/daily.db"} & sent
    assert {"pyproject.toml", "setup.py", "requirements.lock", "bot/cli.py"} <= sent
    migrations = {f"migrations/{p.name}" for p in (ROOT / "migrations").iterdir() if p.is_file()}
    assert migrations and migrations <= sent
