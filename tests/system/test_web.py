"""The public web leaderboard (issue 35) as a club runs it: ``clubrating run`` serving a Telegram
group (the fake Bot API on 127.0.0.1) with ``CLUBRATING_WEB_LISTEN`` set, and ``clubrating web``
as a process of its own over the same SQLite database; asked over HTTP, and by a real browser.

The browser is Debian's ``chromium`` (``.ci/system-packages`` installs it) driven by Playwright
(the ``dev`` extra), launched with ``executable_path`` of the system browser: no browser is ever
downloaded (never ``playwright install``). Without either the browser test is skipped, saying
why, except under CI (``CI`` set), where it fails. It writes the board's picture the README shows
to docs/web-leaderboard.png (only when it is not that picture already, so that a run leaves the
work tree as it was).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Self

import aiohttp
import pytest

from bot.chat.messages import text
from tests.fake_telegram import TOKEN, FakeTelegram, User

from .clubs import FRIDAY, TelegramChat, chess_club
from .process import CLUBRATING, TIMEOUT, Bot, FakeClock

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "docs" / "web-leaderboard.png"
#: the players of the club (their Telegram usernames, so their names in the club)
PLAYERS = ["marta", "jonas", "priya", "tomasz", "keiko", "lucas", "sofia"]
#: the games of the club's first week, a moderator's records: (player, opponent, result)
FIRST_WEEK = [("marta", "jonas", "win"), ("priya", "tomasz", "draw"), ("keiko", "lucas", "win"),
              ("sofia", "marta", "loss"), ("jonas", "priya", "win"), ("tomasz", "keiko", "loss"),
              ("lucas", "sofia", "draw"), ("marta", "priya", "win"), ("jonas", "keiko", "draw"),
              ("sofia", "tomasz", "win"), ("lucas", "jonas", "loss"), ("priya", "keiko", "win")]
#: and of the week after the next (so that the board's 7-day change shows these alone)
LATEST = [("keiko", "marta", "win"), ("tomasz", "lucas", "win"), ("priya", "sofia", "win"),
          ("jonas", "tomasz", "draw"), ("marta", "lucas", "win"), ("sofia", "keiko", "loss"),
          ("priya", "marta", "draw")]
#: a row of the group's /top: rank, name, rating with its "?", games
TOP_ROW = re.compile(r"^\s*(\d+)\. (\S+)\s+(\d+)(\??)\s+(\d+) games?$")


def free_port() -> int:
    """A port of 127.0.0.1 nothing listens on (the system's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class WebClub(TelegramChat):
    """A Telegram club of seven players; ada, its administrator, records their games."""

    players: dict[str, User]

    @classmethod
    def on(cls, tg: FakeTelegram, folder: Path) -> Self:
        ada = tg.user(1, "Ada", "ada")
        players = {name: tg.user(10 + n, name.title(), name) for n, name in enumerate(PLAYERS)}
        return cls(tg, FakeClock(folder, FRIDAY), folder, chess_club(tg, ada), ada, players)

    def web_bot(self, port: int) -> Bot:
        """``clubrating run`` with the web leaderboard on 127.0.0.1:``port``."""
        return self.bot(CLUBRATING_WEB_LISTEN=f"127.0.0.1:{port}")

    async def record(self, games: list[tuple[str, str, str]]) -> None:
        for player, opponent, result in games:
            answer = await self.say(self.ada, f"/report @{player} @{opponent} {result}")
            assert "recorded" in answer.plain, answer.plain

    async def top(self) -> list[tuple[int, str, int, bool, int]]:
        """The group's /top, row by row: rank, name, rating, provisional, games."""
        answer = await self.say(self.players["sofia"], "/top")
        rows = []
        for line in answer.plain.splitlines()[1:]:
            found = TOP_ROW.match(line)
            assert found is not None, answer.plain
            rows.append((int(found[1]), found[2], int(found[3]), found[4] == "?",
                         int(found[5])))
        return rows


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[WebClub]:
    async with FakeTelegram(token=TOKEN) as tg:
        yield WebClub.on(tg, tmp_path)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        yield session


async def fetch(http: aiohttp.ClientSession, url: str, **headers: str
                ) -> tuple[int, str, Mapping[str, str]]:
    async with http.get(url, headers=headers) as response:
        return response.status, await response.text(), response.headers


async def answering(http: aiohttp.ClientSession, base: str, what: Bot | WebProcess) -> None:
    """Wait until the site at ``base`` answers (while ``what`` runs)."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        with contextlib.suppress(aiohttp.ClientError):
            status, _, _ = await fetch(http, f"{base}/")
            assert status == 200
            return
        process = what.process
        if process is not None and process.returncode is not None:
            raise AssertionError(f"the process ended ({process.returncode}) before its site "
                                 f"answered:\n{what.text()[-4000:]}")
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"nothing answered at {base} within {TIMEOUT} s:\n"
                                 f"{what.text()[-4000:]}")
        await asyncio.sleep(0.1)


class WebProcess:
    """``clubrating web --listen 127.0.0.1:PORT`` in the background, its log in a file."""

    def __init__(self, env: Mapping[str, str], port: int, log: Path) -> None:
        self.env, self.port, self.log = dict(env), port, log
        self.process: asyncio.subprocess.Process | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8") if self.log.exists() else ""

    async def start(self, http: aiohttp.ClientSession) -> WebProcess:
        with self.log.open("a", encoding="utf-8") as log:
            self.process = await asyncio.create_subprocess_exec(
                CLUBRATING, "web", "--listen", f"127.0.0.1:{self.port}", env=self.env,
                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        await answering(http, self.base, self)
        return self

    async def stop(self) -> int:
        """SIGTERM, as a service manager stops it; its exit status."""
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), TIMEOUT)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
            raise AssertionError(f"clubrating web did not stop on SIGTERM:\n{self.text()}"
                                 ) from None


def board_rows(data: dict[str, Any]) -> list[tuple[int, str, int, bool, int]]:
    """The board's JSON as the group's /top shows it."""
    return [(row["rank"], row["player"], round(row["rating"]), row["provisional"], row["games"])
            for row in data["players"]]


#: a player's row of the board's page: rank, link, name, rating and its provisional mark
_PAGE_ROW = re.compile(r'<tr>\n<td class="n">(\d+)</td>\n<td><a href="/l/main/p/([^"]+)">'
                       r'([^<]+)</a></td>\n<td class="n">(\d+)(\??)</td>')


def page_rows(page: str) -> list[tuple[int, str, int, bool]]:
    """The board's page as the group's /top shows it (rank, name, rating, provisional), the
    rows whose link is the name itself."""
    return [(int(rank), name, int(rating), mark == "?")
            for rank, link, name, rating, mark in _PAGE_ROW.findall(page) if link == name]


async def test_the_board_over_http_is_the_groups_top_and_a_second_process_serves_it_too(
        club: WebClub, http: aiohttp.ClientSession) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bot = await club.web_bot(port).start()
    web: WebProcess | None = None
    try:
        await answering(http, base, bot)
        await club.register(*club.players.values())
        await club.record(FIRST_WEEK)
        status, missing, _ = await fetch(http, f"{base}/l/main")
        assert status == 404  # nothing is public by default
        public = await club.say(club.ada, "/set public on")
        assert public.plain == "Ladder main is public at /l/main.", public.plain

        # The board's JSON and page: the players, ratings and order of the group's /top.
        top = await club.top()
        assert len(top) == len(PLAYERS)
        status, body, headers = await fetch(http, f"{base}/l/main.json")
        assert status == 200 and headers["Content-Type"].startswith("application/json")
        board = json.loads(body)
        assert board["ladder"] == "main" and board_rows(board) == top
        status, page, _ = await fetch(http, f"{base}/l/main")
        assert status == 200
        assert page_rows(page) == [row[:4] for row in top]

        # Private again: 404 from the next request on, the page of an unknown address.
        private = await club.say(club.ada, "/set public off")
        assert private.plain == "Ladder main is private again: /l/main shows nothing."
        for path in ("/l/main", "/l/main.json", "/l/main.csv", "/l/main/p/marta"):
            status, body, _ = await fetch(http, f"{base}{path}")
            assert (status, body) == (404, missing), path
        status, unknown, _ = await fetch(http, f"{base}/l/elsewhere")
        assert (status, unknown) == (404, missing)
        await club.say(club.ada, "/set public on")

        # clubrating web, a process of its own over the same database: the same JSON, the
        # same ETag (the same last event, the same day).
        web = await WebProcess(bot.env, free_port(), club.folder / "web.log").start(http)
        status, body, headers = await fetch(http, f"{base}/l/main.json")
        other_status, other, other_headers = await fetch(http, f"{web.base}/l/main.json")
        assert status == other_status == 200 and json.loads(other) == json.loads(body)
        assert other_headers["ETag"] == headers["ETag"]
        status, _, _ = await fetch(http, f"{web.base}/l/main.json",
                                   **{"If-None-Match": headers["ETag"]})
        assert status == 304
        # It reads the log at each request: a game the bot records next is on its board...
        await club.record([("lucas", "marta", "win")])
        status, body, _ = await fetch(http, f"{web.base}/l/main.json")
        assert status == 200 and board_rows(json.loads(body)) == await club.top()
        # ...and the ladder made private is gone from it at once.
        await club.say(club.ada, "/set public off")
        status, body, _ = await fetch(http, f"{web.base}/l/main.json")
        assert (status, body) == (404, missing)
        assert await web.stop() == 0
        assert "Traceback" not in web.text(), web.text()
    finally:
        if web is not None and web.process is not None and web.process.returncode is None:
            await web.stop()
        assert await bot.stop() == 0
    assert "Traceback" not in bot.text(), bot.text()[-4000:]


# -- the browser ----------------------------------------------------------------------------


def browser() -> str:
    """The system's chromium, once Playwright is importable too; skipped (failed under CI) with
    the reason when either is missing."""
    missing = []
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        missing.append("Playwright (pip install -e '.[dev]')")
    chromium = shutil.which("chromium")
    if chromium is None:
        missing.append("Debian's chromium (apt-get install chromium; .ci/system-packages)")
    if missing:
        reason = (f"NO BROWSER: the web leaderboard is NOT tested in a browser: "
                  f"{' and '.join(missing)} missing")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    assert chromium is not None
    return chromium


def keep_screenshot(png: bytes) -> None:
    """The README's picture of the board, written when it is not this one already."""
    if not SCREENSHOT.exists() or SCREENSHOT.read_bytes() != png:
        SCREENSHOT.write_bytes(png)


async def test_a_browser_opens_the_board_follows_a_player_and_sees_the_chart(
        club: WebClub, http: aiohttp.ClientSession, tmp_path: Path) -> None:
    chromium = browser()
    from playwright.async_api import async_playwright

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # The first week's games; then, the week after the next, the latest ones.
    bot = await club.web_bot(port).start()
    try:
        await club.register(*club.players.values())
        await club.record(FIRST_WEEK)
    finally:
        assert await bot.stop() == 0
    club.clock.set(FRIDAY + timedelta(days=9))
    bot = await club.web_bot(port).start()
    try:
        # the weekly post the club missed meanwhile comes first
        [missed] = await club.next_posts(1)
        assert missed.kind == "photo", missed
        await answering(http, base, bot)
        await club.record(LATEST)
        assert "/l/main" in (await club.say(club.ada, "/set public on")).plain
        top = await club.top()
        status, body, _ = await fetch(http, f"{base}/l/main.json")
        board = json.loads(body)
        assert status == 200 and board_rows(board) == top
        # everyone played in both weeks: every change is this week's games'
        changes = {row["player"]: row["change_7d"] for row in board["players"]}
        assert all(change is not None for change in changes.values()), changes
        assert any(change > 0 for change in changes.values())
        assert any(change < 0 for change in changes.values())

        async with async_playwright() as driver:
            chrome = await driver.chromium.launch(executable_path=chromium)
            try:
                # a short window: the full page's picture is as tall as the board
                page = await chrome.new_page(viewport={"width": 820, "height": 240})
                page.set_default_timeout(TIMEOUT * 1000)
                await page.goto(f"{base}/l/main")
                assert await page.title() == "main ladder"
                assert await page.locator("h1").inner_text() == "main ladder"
                names = await page.locator("tbody tr td:nth-child(2) a").all_inner_texts()
                assert names == [name for _, name, *_ in top]
                ratings = await page.locator("tbody tr td:nth-child(3)").all_inner_texts()
                assert ratings == [f"{rating}{'?' if provisional else ''}"
                                   for _, _, rating, provisional, _ in top]
                headings = await page.locator("thead th").all_inner_texts()
                # (no deviation's column: the club system shows none)
                assert headings == [text(f"web_{column}") for column in (
                    "rank", "player", "rating", "games", "record", "change")]
                png = await page.screenshot(full_page=True)
                (tmp_path / "web-leaderboard.png").write_bytes(png)

                # Follow the leader's link: the profile, its chart and the latest games.
                _, leader, _, _, games = top[0]
                await page.get_by_role("link", name=leader, exact=True).click()
                await page.wait_for_url(f"{base}/l/main/p/{leader}")
                assert await page.locator("h1").inner_text() == f"{leader} on main"
                chart = page.locator("svg polyline")
                await chart.wait_for(state="visible")
                points = (await chart.get_attribute("points") or "").split()
                assert len(points) == games  # one point per game
                box = await page.locator("svg").bounding_box()
                assert box is not None and box["width"] > 300 and box["height"] > 100
                assert await page.locator("h2").inner_text() == text("web_recent")
                recent = page.locator("table tbody tr")
                assert await recent.count() == min(games, 10)
                played = [(p, o) for p, o, _ in FIRST_WEEK + LATEST if leader in (p, o)]
                latest = [o if p == leader else p for p, o in played[::-1]]
                opponents = await page.locator("table tbody tr td:nth-child(2)"
                                               ).all_inner_texts()
                assert opponents == latest[:10]
                await page.get_by_role("link", name="main", exact=True).click()
                await page.wait_for_url(f"{base}/l/main")
                assert await page.locator("h1").inner_text() == "main ladder"
            finally:
                await chrome.close()
    finally:
        assert await bot.stop() == 0
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    keep_screenshot(png)
