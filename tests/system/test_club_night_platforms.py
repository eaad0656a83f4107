"""A club night (issue 36) on Telegram and on Discord through ``clubrating run``, against the
fake Bot API and the fake Discord: the same evening as on the console
(``test_club_night.py``), with the buttons a chat has.

On Telegram, a whole short evening: ada opens a night of two rounds, ann, ben, cid and dan
check in with the opening post's "I'm in" button (the post stays, each press is answered
under it), ada pairs and publishes; a board's result comes from a player's button and the
opponent's Confirm, the other's from ada's button; the bot is stopped and started again; the
first round's buttons then score nothing in the second, which ada's buttons finish, and
/night close gives the final standings. On Discord: the night opened, /in and the button,
/pair, /publish, a board scored by a moderator's button and one by a player's, /standings.

Round 1 with equal ratings is paired by name, the top half against the bottom half: ann and
ben against cid and dan, so the boards are ann–cid and ben–dan; which colour each has is the
engine's, so the pairs are compared as sets."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Self

import pytest

from tests.fake_discord import FakeDiscord, Member
from tests.fake_discord import Output as DiscordOutput
from tests.fake_telegram import TOKEN, FakeTelegram, User
from tests.fake_telegram import Output as TelegramOutput

from .clubs import FRIDAY, DiscordServer, TelegramChat, button, chess_server
from .process import FakeClock

OPENED = "Club night open on main (swiss, 2 rounds): check in with /in."
BOARD = re.compile(r"Board (\d+): (\w+) – (\w+)")
#: round 1, by name: the top half (ann, ben) against the bottom half (cid, dan)
FIRST_PAIRS = {frozenset(("ann", "cid")), frozenset(("ben", "dan"))}
MODERATORS_ONLY = "Only moderators can do that."


def boards(shown: str) -> dict[int, tuple[str, str]]:
    """A round's boards as shown: each number's first and second player."""
    return {int(m[1]): (m[2], m[3]) for m in BOARD.finditer(shown)}


def labels(message: TelegramOutput | DiscordOutput) -> list[list[str]]:
    return [[label for label, _ in row] for row in message.buttons]


def points(standings: str) -> dict[str, str]:
    """Each player's points in a standings message (``1. ann 1  ...``)."""
    return {m[1]: m[2] for m in re.finditer(r"^\d+\. (\w+) (\S+)", standings, re.MULTILINE)}


ROW_LABELS = [[f"{n}: 1-0", f"{n}: ½-½", f"{n}: 0-1"] for n in (1, 2)]


# -- Telegram ---------------------------------------------------------------------------------


@dataclass
class TelegramNight(TelegramChat):
    """ada's group, with ann, ben, cid and dan, who play tonight."""

    ann: User
    ben: User
    cid: User
    dan: User

    @classmethod
    def on(cls, tg: FakeTelegram, folder: Path) -> Self:
        return cls.founded(tg, folder, tg.user(1, "Ada", "ada"),
                           *(tg.user(11 + n, name, name)
                             for n, name in enumerate(("ann", "ben", "cid", "dan"))))

    def player(self, name: str) -> User:
        found: User = getattr(self, name)
        return found

    async def press(self, user: User, message: TelegramOutput, data: str) -> TelegramOutput:
        """``user`` presses a button of ``message``; the bot's next output in the group (a
        night's post stays: the answer under it; any other message shows the answer)."""
        await self.tg.press(self.group, user, message, data)
        return await self.tg.reply(self.group, 10.0)

    async def refused(self, user: User, message: TelegramOutput, data: str) -> str:
        """``user`` presses a button and is refused: the alert only they see (nothing is
        said in the group)."""
        asked = len(self.tg.callback_answers)
        await self.tg.press(self.group, user, message, data)
        for _ in range(200):
            if len(self.tg.callback_answers) > asked:
                break
            await asyncio.sleep(0.05)
        answer = self.tg.callback_answers[asked]
        assert answer["show_alert"], answer
        return str(answer["text"])


@pytest.fixture
async def telegram(tmp_path: Path) -> AsyncIterator[TelegramNight]:
    async with FakeTelegram(token=TOKEN) as tg:
        yield TelegramNight.on(tg, tmp_path)


