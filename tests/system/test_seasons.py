"""Seasons (issue 38) through ``clubrating run``: on the console (restarted in between), on the
fake Bot API (the Confirm button, the final table posted into the group) and on the fake
Discord (``/season``, its Confirm button).

A season is closed with a soft reset; its archived table stays as it was while later games are
played, and a restart replays the reset to the same ratings. A correction of a game inside the
closed season is refused naming the season, then forced: the archived table changes. Bad input
(a non-moderator's close, a season without games, an unknown season number, ``season=abc``) gets
one short refusal each and leaves the log as it was.

The numbers are those of the club default (newcomers by deviation); after the soft reset
(factor 0.5, T = 1500) ann's 1576.x is 1538.x, cid's 1508.x 1504.x and bob's 1478.x 1489.x.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import datetime
from pathlib import Path

from .clubs import FRIDAY, DiscordClub, TelegramClub, button
from .process import FakeClock, environment
from .test_puzzles_console import console

#: the week after FRIDAY: the season's last two games
NEXT_FRIDAY = datetime(2026, 11, 27, 18, 0)

TABLE = """\
1. ann 1576? (+76), peak 1601, 4 games
2. cid 1508? (+8), peak 1523, 4 games
3. bob 1478? (-22), peak 1500, 4 games
Most improved: ann (+76)"""

ARCHIVED = "Season 1, Autumn, on main (2026-11-20 – 2026-11-27, 6 games):\n" + TABLE

#: the board right after the close: every rating halfway back to 1500
RESET = """\
main ladder
  1. ann      1538?  4 games
  2. cid      1504?  4 games
  3. mod      1500?  0 games
  4. bob      1489?  4 games"""


def log_size(env: dict[str, str]) -> int:
    """How many events the club's log holds."""
    with sqlite3.connect(env["CLUBRATING_DB"]) as db:
        count = int(db.execute("SELECT count(*) FROM events").fetchone()[0])
    db.close()
    return count


async def test_a_season_closed_archived_reset_and_corrected_on_the_console(
        tmp_path: Path) -> None:
    clock = FakeClock(tmp_path, FRIDAY)
    env = environment(tmp_path, clock)
    async with console(env) as chat:
        for name in ("mod!", "ann", "bob", "cid"):
            await chat.say(f"/as {name}")
            await chat.say("/register")
        await chat.say("/as mod!")
        assert await chat.say("/set season_min_games 2") == (
            "season_min_games of main is now 2.")
        assert await chat.say("/set season_reset soft") == "season_reset of main is now soft."
        for line in ("/report @ann @bob win", "/report @ann @cid win", "/report @bob @cid draw",
                     "/report @cid @bob win"):
            assert "recorded" in await chat.say(line, 3)
        clock.set(NEXT_FRIDAY)
        await asyncio.sleep(2.5)  # libfaketime reads the clock's file again within a second
        for line in ("/report @ann @bob loss", "/report @ann @cid win"):
            assert "recorded" in await chat.say(line, 3)

        # a member may not close the season; the moderator's preview stores nothing
        before = log_size(env)
        await chat.say("/as bob")
        assert await chat.say("/season close") == "Only moderators can do that."
        await chat.say("/as mod!")
        assert await chat.say("/season close", 6) == (
            "Season S1 on main (2026-11-20 – 2026-11-27, 6 games). Closing it keeps this "
            "table:\n" + TABLE
            + "\nTo close it, press Confirm or send /season close S1 confirm.")
        assert await chat.say("/season list") == "No season of main is closed yet."
        assert log_size(env) == before

        assert await chat.say("/season close Autumn confirm", 5) == (
            "Season Autumn on main is closed (2026-11-20 – 2026-11-27, 6 games). Its final "
            "table:\n" + TABLE)
        assert log_size(env) == before + 1
        assert await chat.say("/season list", 2) == (
            "Seasons of main:\n"
            "1. Autumn (2026-11-20 – 2026-11-27): 6 games, 3 players, champion ann")
        assert await chat.say("/top season=1", 5) == ARCHIVED
        assert await chat.say("/top", 5) == RESET
        assert await chat.say("/rating @ann season=1") == (
            "ann in season Autumn on main: 1576 (+76), peak 1601, 4 games, place 1")

        # bad input: one short refusal each, the log as it was
        closed = log_size(env)
        for line, refusal in [
            ("/season close", "The season on main has no games yet: there is nothing to "
                              "close."),
            ("/season close S2 confirm", "The season on main has no games yet: there is "
                                         "nothing to close."),
            ("/season close Autumn confirm", "main has a season called Autumn already: give "
                                             "another name."),
            ("/top season=2", "main has 1 closed season: there is no season 2."),
            ("/top season=abc", "season= takes a season's number, e.g. season=1 (not abc)."),
            ("/rating @ann season=0", "main has 1 closed season: there is no season 0."),
            ("/set season_soft_factor 2", "season_soft_factor takes a number from 0 to 1 (not "
                                          "2)."),
        ]:
            assert await chat.say(line) == refusal, line
        assert log_size(env) == closed

    # started again: the reset is replayed to the same numbers, the archive is the same
    async with console(env) as chat:
        await chat.say("/as mod!")
        assert await chat.say("/top", 5) == RESET
        assert await chat.say("/top season=1", 5) == ARCHIVED
        # a game of the new season changes today's board, never the archived table
        assert await chat.say("/report @ann @bob win", 3) == (
            "Game #7 recorded: ann beat bob.\nann: 1538 -> 1571?\nbob: 1489 -> 1455?")
        assert await chat.say("/top season=1", 5) == ARCHIVED

        # a correction inside the closed season: refused naming it, then forced
        before = log_size(env)
        assert await chat.say("/correct 1 loss") == (
            "Game #1 is in season Autumn, which is closed. To correct it all the same, end the "
            "command with force (/correct 1 loss force).")
        assert log_size(env) == before
        assert await chat.say("/correct 1 loss force", 6) == (
            "Correcting game #1 would change:\n"
            "Result: ann beat bob -> bob beat ann\n"
            "ann: 1571 -> 1541?\n"
            "bob: 1455 -> 1472?\n"
            "cid: 1504 -> 1482?\n"
            "Send /apply to make this correction, or /cancel.")
        assert "Game #1 corrected" in await chat.say("/apply", 5)
        assert await chat.say("/top season=1", 5) == (
            "Season 1, Autumn, on main (2026-11-20 – 2026-11-27, 6 games):\n"
            "1. bob 1525? (+25), peak 1553, 4 games\n"
            "2. ann 1501? (+1), peak 1502, 4 games\n"
            "3. cid 1463? (-37), peak 1500, 4 games\n"
            "Most improved: bob (+25)")
        assert log_size(env) == before + 1


