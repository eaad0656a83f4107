"""Journeys of a Telegram club through ``clubrating run``, a process started with environment
variables alone (``TELEGRAM_TOKEN``, ``TELEGRAM_BASE_URL`` at the fake Bot API on 127.0.0.1,
``CLUBRATING_DB``), its clock moved from outside by libfaketime."""

from __future__ import annotations

import asyncio
import csv
import io
import re
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from tests.fake_telegram import TOKEN, FakeTelegram

from .clubs import GROUP, TelegramClub, button

#: 09:00 in Berlin on the Sunday after FRIDAY is 08:00 UTC; the bot starts 15 s before
SUNDAY_MORNING = datetime(2026, 11, 22, 7, 59, 45)
MENU = ["register", "rating", "top", "challenge", "report", "confirm", "dispute", "withdraw",
        "history", "h2h", "pending", "help"]


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[TelegramClub]:
    async with FakeTelegram(token=TOKEN) as tg:
        yield TelegramClub.on(tg, tmp_path)


async def test_menu_register_report_confirm_top(club: TelegramClub) -> None:
    bot = await club.bot().start()
    try:
        assert [c["command"] for c in club.tg.commands["default"]] == MENU
        await club.register(club.alice, club.bob)
        report = await club.say(club.alice, "/report @bob win")
        assert "alice beat bob" in report.plain
        confirmed = await club.press(club.bob, report, button(report, "Confirm"))
        assert confirmed.kind == "edit" and "confirmed" in confirmed.plain
        board = await club.say(club.carol, "/top")
        assert board.plain.splitlines()[1:] == ["  1. alice      1553?  1 game",
                                                "  2. bob        1447?  1 game"]
    finally:
        assert await bot.stop() == 0


async def test_weekly_post_at_the_ladders_local_time_once_and_caught_up_once(
        club: TelegramClub) -> None:
    bot = await club.bot().start()
    await club.rate_alice_285_above_bob()
    await bot.stop()
    club.shell("schedule", "set", "--chat", f"telegram:{GROUP}", "--cron", "0 9 * * SUN",
               "--tz", "Europe/Berlin")

    # Sunday 08:59:45 in Berlin: the post goes out at 09:00, and says what the board is.
    club.clock.set(SUNDAY_MORNING)
    bot = await club.bot().start()
    [post] = await club.next_posts(1)
    await bot.wait_log(r"scheduled for 2026-11-22T08:00:00 claimed")
    assert post.kind == "photo" and "alice" in post.plain and "1673" in post.plain
    assert await bot.stop() == 0

    # Restarted the same morning: nothing posted again.
    club.clock.set(datetime(2026, 11, 22, 8, 10))
    bot = await club.bot().start()
    await bot.wait_log(r"scheduled posts: \d+ plans")
    await asyncio.sleep(3)
    assert len(club.tg.outputs(club.group)) == 9  # 3 welcomes, 5 games, 1 post
    assert await bot.stop() == 0

    # A week and more of downtime (two Sundays missed): exactly one post catches up.
    club.clock.set(datetime(2026, 12, 6, 12, 0))
    bot = await club.bot().start()
    [catch_up] = await club.next_posts(1)
    await bot.wait_log(r"scheduled for 2026-12-06T08:00:00 claimed")
    await asyncio.sleep(3)
    assert len(club.tg.outputs(club.group)) == 10 and catch_up.kind == "photo"
    assert "scheduled for 2026-11-29" not in bot.text()  # the older missed post is skipped
    assert await bot.stop() == 0


async def test_an_unanswered_report_counts_by_itself_and_is_announced(
        club: TelegramClub) -> None:
    bot = await club.bot().start()
    await club.rate_alice_285_above_bob()
    assert "announce" in (await club.say(club.ada, "/set announce yes")).plain
    report = await club.say(club.bob, "/report @alice win")  # an upset: 285 points
    assert "bob beat alice" in report.plain
    # alice never answers; a day and an hour later the result counts, and the chat is told.
    club.clock.set(datetime(2026, 11, 21, 19, 0))
    [announcement] = await club.next_posts(1)
    assert announcement.plain == "Upset on main: bob beat alice, rated 285 higher!"
    board = (await club.say(club.carol, "/top")).plain
    assert re.search(r"alice +\d+\?  6 games", board), board
    assert await bot.stop() == 0


async def test_a_correction_previewed_before_a_restart_is_applied_once_after_it(
        club: TelegramClub) -> None:
    bot = await club.bot().start()
    await club.register(club.alice, club.bob)
    report = await club.say(club.alice, "/report @bob win")
    await club.press(club.bob, report, button(report, "Confirm"))
    game = re.search(r"#(\d+)", report.plain)
    assert game is not None
    preview = await club.say(club.ada, f"/correct {game[1]} draw")
    assert "1500" in preview.plain
    assert await bot.stop() == 0

    bot = await club.bot().start()
    applied = await club.press(club.ada, preview, button(preview, "Apply"))
    assert applied.kind == "edit" and applied.plain.splitlines()[1:] == [
        "Result: alice beat bob -> alice drew with bob",  # in words (issue 31)
        "alice: 1553 -> 1500?", "bob: 1447 -> 1500?"], applied.plain
    assert "corrected" in applied.plain
    # The old message's Apply again (an old copy of the button): nothing more happens.
    await club.tg.press(club.group, club.ada, preview, button(preview, "Apply"), strict=False)
    await asyncio.sleep(1)
    assert club.tg.callback_answers[-1].get("show_alert")
    assert await bot.stop() == 0
    history = club.shell("export", "--chat", f"telegram:{GROUP}")
    games = [row for row in csv.DictReader(io.StringIO(history)) if row["kind"] in ("", "game")]
    assert [(g["player_a"], g["player_b"], g["score_a"]) for g in games] == [
        ("alice", "bob", "0.5")]


