"""The bot's settings: every environment variable ``clubrating run`` reads, read and checked once
at start-up (:meth:`Settings.from_environment`), before anything connects. The rest of the bot
receives values, never the environment: :mod:`bot.app` (the composition root) passes them down.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from bot.chat.ratelimit import DEFAULT_RATE, Rate, parse_rate
from bot.ops.backup import backup_settings
from bot.ops.redaction import MIN_SECRET, redact_in_logs
from bot.storage.backends import describe, is_postgres
from bot.storage.sqlite_backup import BackupError

DEFAULT_DB = "clubrating.db"
DEFAULT_LISTEN = "0.0.0.0:8443"
#: what Telegram accepts as a webhook's secret token (Bot API, setWebhook)
_WEBHOOK_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
#: the address settings and the schemes each takes
_ADDRESSES = {"TELEGRAM_BASE_URL": ("http", "https"), "TELEGRAM_WEBHOOK_URL": ("http", "https"),
              "DISCORD_API_BASE": ("http", "https"),
              "DISCORD_GATEWAY_URL": ("ws", "wss", "http", "https")}


class StartupError(Exception):
    """``clubrating run`` cannot start (or a platform stopped it): the message names what to
    fix, in one line, and holds no secret."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What the environment asks for, checked. The defaults are those of an empty environment
    (the console chat on ./clubrating.db); the secrets stay out of the ``repr``."""

    #: ``TELEGRAM_TOKEN`` (or ``TELEGRAM_TOKEN_FILE``): Telegram is served when set
    telegram_token: str | None = field(default=None, repr=False)
    #: ``DISCORD_TOKEN`` (or ``DISCORD_TOKEN_FILE``): Discord is served when set
    discord_token: str | None = field(default=None, repr=False)
    #: ``CLUBRATING_DB``: a SQLite file's path or a ``postgresql://`` address
    database: str = DEFAULT_DB
    #: ``CLUBRATING_RATE_LIMIT``: the members' rate, None for ``off``
    rate: Rate | None = DEFAULT_RATE
    #: ``CLUBRATING_BACKUP_DIR`` and ``CLUBRATING_BACKUP_KEEP``: the daily backups' folder and
    #: how many to keep, None when off
    backups: tuple[Path, int] | None = None
    #: ``TELEGRAM_BASE_URL``: another Bot API server
    telegram_base_url: str | None = None
    #: ``TELEGRAM_WEBHOOK_URL``: a webhook instead of long polling
    telegram_webhook_url: str | None = None
    #: ``TELEGRAM_WEBHOOK_SECRET``: None for a fresh random one
    telegram_webhook_secret: str | None = field(default=None, repr=False)
    #: ``TELEGRAM_WEBHOOK_LISTEN``: the host and port the webhook listens on
    telegram_webhook_listen: tuple[str, int] = ("0.0.0.0", 8443)
    #: ``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL``: a proxy in front of Discord
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None
    #: ``DISCORD_GUILD_ID``: sync the slash commands to this guild alone
    discord_guild_id: int | None = None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """Every setting, checked before anything connects: the first bad one raises
        :class:`StartupError` naming it (an unreadable token file: ``SystemExit``, see
        :func:`secret_from_environment`). The tokens and the webhook's secret are masked in
        every log record from the moment they are read (:mod:`bot.ops.redaction`)."""
        telegram = secret_from_environment("TELEGRAM_TOKEN", environ)
        discord = secret_from_environment("DISCORD_TOKEN", environ)
        redact_in_logs(telegram, discord, environ.get("TELEGRAM_WEBHOOK_SECRET"))
        for name, token in (("TELEGRAM_TOKEN", telegram), ("DISCORD_TOKEN", discord)):
            if token is not None and (len(token) < MIN_SECRET
                                      or any(c.isspace() or not c.isprintable() for c in token)):
                raise StartupError(f"{name} is not a bot token (too short, or with spaces "
                                   "inside): copy it again from the platform")
        database = database_from_environment(environ)
        check_database_setting(database)
        try:
            rate = parse_rate(environ.get("CLUBRATING_RATE_LIMIT") or "")
            backups = backup_settings(environ.get("CLUBRATING_BACKUP_DIR"),
                                      environ.get("CLUBRATING_BACKUP_KEEP"))
        except (ValueError, BackupError) as error:
            raise StartupError(str(error)) from None
        for name, schemes in _ADDRESSES.items():
            value = environ.get(name)
            if value:
                parts = urlsplit(value)
                if parts.scheme.lower() not in schemes or not parts.netloc:
                    raise StartupError(f"{name} must be an address starting with "
                                       f"{' or '.join(s + '://' for s in schemes)}, not "
                                       f"{describe(value)!r}")
        listen = listen_address(environ.get("TELEGRAM_WEBHOOK_LISTEN") or DEFAULT_LISTEN)
        secret = environ.get("TELEGRAM_WEBHOOK_SECRET")
        if secret and not _WEBHOOK_SECRET.match(secret):
            raise StartupError("TELEGRAM_WEBHOOK_SECRET may hold only 1 to 256 letters, digits, "
                               "_ and - (Telegram's rule)")
        return cls(
            telegram_token=telegram, discord_token=discord, database=database, rate=rate,
            backups=backups, telegram_base_url=environ.get("TELEGRAM_BASE_URL") or None,
            telegram_webhook_url=environ.get("TELEGRAM_WEBHOOK_URL") or None,
            telegram_webhook_secret=secret or None, telegram_webhook_listen=listen,
            discord_api_base=environ.get("DISCORD_API_BASE") or None,
            discord_gateway_url=environ.get("DISCORD_GATEWAY_URL") or None,
            discord_guild_id=guild_id(environ.get("DISCORD_GUILD_ID") or ""),
        )


def secret_from_environment(name: str, environ: Mapping[str, str] = os.environ) -> str | None:
    """A token from the variable ``name``, or from the file named by ``name_FILE`` (a mounted
    secret, kept out of the process environment). The error names the file, never its text."""
    value = environ.get(name)
    if value:
        return value.strip()
    path = environ.get(f"{name}_FILE")
    if not path:
        return None
    try:
        value = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not text"
        raise SystemExit(f"clubrating: {name}_FILE: cannot read {path} ({reason})") from None
    if not value:
        raise SystemExit(f"clubrating: {name}_FILE: {path} is empty")
    return value


def database_from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """``CLUBRATING_DB``: a ``postgresql://`` (or ``postgres://``) address selects the
    PostgreSQL backend, anything else is a SQLite file; ./clubrating.db by default. The one
    setting the shell's commands (``clubrating backup``, ``export``, ...) read, unchecked."""
    return environ.get("CLUBRATING_DB") or DEFAULT_DB