async def test_a_season_closed_by_its_button_and_posted_on_telegram(
        telegram: TelegramClub) -> None:
    club = telegram
    bot = await club.bot().start()
    try:
        await club.register(club.alice, club.bob, club.carol)
        assert "now 1" in (await club.say(club.ada, "/set season_min_games 1")).plain
        for line in ("/report @alice @bob win", "/report @alice @carol win",
                     "/report @bob @carol win"):
            assert "recorded" in (await club.say(club.ada, line)).plain
        preview = await club.say(club.ada, "/season close")
        assert preview.plain.splitlines()[0] == (
            "Season S1 on main (2026-11-20 – 2026-11-20, 3 games). Closing it keeps this "
            "table:")
        pressed = await club.press(club.ada, preview, button(preview, "Confirm"))
        assert pressed.plain == (
            "Season S1 on main is closed (2026-11-20 – 2026-11-20, 3 games). Its final table:\n"
            "1. alice 1601? (+101), peak 1601, 2 games\n"
            "2. bob 1508? (+8), peak 1508, 2 games\n"
            "3. carol 1495? (-5), peak 1513, 2 games\n"
            "Most improved: alice (+101)")
        # the final table goes where the ladder's posts go: the group
        [post] = await club.next_posts(1)
        assert post.plain == ("Season S1 on main is closed after 3 games. Final table:\n"
                              "1. alice 1601? (+101)\n2. bob 1508? (+8)\n3. carol 1495? (-5)")
        # the button again, after the close: the season it named is closed already
        answer = await club.press_answer(club.ada, preview, button(preview, "Confirm"),
                                         strict=False)
        assert answer.get("text") == "Season 1 of main is closed already."
        listed = await club.say(club.bob, "/season list")
        assert listed.plain == ("Seasons of main:\n1. S1 (2026-11-20 – 2026-11-20): 3 games, "
                                "3 players, champion alice")
        # a forced correction inside the season: applied, and the group is told
        forced = await club.say(club.ada, "/correct 3 loss force")
        assert forced.plain.startswith("Correcting game #3 would change:")
        applied = await club.press(club.ada, forced, button(forced, "Apply"))
        assert "Game #3 corrected" in applied.plain
        [told] = await club.next_posts(1)
        assert told.plain == ("A correction changed the table of season S1 on main: /top "
                              "season=1 shows it.")
        top = await club.say(club.bob, "/top season=1")
        assert top.plain.splitlines()[1:3] == ["1. alice 1601? (+101), peak 1601, 2 games",
                                               "2. carol 1525? (+25), peak 1525, 2 games"]
    finally:
        assert await bot.stop() == 0


