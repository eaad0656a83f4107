"""Transcripts through the real python-telegram-bot Application and a fake Bot API server."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.adapters.telegram import RETRIES, TelegramPublisher
from bot.adapters.telegram_budget import SharedFloodLimits
from bot.chat.messages import text
from bot.scheduling.publishing import PostDelayed
from tests.telegram_harness import Running, press, running_bot, say

GROUP = -1001


@pytest.fixture
async def bot(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with running_bot(tmp_path / "club.db") as running:
        yield running


def people(bot: Running):  # type: ignore[no-untyped-def]
    tg = bot.tg
    admin = tg.user(1, "Ada", "ada")
    alice = tg.user(2, "Alice", "alice")
    bob = tg.user(3, "Bob", "bob")
    carol = tg.user(4, "Carol", "carol")
    group = tg.group(GROUP, "Chess club", admins=[admin])
    return group, admin, alice, bob, carol


async def test_a_club_night_with_buttons(bot: Running) -> None:
    group, admin, alice, bob, carol = people(bot)
    for user in (alice, bob, carol):
        answer = await say(bot, group, user, "/register")
        assert answer.plain == text("registered", name=user.username, ladder="main")

    challenge = await say(bot, group, alice, "/challenge @bob")
    assert challenge.buttons == [[("Accept", "c:accept:#1"), ("Decline", "c:decline:#1")]]
    # Carol may not answer a challenge addressed to bob: a short alert, nothing changes.
    refused = await press(bot, group, carol, challenge, "c:accept:#1")
    assert refused["show_alert"] is True
    assert refused["text"] == text("not_your_challenge", challenge=1)
    await press(bot, group, bob, challenge, "c:accept:#1")
    accepted = await bot.tg.reply(group)
    assert accepted.kind == "edit" and accepted.message_id == challenge.message_id
    assert accepted.plain.startswith("bob accepts alice's challenge #1")
    assert accepted.buttons == []

    report = await say(bot, group, alice, "/report @bob win")
    assert report.plain == (
        "Game #1: alice beat bob. bob, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "alice: +53 / 0 / -53 (win 50%)\nbob: +53 / 0 / -53 (win 50%)")
    assert report.buttons == [[("Confirm", "g:confirm:#1"), ("Dispute", "g:dispute:#1")]]
    refused = await press(bot, group, alice, report, "g:confirm:#1")  # not the reporter's to do
    assert refused["text"] == text("own_report", game=1, opponent="bob")
    await press(bot, group, bob, report, "g:confirm:#1")
    confirmed = await bot.tg.reply(group)
    assert confirmed.kind == "edit"
    # Two newcomers of deviation 150: 1500 +- K 115.7 x w 0.924 x 1/2 = 1553.5 and 1446.5.
    assert confirmed.plain.splitlines() == [
        "Game #1 confirmed: alice beat bob.", "alice: 1500 -> 1553?", "bob: 1500 -> 1447?"]

    board = await say(bot, group, carol, "/top")
    assert board.parse_mode == "HTML" and board.text.startswith("<pre>")
    assert [line.split()[:3] for line in board.plain.splitlines()[1:]] == [
        ["1.", "alice", "1553?"], ["2.", "carol", "1500?"], ["3.", "bob", "1447?"]]


async def test_moderators_are_the_group_admins(bot: Running) -> None:
    group, admin, alice, bob, carol = people(bot)
    for user in (alice, bob):
        await say(bot, group, user, "/register")
    assert (await say(bot, group, alice, "/report @alice @bob win")).plain == text(
        "moderators_only")
    recorded = await say(bot, group, admin, "/report @alice @bob win")
    assert recorded.plain.startswith("Game #1 recorded: alice beat bob.")
    preview = await say(bot, group, admin, "/correct 1 loss")
    assert preview.buttons == [[("Apply", "x:apply:#1"), ("Cancel", "x:cancel:#1")]]
    refused = await press(bot, group, alice, preview, "x:apply:#1")
    assert refused["text"] == text("no_preview")
    await press(bot, group, admin, preview, "x:apply:#1")
    applied = await bot.tg.reply(group)
    assert applied.plain.splitlines()[0] == text("applied", game=1)


async def test_members_named_by_reply_and_text_mention(bot: Running) -> None:
    group, admin, alice, bob, carol = people(bot)
    nameless = bot.tg.user(9, "Dmitri")  # no @username: named by a text mention
    for user in (alice, bob, nameless):
        await say(bot, group, user, "/register")
    hello = await bot.tg.send(group, bob, "good game?")
    replied_to = bot.tg.updates[hello]["message"]["message_id"]
    await bot.tg.send(group, alice, "/report win", reply_to=replied_to)
    assert (await bot.tg.reply(group)).plain.startswith("Game #1: alice beat bob.")
    await bot.tg.send(group, alice, "/report Dmitri draw", mention=nameless)
    assert (await bot.tg.reply(group)).plain.startswith("Game #2: alice drew with Dmitri.")


async def test_a_name_that_looks_like_a_user_id_never_stands_for_that_member(
        bot: Running) -> None:
    """Mallory's Telegram name is "1001", alice's user id: a text mention or a reply names
    alice by her id; a typed @1001 is only a name (nobody's: Mallory registered as Mallory,
    and "1001", a number, is no @username, so no handle was kept)."""
    group, admin, _, _, _ = people(bot)
    alice = bot.tg.user(1001, "Alice", "alice")
    mallory = bot.tg.user(66, "1001")
    await say(bot, group, alice, "/register")
    assert (await say(bot, group, mallory, "/register Mallory")).plain == text(
        "registered", name="Mallory", ladder="main")
    await bot.tg.send(group, admin, "/moderator add", mention=alice)
    assert (await bot.tg.reply(group)).plain == text("moderator_named", name="alice")
    hello = await bot.tg.send(group, alice, "hello")
    await bot.tg.send(group, admin, "/retire",
                      reply_to=bot.tg.updates[hello]["message"]["message_id"])
    assert (await bot.tg.reply(group)).plain == text("retired", name="alice", ladder="main")
    for typed in ("/rating @1001", "/history @1001", "/retire @1001"):
        assert (await say(bot, group, admin, typed)).plain == text("unknown_member",
                                                                   name="1001")
    # A text mention of someone who never registered names them as the mention shows them.
    stranger = bot.tg.user(77, "Alice")
    await bot.tg.send(group, admin, "/rating", mention=stranger)
    assert (await bot.tg.reply(group)).plain == text("unknown_member", name="Alice")
    # Mallory is untouched: no moderator, not retired.
    assert (await say(bot, group, mallory, "/undo")).plain == text("moderators_only")
    assert (await say(bot, group, mallory, "/rating")).plain.startswith("Mallory (main): 1500?")


async def test_a_button_in_a_private_chat_makes_no_club(bot: Running) -> None:
    _, _, alice, _, _ = people(bot)
    private = bot.tg.private(alice)
    await bot.tg.send(private, alice, "/help")
    answer = await bot.tg.reply(private)
    pressed = await press(bot, private, alice, answer, "t:main:0", strict=False)
    assert (pressed["text"], pressed["show_alert"]) == (text("telegram_button_private"), True)
    assert await bot.service._repository.clubs() == []


async def test_a_redelivered_update_changes_nothing(bot: Running) -> None:
    group, admin, alice, bob, carol = people(bot)
    for user in (alice, bob):
        await say(bot, group, user, "/register")
    update = await bot.tg.send(group, alice, "/report @bob win")
    first = await bot.tg.reply(group)
    await bot.tg.redeliver(update)
    again = await bot.tg.reply(group)
    assert again.plain == first.plain  # the first answer, not a second report
    pending = (await say(bot, group, bob, "/pending")).plain
    assert pending == "To confirm or dispute: #1 Mar 1, 2024 alice beat bob [pending]"


async def test_a_hostile_display_name_is_only_text(bot: Running) -> None:
    group, admin, alice, bob, carol = people(bot)
    evil = bot.tg.user(66, "Eve")
    # A new name may not hold & (it joins the members of a side, issue 37): the refusal's own
    # & is text too.
    refused = await say(bot, group, evil, "/register *_[evil](x)<b>&")
    assert refused.parse_mode == "HTML"
    assert "<b>&" not in refused.text and "(alice &amp; bob)" in refused.text
    assert refused.plain == text("name_ampersand")
    answer = await say(bot, group, evil, "/register *_[evil](x)<b>")
    assert answer.parse_mode == "HTML"
    assert "<b>" not in answer.text and "&lt;b&gt;" in answer.text
    assert answer.plain == text("registered", name="*_[evil](x)<b>", ladder="main")
    board = await say(bot, group, alice, "/top")
    assert "*_[evil](x)<b>" in board.plain


async def test_flood_limits_are_waited_out(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # The bot's own flood limiter (SharedFloodLimits, pacing included) waits out a 429 Too
    # Many Requests and sends the answer again.
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # else PTB's RetryAfter warns about int seconds
    async with running_bot(tmp_path / "club.db", paced=True) as bot:
        assert isinstance(bot.app.bot.rate_limiter, SharedFloodLimits)
        group, admin, alice, bob, carol = people(bot)
        bot.tg.flood("sendMessage", retry_after=1, times=1)
        began = time.monotonic()
        answer = await say(bot, group, alice, "/register")
        assert answer.plain == text("registered", name="alice", ladder="main")
        assert time.monotonic() - began >= 1  # the second send waited as told
        assert [e[1] for e in bot.tg.errors] == [429]


async def test_a_flood_the_limiter_gave_up_on_asks_the_post_to_wait(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Past the limiter's own retries a 429 reaches the publisher, which says how long to wait
    # (PostDelayed): the outbox moves the post by that much (issue 41).
    monkeypatch.setenv("PTB_TIMEDELTA", "true")
    async with running_bot(tmp_path / "club.db") as bot:
        group = people(bot)[0]
        bot.tg.flood("sendMessage", retry_after=1, times=RETRIES + 1)
        with pytest.raises(PostDelayed) as delayed:
            await TelegramPublisher(bot.app.bot).publish(str(group.id), "Weekly")
        assert delayed.value.retry_after == 1.0
        assert [e[1] for e in bot.tg.errors] == [429] * (RETRIES + 1)
        assert bot.tg.outputs(group) == []


async def test_commands_menu_and_private_chat(bot: Running) -> None:
    group, admin, alice, bob, carol = people(bot)
    menu = [c["command"] for c in bot.tg.commands["default"]]
    assert menu[:3] == ["register", "rating", "top"] and "help" in menu
    private = bot.tg.private(alice)
    await bot.tg.send(private, alice, "/top")
    assert (await bot.tg.reply(private)).plain == text("telegram_private")
    await bot.tg.send(private, alice, "/rating")
    assert (await bot.tg.reply(private)).plain == text("private_none")
    await say(bot, group, alice, "/register")
    await bot.tg.send(private, alice, "/rating")
    assert (await bot.tg.reply(private)).plain == "Chess club: alice (main): 1500?, no games " \
        "yet."
    await bot.tg.send(private, alice, "/history")
    assert (await bot.tg.reply(private)).plain == "Chess club: " + text(
        "history_empty", name="alice", ladder="main")


async def test_long_answers_are_split(bot: Running) -> None:
    group, admin, alice, bob, carol = people(bot)
    await say(bot, group, alice, "/register")
    # /help is long but fits; a flood of members makes the audit log longer than a message.
    for n in range(60):
        member = bot.tg.user(100 + n, f"M{n}", f"member_with_a_long_name_{n:03d}")
        await say(bot, group, member, "/register")
    await bot.tg.send(group, admin, "/audit 100")
    first, second = await bot.tg.reply(group), await bot.tg.reply(group)
    assert first.text.startswith("<pre>") and first.text.endswith("</pre>")
    assert len(first.text) <= 4096 and second.text.startswith("<pre>")


async def test_a_members_quick_commands_are_answered_in_order(bot: Running) -> None:
    # Updates are handled concurrently, but one member's run one after another: a report sent
    # right after /register, without waiting, finds its sender registered.
    group, admin, alice, bob, carol = people(bot)
    await say(bot, group, bob, "/register")
    for line in ("/register", "/report @bob win", "/rating"):
        await bot.tg.send(group, alice, line)
    answers = [(await bot.tg.reply(group)).plain for _ in range(3)]
    assert answers[0] == text("registered", name="alice", ladder="main")
    assert answers[1].startswith("Game #1: alice beat bob.")
    assert answers[2].startswith("alice (main): 1500?")


async def test_reading_calls_never_wait_for_a_groups_flood_limit() -> None:
    """Telegram's 20 messages a minute in a group limit what is sent there: once a group's
    allowance is spent, a further message waits, but learning who administers the group does
    not (issue 30: a busy group must not hold the bot's processing slots on a read)."""
    limiter = SharedFloodLimits(max_retries=0)
    limiter.groups.divide(20)  # one message a minute in a group: a twentieth of Telegram's 20
    await limiter.initialize()

    async def call(*args: object, **kwargs: object) -> bool:
        return True

    async def request(endpoint: str) -> object:
        return await limiter.process_request(call, (), {}, endpoint, {"chat_id": -100}, None)

    assert await request("sendMessage")  # the group's one message a minute
    began = time.monotonic()
    assert await request("getChatAdministrators")
    assert await request("getChatMember")
    assert time.monotonic() - began < 0.5
    with pytest.raises(TimeoutError):  # a second message waits its turn
        await asyncio.wait_for(request("sendMessage"), 0.5)
    await limiter.shutdown()
