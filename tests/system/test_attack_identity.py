"""Attacks on who is who, through ``clubrating run`` as a club runs it (issue 21): against the
fake Bot API and the fake Discord, a process started with environment variables alone, its
clock moved from outside by libfaketime.

A member is the platform's user id, never a name that looks like one: a Telegram text mention
or reply, a Discord member picked or mentioned as ``<@id>``, names the member by id alone; a
typed ``@name`` names by display name or @username alone. A button pressed outside a club's
chat makes no club, and buttons count against the rate limit as commands do (moderators at a
higher rate, not none)."""

from __future__ import annotations

import csv
import io
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.chat.messages import text
from bot.chat.ratelimit import MODERATOR_FACTOR
from bot.service.events import Kind
from tests.fake_discord import FakeDiscord, Member
from tests.fake_telegram import TOKEN, Chat, FakeTelegram, Output, User

from .clubs import FRIDAY, GROUP, DiscordServer, TelegramChat, button, chess_server
from .process import FakeClock

#: alice's Telegram user id, and Mallory's Telegram first name
ALICE_ID = 1001
#: the rate limit of the bot in the tests of it: 3 a minute for members, 15 for moderators
RATE = 3


# -- Telegram ---------------------------------------------------------------------------------


@dataclass
class Club(TelegramChat):
    alice: User  # user id 1001
    bob: User
    mallory: User  # first name "1001", no @username

    async def press(self, user: User, message: Output, data: str,
                    chat: Chat | None = None) -> dict[str, Any]:
        """Press a button of ``message`` (as shown or not); the bot's answer to the press."""
        return await self.press_answer(user, message, data, chat, strict=False)


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    async with FakeTelegram(token=TOKEN) as tg:
        yield Club.founded(tg, tmp_path, tg.user(1, "Ada", "ada_admin"),
                           tg.user(ALICE_ID, "Alice", "alice"), tg.user(3, "Bob", "bobby_b"),
                           tg.user(66, str(ALICE_ID)))


async def test_telegram_mentions_and_replies_name_members_by_id_not_by_a_lookalike_name(
        club: Club) -> None:
    """Mallory (user id 66, first name "1001", no @username) registers as Mallory. A text
    mention of alice (user id 1001) and a reply to alice's message name alice. A typed
    ``@1001`` is a name, never a user id: here it names nobody and is refused, because no
    member is shown as "1001" (Mallory chose another name) and "1001" - a number, not a
    Telegram @username - was never kept as Mallory's handle. (Had a member been shown as
    "1001", the typed @1001 would name that member, as any typed name does; it can never reach
    alice through her id.)"""
    bot = await club.bot().start()
    try:
        assert (await club.say(club.alice, "/register")).plain == text(
            "registered", name="alice", ladder="main")
        assert (await club.say(club.mallory, "/register Mallory")).plain == text(
            "registered", name="Mallory", ladder="main")

        named = await club.say(club.ada, "/moderator add", mention=club.alice)
        assert named.plain == "alice is now a moderator of the club."
        hello = await club.tg.send(club.group, club.alice, "good morning")
        replied_to = club.tg.updates[hello]["message"]["message_id"]
        retired = await club.say(club.ada, "/retire", reply_to=replied_to)
        assert retired.plain == "alice is retired from main."

        for typed in ("/moderator remove @1001", "/return @1001", "/rating @1001"):
            refused = await club.say(club.ada, typed)
            assert refused.plain == text("unknown_member", name="1001"), typed
        # Mallory was never made a moderator, nor retired.
        assert (await club.say(club.mallory, "/undo")).plain == text("moderators_only")
        board = (await club.say(club.bob, "/top")).plain
        assert "Mallory" in board and "alice" not in board
    finally:
        assert await bot.stop() == 0
    history = club.shell("export", "--chat", f"telegram:{GROUP}")
    rows = [(row["player_a"], row["kind"]) for row in csv.DictReader(io.StringIO(history))]
    assert ("alice", "retire") in rows and ("Mallory", "retire") not in rows


