"""Rated puzzles through Telegram (issue 34): the real python-telegram-bot Application
long-polling the fake Bot API server, with the problems' pictures in a picture store.

A group's /puzzle answers with a link button to the bot's private chat; the link's
``/start p<club chat>_<ref>`` serves the club's problem there, with its picture as a photo;
/puzzle, /answer and /puzzle add (typed, or as a photo's caption) in the private chat act for
the member's club (``chat=ID`` where that is not clear). A problem's answers never show in a
group. The ratings' arithmetic is checked in tests/service and tests/system."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

import pytest

from bot.adapters.telegram import (
    TelegramFrontEnd,
    TelegramPublisher,
    deep_link,
    keyboard,
)
from bot.chat.messages import text
from bot.chat.posts import ChatPosts
from bot.chat.ratelimit import DEFAULT_RATE, RateLimiter
from bot.scheduling.publishing import Button, Picture
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.service.results import ProblemCard, PuzzleInvite, PuzzleShown
from bot.storage.pictures import PictureStore
from bot.storage.sqlite import SqliteRepository
from tests.chat import START
from tests.fake_telegram import BOT_USERNAME, TOKEN, Chat, FakeTelegram, Output, User
from tests.scheduled_posts import ScheduledPosts
from tests.telegram_harness import Running, press, say, unpaced

GROUP = -1001
OTHER = -1002
#: a JPEG as the picture store tells one (by its first bytes), and as a member sends it
DIAGRAM = b"\xff\xd8\xff\xe0" + b"a chess diagram" * 40
LINK = f"https://t.me/{BOT_USERNAME}?start=p{GROUP}_0"


@asynccontextmanager
async def puzzle_bot(folder: Path) -> AsyncIterator[tuple[Running, PictureStore]]:
    """The bot on a fresh database, its problems' pictures kept in ``folder``."""
    repository = await SqliteRepository.open(folder / "club.db")
    clock = FakeClock(START)
    service = ClubService(repository, clock)
    store = PictureStore(folder)
    async with FakeTelegram(token=TOKEN) as tg:
        front = TelegramFrontEnd(service, RateLimiter(clock, DEFAULT_RATE), pictures=store)
        app = front.application(TOKEN, f"{tg.url}/bot", unpaced())
        await app.initialize()
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=10)
        try:
            yield Running(tg, app, service, clock), store
        finally:
            await app.updater.stop()
            await app.stop()
            await app.shutdown()
            await repository.close()


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[tuple[Running, PictureStore]]:
    async with puzzle_bot(tmp_path) as both:
        yield both


class Club:
    """The chess club's group (ada runs it), alice and bob; a puzzle ladder."""

    def __init__(self, bot: Running) -> None:
        tg = bot.tg
        self.bot = bot
        self.ada = tg.user(1, "Ada", "ada")
        self.alice = tg.user(2, "Alice", "alice")
        self.bob = tg.user(3, "Bob", "bob")
        self.group = tg.group(GROUP, "Chess club", admins=[self.ada], creator=self.ada)

    async def private(self, user: User, line: str, photo: bytes | None = None) -> Output:
        """``user`` sends ``line`` (a photo's caption with ``photo``) in their private chat;
        the bot's answer there."""
        await self.bot.tg.send(self.bot.tg.private(user), user, line, photo=photo)
        return await self.bot.tg.reply(user, 5.0)

    async def open_link(self, user: User, url: str) -> Output:
        await self.bot.tg.start_link(user, url)
        return await self.bot.tg.reply(user, 5.0)

    async def founded(self, *members: User) -> None:
        """The group has a puzzle ladder; ``members`` registered."""
        created = await say(self.bot, self.group, self.ada, "/ladder create puzzles tactics")
        assert "created" in created.plain, created.plain
        for member in members:
            await say(self.bot, self.group, member, "/register")


def group_texts(bot: Running, chat: Chat) -> str:
    return "\n".join(output.plain for output in bot.tg.outputs(chat))


