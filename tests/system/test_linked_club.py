"""One club on two platforms (issue 35) through ``clubrating run``: one process serving both a
Telegram group on the fake Bot API and a Discord server on the fake Discord, its clock moved
from outside by libfaketime.

The Telegram group has games; the Discord server joins it with a moderator's one-time code
(``/link`` in the group, the code sent to the moderator's private chat; ``/link CODE`` on
Discord, answered ephemerally), and from then on both chats show one ladder. A member's two
accounts become one with ``/link me`` on one platform and ``/link me CODE`` on the other, and
a game reported on one platform is confirmed on the other. Codes are good once, for ten
minutes."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.fake_discord import FakeDiscord, Member
from tests.fake_discord import Output as DiscordOutput
from tests.fake_telegram import TOKEN, FakeTelegram, User

from .clubs import (
    FRIDAY,
    GUILD,
    DiscordClub,
    TelegramClub,
    button,
    discord_variables,
    telegram_variables,
)
from .process import Bot, environment

#: a link code as the bot draws it: 80 random bits in base 32 (RFC 4648's alphabet)
CODE = re.compile(r"Your link code: ([A-Z2-7]{16}) \(good for 10 minutes, once\)\.")
UNKNOWN = "That code is unknown, used or expired. Ask for a new one with /link."


@dataclass
class Linked:
    """The club's Telegram group (ada runs it, alice and bob play there) and a Discord server
    (ada manages it, carol plays there; alice and bob have Discord accounts there too, never
    registered), served by one bot, on one clock and in one folder."""

    telegram: TelegramClub
    discord: DiscordClub
    started: float  # time.monotonic() when the clock was set to FRIDAY

    def bot(self, **variables: str) -> Bot:
        """``clubrating run`` (not started yet) on both fakes at once, with ``variables``
        besides."""
        folder = self.telegram.folder
        env = environment(folder, self.telegram.clock, **telegram_variables(self.telegram.tg),
                          **discord_variables(self.discord.dc), DISCORD_GUILD_ID=str(GUILD),
                          **variables)
        return Bot(env, folder / "bot.log")

    def later(self, minutes: int) -> None:
        """Move the bot's clock ``minutes`` past the time it shows now (FRIDAY and the real
        time since then: a margin, whatever libfaketime counts from)."""
        now = FRIDAY + timedelta(seconds=time.monotonic() - self.started)
        self.telegram.clock.set(now + timedelta(minutes=minutes))

    # -- Telegram

    async def in_group(self, user: User, line: str) -> str:
        """``user`` sends ``line`` in the Telegram group; the bot's answer there."""
        return (await self.telegram.say(user, line)).plain

    # -- Discord

    async def on_discord(self, member: Member, command: str, **options: object) -> DiscordOutput:
        """``member`` runs ``/command`` on the Discord server; the bot's answer."""
        return await self.discord.say(member, command, **options)

    async def ephemeral(self, member: Member, command: str, **options: object) -> str:
        """``member`` runs ``/command``; the answer, which only they see."""
        answer = await self.on_discord(member, command, **options)
        assert (answer.kind, answer.ephemeral) == ("reply", True), answer
        return answer.plain

    async def boards(self) -> tuple[list[str], list[str]]:
        """The main ladder's table as the Telegram group's ``/top`` and the Discord server's
        show it (each without its title line)."""
        telegram = await self.in_group(self.telegram.bob, "/top")
        discord = await self.on_discord(self.discord.carol, "top")
        assert not discord.ephemeral
        return telegram.splitlines()[1:], discord.plain.splitlines()[1:]


@pytest.fixture
async def linked(tmp_path: Path) -> AsyncIterator[Linked]:
    async with FakeTelegram(token=TOKEN) as tg, FakeDiscord() as dc:
        telegram = TelegramClub.on(tg, tmp_path)
        discord = DiscordClub.on(dc, tmp_path)  # the same clock file, set to FRIDAY again
        yield Linked(telegram, discord, time.monotonic())


def code_in(answer: str) -> str:
    """The code a link code's answer shows."""
    found = CODE.match(answer)
    assert found is not None, answer
    return found[1]


