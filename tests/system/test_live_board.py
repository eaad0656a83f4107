"""The live leaderboard (issue 38) through ``clubrating run``, against the fake Bot API (and the
fake Discord), with the wall clock moved from outside (libfaketime).

On Telegram: ada, who runs the group, sends ``/board here``; the bot posts the main ladder's
table (``/top``'s text) and pins it. Two results inside the minute change nothing at once, and
one edit at the minute's end shows both; a challenge, which changes no rating, edits nothing; a
member deletes the message, and the next result posts a new one (pinned, recorded in the log);
the bot is stopped and started again and goes on editing that message. Three failed edits in a
row stop the board, and the group is told once. A member's ``/board here``, ``/board off``
without a board and ``/board here`` where the bot may not post are refused, the log unchanged.

In the console, the board is printed again after the command that changed the table.

On Discord the same board in the channel where ``/board here`` was run, edited at most once
every 10 seconds (a change just after an edit waits for the next window; a challenge edits
nothing), pinned (the bot may manage messages), posted again after deletion (Discord's
10008 Unknown Message); refused in a channel where the bot may not send messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.fake_discord import MANAGE_MESSAGES, VIEW_CHANNEL, FakeDiscord
from tests.fake_discord import Output as DiscordOutput
from tests.fake_telegram import TOKEN, FakeTelegram
from tests.fake_telegram import Output as TelegramOutput

from .clubs import FRIDAY, GROUP, DiscordClub, TelegramClub
from .process import FakeClock, clubrating, environment

STARTED = "The live leaderboard of main is kept in this chat from now on; /board off ends it."
MODERATORS_ONLY = "Only moderators can do that."
NO_BOARD = "main has no live leaderboard: /board here starts one."
CANNOT_POST = ("I may not post in this chat: give me the right to send messages here, then "
               "/board here again.")
STOPPED = ("The live leaderboard of main has stopped: its message could not be posted or "
           "edited three times in a row. /board here starts it again.")
#: the table after alice, then carol, beat bob (the club system; newcomers, marked "?")
AFTER_TWO = ["main ladder", "  1. alice      1553?  1 game", "  2. carol      1487?  1 game",
             "  3. bob        1399?  2 games"]


def events(folder: Path, kind: str | None = None) -> list[tuple[str, str]]:
    """The club's log (its kinds and data), or its events of ``kind``."""
    with contextlib.closing(sqlite3.connect(folder / "club.db")) as db:
        rows = db.execute("SELECT kind, data FROM events ORDER BY id").fetchall()
    return [(k, d) for k, d in rows if kind is None or k == kind]


def edits(tg: FakeTelegram) -> list[dict[str, object]]:
    return tg.called("editMessageText")


async def until(check: object, what: str, timeout: float = 60.0) -> None:
    """Wait until ``check()`` is true (the bot acts by itself, in its own time)."""
    assert callable(check)
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")


async def start_board(club: TelegramClub) -> tuple[TelegramOutput, TelegramOutput]:
    """ada's /board here: the bot's answer and the board it posts (in either order)."""
    await club.tg.send(club.group, club.ada, "/board here")
    first, second = await club.next_posts(2)
    return (first, second) if first.plain == STARTED else (second, first)


