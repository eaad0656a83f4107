"""Journeys of a Discord club through ``clubrating run``, a process started with environment
variables alone (``DISCORD_TOKEN``, ``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` at the fake
Discord on 127.0.0.1, ``DISCORD_GUILD_ID``, ``CLUBRATING_DB``), its clock moved from outside by
libfaketime."""

from __future__ import annotations

import asyncio
import csv
import io
import re
import sqlite3
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from tests.fake_discord import FakeDiscord

from .clubs import GUILD, DiscordClub, button

#: 09:00 in Berlin on the Sunday after FRIDAY is 08:00 UTC; the bot starts 15 s before
SUNDAY_MORNING = datetime(2026, 11, 22, 7, 59, 45)
#: slash commands every club needs, among those synced
COMMANDS = {"register", "rating", "top", "challenge", "report", "confirm", "dispute",
            "withdraw", "history", "h2h", "pending", "help", "correct", "void", "set"}


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[DiscordClub]:
    async with FakeDiscord() as dc:
        yield DiscordClub.on(dc, tmp_path)


async def test_slash_commands_synced_register_report_confirm_top(club: DiscordClub) -> None:
    bot = await club.bot().start()
    try:
        assert club.dc.sync_calls == [GUILD] and None not in club.dc.commands
        assert {c["name"] for c in club.dc.commands[GUILD]} >= COMMANDS
        await club.register(club.alice, club.bob)
        reported = await club.dc.command(club.guild, club.alice, "report", opponent=club.bob,
                                         result="win")
        report = await club.dc.output(10.0)
        assert re.fullmatch(r"Game #\d+: alice beat bob\. bob, please /confirm or /dispute\.\n"
                            r"Ladder main, no handicap, colours not given, no event; counts on "
                            r"\w{3}, \w{3} \d{1,2} \d\d:\d\d UTC unless disputed\.\n"
                            r"alice: \+53 / 0 / -53 \(win 50%\)\nbob: \+53 / 0 / -53 \(win 50%\)",
                            report.plain), report.plain
        confirmed = await club.press(club.bob, report, button(report, "Confirm"))
        assert confirmed.kind == "update" and confirmed.message_id == report.message_id
        assert re.match(r"Game #\d+ confirmed: alice beat bob\.", confirmed.plain)
        assert confirmed.buttons == []
        board = await club.say(club.carol, "top")
        assert board.kind == "reply" and not board.ephemeral and board.embeds
        assert board.plain.splitlines()[1:] == ["  1. alice      1553?  1 game",
                                                "  2. bob        1447?  1 game"]
        assert club.dc.errors == []
    finally:
        assert await bot.stop() == 0
    # the game's event keeps the snowflake of the interaction that reported it (issue 41)
    with sqlite3.connect(club.folder / "club.db") as database:
        assert database.execute("SELECT platform_sequence FROM events"
                                " WHERE kind = 'game_reported'").fetchall() == [(reported,)]


async def test_weekly_post_at_the_ladders_local_time_once_and_caught_up_once(
        club: DiscordClub) -> None:
    bot = await club.bot().start()
    await club.rate_alice_285_above_bob()
    assert await bot.stop() == 0
    club.shell("schedule", "set", "--chat", f"discord:{GUILD}", "--cron", "0 9 * * SUN",
               "--tz", "Europe/Berlin")

    # Sunday 08:59:45 in Berlin: the post goes out at 09:00, into the club's channel, and says
    # what the board is.
    club.clock.set(SUNDAY_MORNING)
    bot = await club.bot().start()
    [post] = await club.next_posts(1)
    await bot.wait_log(r"scheduled for 2026-11-22T08:00:00 claimed")
    assert "alice" in post.plain and "1673" in post.plain, post.plain
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
    [catch_up] = await club.next_posts(1)
    await bot.wait_log(r"scheduled for 2026-12-06T08:00:00 claimed")
    await asyncio.sleep(3)
    assert club.dc.pending_outputs() == 0 and len(club.posts()) == 2
    assert catch_up.files and "alice" in catch_up.plain
    assert "scheduled for 2026-11-29" not in bot.text()
    assert await bot.stop() == 0
    assert club.dc.errors == []


async def test_an_unanswered_report_counts_by_itself_and_is_announced(club: DiscordClub) -> None:
    bot = await club.bot().start()
    await club.rate_alice_285_above_bob()
    assert "announce" in (await club.say(club.ada, "set", key="announce", value="yes")).plain
    report = await club.say(club.bob, "report", opponent=club.alice, result="win")  # an upset
    assert "bob beat alice" in report.plain
    # alice never answers; a day and an hour later the result counts, and the channel is told.
    club.clock.set(datetime(2026, 11, 21, 19, 0))
    [announcement] = await club.next_posts(1)
    assert announcement.plain == "Upset on main: bob beat alice, rated 285 higher!"
    board = (await club.say(club.carol, "top")).plain
    assert re.search(r"alice +\d+\?  6 games", board), board
    assert await bot.stop() == 0