async def test_a_telegram_group_and_a_discord_server_become_one_club(linked: Linked) -> None:
    tg, dc = linked.telegram, linked.discord
    bot = await linked.bot().start()
    try:
        # 1. The Telegram group: alice beat bob. The Discord server: carol, no games.
        await tg.register(tg.alice, tg.bob)
        report = await tg.say(tg.alice, "/report @bob win")
        confirmed = await tg.press(tg.bob, report, button(report, "Confirm"))
        assert confirmed.plain.startswith("Game #1 confirmed: alice beat bob."), confirmed.plain
        await dc.register(dc.carol)

        # 2. ada's /link in the group. She never opened a private chat with the bot, so it
        # may not write to her there (the fake answers 403 "bot can't initiate conversation
        # with a user", as Telegram does): the group is told to open it first.
        assert await linked.in_group(tg.ada, "/link") == (
            "Open a private chat with me first (press Start there), then send /link again: "
            "the code is shown to you alone.")
        private = tg.tg.private(tg.ada)  # she opens it
        assert await linked.in_group(tg.ada, "/link") == (
            "I sent you the code in our private chat.")
        [sent] = tg.tg.outputs(private)
        code = code_in(sent.plain)
        assert not any(code in said.plain for said in tg.tg.outputs(tg.group))

        # 3. On Discord only a moderator links the server; ada manages it (Manage Server):
        # /link CODE makes it part of the club, carol with it. Both answers only they see.
        assert await linked.ephemeral(dc.carol, "link", arguments=code) == (
            "Only moderators can do that.")
        assert await linked.ephemeral(dc.ada, "link", arguments=code) == (
            "This chat is now part of the club: one ladder, one log. "
            "1 member joined from here.")

        # 4. One ladder: the same table in both chats.
        assert await linked.boards() == 2 * ([
            "  1. alice      1553?  1 game",
            "  2. carol      1500?  0 games",
            "  3. bob        1447?  1 game"],)

        # 5. A game across platforms: reported in one chat, confirmed in the other. On
        # Telegram a typed @carol names the club's member carol (her handle, which came along
        # from Discord); on Discord the member picker offers the server's members alone, and
        # /report's ``name`` option names one who is not there (test_linked_merge.py). The
        # report is posted into carol's chat too, with its buttons; she answers with /confirm
        # there. A game reported on Discord and confirmed on Telegram follows
        # in 6, once alice's accounts are one.
        reported = await linked.in_group(tg.bob, "/report @carol loss")
        asked = "Game #2: carol beat bob. carol, please /confirm or /dispute."
        assert reported.startswith(asked), reported
        [post] = await dc.next_posts(1)
        assert post.plain.startswith(asked) and button(post, "Confirm"), post.plain
        confirmed_there = await linked.on_discord(dc.carol, "confirm")
        assert not confirmed_there.ephemeral
        # carol's first game moves her start half way to bob's 1447 (the club system's
        # newcomers), so a win leaves her below 1500
        assert confirmed_there.plain.splitlines() == [
            "Game #2 confirmed: carol beat bob.", "bob: 1447 -> 1399?",
            "carol: 1500 -> 1487?"], confirmed_there.plain
        assert await linked.boards() == 2 * ([
            "  1. alice      1553?  1 game",
            "  2. carol      1487?  1 game",
            "  3. bob        1399?  2 games"],)

        # 6. alice's Discord account (on the server, never registered) and her Telegram
        # account, with her game, become one member: her Telegram record.
        alices = code_in(await linked.ephemeral(dc.alice, "link", arguments="me"))
        assert await linked.in_group(tg.alice, f"/link me {alices}") == (
            "Linked: both accounts are alice now.")
        rating = await linked.on_discord(dc.alice, "rating")
        assert rating.plain == (
            "alice (main): 1553?, rank 1, 1 game (1W 0D 0L), no peak yet, recent W"), (
            rating.plain)
        # carol picks alice's Discord account in the member picker; the report is posted
        # into the Telegram group too, and alice confirms it there.
        reported_there = await linked.on_discord(dc.carol, "report", opponent=dc.alice,
                                                 result="win")
        asked = "Game #3: carol beat alice. alice, please /confirm or /dispute."
        assert reported_there.plain.startswith(asked), reported_there.plain
        forwarded = await tg.tg.reply(tg.group, 10.0)
        assert forwarded.plain.startswith(asked) and button(forwarded, "Confirm"), (
            forwarded.plain)
        assert (await linked.in_group(tg.alice, "/confirm")).splitlines() == [
            "Game #3 confirmed: carol beat alice.", "carol: 1487 -> 1505?",
            "alice: 1553 -> 1492?"]
        assert await linked.boards() == 2 * ([
            "  1. carol      1505?  2 games",
            "  2. alice      1492?  2 games",
            "  3. bob        1399?  2 games"],)

        # 7. A code is good once, and for ten minutes. The Discord server sending ada's code
        # again is answered as the retry of its own /link it may be (bot/service/club.py,
        # ``link``: the chat joined with it): nothing more joins. Another Telegram group (dora
        # runs it) trying it: refused.
        assert await linked.ephemeral(dc.ada, "link", arguments=code) == (
            "This chat is now part of the club: one ladder, one log. "
            "0 members joined from here.")
        dora = tg.tg.user(5, "Dora", "dora")
        juniors = tg.tg.group(-1002, "Juniors", admins=[dora], creator=dora)

        async def in_juniors(line: str) -> str:
            await tg.tg.send(juniors, dora, line)
            return (await tg.tg.reply(juniors, 10.0)).plain

        assert await in_juniors(f"/link {code}") == UNKNOWN
        assert await linked.in_group(tg.alice, f"/link me {alices}") == UNKNOWN
        # Codes given now and used 11 minutes later: refused, and still refused for a
        # chat that could have joined with it and an account that could have been linked.
        assert await linked.in_group(tg.ada, "/link") == (
            "I sent you the code in our private chat.")
        late = code_in(tg.tg.outputs(private)[-1].plain)
        bobs = code_in(await linked.ephemeral(dc.bob, "link", arguments="me"))
        linked.later(11)
        await asyncio.sleep(2)  # libfaketime reads its file again within a second
        assert await in_juniors(f"/link {late}") == UNKNOWN
        assert await linked.in_group(tg.bob, f"/link me {bobs}") == UNKNOWN
        # fresh ones do it
        bobs = code_in(await linked.ephemeral(dc.bob, "link", arguments="me"))
        assert await linked.in_group(tg.bob, f"/link me {bobs}") == (
            "Linked: both accounts are bob now.")
        assert await linked.in_group(tg.ada, "/link") == (
            "I sent you the code in our private chat.")
        fresh = code_in(tg.tg.outputs(private)[-1].plain)
        assert await in_juniors(f"/link {fresh}") == (
            "This chat is now part of the club: one ladder, one log. "
            "0 members joined from here.")
        assert len(tg.tg.outputs(private)) == 3  # ada's three codes, nothing else
        assert tg.tg.errors == [("sendMessage", 403, "Forbidden: bot can't initiate "
                                 "conversation with a user")]
        assert dc.dc.errors == [] and dc.dc.pending_outputs() == 0
    finally:
        assert await bot.stop() == 0