async def test_a_board_on_telegram_edited_in_place_once_a_minute_reposted_and_restarted(
        telegram: TelegramClub) -> None:
    club, ada, tg = telegram, telegram.ada, telegram.tg
    bot = await club.bot().start()
    try:
        await club.register(club.alice, club.bob, club.carol)
        before = len(events(club.folder))
        assert (await club.say(club.alice, "/board here")).plain == MODERATORS_ONLY
        assert (await club.say(ada, "/board off")).plain == NO_BOARD
        assert len(events(club.folder)) == before

        started, board = await start_board(club)
        assert started.plain == STARTED
        assert board.kind == "send"
        assert board.plain.splitlines() == ["main ladder", "  1. alice      1500?  0 games",
                                            "  2. bob        1500?  0 games",
                                            "  3. carol      1500?  0 games"]
        await until(lambda: events(club.folder, "live_board_moved"), "the board's record")
        assert club.group.pinned == [board.message_id]  # pinned before it is recorded
        [moved] = events(club.folder, "live_board_moved")
        assert f'"message":"{board.message_id}"' in moved[1]

        # two results inside the minute: no edit yet, then one edit showing both
        assert "recorded" in (await club.say(ada, "/report @alice @bob win")).plain
        assert "recorded" in (await club.say(ada, "/report @carol @bob win")).plain
        await asyncio.sleep(3)
        assert edits(tg) == []
        club.clock.set(FRIDAY + timedelta(minutes=2))
        edited = await tg.reply(club.group, 60.0)
        assert (edited.kind, edited.message_id) == ("edit", board.message_id)
        assert edited.plain.splitlines() == AFTER_TWO
        assert len(edits(tg)) == 1
        top = await club.say(ada, "/top")
        assert top.plain == edited.plain  # the board is /top's table

        # a challenge changes no rating: the next minute edits nothing
        await club.say(club.alice, "/challenge @bob")
        club.clock.set(FRIDAY + timedelta(minutes=4))
        await asyncio.sleep(3)
        assert len(edits(tg)) == 1

        # the message is deleted: the next result posts the table again, pinned
        tg.delete(club.group, board.message_id)
        assert "recorded" in (await club.say(ada, "/report @alice @carol win")).plain
        again = await tg.reply(club.group, 60.0)
        assert again.kind == "send" and again.message_id != board.message_id
        await until(lambda: len(events(club.folder, "live_board_moved")) == 2, "its record")
        assert again.plain == (await club.say(ada, "/top")).plain
        assert club.group.pinned == [again.message_id]
        assert [m for m in tg.errors if m[0] == "editMessageText"] == [
            ("editMessageText", 400, "Bad Request: message to edit not found")]
        assert f'"message":"{again.message_id}"' in events(club.folder, "live_board_moved")[-1][1]

        # a restart: the board goes on in the same message
        assert await bot.stop() == 0
        bot = await club.bot().start()
        await until(lambda: len(edits(tg)) == 3, "the restarted bot's first refresh")
        club.clock.set(FRIDAY + timedelta(minutes=10))
        assert "recorded" in (await club.say(ada, "/report @bob @alice win")).plain
        edited = await tg.reply(club.group, 60.0)
        assert (edited.kind, edited.message_id) == ("edit", again.message_id)
        assert edited.plain == (await club.say(ada, "/top")).plain

        # ended: a result edits nothing any more
        size = len(edits(tg))
        assert (await club.say(ada, "/board off")).plain == (
            "The live leaderboard of main is no longer kept.")
        club.clock.set(FRIDAY + timedelta(minutes=15))
        assert "recorded" in (await club.say(ada, "/report @carol @alice win")).plain
        await asyncio.sleep(3)
        assert len(edits(tg)) == size
    finally:
        await bot.stop()


async def test_three_failed_edits_stop_a_board_and_the_group_is_told_once(
        tmp_path: Path) -> None:
    async with FakeTelegram(token=TOKEN) as tg:
        club = TelegramClub.on(tg, tmp_path)
        club.group.bot_admin = False  # a member, not an administrator: no pin
        bot = await club.bot().start()
        try:
            await club.register(club.alice, club.bob)
            _, board = await start_board(club)
            assert club.group.pinned == [] and tg.called("pinChatMessage") == []
            tg.fail("editMessageText", "Bad Request: message can't be edited", times=3)
            assert "recorded" in (await club.say(club.ada, "/report @alice @bob win")).plain
            for failure, minutes in ((1, 2), (2, 4), (3, 6)):
                club.clock.set(FRIDAY + timedelta(minutes=minutes))
                await until(lambda n=failure: len(edits(tg)) == n, f"failed edit {failure}")
            told = await tg.reply(club.group, 60.0)
            assert (told.kind, told.plain) == ("send", STOPPED)
            [(_, stopped)] = events(club.folder, "live_board_stopped")
            assert stopped == '{"ladder":"main","reason":"failed"}'
            # stopped: a result later edits nothing, and the group is not told again
            club.clock.set(FRIDAY + timedelta(minutes=10))
            assert "recorded" in (await club.say(club.ada, "/report @bob @alice win")).plain
            await asyncio.sleep(3)
            assert len(edits(tg)) == 3
            assert [o.plain for o in tg.outputs(club.group)].count(STOPPED) == 1
            assert board.message_id not in club.group.pinned
        finally:
            await bot.stop()


