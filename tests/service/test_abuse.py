"""Abuse: a member flooding commands is slowed down with a friendly answer, names and texts have
maximum lengths, and nobody can spam challenges. Also the structured use-case log line."""

from __future__ import annotations

import logging
import re
from datetime import datetime
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.chat.ratelimit import (
    DEFAULT_COMMANDS,
    MODERATOR_FACTOR,
    Rate,
    RateLimiter,
    Silenced,
    parse_rate,
)
from bot.service.clock import FakeClock
from bot.service.club import MAX_OPEN_CHALLENGES, MAX_REASON
from bot.service.errors import Refusal
from bot.service.parsing import MAX_NAME
from bot.settings import Settings
from tests.chat import open_club
from tests.fake_telegram import Chat, User
from tests.telegram_harness import press, running_bot, say


async def test_a_member_past_the_rate_limit_gets_a_friendly_answer_and_nothing_runs(
    tmp_path: Path,
) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        await chat.as_("bob", "/register")
        await chat.as_("alice", "/register")
        for _ in range(DEFAULT_COMMANDS - 1):  # /register was the first
            assert not (await chat.say("/top")).startswith("Easy")
        before = await chat.log_size()
        assert await chat.say("/report @bob win") == text("rate_limited", seconds=60)
        assert await chat.log_size() == before
        # Others are not slowed down: another member, a moderator in bulk.
        assert (await chat.as_("bob", "/top")).startswith("main ladder")
        await chat.say("/as mod!")
        for _ in range(2 * DEFAULT_COMMANDS):
            assert (await chat.say("/report @alice @bob draw")).startswith("Game #")
        # Told once, she is not answered again within the window: every answer is a message
        # that waits in the chat's flood limit. Time heals: the window slides.
        chat.clock.advance(seconds=30)
        assert await chat.as_("alice", "/top") == ""
        chat.clock.advance(seconds=30)
        assert (await chat.as_("alice", "/report @bob win")).startswith("Game #")


def test_the_window_slides_and_idle_members_are_forgotten() -> None:
    clock = FakeClock(datetime(2024, 1, 1))
    limiter = RateLimiter(clock, Rate(3, 10.0))
    key = ("telegram", "-1", "7")
    for _ in range(3):
        limiter.check(key)
        clock.advance(seconds=4)  # at 0, 4, 8
    with pytest.raises(Exception) as refused:
        limiter.check(key)  # at 12: 4 and 8 are in the window, and so was 0 until 10
        limiter.check(key)
    assert refused.value.params == {"seconds": 2}  # type: ignore[attr-defined]
    limiter.check(("telegram", "-2", "7"))  # the same person in another club is not limited
    assert RateLimiter(clock, None).check(key) is None


def test_past_the_rate_a_member_is_told_once_per_window_then_silenced() -> None:
    clock = FakeClock(datetime(2024, 1, 1))
    limiter = RateLimiter(clock, Rate(2, 10.0))
    key = ("telegram", "-1", "7")
    limiter.check(key)
    limiter.check(key)  # at 0: two, the rate
    with pytest.raises(Refusal):
        limiter.check(key)  # the notice
    for _ in range(50):
        with pytest.raises(Silenced):
            limiter.check(key)
    clock.advance(seconds=10)  # both left the window, and so did the notice
    limiter.check(key)
    limiter.check(key)
    with pytest.raises(Refusal):  # a new window, a new notice
        limiter.check(key)


def test_moderators_are_limited_too_at_a_higher_rate() -> None:
    clock = FakeClock(datetime(2024, 1, 1))
    limiter = RateLimiter(clock, Rate(3, 10.0))
    key = ("telegram", "-1", "7")
    for _ in range(3 * MODERATOR_FACTOR):
        limiter.check(key, moderator=True)
        clock.advance(seconds=0.5)  # at 0, 0.5, ..., 7
    with pytest.raises(Refusal) as refused:
        limiter.check(key, moderator=True)  # at 7.5: the first leaves the window at 10
    assert refused.value.params == {"seconds": 3}
    with pytest.raises(Silenced):  # as a member (3 at most), and told so a moment ago
        limiter.check(key)


async def test_button_presses_and_private_commands_count_on_telegram(tmp_path: Path) -> None:
    async with running_bot(tmp_path / "club.db", rate=Rate(3, 60.0)) as bot:
        ada = bot.tg.user(1, "Ada", "ada_admin")
        alice, bob = bot.tg.user(2, "Alice", "alice"), bot.tg.user(3, "Bob", "bob")
        group = bot.tg.group(-100, "Club", admins=[ada])
        await say(bot, group, bob, "/register")
        await say(bot, group, alice, "/register")  # alice: 1
        report = await say(bot, group, alice, "/report @bob win")  # 2
        game = report.buttons[0][0][1]
        # Her own report's Confirm is not hers to press (3); then she is slowed down.
        assert (await press(bot, group, alice, report, game))["text"] != text(
            "rate_limited", seconds=60)
        assert (await press(bot, group, alice, report, game))["text"] == text(
            "rate_limited", seconds=60)
        # A moderator may press five times as often, not more.
        board = await say(bot, group, ada, "/top")  # 1
        for _ in range(3 * MODERATOR_FACTOR - 1):
            pressed = await press(bot, group, ada, board, "t:main:0", strict=False)
            assert pressed["text"] is None  # the board shown again: no alert
        refused = await press(bot, group, ada, board, "t:main:0", strict=False)
        assert refused["text"] == text("rate_limited", seconds=60)
        # A private chat with the bot: commands count there too.
        private = bot.tg.private(bob)
        for _ in range(3):
            await say(bot, private, bob, "/rating")
        assert (await say(bot, private, bob, "/rating")).plain == text("rate_limited",
                                                                       seconds=60)
        bot.clock.advance(seconds=60)
        assert (await say(bot, private, bob, "/rating")).plain.startswith("Club: bob (main)")


