"""Start-up as an attacker (or an unlucky operator) sees it: ``clubrating run`` and ``clubrating
backup`` started as processes with only environment variables and files as input.

Every failure at start-up - a token the platform refuses, a platform or database out of reach,
a damaged database file, a bad setting - is one line on stderr naming what to fix, with a
non-zero exit status, no traceback, and never a token or a password; ``clubrating run
--verbose`` adds the traceback, masked. The database (and its ``-wal`` and ``-shm`` files) and
every backup hold members' birth dates: they are the owner's alone (0600, the backup folder
0700) under the usual umask 022, and a database found wider is narrowed at start.

The tests run as root, where ``chmod 000`` does not keep a file from being read: the unreadable
database is a folder in its place instead (the ``chmod 000`` case runs only as another user).
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import fake_discord
from tests.fake_discord import FakeDiscord
from tests.fake_telegram import TOKEN, FakeTelegram

from .clubs import discord_variables, telegram_bot, telegram_variables
from .process import CLUBRATING, TIMEOUT, clubrating, environment

#: tokens nobody issued: they must never show, whatever fails
WRONG_TELEGRAM = "123456789:WRONG-telegram-token-nobody-issued_x9"
WRONG_DISCORD = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GwRong.WRONG-discord-hmac-nobody-issued_x9"
PASSWORD = "s3cret"
MASK = "[redacted]"
#: a log line of a library or of the bot's progress (migrations, discord.py's voice warnings)
LOG_LINE = re.compile(r"^(DEBUG|INFO|WARNING) [\w.]+: ")


#: the usual umask (tests/conftest.py): every process these tests start inherits it
pytestmark = pytest.mark.usefixtures("umask_022")


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


async def finished(env: Mapping[str, str], *args: str) -> Done:
    """``clubrating ARGS`` to its end without blocking the event loop (where the fake platforms
    answer), standard input empty."""
    process = await asyncio.create_subprocess_exec(
        CLUBRATING, *args, env=dict(env), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert process.returncode is not None
    return Done(process.returncode, out.decode(), err.decode())


def failure_line(done: Done | subprocess.CompletedProcess[str], *secrets: str,
                 status: int) -> str:
    """The one line a failed start-up wrote: the exit ``status`` (78 for a setting a person
    must fix, which a service manager does not restart; 1 for what may pass, e.g. a server out
    of reach), no traceback, no secret, and nothing else on stderr but the log lines of what
    went well before."""
    everything = done.stdout + done.stderr
    assert done.returncode == status, everything
    assert "Traceback" not in everything, everything
    for secret in secrets:
        assert secret not in everything, everything
    lines = done.stderr.splitlines()
    errors = [line for line in lines if not LOG_LINE.match(line)]
    assert len(errors) == 1 and errors == lines[-1:], done.stderr
    assert errors[0].startswith("clubrating: "), done.stderr
    return errors[0]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def migrated(folder: Path) -> dict[str, str]:
    """An environment whose database exists already (a first start logs its migrations)."""
    env = environment(folder, None)
    assert clubrating(env, "run", input="").returncode == 0
    return env


# -- a platform that refuses, or cannot be reached ------------------------------------------------


async def test_a_wrong_telegram_token_is_one_line_without_the_token(tmp_path: Path) -> None:
    env = migrated(tmp_path)
    async with FakeTelegram(token=TOKEN) as tg:
        done = await finished(env | telegram_variables(tg, WRONG_TELEGRAM), "run")
    line = failure_line(done, WRONG_TELEGRAM, WRONG_TELEGRAM.split(":")[1], status=78)
    assert done.stderr.splitlines() == [line]  # nothing else at all
    assert "refused TELEGRAM_TOKEN" in line and "@BotFather" in line


async def test_a_wrong_telegram_token_from_a_file_is_one_line_too(tmp_path: Path) -> None:
    env = migrated(tmp_path)
    secret = tmp_path / "telegram.token"
    secret.write_text(WRONG_TELEGRAM + "\n", encoding="utf-8")
    async with FakeTelegram(token=TOKEN) as tg:
        done = await finished(env | {"TELEGRAM_TOKEN_FILE": str(secret),
                                     "TELEGRAM_BASE_URL": f"{tg.url}/bot"}, "run")
    assert "refused TELEGRAM_TOKEN" in failure_line(done, WRONG_TELEGRAM, status=78)


async def test_a_wrong_discord_token_is_one_line_without_the_token(tmp_path: Path) -> None:
    env = migrated(tmp_path)
    async with FakeDiscord(token=fake_discord.TOKEN) as dc:
        done = await finished(env | discord_variables(dc, WRONG_DISCORD), "run")
        assert dc.errors and dc.errors[0][0] == 401  # the fake did refuse it
    line = failure_line(done, WRONG_DISCORD, WRONG_DISCORD.rsplit(".", 1)[1], status=78)
    assert "refused DISCORD_TOKEN" in line


@pytest.mark.parametrize("platform", ["telegram", "discord"])
def test_an_unreachable_platform_is_one_line(tmp_path: Path, platform: str) -> None:
    env = migrated(tmp_path)
    if platform == "telegram":
        env |= {"TELEGRAM_TOKEN": WRONG_TELEGRAM, "TELEGRAM_BASE_URL": "http://127.0.0.1:1/bot"}
    else:
        env |= {"DISCORD_TOKEN": WRONG_DISCORD, "DISCORD_API_BASE": "http://127.0.0.1:1/api/v10",
                "DISCORD_GATEWAY_URL": "ws://127.0.0.1:1/gateway"}
    line = failure_line(clubrating(env, "run", input=""), WRONG_TELEGRAM, WRONG_DISCORD,
                        status=1)
    assert f"cannot reach {platform.title()} at 127.0.0.1:1" in line


async def test_verbose_shows_the_traceback_with_the_token_masked(tmp_path: Path) -> None:
    env = migrated(tmp_path)
    async with FakeTelegram(token=TOKEN) as tg:
        done = await finished(env | telegram_variables(tg, WRONG_TELEGRAM), "run", "--verbose")
    assert done.returncode == 78
    assert "Traceback" in done.stderr and "InvalidToken" in done.stderr
    assert f"The token `{MASK}` was rejected" in done.stderr  # python-telegram-bot's own words
    assert WRONG_TELEGRAM not in done.stderr + done.stdout
    assert WRONG_TELEGRAM.split(":")[1] not in done.stderr + done.stdout
    assert done.stderr.splitlines()[-1].startswith("clubrating: ")


# -- the database ---------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["POSTGRESQL", "Postgres", "postgresql"])
@pytest.mark.parametrize("verbose", [False, True])
def test_an_unreachable_postgresql_server_never_shows_its_password(
        tmp_path: Path, scheme: str, verbose: bool) -> None:
    env = environment(tmp_path, None,
                      CLUBRATING_DB=f"{scheme}://bot:{PASSWORD}@127.0.0.1:1/db")
    done = clubrating(env, "run", *(["--verbose"] if verbose else []), input="", cwd=tmp_path)
    assert PASSWORD not in done.stdout + done.stderr
    if verbose:
        assert done.returncode != 0 and "Traceback" in done.stderr
        line = done.stderr.splitlines()[-1]
    else:
        line = failure_line(done, status=1)
        assert done.stderr.splitlines() == [line]
    assert "CLUBRATING_DB" in line and "bot@127.0.0.1:1/db" in line
    assert not list(tmp_path.glob("*:*"))  # not taken for a SQLite file's name either


def test_a_damaged_database_file_is_one_line(tmp_path: Path) -> None:
    database = tmp_path / "club.db"
    database.write_bytes(os.urandom(8192))
    database.chmod(0o600)
    done = clubrating(environment(tmp_path, None), "run", input="")
    line = failure_line(done, status=1)
    assert done.stderr.splitlines() == [line]
    assert str(database) in line and "damaged" in line and "clubrating restore" in line


def test_a_folder_in_place_of_the_database_is_one_line(tmp_path: Path) -> None:
    """As root nothing is unreadable by its mode: a folder where the file should be is."""
    (tmp_path / "club.db").mkdir()
    done = clubrating(environment(tmp_path, None), "run", input="")
    line = failure_line(done, status=78)
    assert done.stderr.splitlines() == [line] and "is a folder" in line


def test_a_database_in_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    env = environment(tmp_path, None, CLUBRATING_DB=str(tmp_path / "gone" / "club.db"))
    line = failure_line(clubrating(env, "run", input=""), status=78)
    assert "does not exist" in line and not (tmp_path / "gone").exists()


# -- bad settings, refused before anything connects -----------------------------------------------


BAD_SETTINGS = [
    ({"CLUBRATING_RATE_LIMIT": "fast"}, "CLUBRATING_RATE_LIMIT"),
    ({"CLUBRATING_RATE_LIMIT": "0/60"}, "CLUBRATING_RATE_LIMIT"),
    ({"CLUBRATING_BACKUP_DIR": "backups", "CLUBRATING_BACKUP_KEEP": "0"},
     "CLUBRATING_BACKUP_KEEP"),
    ({"CLUBRATING_BACKUP_DIR": "backups", "CLUBRATING_BACKUP_KEEP": "many"},
     "CLUBRATING_BACKUP_KEEP"),
    ({"TELEGRAM_WEBHOOK_LISTEN": "nowhere"}, "TELEGRAM_WEBHOOK_LISTEN"),
    ({"TELEGRAM_WEBHOOK_LISTEN": "0.0.0.0:99999"}, "TELEGRAM_WEBHOOK_LISTEN"),
    ({"TELEGRAM_WEBHOOK_URL": "https://club.example/hook",
      "TELEGRAM_WEBHOOK_SECRET": "not allowed!"}, "TELEGRAM_WEBHOOK_SECRET"),
    ({"TELEGRAM_WEBHOOK_URL": "club.example/hook"}, "TELEGRAM_WEBHOOK_URL"),
    ({"DISCORD_GUILD_ID": "my-server"}, "DISCORD_GUILD_ID"),
    ({"DISCORD_GUILD_ID": "-5"}, "DISCORD_GUILD_ID"),
    ({"DISCORD_API_BASE": "discord.com/api"}, "DISCORD_API_BASE"),
    ({"CLUBRATING_DB": f"postgresql://bot:{PASSWORD}@db.example:port/clubs"}, "CLUBRATING_DB"),
    ({"CLUBRATING_DB": f"MYSQL://bot:{PASSWORD}@db.example/clubs"}, "CLUBRATING_DB"),
]


@pytest.mark.parametrize(("variables", "named"), BAD_SETTINGS,
                         ids=[f"{next(iter(v))}={next(iter(v.values()))}" if len(v) == 1
                              else named for v, named in BAD_SETTINGS])
async def test_each_bad_setting_is_one_line_before_connecting(
        tmp_path: Path, variables: dict[str, str], named: str) -> None:
    variables = {name: str(tmp_path / value) if name == "CLUBRATING_BACKUP_DIR" else value
                 for name, value in variables.items()}
    async with FakeTelegram(token=TOKEN) as tg:
        env = environment(tmp_path, None, **telegram_variables(tg), **variables)
        done = await finished(env, "run")
        assert tg.calls == []  # Telegram was never asked anything
    line = failure_line(done, TOKEN, PASSWORD, status=78)
    assert done.stderr.splitlines() == [line]  # nothing else was logged: nothing was started
    assert line.startswith(f"clubrating: {named}"), line
    assert not (tmp_path / "club.db").exists()  # nor the database opened
    assert not (tmp_path / "backups").exists()


def test_a_token_that_cannot_be_one_is_refused_without_being_shown(tmp_path: Path) -> None:
    env = environment(tmp_path, None, DISCORD_TOKEN="abc def ghi jkl")
    line = failure_line(clubrating(env, "run", input=""), "abc def", status=78)
    assert line.startswith("clubrating: DISCORD_TOKEN is not a bot token")


# -- who may read the members' data ---------------------------------------------------------------


async def test_the_database_its_wal_and_the_daily_backups_are_the_owners_alone(
        tmp_path: Path) -> None:
    backups = tmp_path / "backups"
    async with FakeTelegram(token=TOKEN) as tg:
        bot = await telegram_bot(tg, tmp_path, None, CLUBRATING_BACKUP_DIR=str(backups)).start()
        try:
            await bot.wait_log(r"backup of \S+ written to")
            database = tmp_path / "club.db"
            for path in (database, database.with_name("club.db-wal"),
                         database.with_name("club.db-shm")):
                assert mode(path) == 0o600, path
            assert mode(backups) == 0o700
            [daily] = backups.glob("clubrating-*.db")
            assert mode(daily) == 0o600
        finally:
            assert await bot.stop() == 0
    assert WRONG_TELEGRAM not in bot.text() and TOKEN not in bot.text()


def test_clubrating_backup_writes_a_file_only_its_owner_reads(tmp_path: Path) -> None:
    env = migrated(tmp_path)
    fresh, replaced = tmp_path / "copies" / "club-backup.db", tmp_path / "old-backup.db"
    replaced.write_bytes(b"an older copy")
    replaced.chmod(0o644)
    for target in (fresh, replaced):
        done = clubrating(env, "backup", str(target))
        assert done.returncode == 0, done.stderr
        assert mode(target) == 0o600, target
    assert mode(fresh.parent) == 0o700  # the folder it created
    assert [p.name for p in tmp_path.glob(".*partial")] == []


def test_a_database_open_to_others_is_narrowed_at_start_with_a_warning(tmp_path: Path) -> None:
    env = migrated(tmp_path)
    database = tmp_path / "club.db"
    database.chmod(0o644)
    done = clubrating(env, "run", input="")
    assert done.returncode == 0, done.stderr
    assert mode(database) == 0o600
    [warning] = [line for line in done.stderr.splitlines() if line.startswith("WARNING")]
    assert str(database) in warning and "644" in warning and "600" in warning