def check_database_setting(target: str) -> None:
    """``CLUBRATING_DB`` names a PostgreSQL server or a SQLite file that can be created or
    opened; what cannot be known before opening it (a damaged file, a server's answer) is
    :func:`bot.app.open_service`'s."""
    if "://" in target:
        if not is_postgres(target):
            raise StartupError(f"CLUBRATING_DB must be a SQLite file's path or a postgresql:// "
                               f"address, not {describe(target)!r}")
        try:
            port = urlsplit(target).port
        except ValueError:
            port = -1
        if port == -1:
            raise StartupError(f"CLUBRATING_DB: the port of {describe(target)} is not a number "
                               "from 0 to 65535")
        return
    path = Path(target)
    if path.is_dir():
        raise StartupError(f"CLUBRATING_DB: {path} is a folder; name a file, e.g. "
                           f"{path / DEFAULT_DB}")
    if not path.parent.is_dir():
        raise StartupError(f"CLUBRATING_DB: the folder {path.parent} of {path} does not exist")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise StartupError(f"CLUBRATING_DB: {path} cannot be read and written by this user: "
                           "check its owner and mode")


def listen_address(text: str) -> tuple[str, int]:
    """The value of ``TELEGRAM_WEBHOOK_LISTEN``: ``HOST:PORT`` (default 0.0.0.0:8443;
    ``[::]:8443`` for IPv6)."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536 or " " in host:
        raise StartupError(f"TELEGRAM_WEBHOOK_LISTEN must be HOST:PORT (e.g. {DEFAULT_LISTEN}), "
                           f"not {text!r}")
    return host.removeprefix("[").removesuffix("]") or "0.0.0.0", int(port)


def guild_id(text: str) -> int | None:
    """The value of ``DISCORD_GUILD_ID``: a server's id (Discord's Copy Server ID), or None
    when empty."""
    text = text.strip()
    if not text:
        return None
    if not text.isdigit() or not 0 < int(text) < 2 ** 64:
        raise StartupError(f"DISCORD_GUILD_ID must be a server's id (a number: Copy Server ID "
                           f"in Discord), not {text[:40]!r}")
    return int(text)
