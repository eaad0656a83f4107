"""Journeys of a Discord club through ``clubrating run``, a process started with environment
variables alone (``DISCORD_TOKEN``, ``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` at the fake
Discord on 127.0.0.1, ``DISCORD_GUILD_ID``, ``CLUBRATING_DB``), its clock moved from outside by
libfaketime."""

from __future__ import annotations

import asyncio
import csv
import io
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from tests.fake_discord import MANAGE_GUILD, TOKEN, FakeDiscord, Guild, Member, Output

from .process import Bot, FakeClock, clubrating, environment

GUILD = 900000000000000001
#: a Friday evening, two days before the Sunday of the weekly post
FRIDAY = datetime(2026, 11, 20, 18, 0)
#: 09:00 in Berlin on that Sunday is 08:00 UTC; the bot starts 15 s before
SUNDAY_MORNING = datetime(2026, 11, 22, 7, 59, 45)
#: slash commands every club needs, among those synced
COMMANDS = {"register", "rating", "top", "challenge", "report", "confirm", "dispute",
            "withdraw", "history", "h2h", "pending", "help", "correct", "void", "set"}


@dataclass
class Club:
    dc: FakeDiscord
    clock: FakeClock
    folder: Path
    guild: Guild
    ada: Member  # manages the server: a moderator
    alice: Member
    bob: Member
    carol: Member

    def bot(self, **variables: str) -> Bot:
        env = environment(self.folder, self.clock, DISCORD_TOKEN=TOKEN,
                          DISCORD_API_BASE=self.dc.api_base,
                          DISCORD_GATEWAY_URL=self.dc.gateway_url,
                          DISCORD_GUILD_ID=str(GUILD), **variables)
        return Bot(env, self.folder / "bot.log")

    def shell(self, *args: str) -> str:
        """A ``clubrating`` subcommand on the same database and clock; its output."""
        done = clubrating(self.bot().env, *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    async def say(self, member: Member, command: str, subcommand: str | None = None, /,
                  **options: Any) -> Output:
        """``member`` runs ``/command`` with ``options``; the bot's answer."""
        await self.dc.command(self.guild, member, command, subcommand, **options)
        return await self.dc.output(10.0)

    async def press(self, member: Member, message: Output, custom_id: str) -> Output:
        """``member`` clicks a button of ``message``; the message as the click left it (or
        the answer only they see)."""
        await self.dc.click(self.guild, member, message, custom_id)
        return await self.dc.output(10.0)

    def posts(self) -> list[Output]:
        """Everything the bot posted by itself (not answering anyone) so far."""
        return [output for output in self.dc.log if output.kind == "post"]


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    async with FakeDiscord() as dc:
        guild = dc.guild(GUILD, "Chess club", owner=dc.user(900000000000000100, "owner"))
        managers = dc.role(guild, 900000000000000201, "Managers", MANAGE_GUILD)
        ada = dc.member(guild, dc.user(900000000000000300, "ada"), managers)
        alice, bob, carol = (dc.member(guild, dc.user(900000000000000301 + n, name))
                             for n, name in enumerate(("alice", "bob", "carol")))
        yield Club(dc, FakeClock(tmp_path, FRIDAY), tmp_path, guild, ada, alice, bob, carol)


def button(message: Output, label: str) -> str:
    """The custom id of the button labelled ``label``."""
    found = [custom_id for row in message.buttons for shown, custom_id in row if shown == label]
    assert found, f"no {label!r} button in {message.buttons}"
    return found[0]


async def register(club: Club, *members: Member) -> None:
    for member in members:
        answer = await club.say(member, "register")
        name = member.user.username
        assert answer.plain == f"Welcome, {name}! You are on the main ladder.", answer.plain


async def test_slash_commands_synced_register_report_confirm_top(club: Club) -> None:
    bot = await club.bot().start()
    try:
        assert club.dc.sync_calls == [GUILD] and None not in club.dc.commands
        assert {c["name"] for c in club.dc.commands[GUILD]} >= COMMANDS
        await register(club, club.alice, club.bob)
        report = await club.say(club.alice, "report", opponent=club.bob, result="win")
        assert re.fullmatch(r"Game #\d+: alice beat bob\. bob, please /confirm or /dispute\.",
                            report.plain), report.plain
        confirmed = await club.press(club.bob, report, button(report, "Confirm"))
        assert confirmed.kind == "update" and confirmed.message_id == report.message_id
        assert re.match(r"Game #\d+ confirmed: alice beat bob\.", confirmed.plain)
        assert confirmed.buttons == []
        board = await club.say(club.carol, "top")
        assert board.kind == "reply" and not board.ephemeral and board.embeds
        assert board.plain.splitlines()[1:] == ["  1. alice      1536?  (1)",
                                                "  2. bob        1464?  (1)"]
        assert club.dc.errors == []
    finally:
        assert await bot.stop() == 0


async def rated_club(club: Club) -> None:
    """alice, bob and carol, with alice 209 points above bob (games a moderator recorded)."""
    await register(club, club.alice, club.bob, club.carol)
    for loser in [club.bob] * 3 + [club.carol] * 2:
        recorded = await club.say(club.ada, "report", player=club.alice, opponent=loser,
                                  result="win")
        assert "recorded" in recorded.plain, recorded.plain


async def posts(club: Club, count: int) -> list[Output]:
    """The next ``count`` outputs, each a post in the club's channel; fails if one does not
    come within a minute."""
    arrived = [await club.dc.output(60.0) for _ in range(count)]
    for post in arrived:
        assert post.kind == "post", post
        assert int(post.message["channel_id"]) == club.guild.channel.id
    return arrived


async def test_weekly_post_at_the_ladders_local_time_once_and_caught_up_once(
        club: Club) -> None:
    bot = await club.bot().start()
    await rated_club(club)
    assert await bot.stop() == 0
    club.shell("schedule", "set", "--chat", f"discord:{GUILD}", "--cron", "0 9 * * SUN",
               "--tz", "Europe/Berlin")

    # Sunday 08:59:45 in Berlin: the post goes out at 09:00, into the club's channel, and says
    # what the board is.
    club.clock.set(SUNDAY_MORNING)
    bot = await club.bot().start()
    [post] = await posts(club, 1)
    await bot.wait_log(r"scheduled for 2026-11-22T08:00:00 claimed")
    assert "alice" in post.plain and "1625" in post.plain, post.plain
    [(name, png)] = post.files
    assert name.endswith(".png") and png.startswith(b"\x89PNG")
    assert post.embeds[0]["image"]["url"] == f"attachment://{name}"
    assert await bot.stop() == 0

    # Restarted the same morning: nothing posted again.
    club.clock.set(datetime(2026, 11, 22, 8, 10))
    bot = await club.bot().start()
    await bot.wait_log(r"scheduled posts: \d+ plans")
    await asyncio.sleep(3)
    assert club.dc.pending_outputs() == 0 and len(club.posts()) == 1
    assert await bot.stop() == 0

    # A week and more of downtime (two Sundays missed): exactly one post catches up.
    club.clock.set(datetime(2026, 12, 6, 12, 0))
    bot = await club.bot().start()
    [catch_up] = await posts(club, 1)
    await bot.wait_log(r"scheduled for 2026-12-06T08:00:00 claimed")
    await asyncio.sleep(3)
    assert club.dc.pending_outputs() == 0 and len(club.posts()) == 2
    assert catch_up.files and "alice" in catch_up.plain
    assert "scheduled for 2026-11-29" not in bot.text()
    assert await bot.stop() == 0
    assert club.dc.errors == []


async def test_an_unanswered_report_counts_by_itself_and_is_announced(club: Club) -> None:
    bot = await club.bot().start()
    await rated_club(club)
    assert "announce" in (await club.say(club.ada, "set", key="announce", value="yes")).plain
    report = await club.say(club.bob, "report", opponent=club.alice, result="win")  # an upset
    assert "bob beat alice" in report.plain
    # alice never answers; a day and an hour later the result counts, and the channel is told.
    club.clock.set(datetime(2026, 11, 21, 19, 0))
    [announcement] = await posts(club, 1)
    assert announcement.plain == "Upset on main: bob beat alice, rated 209 higher!"
    board = (await club.say(club.carol, "top")).plain
    assert re.search(r"alice +\d+\?  \(6\)", board), board
    assert await bot.stop() == 0


async def test_a_correction_previewed_before_a_restart_is_applied_once_after_it(
        club: Club) -> None:
    bot = await club.bot().start()
    await register(club, club.alice, club.bob)
    report = await club.say(club.alice, "report", opponent=club.bob, result="win")
    await club.press(club.bob, report, button(report, "Confirm"))
    game = re.search(r"#(\d+)", report.plain)
    assert game is not None
    preview = await club.say(club.ada, "correct", number=int(game[1]), result="draw")
    assert preview.plain.splitlines()[0] == f"Correcting game #{game[1]} would change:"
    assert "1500" in preview.plain
    assert await bot.stop() == 0

    bot = await club.bot().start()
    applied = await club.press(club.ada, preview, button(preview, "Apply"))
    assert (applied.kind, applied.plain.splitlines()) == ("update", [
        f"Game #{game[1]} corrected. Ratings changed:",
        "alice: 1536 -> 1500?", "bob: 1464 -> 1500?"]), applied.plain
    assert applied.message_id == preview.message_id and applied.buttons == []
    # The Apply of the message as it was shown before (a client not caught up): nothing more
    # happens, and only ada is told.
    await club.dc.click_as_shown(club.guild, club.ada, preview, button(preview, "Apply"))
    again = await club.dc.output(10.0)
    assert (again.kind, again.ephemeral) == ("reply", True), again
    assert again.plain == "There is no correction to apply. Start one with /correct."
    assert await bot.stop() == 0
    history = club.shell("export", "--chat", f"discord:{GUILD}")
    games = [row for row in csv.DictReader(io.StringIO(history)) if row["kind"] in ("", "game")]
    assert [(g["player_a"], g["player_b"], g["score_a"]) for g in games] == [
        ("alice", "bob", "0.5")]