async def test_a_board_where_the_bot_may_not_post_is_refused(tmp_path: Path) -> None:
    """The bot is restricted in the group (it may not send): /board here is refused before
    anything is written (the refusal is what the bot tried to say; Telegram refused it too)."""
    async with FakeTelegram(token=TOKEN) as tg:
        club = TelegramClub.on(tg, tmp_path)
        bot = await club.bot().start()
        try:
            await club.register(club.alice)
            before = len(events(club.folder))
            club.group.bot_admin, club.group.bot_muted = False, True
            await tg.send(club.group, club.ada, "/board here")
            await until(lambda: any(m == "sendMessage" for m, _, _ in tg.errors),
                        "the refusal's send")
            assert tg.called("sendMessage")[-1]["text"] == CANNOT_POST
            assert tg.called("sendMessage")[-1]["chat_id"] == GROUP
            assert len(events(club.folder)) == before
        finally:
            await bot.stop()


# -- the console ------------------------------------------------------------------------------


def test_the_console_prints_its_board_again_after_the_command_that_changed_it(
        tmp_path: Path) -> None:
    """The console is one chat whose output cannot be edited: its board is the table printed
    again after a command that changed it (bob's confirmation), not after one that changed
    nothing (ada's report waiting for bob, /top)."""
    env = environment(tmp_path, FakeClock(tmp_path, FRIDAY))
    shown = clubrating(env, "run", input=(
        "/as ada!\n/register\n/as bob\n/register\n/board here\n/as ada!\n/board here\n"
        "/report @ada @bob win\n/as bob\n/confirm\n/top\n/as ada!\n/board off\n/board off\n"))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (
        "You are now ada (moderator).\n"
        "Welcome, ada! You are on the main ladder.\n"
        "You are now bob.\n"
        "Welcome, bob! You are on the main ladder.\n"
        f"{MODERATORS_ONLY}\n"
        "You are now ada (moderator).\n"
        f"{STARTED}\n"
        "main ladder\n  1. ada      1500?  0 games\n  2. bob      1500?  0 games\n"
        "Game #1: ada beat bob. bob, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; counts on Sat, Nov 21 18:00 "
        "UTC unless disputed.\n"
        "ada: +53 / 0 / -53 (win 50%)\nbob: +53 / 0 / -53 (win 50%)\n"  # the stake
        "You are now bob.\n"
        "Game #1 confirmed: ada beat bob.\nada: 1500 -> 1553?\nbob: 1500 -> 1447?\n"
        "main ladder\n  1. ada      1553?  1 game\n  2. bob      1447?  1 game\n"  # the board
        "main ladder\n  1. ada      1553?  1 game\n  2. bob      1447?  1 game\n"  # /top
        "You are now ada (moderator).\n"
        "The live leaderboard of main is no longer kept.\n"
        f"{NO_BOARD}\n")


# -- Discord ----------------------------------------------------------------------------------


class Forward:
    """Moves a club's clock on from where it is now by a few seconds at a time: on Discord a
    jump longer than the gateway's heartbeat would have discord.py reconnect (its heartbeat
    unanswered for a minute), losing what is sent meanwhile."""

    def __init__(self, club: DiscordClub) -> None:
        self.club = club
        self.at, self.since = FRIDAY, time.monotonic()  # the clock was set at the club's making

    def by(self, seconds: float) -> None:
        now = self.at + timedelta(seconds=time.monotonic() - self.since)
        self.at, self.since = now + timedelta(seconds=seconds), time.monotonic()
        self.club.clock.set(self.at)



@pytest.fixture
async def discord_club(tmp_path: Path) -> AsyncIterator[DiscordClub]:
    async with FakeDiscord() as dc:
        yield DiscordClub.on(dc, tmp_path)


async def next_of(club: DiscordClub, kind: str) -> DiscordOutput:
    """The bot's next output of ``kind`` ("post", "edit", "reply"), skipping the others."""
    while True:
        output = await club.dc.output(60.0)
        if output.kind == kind:
            return output