async def test_a_groups_puzzle_links_to_the_private_chat_where_the_problem_is_solved(
        running: tuple[Running, PictureStore]) -> None:
    bot, _ = running
    club = Club(bot)
    await club.founded(club.alice)
    added = await club.private(club.ada, "/puzzle add p1 answers=Qh7|Qxh7 White mates in one")
    assert added.plain == text("problem_added", problem="p1", ladder="puzzles", answers=2,
                               rating="1500")
    invite = await say(bot, club.group, club.alice, "/puzzle")
    assert invite.plain == text("puzzle_invite", ladder="puzzles", minutes=30)
    assert invite.urls == [(text("button_solve"), LINK)]
    assert bot.tg.called("sendMessage")[-1]["reply_markup"]["inline_keyboard"][0][0].get(
        "callback_data") is None  # a link, never a press that would serve it in the group
    shown = await club.open_link(club.alice, LINK)
    assert shown.kind == "send" and shown.plain.startswith(
        "Problem p1 (puzzles, rating 1500):\nWhite mates in one\n"), shown.plain
    assert shown.buttons == []  # answered with /answer
    solved = await club.private(club.alice, "/answer qh7")
    assert solved.plain.startswith("Solved! p1 in 0.0 s.\nAccepted answers: Qh7 | Qxh7")
    # the group never saw a problem's text or its answers
    seen = group_texts(bot, club.group)
    assert "Qh7" not in seen and "White mates" not in seen


async def test_a_problems_picture_comes_as_the_photo_of_its_add_and_goes_with_it(
        running: tuple[Running, PictureStore]) -> None:
    bot, store = running
    club = Club(bot)
    await club.founded(club.alice, club.bob)
    added = await club.private(club.ada, "/puzzle add p1 rating=1600 answers=Nf7 Black to "
                               "move", photo=DIAGRAM)
    assert added.plain == text("problem_added_picture", problem="p1", ladder="puzzles",
                               answers=1, rating="1600")
    [kept] = store.folder.iterdir()
    assert kept.read_bytes() == DIAGRAM  # the largest size, not the thumbnail
    shown = await club.open_link(club.alice, LINK)
    assert shown.kind == "photo" and shown.size == len(DIAGRAM)
    assert shown.plain.startswith("Problem p1 (puzzles, rating 1600):\nBlack to move\n")
    # a prompt too long for a caption: the photo, then the text
    prompt = "A long story. " * 70
    await club.private(club.ada, f"/puzzle add p2 rating=1500 answers=e4 {prompt}", DIAGRAM)
    photo = await club.open_link(club.bob, LINK)  # bob (1500) gets p2 (1500)
    words = await bot.tg.reply(club.bob, 5.0)
    assert (photo.kind, photo.text, words.kind) == ("photo", None, "send")
    assert words.plain.startswith("Problem p2 (puzzles, rating 1500):\nA long story.")


async def test_adding_a_problem_in_the_group_is_refused_and_nothing_is_downloaded(
        running: tuple[Running, PictureStore]) -> None:
    bot, store = running
    club = Club(bot)
    await club.founded()
    typed = await say(bot, club.group, club.ada, "/puzzle add p1 answers=Qh7 White mates")
    assert typed.plain == text("puzzle_add_private")
    await bot.tg.send(club.group, club.ada, "/puzzle add p2 answers=Qh7 White mates",
                      photo=DIAGRAM)
    captioned = await bot.tg.reply(club.group, 5.0)
    assert captioned.plain == text("puzzle_add_private")
    assert bot.tg.called("getFile") == [] and not store.folder.exists()
    # a caption for another bot is that bot's
    await bot.tg.send(club.group, club.ada, "/puzzle@other_bot add p3 answers=x y",
                      photo=DIAGRAM)
    problems = await say(bot, club.group, club.ada, "/top puzzles problems")
    assert problems.plain == text("problems_empty", ladder="puzzles")


async def test_only_the_groups_administrators_add_problems_privately(
        running: tuple[Running, PictureStore]) -> None:
    bot, store = running
    club = Club(bot)
    await club.founded(club.alice)
    refused = await club.private(club.alice, "/puzzle add p1 answers=x A problem",
                                 photo=DIAGRAM)
    assert refused.plain == text("private_not_moderator", chat=str(GROUP))
    named = await club.private(club.alice, f"/puzzle add chat={GROUP} p1 answers=x A problem")
    assert named.plain == text("private_not_moderator", chat=str(GROUP))
    assert bot.tg.called("getFile") == [] and not store.folder.exists()
    # a group the bot is not in runs nobody's problems
    elsewhere = await club.private(club.ada, "/puzzle add chat=-1009 p1 answers=x A problem")
    assert elsewhere.plain == text("private_not_moderator", chat="-1009")
    assert [chat for _, _, chat in await bot.service._repository.clubs()] == [  # noqa: SLF001
        str(GROUP)]


