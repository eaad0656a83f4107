"""The bot's settings: every environment variable ``clubrating run`` reads, read and checked once
at start-up (:meth:`Settings.from_environment`), before anything connects. The rest of the bot
receives values, never the environment: :mod:`bot.app` (the composition root) passes them down.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from bot.chat.ratelimit import DEFAULT_RATE, Rate, parse_rate
from bot.errors import ConfigError
from bot.ops.backup import backup_settings
from bot.ops.redaction import MIN_SECRET, redact_in_logs
from bot.scheduling.spread import DEFAULT_POST_WINDOW, parse_window
from bot.service.cache import DEFAULT_CAPACITY
from bot.storage.backends import describe, is_postgres
from bot.storage.sqlite_backup import BackupError

#: the database's and the backups folder's names in the data folder
DEFAULT_DB = "clubrating.db"
BACKUPS = "backups"
DEFAULT_LISTEN = "0.0.0.0:8443"
#: what Telegram accepts as a webhook's secret token (Bot API, setWebhook)
_WEBHOOK_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
#: the address settings and the schemes each takes
_ADDRESSES = {"TELEGRAM_BASE_URL": ("http", "https"), "TELEGRAM_WEBHOOK_URL": ("http", "https"),
              "DISCORD_API_BASE": ("http", "https"),
              "DISCORD_GATEWAY_URL": ("ws", "wss", "http", "https")}


#: the settings that are secrets: each may also come from ``NAME_FILE`` or from the systemd
#: credential ``$CREDENTIALS_DIRECTORY/name`` (:func:`secret_from_environment`)
SECRETS = ("TELEGRAM_TOKEN", "DISCORD_TOKEN", "TELEGRAM_WEBHOOK_SECRET", "CLUBRATING_DB")
#: every other variable the bot reads
PLAIN = ("CLUBRATING_DATA_DIR", "CLUBRATING_RATE_LIMIT", "CLUBRATING_BACKUP_DIR",
         "CLUBRATING_BACKUP_KEEP", "TELEGRAM_BASE_URL", "TELEGRAM_WEBHOOK_URL",
         "TELEGRAM_WEBHOOK_LISTEN", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL",
         "DISCORD_GUILD_ID", "CREDENTIALS_DIRECTORY", "CLUBRATING_WEB_LISTEN",
         "DISCORD_SHARD_COUNT", "DISCORD_SHARD_IDS", "CLUBRATING_CACHE_CLUBS",
         "CLUBRATING_POST_WINDOW")
#: every environment variable the bot reads (the deployment files may name no other)
VARIABLES = (*SECRETS, *(f"{name}_FILE" for name in SECRETS), *PLAIN)


@dataclass(frozen=True, slots=True)
class Shards:
    """``DISCORD_SHARD_COUNT`` and ``DISCORD_SHARD_IDS``: how many shards the bot's guilds are
    split into, and the ones this process serves (all of them when the second is not set)."""

    count: int
    ids: tuple[int, ...]

    @property
    def all(self) -> bool:
        """Whether this process serves every shard."""
        return self.ids == tuple(range(self.count))


@dataclass(frozen=True, slots=True)
class Settings:
    """What the environment asks for, checked. The defaults are those of an empty environment
    (the console chat on ./clubrating.db); the secrets stay out of the ``repr``."""

    #: ``TELEGRAM_TOKEN``: Telegram is served when set
    telegram_token: str | None = field(default=None, repr=False)
    #: ``DISCORD_TOKEN``: Discord is served when set
    discord_token: str | None = field(default=None, repr=False)
    #: ``CLUBRATING_DATA_DIR``: the folder the bot writes to (database by default, backups,
    #: heartbeat, the chart library's cache)
    data_dir: Path = Path(".")
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
    #: ``DISCORD_SHARD_COUNT`` and ``DISCORD_SHARD_IDS`` (None: one process, with as many
    #: shards as Discord recommends)
    discord_shards: Shards | None = None
    #: ``CLUBRATING_WEB_LISTEN``: serve the public web leaderboard there too (None: not)
    web_listen: tuple[str, int] | None = None
    #: ``CLUBRATING_CACHE_CLUBS``: how many clubs' states are kept in memory at most
    cache_clubs: int = DEFAULT_CAPACITY
    #: ``CLUBRATING_POST_WINDOW``: the scheduled posts of one instant are spread over it
    post_window: timedelta = DEFAULT_POST_WINDOW

    @property
    def backup_folder(self) -> Path:
        """Where backups go: ``CLUBRATING_BACKUP_DIR``, else ``backups`` in the data folder (the
        backup taken before a migration goes there even when daily backups are off)."""
        return self.backups[0] if self.backups else self.data_dir / BACKUPS

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """Every setting, checked before anything connects, offline: a :class:`ConfigError`
        names every bad one. The tokens and the webhook's secret are masked in every log record
        from the moment they are read (:mod:`bot.ops.redaction`)."""
        problems: list[str] = []

        def checked(read: Callable[[], _T], default: _T) -> _T:
            try:
                return read()
            except ConfigError as error:
                problems.extend(error.problems)
                return default

        telegram = checked(lambda: token_from_environment("TELEGRAM_TOKEN", environ), None)
        discord = checked(lambda: token_from_environment("DISCORD_TOKEN", environ), None)
        secret = checked(lambda: webhook_secret(environ), None)
        data_dir = checked(lambda: data_folder(environ), None)
        database = checked(lambda: secret_from_environment("CLUBRATING_DB", environ), None)
        if database is None and data_dir is not None:  # else the folder's problem says it
            database = str(data_dir / DEFAULT_DB)
        if database is not None:
            checked(partial(check_database_setting, database), None)
        rate = checked(lambda: _rate(environ.get("CLUBRATING_RATE_LIMIT") or ""), None)
        backups = checked(lambda: _backups(environ), None)
        for name, schemes in _ADDRESSES.items():
            checked(partial(_address, name, schemes, environ), None)
        listen = checked(lambda: listen_address(environ.get("TELEGRAM_WEBHOOK_LISTEN")
                                                or DEFAULT_LISTEN), ("0.0.0.0", 8443))
        guild = checked(lambda: guild_id(environ.get("DISCORD_GUILD_ID") or ""), None)
        shards = checked(lambda: discord_shards(environ, database), None)
        web = environ.get("CLUBRATING_WEB_LISTEN") or None
        web_listen = None if web is None else checked(lambda: listen_address(
            web, "CLUBRATING_WEB_LISTEN", WEB_LISTEN), None)
        cache_clubs = checked(lambda: _cache_clubs(environ.get("CLUBRATING_CACHE_CLUBS") or ""),
                              DEFAULT_CAPACITY)
        post_window = checked(lambda: _post_window(environ.get("CLUBRATING_POST_WINDOW") or ""),
                              DEFAULT_POST_WINDOW)
        if problems:
            raise ConfigError(*problems)
        return cls(
            telegram_token=telegram, discord_token=discord, data_dir=data_dir or Path("."),
            database=database or DEFAULT_DB, rate=rate, backups=backups,
            telegram_base_url=environ.get("TELEGRAM_BASE_URL") or None,
            telegram_webhook_url=environ.get("TELEGRAM_WEBHOOK_URL") or None,
            telegram_webhook_secret=secret, telegram_webhook_listen=listen,
            discord_api_base=environ.get("DISCORD_API_BASE") or None,
            discord_gateway_url=environ.get("DISCORD_GATEWAY_URL") or None,
            discord_guild_id=guild, discord_shards=shards, web_listen=web_listen,
            cache_clubs=cache_clubs, post_window=post_window,
        )


_T = TypeVar("_T")


def token_from_environment(name: str, environ: Mapping[str, str]) -> str | None:
    """A bot token (``TELEGRAM_TOKEN``, ``DISCORD_TOKEN``), masked in the logs at once and
    checked for its shape (never quoted: a bad token is still a secret)."""
    token = secret_from_environment(name, environ)
    redact_in_logs(token)
    if token is not None and (len(token) < MIN_SECRET
                              or any(c.isspace() or not c.isprintable() for c in token)):
        raise ConfigError(f"{name} is not a bot token (too short, or with spaces inside): copy "
                          "it again from the platform")
    return token


def webhook_secret(environ: Mapping[str, str]) -> str | None:
    """``TELEGRAM_WEBHOOK_SECRET``, in the characters Telegram accepts."""
    secret = secret_from_environment("TELEGRAM_WEBHOOK_SECRET", environ)
    redact_in_logs(secret)
    if secret and not _WEBHOOK_SECRET.match(secret):
        raise ConfigError("TELEGRAM_WEBHOOK_SECRET may hold only 1 to 256 letters, digits, _ "
                          "and - (Telegram's rule)")
    return secret or None


def _rate(text: str) -> Rate | None:
    try:
        return parse_rate(text)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _cache_clubs(text: str) -> int:
    """The value of ``CLUBRATING_CACHE_CLUBS``: a whole number of clubs, at least 1 (empty: the
    default)."""
    text = text.strip().replace("_", "").replace(",", "")
    if not text:
        return DEFAULT_CAPACITY
    if not text.isdigit() or int(text) < 1:
        raise ConfigError(f"CLUBRATING_CACHE_CLUBS must be a number of clubs, at least 1 (e.g. "
                          f"{DEFAULT_CAPACITY}), not {text[:40]!r}")
    return int(text)


def _post_window(text: str) -> timedelta:
    """The value of ``CLUBRATING_POST_WINDOW``: a duration (empty: the default)."""
    if not text.strip():
        return DEFAULT_POST_WINDOW
    try:
        return parse_window(text)
    except ValueError:
        raise ConfigError(f"CLUBRATING_POST_WINDOW must be a duration: seconds (7200) or a "
                          f"number with s, m or h (120s, 30m, 2h; 0: no spread), not "
                          f"{text.strip()[:40]!r}") from None


def _backups(environ: Mapping[str, str]) -> tuple[Path, int] | None:
    try:
        return backup_settings(environ.get("CLUBRATING_BACKUP_DIR"),
                               environ.get("CLUBRATING_BACKUP_KEEP"))
    except BackupError as error:
        raise ConfigError(str(error)) from None


def _address(name: str, schemes: tuple[str, ...], environ: Mapping[str, str]) -> None:
    value = environ.get(name)
    if value:
        parts = urlsplit(value)
        if parts.scheme.lower() not in schemes or not parts.netloc:
            raise ConfigError(f"{name} must be an address starting with "
                              f"{' or '.join(s + '://' for s in schemes)}, not "
                              f"{describe(value)!r}")


def secret_from_environment(name: str, environ: Mapping[str, str] = os.environ) -> str | None:
    """A secret from exactly one of three places: the variable ``name``; the file named by
    ``name_FILE`` (a mounted secret, kept out of the process environment); the systemd
    credential ``$CREDENTIALS_DIRECTORY/name`` in lower case (``LoadCredential=``). Leading and
    trailing white space is dropped. Two places for one secret, an unreadable or empty file:
    :class:`ConfigError` naming the places and files, never the text."""
    sources: list[tuple[str, Path | None]] = []
    if environ.get(name):
        sources.append((name, None))
    if environ.get(f"{name}_FILE"):
        sources.append((f"{name}_FILE", Path(environ[f"{name}_FILE"])))
    credentials = environ.get("CREDENTIALS_DIRECTORY")
    if credentials:
        credential = Path(credentials) / name.lower()
        if credential.exists():
            sources.append((f"the credential {credential}", credential))
    if not sources:
        return None
    if len(sources) > 1:
        raise ConfigError(f"{name} is given twice, by {sources[0][0]} and by {sources[1][0]}: "
                          "keep one")
    source, path = sources[0]
    if path is None:
        return environ[name].strip()
    try:
        value = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not text"
        raise ConfigError(f"{source}: cannot read {path} ({reason})") from None
    if not value:
        raise ConfigError(f"{source}: {path} is empty")
    return value


def data_folder_named(environ: Mapping[str, str] = os.environ) -> Path:
    """The folder ``CLUBRATING_DATA_DIR`` names, the current one by default, unchecked (the
    health check and the shell's commands only read in it)."""
    return Path(environ.get("CLUBRATING_DATA_DIR") or ".")


def data_folder(environ: Mapping[str, str] = os.environ) -> Path:
    """``CLUBRATING_DATA_DIR``: the folder the bot writes to, the current one by default. It
    must exist (a container's volume, systemd's ``StateDirectory=``: a typing mistake should
    not start a bot on a new empty database) and be writable."""
    folder = data_folder_named(environ)
    shown = f"{folder} (the current folder)" if folder == Path(".") else str(folder)
    if not folder.is_dir():
        raise ConfigError(f"CLUBRATING_DATA_DIR: there is no folder {shown}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"CLUBRATING_DATA_DIR: {shown} cannot be written by this user: name "
                          "a folder the bot may write (its database, backups and heartbeat)")
    return folder


def database_from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """``CLUBRATING_DB`` (a secret when it is an address with a password: also from
    ``CLUBRATING_DB_FILE`` or a credential): a ``postgresql://`` (or ``postgres://``) address
    selects the PostgreSQL backend, anything else is a SQLite file; ``clubrating.db`` in the
    data folder by default. The one setting the shell's commands (``clubrating backup``,
    ``export``, ...) read, unchecked."""
    database = secret_from_environment("CLUBRATING_DB", environ)
    if database is not None:  # an address's password is masked wherever it shows (redaction)
        return database
    return str(data_folder_named(environ) / DEFAULT_DB)


def check_database_setting(target: str) -> None:
    """``CLUBRATING_DB`` names a PostgreSQL server or a SQLite file that can be created or
    opened; what cannot be known before opening it (a damaged file, a server's answer) is
    :func:`bot.app.open_service`'s."""
    if "://" in target:
        if not is_postgres(target):
            raise ConfigError(f"CLUBRATING_DB must be a SQLite file's path or a postgresql:// "
                               f"address, not {describe(target)!r}")
        try:
            port = urlsplit(target).port
        except ValueError:
            port = -1
        if port == -1:
            raise ConfigError(f"CLUBRATING_DB: the port of {describe(target)} is not a number "
                               "from 0 to 65535")
        return
    path = Path(target)
    if path.is_dir():
        raise ConfigError(f"CLUBRATING_DB: {path} is a folder; name a file, e.g. "
                           f"{path / DEFAULT_DB}")
    if not path.parent.is_dir():
        raise ConfigError(f"CLUBRATING_DB: the folder {path.parent} of {path} does not exist")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise ConfigError(f"CLUBRATING_DB: {path} cannot be read and written by this user: "
                           "check its owner and mode")


#: where the public web leaderboard listens unless told: this machine only
WEB_LISTEN = "127.0.0.1:8080"


def listen_address(text: str, name: str = "TELEGRAM_WEBHOOK_LISTEN",
                   default: str = DEFAULT_LISTEN) -> tuple[str, int]:
    """``HOST:PORT`` (``[::]:8443`` for IPv6): the value of ``TELEGRAM_WEBHOOK_LISTEN``
    (default 0.0.0.0:8443), of ``CLUBRATING_WEB_LISTEN`` or of ``clubrating web --listen``
    (``name`` says which, and ``default`` its example)."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536 or " " in host:
        raise ConfigError(f"{name} must be HOST:PORT (e.g. {default}), not {text!r}")
    return host.removeprefix("[").removesuffix("]") or "0.0.0.0", int(port)


def guild_id(text: str) -> int | None:
    """The value of ``DISCORD_GUILD_ID``: a server's id (Discord's Copy Server ID), or None
    when empty."""
    text = text.strip()
    if not text:
        return None
    if not text.isdigit() or not 0 < int(text) < 2 ** 64:
        raise ConfigError(f"DISCORD_GUILD_ID must be a server's id (a number: Copy Server ID "
                           f"in Discord), not {text[:40]!r}")
    return int(text)


#: the most shards a bot may ask for here: Discord's largest bots run some tens of thousands
MAX_SHARDS = 65536


def discord_shards(environ: Mapping[str, str], database: str | None) -> Shards | None:
    """``DISCORD_SHARD_COUNT`` (a positive whole number) and ``DISCORD_SHARD_IDS`` (this
    process's shards: ``0-3``, ``0,2``, ``0-1,3``; each below the count; the second needs the
    first). A share of the shards needs PostgreSQL: the other shards' processes share the
    database, and a SQLite file has one process."""
    count_text = (environ.get("DISCORD_SHARD_COUNT") or "").strip()
    ids_text = (environ.get("DISCORD_SHARD_IDS") or "").strip()
    if not count_text:
        if ids_text:
            raise ConfigError("DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT (the number of "
                              "shards the ids are of)")
        return None
    if not count_text.isdigit() or not 0 < int(count_text) <= MAX_SHARDS:
        raise ConfigError(f"DISCORD_SHARD_COUNT must be a whole number from 1 to {MAX_SHARDS}, "
                          f"not {count_text[:40]!r}")
    count = int(count_text)
    shards = Shards(count, shard_ids(ids_text, count) if ids_text else tuple(range(count)))
    if not shards.all and database is not None and not is_postgres(database):
        raise ConfigError(f"DISCORD_SHARD_IDS={ids_text} serves some of the {count} shards, "
                          "which needs a PostgreSQL CLUBRATING_DB shared with the processes "
                          "of the others (a SQLite file is served by one process: leave "
                          "DISCORD_SHARD_IDS out)")
    return shards


def shard_ids(text: str, count: int) -> tuple[int, ...]:
    """``DISCORD_SHARD_IDS``: ids and ranges separated by commas (``0-1,3``), each id below
    ``count``, none twice; in increasing order."""
    ids: list[int] = []
    example = "e.g. 0-3 or 0,2"
    for part in text.split(","):
        first, dash, last = (p.strip() for p in part.partition("-"))
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ConfigError(f"DISCORD_SHARD_IDS must be shard ids and ranges separated by "
                              f"commas ({example}), not {text[:40]!r}")
        low, high = int(first), int(last) if dash else int(first)
        if low > high:
            raise ConfigError(f"DISCORD_SHARD_IDS: the range {part.strip()} runs backwards "
                              f"(write {high}-{low})")
        if high >= count:
            raise ConfigError(f"DISCORD_SHARD_IDS: shard {high} does not exist; with "
                              f"DISCORD_SHARD_COUNT={count} the shards are 0 to {count - 1}")
        ids.extend(range(low, high + 1))
    twice = sorted({n for n in ids if ids.count(n) > 1})
    if twice:
        raise ConfigError(f"DISCORD_SHARD_IDS names shard {twice[0]} twice")
    return tuple(sorted(ids))
