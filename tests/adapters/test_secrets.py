"""Secrets: tokens come only from the environment (or a file it names), and never show in a log
record or an error message.

The main test starts the real ``clubrating run`` (``bot.app.run``) with the token in a file named
by ``TELEGRAM_TOKEN_FILE``, against the fake Bot API, with every logger at DEBUG - including
python-telegram-bot's, which logs the Bot API address (token inside) at DEBUG, and aiohttp's -
drives members, buttons, a flood limit and a failing handler through it, and scans every record
(message, arguments, formatted exception) for the token. A second test does the same for
Discord: ``clubrating run`` with the token in ``DISCORD_TOKEN_FILE``, against the fake Discord,
discord.py's loggers at DEBUG (its HTTP requests, the gateway's frames and IDENTIFY).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import app
from bot.chat.messages import text
from bot.errors import ConfigError
from bot.ops.redaction import MASK, RedactSecrets, redact_in_logs
from bot.settings import secret_from_environment
from tests.discord_harness import discord_defaults_kept
from tests.fake_discord import MANAGE_GUILD, FakeDiscord
from tests.fake_telegram import FakeTelegram

TOKEN = "987654:SECRET-token-for-the-leak-test_x9"
#: shaped as Discord's are: the bot's id in base64, a timestamp, an HMAC
DISCORD_TOKEN = "NzAwMDAwMDAwMDAwMDAwMDAx.GxLeak.SECRET-discord-hmac-for-the-leak-test_x9"
DEBUG_LOGGERS = ["", "telegram", "telegram.ext", "httpx", "httpcore", "aiohttp", "asyncio", "bot",
                 "discord"]


class Everything(logging.Handler):
    """Keeps every record, formatted the way a log file would show it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def captured() -> Iterator[Everything]:
    handler = Everything()
    root = logging.getLogger()
    levels = {name: logging.getLogger(name).level for name in DEBUG_LOGGERS}
    root.addHandler(handler)
    for name in DEBUG_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def test_a_token_comes_from_the_environment_a_file_or_a_credential(tmp_path: Path) -> None:
    assert secret_from_environment("TELEGRAM_TOKEN", {}) is None
    assert secret_from_environment("TELEGRAM_TOKEN", {"TELEGRAM_TOKEN": f" {TOKEN}\n"}) == TOKEN
    secret = tmp_path / "token"
    secret.write_text(f"\n {TOKEN}\t\n", encoding="utf-8")
    assert secret_from_environment("TELEGRAM_TOKEN", {"TELEGRAM_TOKEN_FILE": str(secret)}) == TOKEN
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "telegram_token").write_text(TOKEN, encoding="utf-8")
    systemd = {"CREDENTIALS_DIRECTORY": str(credentials)}
    assert secret_from_environment("TELEGRAM_TOKEN", systemd) == TOKEN
    assert secret_from_environment("DISCORD_TOKEN", systemd) is None  # no such credential


def test_an_empty_name_file_setting_is_no_secret_and_its_file_is_never_read(
        tmp_path: Path) -> None:
    """compose.yaml passes every ``*_FILE`` through (``${TELEGRAM_TOKEN_FILE:-}``), empty for a
    secret not in use, whose mounted file may be empty too."""
    (tmp_path / "telegram_token").write_text("", encoding="utf-8")
    assert secret_from_environment("TELEGRAM_TOKEN", {"TELEGRAM_TOKEN_FILE": ""}) is None
    assert secret_from_environment("TELEGRAM_TOKEN", {"TELEGRAM_TOKEN": ""}) is None


@pytest.mark.parametrize("second", ["TELEGRAM_TOKEN", "CREDENTIALS_DIRECTORY"])
def test_a_secret_given_twice_is_refused_naming_both_places(tmp_path: Path, second: str) -> None:
    secret = tmp_path / "token"
    secret.write_text("from-the-file-0123456789", encoding="utf-8")
    (tmp_path / "telegram_token").write_text("from-a-credential-0123456789", encoding="utf-8")
    environ = {"TELEGRAM_TOKEN_FILE": str(secret),
               second: str(tmp_path) if second == "CREDENTIALS_DIRECTORY"
               else "from-the-variable-0123456789"}
    with pytest.raises(ConfigError) as refused:
        secret_from_environment("TELEGRAM_TOKEN", environ)
    message = str(refused.value)
    assert "TELEGRAM_TOKEN_FILE" in message and "twice" in message
    assert ("telegram_token" if second == "CREDENTIALS_DIRECTORY" else "by TELEGRAM_TOKEN ") \
        in message
    assert "0123456789" not in message


