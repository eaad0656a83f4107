"""The fake Bot API server against the real python-telegram-bot Application (a tiny echo bot)."""

from __future__ import annotations

import asyncio
import datetime as dtm
import html
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from telegram import (
    BotCommandScopeChat,
    ChatMemberAdministrator,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from tests.fake_telegram import BOT_ID, TOKEN, FakeTelegram, plain

App = Application[Any, Any, Any, Any, Any, Any]
PHOTO = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
KEYBOARD = InlineKeyboardMarkup(
    [[InlineKeyboardButton("Win", callback_data="win"),
      InlineKeyboardButton("Loss", callback_data="loss")]]
)


async def record(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    context.bot_data.setdefault("updates", []).append(update)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.message and update.effective_user
    try:
        name = html.escape(update.effective_user.first_name)
        await update.message.reply_html(f"Hello <b>{name}</b> &amp; welcome", reply_markup=KEYBOARD)
    except RetryAfter as exc:
        context.bot_data.setdefault("retry_after", []).append(exc)


async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query
    await query.answer(f"You chose {query.data}", show_alert=True)
    await query.edit_message_text(
        f"{html.escape(query.from_user.first_name)} chose <i>{query.data}</i>",
        parse_mode=ParseMode.HTML,
    )


async def chart(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.message
    await update.message.reply_photo(PHOTO, caption="Ratings")


async def rate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.message
    await update.message.reply_text("noted")


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(token=TOKEN) as fake:
        yield fake


@pytest.fixture
async def app(tg: FakeTelegram) -> AsyncIterator[App]:
    application = (
        ApplicationBuilder()
        .token(TOKEN)
        .base_url(f"{tg.url}/bot")
        .base_file_url(f"{tg.url}/file/bot")
        .build()
    )
    application.add_handler(TypeHandler(Update, record), group=-1)
    application.add_handler(CommandHandler("start", start))
    application.add_handler(CommandHandler("chart", chart))
    application.add_handler(CommandHandler("rate", rate))
    application.add_handler(CallbackQueryHandler(button))
    await application.initialize()
    await application.start()
    await application.updater.start_polling(poll_interval=0, timeout=10)  # type: ignore[union-attr]
    yield application
    if application.updater and application.updater.running:
        await application.updater.stop()
    if application.running:
        await application.stop()
    await application.shutdown()


def seen_ids(app: App) -> list[int]:
    return [update.update_id for update in app.bot_data.get("updates", [])]


async def test_command_round_trip(tg: FakeTelegram, app: App) -> None:
    alice = tg.user(1, "Alice", "alice")
    began = time.perf_counter()
    await tg.send(alice, alice, "/start")
    out = await tg.reply(alice)
    elapsed = time.perf_counter() - began
    print(f"/start -> sendMessage round trip: {elapsed * 1000:.1f} ms")
    assert elapsed < 0.5
    assert (out.kind, out.chat_id, out.message_id) == ("send", 1, 2)  # /start was message 1
    assert out.text == "Hello <b>Alice</b> &amp; welcome" and out.parse_mode == "HTML"
    assert out.plain == "Hello Alice & welcome"
    assert out.buttons == [[("Win", "win"), ("Loss", "loss")]]
    assert tg.called("getMe") and tg.called("deleteWebhook")
    send = tg.called("sendMessage")[0]
    assert send["chat_id"] == 1 and send["reply_markup"]["inline_keyboard"][0][1]["text"] == "Loss"
    assert tg.outputs(alice) == [out]
    assert tg.errors == []


async def test_button_press_edits_and_answers(tg: FakeTelegram, app: App) -> None:
    bob = tg.user(2, "Bob <3")
    chat = tg.private(bob)
    await tg.send(chat, bob, "/start")
    menu = await tg.reply(chat)
    await tg.press(chat, bob, menu.message_id, "loss")
    edit = await tg.reply(chat)
    assert (edit.kind, edit.message_id) == ("edit", menu.message_id)
    assert edit.plain == "Bob <3 chose loss"
    assert edit.buttons == []  # edited without reply_markup: Telegram drops the keyboard
    [answer] = tg.callback_answers
    assert answer["data"] == "loss" and answer["text"] == "You chose loss" and answer["show_alert"]
    with pytest.raises(AssertionError, match="no button"):
        await tg.press(chat, bob, menu.message_id, "win")  # the keyboard is gone now


async def test_send_photo_and_download(tg: FakeTelegram, app: App) -> None:
    alice = tg.user(1, "Alice", "alice")
    club = tg.group(-1001, "Chess club", admins=[alice])
    await tg.send(club, alice, "/chart")
    out = await tg.reply(club)
    assert (out.kind, out.text, out.size) == ("photo", "Ratings", len(PHOTO))
    photo = tg.message(club, out.message_id)["photo"][0]  # type: ignore[index]
    file = await app.bot.get_file(photo["file_id"])
    assert bytes(await file.download_as_bytearray()) == PHOTO


async def test_a_members_photo_with_a_command_caption(tg: FakeTelegram, app: App) -> None:
    got: list[tuple[bytes, str | None, list[tuple[str, str]]]] = []

    async def photo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.message
        assert message and message.photo
        file = await message.photo[-1].get_file()
        entities = [(e.type, text) for e, text in message.parse_caption_entities().items()]
        got.append((bytes(await file.download_as_bytearray()), message.caption, entities))
        await message.reply_text("stored")

    app.add_handler(MessageHandler(filters.PHOTO, photo))
    alice = tg.user(1, "Alice", "alice")
    club = tg.group(-1001, "Chess club", admins=[alice])
    image = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + (640).to_bytes(4, "big") + (
        480).to_bytes(4, "big") + bytes(range(256)) * 4
    await tg.send(club, alice, "/puzzle add p1 answers=e4 White to move", photo=image)
    assert (await tg.reply(club)).text == "stored"
    [(data, caption, entities)] = got
    assert data == image
    assert caption == "/puzzle add p1 answers=e4 White to move"
    assert entities == [("bot_command", "/puzzle")]
    message = app.bot_data["updates"][-1].message
    assert message.text is None and message.entities == ()
    small, large = message.photo
    assert (large.width, large.height, large.file_size) == (640, 480, len(image))
    assert (small.width, small.height) == (90, 68) and small.file_id != large.file_id
    thumbnail = await (await app.bot.get_file(small.file_id)).download_as_bytearray()
    assert bytes(thumbnail) != image  # only the largest size is the photo sent


async def test_link_buttons_on_a_photo_and_a_deep_link(tg: FakeTelegram, app: App) -> None:
    link = "https://t.me/clubrating_bot?start=p1-solve_2"
    started: list[list[str]] = []

    async def puzzle(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.message
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Solve", url=link),
                                          InlineKeyboardButton("Skip", callback_data="skip")]])
        await update.message.reply_photo(PHOTO, caption="Puzzle <b>p1</b>",
                                         parse_mode=ParseMode.HTML, reply_markup=keyboard)

    async def deep(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        started.append(list(context.args or []))

    app.add_handler(CommandHandler("puzzle", puzzle))
    app.add_handler(CommandHandler("start", deep), group=1)
    alice, bob = tg.user(1, "Alice", "alice"), tg.user(2, "Bob")
    club = tg.group(-1001, "Chess club", admins=[alice])
    await tg.send(club, alice, "/puzzle")
    out = await tg.reply(club)
    assert (out.kind, out.plain, out.size) == ("photo", "Puzzle p1", len(PHOTO))
    assert out.urls == [("Solve", link)]
    assert out.buttons == [[("Solve", link), ("Skip", "skip")]]
    assert tg.message(club, out.message_id)["reply_markup"]["inline_keyboard"][0][1] == {  # type: ignore[index]
        "text": "Skip", "callback_data": "skip"}
    with pytest.raises(AssertionError, match="no button"):
        await tg.press(club, bob, out, link)  # a link button sends no callback query
    await tg.start_link(bob, out.urls[0][1])
    assert (await tg.reply(bob)).plain == "Hello Bob & welcome"  # the start handler answered
    for _ in range(100):
        if started:
            break
        await asyncio.sleep(0.01)
    message = app.bot_data["updates"][-1].message
    assert (message.chat.id, message.chat.type, message.text) == (bob.id, "private",
                                                                 "/start p1-solve_2")
    assert [(e.type, text) for e, text in message.parse_entities().items()] == [
        ("bot_command", "/start")]
    assert started == [["p1-solve_2"]]
    with pytest.raises(BadRequest, match="(?i)URL 'loss' is invalid"):
        await app.bot.send_message(club.id, "x", reply_markup=InlineKeyboardMarkup(
            [[InlineKeyboardButton("Loss", url="loss")]]))
    for wrong in ("https://t.me/other_bot?start=p1", "https://t.me/clubrating_bot?start=a b",
                  "https://t.me/clubrating_bot?start=" + "x" * 65, "t.me/clubrating_bot?start=x",
                  "https://t.me/clubrating_bot?start="):
        with pytest.raises(AssertionError):
            await tg.start_link(bob, wrong)


async def test_flood_surfaces_as_retry_after(
    tg: FakeTelegram, app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # else RetryAfter warns about int seconds
    alice = tg.user(1, "Alice", "alice")
    tg.flood("sendMessage", retry_after=7)
    await tg.send(alice, alice, "/start")
    for _ in range(200):
        if app.bot_data.get("retry_after"):
            break
        await asyncio.sleep(0.01)
    [error] = app.bot_data["retry_after"]
    assert error.retry_after == dtm.timedelta(seconds=7)
    assert tg.errors == [("sendMessage", 429, "Too Many Requests: retry after 7")]
    assert tg.outputs(alice) == []
    await tg.send(alice, alice, "/start")  # the flood was for one call only
    assert (await tg.reply(alice)).plain.startswith("Hello Alice")


async def test_redelivered_update_reaches_handler_again(
    tg: FakeTelegram, app: App
) -> None:
    alice = tg.user(1, "Alice", "alice")
    first = await tg.send(alice, alice, "/start")
    await tg.reply(alice)
    assert await tg.redeliver(first) == first
    again = await tg.reply(alice)
    later = await tg.send(alice, alice, "/start")
    await tg.reply(alice)
    assert seen_ids(app) == [first, first, later]
    assert again.message_id == 3  # a second answer to the same message 1


async def test_entities_and_replies_arrive_as_ptb_objects(
    tg: FakeTelegram, app: App
) -> None:
    alice = tg.user(1, "Alice", "alice")
    bob = tg.user(2, "Bob", last_name="Stone")  # no username: only a text_mention finds him
    club = tg.group(-1001, "Chess club", admins=[alice])
    said = await tg.send(club, bob, "gg")
    bob_message_id = tg.updates[said]["message"]["message_id"]
    text = "/rate@clubrating_bot 🏆 @carol beat"
    await tg.send(club, alice, text, mention=bob, reply_to=bob_message_id)
    assert (await tg.reply(club)).text == "noted"
    message = app.bot_data["updates"][-1].message
    assert message.text == "/rate@clubrating_bot 🏆 @carol beat Bob Stone"
    assert message.from_user.username == "alice" and message.chat.title == "Chess club"
    entities = {e.type: (text, e.user) for e, text in message.parse_entities().items()}
    assert entities["bot_command"] == ("/rate@clubrating_bot", None)
    assert entities["mention"] == ("@carol", None)  # offsets count the emoji as 2 UTF-16 units
    assert entities["text_mention"][0] == "Bob Stone"
    assert entities["text_mention"][1].id == bob.id
    assert message.reply_to_message.from_user.id == bob.id
    assert message.reply_to_message.text == "gg"


async def test_chat_members_commands_and_errors(tg: FakeTelegram, app: App) -> None:
    alice, bob, carol = tg.user(1, "Alice"), tg.user(2, "Bob"), tg.user(3, "Carol")
    club = tg.group(-1001, "Chess club", admins=[bob], creator=alice)
    assert isinstance(await app.bot.get_chat_member(club.id, alice.id), ChatMemberOwner)
    assert isinstance(await app.bot.get_chat_member(club.id, bob.id), ChatMemberAdministrator)
    assert (await app.bot.get_chat_member(club.id, carol.id)).status == "member"
    admins = await app.bot.get_chat_administrators(club.id)
    statuses = [(a.status, a.user.id) for a in admins]
    assert statuses == [("creator", 1), ("administrator", 2), ("administrator", BOT_ID)]
    assert (await app.bot.get_chat(club.id)).title == "Chess club"
    await app.bot.set_my_commands([("rate", "Record a game")])
    await app.bot.set_my_commands([("top", "Ratings")], BotCommandScopeChat(-1001))
    assert tg.commands == {
        "default": [{"command": "rate", "description": "Record a game"}],
        "chat:-1001": [{"command": "top", "description": "Ratings"}],
    }
    assert [c.command for c in await app.bot.get_my_commands()] == ["rate"]
    with pytest.raises(BadRequest, match="(?i)can't parse entities"):
        await app.bot.send_message(club.id, "1 < 2", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="too long"):
        await app.bot.send_message(club.id, "x" * 4097)
    sent = await app.bot.send_message(club.id, "same")
    with pytest.raises(BadRequest, match="not modified"):
        await sent.edit_text("same")
    assert await sent.delete()
    assert tg.message(club, sent.message_id) is None


async def test_raw_http_contract(tg: FakeTelegram) -> None:
    alice = tg.user(1, "Alice")
    tg.private(alice)
    api = f"{tg.url}/bot{TOKEN}"
    async with aiohttp.ClientSession() as http:
        form = await http.post(f"{api}/SENDMESSAGE", data={"chat_id": "1", "text": "123"})
        assert (await form.json())["result"]["text"] == "123"  # a str, not json-decoded
        json_body = await http.post(f"{api}/sendMessage", json={"chat_id": 1, "text": "hi"})
        assert (await json_body.json())["result"]["message_id"] == 2
        unknown = await http.post(f"{api}/sendTelepathy")
        assert unknown.status == 404
        assert await unknown.json() == {
            "ok": False,
            "error_code": 404,
            "description": "Not Found: method not found",
        }
        stranger = await http.post(f"{api}/sendMessage", data={"chat_id": "9", "text": "x"})
        assert (await stranger.json())["error_code"] == 400
        wrong_token = await http.post(f"{tg.url}/bot1:nope/getMe")
        assert wrong_token.status == 401
    assert [o.text for o in tg.outputs(alice)] == ["123", "hi"]
    assert plain("<b>Bob</b> &lt;3 &amp; co", "HTML") == "Bob <3 & co"


async def test_long_polls_conflict_and_are_released_on_stop() -> None:
    async with aiohttp.ClientSession() as http:
        async with FakeTelegram() as tg:
            url = f"{tg.url}/bot{TOKEN}/getUpdates"
            older = asyncio.create_task(http.post(url, data={"timeout": "30"}))
            await asyncio.sleep(0.05)
            newer = asyncio.create_task(http.post(url, data={"timeout": "30"}))
            assert (await older).status == 409  # as on Telegram: one poller per bot
            await asyncio.sleep(0.05)
            began = time.perf_counter()
        response = await newer
        assert time.perf_counter() - began < 0.5
        assert await response.json() == {"ok": True, "result": []}


async def test_shutdown_is_fast(tg: FakeTelegram, app: App) -> None:
    alice = tg.user(1, "Alice", "alice")
    await tg.send(alice, alice, "/start")
    await tg.reply(alice)
    await asyncio.sleep(0.05)  # PTB is now inside a 10 s long poll
    began = time.perf_counter()
    await app.updater.stop()  # type: ignore[union-attr]
    await app.stop()
    await app.shutdown()
    elapsed = time.perf_counter() - began
    print(f"updater.stop + stop + shutdown: {elapsed * 1000:.1f} ms")
    assert elapsed < 0.5
    assert tg.called("getUpdates")[-1]["timeout"] == 0  # PTB's final confirming call
    await tg.send(alice, alice, "/start")  # confirmed updates are gone, new ones wait
    assert len(tg._queue) == 1


async def test_pins_deleted_messages_a_muted_bot_and_failures_on_demand(
        tg: FakeTelegram, app: App) -> None:
    """What a live leaderboard meets (issue 38): pinChatMessage where the bot is an
    administrator (refused where it is not), a message a member deleted ("message to edit not
    found"), a bot restricted from sending, and a failure the test asks for."""
    ada = tg.user(1, "Ada", "ada")
    group = tg.group(-5, "Club", admins=[ada])
    plain_member = tg.group(-6, "Other", admins=[ada], bot_admin=False)
    sent = await app.bot.send_message(-5, "table")
    assert await app.bot.pin_chat_message(-5, sent.message_id, disable_notification=True)
    assert group.pinned == [sent.message_id]
    other = await app.bot.send_message(-6, "table")
    with pytest.raises(BadRequest, match="(?i)not enough rights to manage pinned messages"):
        await app.bot.pin_chat_message(-6, other.message_id)
    assert plain_member.pinned == []

    tg.delete(group, sent.message_id)
    assert group.pinned == [] and tg.message(group, sent.message_id) is None
    with pytest.raises(BadRequest, match="[Mm]essage to edit not found"):
        await app.bot.edit_message_text("new table", chat_id=-5, message_id=sent.message_id)

    muted = tg.group(-7, "Muted", admins=[ada], bot_admin=False)
    muted.bot_muted = True
    me = await app.bot.get_chat_member(-7, BOT_ID)
    assert me.status == "restricted" and not getattr(me, "can_send_messages", True)
    with pytest.raises(BadRequest, match="(?i)not enough rights to send text messages"):
        await app.bot.send_message(-7, "table")

    again = await app.bot.send_message(-5, "table")
    tg.fail("editMessageText", "Bad Request: message can't be edited", times=2)
    for _ in range(2):
        with pytest.raises(BadRequest, match="(?i)can.t be edited"):
            await app.bot.edit_message_text("x", chat_id=-5, message_id=again.message_id)
    await app.bot.edit_message_text("x", chat_id=-5, message_id=again.message_id)
    assert tg.message(group, again.message_id)["text"] == "x"  # type: ignore[index]
