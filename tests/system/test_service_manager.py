"""``clubrating run`` as a service manager runs it (Docker with tini, systemd), issue 32: stopped
by a signal, also as PID 1; asked for its health from outside; given its secrets as files and
systemd credentials; run as a user who may write nothing but its data folder.

Every test starts the installed ``clubrating`` against the fake Bot API and the fake Discord on
127.0.0.1, with only environment variables and files as input, its clock moved by libfaketime.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, timedelta
from pathlib import Path

import pytest

from tests.fake_discord import TOKEN as DISCORD_TOKEN
from tests.fake_discord import FakeDiscord
from tests.fake_telegram import TOKEN as TELEGRAM_TOKEN
from tests.fake_telegram import FakeTelegram

from .clubs import (
    FRIDAY,
    GUILD,
    TelegramClub,
    chess_server,
    clubrating_output,
    discord_variables,
    telegram_variables,
)
from .process import CLUBRATING, TIMEOUT, Bot, FakeClock, environment

#: the bot as PID 1 of a new PID namespace, as in a container without tini
AS_PID_1 = ("unshare", "--pid", "--fork", "--kill-child")
#: what Docker (stop_grace_period) and systemd (TimeoutStopSec) wait before they kill it
STOP_GRACE = 30.0
#: an unprivileged user (nobody), without the root's supplementary groups. The test
#: environment's Python may live where only root may look (pyenv in /root, mode 0700): the user
#: may read every file (CAP_DAC_READ_SEARCH) and nothing more; each write still needs the
#: file's or the folder's own permission, which is what these tests are about.
NOBODY = 65534
AS_NOBODY = ("setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
             "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search")


async def healthcheck(env: Mapping[str, str]) -> tuple[int, str]:
    """``clubrating healthcheck`` on ``env``'s data folder and clock: its status and its line
    (run without blocking the loop on which the fake platforms answer)."""
    process = await asyncio.create_subprocess_exec(
        CLUBRATING, "healthcheck", env=dict(env), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert process.returncode is not None and not err, err
    return process.returncode, out.decode().strip()


async def healthy(env: Mapping[str, str], within: float = 20.0) -> str:
    """Wait (up to ``within`` seconds) for the health check to pass; its line."""
    deadline = time.monotonic() + within
    while True:
        status, line = await healthcheck(env)
        if status == 0:
            return line
        assert time.monotonic() < deadline, f"never healthy: {line}"
        await asyncio.sleep(0.5)


def both_platforms(tg: FakeTelegram, dc: FakeDiscord, folder: Path,
                   clock: FakeClock, **variables: str) -> dict[str, str]:
    """The environment of one bot serving the club on the fake Telegram and the fake Discord."""
    chess_server(dc)
    return environment(folder, clock, **telegram_variables(tg), **discord_variables(dc),
                       DISCORD_GUILD_ID=str(GUILD), **variables)


# -- a clean stop ---------------------------------------------------------------------------------


async def test_sigterm_to_pid_1_stops_it_within_30_s_with_nothing_acknowledged_lost(
        tmp_path: Path) -> None:
    async with FakeTelegram(token=TELEGRAM_TOKEN) as tg, \
            FakeDiscord(token=DISCORD_TOKEN) as dc:
        club = TelegramClub.on(tg, tmp_path)
        env = both_platforms(tg, dc, tmp_path, club.clock)
        bot = await Bot(env, tmp_path / "bot.log", wrapper=AS_PID_1).start()
        status = Path(f"/proc/{bot.pid}/status").read_text()
        assert [line.split()[-1] for line in status.splitlines()
                if line.startswith("NSpid:")] == ["1"]  # PID 1 in its namespace
        await club.register(club.alice, club.bob)
        for _ in range(3):
            assert "recorded" in (await club.say(club.ada, "/report @alice @bob win")).plain
        # Three more on their way while the signal comes: whichever were answered are kept.
        for _ in range(3):
            await tg.send(club.group, club.ada, "/report @alice @bob draw")
        began = time.monotonic()
        assert await bot.stop() == 0, bot.text()[-3000:]
        took = time.monotonic() - began
        answered = [o for o in tg.outputs(club.group) if "recorded" in o.plain]
    print(f"stopped {took:.2f} s after SIGTERM, {len(answered)} results answered")
    assert took < STOP_GRACE, f"took {took:.1f} s to stop"
    assert "SIGTERM: stopping" in bot.text() and "Traceback" not in bot.text()
    exported = clubrating_output(Bot(env, tmp_path / "shell.log"), "export", "--chat",
                                 f"telegram:{club.group.id}")
    games = exported.count(",game")
    assert len(answered) >= 3 and games >= len(answered), (answered, exported)
    assert (await healthcheck(env)) == (1, "not running")  # at once after the stop


# -- health from inside ---------------------------------------------------------------------------


async def test_healthcheck_passes_while_both_platforms_answer_and_names_the_one_gone_quiet(
        tmp_path: Path) -> None:
    async with FakeTelegram(token=TELEGRAM_TOKEN) as tg, \
            FakeDiscord(token=DISCORD_TOKEN) as dc:
        clock = FakeClock(tmp_path, FRIDAY)
        env = both_platforms(tg, dc, tmp_path, clock)
        assert await healthcheck(env) == (1, "not running")  # before the start
        bot = await Bot(env, tmp_path / "bot.log").start()
        line = await healthy(env)
        assert line.startswith("healthy: ") and "discord" in line and "telegram" in line

        # Both stop answering, without closing anything; time moves past the 90 s window.
        tg.silent = dc.silent = True
        clock.set(FRIDAY + timedelta(hours=1))
        await asyncio.sleep(2)  # libfaketime reads its file again within a second
        status, line = await healthcheck(env)
        assert status == 1 and "telegram: stale" in line and "discord: stale" in line, line

        tg.silent = False  # Telegram answers the long poll again: only Discord stays stale
        deadline = time.monotonic() + 20
        while "telegram" in line and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            status, line = await healthcheck(env)
        assert status == 1 and line.startswith("discord: stale, last answer "), line
        began = time.monotonic()
        assert await bot.stop() == 0  # a dead gateway does not hold the stop up
        assert time.monotonic() - began < STOP_GRACE
    assert await healthcheck(env) == (1, "not running")


def test_the_health_check_loads_no_chat_or_chart_library(tmp_path: Path) -> None:
    """It runs every 30 s in a container: the chat libraries take a second to import."""
    probe = ("import sys\nfrom bot.cli import main\nstatus = main(['healthcheck'])\n"
             "print(status, sorted({m.split('.')[0] for m in sys.modules} & "
             "{'telegram', 'discord', 'matplotlib', 'aiohttp', 'apscheduler'}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=environment(tmp_path, None), timeout=TIMEOUT, check=True)
    assert done.stdout.splitlines() == ["not running", "1 []"]


# -- secrets as files -----------------------------------------------------------------------------


async def test_tokens_come_from_files_and_from_systemd_credentials(tmp_path: Path) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir(mode=0o700)
    (secrets / "telegram").write_text(f"  {TELEGRAM_TOKEN}\n", encoding="utf-8")
    credentials = tmp_path / "credentials"  # what systemd's LoadCredential= makes
    credentials.mkdir(mode=0o700)
    (credentials / "discord_token").write_text(f"{DISCORD_TOKEN}\n", encoding="utf-8")
    async with FakeTelegram(token=TELEGRAM_TOKEN) as tg, \
            FakeDiscord(token=DISCORD_TOKEN) as dc:
        club = TelegramClub.on(tg, tmp_path)
        env = both_platforms(tg, dc, tmp_path, club.clock,
                             TELEGRAM_TOKEN_FILE=str(secrets / "telegram"),
                             CREDENTIALS_DIRECTORY=str(credentials))
        del env["TELEGRAM_TOKEN"], env["DISCORD_TOKEN"]
        bot = await Bot(env, tmp_path / "bot.log").start()
        await club.register(club.alice)  # Telegram serves, with the token from the file
        assert dc.identified.is_set()  # and Discord, with the credential's
        assert "telegram" in await healthy(env) and "discord" in await healthy(env)
        assert await bot.stop() == 0
    log = bot.text()
    assert TELEGRAM_TOKEN not in log and DISCORD_TOKEN not in log


# -- an unprivileged user -------------------------------------------------------------------------


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder another user can reach (pytest's own are the test runner's alone)."""
    if os.geteuid() != 0:
        reason = "needs root to run the bot as another user"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    folder = Path(tempfile.mkdtemp(prefix="clubrating-nobody-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


async def test_an_unprivileged_user_without_a_writable_home_serves_and_draws_a_card(
        shared_folder: Path) -> None:
    data = shared_folder / "data"  # the only folder the bot's user owns
    data.mkdir()
    os.chown(data, NOBODY, NOBODY)
    home = shared_folder / "home"  # its home exists, and is not its own
    home.mkdir(mode=0o755)
    async with FakeTelegram(token=TELEGRAM_TOKEN) as tg:
        club = TelegramClub.on(tg, shared_folder)
        club.clock.file.chmod(0o644)
        env = environment(data, club.clock, **telegram_variables(tg), HOME=str(home))
        del env["CLUBRATING_DB"]  # the default: clubrating.db in the data folder
        env.pop("MPLCONFIGDIR")  # the bot chooses where the chart library's cache goes
        # libfaketime is preloaded into the bot alone: in setpriv (root) it would make its
        # shared memory root's, which the bot could not open
        faked = f"LD_PRELOAD={env.pop('LD_PRELOAD')}"
        bot = await Bot(env, shared_folder / "bot.log", wrapper=(*AS_NOBODY, "env", faked)
                        ).start()
        assert Path(f"/proc/{bot.pid}/status").read_text().count(f"\t{NOBODY}\t") >= 2
        await club.rate_alice_285_above_bob()
        card = await club.say(club.alice, "/card")
        assert card.kind == "photo" and card.size and card.size > 10_000, card
        assert await bot.stop() == 0
    assert "Traceback" not in bot.text() and "WARNING" not in bot.text(), bot.text()
    assert not list(home.iterdir())  # nothing in its home
    written = {p.relative_to(data).parts[0] for p in data.iterdir()}
    assert {"clubrating.db", "cache"} <= written, written
    assert all(p.stat().st_uid == NOBODY for p in data.rglob("*"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_with_a_webhook_the_pulse_is_telegram_s_word_on_its_deliveries(
        tmp_path: Path) -> None:
    """A quiet club sends no update: on a webhook the bot asks Telegram every minute how its
    deliveries fare (getWebhookInfo, ERRATA), healthy while no delivery failed since."""
    port = _free_port()
    async with FakeTelegram(token=TELEGRAM_TOKEN) as tg:
        clock = FakeClock(tmp_path, FRIDAY)
        env = environment(tmp_path, clock, **telegram_variables(tg),
                          TELEGRAM_WEBHOOK_URL=f"http://127.0.0.1:{port}/hook",
                          TELEGRAM_WEBHOOK_LISTEN=f"127.0.0.1:{port}")
        bot = await Bot(env, tmp_path / "bot.log").start()
        try:
            assert tg.webhook is not None  # on a webhook, not polling
            assert (await healthy(env)).startswith("healthy: telegram answered")
            # Telegram cannot reach the webhook any more; two minutes on, the check said so
            later = FRIDAY + timedelta(minutes=2)
            tg.webhook_error = (int(later.replace(tzinfo=UTC).timestamp()),
                                "Connection refused")
            clock.set(later)
            await bot.wait_log("could not deliver to the webhook: Connection refused", 90)
            status, line = await healthcheck(env)
            assert status == 1 and line.startswith("telegram: stale"), line
        finally:
            assert await bot.stop() == 0
