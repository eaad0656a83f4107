"""The Telegram front-end on python-telegram-bot: a group is a club.

Messages become the product's commands (``bot.chat.commands``); answers go back as
HTML-escaped text, with inline buttons wherever a person would press rather than type (confirm
or dispute a report, accept or decline a challenge, apply or cancel a correction, page through
the leaderboard).
Group administrators are moderators. Every update's id is the request id, so a redelivered
update changes nothing; with long polling an update is kept in the database before Telegram is
told it arrived, and handled once (:mod:`bot.adapters.telegram_polling`).

Rated puzzles are solved in the member's private chat with the bot: a group's /puzzle (and a
puzzle post) carries a link button that opens that chat with ``/start p<club chat>_<problem>``;
there /puzzle, /answer and a moderator's /puzzle add (as text, or as a photo's caption) act for
one of the member's clubs (``chat=ID`` says which where it is not clear). A problem's picture is
kept in the :class:`~bot.storage.pictures.PictureStore` and shown as a photo.
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from urllib.parse import urlsplit

from telegram import (
    Bot,
    BotCommand,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    Update,
)
from telegram import User as TelegramUser
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import (
    BadRequest,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    BaseRateLimiter,
    BaseUpdateProcessor,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.adapters.live_boards import BoardKeeper
from bot.adapters.outbox import Outbox
from bot.adapters.roles import Role, telegram_receiver
from bot.adapters.telegram_boards import TelegramBoardPoster
from bot.adapters.telegram_budget import SharedFloodLimits
from bot.adapters.telegram_channels import check_board_chat, check_channel
from bot.adapters.telegram_http import AiohttpRequest
from bot.adapters.telegram_polling import ConfirmedPolling
from bot.adapters.telegram_webhook import ConfirmedWebhook, Webhook
from bot.chat import intake
from bot.chat.actions import SOLVE, Action, Group, actions_for, caption, page_of, stays
from bot.chat.commands import COMMANDS, Answer, Context, Forward, parse
from bot.chat.language import DEFAULT_LANGUAGE, LANGUAGES, supported, writing_in
from bot.chat.messages import text
from bot.chat.presenter import cut, render
from bot.chat.ratelimit import RateLimiter
from bot.chat.words import Pointed, Words
from bot.errors import ConfigError, StartupError
from bot.scheduling.publishing import Button, Picture, PostDelayed, PostRefused
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.identity import UserRef
from bot.service.results import (
    Audit,
    HeadToHead,
    History,
    Leaderboard,
    Notice,
    Preview,
    PuzzleShown,
    Result,
)
from bot.storage.pictures import MAX_BYTES, PictureError, PictureStore
from bot.storage.repository import Repository

log = logging.getLogger(__name__)

PLATFORM = "telegram"
DEFAULT_BASE_URL = "https://api.telegram.org/bot"
#: Telegram's limit for one message's text
TEXT_LIMIT = 4096
#: and for a photo's caption
CAPTION_LIMIT = 1024
#: the most buttons Telegram takes under one message (more: "reply markup is too long"); a
#: club night's round of more boards has buttons for its first ones (/result scores any board)
MAX_BUTTONS = 100
#: how long a chat's list of administrators is trusted before asking Telegram again
ADMIN_TTL_SECONDS = 60.0
#: seconds between long polls: under load one getUpdates then brings several updates instead of
#: one each (fewer polls, steadier latency: p99 40-54 ms instead of 160-530 ms at 200 results/s,
#: docs/benchmarks.md); a quiet bot still answers at once, its poll being held open
POLL_INTERVAL = 0.005
#: updates handled at once (one member's still one after another)
CONCURRENT_UPDATES = 16
#: updates that may wait at once for their member's turn or a slot (each is a small task)
UPDATES_WAITING = 4096
#: how long a stopping bot still sends the answers it has decided
OUTBOX_CLOSE_SECONDS = 5.0
#: how often a bot on a webhook asks Telegram how the webhook fares (its pulse)
WEBHOOK_CHECK_SECONDS = 60.0
#: Telegram's shared user of messages sent on behalf of a channel (``sender_chat`` says which)
CHANNEL_BOT = 136817688
#: flood-limit answers (429 RetryAfter) the rate limiter waits out before a call gives up
RETRIES = 3
#: commands whose first argument is a member: a reply or a text mention can name them
NAMES_A_MEMBER = {"rating", "challenge", "report", "history", "h2h", "retire", "return"}
#: what a deep link may carry after ``?start=`` (Telegram's rule: 1-64 of these)
START_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: a link's payload that serves a club's problem: ``p<club chat id>_<problem ref>`` (ref 0: the
#: problem closest to the member's rating)
SOLVE_PAYLOAD = re.compile(r"p(-?[0-9]{1,20})_([0-9]{1,18})")
#: the commands of a private chat that act for one of the member's clubs
FOR_A_CLUB = ("puzzle", "answer")
#: the word that names that club (``chat=ID``), wherever it stands among the command's words
CHAT_WORD = re.compile(r"(?<!\S)chat=(-?[0-9]{1,20})(?!\S)", re.IGNORECASE)
#: a photo's caption that is a /puzzle command (python-telegram-bot's CommandHandler reads a
#: message's text only, never a caption)
PUZZLE_CAPTION = re.compile(r"^/puzzle(?:@(\w+))?(?:\s|$)", re.IGNORECASE)
#: who runs a chat, as getChatMember says
RUNS_THE_CHAT = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


def _replied_member(message: Message) -> TelegramUser | None:
    """The member whose message ``message`` answers, if it answers one. In a forum topic every
    message carries the topic's creation message as the one it answers (Telegram threads them
    so): that, or any other service message (someone joined, a pin), answers no member; nor
    does a message sent by a bot or on behalf of a channel or the group."""
    replied = message.reply_to_message
    if replied is None or replied.from_user is None or replied.from_user.is_bot:
        return None
    if replied.sender_chat is not None or (
            message.is_topic_message and replied.message_id == message.message_thread_id):
        return None
    if filters.StatusUpdate.ALL.check_update(Update(0, message=replied)):
        return None
    return replied.from_user


#: what is shown in Telegram's command menu (the rest are listed by /help)
MENU = ["register", "rating", "top", "challenge", "report", "confirm", "dispute", "withdraw",
        "history", "h2h", "pending", "help"]
#: answers shown in a monospaced block
TABLES = (Leaderboard, History, HeadToHead, Audit, Preview)

def _adoptable(code: str | None) -> str | None:
    """An administrator's app language as a group adopts it: one of the bot's, else English;
    None when their app says none."""
    return None if not code else supported(code) or DEFAULT_LANGUAGE


def file_url_for(base_url: str) -> str:
    """The file address matching a Bot API address (``.../bot`` -> ``.../file/bot``)."""
    stem = base_url.rstrip("/")
    if stem.endswith("/bot"):
        return stem[: -len("bot")] + "file/bot"
    return stem + "/file/bot"


def as_html(answer: Result | str) -> str:
    """An answer as Telegram HTML: everything escaped, tables in a monospaced block."""
    shown = answer if isinstance(answer, str) else render(answer)
    escaped = html.escape(shown, quote=False)
    if isinstance(answer, TABLES):
        return f"<pre>{escaped}</pre>"
    return escaped


def split_html(message: str, limit: int = TEXT_LIMIT) -> list[str]:
    """Pieces of at most ``limit`` characters, cut at line ends; a <pre> block is closed and
    reopened around each cut."""
    if len(message) <= limit:
        return [message]
    pre = message.startswith("<pre>") and message.endswith("</pre>")
    body = message[5:-6] if pre else message
    room = limit - (11 if pre else 0)
    pieces = cut(body, room)
    return [f"<pre>{p}</pre>" if pre else p for p in pieces]


def deep_link(bot_username: str | None, club_chat: str, ref: int) -> str | None:
    """The link that opens the member's private chat with the bot and has it serve problem
    ``ref`` of the club of ``club_chat`` there (``/start p<chat>_<ref>``); None when there is
    no such link (the bot's username unknown, a chat id no payload can carry)."""
    payload = f"p{club_chat}_{ref}"
    if not bot_username or not START_PAYLOAD.fullmatch(payload):
        return None
    return f"https://t.me/{bot_username}?start={payload}"


def _button(action: Action, label: str, bot_username: str | None,
            club_chat: str | None) -> InlineKeyboardButton | None:
    """An action's button: its id is the callback data, which Telegram gives back when the
    button is pressed. A problem is solved privately: its Solve button is a link to the private
    chat (none without the bot's username and the club's chat), and it is answered there with
    /answer, so its Answer has no button."""
    if action.group is Group.PUZZLE:
        if action.verb != SOLVE or club_chat is None:
            return None
        url = deep_link(bot_username, club_chat, action.ref)
        return None if url is None else InlineKeyboardButton(label, url=url)
    return InlineKeyboardButton(label, callback_data=action.id)


def _markup(rows: Sequence[Sequence[InlineKeyboardButton | None]]
            ) -> InlineKeyboardMarkup | None:
    shown = [[b for b in row if b is not None] for row in rows]
    shown = [row for row in shown if row]
    return InlineKeyboardMarkup(shown) if shown else None


def keyboard(answer: Result | str, page: int = 0, bot_username: str | None = None,
             club_chat: str | None = None) -> InlineKeyboardMarkup | None:
    """The buttons that go with an answer (``bot.chat.actions``) as an inline keyboard, if a
    person would press rather than type; a problem's Solve button links to the bot's private
    chat (``bot_username``) for the club of ``club_chat``."""
    rows, room = [], MAX_BUTTONS
    for row in actions_for(answer, page):
        room -= len(row)
        if room < 0:
            break
        rows.append(row)
    return _markup([[_button(a, caption(a), bot_username, club_chat) for a in row]
                    for row in rows])


def _username(bot: Bot) -> str | None:
    """The bot's @username (known once the bot is initialised)."""
    try:
        return bot.username
    except RuntimeError:
        return None


def _fits_caption(shown: str) -> bool:
    """Whether ``shown`` (as the member reads it) fits in a photo's caption; Telegram counts
    UTF-16 code units."""
    return len(shown.encode("utf-16-le")) // 2 <= CAPTION_LIMIT


class MemberOrderedUpdates(BaseUpdateProcessor):
    """Updates run concurrently - while one waits on the database, the next can run - but one
    member's updates run in the order they came, so a person's quick successive commands are
    answered in turn. (The service orders a club's use cases itself.)

    An update first waits for its member's turn, and only then takes one of the ``workers``
    processing slots: a member who sends sixty commands at once holds one slot, not all of them
    (python-telegram-bot's own semaphore, taken before this runs, only bounds how many updates
    may wait at once). Answers are sent through the front-end's :class:`Outbox`, after the slot
    is given back, so waiting for a group's flood limit holds no slot either (issue 30)."""

    def __init__(self, workers: int = CONCURRENT_UPDATES) -> None:
        super().__init__(UPDATES_WAITING)
        self._slots = asyncio.Semaphore(workers)
        self._turns: dict[int, asyncio.Lock] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[object]) -> None:
        user = update.effective_user if isinstance(update, Update) else None
        if user is None:
            async with self._slots:
                await coroutine
            return
        turn = self._turns.setdefault(user.id, asyncio.Lock())
        try:
            async with turn, self._slots:
                await coroutine
        finally:
            if not turn.locked() and self._turns.get(user.id) is turn:
                del self._turns[user.id]

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""