async def test_telegram_a_button_in_a_private_chat_makes_no_club(club: Club) -> None:
    bot = await club.bot().start()
    try:
        private = club.tg.private(club.alice)
        await club.tg.send(private, club.alice, "/help")
        answer = await club.tg.reply(private, 10.0)
        for data in ("t:main:0", "g:confirm:1", "c:accept:1"):
            pressed = await club.press(club.alice, answer, data, chat=private)
            assert pressed.get("text") == text("telegram_button_private"), pressed
            assert pressed.get("show_alert") is True
    finally:
        assert await bot.stop() == 0
    with sqlite3.connect(club.folder / "club.db") as db:
        clubs = db.execute("SELECT platform, chat_id FROM clubs").fetchall()
    assert ("telegram", str(club.alice.id)) not in clubs and clubs == []


async def test_telegram_button_presses_past_the_rate_limit_are_slowed_down(club: Club) -> None:
    # Five minutes a window: longer than the minute a test lets pass once the bot said its 20
    # messages into the group (clubs.SENDS_IN_A_MINUTE), which must not end ada's window.
    bot = await club.bot(CLUBRATING_RATE_LIMIT=f"{RATE}/300").start()
    slow_down = text("rate_limited", seconds=300)
    try:
        await club.say(club.bob, "/register")
        await club.say(club.alice, "/register")  # alice's 1st
        report = await club.say(club.alice, "/report @bobby_b win")  # 2nd
        assert "alice beat bob" in report.plain, report.plain
        confirm = button(report, "Confirm")
        assert data_text(await club.press(club.alice, report, confirm)) != slow_down  # 3rd
        # Pressed again and again: told once, then nothing said and nothing done.
        assert data_text(await club.press(club.alice, report, confirm)) == slow_down
        for _ in range(3):
            assert data_text(await club.press(club.alice, report, confirm)) is None
        # bob is not slowed down by alice: his Confirm counts.
        confirmed = await club.press(club.bob, report, confirm)
        assert data_text(confirmed) != slow_down
        assert "confirmed" in (await club.tg.reply(club.group, 10.0)).plain

        # The administrator may press five times as often as a member, and no more.
        board = await club.say(club.ada, "/top")  # ada's 1st
        for n in range(RATE * MODERATOR_FACTOR - 1):
            assert data_text(await club.press(club.ada, board, "t:main:0")) != slow_down, n
        assert data_text(await club.press(club.ada, board, "t:main:0")) == slow_down
        with pytest.raises(AssertionError, match="said nothing new"):  # told already
            await club.say(club.ada, "/top", timeout=2.0)
    finally:
        assert await bot.stop() == 0


def data_text(answer: dict[str, Any]) -> str | None:
    """What the bot told the presser (None: nothing, the message was edited)."""
    shown = answer.get("text")
    return shown if isinstance(shown, str) else None


# -- Discord ----------------------------------------------------------------------------------


@dataclass
class Server(DiscordServer):
    alice: Member
    bob: Member
    mallory: Member  # her nickname is alice's user id


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with FakeDiscord() as dc:
        guild, ada = chess_server(dc)
        alice = dc.member(guild, dc.user(900000000000000301, "alice"))
        bob = dc.member(guild, dc.user(900000000000000302, "bob"))
        mallory = dc.member(guild, dc.user(900000000000000366, "mallory"),
                            nick=str(alice.id))
        yield Server(dc, FakeClock(tmp_path, FRIDAY), tmp_path, guild, ada, alice, bob,
                     mallory)


async def test_discord_the_member_picker_and_typed_mentions_name_members_by_id(
        server: Server) -> None:
    """Mallory's nickname is alice's user id, and she registers as Mallory. alice picked in
    the member picker, or typed as Discord writes a mention (``<@id>``), is alice; a typed
    ``@<alice's id>`` is only text and names nobody (no member is called that; Mallory's
    handle is her username "mallory", not her nickname)."""
    bot = await server.bot().start()
    try:
        for member, name in ((server.alice, None), (server.bob, None),
                             (server.mallory, "Mallory")):
            shown = name or member.user.username
            answer = await server.say(member, "register", name=name)
            assert answer.plain == text("registered", name=shown, ladder="main"), answer.plain

        named = await server.say(server.ada, "moderator", "add", member=server.alice)
        assert named.plain == "alice is now a moderator of the club."
        recorded = await server.say(server.ada, "report", player=server.alice,
                                    opponent=server.bob, result="win")
        assert "alice beat bob" in recorded.plain, recorded.plain
        retired = await server.say(server.ada, "retire", member=server.alice)
        assert retired.plain == "alice is retired from main."

        # Typed words (a command without a slash command of its own): <@id> is that member.
        chart = await server.say(server.ada, "chart", arguments=f"<@{server.alice.id}>")
        assert chart.files and "alice" in chart.plain and "Mallory" not in chart.plain, chart
        empty = await server.say(server.ada, "chart", arguments=f"<@{server.mallory.id}>")
        assert empty.plain == text("chart_empty", name="Mallory", ladder="main"), empty.plain
        typed = await server.say(server.ada, "chart", arguments=f"@{server.alice.id}")
        assert typed.plain == text("unknown_member", name=str(server.alice.id))
        assert typed.ephemeral
        # Mallory was never made a moderator.
        assert (await server.say(server.mallory, "undo")).plain == text("moderators_only")
        assert server.dc.errors == []
    finally:
        assert await bot.stop() == 0