@pytest.mark.parametrize(("setting", "rate"), [
    (None, Rate(20, 60.0)), ("5/10", Rate(5, 10.0)), ("30", Rate(30, 60.0)), ("off", None),
])
def test_the_rate_comes_from_the_environment(setting: str | None, rate: Rate | None,
                                             tmp_path: Path) -> None:
    environ = {"CLUBRATING_DB": str(tmp_path / "club.db")}
    if setting is not None:
        environ["CLUBRATING_RATE_LIMIT"] = setting
    assert Settings.from_environment(environ).rate == rate


@pytest.mark.parametrize("setting", ["fast", "0/10", "5/-1", "5/nan"])
def test_a_bad_rate_is_refused_naming_the_variable(setting: str) -> None:
    with pytest.raises(ValueError, match="CLUBRATING_RATE_LIMIT"):
        parse_rate(setting)


async def test_the_rate_limit_answers_on_telegram(tmp_path: Path) -> None:
    async with running_bot(tmp_path / "club.db") as bot:
        group = bot.tg.group(-100, "Club", admins=[])
        alice: User = bot.tg.user(1, "Alice", "alice")
        chat: Chat = group
        for _ in range(DEFAULT_COMMANDS):
            await say(bot, chat, alice, "/top")
        answer = await say(bot, chat, alice, "/top")
        assert answer.plain == text("rate_limited", seconds=60)


#: what is typed, and the refusal: every free text has a maximum length
TOO_LONG = [
    ("/register " + "n" * (MAX_NAME + 1), text("name_too_long", limit=MAX_NAME)),
    ("/dispute 7 " + "x" * (MAX_REASON + 1), text("too_long", limit=MAX_REASON)),
    ("/x" + "a" * 2000, text("input_too_long", limit=2000)),
]


@pytest.mark.parametrize(("line", "answer"), TOO_LONG)
async def test_names_and_reasons_have_maximum_lengths(tmp_path: Path, line: str,
                                                     answer: str) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        await chat.as_("bob", "/register")
        await chat.as_("carol", "/register")
        await chat.say("/report @bob win")  # #5, waits for bob
        await chat.as_("bob", "/report @carol win")  # #7, waits for carol
        await chat.say("/as carol" if line.startswith("/dispute") else "/as dave")
        before = await chat.log_size()
        assert await chat.say(line) == answer
        assert await chat.log_size() == before


async def test_a_member_cannot_spam_challenges(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        names = ["alice", "bob", "carol", "dave", "erin", "finn"]
        for name in names:
            await chat.as_(name, "/register")
        await chat.say("/as alice")
        for name in names[1:1 + MAX_OPEN_CHALLENGES]:
            assert (await chat.say(f"/challenge @{name}")).startswith("alice challenges")
        before = await chat.log_size()
        assert await chat.say("/challenge @erin") == text("too_many_challenges",
                                                          count=MAX_OPEN_CHALLENGES)
        assert await chat.log_size() == before
        # Others may still challenge; an answer frees a place; so does expiry.
        assert (await chat.as_("erin", "/challenge @finn")).startswith("erin challenges")
        await chat.as_("bob", "/decline")
        assert (await chat.as_("alice", "/challenge @erin")).startswith("alice challenges")
        assert (await chat.say("/challenge @finn")) == text("too_many_challenges", count=3)
        chat.clock.advance(hours=49)
        assert (await chat.say("/challenge @finn")).startswith("alice challenges")


USE_CASE = re.compile(r"^use_case club=console:local actor=(\S+) command=(\S+) "
                      r"outcome=(\S+) duration_ms=\d+\.\d$")


async def test_one_structured_log_line_per_use_case(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.INFO, logger="bot.use_case")
    async with open_club(tmp_path / "club.db") as chat:
        await chat.as_("bob", "/register", "/rating @nobody", "/report", "/frobnicate")

        async def broken(*args: object, **kwargs: object) -> None:
            raise RuntimeError("disk on fire")

        monkeypatch.setattr(chat.service, "leaderboard", broken)
        assert await chat.say("/top") == text("internal_error")
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.use_case"]
    assert [USE_CASE.match(line).groups() for line in lines] == [  # type: ignore[union-attr]
        ("bob", "register", "ok"),
        ("bob", "rating", "refused:unknown_member"),
        ("bob", "report", "usage"),
        ("bob", "frobnicate", "refused:bad_command"),
        ("bob", "top", "error:RuntimeError"),
    ]
    assert [r.levelname for r in caplog.records if r.name == "bot.use_case"][-1] == "ERROR"
