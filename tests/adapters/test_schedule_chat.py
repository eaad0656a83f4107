"""Schedules, digests and announcements as members and moderators meet them: console
transcripts, one Telegram round trip, and the announcement of an auto-confirmed result posted
by the scheduler.

Numbers are worked by hand with Shogi Club 24's linear rule (seed 002): the winner gains
16 + 0.04 (R_loser - R_winner), rounded, and the loser loses as much; everyone starts at 1500.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from bot.adapters.console import ConsolePublisher
from bot.adapters.telegram import TelegramPublisher
from bot.chat.messages import text
from bot.chat.posts import ChatPosts
from bot.scheduling.publishing import Picture
from bot.service.club import Caller
from bot.service.results import Digest, DigestRow, RatingChange, Retiring, Standing
from tests.adapters.test_schedule import Recorder
from tests.chat import Transcript, open_club
from tests.scheduled_posts import ScheduledPosts
from tests.telegram_harness import running_bot, say

FRIDAY = datetime(2024, 3, 1, 19, 0)
CONSOLE = Caller("console", "local", "mod", "mod", moderator=True)


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db", FRIDAY) as transcript:
        yield transcript


async def test_moderators_set_show_pause_and_resume_a_schedule(chat: Transcript) -> None:
    assert await chat.as_("mod!", "/schedule") == (
        "Schedule of main:\n"
        'top 10 at "0 9 * * MON" (UTC) into this chat; next post: Mon, Mar 4 09:00 UTC.')
    assert await chat.say('/schedule cron="0 18 * * FRI" tz=Europe/Berlin size=5') == (
        "Schedule of main set.\n"
        'top 5 at "0 18 * * FRI" (Europe/Berlin) into this chat; '
        "next post: Fri, Mar 8 18:00 CET.")
    assert await chat.say("/schedule main channel=-1001234") == (
        "Schedule of main set.\n"
        'top 5 at "0 18 * * FRI" (Europe/Berlin) into chat -1001234; '
        "next post: Fri, Mar 8 18:00 CET.")
    assert await chat.say("/schedule pause") == (
        "Scheduled posts of main paused; /schedule resume starts them again.\n"
        'top 5 at "0 18 * * FRI" (Europe/Berlin) into chat -1001234; next post: none (paused).')
    assert await chat.say("/schedule pause") == text("schedule_already_paused", ladder="main")
    assert (await chat.say("/schedule resume")).startswith("Scheduled posts of main resumed.")
    assert await chat.say("/schedule resume") == text("schedule_not_paused", ladder="main")
    assert (await chat.say("/schedule show channel=here")) == text(
        "usage", usage=text("help_schedule"))
    assert (await chat.say("/schedule channel=here")).endswith(
        "into this chat; next post: Fri, Mar 8 18:00 CET.")
    # The ladder's time zone setting is the schedule's when the schedule names none.
    await chat.say("/ladder create blitz")
    await chat.say("/set timezone Asia/Tokyo ladder=blitz")
    assert (await chat.say("/schedule blitz")).endswith(
        'top 10 at "0 9 * * MON" (Asia/Tokyo) into this chat; next post: Mon, Mar 4 09:00 JST.')


async def test_schedule_refusals_change_nothing(chat: Transcript) -> None:
    await chat.as_("mod!", "/schedule")
    cases = [
        ("bob", "/schedule", text("moderators_only")),
        ("bob", "/schedule pause", text("moderators_only")),
        ("mod!", "/schedule cron=soon", text("bad_cron", text="soon")),
        ("mod!", '/schedule cron="* * * * *"', text("cron_too_often", text="* * * * *")),
        ("mod!", '/schedule cron="0 9 30 2 *"', text("cron_never_fires", text="0 9 30 2 *")),
        ("mod!", "/schedule tz=Europe/Atlantis", text("bad_timezone", text="Europe/Atlantis")),
        ("mod!", "/schedule channel=#general", text("bad_channel", text="#general")),
        ("mod!", "/schedule size=0", text("bad_size", text="0", limit=50)),
        ("mod!", "/schedule blitz tz=UTC", text("unknown_ladder", ladder="blitz",
                                                ladders="main")),
        ("mod!", "/set timezone Moon/Base", text("bad_timezone", text="Moon/Base")),
    ]
    audit = await chat.as_("mod!", "/audit 50")
    for who, line, answer in cases:
        assert await chat.as_(who, line) == answer, line
    assert await chat.as_("mod!", "/audit 50") == audit


async def test_undo_takes_a_schedule_change_back(chat: Transcript) -> None:
    await chat.as_("mod!", '/schedule cron="0 18 * * FRI"')
    await chat.say("/undo")
    assert (await chat.say("/schedule")).endswith('top 10 at "0 9 * * MON" (UTC) into this '
                                                  "chat; next post: Mon, Mar 4 09:00 UTC.")


async def play_a_week(chat: Transcript) -> None:
    """Three members and a week of games on Shogi Club 24's rule (see the module docstring)."""
    await chat.as_("mod!", "/system shogi24")
    for name in ("alice", "bob", "carol"):
        await chat.as_(name, "/register")
    await chat.as_("mod!", "/report @alice @bob win")  # alice 1516, bob 1484
    chat.clock.current = datetime(2024, 3, 5, 19, 0)  # after Monday's post
    await chat.as_("mod!", "/report @bob @carol win")  # +16 + 0.04 * 16 = 17: 1501, 1483
    chat.clock.current = datetime(2024, 3, 6, 19, 0)
    await chat.as_("dave", "/register")
    await chat.as_("mod!", "/report @carol @alice win")  # +16 + 0.04 * 33 = 17: 1500, 1499
    await chat.as_("mod!", "/set inactivity_days 10")