async def test_an_evening_on_telegram_by_buttons_with_a_restart(
        telegram: TelegramNight) -> None:
    club, ada = telegram, telegram.ada
    bot = await club.bot().start()
    try:
        await club.register(club.ann, club.ben, club.cid, club.dan)
        opened = await club.say(ada, "/night open swiss rounds=2")
        assert opened.plain == OPENED
        assert labels(opened) == [["I'm in"]]
        check_in = button(opened, "I'm in")
        for name in ("ann", "ben", "cid", "dan"):
            # the post keeps its button: each member presses it in turn
            answer = await club.press(club.player(name), opened, check_in)
            assert (answer.kind, answer.plain) == ("send", f"{name} is in tonight.")
        # still there (the fake presses only a button the message shows now)
        assert (await club.refused(club.ann, opened, check_in)) == "ann is in tonight already."

        preview = await club.say(ada, "/pair")
        assert preview.plain.splitlines()[0] == "Round 1 (preview)"
        assert preview.buttons == []  # a preview is not played yet
        published = await club.say(ada, "/publish")
        assert published.plain.splitlines()[0] == "Round 1"
        first = boards(published.plain)
        assert {frozenset(pair) for pair in first.values()} == FIRST_PAIRS
        assert labels(published) == ROW_LABELS

        # board 1: its second player says they won; the first confirms
        white, black = first[1]
        other = first[2][0]
        assert await club.refused(club.player(other), published,
                                  button(published, "1: 0-1")) == MODERATORS_ONLY
        reported = await club.press(club.player(black), published, button(published, "1: 0-1"))
        assert reported.kind == "send"
        assert reported.plain.startswith(f"Game #1: {black} beat {white}"), reported.plain
        assert labels(reported) == [["Confirm", "Dispute"]]
        confirmed = await club.press(club.player(white), reported, button(reported, "Confirm"))
        assert confirmed.kind == "edit"
        assert confirmed.plain.startswith("Game #1 confirmed"), confirmed.plain
        # board 2: ada's button is /result, counted at once
        a, b = first[2]
        scored = await club.press(ada, published, button(published, "2: ½-½"))
        assert scored.plain == f"Board 2: {a} ½-½ {b}."
        assert await club.refused(ada, published, button(published, "2: 1-0")) == (
            "Board 2 has its result already: /correct its game to change it.")
        standings = await club.say(club.player(black), "/standings")
        assert standings.plain.splitlines()[0] == "Standings on main after 1 round"
        assert points(standings.plain) == {black: "1", a: "½", b: "½", white: "0"}
    finally:
        assert await bot.stop() == 0

    bot = await club.bot().start()  # started again between the rounds
    try:
        await club.say(ada, "/pair")
        second = await club.say(ada, "/publish")
        assert second.plain.splitlines()[0] == "Round 2"
        pairs = boards(second.plain)
        assert not {frozenset(p) for p in pairs.values()} & FIRST_PAIRS  # no rematch
        # a button of round 1, pressed after the restart, scores no board of round 2
        assert await club.refused(ada, published, button(published, "1: 1-0")) == (
            "Round 1 is over: its buttons count no more.")
        assert labels(second) == ROW_LABELS
        for number, verb in ((1, "1-0"), (2, "0-1")):
            first_player, second_player = pairs[number]
            scored = await club.press(ada, second, button(second, f"{number}: {verb}"))
            assert scored.plain == f"Board {number}: {first_player} {verb} {second_player}."
        final = await club.say(ada, "/night close")
        lines = final.plain.splitlines()
        assert lines[0] == "Final standings on main after 2 rounds"
        assert len(lines) == 5
        assert club.tg.errors == []
    finally:
        assert await bot.stop() == 0
    assert "Traceback" not in bot.text()
    # docs/club-night.md's pictures: the posts as the Bot API received them
    await draw_posts([("club-night-round.png", second), ("club-night-final.png", final)])


#: where docs/club-night.md's pictures of the posts are kept
DOCS = Path(__file__).resolve().parents[2] / "docs"
#: a Telegram-like message: its text, then its buttons in rows
_POST = """<!doctype html><meta charset="utf-8"><style>
body {{ margin: 0; padding: 16px; background: #dfe7ee; font: 15px/1.4 sans-serif; }}
.post {{ max-width: 420px; background: #fff; border-radius: 12px; padding: 10px 14px;
         white-space: pre-wrap; box-shadow: 0 1px 2px #0002; }}
.row {{ display: flex; gap: 4px; max-width: 448px; margin-top: 4px; }}
.row span {{ flex: 1; text-align: center; background: #6b8fae; color: #fff;
             border-radius: 8px; padding: 8px 4px; }}
</style><div class="post">{text}</div>{rows}"""


