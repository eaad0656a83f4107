"""A fake Telegram Bot API server on 127.0.0.1 for tests, driven by a real python-telegram-bot.

    async with FakeTelegram() as tg:
        app = (ApplicationBuilder().token(TOKEN).base_url(f"{tg.url}/bot")
               .base_file_url(f"{tg.url}/file/bot").build())
        alice = tg.user(1, "Alice", "alice")
        await tg.send(tg.private(alice), alice, "/start")
        answer = await tg.reply(alice)          # next new bot output in Alice's private chat

PTB calls ``POST {base_url}{token}/{method}``; form values are JSON-encoded except plain strings.
Answers follow the real API ({"ok": true, "result": ...} or {"ok": false, "error_code": ...}),
including some of its traps: editing without ``reply_markup`` removes the inline keyboard,
an identical edit is "message is not modified", bad HTML is "can't parse entities", a long text
is "message is too long", and the bot can't write first to a user without a private chat.
Members can also send photos with a caption (``send(..., photo=...)``) and open the bot's deep
links (``start_link``); link buttons show on an output as ``urls``.

After ``setWebhook`` the updates are not polled but delivered, as Telegram does: each POSTed to
the webhook's URL (or, in turn, to each of ``balancer``'s, a load balancer's processes) with
the secret token header, at most one update of a chat in flight (the chat's next only after a
200), and an update whose POST failed or was answered otherwise delivered again after a
pause (``webhook_error`` says why). ``twice`` names updates delivered once more after their
200, as after a 200 that never reached Telegram.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import html
import itertools
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from tests.flood_control import FloodControl, FloodLimit

BOT_ID = 123456
#: the user Telegram shows as the sender of every message sent on behalf of a channel
CHANNEL_BOT = {"id": 136817688, "is_bot": True, "first_name": "Channel", "username": "Channel_Bot"}
TOKEN = f"{BOT_ID}:TEST-TOKEN"
BOT_USERNAME = "clubrating_bot"

Markup = dict[str, Any] | None
_TEXT_PARAMS = {  # free-text parameters PTB sends raw; never json-decode them ("123" stays a str)
    "text", "caption", "parse_mode", "callback_query_id", "data", "url", "secret_token",
    "language_code", "file_id", "title", "description", "inline_message_id", "custom_title",
}
_HTML_TAGS = {
    "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a",
    "code", "pre", "blockquote", "tg-emoji",
}
_ADMIN_RIGHTS = dict.fromkeys(
    ("can_manage_chat", "can_delete_messages", "can_manage_video_chats", "can_restrict_members",
     "can_promote_members", "can_change_info", "can_invite_users", "can_post_stories",
     "can_edit_stories", "can_delete_stories", "can_pin_messages"),
    True,
) | {"can_be_edited": False, "is_anonymous": False}


@dataclass(frozen=True)
class User:
    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    is_bot: bool = False
    #: the language of the person's Telegram app (IETF tag), sent with their updates
    language_code: str | None = None

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def api(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


@dataclass(eq=False)
class Chat:
    id: int
    type: str  # "private", "group" or "supergroup"
    title: str | None = None
    user: User | None = None  # the other side of a private chat
    admins: list[User] = field(default_factory=list)
    creator: User | None = None
    bot_admin: bool = True
    bot_left: bool = False  # the bot was removed from the chat: its posts are refused
    #: the bot is a member that may not send messages (restricted): its posts are refused
    bot_muted: bool = False
    #: the ids of the chat's pinned messages, the latest last (pinChatMessage)
    pinned: list[int] = field(default_factory=list)
    is_forum: bool = False  # a supergroup whose messages live in topics

    def api(self) -> dict[str, Any]:
        if self.user is None:
            forum = {"is_forum": True} if self.is_forum else {}
            return {"id": self.id, "type": self.type, "title": self.title} | forum
        names = {k: v for k, v in self.user.api().items() if k not in ("id", "is_bot")}
        return {"id": self.id, "type": "private"} | names


@dataclass
class Output:
    """One thing the bot did in a chat: kind is "send", "edit" or "photo" (text = caption)."""

    kind: str
    chat_id: int
    message_id: int
    text: str | None
    parse_mode: str | None
    buttons: list[list[tuple[str, str | None]]]  # rows of (text, callback_data or url)
    size: int | None = None  # uploaded photo bytes
    #: the link buttons, (text, url) in reading order (they are in ``buttons`` too)
    urls: list[tuple[str, str]] = field(default_factory=list)

    @property
    def plain(self) -> str:
        return plain(self.text, self.parse_mode)


class ApiError(Exception):
    def __init__(self, code: int, description: str, parameters: dict[str, Any] | None = None):
        super().__init__(description)
        self.code, self.description, self.parameters = code, description, parameters


def plain(text: str | None, parse_mode: str | None = None) -> str:
    """The text as a user reads it: HTML tags stripped and entities unescaped (Markdown: rough)."""
    mode = (parse_mode or "").lower()
    if text is None:
        return ""
    if mode == "html":
        return html.unescape(re.sub(r"<[^<>]*>", "", text))
    if mode.startswith("markdown"):
        return re.sub(r"\\(.)", r"\1", re.sub(r"(?<!\\)[*_~`]|(?<!\\)\|\|", "", text))
    return text


def _u16(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def _html_error(text: str) -> str | None:
    stack: list[str] = []
    for match in re.finditer(r"<[^<>]*>?", text):
        at = len(text[: match.start()].encode())
        tag = re.fullmatch(r"<(/?)([A-Za-z][\w-]*)(?:\s[^<>]*)?>", match.group())
        if tag is None or tag[2].lower() not in _HTML_TAGS:
            name = tag[2] if tag else match.group()[1:].split(" ")[0].rstrip(">")
            return f'Unsupported start tag "{name}" at byte offset {at}'
        if not tag[1]:
            stack.append(tag[2].lower())
        elif not stack or stack.pop() != tag[2].lower():
            return f"Unmatched end tag at byte offset {at}"
    return f'Can\'t find end tag corresponding to start tag "{stack[-1]}"' if stack else None


def _buttons(markup: Markup) -> list[list[tuple[str, str | None]]]:
    rows = (markup or {}).get("inline_keyboard", [])
    return [[(b["text"], b.get("callback_data", b.get("url"))) for b in row] for row in rows]


def _message_id(message: int | Output) -> int:
    return message if isinstance(message, int) else message.message_id


def _urls(markup: Markup) -> list[tuple[str, str]]:
    rows = (markup or {}).get("inline_keyboard", [])
    return [(b["text"], b["url"]) for row in rows for b in row if "url" in b]


def _callback_datas(markup: Markup) -> list[str]:
    rows = (markup or {}).get("inline_keyboard", [])
    return [b["callback_data"] for row in rows for b in row if "callback_data" in b]


def _dimensions(data: bytes) -> tuple[int, int]:
    """A PNG's width and height (from its IHDR chunk); anything else passes for 800 x 600."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return 800, 600