async def test_discord_button_presses_past_the_rate_limit_are_slowed_down(
        server: Server) -> None:
    bot = await server.bot(CLUBRATING_RATE_LIMIT=f"{RATE}/60").start()
    slow_down = text("rate_limited", seconds=60)
    try:
        await server.say(server.bob, "register")
        await server.say(server.alice, "register")  # alice's 1st
        report = await server.say(server.alice, "report", opponent=server.bob,
                                  result="win")  # 2nd
        confirm = button(report, "Confirm")
        assert (await server.press(server.alice, report, confirm)).plain != slow_down  # 3rd
        refused = await server.press(server.alice, report, confirm)
        assert (refused.plain, refused.ephemeral) == (slow_down, True)
        # The server's manager: five times the rate, then slowed down too.
        for n in range(RATE * MODERATOR_FACTOR):
            answer = await server.say(server.ada, "top")
            assert answer.plain != slow_down, n
        assert (await server.press(server.ada, report, confirm)).plain == slow_down
        assert server.dc.errors == []
    finally:
        assert await bot.stop() == 0


# -- issue 30: forum topics and messages sent as a channel ------------------------------------


@dataclass
class Forum(TelegramChat):
    """The club's group is a forum: its messages live in topics."""

    alice: User
    bob: User
    carol: User  # opens the topic

    def games(self) -> list[tuple[str, str]]:
        """Who played whom, as ``clubrating export`` writes it."""
        history = self.shell("export", "--chat", f"telegram:{GROUP}")
        return [(row["player_a"], row["player_b"]) for row in csv.DictReader(io.StringIO(history))
                if row["kind"] in ("", "game")]


@pytest.fixture
async def forum(tmp_path: Path) -> AsyncIterator[Forum]:
    async with FakeTelegram(token=TOKEN) as tg:
        ada = tg.user(1, "Ada", "ada_admin")
        group = tg.group(GROUP, "Chess club", admins=[ada], creator=ada, forum=True)
        yield Forum(tg, FakeClock(tmp_path, FRIDAY), tmp_path, group, ada,
                    tg.user(2, "Alice", "alice"), tg.user(3, "Bob", "bobby_b"),
                    tg.user(4, "Carol", "carol"))


async def test_telegram_in_a_forum_topic_the_topic_opener_is_named_by_nobody(
        forum: Forum) -> None:
    """Every message in a forum topic answers the topic's creation message (carol opened the
    topic): that is no reply to carol. A moderator's ``/report alice win`` there is ada's own
    game against alice, ``/retire`` names nobody, a member's ``/rating`` is their own. A real
    reply to alice's message inside the topic still names alice."""
    bot = await forum.bot().start()
    try:
        for user in (forum.ada, forum.alice, forum.bob, forum.carol):
            await forum.register(user)
        topic = forum.tg.topic(forum.group, forum.carol, "Friday games")

        async def in_topic(user: User, line: str, reply_to: int | None = None) -> str:
            await forum.tg.send(forum.group, user, line, topic=topic, reply_to=reply_to)
            return (await forum.tg.reply(forum.group, 10.0)).plain

        reported = await in_topic(forum.ada, "/report @alice win")
        assert "ada_admin beat alice" in reported and "carol" not in reported, reported
        assert await in_topic(forum.ada, "/retire") == text(
            "usage", usage=text("help_retire"))
        rating = await in_topic(forum.bob, "/rating")
        assert rating.startswith("bobby_b (main)") and "carol" not in rating, rating

        said = await forum.tg.send(forum.group, forum.alice, "good game!", topic=topic)
        her_message = forum.tg.updates[said]["message"]["message_id"]
        rating = await in_topic(forum.ada, "/rating", reply_to=her_message)
        assert rating.startswith("alice (main)"), rating
        retired = await in_topic(forum.ada, "/retire", reply_to=her_message)
        assert retired == "alice is retired from main.", retired
    finally:
        assert await bot.stop() == 0
    assert all("carol" not in game for game in forum.games()), forum.games()