async def test_which_club_a_private_command_is_for(
        running: tuple[Running, PictureStore]) -> None:
    bot, _ = running
    club = Club(bot)
    other = bot.tg.group(OTHER, "Go club", admins=[club.ada], creator=club.ada)
    nothing = await club.private(club.alice, "/puzzle")
    assert nothing.plain == text("private_no_puzzles")
    await club.founded(club.alice)
    await say(bot, other, club.ada, "/ladder create puzzles tactics")
    await say(bot, other, club.alice, "/register")
    # ada runs both groups: which one gets the problem?
    which = await club.private(club.ada, "/puzzle add p1 answers=x A problem")
    assert which.plain == text("private_which_club", chats=f"{GROUP}, {OTHER}")
    for chat, code in ((GROUP, "c1"), (OTHER, "g1")):
        added = await club.private(club.ada, f"/puzzle add chat={chat} {code} answers=x "
                                   f"Problem {code}")
        assert added.plain.startswith(f"Problem {code} added to puzzles"), added.plain
    which = await club.private(club.alice, "/puzzle")
    assert which.plain == text("private_which_club", chats=f"{GROUP}, {OTHER}")
    served = await club.private(club.alice, f"/puzzle chat={OTHER}")
    assert served.plain.startswith("Problem g1 (puzzles"), served.plain
    # /answer goes to the club where her problem is open
    answered = await club.private(club.alice, "/answer x")
    assert answered.plain.startswith("Solved! g1"), answered.plain
    # a chat she is no member of is not hers to name
    await say(bot, other, club.bob, "/help")
    stranger = await club.private(club.bob, f"/puzzle chat={OTHER}")
    assert stranger.plain == text("private_not_member")


async def test_a_link_serves_only_a_club_of_the_members(
        running: tuple[Running, PictureStore]) -> None:
    bot, _ = running
    club = Club(bot)
    await club.founded(club.alice)
    await club.private(club.ada, "/puzzle add p1 answers=x A problem")
    # bob is no member: the link does nothing for him; a link to a chat that is no club makes
    # no club
    assert (await club.open_link(club.bob, LINK)).plain == text("private_not_member")
    forged = f"https://t.me/{BOT_USERNAME}?start=p-100777_0"
    assert (await club.open_link(club.alice, forged)).plain == text("private_not_member")
    assert [chat for _, _, chat in await bot.service._repository.clubs()] == [  # noqa: SLF001
        str(GROUP)]
    # a payload of no problem's link gets the private chat's answer
    for payload in ("hello", "p1_", "p-1001"):
        answer = await club.open_link(club.alice, f"https://t.me/{BOT_USERNAME}?start={payload}")
        assert answer.plain == text("telegram_private")
    # /rating in private is as it was
    await bot.tg.send(bot.tg.private(club.alice), club.alice, "/rating")
    rating = await bot.tg.reply(club.alice)
    assert rating.plain.startswith("Chess club: alice (main): 1500?"), rating.plain


async def test_an_old_solve_button_opens_the_private_chat(
        running: tuple[Running, PictureStore]) -> None:
    bot, _ = running
    club = Club(bot)
    await club.founded(club.alice)
    help_text = await say(bot, club.group, club.alice, "/help")
    pressed = await press(bot, club.group, club.alice, help_text, "p:solve:0", strict=False)
    assert pressed["text"] is None and not pressed["show_alert"]
    [answered] = bot.tg.called("answerCallbackQuery")
    assert answered["url"] == LINK
    pressed = await press(bot, club.group, club.alice, help_text, "p:answer:1", strict=False)
    assert (pressed["text"], pressed["show_alert"]) == (text("answer_private"), True)
    await asyncio.sleep(0.2)
    assert bot.tg.outputs(club.group)[-1].message_id == help_text.message_id