def _decode(key: str, value: Any) -> Any:
    if not isinstance(value, str) or key in _TEXT_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


async def _read_params(request: web.Request) -> dict[str, Any]:
    params = {key: _decode(key, value) for key, value in request.query.items()}
    if request.content_type == "application/json" and request.can_read_body:
        params.update({key: _decode(key, value) for key, value in (await request.json()).items()})
    elif request.can_read_body:
        for key, value in (await request.post()).items():
            is_file = isinstance(value, web.FileField)
            params[key] = value.file.read() if is_file else _decode(key, value)  # type: ignore[union-attr]
    return params


def _chat_of(update: dict[str, Any]) -> int:
    """The chat an update belongs to (a button's: its message's chat)."""
    message = update.get("message") or (update.get("callback_query") or {}).get("message")
    if message is not None:
        return int(message["chat"]["id"])
    return int(update["callback_query"]["from"]["id"])


def _failure(
    code: int, description: str, parameters: dict[str, Any] | None = None
) -> web.Response:
    body = {"ok": False, "error_code": code, "description": description}
    return web.json_response(body | ({"parameters": parameters} if parameters else {}), status=code)


class FakeTelegram:
    """The Bot API (the methods below named ``api_<method>``) plus a test-side API."""

    def __init__(self, token: str | None = None, clock: Callable[[], float] = time.time,
                 first_id: int = 1) -> None:
        """``first_id``: the first update id (and other ids) this Bot API gives: Telegram's
        update ids keep growing, so a fake standing in for it again after a restart of the bot
        on the same database must not give an id the bot kept before (issue 41)."""
        self.token, self.clock = token, clock  # token None: accept any token
        self.url = ""
        self.bot = User(BOT_ID, "Club Rating", BOT_USERNAME, is_bot=True)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.errors: list[tuple[str, int, str]] = []  # (method, error_code, description)
        self.callback_answers: list[dict[str, Any]] = []
        self.commands: dict[str, list[dict[str, Any]]] = {}  # scope key -> commands
        self.webhook: dict[str, Any] | None = None
        self.updates: dict[int, dict[str, Any]] = {}  # every update ever queued, by update_id
        self.files: dict[str, bytes] = {}
        self._users: dict[int, User] = {}
        self._chats: dict[int, Chat] = {}
        self._messages: dict[tuple[int, int], dict[str, Any]] = {}
        self._next_message_id: dict[int, int] = {}
        self._outputs: dict[int, list[Output]] = {}
        self._seen: dict[int, int] = {}  # per chat: outputs already returned by reply()
        self._queue: list[list[Any]] = []  # [update, delivered?] in delivery order
        self._flood: dict[str, list[int]] = {}  # lower-case method -> [retry_after, times]
        #: every send (a call into a chat, other than a read) and its chat; past Telegram's 30
        #: a second in all or 20 a minute in one group, refused with 429 when turned ``on``
        self.flood_control = FloodControl([FloodLimit(30, 1.0), FloodLimit(20, 60.0, True)])
        #: lower-case method -> [(error_code, description), ...]: its next calls' answers
        self._failing: dict[str, list[tuple[int, str]]] = {}
        self._queries: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(first_id)
        self._poll_generation = 0
        self._closing = False
        #: long polls get no answer while set: a Bot API that went dead without closing
        self.silent = False
        #: the webhook's last delivery error (Unix time, message), as getWebhookInfo says it
        self.webhook_error: tuple[int, str] | None = None
        self._wake = asyncio.Event()
        self._api = {n[4:].lower(): getattr(self, n) for n in dir(self) if n.startswith("api_")}
        self._runner: web.AppRunner | None = None
        #: a webhook's updates are delivered (False: a test posts them itself)
        self.delivering = True
        #: the webhook's addresses behind a load balancer, each delivery to the next in turn
        #: (None: the URL setWebhook gave)
        self.balancer: list[str] | None = None
        #: updates to deliver once more after their 200 (a 200 lost on its way)
        self.twice: set[int] = set()
        #: every webhook delivery: (update_id, address, HTTP status or None if it failed)
        self.deliveries: list[tuple[int, str, int | None]] = []
        self._turn = itertools.count()
        self._delivery: asyncio.Task[None] | None = None
        self._posting: set[asyncio.Task[None]] = set()
        self._http: aiohttp.ClientSession | None = None

    # -- server ---------------------------------------------------------------------------
    async def __aenter__(self) -> FakeTelegram:
        app = web.Application(client_max_size=64 * 2**20)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        self._runner = web.AppRunner(
            app, handler_cancellation=True, shutdown_timeout=1.0, access_log=None
        )
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.url = "http://127.0.0.1:{1}".format(*self._runner.addresses[0])
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._closing = True  # pending long polls answer [] at once
        self._notify()
        for task in [self._delivery, *self._posting]:
            if task is not None:
                task.cancel()
        await asyncio.gather(*[t for t in [self._delivery, *self._posting] if t is not None],
                             return_exceptions=True)
        if self._http is not None:
            await self._http.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _notify(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    async def _wait(self, deadline: float) -> bool:
        """Sleep until something happens or the deadline; False once the deadline passed."""
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0 or self._closing:
            return False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), left)
        return True

    async def _handle(self, request: web.Request) -> web.Response:
        if self.token is not None and request.match_info["token"] != self.token:
            return _failure(401, "Unauthorized")
        handler = self._api.get(request.match_info["method"].lower())
        method = handler.__name__[4:] if handler else request.match_info["method"]
        params = await _read_params(request)
        self.calls.append((method, params))
        try:
            if handler is None:
                raise ApiError(404, "Not Found: method not found")
            if self._flood.get(method.lower(), [0, 0])[1] > 0:
                retry_after = self._flood[method.lower()][0]
                self._flood[method.lower()][1] -= 1
                raise ApiError(429, f"Too Many Requests: retry after {retry_after}",
                               {"retry_after": retry_after})
            retry_after = self._flood_control(method, params)
            if retry_after is not None:
                raise ApiError(429, f"Too Many Requests: retry after {retry_after}",
                               {"retry_after": retry_after})
            if self._failing.get(method.lower()):
                code, description = self._failing[method.lower()].pop(0)
                raise ApiError(code, description)
            try:
                result = await handler(params)
            except KeyError as missing:
                raise ApiError(400, f"Bad Request: {missing.args[0]} is empty") from None
        except ApiError as error:
            self.errors.append((method, error.code, error.description))
            return _failure(error.code, error.description, error.parameters)
        return web.json_response({"ok": True, "result": result})

    def _flood_control(self, method: str, params: dict[str, Any]) -> int | None:
        """Count a send into a chat; the seconds to wait when flood control refuses it."""
        chat_id = params.get("chat_id")
        if chat_id is None or method.lower().startswith("get"):
            return None
        with contextlib.suppress(ValueError, TypeError):
            chat_id = int(chat_id)
        group = isinstance(chat_id, str) or chat_id < 0
        return self.flood_control.admit(chat_id if group else None)

    async def _download(self, request: web.Request) -> web.Response:
        file_id = request.match_info["path"].rsplit("/", 1)[-1].split(".")[0]
        if file_id not in self.files:
            raise web.HTTPNotFound()
        return web.Response(body=self.files[file_id])

    # -- test-side API --------------------------------------------------------------------
    def user(
        self, id: int, first_name: str, username: str | None = None, last_name: str | None = None,
        language_code: str | None = None,
    ) -> User:
        self._users[id] = User(id, first_name, username, last_name, language_code=language_code)
        return self._users[id]

    def group(
        self,
        chat_id: int,
        title: str,
        admins: Iterable[User] = (),
        creator: User | None = None,
        bot_admin: bool = True,
        type: str = "supergroup",
        forum: bool = False,
    ) -> Chat:
        chat = Chat(chat_id, type, title, admins=list(admins), creator=creator,
                    bot_admin=bot_admin, is_forum=forum)
        self._chats[chat_id] = chat
        return chat

    def private(self, user: User) -> Chat:
        """The private chat of ``user`` with the bot (created as if the user opened it)."""
        if user.id not in self._chats:
            self._chats[user.id] = Chat(user.id, "private", user=user)
        return self._chats[user.id]

    def topic(self, chat: Chat, creator: User, name: str) -> int:
        """``creator`` opens a topic in the forum ``chat``: its creation message (a service
        message, ``forum_topic_created``), whose id is the topic's thread id."""
        assert chat.is_forum, f"chat {chat.id} is no forum"
        created = {"name": name, "icon_color": 7322096}
        message = self._store(chat, creator, forum_topic_created=created)
        message["message_thread_id"] = message["message_id"]
        return int(message["message_id"])

    async def send(
        self,
        chat: Chat | User | int,
        user: User,
        text: str,
        reply_to: int | Output | None = None,
        mention: User | Iterable[User] | None = None,
        topic: int | None = None,
        sender_chat: Chat | None = None,
        photo: bytes | None = None,
    ) -> int:
        """Queue a text message from ``user``; returns its update_id. ``mention`` users get a
        text_mention entity on their full name (appended to the text when it is missing).
        ``topic``: sent in that forum topic, as Telegram sends it: with the topic's thread id,
        and answering the topic's creation message unless it answers another (``reply_to``).
        ``sender_chat``: sent on behalf of that channel, from Telegram's shared channel user.
        ``photo``: a photo (its bytes) with ``text`` as its caption, as Telegram sends it: no
        ``text``, a ``caption`` with ``caption_entities`` (a /command in it is a bot_command),
        and ``photo`` in two sizes, largest last. Only the largest downloads as these bytes
        (getFile); the smaller is a thumbnail, other bytes."""
        chat = self._chat(chat)
        entities = [
            {"type": kind, "offset": _u16(text[: m.start()]), "length": _u16(m.group())}
            for kind, pattern in (("bot_command", r"(?<!\S)/\w{1,32}(@\w+)?"),
                                  ("mention", r"(?<![\w/@])@[A-Za-z0-9_]{1,32}"))
            for m in re.finditer(pattern, text)
        ]
        for target in [mention] if isinstance(mention, User) else list(mention or ()):
            if target.full_name not in text:
                text = f"{text} {target.full_name}"
            offset = _u16(text[: text.index(target.full_name)])
            entities.append({"type": "text_mention", "offset": offset,
                             "length": _u16(target.full_name), "user": target.api()})
        if photo is None:
            message = self._store(chat, user, text=text, entities=entities or None)
        else:
            message = self._store(chat, user, photo=self._photo_sizes(photo), caption=text or None,
                                  caption_entities=entities or None)
        if sender_chat is not None:
            message["from"], message["sender_chat"] = dict(CHANNEL_BOT), sender_chat.api()
        if topic is not None:
            message |= {"message_thread_id": topic, "is_topic_message": True}
            reply_to = reply_to if reply_to is not None else topic
        if reply_to is not None:
            replied = self.message(chat, _message_id(reply_to))
            assert replied is not None, f"no message {reply_to} in chat {chat.id}"
            message["reply_to_message"] = {k: v for k, v in replied.items()
                                           if k != "reply_to_message"}
        return self._enqueue(message=copy.deepcopy(message))

    async def press(
        self, chat: Chat | User | int, user: User, message_id: int | Output, data: str,
        strict: bool = True,
    ) -> int:
        """Queue a callback_query for a button of a bot message; returns its update_id.
        ``strict``: the message must currently show a button with this callback_data."""
        chat = self._chat(chat)
        message = self.message(chat, _message_id(message_id))
        assert message is not None, f"no message {message_id} in chat {chat.id}"
        datas = _callback_datas(message.get("reply_markup"))  # a url button opens its link
        assert not strict or data in datas, f"no button {data!r} on message, only {datas}"
        query_id = str(next(self._ids))
        self._queries[query_id] = {"id": query_id, "from": user.api(), "chat_instance":
                                   str(chat.id), "message": copy.deepcopy(message), "data": data}
        return self._enqueue(callback_query=self._queries[query_id])

    async def start_link(self, user: User, url: str) -> int:
        """``user`` opens the deep link ``https://t.me/<bot username>?start=<payload>``: Telegram
        opens their private chat with the bot and sends ``/start <payload>`` there (a
        bot_command entity over ``/start``); returns its update_id. The link must be one
        Telegram accepts: this bot's username and a payload of 1-64 of ``A-Z a-z 0-9 _ -``."""
        link = re.fullmatch(r"https://t\.me/([A-Za-z0-9_]+)\?start=([A-Za-z0-9_-]{1,64})", url)
        assert link is not None, f"not a deep link Telegram opens with a start payload: {url!r}"
        assert link[1].lower() == BOT_USERNAME.lower(), f"a link to @{link[1]}, not to this bot"
        return await self.send(self.private(user), user, f"/start {link[2]}")

    async def redeliver(self, update_id: int) -> int:
        """Queue an earlier update again, same update_id (as after a crash before confirming)."""
        self._queue.append([self.updates[update_id], False])
        self._notify()
        return update_id

    async def reply(self, chat: Chat | User | int, timeout: float = 2.0) -> Output:
        """The next bot output in ``chat`` not yet returned by reply(); waits up to timeout."""
        chat_id = self._chat(chat).id
        deadline = asyncio.get_running_loop().time() + timeout
        while self._seen.get(chat_id, 0) >= len(self._outputs.get(chat_id, [])):
            if not await self._wait(deadline):
                raise AssertionError(f"the bot said nothing new in chat {chat_id} in {timeout}s")
        self._seen[chat_id] = self._seen.get(chat_id, 0) + 1
        return self._outputs[chat_id][self._seen[chat_id] - 1]

    def outputs(self, chat: Chat | User | int) -> list[Output]:
        return list(self._outputs.get(self._chat(chat).id, []))

    def message(self, chat: Chat | User | int, message_id: int) -> dict[str, Any] | None:
        """The current state of a message (None once deleted)."""
        return self._messages.get((self._chat(chat).id, message_id))

    def flood(self, method: str, retry_after: int = 1, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` answer 429 Too Many Requests."""
        self._flood[method.lower()] = [retry_after, times]

    def fail(self, method: str, description: str, code: int = 400, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` answer ``code`` with ``description`` (e.g.
        "Bad Request: message can't be edited")."""
        self._failing.setdefault(method.lower(), []).extend([(code, description)] * times)

    def delete(self, chat: Chat | User | int, message: int | Output) -> None:
        """A member (an administrator) deletes the message: editing it then answers 400
        "message to edit not found", as on Telegram."""
        chat = self._chat(chat)
        del self._messages[chat.id, _message_id(message)]
        if _message_id(message) in chat.pinned:
            chat.pinned.remove(_message_id(message))

    def called(self, method: str) -> list[dict[str, Any]]:
        return [params for name, params in self.calls if name.lower() == method.lower()]

    # -- helpers --------------------------------------------------------------------------
    def _chat(self, chat: Chat | User | int) -> Chat:
        if isinstance(chat, User):
            return self.private(chat)
        return self._chats[chat] if isinstance(chat, int) else chat

    def _enqueue(self, **payload: Any) -> int:
        update = {"update_id": next(self._ids)} | payload
        self.updates[update["update_id"]] = update
        self._queue.append([update, False])
        self._notify()
        return int(update["update_id"])

    def _store(self, chat: Chat, sender: User, **fields: Any) -> dict[str, Any]:
        message_id = self._next_message_id[chat.id] = self._next_message_id.get(chat.id, 0) + 1
        message = {"message_id": message_id, "date": int(self.clock()), "chat": chat.api(),
                   "from": sender.api()} | {k: v for k, v in fields.items() if v is not None}
        self._messages[chat.id, message_id] = message
        return message

    def _file(self, data: bytes) -> str:
        """Keep ``data`` as a new file (downloadable after getFile); returns its file_id."""
        file_id = f"photo{next(self._ids)}"
        self.files[file_id] = data
        return file_id

    def _photo_sizes(self, data: bytes) -> list[dict[str, Any]]:
        """The PhotoSizes of a photo a member sends: a thumbnail (90 px on its longer side,
        other bytes) and the photo itself, largest last, as Telegram lists them."""
        width, height = _dimensions(data)
        scale = 90 / max(width, height, 1)
        thumbnail = b"thumbnail of " + data[:64]
        sizes = []
        for content, size in ((thumbnail, (round(width * scale) or 1, round(height * scale) or 1)),
                              (data, (width, height))):
            file_id = self._file(content)
            sizes.append({"file_id": file_id, "file_unique_id": f"u{file_id}", "width": size[0],
                          "height": size[1], "file_size": len(content)})
        return sizes

    def _output(self, kind: str, message: dict[str, Any], parse_mode: str | None,
                size: int | None = None) -> dict[str, Any]:
        text = message.get("text", message.get("caption"))
        markup = message.get("reply_markup")
        chat_id = message["chat"]["id"]
        output = Output(kind, chat_id, message["message_id"], text, parse_mode, _buttons(markup),
                        size, _urls(markup))
        self._outputs.setdefault(chat_id, []).append(output)
        self._notify()
        return copy.deepcopy(message)

    def _target(self, chat_id: Any) -> Chat:
        if chat_id in self._chats:
            return self._chats[chat_id]
        if chat_id in self._users:
            raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        raise ApiError(400, "Bad Request: chat not found")

    def _find(self, p: dict[str, Any], action: str) -> dict[str, Any]:
        message = self.message(self._target(p["chat_id"]), p["message_id"])
        if message is None:
            raise ApiError(400, f"Bad Request: message to {action} not found")
        if action == "edit" and message["from"]["id"] != BOT_ID:
            raise ApiError(400, "Bad Request: message can't be edited")
        return message

    @staticmethod
    def _check_text(text: str, parse_mode: str | None, limit: int, what: str) -> None:
        if (parse_mode or "").lower() == "html" and (error := _html_error(text)):
            raise ApiError(400, f"Bad Request: can't parse entities: {error}")
        if _u16(plain(text, parse_mode).strip()) > limit:
            raise ApiError(400, f"Bad Request: {what} is too long")

    @staticmethod
    def _markup(p: dict[str, Any]) -> Markup:
        markup = p.get("reply_markup")
        if not (isinstance(markup, dict) and "inline_keyboard" in markup):
            return None
        for url in (url for _, url in _urls(markup)):
            if not re.match(r"(https?|tg)://\w", url):
                raise ApiError(400, f"Bad Request: inline keyboard button URL '{url}' is invalid")
        return markup

    def _new_bot_message(self, p: dict[str, Any], **fields: Any) -> dict[str, Any]:
        chat = self._target(p["chat_id"])
        if chat.bot_left:
            raise ApiError(403, f"Forbidden: bot is not a member of the {chat.type} chat")
        if chat.type == "channel" and not chat.bot_admin:
            raise ApiError(400, "Bad Request: need administrator rights in the channel chat")
        if chat.bot_muted:
            raise ApiError(400, "Bad Request: not enough rights to send text messages to the "
                                "chat")
        reply_to = (p.get("reply_parameters") or {}).get("message_id", p.get("reply_to_message_id"))
        replied = copy.deepcopy(self.message(chat, reply_to)) if reply_to else None
        if replied:
            replied.pop("reply_to_message", None)
        return self._store(chat, self.bot, **fields, reply_markup=self._markup(p),
                           reply_to_message=replied)

    def _member(self, chat: Chat, user: User) -> dict[str, Any]:
        if user.id == BOT_ID and chat.bot_left:
            return {"status": "left", "user": user.api()}
        if user.id == BOT_ID and chat.bot_muted:
            rights = dict.fromkeys(
                ("can_send_messages", "can_send_audios", "can_send_documents",
                 "can_send_photos", "can_send_videos", "can_send_video_notes",
                 "can_send_voice_notes", "can_send_polls", "can_send_other_messages",
                 "can_add_web_page_previews", "can_change_info", "can_invite_users",
                 "can_pin_messages", "can_manage_topics", "can_edit_tag",
                 "can_react_to_messages"), False)
            return {"status": "restricted", "user": user.api(), "is_member": True,
                    "until_date": 0} | rights
        if chat.creator and chat.creator.id == user.id:
            return {"status": "creator", "user": user.api(), "is_anonymous": False}
        if user.id in {a.id for a in chat.admins} or (user.id == BOT_ID and chat.bot_admin):
            channel = {"can_post_messages": True, "can_edit_messages": True}
            return ({"status": "administrator", "user": user.api()} | _ADMIN_RIGHTS
                    | (channel if chat.type == "channel" else {}))
        return {"status": "member", "user": user.api()}

    def _scope(self, p: dict[str, Any]) -> str:
        scope = p.get("scope") or {"type": "default"}
        parts = [scope["type"], *(str(scope[k]) for k in ("chat_id", "user_id") if k in scope)]
        return ":".join(parts + ([p["language_code"]] if p.get("language_code") else []))

    # -- Bot API methods ------------------------------------------------------------------
    async def api_getMe(self, p: dict[str, Any]) -> dict[str, Any]:
        return self.bot.api() | {"can_join_groups": True, "can_read_all_group_messages": False,
                                 "supports_inline_queries": False}

    async def api_deleteWebhook(self, p: dict[str, Any]) -> bool:
        self.webhook = None
        if self._delivery is not None:
            self._delivery.cancel()
            self._delivery = None
        if p.get("drop_pending_updates"):
            self._queue.clear()
        return True

    async def api_setWebhook(self, p: dict[str, Any]) -> bool:
        self.webhook = p
        if p.get("drop_pending_updates"):
            self._queue.clear()
        if self.delivering and self._delivery is None:
            self._delivery = asyncio.create_task(self._deliver_all())
        return True

    # -- webhook delivery -------------------------------------------------------------------
    async def _deliver_all(self) -> None:
        """Start the delivery of each chat's first waiting update, while no other of that
        chat is in flight (a queued entry's flag: taken for delivery)."""
        if self._http is None:
            self._http = aiohttp.ClientSession()
        in_flight: set[int] = set()
        loop = asyncio.get_running_loop()
        while self.webhook is not None:
            for queued in list(self._queue):
                chat = _chat_of(queued[0])
                if queued[1] or chat in in_flight:
                    in_flight.add(chat)  # a chat's later updates wait for its first
                    continue
                queued[1] = True
                in_flight.add(chat)
                task = asyncio.create_task(self._deliver(queued))
                self._posting.add(task)
                task.add_done_callback(self._posting.discard)
            in_flight.clear()
            if not await self._wait(loop.time() + 1.0) and self._closing:
                return

    async def _deliver(self, queued: list[Any]) -> None:
        """POST one update until a target answers 200, then let the chat's next one go (or
        this one again, once, if it is to come ``twice``)."""
        update, pause = queued[0], 0.05
        status: int | None = None
        while self.webhook is not None:
            target = self._next_target()
            status = None
            try:
                async with self._http.post(  # type: ignore[union-attr]
                        target, json=update, timeout=aiohttp.ClientTimeout(total=60),
                        headers={"X-Telegram-Bot-Api-Secret-Token":
                                 str(self.webhook.get("secret_token", ""))}) as answer:
                    status = answer.status
            except (aiohttp.ClientError, TimeoutError) as error:
                self.webhook_error = (int(self.clock()), f"Connection failed: {error}")
            self.deliveries.append((update["update_id"], target, status))
            if status == 200:
                break
            if status is not None:
                self.webhook_error = (int(self.clock()), f"Wrong response from the webhook: "
                                                         f"{status}")
            await asyncio.sleep(pause)
            pause = min(1.0, pause * 2)
        if status != 200:
            queued[1] = False  # the webhook was deleted: it waits for the next poll
        elif update["update_id"] in self.twice:
            self.twice.discard(update["update_id"])
            queued[1] = False  # delivered again, before the chat's next update
        elif queued in self._queue:
            self._queue.remove(queued)
        self._notify()

    def _next_target(self) -> str:
        targets = self.balancer or [str((self.webhook or {}).get("url", ""))]
        return targets[next(self._turn) % len(targets)]

    async def api_getWebhookInfo(self, p: dict[str, Any]) -> dict[str, Any]:
        info = {"url": (self.webhook or {}).get("url", ""), "has_custom_certificate": False,
                "pending_update_count": len(self._queue)}
        if self.webhook_error is not None:
            info |= {"last_error_date": self.webhook_error[0],
                     "last_error_message": self.webhook_error[1]}
        return info

    async def api_setMyCommands(self, p: dict[str, Any]) -> bool:
        self.commands[self._scope(p)] = p["commands"]
        return True

    async def api_getMyCommands(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        return self.commands.get(self._scope(p), [])

    async def api_deleteMyCommands(self, p: dict[str, Any]) -> bool:
        self.commands.pop(self._scope(p), None)
        return True

    async def api_getUpdates(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                           "use deleteWebhook to delete the webhook first")
        while self.silent and not self._closing:
            await asyncio.sleep(0.05)
        offset, limit = p.get("offset"), min(max(int(p.get("limit", 100)), 1), 100)
        if isinstance(offset, int) and offset < 0:
            del self._queue[:offset]
        elif offset is not None:  # confirms every delivered update before offset
            self._queue[:] = [q for q in self._queue if not q[1] or q[0]["update_id"] >= offset]
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # an older long poll still waiting gets 409, as on the real server
        deadline = asyncio.get_running_loop().time() + float(p.get("timeout") or 0)
        while not self._queue and await self._wait(deadline):
            if generation != self._poll_generation:
                raise ApiError(409, "Conflict: terminated by other getUpdates request; make sure "
                               "that only one bot instance is running")
        batch = self._queue[:limit]
        for queued in batch:
            queued[1] = True
        return [queued[0] for queued in batch]

    async def api_sendMessage(self, p: dict[str, Any]) -> dict[str, Any]:
        text, parse_mode = p["text"], p.get("parse_mode")
        if not plain(text, parse_mode).strip():
            raise ApiError(400, "Bad Request: message text is empty")
        self._check_text(text, parse_mode, 4096, "message")
        return self._output("send", self._new_bot_message(p, text=text), parse_mode)

    async def api_sendPhoto(self, p: dict[str, Any]) -> dict[str, Any]:
        caption, parse_mode, photo = p.get("caption"), p.get("parse_mode"), p["photo"]
        self._check_text(caption or "", parse_mode, 1024, "message caption")
        if isinstance(photo, bytes) or photo not in self.files:  # an upload (or a URL)
            file_id = self._file(photo if isinstance(photo, bytes) else b"")
        else:
            file_id = photo
        data = self.files[file_id]
        width, height = _dimensions(data)
        size = {"file_id": file_id, "file_unique_id": f"u{file_id}", "width": width,
                "height": height, "file_size": len(data)}
        message = self._new_bot_message(p, photo=[size], caption=caption)
        return self._output("photo", message, parse_mode, size=len(data))

    async def api_getFile(self, p: dict[str, Any]) -> dict[str, Any]:
        if p["file_id"] not in self.files:
            raise ApiError(400, "Bad Request: invalid file_id")
        return {"file_id": p["file_id"], "file_unique_id": f"u{p['file_id']}",
                "file_size": len(self.files[p["file_id"]]),
                "file_path": f"photos/{p['file_id']}.jpg"}

    async def api_editMessageText(self, p: dict[str, Any]) -> dict[str, Any]:
        message = self._find(p, "edit")
        if "text" not in message:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        self._check_text(p["text"], p.get("parse_mode"), 4096, "message")
        return self._edit(message, p, {"text": p["text"]}, p.get("parse_mode"))

    async def api_editMessageReplyMarkup(self, p: dict[str, Any]) -> dict[str, Any]:
        message = self._find(p, "edit")
        return self._edit(message, p, {}, self._last_output(message).parse_mode)

    def _edit(self, message: dict[str, Any], p: dict[str, Any], changes: dict[str, Any],
              parse_mode: str | None) -> dict[str, Any]:
        """Apply changes; the keyboard becomes p's reply_markup (none given: removed, as on
        Telegram)."""
        markup = self._markup(p)
        if markup == message.get("reply_markup") and all(
            message.get(key) == value for key, value in changes.items()
        ):
            raise ApiError(400, "Bad Request: message is not modified: specified new message "
                           "content and reply markup are exactly the same as a current content "
                           "and reply markup of the message")
        message.pop("reply_markup", None)
        message.update(changes, edit_date=int(self.clock()))
        if markup:
            message["reply_markup"] = markup
        return self._output("edit", message, parse_mode)

    def _last_output(self, message: dict[str, Any]) -> Output:
        outputs = self._outputs[message["chat"]["id"]]
        return next(o for o in reversed(outputs) if o.message_id == message["message_id"])

    async def api_deleteMessage(self, p: dict[str, Any]) -> bool:
        message = self._find(p, "delete")
        del self._messages[message["chat"]["id"], message["message_id"]]
        return True

    async def api_pinChatMessage(self, p: dict[str, Any]) -> bool:
        """Pinned by an administrator with can_pin_messages (the bot, where it is one)."""
        chat = self._target(p["chat_id"])
        if self.message(chat, p["message_id"]) is None:
            raise ApiError(400, "Bad Request: message to pin not found")
        if not chat.bot_admin or chat.bot_muted:
            raise ApiError(400, "Bad Request: not enough rights to manage pinned messages in "
                                "the chat")
        chat.pinned = [m for m in chat.pinned if m != p["message_id"]] + [p["message_id"]]
        return True

    async def api_answerCallbackQuery(self, p: dict[str, Any]) -> bool:
        query = self._queries.pop(str(p["callback_query_id"]), None)
        if query is None:
            raise ApiError(400, "Bad Request: query is too old and response timeout expired or "
                           "query ID is invalid")
        self.callback_answers.append({"id": query["id"], "data": query["data"],
                                      "text": p.get("text"),
                                      "show_alert": bool(p.get("show_alert"))})
        return True

    async def api_getChat(self, p: dict[str, Any]) -> dict[str, Any]:
        gifts = dict.fromkeys(("unlimited_gifts", "limited_gifts", "unique_gifts",
                               "premium_subscription", "gifts_from_channels"), True)
        return self._target(p["chat_id"]).api() | {
            "accent_color_id": 0, "max_reaction_count": 11, "accepted_gift_types": gifts}

    async def api_getChatMember(self, p: dict[str, Any]) -> dict[str, Any]:
        chat, user_id = self._target(p["chat_id"]), p["user_id"]
        user = self.bot if user_id == BOT_ID else self._users.get(user_id)
        if user is None:
            raise ApiError(400, "Bad Request: user not found")
        return self._member(chat, user)

    async def api_getChatAdministrators(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        chat = self._target(p["chat_id"])
        users = [chat.creator] if chat.creator else []
        users += [u for u in chat.admins if u.id not in {x.id for x in users}]
        users += [self.bot] if chat.bot_admin and chat.type != "private" else []
        return [self._member(chat, user) for user in users]
