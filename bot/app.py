"""Starting the bot: the database, the service, and the front-ends the environment asks for."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from bot.chat.ratelimit import rate_from_environment
from bot.ops.backup import backup_settings, start_daily_backups
from bot.ops.redaction import MIN_SECRET, redact_in_logs
from bot.scheduling.publishing import Publisher
from bot.scheduling.scheduler import PostScheduler

from .adapters.console import ConsolePublisher, run_console
from .service.clock import SystemClock
from .service.club import ClubService
from .storage.backends import describe, is_postgres, open_repository
from .storage.errors import DatabaseUnavailable
from .storage.repository import Repository
from .storage.sqlite_backup import BackupError

if TYPE_CHECKING:
    from .adapters.telegram import Webhook

log = logging.getLogger(__name__)

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


def secret_from_environment(name: str) -> str | None:
    """A token from the variable ``name``, or from the file named by ``name_FILE`` (a mounted
    secret, kept out of the process environment). The error names the file, never its text."""
    value = os.environ.get(name)
    if value:
        return value.strip()
    path = os.environ.get(f"{name}_FILE")
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


def database_path() -> str:
    """``CLUBRATING_DB``: a ``postgresql://`` (or ``postgres://``) address selects the
    PostgreSQL backend, anything else is a SQLite file; ./clubrating.db by default."""
    return os.environ.get("CLUBRATING_DB") or DEFAULT_DB


async def open_service() -> tuple[ClubService, Repository]:
    try:
        repository = await open_repository(database_path())
    except DatabaseUnavailable as error:
        raise StartupError(f"CLUBRATING_DB: {error}") from error
    return ClubService(repository, SystemClock()), repository


def check_settings() -> tuple[str | None, str | None]:
    """Every setting of the environment, checked before anything connects: the first bad one
    raises :class:`StartupError` naming it. Returns the tokens (Telegram's, Discord's), masked
    in every log record from now on (:mod:`bot.ops.redaction`), like the webhook's secret."""
    telegram = secret_from_environment("TELEGRAM_TOKEN")
    discord = secret_from_environment("DISCORD_TOKEN")
    redact_in_logs(telegram, discord, os.environ.get("TELEGRAM_WEBHOOK_SECRET"))
    for name, token in (("TELEGRAM_TOKEN", telegram), ("DISCORD_TOKEN", discord)):
        if token is not None and (len(token) < MIN_SECRET
                                  or any(c.isspace() or not c.isprintable() for c in token)):
            raise StartupError(f"{name} is not a bot token (too short, or with spaces inside): "
                               "copy it again from the platform")
    check_database_setting(database_path())
    try:
        rate_from_environment()
        backup_settings()
    except (ValueError, BackupError) as error:
        raise StartupError(str(error)) from None
    for name, schemes in _ADDRESSES.items():
        value = os.environ.get(name)
        if value:
            parts = urlsplit(value)
            if parts.scheme.lower() not in schemes or not parts.netloc:
                raise StartupError(f"{name} must be an address starting with "
                                   f"{' or '.join(s + '://' for s in schemes)}, not "
                                   f"{describe(value)!r}")
    listen_address()
    secret = os.environ.get("TELEGRAM_WEBHOOK_SECRET")
    if secret and not _WEBHOOK_SECRET.match(secret):
        raise StartupError("TELEGRAM_WEBHOOK_SECRET may hold only 1 to 256 letters, digits, _ "
                           "and - (Telegram's rule)")
    guild_from_environment()
    return telegram, discord


def check_database_setting(target: str) -> None:
    """``CLUBRATING_DB`` names a PostgreSQL server or a SQLite file that can be created or
    opened; what cannot be known before opening it (a damaged file, a server's answer) is
    :func:`open_service`'s."""
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


def listen_address() -> tuple[str, int]:
    """``TELEGRAM_WEBHOOK_LISTEN``: ``HOST:PORT`` (default 0.0.0.0:8443; ``[::]:8443`` for
    IPv6)."""
    text = os.environ.get("TELEGRAM_WEBHOOK_LISTEN") or DEFAULT_LISTEN
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536 or " " in host:
        raise StartupError(f"TELEGRAM_WEBHOOK_LISTEN must be HOST:PORT (e.g. {DEFAULT_LISTEN}), "
                           f"not {text!r}")
    return host.removeprefix("[").removesuffix("]") or "0.0.0.0", int(port)


def guild_from_environment() -> int | None:
    """``DISCORD_GUILD_ID``: a server's id (Discord's Copy Server ID), or None."""
    text = (os.environ.get("DISCORD_GUILD_ID") or "").strip()
    if not text:
        return None
    if not text.isdigit() or not 0 < int(text) < 2 ** 64:
        raise StartupError(f"DISCORD_GUILD_ID must be a server's id (a number: Copy Server ID "
                           f"in Discord), not {text[:40]!r}")
    return int(text)


def webhook_from_environment() -> Webhook | None:
    """``TELEGRAM_WEBHOOK_URL`` switches from long polling to a webhook;
    ``TELEGRAM_WEBHOOK_LISTEN`` (default 0.0.0.0:8443) and ``TELEGRAM_WEBHOOK_SECRET``
    (default: a fresh random one) complete it."""
    from .adapters.telegram import Webhook

    url = os.environ.get("TELEGRAM_WEBHOOK_URL")
    if not url:
        return None
    host, port = listen_address()
    secret = os.environ.get("TELEGRAM_WEBHOOK_SECRET") or secrets.token_urlsafe(32)
    redact_in_logs(secret)
    return Webhook(url, host, port, secret)


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM: every front-end of the process stops on it."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


