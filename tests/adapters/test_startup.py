"""Start-up in the process: every setting checked before anything connects, each failure one
line without a secret (:class:`bot.settings.StartupError`, :class:`DatabaseUnavailable`), and the
members' data in files only their owner reads, whatever the umask. ``tests/system/
test_attack_startup.py`` runs the same as processes."""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import discord
import pytest
from telegram.error import InvalidToken, NetworkError

from bot import app, cli
from bot.adapters.discord import DiscordBot
from bot.adapters.telegram import TelegramBot
from bot.chat.ratelimit import Rate, RateLimiter
from bot.errors import ConfigError, StartupError
from bot.ops.backup import daily_backup
from bot.ops.redaction import MASK, redact_in_logs, scrub
from bot.service.clock import SystemClock
from bot.settings import Settings
from bot.storage.backends import describe, is_postgres, open_repository
from bot.storage.errors import DatabaseUnavailable
from bot.storage.sqlite import SqliteRepository
from bot.storage.sqlite_backup import backup, restore

TOKEN = "987654:SECRET-startup-token_x9"
SETTINGS = ("TELEGRAM_", "DISCORD_", "CLUBRATING_")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """No setting but a database in ``tmp_path``."""
    for name in list(os.environ):
        if name.startswith(SETTINGS):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CLUBRATING_DB", str(tmp_path / "club.db"))
    return monkeypatch


# -- settings -------------------------------------------------------------------------------------


