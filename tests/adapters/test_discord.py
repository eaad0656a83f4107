"""Transcripts through the real discord.py client and the fake Discord: slash commands, button
clicks, embeds, moderators, restarts, redelivered interactions and hostile names.

``say(bot, guild, alice, "report", opponent=bob, result="win")`` is alice running the slash
command with those options; the assertion is what the bot answers. ``press(...)`` is a member
clicking a button of an earlier message: the message is edited, or (for someone who may not
click it) an answer only they see arrives and nothing changes.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.adapters.discord import DiscordPublisher
from bot.adapters.discord_render import CONTENT_LIMIT
from bot.app import build_front_ends, serve
from bot.chat.commands import COMMANDS, Command, Context
from bot.chat.messages import text
from bot.chat.ratelimit import RateLimiter
from bot.chat.words import Words
from bot.ops.heartbeat import HEARTBEAT_FILE, Heartbeat, health
from bot.scheduling.publishing import POST_NONCE, Picture
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.service.identity import UserRef
from bot.settings import Settings
from bot.storage.sqlite import SqliteRepository
from tests.chat import START
from tests.discord_harness import (
    Running,
    club_state,
    discord_defaults_kept,
    press,
    running_bot,
    say,
    say_all,
)
from tests.fake_discord import MANAGE_GUILD, TOKEN, FakeDiscord, Guild, Member, Role

GUILD = 900000000000000001
#: a PNG's first bytes are enough for Discord and for the test
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@dataclass
class Club:
    """The chess club's server: ada manages it (Manage Server); rex holds the Referee role,
    which the club may make its moderator role; zed never registers."""

    guild: Guild
    referee: Role
    ada: Member
    rex: Member
    alice: Member
    bob: Member
    carol: Member
    zed: Member


def build_club(dc: FakeDiscord) -> Club:
    guild = dc.guild(GUILD, "Chess club", owner=dc.user(900000000000000100, "owner"))
    managers = dc.role(guild, 900000000000000201, "Managers", MANAGE_GUILD)
    referee = dc.role(guild, 900000000000000202, "Referee")
    people = {name: dc.user(900000000000000300 + n, name)
              for n, name in enumerate(("ada", "rex", "alice", "bob", "carol", "zed"))}
    return Club(guild, referee,
                dc.member(guild, people["ada"], managers),
                dc.member(guild, people["rex"], referee),
                *(dc.member(guild, people[name]) for name in ("alice", "bob", "carol", "zed")))


@pytest.fixture
async def dc() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        yield fake


@pytest.fixture
def club(dc: FakeDiscord) -> Club:
    return build_club(dc)


@pytest.fixture
async def bot(tmp_path: Path, dc: FakeDiscord, club: Club) -> AsyncIterator[Running]:
    async with running_bot(tmp_path / "club.db", dc=dc) as running:
        yield running


async def join(bot: Running, club: Club, *members: Member) -> None:
    for member in members:
        answer = await say(bot, club.guild, member, "register")
        assert answer.plain == text("registered", name=member.user.username, ladder="main")


async def test_a_club_night_with_buttons(bot: Running, club: Club) -> None:
    await join(bot, club, club.alice, club.bob, club.carol)
    profile = await say(bot, club.guild, club.carol, "rating", member=club.alice)
    assert profile.embeds and not profile.ephemeral
    assert profile.plain == "alice (main): 1500?, no games yet."

    challenge = await say(bot, club.guild, club.alice, "challenge", member=club.bob)
    assert challenge.plain.startswith("alice challenges bob (challenge #1, main).")
    assert challenge.buttons == [[("Accept", "c:accept:#1"), ("Decline", "c:decline:#1")]]
    # Carol may not answer a challenge addressed to bob: only she sees why; nothing changes.
    before = await club_state(bot, club.guild)
    refused = await press(bot, club.guild, club.carol, challenge, "c:accept:#1")
    assert refused.kind == "reply" and refused.ephemeral
    assert refused.plain == text("not_your_challenge", challenge=1)
    assert await club_state(bot, club.guild) == before
    accepted = await press(bot, club.guild, club.bob, challenge, "c:accept:#1")
    assert accepted.kind == "update" and accepted.message_id == challenge.message_id
    assert accepted.plain.startswith("bob accepts alice's challenge #1")
    assert accepted.buttons == [] and accepted.embeds == []

    report = await say(bot, club.guild, club.alice, "report", opponent=club.bob, result="win")
    assert report.plain == (
        "Game #1: alice beat bob. bob, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "alice: +53 / 0 / -53 (win 50%)\nbob: +53 / 0 / -53 (win 50%)")
    assert report.embeds and report.buttons == [[("Confirm", "g:confirm:#1"),
                                                 ("Dispute", "g:dispute:#1")]]
    refused = await press(bot, club.guild, club.alice, report, "g:confirm:#1")
    assert refused.ephemeral and refused.plain == text("own_report", game=1, opponent="bob")
    confirmed = await press(bot, club.guild, club.bob, report, "g:confirm:#1")
    assert confirmed.kind == "update" and confirmed.message_id == report.message_id
    lines = confirmed.plain.splitlines()
    assert lines[0] == "Game #1 confirmed: alice beat bob."
    after = dict(re.fullmatch(r"(\w+): 1500 -> (\d+\?)", line).groups()  # type: ignore[union-attr]
                 for line in lines[1:])
    assert int(after["alice"][:-1]) > 1500 > int(after["bob"][:-1])
    assert confirmed.buttons == []

    board = await say(bot, club.guild, club.carol, "top")
    assert board.embeds[0]["description"].startswith("```")
    assert [line.split()[:3] for line in board.plain.splitlines()[1:]] == [
        ["1.", "alice", after["alice"]], ["2.", "carol", "1500?"], ["3.", "bob", after["bob"]]]
    assert bot.dc.errors == []


async def test_a_dispute_and_a_decline_by_button(bot: Running, club: Club) -> None:
    await join(bot, club, club.alice, club.bob)
    challenge = await say(bot, club.guild, club.bob, "challenge", member=club.alice)
    declined = await press(bot, club.guild, club.alice, challenge, "c:decline:#1")
    assert declined.plain == "alice declines bob's challenge #1."
    report = await say(bot, club.guild, club.alice, "report", opponent=club.bob, result="draw")
    disputed = await press(bot, club.guild, club.bob, report, "g:dispute:#1")
    assert disputed.plain == ("Game #1 is disputed: alice drew with bob. A moderator will settle "
                              "it; it waits in their /pending.")
    assert disputed.buttons == []  # the buttons are gone; typing does no better
    again = await say(bot, club.guild, club.bob, "confirm", number=1)
    assert again.ephemeral and again.plain == text("game_disputed", game=1)


async def test_the_leaderboard_pages(bot: Running, club: Club, dc: FakeDiscord) -> None:
    members = [dc.member(club.guild, dc.user(900000000000010000 + n, f"player{n:02d}"))
               for n in range(45)]
    await join(bot, club, *members)
    board = await say(bot, club.guild, club.alice, "top")
    rows = board.plain.splitlines()[1:]
    assert len(rows) == 20 and rows[0].split()[:2] == ["1.", "player00"]
    assert board.buttons == [[("Next »", "t:main:1")]]
    second = await press(bot, club.guild, club.bob, board, "t:main:1")
    assert second.kind == "update"
    assert second.plain.splitlines()[1].split()[:2] == ["21.", "player20"]
    assert second.buttons == [[("« Previous", "t:main:0"), ("Next »", "t:main:2")]]
    last = await press(bot, club.guild, club.bob, board, "t:main:2")
    assert [r.split()[1] for r in last.plain.splitlines()[1:]] == [
        f"player{n}" for n in range(40, 45)]
    assert last.buttons == [[("« Previous", "t:main:1")]]


async def test_moderators_manage_the_server_or_hold_the_club_role(bot: Running,
                                                                  club: Club) -> None:
    await join(bot, club, club.alice, club.bob)
    g = club.guild
    before = await club_state(bot, g)
    for member in (club.alice, club.rex):  # a member; a Referee before the club names the role
        refused = await say(bot, g, member, "report", player=club.alice, opponent=club.bob,
                            result="win")
        assert refused.ephemeral and refused.plain == text("moderators_only")
    refused = await say(bot, g, club.rex, "set", key="moderator_role", role=club.referee)
    assert refused.plain == text("moderators_only")
    assert await club_state(bot, g) == before

    role_set = await say(bot, g, club.ada, "set", key="moderator_role", role=club.referee)
    assert role_set.plain == text("club_setting_set", ladder="main", setting="moderator_role",
                                  value=str(club.referee.id))
    recorded = await say(bot, g, club.rex, "report", player=club.alice, opponent=club.bob,
                         result="win")
    assert recorded.plain.startswith("Game #1 recorded: alice beat bob.")
    recorded = await say(bot, g, club.ada, "report", player=club.bob, opponent=club.alice,
                         result="draw")
    assert recorded.plain.startswith("Game #2 recorded: bob drew with alice.")

    # A correction preview: Cancel, then Apply; nobody else's click counts.
    preview = await say(bot, g, club.rex, "correct", number=1, result="loss")
    assert preview.plain.splitlines()[0] == text("preview", game=1)
    assert preview.buttons == [[("Apply", "x:apply:#1"), ("Cancel", "x:cancel:#1")]]
    refused = await press(bot, g, club.alice, preview, "x:apply:#1")
    assert refused.ephemeral and refused.plain == text("no_preview")
    cancelled = await press(bot, g, club.rex, preview, "x:cancel:#1")
    assert cancelled.plain == text("correction_cancelled", game=1)
    preview = await say(bot, g, club.rex, "correct", number=1, result="loss")
    applied = await press(bot, g, club.rex, preview, "x:apply:#1")
    assert applied.plain.splitlines()[0] == text("applied", game=1)
    history = await say(bot, g, club.alice, "history")
    assert "#1 Mar 1, 2024 bob beat alice" in history.plain

    # The role can be taken back: rex is a member again.
    await say(bot, g, club.ada, "set", key="moderator_role", value="off")
    refused = await say(bot, g, club.rex, "void", number=1)
    assert refused.plain == text("moderators_only")


async def test_every_use_case_is_reachable(bot: Running, club: Club) -> None:
    """Each of the product's commands, as a slash command, does what it does everywhere."""
    tree_names = {c.qualified_name.split()[0] for c in bot.client.tree.walk_commands()}
    assert set(COMMANDS) - {"start"} <= tree_names  # /start is Telegram's greeting (= /help)
    g, ada, alice, bob, carol = club.guild, club.ada, club.alice, club.bob, club.carol

    async def said(member: Member, command: str, sub: str | None = None, /,
                   **options: object) -> str:
        answer = await say(bot, g, member, command, sub, **options)
        assert bot.dc.errors == []
        return answer.plain

    assert await said(alice, "register", name="Alice L", birth="1990-05-01") == text(
        "registered", name="Alice L", ladder="main")
    await join(bot, club, bob, carol)
    assert (await said(ada, "ladder", "create", name="blitz", system="elo",
                       params="k=20")).startswith(
        "Ladder blitz created with the elo system (k=20).")
    assert (await said(ada, "system", name="glicko2", ladder="blitz")).startswith(
        "Ladder blitz now uses glicko2")
    assert await said(ada, "set", key="challenge_hours", value="12") == text(
        "setting_set", ladder="main", setting="challenge_hours", value="12")
    assert (await said(alice, "settings")).startswith("Ladder main: system club")
    assert (await said(alice, "challenge", member=bob)).startswith("Alice L challenges bob")
    assert (await said(bob, "accept", number=1)).startswith("bob accepts Alice L's")
    assert (await said(carol, "challenge", member=bob)).startswith("carol challenges bob")
    assert await said(bob, "decline") == "bob declines carol's challenge #2."
    assert await said(ada, "event", "open", name="night") == text("event_opened", event="night")
    assert (await said(alice, "report", opponent=bob, result="win", handicap="50",
                       colour="white", event="night")).startswith("Game #1: Alice L beat bob")
    assert (await said(bob, "confirm", number=1)).startswith("Game #1 confirmed")
    assert (await said(ada, "event", "close", name="night")).startswith(
        "Event night is closed; its 1 game is rated")
    assert (await said(carol, "report", opponent=bob, result="loss")).startswith("Game #2")
    assert await said(carol, "withdraw") == "Game #2 withdrawn: bob beat carol."
    assert (await said(carol, "report", opponent=alice, result="draw",
                       ladder="blitz")).startswith("Game #3: carol drew with Alice L")
    assert (await said(alice, "pending")).startswith("To confirm or dispute: #3")
    assert await said(alice, "dispute", number=3, reason="we never played") == (
        "Game #3 is disputed: carol drew with Alice L. A moderator will settle it; it waits in "
        "their /pending.")
    assert "#1 Mar 1, 2024 Alice L beat bob, handicap 50, night" in await said(
        bob, "history", member=alice)
    assert (await said(alice, "h2h", member=bob)).startswith("Alice L vs bob (main): 1W 0D 0L")
    assert (await said(alice, "rating", ladder="blitz")).startswith("Alice L (blitz):")
    assert (await said(ada, "correct", number=1, result="draw")).startswith(
        text("preview", game=1))
    assert await said(ada, "cancel") == text("correction_cancelled", game=1)
    await said(ada, "correct", number=1, a=bob, b=alice)
    assert (await said(ada, "apply")).startswith(text("applied", game=1))
    assert (await said(ada, "void", number=1, reason="wrong board")).startswith(
        "Game #1 is now void")
    assert (await said(ada, "restore", number=1)).startswith("Game #1 counts again")
    assert await said(ada, "retire", member=carol) == "carol is retired from main."
    assert await said(ada, "return", member=carol) == "carol is back on main."
    assert await said(ada, "moderator", "add", member=bob) == text("moderator_named",
                                                                   name="bob")
    assert (await said(bob, "audit", entries=3)).count("\n") == 2  # bob moderates now
    assert await said(ada, "moderator", "remove", member=bob) == text("moderator_removed",
                                                                      name="bob")
    assert (await said(ada, "undo")).endswith(" removed bob as a moderator of the club.")
    zed = club.zed
    await join(bot, club, zed)
    # A merge is previewed (what it drops, what it moves), with Apply and Cancel buttons that
    # name the duplicate by its member id.
    preview = await say(bot, g, ada, "merge", duplicate=zed, member=carol)
    assert preview.plain == "\n".join([
        "Merging zed into carol drops no game and would change:", "zed: 1500 -> -"])
    [[(_, apply), (_, cancel)]] = preview.buttons
    member = apply.removeprefix("m:apply:")
    assert (apply, cancel) == (f"m:apply:{member}", f"m:cancel:{member}") and member.isdigit()
    assert await said(alice, "rating", member=zed) == (
        "zed (main): 1500?, no games yet.")
    applied = await press(bot, g, ada, preview, apply)
    assert applied.plain == "\n".join([
        "zed is merged into carol: their games are carol's now. Ratings changed:",
        "zed: 1500 -> -"])
    # zed's account is carol's record now
    assert (await said(alice, "rating", member=zed)).startswith("carol (main): ")
    assert (await said(alice, "help")).startswith(text("help_title"))


