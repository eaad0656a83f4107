"""The clubs the process-level tests start ``clubrating run`` for, written once for every test
module: a Telegram group on the fake Bot API (:class:`TelegramChat`) and a Discord server on the
fake Discord (:class:`DiscordServer`), each with ada, who runs it (a moderator), and with the
clock and the folder (database, log) of the bot serving it; and what members do there (say a
command, press a button) and see (the bot's answer, its posts).

A test module that needs more members subclasses them with a field each (``alice: User``); the
clubs of the journeys, ada with alice, bob and carol, are :class:`TelegramClub` and
:class:`DiscordClub`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from tests.fake_discord import MANAGE_GUILD, FakeDiscord, Guild, Member
from tests.fake_discord import TOKEN as DISCORD_TOKEN
from tests.fake_discord import Output as DiscordOutput
from tests.fake_telegram import TOKEN as TELEGRAM_TOKEN
from tests.fake_telegram import Chat, FakeTelegram, User
from tests.fake_telegram import Output as TelegramOutput

from .process import Bot, FakeClock, clubrating, environment

#: sends into a group a test lets the bot make in one minute: Telegram's 20, less two for a
#: command answered twice
SENDS_IN_A_MINUTE = 18
#: the club's Telegram group
GROUP = -1001
#: the club's Discord server
GUILD = 900000000000000001
#: a Friday evening, two days before the Sunday of the weekly post: every club's clock starts here
FRIDAY = datetime(2026, 11, 20, 18, 0)


def telegram_variables(tg: FakeTelegram, token: str = TELEGRAM_TOKEN) -> dict[str, str]:
    """The variables that point ``clubrating`` at the fake Bot API ``tg``, with ``token``
    (the one ``tg`` takes, unless a test wants it refused)."""
    return {"TELEGRAM_TOKEN": token, "TELEGRAM_BASE_URL": f"{tg.url}/bot"}


def discord_variables(dc: FakeDiscord, token: str = DISCORD_TOKEN) -> dict[str, str]:
    """The variables that point ``clubrating`` at the fake Discord ``dc``, with ``token``; the
    server to serve (``DISCORD_GUILD_ID``) is not among them."""
    return {"DISCORD_TOKEN": token, "DISCORD_API_BASE": dc.api_base,
            "DISCORD_GATEWAY_URL": dc.gateway_url}


def telegram_bot(tg: FakeTelegram, folder: Path, clock: FakeClock | None,
                 **variables: str) -> Bot:
    """``clubrating run`` (not started yet) on the fake Bot API ``tg``, its database and log in
    ``folder``, its time ``clock``'s, and ``variables`` besides."""
    env = environment(folder, clock, **telegram_variables(tg), **variables)
    return Bot(env, folder / "bot.log")