async def test_a_correction_previewed_before_a_restart_is_applied_once_after_it(
        club: DiscordClub) -> None:
    bot = await club.bot().start()
    await club.register(club.alice, club.bob)
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
        "Result: alice beat bob -> alice drew with bob",  # in words (issue 31)
        "alice: 1553 -> 1500?", "bob: 1447 -> 1500?"]), applied.plain
    assert applied.message_id == preview.message_id and applied.buttons == []
    # The Apply of the message as it was shown before (a client not caught up): nothing more
    # happens, and only ada is told.
    await club.dc.click_as_shown(club.guild, club.ada, preview, button(preview, "Apply"))
    again = await club.dc.output(10.0)
    assert (again.kind, again.ephemeral) == ("reply", True), again
    assert again.plain == ("Nothing previewed waits for /apply. /correct, /merge, /undo and "
                           "/system preview first.")
    assert await bot.stop() == 0
    history = club.shell("export", "--chat", f"discord:{GUILD}")
    games = [row for row in csv.DictReader(io.StringIO(history)) if row["kind"] in ("", "game")]
    assert [(g["player_a"], g["player_b"], g["score_a"]) for g in games] == [
        ("alice", "bob", "0.5")]


async def test_a_moderators_own_game_waits_for_the_opponent(club: DiscordClub) -> None:
    """Issue 15: ada manages the server (a moderator), yet her own /report waits for bob like
    anyone's; only a result she records for two other members counts at once."""
    bot = await club.bot().start()
    try:
        await club.register(club.ada, club.bob, club.alice, club.carol)
        report = await club.say(club.ada, "report", opponent=club.bob, result="win")
        assert re.fullmatch(r"Game #1: ada beat bob\. bob, please /confirm or /dispute\.\n"
                            r"Ladder main, no handicap, colours not given, no event; counts on "
                            r"\w{3}, \w{3} \d{1,2} \d\d:\d\d UTC unless disputed\.\n"
                            r"ada: \+53 / 0 / -53 \(win 50%\)\nbob: \+53 / 0 / -53 \(win 50%\)",
                            report.plain), report.plain
        assert [label for row in report.buttons for label, _ in row] == ["Confirm", "Dispute"]
        board = await club.say(club.carol, "top")
        assert all(line.endswith("0 games") for line in board.plain.splitlines()[1:]), board.plain
        confirmed = await club.press(club.bob, report, button(report, "Confirm"))
        assert "ada: 1500 -> 1553?" in confirmed.plain, confirmed.plain
        recorded = await club.say(club.ada, "report", player=club.alice, opponent=club.carol,
                                  result="win")
        assert recorded.plain.startswith("Game #2 recorded: alice beat carol"), recorded.plain
        assert club.dc.errors == []
    finally:
        assert await bot.stop() == 0


async def test_games_and_challenges_are_numbered_from_one_and_keep_their_numbers(
        club: DiscordClub) -> None:
    """Issue 15: a fresh club's first game is #1 and its first challenge #1, /confirm and
    /accept take those numbers, and they stay after a restart. A button of a message posted
    before games had numbers (its custom id names the report's event id, without "#") still
    confirms the game it was posted under."""
    bot = await club.bot().start()
    try:
        await club.register(club.ada, club.alice, club.bob, club.carol)
        first = await club.say(club.alice, "report", opponent=club.bob, result="win")
        assert first.plain.startswith("Game #1: alice beat bob. bob, please"), first.plain
        assert button(first, "Confirm") == "g:confirm:#1"
        challenge = await club.say(club.carol, "challenge", member=club.alice)
        assert "carol challenges alice (challenge #1, main)" in challenge.plain, challenge.plain
        second = await club.say(club.bob, "report", opponent=club.carol, result="draw")
        assert second.plain.startswith("Game #2: bob drew with carol."), second.plain
        accepted = await club.say(club.alice, "accept", number=1)
        assert accepted.plain.startswith("alice accepts carol's challenge #1."), accepted.plain
        confirmed = await club.say(club.carol, "confirm", number=2)
        assert confirmed.plain.startswith("Game #2 confirmed: bob drew with carol."), (
            confirmed.plain)
        recorded = await club.say(club.ada, "report", player=club.alice, opponent=club.carol,
                                  result="win")
        assert recorded.plain.startswith("Game #3 recorded: alice beat carol."), recorded.plain
        audit = await club.say(club.ada, "audit")
        reported = re.search(r"^#(\d+) .*alice reported game #1 on main", audit.plain, re.M)
        assert reported is not None and int(reported[1]) > 1, audit.plain
    finally:
        assert await bot.stop() == 0

    bot = await club.bot().start()
    try:
        fourth = await club.say(club.carol, "report", opponent=club.bob, result="loss")
        assert fourth.plain.startswith("Game #4: bob beat carol."), fourth.plain
        # game #1's message as it was posted before the upgrade: Confirm named the event
        legacy = f"g:confirm:{reported[1]}"
        club.dc.messages[first.message_id]["components"][0]["components"][0]["custom_id"] = (
            legacy)
        pressed = await club.press(club.bob, first, legacy)
        assert pressed.plain.startswith("Game #1 confirmed: alice beat bob."), pressed.plain
        assert (await club.say(club.bob, "confirm", number=9)).plain == "There is no game #9."
        assert club.dc.errors == []
    finally:
        assert await bot.stop() == 0