@pytest.mark.parametrize("content", [None, "", b"\xff\xfe" + TOKEN.encode()])
def test_an_unreadable_token_file_is_named_but_never_quoted(
    tmp_path: Path, content: str | bytes | None,
) -> None:
    secret = tmp_path / "token"
    if isinstance(content, bytes):
        secret.write_bytes(content)
    elif content is not None:
        secret.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as stopped:
        secret_from_environment("DISCORD_TOKEN", {"DISCORD_TOKEN_FILE": str(secret)})
    message = str(stopped.value)
    assert message.startswith("DISCORD_TOKEN_FILE: ") and str(secret) in message
    assert "SECRET" not in message


def test_the_filter_scrubs_messages_arguments_and_tracebacks() -> None:
    scrub = RedactSecrets({TOKEN})
    try:
        raise RuntimeError(f"POST https://api.telegram.org/bot{TOKEN}/getMe failed")
    except RuntimeError:
        import sys

        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "url %s", (f"/bot{TOKEN}",),
                                   sys.exc_info())
    assert scrub.filter(record)
    text = logging.Formatter().format(record)
    assert TOKEN not in text and MASK in record.getMessage() and MASK in text


async def test_a_full_telegram_run_never_logs_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, captured: Everything,
) -> None:
    secret = tmp_path / "telegram.token"
    secret.write_text(TOKEN, encoding="utf-8")
    monkeypatch.delenv("TELEGRAM_TOKEN", raising=False)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("DISCORD_TOKEN_FILE", raising=False)
    monkeypatch.delenv("TELEGRAM_WEBHOOK_URL", raising=False)
    monkeypatch.setenv("TELEGRAM_TOKEN_FILE", str(secret))
    monkeypatch.setenv("CLUBRATING_DB", str(tmp_path / "club.db"))
    monkeypatch.setenv("CLUBRATING_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "matplotlib"))
    stop = asyncio.Event()
    monkeypatch.setattr(app, "stop_on_signals", lambda: stop)
    async with FakeTelegram(token=TOKEN) as tg:
        monkeypatch.setenv("TELEGRAM_BASE_URL", f"{tg.url}/bot")
        running = asyncio.create_task(app.run())
        group = tg.group(-42, "Club", admins=[tg.user(9, "Admin", "admin")])
        alice, bob = tg.user(1, "Alice", "alice"), tg.user(2, "Bob", "bob")
        try:
            for user in (alice, bob):
                await tg.send(group, user, "/register")
                await tg.reply(group, timeout=10)
            await tg.send(group, alice, "/report @bob win")
            report = await tg.reply(group)
            # An answer PTB cannot read (a flood limit of 0 s): the failure is logged with its
            # traceback by the error handler, and the member told.
            tg.flood("answerCallbackQuery", retry_after=0, times=1)
            await tg.press(group, bob, report, report.buttons[0][0][1] or "")
            await tg.reply(group)
            await tg.send(group, alice, "/top")
            await tg.reply(group)
        finally:
            stop.set()
            await asyncio.wait_for(running, 10)
    assert any("Bot API" in line for line in captured.lines)  # DEBUG really was on
    assert any("getUpdates" in line for line in captured.lines)
    leaks = [line for line in captured.lines if TOKEN in line or TOKEN.split(":")[1] in line]
    assert leaks == []
    assert any(MASK in line for line in captured.lines)  # there was something to redact
    assert any("Traceback" in line for line in captured.lines)  # and a traceback scanned


def test_discord_interaction_and_webhook_tokens_are_masked_in_addresses() -> None:
    scrub = RedactSecrets()
    logged = ("POST https://discord.com/api/v10/interactions/123/aW50ZXJhY3Rpb24.x-Y_z/callback"
              " and /api/v10/webhooks/456/hook-TOKEN_9?wait=true and /channels/7/messages")
    assert scrub.scrub(logged) == (
        f"POST https://discord.com/api/v10/interactions/123/{MASK}/callback"
        f" and /api/v10/webhooks/456/{MASK}?wait=true and /channels/7/messages")
    event = str({"t": "INTERACTION_CREATE", "d": {"id": "9", "token": "aW50-x.Y_z", "type": 2}})
    assert scrub.scrub(event) == str(
        {"t": "INTERACTION_CREATE", "d": {"id": "9", "token": MASK, "type": 2}})
    identify = '{"op": 2, "d": {"token" : "Bot.abc"}}'
    assert scrub.scrub(identify) == identify.replace("Bot.abc", MASK)


def test_redaction_ignores_short_values() -> None:
    # A value too short to be a token would mask ordinary words in every log line.
    assert "ab" not in redact_in_logs("ab").secrets


async def test_a_full_discord_run_never_logs_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, captured: Everything,
) -> None:
    secret = tmp_path / "discord.token"
    secret.write_text(f"{DISCORD_TOKEN}\n", encoding="utf-8")
    for name in ("TELEGRAM_TOKEN", "TELEGRAM_TOKEN_FILE", "DISCORD_TOKEN", "DISCORD_GUILD_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DISCORD_TOKEN_FILE", str(secret))
    monkeypatch.setenv("CLUBRATING_DB", str(tmp_path / "club.db"))
    monkeypatch.setenv("CLUBRATING_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "matplotlib"))
    stop = asyncio.Event()
    monkeypatch.setattr(app, "stop_on_signals", lambda: stop)
    async with FakeDiscord() as dc:
        monkeypatch.setenv("DISCORD_API_BASE", dc.api_base)
        monkeypatch.setenv("DISCORD_GATEWAY_URL", dc.gateway_url)
        guild = dc.guild(800000000000000001, "Club")
        managers = dc.role(guild, 800000000000000002, "Managers", MANAGE_GUILD)
        alice = dc.member(guild, dc.user(800000000000000011, "alice"))
        bob = dc.member(guild, dc.user(800000000000000012, "bob"))
        ada = dc.member(guild, dc.user(800000000000000013, "ada"), managers)
        with discord_defaults_kept():  # run() points discord.py at the fake
            running = asyncio.create_task(app.run())
            try:
                await asyncio.wait_for(dc.identified.wait(), 30)
                for member in (alice, bob):
                    await dc.command(guild, member, "register")
                    await dc.output()
                await dc.command(guild, alice, "report", opponent=bob, result="win")
                report = await dc.output()
                await dc.click(guild, bob, report, report.buttons[0][0][1])
                await dc.output()
                # An answer Discord keeps refusing (rate limited five times over): discord.py
                # gives up, the failure is logged with its traceback, and the member told.
                dc.flood("/callback", retry_after=0, times=5)
                await dc.command(guild, alice, "top")
                assert (await dc.output()).plain == text("internal_error")
                await dc.command(guild, ada, "audit")
                await dc.output()
            finally:
                stop.set()
                await asyncio.wait_for(running, 10)
    # The token went out on every REST call and in IDENTIFY: a log line that quoted either
    # (as an HTTP library's debug output may) would be scrubbed; none may remain.
    logging.getLogger("discord.gateway").debug("sent %s", {"op": 2, "d": {"token": DISCORD_TOKEN}})
    logging.getLogger("discord.http").debug("headers %s", {"Authorization": f"Bot {DISCORD_TOKEN}"})
    assert any("has sent the IDENTIFY payload" in line for line in captured.lines)  # DEBUG on
    assert any("has returned" in line for line in captured.lines)  # discord.py's HTTP log
    assert any("Traceback" in line for line in captured.lines)  # and a traceback scanned
    secret_part = DISCORD_TOKEN.rsplit(".", 1)[1]
    leaks = [line for line in captured.lines if DISCORD_TOKEN in line or secret_part in line]
    assert leaks == []
    # Nor the interactions' own tokens (the fake's are ``token-<id>``), though discord.py logs
    # every gateway event and every callback's address at DEBUG.
    assert any("/interactions/" in line for line in captured.lines)
    assert [line for line in captured.lines if re.search(r"token-[0-9]", line)] == []
    assert sum(MASK in line for line in captured.lines[-2:]) == 2