def clubrating_output(bot: Bot, *args: str) -> str:
    """``clubrating ARGS`` on ``bot``'s database and clock, to its successful end; its output."""
    done = clubrating(bot.env, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def button(message: TelegramOutput | DiscordOutput, label: str) -> str:
    """What pressing the button labelled ``label`` sends: its callback data on Telegram, its
    custom id on Discord."""
    found = [data for row in message.buttons for shown, data in row if shown == label]
    assert found and found[0] is not None, f"no {label!r} button in {message.buttons}"
    return found[0]


# -- Telegram ---------------------------------------------------------------------------------


def chess_club(tg: FakeTelegram, ada: User) -> Chat:
    """The club's group on ``tg``: ``ada`` created it and is its administrator, so the bot
    takes her for a moderator."""
    return tg.group(GROUP, "Chess club", admins=[ada], creator=ada)


@dataclass
class TelegramChat:
    """The club's group on the fake Bot API, and the clock and folder of the bot serving it.

    No ``press`` here: what a press is seen by differs (the message as it left it, or the bot's
    answer to the press itself), so each subclass presses its own way."""

    tg: FakeTelegram
    clock: FakeClock
    folder: Path
    group: Chat
    ada: User  # the group's administrator: a moderator
    #: the bot's sends into the group when its latest minute began (:meth:`say`)
    _minute_began: int = field(default=0, init=False, repr=False)

    @classmethod
    def founded(cls, tg: FakeTelegram, folder: Path, ada: User, *members: User) -> Self:
        """The club whose group ``ada`` founded on ``tg`` (``members``: a subclass's further
        fields), its bot's database and log in ``folder``, its clock on FRIDAY."""
        return cls(tg, FakeClock(folder, FRIDAY), folder, chess_club(tg, ada), ada, *members)

    def bot(self, **variables: str) -> Bot:
        return telegram_bot(self.tg, self.folder, self.clock, **variables)

    def shell(self, *args: str) -> str:
        """A ``clubrating`` subcommand on the same database and clock; its output."""
        return clubrating_output(self.bot(), *args)

    async def say(self, user: User, line: str, timeout: float = 10.0,
                  **how: Any) -> TelegramOutput:
        """``user`` sends ``line`` (``mention=``, ``reply_to=`` as the fake takes them); the
        bot's answer in the group."""
        await self._minute_of_the_group()
        await self.tg.send(self.group, user, line, **how)
        return await self.tg.reply(self.group, timeout)

    async def _minute_of_the_group(self) -> None:
        """The bot sends at most 20 messages a minute into a group (Telegram's limit, kept by
        the bot: issue 41), so a member who says more waits for the next minute's answers: a
        test lets that minute go by on the clock before its answer would be held back."""
        sent = sum(1 for _, chat in self.tg.flood_control.sends if chat == self.group.id)
        if sent - self._minute_began >= SENDS_IN_A_MINUTE:
            await self.clock.skip(60)
            self._minute_began = sent

    async def press_answer(self, user: User, message: TelegramOutput, data: str,
                           chat: Chat | None = None, strict: bool = True) -> dict[str, Any]:
        """``user`` presses a button of ``message`` (``strict=False``: one it may no longer
        show); the bot's answer to the press itself (answerCallbackQuery)."""
        seen = len(self.tg.callback_answers)
        await self.tg.press(chat or self.group, user, message, data, strict=strict)
        for _ in range(1000):
            if len(self.tg.callback_answers) > seen:
                return self.tg.callback_answers[seen]
            await asyncio.sleep(0.01)
        raise AssertionError(f"the bot did not answer the press of {data!r}")

    async def register(self, *users: User) -> None:
        """Each of ``users`` registers under their @username, and is welcomed."""
        for user in users:
            answer = await self.say(user, "/register")
            assert answer.plain.startswith(f"Welcome, {user.username}"), answer.plain

    async def next_posts(self, count: int) -> list[TelegramOutput]:
        """The next ``count`` posts in the group; fails if one does not come within a minute."""
        return [await self.tg.reply(self.group, 60.0) for _ in range(count)]


@dataclass
class TelegramClub(TelegramChat):
    """The club of the journeys: ada runs the group, alice, bob and carol play."""

    alice: User
    bob: User
    carol: User

    @classmethod
    def on(cls, tg: FakeTelegram, folder: Path) -> Self:
        """The club on ``tg``, its bot's database and log in ``folder``, its clock on FRIDAY."""
        return cls.founded(tg, folder, tg.user(1, "Ada", "ada"), tg.user(2, "Alice", "alice"),
                           tg.user(3, "Bob", "bob"), tg.user(4, "Carol", "carol"))

    async def press(self, user: User, message: TelegramOutput, data: str) -> TelegramOutput:
        """Press a button of ``message``; the message as the press left it."""
        await self.tg.press(self.group, user, message, data)
        return await self.tg.reply(self.group, 10.0)

    async def rate_alice_285_above_bob(self) -> None:
        """alice, bob and carol, with alice 285 points above bob (1673 and 1388, newcomers by
        deviation: three wins over bob and two over carol, games a moderator recorded)."""
        await self.register(self.alice, self.bob, self.carol)
        for line in ["/report @alice @bob win"] * 3 + ["/report @alice @carol win"] * 2:
            assert "recorded" in (await self.say(self.ada, line)).plain


# -- Discord ----------------------------------------------------------------------------------


def mention(member: Member) -> str:
    """``member`` as a mention typed into a command's text: ``<@id>``."""
    return f"<@{member.user.id}>"


def chess_server(dc: FakeDiscord, managers_may: int = MANAGE_GUILD) -> tuple[Guild, Member]:
    """The club's server on ``dc``, and ada: she has its Managers role, which may do
    ``managers_may`` (Manage Server makes her a moderator)."""
    guild = dc.guild(GUILD, "Chess club", owner=dc.user(900000000000000100, "owner"))
    managers = dc.role(guild, 900000000000000201, "Managers", managers_may)
    return guild, dc.member(guild, dc.user(900000000000000300, "ada"), managers)


@dataclass
class DiscordServer:
    """The club's server on the fake Discord, and the clock and folder of the bot serving it."""

    dc: FakeDiscord
    clock: FakeClock
    folder: Path
    guild: Guild
    ada: Member  # manages the server: a moderator

    def bot(self, **variables: str) -> Bot:
        env = environment(self.folder, self.clock, **discord_variables(self.dc),
                          DISCORD_GUILD_ID=str(GUILD), **variables)
        return Bot(env, self.folder / "bot.log")

    def shell(self, *args: str) -> str:
        """A ``clubrating`` subcommand on the same database and clock; its output."""
        return clubrating_output(self.bot(), *args)

    async def say(self, member: Member, command: str, subcommand: str | None = None, /,
                  **options: Any) -> DiscordOutput:
        """``member`` runs ``/command`` with ``options``; the bot's answer."""
        await self.dc.command(self.guild, member, command, subcommand, **options)
        return await self.dc.output(10.0)

    async def press(self, member: Member, message: DiscordOutput,
                    custom_id: str) -> DiscordOutput:
        """``member`` clicks a button of ``message``; the message as the click left it (or
        the answer only they see)."""
        await self.dc.click(self.guild, member, message, custom_id)
        return await self.dc.output(10.0)

    async def register(self, *members: Member) -> None:
        """Each of ``members`` registers under their username, onto the main ladder."""
        for member in members:
            answer = await self.say(member, "register")
            name = member.user.username
            assert answer.plain == f"Welcome, {name}! You are on the main ladder.", answer.plain

    def posts(self) -> list[DiscordOutput]:
        """Everything the bot posted by itself (not answering anyone) so far."""
        return [output for output in self.dc.log if output.kind == "post"]

    async def next_posts(self, count: int) -> list[DiscordOutput]:
        """The next ``count`` outputs, each a post in the club's channel; fails if one does
        not come within a minute."""
        arrived = [await self.dc.output(60.0) for _ in range(count)]
        for post in arrived:
            assert post.kind == "post", post
            assert int(post.message["channel_id"]) == self.guild.channel.id
        return arrived


@dataclass
class DiscordClub(DiscordServer):
    """The club of the journeys: ada manages the server, alice, bob and carol play."""

    alice: Member
    bob: Member
    carol: Member

    @classmethod
    def on(cls, dc: FakeDiscord, folder: Path, managers_may: int = MANAGE_GUILD) -> Self:
        """The club on ``dc``, its bot's database and log in ``folder``, its clock on FRIDAY;
        ada's Managers role may do ``managers_may``."""
        guild, ada = chess_server(dc, managers_may)
        alice, bob, carol = (dc.member(guild, dc.user(900000000000000301 + n, name))
                             for n, name in enumerate(("alice", "bob", "carol")))
        return cls(dc, FakeClock(folder, FRIDAY), folder, guild, ada, alice, bob, carol)

    async def rate_alice_285_above_bob(self) -> None:
        """alice, bob and carol, with alice 285 points above bob (1673 and 1388, newcomers by
        deviation: three wins over bob and two over carol, games a moderator recorded)."""
        await self.register(self.alice, self.bob, self.carol)
        for loser in [self.bob] * 3 + [self.carol] * 2:
            recorded = await self.say(self.ada, "report", player=self.alice, opponent=loser,
                                      result="win")
            assert "recorded" in recorded.plain, recorded.plain