async def test_refusals_are_answered_to_the_asker_alone(bot: Running, club: Club) -> None:
    await join(bot, club, club.alice)
    g = club.guild
    before = await club_state(bot, g)
    cases = [
        (club.zed, "rating", {}, text("not_registered")),
        (club.alice, "h2h", {"member": club.zed}, text("unknown_member", name="zed")),
        (club.alice, "report", {"opponent": club.alice, "result": "win"},
         text("not_yourself")),
        (club.alice, "confirm", {}, text("nothing_pending")),
        (club.alice, "top", {"ladder": "nope"}, text("unknown_ladder", ladder="nope",
                                                   ladders="main")),
        (club.alice, "undo", {}, text("moderators_only")),
        (club.ada, "system", {"name": "club", "params": "k"}, text(
            "extra_word", word="k", usage=text("help_system"))),
    ]
    for member, command, options, expected in cases:
        answer = await say(bot, g, member, command, **options)
        assert (answer.ephemeral, answer.plain) == (True, expected), command
    assert await club_state(bot, g) == before


async def test_buttons_work_after_a_restart(tmp_path: Path, dc: FakeDiscord,
                                            club: Club) -> None:
    """The bot stops with a report and a challenge waiting; a new process on the same
    database answers the old messages' buttons."""
    async with running_bot(tmp_path / "club.db", dc=dc) as first:
        await join(first, club, club.alice, club.bob)
        report = await say(first, club.guild, club.alice, "report", opponent=club.bob,
                           result="win")
        challenge = await say(first, club.guild, club.bob, "challenge", member=club.alice)
    async with running_bot(tmp_path / "club.db", dc=dc) as second:
        assert second.client is not first.client
        refused = await press(second, club.guild, club.alice, report, "g:confirm:#1")
        assert refused.plain == text("own_report", game=1, opponent="bob")
        confirmed = await press(second, club.guild, club.bob, report, "g:confirm:#1")
        assert confirmed.kind == "update" and confirmed.plain.startswith(
            "Game #1 confirmed: alice beat bob.")
        accepted = await press(second, club.guild, club.alice, challenge, "c:accept:#1")
        assert accepted.plain.startswith("alice accepts bob's challenge #1")


