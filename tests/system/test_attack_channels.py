"""The bot posts only where the person asking runs the chat, through ``clubrating run``: an
administrator of one group names another chat for the weekly post (``/schedule channel=``).

- Telegram: a chat where they are nobody, a chat the bot is not in, a channel where the bot may
  not post: each refused, saying which check fails, and nothing stored; a channel they run
  where the bot is an administrator is accepted and receives the post. When the bot is later
  removed from it, the next post is refused by Telegram: the schedule pauses and the group is
  told, once.
- Discord: a channel of another server is refused; a channel of the club's server where the
  member lacks Manage Channels is refused; one they manage is accepted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from tests.fake_discord import MANAGE_GUILD, FakeDiscord
from tests.fake_telegram import TOKEN, FakeTelegram

from .clubs import DiscordClub, TelegramClub

SUNDAY_MORNING = datetime(2026, 11, 22, 7, 59, 50)
NEXT_SUNDAY_MORNING = datetime(2026, 11, 29, 7, 59, 50)
THE_SUNDAY_AFTER = datetime(2026, 12, 6, 7, 59, 50)
CHANNEL = -1008888
MANAGE_CHANNELS = 1 << 4  # Discord's permission bit


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[TelegramClub]:
    async with FakeTelegram(token=TOKEN) as tg:
        club = TelegramClub.on(tg, tmp_path)
        stranger = tg.user(9, "Stranger", "stranger")
        tg.group(-1007777, "Someone else's group", admins=[stranger], creator=stranger)
        tg.group(CHANNEL, "Ada's channel", admins=[club.ada], creator=club.ada, type="channel")
        tg.group(-1009999, "Ada's quiet channel", creator=club.ada, bot_admin=False,
                 type="channel")
        yield club


async def test_telegram_posts_only_where_the_moderator_runs_the_chat(club: TelegramClub) -> None:
    bot = await club.bot().start()
    await club.rate_alice_285_above_bob()
    refusals = {
        "-1007777": "Only those who run -1007777 may have the leaderboard posted there.",
        "-1005555": "I cannot see the chat -1005555: add me to it first (in a channel, as an "
                    "administrator who may post).",
        "-1009999": "I may not post in -1009999: give me the right to send messages there, "
                    "then try again.",
    }
    for channel, refusal in refusals.items():
        assert (await club.say(club.ada, f"/schedule channel={channel}")).plain == refusal
    assert "into this chat" in (await club.say(club.ada, "/schedule show")).plain
    accepted = await club.say(
        club.ada, f'/schedule channel={CHANNEL} cron="0 9 * * SUN" tz=Europe/Berlin')
    assert f"into chat {CHANNEL}" in accepted.plain, accepted.plain

    # Sunday 09:00 in Berlin: the post goes into the channel.
    club.clock.set(SUNDAY_MORNING)
    post = await club.tg.reply(CHANNEL, 60.0)
    assert post.kind == "photo" and "alice" in post.plain

    # The bot is removed from the channel; the next Sunday's post is refused by Telegram: the
    # schedule pauses and the group is told, once.
    club.tg._chats[CHANNEL].bot_left = True  # noqa: SLF001 - the fake has no public kick
    club.clock.set(NEXT_SUNDAY_MORNING)
    told = await club.tg.reply(club.group, 60.0)
    assert told.plain.startswith("Scheduled posts of main are paused: Telegram refused the "
                                 f"post to {CHANNEL} (Forbidden: bot is not a member"), told.plain
    await bot.wait_log("schedule paused")
    club.clock.set(THE_SUNDAY_AFTER)
    await bot.wait_log(r"scheduled posts: \d+ plans")
    shown = (await club.say(club.ada, "/schedule show")).plain
    assert "next post: none (paused)" in shown, shown
    assert await bot.stop() == 0
    assert "scheduled for 2026-12-06" not in bot.text()
    assert len(club.tg.outputs(CHANNEL)) == 1


async def test_discord_posts_only_into_a_channel_of_the_club_the_member_manages(
        tmp_path: Path) -> None:
    async with FakeDiscord() as dc:
        club = DiscordClub.on(dc, tmp_path, managers_may=MANAGE_GUILD | MANAGE_CHANNELS)
        guild, ada = club.guild, club.ada
        # a moderator of the club (Manage Server) who does not manage its channels
        deputies = dc.role(guild, 900000000000000202, "Deputies", MANAGE_GUILD)
        deputy = dc.member(guild, dc.user(900000000000000309, "deputy"), deputies)
        other = dc.guild(900000000000000002, "Another server",
                         owner=dc.user(900000000000000101, "someone"))
        bot = await club.bot().start()
        try:
            foreign = other.channel.id
            refused = await club.say(ada, "schedule", arguments=f"channel={foreign}")
            assert refused.ephemeral, refused
            assert refused.plain == f"{foreign} is not a text channel of this server."
            own = guild.channel.id
            refused = await club.say(deputy, "schedule", arguments=f"channel={own}")
            assert refused.plain == (f"Only those who run {own} may have the leaderboard "
                                     "posted there.")
            shown = await club.say(ada, "schedule", arguments="show")
            assert "into this chat" in shown.plain, shown.plain
            accepted = await club.say(ada, "schedule", arguments=f"channel=<#{own}>")
            assert f"into chat {own}" in accepted.plain, accepted.plain
        finally:
            assert await bot.stop() == 0