async def test_the_digest_of_a_week(chat: Transcript) -> None:
    await play_a_week(chat)
    chat.clock.current = datetime(2024, 3, 11, 9, 0)
    digest = await chat.service.digest(CONSOLE, since=datetime(2024, 3, 4, 9, 0))
    assert digest == Digest(
        ladder="main",
        since="2024-03-04T09:00",
        rows=[DigestRow(Standing(1, "bob", 1501, False, None, 2), 17),
              DigestRow(Standing(2, "carol", 1500, False, None, 2), 0),
              DigestRow(Standing(3, "dave", 1500, False, None, 0), None),
              DigestRow(Standing(4, "alice", 1499, False, None, 2), -17)],
        climbers=[RatingChange("bob", 1484, 1501)],
        fallers=[RatingChange("alice", 1516, 1499)],
        established=[],
        newcomers=["dave"],
        # retired after 10 days without a game: bob on 15 March 19:00, the others a day later
        retiring=[Retiring("bob", 5), Retiring("alice", 6), Retiring("carol", 6)],
        games=2,
    )
    # /digest in the chat counts from the latest scheduled time (Monday 09:00 UTC).
    chat.clock.current = datetime(2024, 3, 9, 12, 0)
    assert await chat.as_("bob", "/digest") == "\n".join([
        "main ladder, changes since Mon, Mar 4 09:00 UTC",
        "  1. bob         1501    +17  2 games",
        "  2. carol       1500      0  2 games",
        "  3. dave        1500    new  0 games",
        "  4. alice       1499    -17  2 games",
        "Climbers: bob +17",
        "Fallers: alice -17",
        "New: dave",
        "Retired soon without a game: bob (7 d)",  # the others have 7 d 7 h left
        "Games played: 2",
    ])


async def test_the_digest_names_players_who_became_established(chat: Transcript) -> None:
    # Edition 1's rule counts provisional games: two make a player established.
    await chat.as_("mod!", "/system club uncertainty=games provisional_games=2")
    for name in ("ann", "ben", "cid"):
        await chat.as_(name, "/register")
    await chat.as_("mod!", "/report @ann @ben win")
    chat.clock.current = datetime(2024, 3, 5, 19, 0)
    await chat.as_("mod!", "/report @ann @cid draw")
    digest = await chat.service.digest(CONSOLE, since=datetime(2024, 3, 4, 9, 0))
    assert isinstance(digest, Digest)
    assert digest.established == ["ann"]  # her second game; ben and cid have one each
    [ann] = [row.standing for row in digest.rows if row.standing.name == "ann"]
    assert not ann.provisional