async def test_an_interaction_delivered_twice_changes_nothing(bot: Running, club: Club) -> None:
    await join(bot, club, club.alice, club.bob)
    interaction = await bot.dc.command(club.guild, club.alice, "report", opponent=club.bob,
                                       result="win")
    first = await bot.dc.output()
    before = await club_state(bot, club.guild)
    await bot.dc.redeliver(interaction)
    pending = await say(bot, club.guild, club.bob, "pending")
    assert pending.plain == "To confirm or dispute: #1 Mar 1, 2024 alice beat bob [pending]"
    assert await club_state(bot, club.guild) == before
    # The second answer to the same interaction was refused by Discord, as it would be.
    assert [e[:2] for e in bot.dc.errors] == [(400, "POST")]
    assert first.plain.startswith("Game #1: alice beat bob.")
    # A click delivered twice confirms once.
    click = await bot.dc.click(club.guild, club.bob, first, "g:confirm:#1")
    assert (await bot.dc.output()).plain.startswith("Game #1 confirmed")
    await bot.dc.redeliver(click)
    history = await say(bot, club.guild, club.alice, "history")
    assert history.plain.count("alice beat bob") == 1


async def test_a_hostile_display_name_pings_nobody(bot: Running, club: Club,
                                                   dc: FakeDiscord) -> None:
    hostile = "Eve @everyone **x** @here `y`"
    eve = dc.member(club.guild, dc.user(900000000000000666, "eve", hostile))
    await join(bot, club, club.alice)
    welcome = await say(bot, club.guild, eve, "register")
    assert welcome.plain == text("registered", name=hostile, ladder="main")
    assert "@everyone" not in welcome.content and "@here" not in welcome.content
    assert "**x**" not in welcome.content  # markdown escaped
    report = await say(bot, club.guild, eve, "report", opponent=club.alice, result="win")
    board = await say(bot, club.guild, club.alice, "top")
    for shown in (welcome, report, board):
        assert shown.allowed_mentions == {"parse": []}
        raw = shown.content + "".join(e.get("description", "") for e in shown.embeds)
        assert not re.search(r"@(everyone|here)", raw), raw
    assert hostile in board.plain and hostile in report.plain