async def test_telegram_messages_sent_as_a_channel_are_refused_and_make_no_member(
        forum: Forum) -> None:
    """Alice and Bob each post as their own channel: Telegram sends both from its one shared
    channel user. Each message is answered with one sentence; nobody is registered, nothing is
    reported or confirmed, and the two channels are never one member."""
    bot = await forum.bot().start()
    refused = text("telegram_sender_chat")
    try:
        hers = forum.tg.group(-100201, "Alice's channel", type="channel")
        his = forum.tg.group(-100202, "Bob's channel", type="channel")
        for line, who, channel in [("/register", forum.alice, hers), ("/register", forum.bob, his),
                                   ("/report @carol win", forum.alice, hers),
                                   ("/confirm", forum.bob, his), ("/rating", forum.bob, his)]:
            await forum.tg.send(forum.group, who, line, sender_chat=channel)
            assert (await forum.tg.reply(forum.group, 10.0)).plain == refused, line
        assert (await forum.say(forum.ada, "/top")).plain == text(
            "leaderboard_empty", ladder="main")
    finally:
        assert await bot.stop() == 0
    with sqlite3.connect(forum.folder / "club.db") as db:
        kinds = {kind for (kind,) in db.execute("SELECT kind FROM events")}
    assert not kinds & {Kind.MEMBER_REGISTERED, Kind.GAME_REPORTED}, kinds


# -- issue 30: usernames and the moderator role ---------------------------------------------


@dataclass
class Usernames(TelegramChat):
    victoria: User  # registers as "Vicky"; her username becomes victoria_v
    mallory: User  # registers as "victoria_v"
    eve: User
    bob: User  # his username bobby_b, which he gives up and carol takes
    carol: User


@pytest.fixture
async def usernames(tmp_path: Path) -> AsyncIterator[Usernames]:
    async with FakeTelegram(token=TOKEN) as tg:
        yield Usernames.founded(tg, tmp_path, tg.user(1, "Ada", "ada_admin"),
                                tg.user(10, "Victoria", "vicky_old"),
                                tg.user(66, "Mallory", "mallory_m"), tg.user(77, "Eve", "eve_e"),
                                tg.user(3, "Bob", "bobby_b"), tg.user(4, "Carol", "carol_c"))


async def test_telegram_a_typed_username_names_its_current_holder_not_a_member_called_so(
        usernames: Usernames) -> None:
    """Victoria registers as Vicky, Mallory as "victoria_v"; then Victoria's username
    becomes victoria_v (her next update, a /top, says so). The administrator's
    ``/moderator add @victoria_v`` names Victoria, not Mallory; the plain words victoria_v
    could be either and are refused naming both."""
    club = usernames
    bot = await club.bot().start()
    try:
        assert (await club.say(club.victoria, "/register Vicky")).plain == text(
            "registered", name="Vicky", ladder="main")
        assert (await club.say(club.mallory, "/register victoria_v")).plain == text(
            "registered", name="victoria_v", ladder="main")
        club.victoria = club.tg.user(10, "Victoria", "victoria_v")  # she changes her username
        assert "Vicky" in (await club.say(club.victoria, "/top")).plain

        named = await club.say(club.ada, "/moderator add @victoria_v")
        assert named.plain == text("moderator_named", name="Vicky"), named.plain
        assert "named Vicky a moderator" in (await club.say(club.victoria, "/audit")).plain
        assert (await club.say(club.mallory, "/audit")).plain == text("moderators_only")
        plain = await club.say(club.ada, "/moderator remove victoria_v")
        assert plain.plain == text("ambiguous_member", name="victoria_v", first="victoria_v",
                                   second="Vicky"), plain.plain
    finally:
        assert await bot.stop() == 0


