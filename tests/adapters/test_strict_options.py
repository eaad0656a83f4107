"""Nothing typed is silently ignored (issue 15): an option a command does not take, an option
given twice and a word past those a command reads are refused, naming them, and change nothing;
every legitimate form still works. ``/help`` lists what works on the platform it is asked on,
and ``/help NAME`` gives one command's usage, options and an example.

Console transcripts (tests/chat.py) for every refusal; one round trip through Telegram and one
through Discord show the same refusal and that nothing is stored.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat import help as chat_help
from bot.chat.commands import COMMANDS
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.service.club import Caller
from tests import discord_harness, telegram_harness
from tests.chat import Transcript, open_club
from tests.fake_discord import MANAGE_GUILD, FakeDiscord

REPORT_OPTIONS = "handicap=, colour=, event=, ladder=, repeat="
SNAPSHOT = Caller("console", "local", "0", "snapshot", moderator=True)


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db") as transcript:
        for name in ("alice", "bob", "carol"):
            await transcript.as_(name, "/register")
        yield transcript


async def state(chat: Transcript) -> tuple[str, str]:
    """The club's whole log and its leaderboard: equal before and after means nothing
    changed."""
    return (render(await chat.service.audit(SNAPSHOT, 100)),
            render(await chat.service.leaderboard(SNAPSHOT)))


async def refused(chat: Transcript, who: str, line: str, expected: str) -> None:
    before = await state(chat)
    assert await chat.as_(who, line) == expected, line
    assert await state(chat) == before, line


def game_of(answer: str) -> int:
    found = re.match(r"Game #(\d+)", answer)
    assert found, answer
    return int(found[1])


# -- an option the command does not take ------------------------------------------------------


@pytest.mark.parametrize(("who", "line", "expected"), [
    ("alice", "/report @bob win hcp=50",
     f"Unknown option hcp; /report takes {REPORT_OPTIONS}"),
    ("alice", "/rating lader=blitz", "Unknown option lader; /rating takes ladder=, season="),
    ("alice", "/chart @bob colour=red", "Unknown option colour; /chart takes ladder=, theme="),
    ("alice", "/register Al birthday=2000-01-01",
     "Unknown option birthday; /register takes birth="),
    ("mod!", "/correct 4 loss c=@carol",
     "Unknown option c; /correct takes a=, b=, handicap=, sides="),
    ("mod!", '/schedule cron="0 9 * * MON" zone=UTC',
     "Unknown option zone; /schedule takes cron=, tz=, channel=, size=, ladder="),
    ("mod!", "/set announce yes hcp=1", "Unknown option hcp; /set takes ladder="),
])
async def test_an_unknown_option_is_refused_naming_the_options_taken(
        chat: Transcript, who: str, line: str, expected: str) -> None:
    await refused(chat, who, line, expected)


@pytest.mark.parametrize("line", ["/pending x=1", "/confirm hcp=1", "/accept ladder=main",
                                  "/undo ladder=main", "/help all=yes"])
async def test_an_option_of_a_command_that_takes_none_is_refused(chat: Transcript,
                                                                 line: str) -> None:
    command = line.split()[0]
    key = line.split()[1].split("=")[0]
    await refused(chat, "mod!" if command == "/undo" else "alice", line,
                  f"Unknown option {key}; {command} takes no options")


async def test_the_refusal_lists_the_options_in_the_order_the_command_declares() -> None:
    assert COMMANDS["report"].options == ("handicap", "colour", "event", "ladder", "repeat")
    assert text("unknown_option", option="hcp", command="/report", options=REPORT_OPTIONS) == (
        "Unknown option hcp; /report takes handicap=, colour=, event=, ladder=, repeat=")


# -- an option given twice ---------------------------------------------------------------------


@pytest.mark.parametrize(("who", "line", "option"), [
    ("alice", "/report @bob win ladder=main ladder=main", "ladder"),
    ("alice", "/report @bob win handicap=1 handicap=2", "handicap"),
    ("alice", "/top main ladder=main", "ladder"),
    ("alice", "/history @bob ladder=main ladder=blitz", "ladder"),
    ("mod!", "/system club k=24 k=30", "k"),
    ("mod!", "/ladder create blitz elo k=24 k=30", "k"),
    ("mod!", "/schedule main ladder=main", "ladder"),
    ("mod!", "/schedule size=5 size=6", "size"),
])
async def test_an_option_given_twice_is_refused_naming_it(chat: Transcript, who: str, line: str,
                                                          option: str) -> None:
    await refused(chat, who, line, text("option_twice", option=option))


# -- words past those a command reads ----------------------------------------------------------


@pytest.mark.parametrize(("who", "line", "word", "usage"), [
    # a member's report with a word too many: the extra word, not "only moderators"
    ("alice", "/report @bob draw draw", "draw", "help_report"),
    ("mod!", "/report @alice @bob win now", "now", "help_report"),
    ("alice", "/rating @bob please", "please", "help_rating"),
    ("alice", "/top main blitz", "blitz", "help_top"),
    ("alice", "/accept 1 2", "2", "help_accept"),
    ("alice", "/confirm 4 yes", "yes", "help_confirm"),
    ("alice", "/pending now", "now", "help_pending"),
    ("alice", "/challenge @bob @carol", "@carol", "help_challenge"),
    ("alice", "/help report now", "now", "help_help"),
    ("mod!", "/undo 4", "4", "help_undo"),
    ("mod!", "/apply 4", "4", "help_correct"),
    ("mod!", "/correct 4 loss now", "now", "help_correct"),
    ("mod!", "/restore 4 5", "5", "help_restore"),
    ("mod!", "/merge @bob @carol @alice", "@alice", "help_merge"),
    ("mod!", "/event open spring cup", "cup", "help_event"),
    ("mod!", "/ladder create blitz elo fast", "fast", "help_ladder"),
    ("mod!", "/system club elo", "elo", "help_system"),
    ("mod!", "/set announce yes please", "please", "help_set"),
    ("mod!", "/moderator add @bob @carol", "@carol", "help_moderator"),
    ("mod!", "/schedule pause main blitz", "blitz", "help_schedule"),
])
async def test_an_extra_word_is_refused_naming_it(chat: Transcript, who: str, line: str,
                                                  word: str, usage: str) -> None:
    await refused(chat, who, line, text("extra_word", word=word, usage=text(usage)))


# -- every legitimate form still works ---------------------------------------------------------


async def test_the_legitimate_forms_still_work(chat: Transcript) -> None:
    reported = await chat.as_("alice", "/report @bob win handicap=1 colour=white ladder=main")
    game = game_of(reported)
    assert reported.startswith(f"Game #{game}: alice beat bob")
    # a reason is free text after the number: a word with = in it is a word of the reason
    disputed = await chat.as_("bob", f"/dispute {game} it was 1=0 for me")
    assert disputed.startswith(f"Game #{game} is disputed")
    assert "it was 1=0 for me" in await chat.as_("mod!", "/audit 1")
    assert await chat.say("/set announce=yes") == text("setting_set", setting="announce",
                                                      ladder="main", value="yes")
    assert await chat.say("/set announce no ladder=main") == text(
        "setting_set", setting="announce", ladder="main", value="no")
    assert (await chat.say("/system club k=24")).startswith("Ladder main now uses club (k=24)")
    assert await chat.say("/ladder create blitz elo k=20") == text(
        "ladder_created_params", {"ladder": "blitz", "system": "elo", "params": "k=20"})
    assert (await chat.say("/top blitz")) == (await chat.say("/top ladder=blitz"))
    assert (await chat.say('/schedule cron="0 9 * * MON" tz=UTC')).startswith(
        "Schedule of main set.")
    assert (await chat.say("/schedule show main")).startswith("Schedule of main:")
    recorded = await chat.say("/report @alice @carol draw")
    assert recorded.startswith(f"Game #{game_of(recorded)} recorded")
    preview = await chat.say(f"/correct {game_of(recorded)} loss a=@carol b=@alice handicap=2")
    assert preview.startswith(f"Correcting game #{game_of(recorded)} would change:")
    assert await chat.say("/cancel") == text("correction_cancelled", game=game_of(recorded))
    voided = await chat.say(f"/void {game_of(recorded)} wrong pairing")
    assert voided.startswith(f"Game #{game_of(recorded)} is now void")


# -- /help per platform ------------------------------------------------------------------------


async def test_help_names_one_commands_usage_options_and_an_example(chat: Transcript) -> None:
    expected = "\n".join([text("help_report"), text("help_report_team"), text("help_mod_report"),
                          text("help_mod_report_repeat"),
                          f"Options: {REPORT_OPTIONS}", "Example: /report @bob win colour=white"])
    assert await chat.as_("alice", "/help report") == expected
    assert await chat.say("/help /REPORT") == expected
    assert await chat.say("/help pending") == "\n".join(
        [text("help_pending"), "Options: none", "Example: /pending"])
    assert await chat.say("/help system") == "\n".join([
        text("help_system"), "Options: ladder=, the rating system's parameters as key=value",
        "Example: /system club k=24"])
    assert await chat.say("/help as") == "\n".join(
        [text("help_as"), "Options: none", "Example: /as alice!"])
    assert await chat.say("/help nosuch") == text("bad_command", command="/nosuch")


async def test_every_command_has_help_and_an_example_that_runs_its_options() -> None:
    for name, entry in COMMANDS.items():
        example = text(entry.example)
        assert example.split()[0] == f"/{name}", name
        for word in example.split()[1:]:
            key = word.split("=")[0]
            if "=" in word and entry.params is None and not entry.text:
                assert key in entry.options, (name, word)


async def test_console_help_lists_as_and_leaves_discords_setting_out(chat: Transcript) -> None:
    listed = await chat.say("/help")
    assert text("help_as") in listed.splitlines()
    assert "moderator_role" not in listed


async def test_telegram_help_lists_only_what_works_there(tmp_path: Path) -> None:
    async with telegram_harness.running_bot(tmp_path / "club.db") as bot:
        tg = bot.tg
        group = tg.group(-1001, "Chess club", admins=[])
        alice = tg.user(2, "Alice", "alice")
        listed = (await telegram_harness.say(bot, group, alice, "/help")).plain
        assert listed.startswith(text("help_title"))
        assert text("help_report") in listed.splitlines()
        assert "/as" not in listed and "moderator_role" not in listed
        one = (await telegram_harness.say(bot, group, alice, "/help report")).plain
        assert one.splitlines()[-2:] == [f"Options: {REPORT_OPTIONS}",
                                         "Example: /report @bob win colour=white"]
        assert (await telegram_harness.say(bot, group, alice, "/help as")).plain == text(
            "bad_command", command="/as")


# -- through Telegram and Discord --------------------------------------------------------------


async def test_telegram_refuses_an_unknown_option_and_stores_nothing(tmp_path: Path) -> None:
    async with telegram_harness.running_bot(tmp_path / "club.db") as bot:
        tg = bot.tg
        group = tg.group(-1001, "Chess club", admins=[])
        alice, bob = tg.user(2, "Alice", "alice"), tg.user(3, "Bob", "bob")
        for user in (alice, bob):
            await telegram_harness.say(bot, group, user, "/register")
        before = await telegram_harness.club_state(bot, group)
        answer = await telegram_harness.say(bot, group, alice, "/report @bob win hcp=50")
        assert answer.plain == f"Unknown option hcp; /report takes {REPORT_OPTIONS}"
        assert answer.buttons == []
        assert await telegram_harness.club_state(bot, group) == before


async def test_discord_refuses_an_unknown_option_and_stores_nothing(tmp_path: Path) -> None:
    async with FakeDiscord() as dc:
        guild = dc.guild(900000000000000001, "Chess club",
                         owner=dc.user(900000000000000100, "owner"))
        managers = dc.role(guild, 900000000000000201, "Managers", MANAGE_GUILD)
        ada = dc.member(guild, dc.user(900000000000000300, "ada"), managers)
        alice = dc.member(guild, dc.user(900000000000000301, "alice"))
        async with discord_harness.running_bot(tmp_path / "club.db", dc=dc) as bot:
            await discord_harness.say(bot, guild, alice, "register")
            before = await discord_harness.club_state(bot, guild)
            moderator = Caller("discord", str(guild.id), "0", "mod", moderator=True)
            schedule = await bot.service.show_schedule(moderator)
            answer = await discord_harness.say(
                bot, guild, ada, "schedule", arguments='cron="0 9 * * MON" zone=UTC')
            assert answer.ephemeral and answer.plain == (
                "Unknown option zone; /schedule takes cron=, tz=, channel=, size=, ladder=")
            assert await discord_harness.club_state(bot, guild) == before
            assert render(await bot.service.show_schedule(moderator)) == render(schedule)
            # /help on Discord: no /as (the console's), and /set's moderator_role (Discord's)
            listed = "\n".join(o.plain for o in await discord_harness.say_all(
                bot, guild, alice, "help"))
            assert "/as" not in listed
            assert "/set moderator_role VALUE - " in listed
            # and one command's options and example, as on every platform
            one = "\n".join(o.plain for o in await discord_harness.say_all(
                bot, guild, alice, "help", command="report"))
            assert one == chat_help.command_help("report", "discord", COMMANDS)
            assert "handicap=" in one
            assert bot.dc.errors == []