async def test_a_season_closed_with_the_slash_command_on_discord(discord: DiscordClub) -> None:
    club = discord
    bot = await club.bot().start()
    try:
        await club.register(club.alice, club.bob)
        await club.say(club.ada, "set", key="season_min_games", value="1")
        recorded = await club.say(club.ada, "report", player=club.alice, opponent=club.bob,
                                  result="win")
        assert "recorded" in recorded.plain
        refused = await club.say(club.bob, "season", action="close")
        assert refused.plain == "Only moderators can do that."
        preview = await club.say(club.ada, "season", action="close", name="Winter")
        assert preview.plain.splitlines()[-1] == (
            "To close it, send /season close Winter confirm.")
        # without a name: the Confirm button closes it
        preview = await club.say(club.ada, "season", action="close")
        pressed = await club.press(club.ada, preview, button(preview, "Confirm"))
        assert pressed.plain == (
            "Season S1 on main is closed (2026-11-20 – 2026-11-20, 1 game). Its final "
            "table:\n"
            "1. alice 1553? (+53), peak 1553, 1 game\n"
            "2. bob 1447? (-53), peak 1500, 1 game\n"
            "Most improved: alice (+53)")
        again = await club.say(club.ada, "season", action="close", name="Winter",
                               confirm=True)
        assert again.plain == "The season on main has no games yet: there is nothing to close."
        top = await club.say(club.bob, "top", season=1)
        assert top.plain.splitlines()[0] == (
            "Season 1, S1, on main (2026-11-20 – 2026-11-20, 1 game):")
        mine = await club.say(club.bob, "rating", season=1)
        assert mine.plain == "bob in season S1 on main: 1447 (-53), peak 1500, 1 game, place 2"
    finally:
        assert await bot.stop() == 0


async def test_a_monthly_season_reminded_closed_and_skipped_when_empty(
        telegram: TelegramClub) -> None:
    """``season_schedule monthly`` in Berlin: the reminder at 00:00 on 30 November, the close
    at 00:00 on 1 December (23:00 UTC the day before), each posted once; December has no game,
    so on 1 January the season is not closed and the group is told once."""
    club = telegram
    bot = await club.bot().start()
    try:
        await club.register(club.alice, club.bob)
        for line in ("/set season_schedule monthly", "/set timezone Europe/Berlin",
                     "/set season_min_games 1", "/schedule pause"):
            await club.say(club.ada, line)
        assert "recorded" in (await club.say(club.ada, "/report @alice @bob win")).plain

        club.clock.set(datetime(2026, 11, 29, 23, 0, 5))  # 00:00:05 on the 30th in Berlin
        [reminder] = await club.next_posts(1)
        assert reminder.plain == "Season S1 on main closes tomorrow at 00:00."

        club.clock.set(datetime(2026, 11, 30, 23, 0, 5))  # 00:00:05 on 1 December in Berlin
        [closed] = await club.next_posts(1)
        assert closed.plain == ("Season S1 on main is closed after 1 game. Final table:\n"
                                "1. alice 1553? (+53)\n2. bob 1447? (-53)")
        listed = await club.say(club.bob, "/season list")
        assert listed.plain == ("Seasons of main:\n1. S1 (2026-11-20 – 2026-11-30): 1 game, 2 "
                                "players, champion alice")

        # (the clock leaps over 31 December: that day's reminder is never due)
        club.clock.set(datetime(2026, 12, 31, 23, 0, 5))  # 00:00:05 on 1 January in Berlin
        [skipped] = await club.next_posts(1)
        assert skipped.plain == "Season S2 on main has no games: it was not closed, and runs on."
        await asyncio.sleep(35)  # a poll later: told once
        listed = await club.say(club.bob, "/season list")
        assert listed.plain == ("Seasons of main:\n1. S1 (2026-11-20 – 2026-11-30): 1 game, 2 "
                                "players, champion alice")
    finally:
        assert await bot.stop() == 0
