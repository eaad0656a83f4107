"""Secrets: tokens come only from the environment (or a file it names), and never show in a log
record or an error message.

The main test starts the real ``clubrating run`` (``bot.app.run``) with the token in a file named
by ``TELEGRAM_TOKEN_FILE``, against the fake Bot API, with every logger at DEBUG - including
python-telegram-bot's, which logs the Bot API address (token inside) at DEBUG, and aiohttp's -
drives members, buttons, a flood limit and a failing handler through it, and scans every record
(message, arguments, formatted exception) for the token.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import app
from bot.redaction import MASK, RedactSecrets, redact_in_logs

from .fake_telegram import FakeTelegram

TOKEN = "987654:SECRET-token-for-the-leak-test_x9"
DEBUG_LOGGERS = ["", "telegram", "telegram.ext", "httpx", "httpcore", "aiohttp", "asyncio", "bot"]


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


def test_a_token_comes_from_the_environment_or_a_file(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TELEGRAM_TOKEN", raising=False)
    monkeypatch.delenv("TELEGRAM_TOKEN_FILE", raising=False)
    assert app.secret_from_environment("TELEGRAM_TOKEN") is None
    secret = tmp_path / "token"
    secret.write_text(f"{TOKEN}\n", encoding="utf-8")
    monkeypatch.setenv("TELEGRAM_TOKEN_FILE", str(secret))
    assert app.secret_from_environment("TELEGRAM_TOKEN") == TOKEN
    monkeypatch.setenv("TELEGRAM_TOKEN", "from-the-variable-itself")
    assert app.secret_from_environment("TELEGRAM_TOKEN") == "from-the-variable-itself"


@pytest.mark.parametrize("content", [None, "", b"\xff\xfe" + TOKEN.encode()])
def test_an_unreadable_token_file_is_named_but_never_quoted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | bytes | None,
) -> None:
    secret = tmp_path / "token"
    if isinstance(content, bytes):
        secret.write_bytes(content)
    elif content is not None:
        secret.write_text(content, encoding="utf-8")
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.setenv("DISCORD_TOKEN_FILE", str(secret))
    with pytest.raises(SystemExit) as stopped:
        app.secret_from_environment("DISCORD_TOKEN")
    message = str(stopped.value)
    assert message.startswith("clubrating: DISCORD_TOKEN_FILE: ") and str(secret) in message
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


def test_redaction_ignores_short_values() -> None:
    # A value too short to be a token would mask ordinary words in every log line.
    assert "ab" not in redact_in_logs("ab").secrets