async def test_each_chat_gets_its_weekly_post_in_its_own_zone_and_language(
        linked: Linked) -> None:
    """Issue 35 (ERRATA): "each chat's posting schedule is its own". The Telegram group's
    ladder posts on Sundays at 18:00 in London; the Discord server that joined the club sets
    its own time zone (Tokyo) and language (Japanese) there. Each chat gets its post at 18:00
    in its own zone: the server's in Japanese, dated in Tokyo, the group's in English."""
    tg, dc = linked.telegram, linked.discord
    bot = await linked.bot().start()
    try:
        await tg.register(tg.alice, tg.bob)
        await dc.register(dc.carol)
        tg.tg.private(tg.ada)
        assert await linked.in_group(tg.ada, "/link") == (
            "I sent you the code in our private chat.")
        code = code_in(tg.tg.outputs(tg.tg.private(tg.ada))[-1].plain)
        assert (await linked.ephemeral(dc.ada, "link", arguments=code)).startswith(
            "This chat is now part of the club")
        # the club's own chat sets its ladder's schedule and zone, as in a club of one chat
        assert (await linked.in_group(tg.ada, '/schedule cron="0 18 * * SUN"')).startswith(
            "Schedule of main set")
        assert await linked.in_group(tg.ada, "/set timezone Europe/London") == (
            "timezone of main is now Europe/London.")
        # the server's moderator sets the server's own, and is told it is the server's
        zone = await linked.on_discord(dc.ada, "set", key="timezone", value="Asia/Tokyo")
        assert zone.plain == (
            "This chat's own time zone is now Asia/Tokyo: its scheduled posts come and are "
            "dated in it. The club's ladders keep theirs."), zone.plain
        language = await linked.on_discord(dc.ada, "set", key="language", value="ja")
        assert language.plain == (  # said in it already
            "このチャット独自の言語を ja にしました。ここでの返答と投稿はこの言語になります。"
            "クラブの言語は変わりません。"), language.plain
        assert (await linked.on_discord(dc.carol, "top")).plain.startswith("ラダー main")
        assert (await linked.in_group(tg.bob, "/top")).startswith("main ladder")
        said = len(tg.tg.outputs(tg.group))

        # Sunday 18:00 in Tokyo (09:00 UTC): the server's post, in Japanese; none in the group
        tg.clock.set(datetime(2026, 11, 22, 8, 59, 45))
        [tokyo] = await dc.next_posts(1)
        await bot.wait_log(r"post of discord:\d+ main scheduled for 2026-11-22T09:00:00 "
                           r"claimed")
        assert tokyo.plain.splitlines()[0] == "ラダー main、11月15日(日) 18:00 JST 以降の変化", (
            tokyo.plain)
        await asyncio.sleep(3)
        assert len(tg.tg.outputs(tg.group)) == said

        # Sunday 18:00 in London (18:00 UTC): the group's post, in English; none more there
        tg.clock.set(datetime(2026, 11, 22, 17, 59, 45))
        [london] = await tg.next_posts(1)
        await bot.wait_log(r"post of telegram:-1001 main scheduled for 2026-11-22T18:00:00 "
                           r"claimed")
        assert london.plain.splitlines()[0] == (
            "main ladder, changes since Sun, Nov 15 18:00 GMT"), london.plain
        await asyncio.sleep(3)
        assert dc.dc.errors == [] and dc.dc.pending_outputs() == 0
        assert len(tg.tg.outputs(tg.group)) == said + 1
    finally:
        assert await bot.stop() == 0