def discord_edits(club: DiscordClub) -> list[DiscordOutput]:
    return [output for output in club.dc.log if output.kind == "edit"]


async def test_a_board_on_discord_edited_at_most_every_ten_seconds_and_reposted(
        discord_club: DiscordClub) -> None:
    club, ada, dc = discord_club, discord_club.ada, discord_club.dc
    forward = Forward(club)
    pinner = dc.role(club.guild, 900000000000000250, "Bots", MANAGE_MESSAGES)
    club.guild.members[dc.bot.id].roles.append(pinner.id)
    bot = await club.bot().start()
    try:
        await club.register(club.alice, club.bob, club.carol)
        before = len(events(club.folder))
        assert (await club.say(club.alice, "board", arguments="here")).plain == MODERATORS_ONLY
        assert (await club.say(ada, "board", arguments="off")).plain == NO_BOARD
        assert len(events(club.folder)) == before

        await dc.command(club.guild, ada, "board", arguments="here")
        first, second = await dc.output(60.0), await dc.output(60.0)
        started, board = (first, second) if first.kind == "reply" else (second, first)
        assert started.plain == STARTED
        assert board.kind == "post"
        assert int(board.message["channel_id"]) == club.guild.channel.id
        assert board.plain.splitlines() == ["main ladder", "  1. alice      1500?  0 games",
                                            "  2. bob        1500?  0 games",
                                            "  3. carol      1500?  0 games"]
        await until(lambda: events(club.folder, "live_board_moved"), "the board's record")
        assert dc.pins[club.guild.channel.id] == [board.message_id]

        # two results inside ten seconds: one edit at the window's end, showing both
        for winner in (club.alice, club.carol):
            await club.say(ada, "report", player=winner, opponent=club.bob, result="win")
        await asyncio.sleep(2)
        assert discord_edits(club) == []
        forward.by(12)
        edited = await next_of(club, "edit")
        assert edited.message_id == board.message_id
        assert edited.plain.splitlines() == AFTER_TWO
        assert len(discord_edits(club)) == 1
        top = await club.say(ada, "top")
        assert top.plain == edited.plain  # the board is /top's table

        # a result just after the edit waits for the next window; a challenge, which changes
        # no rating, edits nothing
        await club.say(ada, "report", player=club.bob, opponent=club.carol, result="win")
        await asyncio.sleep(2)
        assert len(discord_edits(club)) == 1
        forward.by(12)
        second = await next_of(club, "edit")
        assert second.message_id == board.message_id
        assert second.plain == (await club.say(ada, "top")).plain != edited.plain
        await club.say(club.alice, "challenge", member=club.bob)
        forward.by(12)
        await asyncio.sleep(3)
        assert len(discord_edits(club)) == 2

        # deleted: the next result posts it again, and pins it
        dc.delete(board.message_id)
        forward.by(12)
        await club.say(ada, "report", player=club.alice, opponent=club.carol, result="win")
        again = await next_of(club, "post")
        assert again.message_id != board.message_id
        assert [e[:3] for e in dc.errors if e[1] == "PATCH"] == [
            (404, "PATCH", f"/api/v10/channels/{club.guild.channel.id}/messages/"
                           f"{board.message_id}")]
        await until(lambda: len(events(club.folder, "live_board_moved")) == 2, "its record")
        assert dc.pins[club.guild.channel.id] == [again.message_id]
        assert again.plain == (await club.say(ada, "top")).plain
    finally:
        await bot.stop()


async def test_a_board_where_the_bot_may_not_send_on_discord_is_refused(
        discord_club: DiscordClub) -> None:
    club = discord_club
    club.guild.roles[club.guild.id].permissions = VIEW_CHANNEL  # nobody may send there
    bot = await club.bot().start()
    try:
        await club.register(club.alice)
        before = len(events(club.folder))
        refused = await club.say(club.ada, "board", arguments="here")
        assert (refused.kind, refused.plain) == ("reply", CANNOT_POST)
        assert len(events(club.folder)) == before
        assert club.posts() == []
    finally:
        await bot.stop()