async def draw_posts(posts: list[tuple[str, TelegramOutput]]) -> None:
    """Each post drawn as a chat shows it (its text and its buttons), into ``docs/``: written
    only when it is not that picture already. Needs the system's chromium (test_web.py)."""
    import html

    from playwright.async_api import async_playwright

    from .test_web import browser

    chromium = browser()
    async with async_playwright() as driver:
        chrome = await driver.chromium.launch(executable_path=chromium)
        try:
            page = await chrome.new_page(viewport={"width": 480, "height": 120})
            for name, post in posts:
                rows = "".join(
                    '<div class="row">' + "".join(f"<span>{html.escape(shown)}</span>"
                                                  for shown, _ in row) + "</div>"
                    for row in post.buttons)
                await page.set_content(_POST.format(text=html.escape(post.plain), rows=rows))
                png = await page.screenshot(full_page=True)
                assert png.startswith(b"\x89PNG")
                target = DOCS / name
                if not target.exists() or target.read_bytes() != png:
                    target.write_bytes(png)
        finally:
            await chrome.close()


# -- Discord ----------------------------------------------------------------------------------


@dataclass
class DiscordNight(DiscordServer):
    """ada's server, with ann, ben, cid and dan, who play tonight."""

    ann: Member
    ben: Member
    cid: Member
    dan: Member

    @classmethod
    def on(cls, dc: FakeDiscord, folder: Path) -> Self:
        guild, ada = chess_server(dc)
        players = (dc.member(guild, dc.user(900000000000000401 + n, name))
                   for n, name in enumerate(("ann", "ben", "cid", "dan")))
        return cls(dc, FakeClock(folder, FRIDAY), folder, guild, ada, *players)

    def player(self, name: str) -> Member:
        found: Member = getattr(self, name)
        return found


@pytest.fixture
async def discord_night(tmp_path: Path) -> AsyncIterator[DiscordNight]:
    async with FakeDiscord() as dc:
        yield DiscordNight.on(dc, tmp_path)


async def test_a_round_on_discord_scored_by_buttons(discord_night: DiscordNight) -> None:
    club, ada = discord_night, discord_night.ada
    bot = await club.bot().start()
    try:
        await club.register(club.ann, club.ben, club.cid, club.dan)
        opened = await club.say(ada, "night", arguments="open swiss rounds=2")
        assert opened.plain == OPENED
        assert labels(opened) == [["I'm in"]]
        for name in ("ann", "ben"):
            assert (await club.say(club.player(name), "in")).plain == f"{name} is in tonight."
        for name in ("cid", "dan"):
            # the post keeps its button: each press is answered on its own
            answer = await club.press(club.player(name), opened, button(opened, "I'm in"))
            assert (answer.kind, answer.ephemeral, answer.plain) == (
                "reply", False, f"{name} is in tonight.")
        assert labels(opened) == [["I'm in"]]

        preview = await club.say(ada, "pair")
        assert preview.plain.splitlines()[0] == "Round 1 (preview)"
        assert preview.buttons == []
        published = await club.say(ada, "publish")
        assert published.plain.splitlines()[0] == "Round 1"
        first = boards(published.plain)
        assert {frozenset(pair) for pair in first.values()} == FIRST_PAIRS
        assert labels(published) == ROW_LABELS

        # board 1: ada's button is /result, counted at once
        white, black = first[1]
        scored = await club.press(ada, published, button(published, "1: 1-0"))
        assert (scored.kind, scored.ephemeral, scored.plain) == (
            "reply", False, f"Board 1: {white} 1-0 {black}.")
        # the round's post is as it was, and says no more than it did
        assert labels(published) == ROW_LABELS
        again = await club.press(ada, published, button(published, "1: ½-½"))
        assert again.ephemeral and again.plain == (
            "Board 1 has its result already: /correct its game to change it.")
        # board 2: a player of board 1 may not score it; its first player draws, the second
        # confirms
        a, b = first[2]
        refused = await club.press(club.player(white), published, button(published, "2: ½-½"))
        assert refused.ephemeral and refused.plain == MODERATORS_ONLY
        reported = await club.press(club.player(a), published, button(published, "2: ½-½"))
        assert not reported.ephemeral
        assert reported.plain.startswith(f"Game #2: {a} drew with {b}"), reported.plain
        confirmed = await club.press(club.player(b), reported, button(reported, "Confirm"))
        assert confirmed.kind == "update"
        assert confirmed.plain.startswith("Game #2 confirmed"), confirmed.plain

        standings = await club.say(club.ann, "standings")
        assert standings.plain.splitlines()[0] == "Standings on main after 1 round"
        assert points(standings.plain) == {white: "1", a: "½", b: "½", black: "0"}
        assert club.dc.errors == []
    finally:
        assert await bot.stop() == 0
    assert "Traceback" not in bot.text()