def test_the_keyboard_links_solve_and_leaves_answer_out() -> None:
    invite = keyboard(PuzzleInvite("puzzles", 7), bot_username="club_bot", club_chat="-1001")
    assert invite is not None
    [[button]] = invite.inline_keyboard
    assert (button.url, button.callback_data) == ("https://t.me/club_bot?start=p-1001_7", None)
    # without the bot's username or the club's chat, no link can be made: no button
    assert keyboard(PuzzleInvite("puzzles")) is None
    shown = PuzzleShown(ProblemCard("puzzles", "p1", 1, "x", 1500.0), "2024-03-01T19:30", 30)
    assert keyboard(shown, bot_username="club_bot", club_chat="-1001") is None
    assert deep_link("club_bot", "@channel", 1) is None  # not a payload Telegram carries
    assert deep_link("club_bot", "-1001234567890", 123456789012345678) == (
        "https://t.me/club_bot?start=p-1001234567890_123456789012345678")


async def test_a_puzzle_post_carries_its_link_under_its_photo_or_its_text(
        running: tuple[Running, PictureStore]) -> None:
    bot, _ = running
    club = Club(bot)
    publisher = TelegramPublisher(bot.app.bot)
    solve = Button("Solve privately", "p:solve:3", str(GROUP))
    await publisher.publish(str(GROUP), "Puzzle p3 (puzzles, rating 1500):\nWhite mates",
                            Picture(DIAGRAM, "p3.jpg"), [solve])
    photo = await bot.tg.reply(club.group)
    assert photo.kind == "photo" and photo.plain.startswith("Puzzle p3")
    assert photo.urls == [("Solve privately",
                           f"https://t.me/{BOT_USERNAME}?start=p{GROUP}_3")]
    # a text too long for a caption: the photo, then the text with the buttons under it
    await publisher.publish(str(GROUP), "x" * 2000, Picture(DIAGRAM, "p3.jpg"),
                            [solve, Button("Confirm", "g:confirm:#1", str(GROUP))])
    first, second = await bot.tg.reply(club.group), await bot.tg.reply(club.group)
    assert (first.kind, first.buttons, second.kind) == ("photo", [], "send")
    assert second.buttons == [[("Solve privately", f"https://t.me/{BOT_USERNAME}?start=p"
                                f"{GROUP}_3"), ("Confirm", "g:confirm:#1")]]
    # without a picture
    await publisher.publish(str(GROUP), "Solution of p3: Qh7", None, [])
    assert (await bot.tg.reply(club.group)).buttons == []


async def test_a_scheduled_puzzle_post_links_to_its_problem(
        running: tuple[Running, PictureStore]) -> None:
    """The scheduler's puzzle post through Telegram: the problem with its picture as a photo,
    its Solve button a link naming that problem, which serves it privately."""
    bot, store = running
    club = Club(bot)
    await club.founded(club.alice)
    await club.private(club.ada, "/puzzle add p1 answers=x First", DIAGRAM)
    await club.private(club.ada, "/puzzle add p2 rating=1500 answers=Nf7 Second")
    scheduled = await say(bot, club.group, club.ada,
                          '/schedule puzzles cron="0 18 * * FRI" tz=UTC')
    assert "puzzles" in scheduled.plain, scheduled.plain
    scheduler = ScheduledPosts(bot.service, bot.service._repository,  # noqa: SLF001
                              {"telegram": TelegramPublisher(bot.app.bot)}, bot.clock,
                              ChatPosts(), store=store)
    bot.clock.current = datetime(2024, 3, 8, 18, 0)
    await asyncio.gather(*await scheduler.poll())
    post = await bot.tg.reply(club.group, 5.0)
    assert post.kind == "photo" and post.size == len(DIAGRAM), post
    assert post.plain.startswith("Puzzle p1 (puzzles, rating 1500):"), post.plain
    [(label, url)] = post.urls
    assert label == text("button_solve") and url.startswith(
        f"https://t.me/{BOT_USERNAME}?start=p{GROUP}_") and not url.endswith("_0")
    shown = await club.open_link(club.alice, url)
    assert shown.kind == "photo" and shown.plain.startswith("Problem p1 (puzzles"), shown.plain