class ClubApplication(Application):  # type: ignore[type-arg]
    """python-telegram-bot's ``Application`` that registers the bot's command menu (with short
    descriptions) when it is initialised. ``post_init`` would only run under ``run_polling`` or
    ``run_webhook``; ``initialize`` runs however the application is started."""

    async def initialize(self) -> None:
        registered = self._initialized
        await super().initialize()
        if not registered:
            # One menu per language, shown to each member in their app's language; the
            # English one, sent without a language, is everyone else's.
            for language in LANGUAGES:
                with writing_in(language):
                    menu = [BotCommand(name, text(f"menu_{name}")) for name in MENU]
                await self.bot.set_my_commands(
                    menu, language_code=None if language == DEFAULT_LANGUAGE else language)
            log.info("Telegram command menu registered (%d commands, %d languages)",
                     len(MENU), len(LANGUAGES))


def _line(message: Message) -> str:
    """What a member typed: a message's text, or the caption of their photo."""
    return message.text if message.text is not None else message.caption or ""


#: answers the member alone may read, whatever chat asked: sent to their private chat
PRIVATE_ANSWERS = frozenset({"link_code_chat", "link_code_member"})


class TelegramFrontEnd:
    """Handlers for one python-telegram-bot ``Application``, all calling one service."""

    def __init__(self, service: ClubService, limiter: RateLimiter,
                 monotonic: Callable[[], float] = time.monotonic,
                 pictures: PictureStore | None = None, forward: Forward | None = None):
        self.service = service
        self.limiter = limiter
        self._monotonic = monotonic
        self._admins: dict[int, tuple[float, frozenset[int]]] = {}
        self.outbox = Outbox()
        #: where problems' pictures are kept (None: problems take and show no pictures)
        self.pictures = pictures
        #: posts into the club's chats on other platforms (a club of several chats)
        self.forward: Forward | None = forward
        #: the bot of the Application built last (its @username makes the deep links)
        self._bot: Bot | None = None

    def application(self, token: str, base_url: str | None = None,
                    flood_limits: BaseRateLimiter[int] | None = None,
                    polled: Callable[[], None] | None = None) -> Application:  # type: ignore[type-arg]
        """The bot's ``Application``: long polling against Telegram, or ``base_url``'s server;
        ``polled`` is called whenever Telegram answers a call with success, a long poll
        included (the bot's pulse).
        ``flood_limits`` paces its Bot API calls; by default a
        :class:`~bot.adapters.telegram_budget.SharedFloodLimits` of one process keeps within
        Telegram's flood limits (30 messages a second, 20 a minute in one group) and waits out
        a 429 answer (RetryAfter) up to ``RETRIES`` times before a call gives up."""
        builder = (
            ApplicationBuilder()
            .token(token)
            .application_class(ClubApplication)
            .request(AiohttpRequest(answered=polled))
            .get_updates_request(AiohttpRequest(answered=polled))
            .concurrent_updates(MemberOrderedUpdates())
            .rate_limiter(flood_limits or SharedFloodLimits(max_retries=RETRIES))
        )
        if base_url:
            builder = builder.base_url(base_url.rstrip("/")).base_file_url(
                file_url_for(base_url)
            )
        app = builder.build()
        self._bot = app.bot
        # An edited message is not sent again: only new messages are commands.
        new = filters.UpdateType.MESSAGE
        # One handler per command: python-telegram-bot takes /name and /name@this_bot (in any
        # case) and leaves /name@other_bot to the bot it names.
        for name in COMMANDS:
            app.add_handler(CommandHandler(name, partial(self.on_command, command=name),
                                           filters=new))
        # A problem's picture comes as a photo whose caption is the /puzzle add command.
        app.add_handler(MessageHandler(new & filters.PHOTO & filters.CaptionRegex(PUZZLE_CAPTION),
                                       self.on_photo_command))
        # The first handler of a group that takes an update is the only one: what comes here is
        # a command the product does not have, or one for another bot.
        app.add_handler(MessageHandler(new & filters.COMMAND, self.on_other_command))
        app.add_handler(CallbackQueryHandler(self.on_button))
        app.add_error_handler(self.on_error)
        return app

    # -- who is asking ---------------------------------------------------------------------------

    async def _is_admin(self, context: ContextTypes.DEFAULT_TYPE, chat_id: int,
                        user_id: int) -> bool:
        cached = self._admins.get(chat_id)
        now = self._monotonic()
        if cached is None or cached[0] <= now:
            try:
                members = await context.bot.get_chat_administrators(chat_id)
            except TelegramError:
                log.warning("could not read the administrators of chat %s", chat_id)
                return False
            cached = (now + ADMIN_TTL_SECONDS, frozenset(m.user.id for m in members))
            self._admins[chat_id] = cached
        return user_id in cached[1]

    async def _caller(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> Caller:
        chat, user = update.effective_chat, update.effective_user
        assert chat is not None and user is not None
        moderator = await self._is_admin(context, chat.id, user.id)
        # The display name is the user's to choose; the handle is their @username alone.
        return Caller(PLATFORM, str(chat.id), str(user.id), user.username or user.full_name,
                      moderator, request_id=f"update:{update.update_id}",
                      handle=user.username, sequence=update.update_id)

    # -- messages ---------------------------------------------------------------------------------

    @staticmethod
    def _words(message: Message, command: str, for_a_club: bool = False) -> tuple[str, Words]:
        """The command as typed (a message's text, or a photo's caption) and its words, with
        the members named by a text mention or (for ``command``s whose first argument is a
        member) a reply carried by user id (never turned into text that a member's name could
        match). ``for_a_club``: a private chat's command acting for a club, without the
        ``chat=ID`` word that named it."""
        line, pointed = _line(message), Pointed()
        entities = message.entities if message.text is not None else message.caption_entities
        for entity in sorted(entities, key=lambda e: e.offset, reverse=True):
            if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
                # Offsets count UTF-16 code units, as Telegram does.
                encoded = line.encode("utf-16-le")
                start, end = entity.offset * 2, (entity.offset + entity.length) * 2
                shown = encoded[start:end].decode("utf-16-le", errors="replace")
                token = pointed.mark(UserRef(str(entity.user.id), shown))
                line = (encoded[:start].decode("utf-16-le", errors="replace") + token
                        + encoded[end:].decode("utf-16-le", errors="replace"))
        author = _replied_member(message)
        words = line.split(maxsplit=1)
        if (author is not None and command in NAMES_A_MEMBER
                and "@" not in (words[1] if len(words) > 1 else "")):
            rest = f" {words[1]}" if len(words) > 1 else ""
            token = pointed.mark(UserRef(str(author.id), author.full_name))
            line = f"{words[0]} {token}{rest}"
        if for_a_club:
            line = CHAT_WORD.sub("", line, count=1)
        return parse(line, pointed)

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE,
                         command: str) -> None:
        """/``command`` (its handler's name): in a group, run it and answer in the chat; in a
        private chat, see :meth:`_private`. A message sent as a channel or as the group itself
        (``sender_chat``) comes from a user Telegram shares among all such senders: it is
        answered with one sentence and nothing is done, for nobody can tell who sent it."""
        message, chat = update.effective_message, update.effective_chat
        if message is None or chat is None or update.effective_user is None:
            return
        if message.sender_chat is not None or update.effective_user.id == CHANNEL_BOT:
            await self._as_a_chat(update, command)
            return
        if chat.type == ChatType.PRIVATE:
            await self._private(update, context, command)
            return
        user_id, code = update.effective_user.id, update.effective_user.language_code
        caller = await self._caller(update, context)
        ctx = Context(self.service, caller, self.limiter,
                      lambda channel: check_channel(context.bot, user_id, channel),
                      own_language=supported(code),
                      administrator_language=_adoptable(code) if caller.moderator else None,
                      forward=self.forward,
                      check_board=lambda: check_board_chat(context.bot, chat.id, chat.type))
        # The command is the whole first word, as on the console. Telegram's command ends at
        # the first character a name cannot hold: /top-5 came to /top's handler, but is
        # answered as the unknown command it is.
        reply = await intake.command(ctx, lambda: self._words(message, command), command)
        if reply is None:
            return
        if isinstance(reply.answer, Notice) and reply.answer.key in PRIVATE_ANSWERS:
            await self._reply_privately(message, user_id, reply.answer, ctx)
            return
        self._reply(message, reply.answer)

    async def _reply_privately(self, message: Message, user_id: int, answer: Notice,
                               ctx: Context) -> None:
        """An answer for the member alone (a link code): sent to their private chat with the
        bot, the group told so; when the bot may not write there yet, the group is told to
        open that chat first, and nothing else is shown."""
        with writing_in(await intake.own_language(ctx)):
            shown = render(answer)
        try:
            await message.get_bot().send_message(user_id, html.escape(shown, quote=False),
                                                 parse_mode=ParseMode.HTML)
        except Forbidden:
            self._reply(message, Notice("link_open_private"))
            return
        self._reply(message, Notice("link_code_sent"))

    async def on_other_command(self, update: Update,
                               context: ContextTypes.DEFAULT_TYPE) -> None:
        """A /command no command handler took. In a group, /name@other_bot is left to that
        bot; anything else is answered as an unknown command. In a private chat, where only
        this bot reads, every command gets the private chat's answer."""
        message, chat = update.effective_message, update.effective_chat
        if message is None or chat is None or not message.entities:
            return
        # the command as Telegram marks it: /name or /name@bot
        name, _, addressee = message.parse_entity(message.entities[0])[1:].partition("@")
        mine = addressee.casefold() in ("", (context.bot.username or "").casefold())
        if mine or chat.type == ChatType.PRIVATE:
            await self.on_command(update, context, name.lower())

    async def on_photo_command(self, update: Update,
                               context: ContextTypes.DEFAULT_TYPE) -> None:
        """A photo whose caption is /puzzle (a problem's picture, ``/puzzle add ...``): the
        command, as if typed. In a group, /puzzle@other_bot is left to that bot; there the chat
        layer refuses /puzzle add (its answers would show), and nothing is downloaded."""
        message, chat = update.effective_message, update.effective_chat
        if message is None or chat is None:
            return
        typed = PUZZLE_CAPTION.match(message.caption or "")
        if typed is None:
            return
        addressee = typed[1] or ""
        mine = addressee.casefold() in ("", (context.bot.username or "").casefold())
        if mine or chat.type == ChatType.PRIVATE:
            await self.on_command(update, context, "puzzle")

    def _own_context(self, update: Update) -> Context:
        """The context of a command in the sender's private chat with the bot, answered there
        in their own language and counted against their rate in that chat."""
        message, user = update.effective_message, update.effective_user
        assert message is not None and user is not None
        caller = Caller(PLATFORM, str(message.chat.id), str(user.id), user.full_name,
                        request_id=f"update:{update.update_id}", handle=user.username,
                        sequence=update.update_id)
        return Context(self.service, caller, self.limiter,
                       own_language=supported(user.language_code), private=True)

    def _club_context(self, update: Update, club_chat: str, moderator: bool) -> Context:
        """The context of a private chat's command acting for the club of ``club_chat``: the
        member acts there as in its group, and the answer is theirs alone."""
        user = update.effective_user
        assert user is not None
        caller = Caller(PLATFORM, club_chat, str(user.id), user.username or user.full_name,
                        moderator, request_id=f"update:{update.update_id}",
                        handle=user.username, sequence=update.update_id)
        return Context(self.service, caller, self.limiter,
                       own_language=supported(user.language_code), private=True,
                       private_refusals=True, alone=True)

    async def _private(self, update: Update, context: ContextTypes.DEFAULT_TYPE,
                       command: str) -> None:
        """In a private chat: /start with a problem's link, /puzzle and /answer act for one of
        the member's clubs (:meth:`_solve_link`, :meth:`_for_a_club`); /rating and /history
        speak about the member's own standing in each of their clubs; any other command says
        where the club's commands work. Each counts against the member's rate limit (in this
        private chat), as in a club."""
        message, user = update.effective_message, update.effective_user
        assert message is not None and user is not None
        own = str(user.id)
        if command == "start":
            payload = SOLVE_PAYLOAD.fullmatch(" ".join(_line(message).split()[1:2]))
            if payload is not None:
                await self._solve_link(update, context, payload[1], int(payload[2]))
                return
        if command in FOR_A_CLUB:
            await self._for_a_club(update, context, command)
            return

        async def answer() -> str:
            if command not in ("rating", "history"):
                return text("telegram_private")
            sections = []
            for chat_id in await self.service.clubs_of(PLATFORM, own):
                caller = Caller(PLATFORM, chat_id, own, own)
                shown = await (self.service.profile(caller) if command == "rating"
                               else self.service.history(caller))
                try:
                    title = (await context.bot.get_chat(int(chat_id))).title or chat_id
                except TelegramError:
                    title = chat_id
                sections.append(text("private_club", club=title, profile=render(shown)))
            return "\n\n".join(sections) or text("private_none")

        reply = await intake.answer(self._own_context(update), command, answer)
        if reply is not None:
            self._reply(message, reply.answer)

    # -- a private chat acting for a club: rated puzzles ---------------------------------------

    async def _solve_link(self, update: Update, context: ContextTypes.DEFAULT_TYPE,
                          club_chat: str, ref: int) -> None:
        """``/start p<club chat>_<ref>``, sent by a problem's link button: the club's problem
        ``ref`` (0: the one closest to the member's rating) served here, as its button's press
        would serve it. A link names any chat: it is acted on only for a club the member
        belongs to (else: not a member), so no club is ever made for a link."""
        user = update.effective_user
        assert user is not None

        async def member() -> str:
            if club_chat not in await self.service.clubs_of(PLATFORM, str(user.id)):
                raise Refusal("private_not_member")
            return club_chat

        await self._act_for(update, context, "start", member, lambda ctx: intake.press(
            ctx, Action.choice(Group.PUZZLE, SOLVE, ref).id))

    async def _for_a_club(self, update: Update, context: ContextTypes.DEFAULT_TYPE,
                          command: str) -> None:
        """/puzzle, /answer and /puzzle add typed in a private chat, run for the club that
        ``chat=ID`` names, else the one that is clear (:meth:`_puzzle_club`,
        :meth:`_moderated_club`); a problem's picture (the photo whose caption is the
        command) is downloaded and kept once its moderator is known."""
        message, user = update.effective_message, update.effective_user
        assert message is not None and user is not None
        line = _line(message)
        named = CHAT_WORD.search(line)
        chat = named[1] if named is not None else None
        adding = command == "puzzle" and [w.casefold() for w in line.split()[1:2]] == ["add"]
        picture: str | None = None

        async def club() -> str:
            nonlocal picture
            if not adding:
                return await self._puzzle_club(str(user.id), chat)
            found = await self._moderated_club(context, user.id, chat)
            if message.photo:
                picture = await self._keep_picture(context, message)
            return found

        def run(ctx: Context) -> Awaitable[intake.Reply | None]:
            ctx.picture = picture  # kept while the club was found
            return intake.command(ctx, lambda: self._words(message, command, for_a_club=True),
                                  command)

        await self._act_for(update, context, command, club, run, moderator=adding)

    async def _act_for(self, update: Update, context: ContextTypes.DEFAULT_TYPE, label: str,
                       club: Callable[[], Awaitable[str]],
                       run: Callable[[Context], Awaitable[intake.Reply | None]],
                       moderator: bool = False) -> None:
        """Find the club a private chat's command acts for (``club``: its chat, or a refusal
        answered here), counted against the member's rate in this chat; then ``run`` it there,
        counted against their rate in that club, answered here. ``moderator``: the member
        was found to run the club's group (else: asked)."""
        message, user = update.effective_message, update.effective_user
        assert message is not None and user is not None
        found: str | None = None

        async def find() -> str:
            nonlocal found
            found = await club()
            return ""

        reply = await intake.answer(self._own_context(update), label, find)
        if reply is None:
            return
        if found is None:
            self._reply(message, reply.answer)
            return
        if not moderator:
            moderator = await self._is_admin(context, int(found), user.id)
        done = await run(self._club_context(update, found, moderator))
        if done is not None:
            self._reply(message, done.answer)

    async def _puzzle_club(self, user: str, named: str | None) -> str:
        """The club a private /puzzle or /answer is for: the one ``named`` (a club of the
        member's); else for /answer the one club where the member has a problem open, for
        /puzzle the one club with a puzzle ladder (the one with a problem open among several)."""
        if named is not None:
            if named not in await self.service.clubs_of(PLATFORM, user):
                raise Refusal("private_not_member")
            return named
        chats = await self.service.puzzle_chats(PLATFORM, user)
        if not chats:
            raise Refusal("private_no_puzzles")
        open_ones = [chat for chat, is_open in chats if is_open]
        if len(open_ones) == 1:
            return open_ones[0]
        candidates = open_ones if len(open_ones) > 1 else [chat for chat, _ in chats]
        if len(candidates) > 1:
            raise Refusal("private_which_club", chats=", ".join(candidates))
        return candidates[0]

    async def _moderated_club(self, context: ContextTypes.DEFAULT_TYPE, user_id: int,
                              named: str | None) -> str:
        """The club a private /puzzle add is for, which the member must run (its group's
        creator or an administrator, as Telegram says now): the one ``named``; else among their
        clubs and the groups the bot saw them run, the one they run."""
        if named is not None:
            if not await self._runs(context, named, user_id):
                raise Refusal("private_not_moderator", chat=named)
            return named
        candidates = list(await self.service.clubs_of(PLATFORM, str(user_id)))
        candidates += [str(chat) for chat, (_, admins) in self._admins.items()
                       if user_id in admins and str(chat) not in candidates]
        if not candidates:
            raise Refusal("private_no_puzzles")
        run = [chat for chat in candidates if await self._runs(context, chat, user_id)]
        if len(run) > 1:
            raise Refusal("private_which_club", chats=", ".join(run))
        if not run:
            raise Refusal("private_not_moderator", chat=", ".join(candidates))
        return run[0]

    @staticmethod
    async def _runs(context: ContextTypes.DEFAULT_TYPE, chat: str, user_id: int) -> bool:
        """Whether user ``user_id`` is the creator or an administrator of ``chat`` (False for a
        chat the bot cannot see)."""
        try:
            member = await context.bot.get_chat_member(int(chat), user_id)
        except (TelegramError, ValueError):
            return False
        return member.status in RUNS_THE_CHAT

    async def _keep_picture(self, context: ContextTypes.DEFAULT_TYPE, message: Message) -> str:
        """The largest size of the message's photo, downloaded and kept in the picture store;
        its name there."""
        refused = Refusal("bad_picture", limit=MAX_BYTES // (1024 * 1024))
        largest = max(message.photo, key=lambda size: size.width * size.height)
        if self.pictures is None or (largest.file_size or 0) > MAX_BYTES:
            raise refused
        try:
            found = await context.bot.get_file(largest.file_id)
            data = bytes(await found.download_as_bytearray())
        except TelegramError as error:
            log.warning("could not download a problem's picture: %s", error.message)
            raise refused from None
        try:
            return await asyncio.to_thread(self.pictures.put, data)
        except PictureError:
            raise refused from None

    async def _as_a_chat(self, update: Update, command: str) -> None:
        """A command sent on behalf of a chat: refused, and counted against that chat (keyed by
        its own id, never by the user Telegram shares among such senders)."""
        message = update.effective_message
        assert message is not None
        sender = message.sender_chat
        who = f"chat:{sender.id}" if sender is not None else f"user:{CHANNEL_BOT}"
        caller = Caller(PLATFORM, str(message.chat_id), who, who)

        async def refuse() -> str:
            return text("telegram_sender_chat")

        reply = await intake.answer(Context(self.service, caller, self.limiter), command, refuse)
        if reply is not None:
            self._reply(message, reply.answer)

    def _reply(self, message: Message, answer: Answer) -> None:
        """Answer ``message`` in its chat, after whatever the bot still has to say there."""
        self.outbox.put(message.chat_id, partial(self._answer, message, answer))

    async def _answer(self, message: Message, answer: Answer) -> None:
        if isinstance(answer, Picture):
            caption = html.escape(answer.caption[:CAPTION_LIMIT], quote=False)
            await message.reply_photo(answer.png, caption=caption or None,
                                      parse_mode=ParseMode.HTML, filename=answer.filename,
                                      do_quote=False)
            return
        shown: Result | str = answer
        if isinstance(answer, Leaderboard):
            shown = page_of(answer, 0)
        pieces = split_html(as_html(shown))
        # a group's answer links to the private chat for this club (a private chat's answers
        # have no such buttons)
        club = None if message.chat.type == ChatType.PRIVATE else str(message.chat_id)
        markup = keyboard(answer, bot_username=self._username(), club_chat=club)
        if isinstance(answer, PuzzleShown) and answer.card.image:
            picture = await self._picture(answer.card.image)
            if picture is not None:
                fits = _fits_caption(render(answer))
                await message.reply_photo(picture, caption=pieces[0] if fits else None,
                                          parse_mode=ParseMode.HTML,
                                          filename=answer.card.image,
                                          reply_markup=markup if fits else None,
                                          do_quote=False)
                if fits:
                    return
        for n, piece in enumerate(pieces):
            last = n == len(pieces) - 1
            await message.reply_text(piece, parse_mode=ParseMode.HTML,
                                     reply_markup=markup if last else None, do_quote=False)

    def _username(self) -> str | None:
        return None if self._bot is None else _username(self._bot)

    async def _picture(self, name: str) -> bytes | None:
        """A problem's picture from the store; None (and a warning) when it is gone."""
        if self.pictures is None:
            return None
        try:
            return await asyncio.to_thread(self.pictures.read, name)
        except OSError:
            log.warning("the picture %s of a problem is missing: shown without it", name)
            return None

    # -- buttons ----------------------------------------------------------------------------------

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A button press: the presser acts, and the message shows the outcome (a club
        night's post, whose buttons many press, stays: the outcome is its reply); a press by
        someone who may not gets a short answer and changes nothing. A group is a club: a
        press anywhere else (a private chat, a channel) is refused, and no club is made for
        it. Presses count against the rate limit as commands do."""
        query = update.callback_query
        chat = update.effective_chat
        if query is None or query.message is None or chat is None:
            return
        if chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
            with writing_in(supported(query.from_user.language_code)):
                await self._answer_press(query, text("telegram_button_private")[:200])
            return
        action = Action.parse(query.data or "")
        if action is not None and action.group is Group.PUZZLE:
            await self._puzzle_press(query, action, str(chat.id))
            return
        # a refusal is an alert to the presser alone: in their own language
        ctx = Context(self.service, await self._caller(update, context), self.limiter,
                      own_language=supported(query.from_user.language_code),
                      private_refusals=True)
        reply = await intake.press(ctx, query.data or "")
        if reply is None:  # past the rate, and told so: the spinner just stops
            await self._answer_press(query)
            return
        if reply.refused:
            await self._answer_press(query, str(reply.answer)[:200])
            return
        # The press's spinner stops at once; the message is edited (or, where many press its
        # buttons, answered) in its chat's turn.
        await self._answer_press(query)
        message = query.message
        if not isinstance(message, Message):
            return
        if stays(action):
            self._reply(message, reply.answer)
        elif not isinstance(reply.answer, Picture):
            self.outbox.put(message.chat_id,
                            partial(self._edit, message, reply.answer, reply.page))

    async def _puzzle_press(self, query: CallbackQuery, action: Action, club_chat: str) -> None:
        """A problem's button as a callback (a message posted before Solve became a link):
        never served in the group, where everyone would see it; Solve opens the private chat
        through the problem's link, anything else says where problems are answered."""
        url = deep_link(self._username(), club_chat, action.ref) if action.verb == SOLVE else None
        if url is not None:
            await query.answer(url=url)
            return
        with writing_in(supported(query.from_user.language_code)):
            await self._answer_press(query, text("answer_private")[:200])

    async def _answer_press(self, query: CallbackQuery, alert: str | None = None) -> None:
        """Stop the press's spinner, with an ``alert`` shown to the presser alone if any. A
        press delivered again (after a restart) was answered the first time: Telegram then
        refuses a second answer, which is no failure."""
        try:
            await query.answer(alert, show_alert=alert is not None)
        except BadRequest as error:
            if "query is too old" not in error.message.lower():
                raise
            log.info("button press %s was answered before", query.id)

    async def _edit(self, message: Message, answer: Result | str, page: int) -> None:
        """Show the outcome in the message whose button was pressed."""
        shown = page_of(answer, page) if isinstance(answer, Leaderboard) else answer
        try:
            await message.edit_text(split_html(as_html(shown))[0], parse_mode=ParseMode.HTML,
                                    reply_markup=keyboard(answer, page, self._username(),
                                                          str(message.chat_id)))
        except BadRequest as error:
            # Two members pressed the same button: the message already shows the answer.
            if "not modified" not in error.message.lower():
                raise

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Anything unexpected is logged once; the member gets one short sentence."""
        log.error("update %r failed", update, exc_info=context.error)
        if isinstance(update, Update) and update.effective_message is not None:
            try:
                await update.effective_message.reply_text(text("internal_error"))
            except TelegramError:
                log.warning("could not tell the chat about the failure")


#: the Bot API's answers (400 Bad Request) that mean the bot may not post there, for good
_REFUSALS = re.compile(r"chat not found|not enough rights|have no rights|chat_write_forbidden|"
                       r"need administrator rights|chat was deactivated", re.IGNORECASE)


class TelegramPublisher:
    """Posts unasked into Telegram chats (scheduled posts, announcements) with the
    Application's bot. A text of several lines (a digest) goes in a monospaced block; a picture
    goes as a photo, with the text as its caption when it fits in one; the post's buttons go
    under its last message (a problem's Solve: a link to the bot's private chat). A failed send
    raises: the scheduler retries it; Telegram's flood control (429), once the rate limiter
    gave up waiting, raises :class:`PostDelayed`."""

    platform = PLATFORM

    def __init__(self, bot: Bot) -> None:
        self._bot = bot

    async def publish(self, chat_id: str, message: str, picture: Picture | None = None,
                      buttons: Sequence[Button] = ()) -> None:
        try:
            await self._publish(chat_id, message, picture, self._keyboard(buttons))
        except RetryAfter as flooded:  # still flooded after the rate limiter's own retries
            wait = flooded.retry_after
            raise PostDelayed(wait.total_seconds() if isinstance(wait, timedelta)
                              else float(wait)) from flooded
        except Forbidden as refused:  # removed from the chat, blocked, no right to post
            raise PostRefused(refused.message) from refused
        except BadRequest as refused:
            if not _REFUSALS.search(refused.message):
                raise
            raise PostRefused(refused.message) from refused

    def _keyboard(self, buttons: Sequence[Button]) -> InlineKeyboardMarkup | None:
        """A post's buttons in one row: each runs its action when pressed, a problem's Solve
        links to the private chat for the button's club."""
        username = _username(self._bot)
        row = []
        for button in buttons:
            action = Action.parse(button.action)
            if action is not None:
                row.append(_button(action, button.label, username, button.club_chat))
        return _markup([row])

    async def _publish(self, chat_id: str, message: str, picture: Picture | None,
                       markup: InlineKeyboardMarkup | None = None) -> None:
        # A channel may be named by its @username; every other chat by its number.
        target: int | str = chat_id if chat_id.startswith("@") else int(chat_id)
        escaped = html.escape(message, quote=False)
        body = f"<pre>{escaped}</pre>" if "\n" in message else escaped
        if picture is not None:
            fits = _fits_caption(message)
            caption = body if fits else html.escape(picture.caption, quote=False)
            await self._bot.send_photo(target, picture.png, caption=caption or None,
                                       parse_mode=ParseMode.HTML, filename=picture.filename,
                                       reply_markup=markup if fits else None)
            if fits:
                return
        pieces = split_html(body)
        for n, piece in enumerate(pieces):
            await self._bot.send_message(target, piece, parse_mode=ParseMode.HTML,
                                         reply_markup=markup if n == len(pieces) - 1 else None)


class TelegramBot:
    """The Telegram front-end as a process runs it: built first (so that its publisher is known
    before anything is scheduled), then started (command menu, updates by long polling or a
    webhook) and stopped. Either way the updates are kept in ``repository`` until they are
    handled (:class:`ConfirmedPolling`, :class:`ConfirmedWebhook`)."""

    platform = PLATFORM

    def __init__(self, service: ClubService, limiter: RateLimiter, token: str,
                 base_url: str | None = None, webhook: Webhook | None = None,
                 pulse: Callable[[], None] = lambda: None,
                 pictures: PictureStore | None = None, forward: Forward | None = None,
                 repository: Repository | None = None) -> None:
        self.front = TelegramFrontEnd(service, limiter, pictures=pictures, forward=forward)
        # On a webhook every call Telegram answers (getWebhookInfo's own) says nothing of the
        # deliveries: the pulse is the watch's word alone (:meth:`_watch_webhook`).
        #: Telegram's flood limits, shared with the token's other processes on the database
        self.flood_limits = SharedFloodLimits(repository, max_retries=RETRIES)
        self.app = self.front.application(token, base_url, self.flood_limits,
                                          polled=pulse if webhook is None else None)
        self._polling: ConfirmedPolling | None = None
        self._repository = repository
        if webhook is None and repository is not None:
            self._polling = ConfirmedPolling(self.app, repository, service.clock.now,
                                             POLL_INTERVAL)
        #: long polling runs only in the process holding the bot's receiver role (issue 41)
        self._receiver: Role | None = None
        #: with a webhook every process receives, answering 200 once an update was handled
        self._delivered: ConfirmedWebhook | None = None
        if webhook is not None and repository is not None:
            self._delivered = ConfirmedWebhook(self.app, repository, service.clock.now,
                                               webhook, OUTBOX_CLOSE_SECONDS)
        self.publisher = TelegramPublisher(self.app.bot)
        #: the live leaderboards in Telegram chats (issue 38)
        self.boards = BoardKeeper(service, TelegramBoardPoster(
            self.app.bot, lambda board: split_html(as_html(page_of(board, 0)))[0]))
        self._base_url = base_url
        self._webhook = webhook
        self._pulse = pulse
        self._watch: asyncio.Task[None] | None = None

    def explain(self, error: Exception) -> StartupError | None:
        """What to check when Telegram refused to start or the bot could not reach it; a refused
        token is a setting to fix (:class:`ConfigError`)."""
        base, webhook = self._base_url, self._webhook
        server = urlsplit(base).netloc.rpartition("@")[2] if base else "api.telegram.org"
        if isinstance(error, InvalidToken):
            # PTB also says so when the server answers 404: a wrong TELEGRAM_BASE_URL.
            also = " (or TELEGRAM_BASE_URL)" if base else ""
            return ConfigError(f"Telegram ({server}) refused TELEGRAM_TOKEN: check the bot's "
                               f"token from @BotFather{also}")
        if isinstance(error, NetworkError):
            return StartupError(f"cannot reach Telegram at {server} ({error.message}): check "
                                f"the network{' and TELEGRAM_BASE_URL' if base else ''}")
        if isinstance(error, TelegramError):
            hint = " (check TELEGRAM_WEBHOOK_URL)" if webhook else ""
            return StartupError(f"Telegram ({server}) refused to start the bot: {error.message}"
                                f"{hint}")
        if isinstance(error, OSError) and webhook is not None:
            return StartupError(f"cannot listen for Telegram's webhook on {webhook.listen}:"
                                f"{webhook.port} ({error.strerror or error}): check "
                                "TELEGRAM_WEBHOOK_LISTEN")
        return None

    async def start(self) -> None:
        app = self.app
        await app.initialize()
        # the bot's id (getMe) names its budget; shared before the first update is answered
        await self.flood_limits.budget.start(PLATFORM, app.bot.id)
        await app.start()
        if self._polling is not None and self._repository is not None:
            self._receiver = Role(self._repository, telegram_receiver(app.bot.id),
                                  self._polling)
            await self._receiver.start()
            self._watch = asyncio.create_task(self._pulse_on_standby())
        elif self._delivered is not None:
            await self._delivered.start()
            self._watch = asyncio.create_task(self._watch_webhook())
        else:
            raise RuntimeError("updates are kept in the database: no repository")
        log.info("Telegram bot @%s is running", app.bot.username)
        await self.boards.start()

    async def _watch_webhook(self) -> None:
        """With a webhook a quiet club brings no update, so the pulse comes from asking
        Telegram every ``WEBHOOK_CHECK_SECONDS`` how the webhook fares: it beats while Telegram
        answers and has had no delivery error since the last check (a proxy that lost the
        route, a certificate that expired: Telegram's ``last_error_date``)."""
        while True:
            try:
                info = await self.app.bot.get_webhook_info()
            except TelegramError as error:
                log.warning("Telegram's webhook information: %s", error.message)
            else:
                failed = info.last_error_date
                recent = datetime.now(UTC) - timedelta(seconds=WEBHOOK_CHECK_SECONDS)
                if failed is None or failed < recent:
                    self._pulse()
                else:
                    log.warning("Telegram could not deliver to the webhook: %s",
                                info.last_error_message)
            await asyncio.sleep(WEBHOOK_CHECK_SECONDS)

    async def _pulse_on_standby(self) -> None:
        """A process that does not receive (another one polls) hears nothing from Telegram
        while its chats are quiet: it asks Telegram who the bot is every
        ``WEBHOOK_CHECK_SECONDS``, and the answer is its pulse (``polled``)."""
        while True:
            await asyncio.sleep(WEBHOOK_CHECK_SECONDS)
            if self._receiver is not None and self._receiver.held:
                continue
            try:
                await self.app.bot.get_me()
            except TelegramError as error:
                log.warning("Telegram did not answer getMe: %s", error.message)

    async def failed(self) -> None:
        """Raises only when polling stopped by itself (a refused token); polling and the
        webhook ride out network trouble by themselves."""
        if self._receiver is not None:
            await self._receiver.failed()
        await asyncio.Event().wait()

    async def stop(self) -> None:
        app = self.app
        if self._watch is not None:
            self._watch.cancel()
        await self.boards.stop()
        if self._receiver is not None:
            await self._receiver.stop()
        if self._delivered is not None:
            await self._delivered.stop()
        await self.front.outbox.close(OUTBOX_CLOSE_SECONDS)
        if app.running:
            await app.stop()
        if self._polling is not None:
            await self._polling.finish()
        if self._delivered is not None:
            await self._delivered.finish()
        await app.shutdown()


__all__ = ["TelegramBot", "TelegramFrontEnd", "TelegramPublisher", "Webhook", "file_url_for",
           "split_html", "as_html", "keyboard", "deep_link"]