async def test_telegram_a_members_username_is_no_name_for_another_and_a_shared_one_is_refused(
        usernames: Usernames) -> None:
    """Once Victoria's current username is victoria_v, nobody else registers as victoria_v.
    Bob registered with the username bobby_b, gave it up without writing since, and carol took
    it: @bobby_b could be either, and is refused naming both."""
    club = usernames
    bot = await club.bot().start()
    try:
        await club.say(club.victoria, "/register Vicky")
        club.victoria = club.tg.user(10, "Victoria", "victoria_v")
        assert "Vicky" in (await club.say(club.victoria, "/rating")).plain
        for name in ("victoria_v", "Victoria_V"):
            refused = await club.say(club.eve, f"/register {name}")
            assert refused.plain == text("name_is_username", name=name, member="Vicky")
        assert (await club.say(club.eve, "/register vicky_old")).plain == text(
            "registered", name="vicky_old", ladder="main")  # no longer anyone's

        await club.say(club.bob, "/register")  # as bobby_b
        club.bob = club.tg.user(3, "Bob", None)
        club.carol = club.tg.user(4, "Carol", "bobby_b")
        assert (await club.say(club.carol, "/register Carol")).plain == text(
            "registered", name="Carol", ladder="main")
        shared = await club.say(club.ada, "/moderator add @bobby_b")
        assert shared.plain == text("ambiguous_member", name="@bobby_b", first="bobby_b",
                                    second="Carol"), shared.plain
        for member in (club.bob, club.carol):
            assert (await club.say(member, "/audit")).plain == text("moderators_only")
    finally:
        assert await bot.stop() == 0
    with sqlite3.connect(club.folder / "club.db") as db:
        moderators = db.execute("SELECT COUNT(*) FROM events WHERE kind = 'moderator_named'")
        assert moderators.fetchone() == (0,)
    db.close()


@dataclass
class Roles(DiscordServer):
    alice: Member  # named moderator by the club
    rhea: Member  # holds Referees, the club's first moderator role
    mallory: Member  # holds Crew, a role without permissions
    referees: int
    crew: int


@pytest.fixture
async def roles(tmp_path: Path) -> AsyncIterator[Roles]:
    async with FakeDiscord() as dc:
        guild, ada = chess_server(dc)
        referees = dc.role(guild, 900000000000000211, "Referees")
        crew = dc.role(guild, 900000000000000212, "Crew")
        alice = dc.member(guild, dc.user(900000000000000301, "alice"))
        rhea = dc.member(guild, dc.user(900000000000000302, "rhea"), referees)
        mallory = dc.member(guild, dc.user(900000000000000366, "mallory"), crew)
        yield Roles(dc, FakeClock(tmp_path, FRIDAY), tmp_path, guild, ada, alice, rhea, mallory,
                    referees.id, crew.id)


async def test_discord_only_a_server_manager_sets_the_moderator_role(roles: Roles) -> None:
    """alice, named moderator by the club, and rhea, holding the club's moderator role, may
    moderate but not set ``moderator_role``: neither can give Mallory's Crew moderator rights,
    nor name her moderator. ada, who manages the server, can: then Crew's holders moderate and
    Referees' no longer do."""
    server = roles
    bot = await server.bot().start()
    try:
        await server.register(server.alice, server.rhea, server.mallory)
        assert "moderator_role" in (await server.say(
            server.ada, "set", key="moderator_role", value=str(server.referees))).plain
        named = await server.say(server.ada, "moderator", "add", member=server.alice)
        assert named.plain == text("moderator_named", name="alice"), named.plain
        assert "named alice" in (await server.say(server.rhea, "audit")).plain  # she moderates

        for member in (server.alice, server.rhea):
            refused = await server.say(member, "set", key="moderator_role",
                                       value=str(server.crew))
            assert (refused.plain, refused.ephemeral) == (text("server_managers_only"), True)
            refused = await server.say(member, "moderator", "add", member=server.mallory)
            assert refused.plain == text("server_managers_only"), refused.plain
        assert (await server.say(server.mallory, "audit")).plain == text("moderators_only")

        changed = await server.say(server.ada, "set", key="moderator_role",
                                   value=str(server.crew))
        assert str(server.crew) in changed.plain, changed.plain
        assert "moderator_role" in (await server.say(server.mallory, "audit")).plain
        assert (await server.say(server.rhea, "audit")).plain == text("moderators_only")
        assert server.dc.errors == []
    finally:
        assert await bot.stop() == 0