async def test_the_daily_backup_appears_in_the_backup_folder(club: TelegramClub) -> None:
    backups = club.folder / "backups"
    bot = await club.bot(CLUBRATING_BACKUP_DIR=str(backups)).start()
    await club.register(club.alice)
    await bot.wait_log(r"daily backups of")
    for _ in range(100):
        if list(backups.glob("clubrating-20261120-*.db")):
            break
        await asyncio.sleep(0.1)
    [first] = backups.glob("clubrating-*.db")
    # A day later, the next one.
    club.clock.set(datetime(2026, 11, 21, 18, 5))
    for _ in range(300):
        if len(list(backups.glob("clubrating-*.db"))) == 2:
            break
        await asyncio.sleep(0.1)
    assert sorted(p.name[:19] for p in backups.glob("clubrating-*.db")) == [
        "clubrating-20261120", "clubrating-20261121"]
    assert await bot.stop() == 0


async def test_a_moderators_own_game_waits_for_the_opponent(club: TelegramClub) -> None:
    """Issue 15: ada runs the group (a moderator), yet her own /report waits for bob like
    anyone's; only a result she records for two other members counts at once."""
    bot = await club.bot().start()
    try:
        await club.register(club.ada, club.bob, club.alice, club.carol)
        report = await club.say(club.ada, "/report @bob win")
        assert re.fullmatch(r"Game #1: ada beat bob\. bob, please /confirm or /dispute\.\n"
                            r"Ladder main, no handicap, colours not given, no event; counts on "
                            r"\w{3}, \w{3} \d{1,2} \d\d:\d\d UTC unless disputed\.\n"
                            r"ada: \+53 / 0 / -53 \(win 50%\)\nbob: \+53 / 0 / -53 \(win 50%\)",
                            report.plain), report.plain
        assert [label for row in report.buttons for label, _ in row] == ["Confirm", "Dispute"]
        board = await club.say(club.carol, "/top")
        assert all(line.endswith("0 games") for line in board.plain.splitlines()[1:]), board.plain
        # ada cannot confirm her own report (a short alert); bob's press counts it.
        refused = await club.press_answer(club.ada, report, button(report, "Confirm"))
        assert refused.get("show_alert") is True
        confirmed = await club.press(club.bob, report, button(report, "Confirm"))
        assert confirmed.kind == "edit" and "ada: 1500 -> 1553?" in confirmed.plain
        # A result between two other members counts at once.
        recorded = await club.say(club.ada, "/report @alice @carol win")
        assert recorded.plain.startswith("Game #2 recorded: alice beat carol"), recorded.plain
        # alice and carol join a league whose spread (ada's and bob's) is below an established
        # player's deviation: they start established (74.56, K 32), so the win moves them by
        # 16 with no "?".
        assert "alice: 1500 -> 1516" in recorded.plain, recorded.plain
    finally:
        assert await bot.stop() == 0


async def test_games_and_challenges_are_numbered_from_one_and_keep_their_numbers(
        club: TelegramClub) -> None:
    """Issue 15: a fresh club's first game is #1 and its first challenge #1 (registrations and
    challenges take no game numbers), /confirm 2 and /accept 1 answer them, and the numbers
    stay after a restart. A button posted before games had numbers (it names the report's
    event id, without "#") still confirms the game it was posted under."""
    bot = await club.bot().start()
    try:
        await club.register(club.ada, club.alice, club.bob, club.carol)
        first = await club.say(club.alice, "/report @bob win")
        assert first.plain.startswith("Game #1: alice beat bob. bob, please"), first.plain
        assert button(first, "Confirm") == "g:confirm:#1"
        challenge = await club.say(club.carol, "/challenge @alice")
        assert "carol challenges alice (challenge #1, main)" in challenge.plain, challenge.plain
        assert button(challenge, "Accept") == "c:accept:#1"
        second = await club.say(club.bob, "/report @carol draw")
        assert second.plain.startswith("Game #2: bob drew with carol."), second.plain
        accepted = await club.say(club.alice, "/accept 1")
        assert accepted.plain.startswith("alice accepts carol's challenge #1."), accepted.plain
        confirmed = await club.say(club.carol, "/confirm 2")
        assert confirmed.plain.startswith("Game #2 confirmed: bob drew with carol."), (
            confirmed.plain)
        recorded = await club.say(club.ada, "/report @alice @carol win")
        assert recorded.plain.startswith("Game #3 recorded: alice beat carol."), recorded.plain
        audit = await club.say(club.ada, "/audit")
        reported = re.search(r"^#(\d+) .*alice reported game #1 on main", audit.plain, re.M)
        assert reported is not None and int(reported[1]) > 1, audit.plain
    finally:
        assert await bot.stop() == 0

    bot = await club.bot().start()
    try:
        fourth = await club.say(club.carol, "/report @bob loss")
        assert fourth.plain.startswith("Game #4: bob beat carol."), fourth.plain
        # game #1's Confirm as a message posted before the upgrade carries it: its event's id
        await club.tg.press(club.group, club.bob, first, f"g:confirm:{reported[1]}",
                            strict=False)
        pressed = await club.tg.reply(club.group, 10.0)
        assert pressed.plain.startswith("Game #1 confirmed: alice beat bob."), pressed.plain
        history = await club.say(club.bob, "/history")
        assert [line.split()[0] for line in history.plain.splitlines()[1:]] == [
            "#1", "#2"], history.plain  # the games that count; #4 waits for bob
        assert (await club.say(club.bob, "/confirm 9")).plain == "There is no game #9."
    finally:
        assert await bot.stop() == 0