def test_good_settings_pass_and_give_the_tokens(clean: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean.setenv("TELEGRAM_TOKEN", TOKEN)
    for name, value in {"CLUBRATING_RATE_LIMIT": "30/60", "CLUBRATING_BACKUP_DIR": "backups",
                        "CLUBRATING_BACKUP_KEEP": "3", "TELEGRAM_WEBHOOK_LISTEN": "[::]:8443",
                        "TELEGRAM_WEBHOOK_URL": "https://club.example/hook",
                        "TELEGRAM_WEBHOOK_SECRET": "a-Good_secret9",
                        "DISCORD_GUILD_ID": "900000000000000001",
                        "DISCORD_GATEWAY_URL": "wss://gateway.example/"}.items():
        clean.setenv(name, value)
    settings = Settings.from_environment()
    assert (settings.telegram_token, settings.discord_token) == (TOKEN, None)
    assert settings.rate == Rate(30, 60.0) and settings.backups == (Path("backups"), 3)
    assert settings.telegram_webhook_listen == ("::", 8443)
    assert settings.discord_guild_id == 900000000000000001
    assert not (tmp_path / "club.db").exists()  # checking opens nothing


@pytest.mark.parametrize(("name", "value"), [
    ("CLUBRATING_RATE_LIMIT", "fast"),
    ("CLUBRATING_BACKUP_KEEP", "0"),
    ("TELEGRAM_WEBHOOK_LISTEN", "0.0.0.0"),
    ("TELEGRAM_WEBHOOK_LISTEN", "0.0.0.0:0"),
    ("TELEGRAM_WEBHOOK_SECRET", "with spaces"),
    ("TELEGRAM_BASE_URL", "api.telegram.org/bot"),
    ("DISCORD_GATEWAY_URL", "gopher://gateway"),
    ("DISCORD_GUILD_ID", "12ab"),
    ("TELEGRAM_TOKEN", "1:abc"),
    ("DISCORD_TOKEN", "has a space inside it"),
    ("CLUBRATING_DB", "postgresql://bot:pw@db:notaport/clubs"),
    ("CLUBRATING_DB", "sqlite:///club.db"),
])
def test_a_bad_setting_is_named_in_one_line(clean: pytest.MonkeyPatch, name: str,
                                            value: str) -> None:
    clean.setenv("CLUBRATING_BACKUP_DIR", "backups")
    clean.setenv(name, value)
    with pytest.raises(StartupError) as refused:
        Settings.from_environment()
    message = str(refused.value)
    assert message.startswith(name) and "\n" not in message
    if "TOKEN" in name or name == "TELEGRAM_WEBHOOK_SECRET":
        assert value not in message  # a secret, even a bad one, is not repeated
    assert ":pw@" not in message


def test_a_database_setting_is_checked_before_opening(clean: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    for target, expected in ((tmp_path, "is a folder"),
                             (tmp_path / "missing" / "club.db", "does not exist")):
        clean.setenv("CLUBRATING_DB", str(target))
        with pytest.raises(StartupError, match=expected):
            Settings.from_environment()


# -- secrets in addresses -------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["postgresql", "POSTGRESQL", "Postgres", "postgres"])
def test_a_server_address_is_described_without_its_password(scheme: str) -> None:
    url = f"{scheme}://bot:s3cret@db.example:5433/clubs?password=other"
    assert is_postgres(url)
    assert describe(url) == f"{scheme.lower()}://bot@db.example:5433/clubs"
    assert "s3cret" not in scrub(f"connecting to {url}") and "other" not in scrub(url)
    assert describe("MySQL://bot:s3cret@db.example/clubs") == "mysql://bot@db.example/clubs"


def test_passwords_are_masked_in_log_records_however_short(
        caplog: pytest.LogCaptureFixture) -> None:
    redact_in_logs()  # the record factory that scrubs
    with caplog.at_level(logging.INFO):
        logging.getLogger("bot.test").info("db at %s", "POSTGRES://bot:pw@h/db")
    assert caplog.records[-1].getMessage() == f"db at POSTGRES://bot:{MASK}@h/db"


async def test_an_unreachable_server_is_one_line_without_the_password() -> None:
    with pytest.raises(DatabaseUnavailable) as refused:
        await open_repository("POSTGRESQL://bot:s3cret@127.0.0.1:1/clubs")
    message = str(refused.value)
    assert "s3cret" not in message and "bot@127.0.0.1:1/clubs" in message
    assert "\n" not in message


async def test_another_scheme_is_not_taken_for_a_file(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DatabaseUnavailable, match="neither"):
        await open_repository("mysql://bot:s3cret@db/clubs")
    assert list(tmp_path.iterdir()) == []


# -- SQLite files ---------------------------------------------------------------------------------


async def test_a_damaged_file_or_a_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"\x13" * 4096)
    with pytest.raises(DatabaseUnavailable, match="damaged or not a database"):
        await SqliteRepository.open(damaged)
    (tmp_path / "folder.db").mkdir()
    with pytest.raises(DatabaseUnavailable, match="is a folder"):
        await SqliteRepository.open(tmp_path / "folder.db")
    assert mode(tmp_path / "folder.db") & 0o755 == 0o755  # a folder is never narrowed


@pytest.mark.usefixtures("umask_022")
async def test_the_database_and_its_wal_files_are_the_owners_alone(tmp_path: Path) -> None:
    database = tmp_path / "club.db"
    repository = await SqliteRepository.open(database)
    try:
        await repository.club_id("telegram", "-1", datetime.now(UTC))
        for path in (database, tmp_path / "club.db-wal", tmp_path / "club.db-shm"):
            assert mode(path) == 0o600, path
    finally:
        await repository.close()


@pytest.mark.usefixtures("umask_022")
async def test_wider_files_are_narrowed_at_open_with_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    database = tmp_path / "club.db"
    await (await SqliteRepository.open(database)).close()
    database.chmod(0o644)
    leftover = tmp_path / "club.db-wal"
    leftover.write_bytes(b"")  # as an older version's crash would leave it
    leftover.chmod(0o666)
    with caplog.at_level(logging.WARNING, "bot.storage"):
        repository = await SqliteRepository.open(database)
    await repository.close()
    assert mode(database) == 0o600
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(str(database) in w and "644" in w for w in warned)
    assert any("club.db-wal" in w and "666" in w for w in warned)


@pytest.mark.usefixtures("umask_022")
async def test_backups_and_restores_are_the_owners_alone(tmp_path: Path) -> None:
    database = tmp_path / "club.db"
    repository = await SqliteRepository.open(database)
    await repository.club_id("telegram", "-1", datetime.now(UTC))
    await repository.close()
    copy = tmp_path / "new" / "copy.db"
    backup(database, copy)
    assert mode(copy) == 0o600 and mode(copy.parent) == 0o700
    restored = tmp_path / "restored.db"
    restore(copy, restored)
    assert mode(restored) == 0o600

    folder = tmp_path / "daily"
    folder.mkdir(mode=0o755)
    older = folder / "clubrating-20000101-000000.db"
    backup(database, older)
    older.chmod(0o644)
    daily = daily_backup(database, folder, keep=3)
    assert mode(folder) == 0o700 and mode(daily) == 0o600 and mode(older) == 0o600


# -- platforms ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("platform", "error", "expected"), [
    ("telegram", InvalidToken(f"The token `{TOKEN}` was rejected by the server."),
     "refused TELEGRAM_TOKEN"),
    ("telegram", NetworkError(f"httpx.ConnectError: https://api.telegram.org/bot{TOKEN}/getMe"),
     "cannot reach Telegram"),
    ("discord", discord.LoginFailure("Improper token has been passed."), "refused DISCORD_TOKEN"),
    ("discord", aiohttp.ClientConnectionError(f"Bot {TOKEN}"), "cannot reach Discord"),
    ("discord", RuntimeError(f"odd {TOKEN}"), "discord stopped: RuntimeError"),
])
def test_a_platform_failure_names_the_setting_never_the_token(
        clean: pytest.MonkeyPatch, platform: str, error: Exception, expected: str) -> None:
    redact_in_logs(TOKEN)
    # The front-ends only keep the service (None here) and the limiter: nothing is started.
    limiter = RateLimiter(SystemClock(), None)
    front = (TelegramBot(None, limiter, TOKEN) if platform == "telegram"  # type: ignore[arg-type]
             else DiscordBot(None, limiter, TOKEN))  # type: ignore[arg-type]
    message = scrub(str(app.platform_failure(front, error)))
    assert expected in message and TOKEN not in message and "SECRET" not in message