async def test_results_are_announced_when_the_ladder_announces(chat: Transcript) -> None:
    await chat.as_("mod!", "/system shogi24")
    for name in ("alice", "dave", "carol"):
        await chat.as_(name, "/register")
    # Nine wins of alice: the gap grows 32, 62, 90, 114, 136, 158, 178, 196, 212.
    for _ in range(9):
        await chat.as_("mod!", "/report @alice @dave win")
    # Off by default: the upset goes unannounced (and is taken back).
    assert await chat.as_("mod!", "/report @dave @alice win") == "\n".join([
        "Game #10 recorded: dave beat alice.", "dave: 1394 -> 1418", "alice: 1606 -> 1582"])
    await chat.say("/undo")  # previews the ratings it moves back
    await chat.say("/apply")
    await chat.say("/set announce=yes")
    assert await chat.as_("dave", "/report @alice win") == (
        "Game #11: dave beat alice. alice, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "dave: +24 / +8 / -8 (win 24%)\nalice: +8 / -8 / -24 (win 76%)")
    assert await chat.as_("alice", "/confirm") == "\n".join([
        "Game #11 confirmed: dave beat alice.",
        "dave: 1394 -> 1418",  # 16 + 0.04 * 212 = 24.48, rounded 24
        "alice: 1606 -> 1582",
        "Upset on main: dave beat alice, rated 212 higher!",
    ])
    # A new personal best counts from a player's second game: carol beats dave (1418) for
    # +16 + 0.04 * -82 = 12.72, rounded 13: 1513, no best yet; again (dave 1405) for
    # +16 + 0.04 * -108 = 11.68, rounded 12: 1525, above her 1513.
    first = await chat.as_("mod!", "/report @carol @dave win")
    assert first.endswith("carol: 1500 -> 1513\ndave: 1418 -> 1405")
    assert (await chat.say("/report @carol @dave win")).endswith(
        "carol: 1513 -> 1525\ndave: 1405 -> 1393\n"
        "New personal best on main: carol reaches 1525!")


async def test_an_auto_confirmed_upset_is_posted_by_the_scheduler(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db", FRIDAY) as chat:
        await chat.as_("mod!", "/system shogi24")
        for name in ("alice", "dave"):
            await chat.as_(name, "/register")
        for _ in range(9):
            await chat.as_("mod!", "/report @alice @dave win")
        await chat.as_("mod!", "/set announce yes")
        await chat.as_("mod!", "/schedule channel=-100999")
        await chat.as_("dave", "/report @alice win")  # alice never answers
        recorder = Recorder()
        scheduler = ScheduledPosts(chat.service, chat.service._repository,  # noqa: SLF001
                                  {"console": recorder}, chat.clock, ChatPosts(),
                                  pictures=False)
        chat.clock.advance(hours=25)  # past auto_confirm_hours (24)
        await asyncio.gather(*await scheduler.poll())
        assert recorder.posts == [
            ("-100999", "Upset on main: dave beat alice, rated 212 higher!", None)]
        await asyncio.gather(*await scheduler.poll())
        assert len(recorder.posts) == 1


async def test_through_telegram_a_moderator_schedules_and_the_post_is_a_card(
    tmp_path: Path
) -> None:
    async with running_bot(tmp_path / "club.db") as bot:
        tg = bot.tg
        ada, bob = tg.user(1, "Ada", "ada"), tg.user(2, "Bob", "bob")
        group = tg.group(-1001, "Chess club", admins=[ada])
        assert (await say(bot, group, bob, "/schedule")).plain == text("moderators_only")
        await say(bot, group, bob, "/register")
        answer = await say(bot, group, ada, '/schedule cron="0 18 * * FRI" tz=Europe/Berlin')
        assert answer.plain == (
            "Schedule of main set.\n"
            'top 10 at "0 18 * * FRI" (Europe/Berlin) into this chat; '
            "next post: Fri, Mar 8 18:00 CET.")
        # The bot's scheduler, with the leaderboard card, posting through Telegram.
        publisher = TelegramPublisher(bot.app.bot)
        scheduler = ScheduledPosts(bot.service, bot.service._repository,  # noqa: SLF001
                                  {"telegram": publisher}, bot.clock, ChatPosts())
        bot.clock.current = datetime(2024, 3, 8, 17, 0)  # 18:00 CET
        await asyncio.gather(*await scheduler.poll())
        photo = await tg.reply(group)
        assert photo.kind == "photo" and photo.size is not None and photo.size > 1000
        [(method, params)] = [c for c in tg.calls if c[0] == "sendPhoto"]
        assert params["photo"][:8] == b"\x89PNG\r\n\x1a\n"
        assert photo.plain == "\n".join([
            "main ladder, changes since Fri, Mar 1 18:00 CET",  # the posts' zone
            "  1. bob      1500?    new  0 games",
            "New: bob",
            "Games played: 0",
        ])
        assert photo.parse_mode == "HTML" and photo.text is not None
        assert photo.text.startswith("<pre>")
        # A one-line announcement goes as a plain message.
        await publisher.publish(str(group.id), "Upset on main: bob beat ada, rated 200 higher!")
        message = await tg.reply(group)
        assert (message.kind, message.plain) == (
            "send", "Upset on main: bob beat ada, rated 200 higher!")


async def test_the_console_prints_posts_and_saves_their_pictures(tmp_path: Path) -> None:
    out = io.StringIO()
    publisher = ConsolePublisher(out, tmp_path)
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
    await publisher.publish("local", "main ladder\n  1. bob  1500",
                            Picture(png, "leaderboard-main.png", "Leaderboard of main"))
    saved = tmp_path / "leaderboard-main.png"
    assert out.getvalue() == f"main ladder\n  1. bob  1500\n(picture saved to {saved})\n"
    assert saved.read_bytes() == png