class FrontEnd(Protocol):
    """A chat platform as the process runs it (``TelegramBot``, ``DiscordBot``): built with
    its publisher, then started, watched and stopped."""

    @property
    def platform(self) -> str: ...

    @property
    def publisher(self) -> Publisher: ...

    async def start(self) -> None:
        """Connected and serving when it returns; raises when the platform refuses."""
        ...

    async def failed(self) -> None:
        """Returns (or raises) when the front-end stops serving by itself."""
        ...

    async def stop(self) -> None: ...

    def explain(self, error: Exception) -> str | None:
        """What to check when the platform refused to start or stopped with ``error``, in one
        line without a secret; None when the front-end cannot say."""
        ...


def front_ends_from_environment(service: ClubService, telegram_token: str | None,
                                discord_token: str | None) -> list[FrontEnd]:
    """Telegram when its token is set (``TELEGRAM_BASE_URL``: another Bot API server; a
    webhook, see :func:`webhook_from_environment`), Discord when its token is set
    (``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` put a proxy in front of Discord's REST API
    and gateway; ``DISCORD_GUILD_ID`` syncs the slash commands to that guild alone, at once,
    instead of globally). Each platform's library is imported only when it is asked for."""
    front_ends: list[FrontEnd] = []
    if telegram_token:
        from .adapters.telegram import TelegramBot

        front_ends.append(TelegramBot(service, telegram_token,
                                      os.environ.get("TELEGRAM_BASE_URL") or None,
                                      webhook_from_environment()))
    if discord_token:
        from .adapters.discord import DiscordBot

        front_ends.append(DiscordBot(service, discord_token,
                                     api_base=os.environ.get("DISCORD_API_BASE") or None,
                                     gateway=os.environ.get("DISCORD_GATEWAY_URL") or None,
                                     sync_guild=guild_from_environment()))
    return front_ends


async def serve(service: ClubService, repository: Repository, front_ends: Sequence[FrontEnd],
                stop: asyncio.Event) -> None:
    """Run the chat platforms and what they post until ``stop`` is set or a platform stops by
    itself. The order matters: the front-ends are built before the scheduler, so the scheduler
    knows every platform's publisher; they are started before it, so that its first post finds
    them connected; and they are stopped after it."""
    publishers = {front.platform: front.publisher for front in front_ends}
    scheduler = PostScheduler(service, repository, publishers, SystemClock())
    async with contextlib.AsyncExitStack() as running:
        for front in front_ends:
            running.push_async_callback(front.stop)
            try:
                await front.start()
            except Exception as error:
                raise platform_failure(front, error) from error
        running.push_async_callback(scheduler.stop)
        await scheduler.start()
        backups = start_daily_backups(database_path())
        if backups is not None:
            running.callback(backups.cancel)
        watched: dict[asyncio.Future[object], FrontEnd | None] = {
            asyncio.ensure_future(stop.wait()): None}
        watched |= {asyncio.ensure_future(front.failed()): front for front in front_ends}
        try:
            done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in watched:
                task.cancel()
        for task in done:
            failure = None if task.cancelled() else task.exception()
            stopped = watched[task]
            if isinstance(failure, Exception) and stopped is not None:  # a token revoked, ...
                raise platform_failure(stopped, failure) from failure
            if failure is not None:
                raise failure


def platform_failure(front: FrontEnd, error: Exception) -> StartupError:
    """A platform's refusal or absence, in one line naming the setting to check (never the
    token: it is in some of these errors' own text)."""
    reason = front.explain(error)
    return StartupError(reason or f"{front.platform} stopped: {type(error).__name__}: {error}")


async def run() -> None:
    """Telegram when ``TELEGRAM_TOKEN`` is set, Discord when ``DISCORD_TOKEN`` is (both at
    once when both are: one event loop, one service, one database); otherwise the console
    chat."""
    token, discord_token = check_settings()
    service, repository = await open_service()
    try:
        if token or discord_token:
            from .charts.pictures import prepare as prepare_pictures

            await prepare_pictures()  # matplotlib and fonts loaded, then out of the GC's way
            front_ends = front_ends_from_environment(service, token, discord_token)
            await serve(service, repository, front_ends, stop_on_signals())
            return
        await run_console_chat(service, repository)
    finally:
        await repository.close()


async def run_console_chat(service: ClubService, repository: Repository) -> None:
    """The console chat on standard input and output. With a terminal, scheduled posts are
    printed there too; a scripted session's output stays exactly its answers."""
    log.info("console chat on %s", describe(database_path()))
    # The console is the chat: a log line per use case would come between the answers.
    logging.getLogger("bot.use_case").setLevel(logging.WARNING)
    interactive = sys.stdin.isatty()
    scheduler = PostScheduler(service, repository, {"console": ConsolePublisher(sys.stdout)},
                              SystemClock())
    if interactive:
        await scheduler.start()
    try:
        await run_console(service, sys.stdin, sys.stdout, interactive=interactive)
    finally:
        await scheduler.stop()