# -- the command line -----------------------------------------------------------------------------


def test_a_bad_setting_fails_with_one_line_and_status_78(
        clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    clean.setenv("CLUBRATING_RATE_LIMIT", "fast")
    assert cli.main(["run"]) == 78  # EX_CONFIG: a service manager must not restart it
    assert capsys.readouterr().err == ("clubrating: CLUBRATING_RATE_LIMIT must be "
                                       "COMMANDS/SECONDS (e.g. 20/60) or off, not 'fast'\n")


def test_an_unexpected_failure_is_one_line_and_verbose_adds_the_masked_traceback(
        clean: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    async def broken() -> None:
        redact_in_logs(TOKEN)
        raise RuntimeError(f"something odd with bot{TOKEN} at postgres://u:pw@h/db")

    clean.setattr(cli, "run", broken)
    assert cli.main(["run"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("clubrating: clubrating run stopped: ")
    assert TOKEN not in err and ":pw@" not in err and "--verbose" in err

    root = logging.getLogger()
    handler = logging.StreamHandler()  # what basicConfig would install on stderr
    root.addHandler(handler)
    try:
        assert cli.main(["run", "--verbose"]) == 1
    finally:
        root.removeHandler(handler)
    err = capsys.readouterr().err
    assert "Traceback" in err and MASK in err and TOKEN not in err and ":pw@" not in err
    assert err.splitlines()[-1].startswith("clubrating: clubrating run stopped")


# -- Discord shards (issue 41) --------------------------------------------------------------------


@pytest.mark.parametrize(("count", "ids", "expected"), [
    ("4", None, (4, (0, 1, 2, 3))),
    ("4", "0-3", (4, (0, 1, 2, 3))),
    ("4", "0,2", (4, (0, 2))),
    ("8", "0-1,3, 6-7", (8, (0, 1, 3, 6, 7))),
    ("1", "0", (1, (0,))),
])
def test_discord_shards_are_a_count_and_this_processs_ids(
        clean: pytest.MonkeyPatch, count: str, ids: str | None,
        expected: tuple[int, tuple[int, ...]]) -> None:
    clean.setenv("CLUBRATING_DB", "postgresql://bot@db/clubs")
    clean.setenv("DISCORD_SHARD_COUNT", count)
    if ids is not None:
        clean.setenv("DISCORD_SHARD_IDS", ids)
    shards = Settings.from_environment().discord_shards
    assert shards is not None and (shards.count, shards.ids) == expected


def test_without_shard_settings_discord_decides(clean: pytest.MonkeyPatch) -> None:
    assert Settings.from_environment().discord_shards is None


@pytest.mark.parametrize(("count", "ids", "problem"), [
    (None, "0-1", "DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT (the number of shards the ids "
                  "are of)"),
    ("0", None, "DISCORD_SHARD_COUNT must be a whole number from 1 to 65536, not '0'"),
    ("four", None, "DISCORD_SHARD_COUNT must be a whole number from 1 to 65536, not 'four'"),
    ("4", "0-4", "DISCORD_SHARD_IDS: shard 4 does not exist; with DISCORD_SHARD_COUNT=4 the "
                 "shards are 0 to 3"),
    ("4", "3-1", "DISCORD_SHARD_IDS: the range 3-1 runs backwards (write 1-3)"),
    ("4", "0-2,2", "DISCORD_SHARD_IDS names shard 2 twice"),
    ("4", "0;1", "DISCORD_SHARD_IDS must be shard ids and ranges separated by commas (e.g. 0-3 "
                 "or 0,2), not '0;1'"),
    ("4", "-1", "DISCORD_SHARD_IDS must be shard ids and ranges separated by commas (e.g. 0-3 "
                "or 0,2), not '-1'"),
])
def test_bad_shard_settings_are_refused_naming_them(
        clean: pytest.MonkeyPatch, count: str | None, ids: str | None, problem: str) -> None:
    clean.setenv("CLUBRATING_DB", "postgresql://bot@db/clubs")
    for name, value in (("DISCORD_SHARD_COUNT", count), ("DISCORD_SHARD_IDS", ids)):
        if value is not None:
            clean.setenv(name, value)
    with pytest.raises(ConfigError) as refused:
        Settings.from_environment()
    assert str(refused.value) == problem


def test_a_share_of_the_shards_needs_postgresql(clean: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    clean.setenv("CLUBRATING_DB", str(tmp_path / "club.db"))
    clean.setenv("DISCORD_SHARD_COUNT", "4")
    clean.setenv("DISCORD_SHARD_IDS", "0-3")  # all of them: one process, fine on SQLite
    shards = Settings.from_environment().discord_shards
    assert shards is not None and shards.all
    clean.setenv("DISCORD_SHARD_IDS", "0-1")
    with pytest.raises(ConfigError, match=r"^DISCORD_SHARD_IDS=0-1 serves some of the 4 "
                                          r"shards, which needs a PostgreSQL CLUBRATING_DB"):
        Settings.from_environment()


def test_webhook_processes_on_one_database_are_told_to_share_a_secret(
        caplog: pytest.LogCaptureFixture) -> None:
    """Each process sets the webhook at its start: without TELEGRAM_WEBHOOK_SECRET each has a
    random one, so on a PostgreSQL database (several processes) the log says to set one."""
    hook = "https://club.example/hook"
    shared = Settings(telegram_webhook_url=hook, database="postgresql://bot@db.example/club")
    with caplog.at_level("WARNING", logger="bot.app"):
        assert app.telegram_webhook(shared) is not None
        assert app.telegram_webhook(replace(shared, telegram_webhook_secret="one-secret"))
        assert app.telegram_webhook(replace(shared, database="club.db")) is not None
    assert [r.getMessage() for r in caplog.records] == [
        "TELEGRAM_WEBHOOK_SECRET is not set: with a random one each, only the process started "
        "last receives Telegram's updates; give every process one secret"]