async def test_a_picture_answer_is_an_embed_with_its_png(bot: Running, club: Club,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    async def chart(ctx: Context, words: Words) -> Picture:
        return Picture(PNG, "main.png", "The main ladder, *this week*")

    monkeypatch.setitem(COMMANDS, "top", Command(chart, "help_top", "example_top"))
    answer = await say(bot, club.guild, club.alice, "top")
    assert answer.files == [("main.png", PNG)]
    [embed] = answer.embeds
    assert embed["image"]["url"] == "attachment://main.png"
    assert answer.plain == "The main ladder, *this week*"
    assert answer.message["attachments"][0]["filename"] == "main.png"


async def test_long_answers_come_in_several_messages(bot: Running, club: Club,
                                                     dc: FakeDiscord) -> None:
    members = [dc.member(club.guild, dc.user(900000000000020000 + n,
                                             f"member_with_a_long_name_{n:03d}"))
               for n in range(70)]
    await join(bot, club, *members)
    audit = await say_all(bot, club.guild, club.ada, "audit", entries=100)
    assert [o.kind for o in audit] == ["reply"] + ["followup"] * (len(audit) - 1)
    assert len(audit) > 1 and all(len(o.embeds[0]["description"]) <= 4096 for o in audit)
    assert all(o.embeds[0]["description"].startswith("```") for o in audit)
    lines = [line for o in audit for line in o.plain.splitlines()]
    assert len(lines) == 71 and lines[0].startswith("#71 ")  # 70 joined, the main ladder
    helped = await say_all(bot, club.guild, club.alice, "help")
    assert all(o.ephemeral and len(o.content) <= CONTENT_LIMIT for o in helped)
    assert "\n".join(o.plain for o in helped).startswith(text("help_title"))
    assert bot.dc.errors == []


async def test_rate_limits_are_waited_out(bot: Running, club: Club) -> None:
    bot.dc.flood("/callback", retry_after=0.05)
    answer = await say(bot, club.guild, club.alice, "register")
    assert answer.plain == text("registered", name="alice", ladder="main")
    assert [e[0] for e in bot.dc.errors] == [429]


async def test_ladders_are_offered_as_you_type(bot: Running, club: Club) -> None:
    await join(bot, club, club.alice)
    await say(bot, club.guild, club.ada, "ladder", "create", name="blitz")
    await bot.dc.autocomplete(club.guild, club.alice, "top", "ladder", "bl")
    offered = await bot.dc.output()
    assert offered.choices == [{"name": "blitz", "value": "blitz"}]


async def test_commands_are_synced_to_the_development_guild(tmp_path: Path, dc: FakeDiscord,
                                                           club: Club) -> None:
    async with running_bot(tmp_path / "club.db", sync_guild=GUILD, dc=dc) as running:
        assert dc.sync_calls == [GUILD] and None not in dc.commands
        synced = {c["name"]: c for c in dc.commands[GUILD]}
        assert str(synced["void"]["default_member_permissions"]) == str(MANAGE_GUILD)
        assert synced["report"]["default_member_permissions"] is None
        report = {o["name"]: o for o in synced["report"]["options"]}
        assert report["opponent"]["type"] == 6 and report["opponent"]["description"]
        assert [c["value"] for c in report["result"]["choices"]] == ["win", "loss", "draw"]
        answer = await say(running, club.guild, club.alice, "register")
        assert answer.plain == text("registered", name="alice", ladder="main")


async def test_the_publisher_posts_into_the_guild(bot: Running, club: Club) -> None:
    publisher = DiscordPublisher(bot.client)
    assert publisher.platform == "discord"
    await publisher.publish(str(GUILD), "Weekly @everyone: alice leads")
    post = await bot.dc.output()
    assert post.kind == "post" and int(post.message["channel_id"]) == club.guild.channel.id
    assert post.allowed_mentions == {"parse": []} and "@everyone" not in post.content
    await publisher.publish(str(club.guild.channel.id), "Chart",
                            Picture(PNG, "week.png", "This week"))
    post = await bot.dc.output()
    assert post.files == [("week.png", PNG)] and post.content == "Chart"
    assert post.embeds[0]["image"]["url"] == "attachment://week.png"


async def test_a_scheduled_post_sent_again_with_its_nonce_is_made_once(bot: Running,
                                                                        club: Club) -> None:
    """The outbox's sender names the post (POST_NONCE): each piece goes with a nonce derived
    from it, so the post sent again after a crash is dropped by Discord (issue 41)."""
    publisher = DiscordPublisher(bot.client)
    token = POST_NONCE.set("clubrating-7")
    try:
        await publisher.publish(str(GUILD), "Weekly: alice leads")
        await publisher.publish(str(GUILD), "Weekly: alice leads")
    finally:
        POST_NONCE.reset(token)
    post = await bot.dc.output()
    assert post.message["nonce"] == "clubrating-7.0"
    await publisher.publish(str(GUILD), "Announcement")  # no nonce: a message each time
    assert (await bot.dc.output()).content == "Announcement"
    assert [o.content for o in bot.dc.log if o.kind == "post"] == ["Weekly: alice leads",
                                                                    "Announcement"]


async def test_a_command_without_its_own_slash_command_takes_typed_words(
        tmp_path: Path, dc: FakeDiscord, club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command added to bot.chat.commands later is reachable at once: its words typed as one
    text, a mentioned member carried by user id (a typed @name is only text)."""
    async def echo(ctx: Context, words: Words) -> str:
        named = [words.who(n) for n in range(len(words.args))]
        shown = [w.user if isinstance(w, UserRef) else f"text:{w}" for w in named]
        return f"{ctx.caller.user} {shown} {sorted(words.options.items())}"

    monkeypatch.setitem(COMMANDS, "echo", Command(echo, "help_help", "example_help",
                                                  options=("ladder",)))
    async with running_bot(tmp_path / "club.db", dc=dc) as running:
        answer = await say(running, club.guild, club.alice, "echo",
                           arguments=f"<@{club.bob.id}> \"two words\" @{club.bob.id} "
                                     "O'Brien ladder=blitz")
        # Double quotes group words; an apostrophe is a letter (issue 31).
        assert answer.plain == (f"{club.alice.id} ['{club.bob.id}', 'text:two words', "
                                f"'text:@{club.bob.id}', \"text:O'Brien\"] "
                                "[('ladder', 'blitz')]")
        refused = await say(running, club.guild, club.alice, "echo", arguments='"unclosed')
        assert refused.ephemeral and refused.plain == text("usage", usage='/echo "unclosed')


async def test_a_display_name_that_is_a_user_id_never_stands_for_that_member(
        bot: Running, club: Club, dc: FakeDiscord) -> None:
    """Mallory's nickname is alice's user id: a member picked in the picker, or mentioned as
    ``<@id>`` in typed words, is found by that id (alice); a typed ``@<id>`` is only text,
    and no member's name or username (Mallory's handle is her username, not her nickname)."""
    await join(bot, club, club.alice)
    mallory = dc.member(club.guild, dc.user(900000000000000399, "mallory"),
                        nick=str(club.alice.id))
    assert (await say(bot, club.guild, mallory, "register", name="Mallory")).plain == text(
        "registered", name="Mallory", ladder="main")
    named = await say(bot, club.guild, club.ada, "moderator", "add", member=club.alice)
    assert named.plain == text("moderator_named", name="alice")
    retired = await say(bot, club.guild, club.ada, "retire", member=club.alice)
    assert retired.plain == text("retired", name="alice", ladder="main")
    charted = await say(bot, club.guild, club.ada, "chart", arguments=f"<@{club.alice.id}>")
    assert charted.plain == text("chart_empty", name="alice", ladder="main")
    typed = await say(bot, club.guild, club.ada, "chart", arguments=f"@{club.alice.id}")
    assert typed.plain == text("unknown_member", name=str(club.alice.id))
    # A member picked who never registered is named as Discord shows them.
    unknown = await say(bot, club.guild, club.ada, "rating", member=club.zed)
    assert unknown.plain == text("unknown_member", name="zed")


async def test_a_button_in_a_private_message_is_refused(
        bot: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    """Buttons only ever come in a server; a press without one (a private message) is
    answered to the presser alone, and makes no club."""
    said: list[tuple[str, bool]] = []

    async def answer(interaction: object, shown: str, ephemeral: bool) -> None:
        said.append((shown, ephemeral))

    monkeypatch.setattr(bot.front, "_say", answer)
    direct = SimpleNamespace(guild_id=None, user=SimpleNamespace(id=900000000000000302))
    await bot.front.on_button(direct, "t:main:0")  # type: ignore[arg-type]
    assert said == [(text("discord_guild_only"), True)]
    assert await bot.service._repository.clubs() == []


async def test_clubrating_run_serves_discord_from_the_environment(
        tmp_path: Path, dc: FakeDiscord, club: Club) -> None:
    """``DISCORD_API_BASE`` and ``DISCORD_GATEWAY_URL`` point the bot at another Discord (here
    the fake), ``DISCORD_GUILD_ID`` syncs its commands to one guild; the stop event ends it."""
    settings = Settings.from_environment({
        "DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE": dc.api_base,
        "DISCORD_GATEWAY_URL": dc.gateway_url, "DISCORD_GUILD_ID": str(GUILD),
        "CLUBRATING_DB": str(tmp_path / "club.db"), "CLUBRATING_DATA_DIR": str(tmp_path)})
    repository = await SqliteRepository.open(settings.database)
    stop = asyncio.Event()
    with discord_defaults_kept():
        service = ClubService(repository, FakeClock(START))
        limiter = RateLimiter(service.clock, settings.rate)
        heartbeat = Heartbeat(settings.data_dir / HEARTBEAT_FILE)
        front_ends = build_front_ends(service, limiter, settings, heartbeat.beat)
        serving = asyncio.create_task(serve(service, repository, front_ends, stop, settings,
                                            heartbeat))
        try:
            await asyncio.wait_for(dc.identified.wait(), 10)
            assert dc.sync_calls == [GUILD]
            await dc.command(club.guild, club.alice, "register")
            answer = await dc.output()
            assert answer.plain == text("registered", name="alice", ladder="main")
            assert health(tmp_path)[0]  # the gateway's messages are its heartbeat
        finally:
            stop.set()
            await asyncio.wait_for(serving, 10)
            await repository.close()
    assert health(tmp_path) == (False, "not running")


async def test_slow_commands_are_deferred_then_answered(bot: Running, club: Club) -> None:
    """/evaluate and /chart may take longer than Discord's 3 s: the bot defers ("thinking...")
    at once and follows up with the answer."""
    await join(bot, club, club.alice, club.bob)
    await say(bot, club.guild, club.alice, "report", opponent=club.bob, result="win")
    await say(bot, club.guild, club.bob, "confirm")
    evaluation = await say(bot, club.guild, club.ada, "evaluate")
    assert evaluation.kind == "followup"
    assert evaluation.plain == text("evaluation_too_few", ladder="main", games=1, needed=30)
    chart = await say(bot, club.guild, club.alice, "chart")
    assert chart.kind == "followup"
    [(name, png)] = chart.files
    assert name.endswith(".png") and png.startswith(b"\x89PNG")
    refused = await say(bot, club.guild, club.alice, "evaluate")
    assert refused.kind == "followup" and refused.plain == text("moderators_only")
    assert bot.dc.errors == []
