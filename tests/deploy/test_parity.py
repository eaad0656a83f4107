"""The deployment files say only what the bot does (issue 32).

Every ``clubrating SUBCOMMAND`` in the Dockerfile, the compose files, the unit and
docs/deploy.md is one of ``clubrating``'s subcommands (read from its own parser); every
environment variable that the bot's part of the compose files, the unit, docs/deploy.md and
.env.example name is one the bot reads (``bot.settings.VARIABLES``), but for the two that belong
to Compose (the ``db`` service's ``POSTGRES_*`` belong to PostgreSQL and are not read); every
secret has its ``*_FILE`` form in .env.example and compose.yaml, and neither holds a secret.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from bot import settings
from bot.cli import _parser

from .files import COMPOSE, COMPOSE_WEBHOOK, DEPLOY_DOC, DOCKERFILE, ENV_EXAMPLE, UNIT

#: variables the files may name that are not the bot's: Compose's own, read from .env
FOREIGN = {"COMPOSE_FILE", "COMPOSE_PROFILES"}
#: what looks like an environment variable: capitals and digits with at least one underscore
VARIABLE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
#: ``clubrating WORD`` as a command: the program at a command's start or after a bin/ folder,
#: not a user's name after -u (``runuser -u clubrating``, ``journalctl -u clubrating``)
COMMAND = re.compile(r"(?:^|(?<=[\s`(])|(?<=/bin/))(?<!-u )(?<!-U )"
                     r"clubrating[ \t]+([a-z][a-z-]*)\b", re.MULTILINE)
#: the bot's entrypoint is clubrating: ``docker compose run --rm bot WORD``
COMPOSE_COMMAND = re.compile(r"docker compose run\b[^\n]*?\sbot[ \t]+([a-z][a-z-]*)\b")


def _subcommands() -> set[str]:
    (commands,) = (action for action in _parser()._actions
                   if isinstance(action, argparse._SubParsersAction))
    return set(commands.choices)


def _commands_in_text(text: str) -> set[str]:
    return set(COMMAND.findall(text)) | set(COMPOSE_COMMAND.findall(text))


def _commands_in_dockerfile(text: str) -> set[str]:
    """Exec forms: ``["clubrating", "WORD"]``, and the entrypoint ending in clubrating followed
    by CMD's first word."""
    found: set[str] = set()
    forms = {m.group(1): json.loads(m.group(2))
             for m in re.finditer(r"^(ENTRYPOINT|CMD)\s+(\[.*\])\s*$", text, re.MULTILINE)}
    if forms.get("ENTRYPOINT", [""])[-1] == "clubrating" and forms.get("CMD"):
        found.add(forms["CMD"][0])
    for array in re.findall(r"\[[^\]\n]*\"clubrating\"[^\]\n]*\]", text):
        words = json.loads(array)
        position = words.index("clubrating")
        if position + 1 < len(words):
            found.add(words[position + 1])
    return found | _commands_in_text(text)


def _without_service(text: str, service: str) -> str:
    """compose.yaml without one service's block (its lines indented under ``  NAME:``)."""
    lines = text.splitlines()
    start = lines.index(f"  {service}:")
    end = next(i for i in range(start + 1, len(lines))
               if lines[i] and not lines[i].startswith("    ") and not lines[i].startswith("#"))
    return "\n".join(lines[:start] + lines[end:])


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_every_command_is_a_subcommand() -> None:
    real = _subcommands()
    found = {
        "Dockerfile": _commands_in_dockerfile(_read(DOCKERFILE)),
        "compose.yaml": _commands_in_text(_read(COMPOSE) + _read(COMPOSE_WEBHOOK)),
        "clubrating.service": _commands_in_text(_read(UNIT)),
        "docs/deploy.md": _commands_in_text(_read(DEPLOY_DOC)),
    }
    for where, commands in found.items():
        assert commands <= real, f"{where}: not subcommands of clubrating: {commands - real}"
    # the reading finds what is there
    assert {"run", "healthcheck"} <= found["Dockerfile"]
    assert found["clubrating.service"] == {"run"}
    assert "check-config" in found["compose.yaml"]
    assert {"check-config", "healthcheck", "backup", "restore", "migrate-db"} <= found[
        "docs/deploy.md"]


def test_every_variable_is_read_by_the_bot() -> None:
    known = set(settings.VARIABLES)
    unit = "\n".join(line for line in _read(UNIT).splitlines()
                     if not line.startswith("RestrictAddressFamilies="))  # AF_INET, ...
    named = {
        "compose.yaml (bot)": _without_service(_read(COMPOSE), "db"),
        "compose.webhook.yaml": _read(COMPOSE_WEBHOOK),
        "clubrating.service": unit,
        "docs/deploy.md": _read(DEPLOY_DOC),
        ".env.example": _read(ENV_EXAMPLE),
    }
    for where, text in named.items():
        variables = set(VARIABLE.findall(text))
        assert variables, where
        assert variables - FOREIGN <= known, f"{where}: not read by the bot: " \
            f"{sorted(variables - FOREIGN - known)}"
    # the bot's own names, wherever they appear (the Dockerfile's ENV, the db's comments)
    for path in (DOCKERFILE, COMPOSE):
        ours = {v for v in VARIABLE.findall(_read(path))
                if v.startswith(("CLUBRATING_", "TELEGRAM_", "DISCORD_"))}
        assert ours <= known, f"{path.name}: {sorted(ours - known)}"


def test_env_example_names_every_setting_and_holds_no_secret() -> None:
    text = _read(ENV_EXAMPLE)
    assignments = re.findall(r"^#?([A-Z][A-Z0-9_]*)=", text, re.MULTILINE)
    assert len(assignments) == len(set(assignments)), "a setting twice"
    mentioned = set(VARIABLE.findall(text))
    secrets = set(settings.SECRETS)
    for variable in set(settings.VARIABLES) - secrets - {"CREDENTIALS_DIRECTORY"}:
        assert variable in assignments, f".env.example lacks {variable}"
    assert "CREDENTIALS_DIRECTORY" in mentioned  # said to be systemd's, not set
    assert not secrets & set(assignments), "a secret's value belongs in a file, not in .env"
    for name in secrets:
        assert f"{name}_FILE" in assignments, name
    # every active line is an assignment of a setting; a comment says what each one is
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if re.match(r"^#?[A-Z][A-Z0-9_]*=", line):
            above = lines[number - 1]
            assert above.startswith("#") or re.match(r"^#?[A-Z]", above), line


def test_compose_gives_every_secret_as_a_file() -> None:
    bot = _without_service(_read(COMPOSE), "db")
    environment = set(re.findall(r"^      ([A-Z][A-Z0-9_]*):", bot, re.MULTILINE))
    for name in settings.SECRETS:
        assert f"{name}_FILE" in environment, name
        assert name not in environment, f"compose.yaml sets the secret {name} itself"
        secret = name.lower()
        assert re.search(rf"^      - {secret}$", bot, re.MULTILINE), f"{secret} is not mounted"
        assert f"{name}_FILE: ${{{name}_FILE:-}}" in bot
