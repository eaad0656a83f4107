"""A live leaderboard's message on Telegram (issue 38), for :class:`~bot.adapters.live_boards.
BoardKeeper`: sent with ``sendMessage``, edited with ``editMessageText``, pinned with
``pinChatMessage`` where the bot is the chat's creator or an administrator with
``can_pin_messages`` (Bot API, "ChatMemberAdministrator"). Every call goes through the
Application's bot, so its rate limiter (:mod:`bot.adapters.telegram_budget`) paces it with
the bot's other sends. Telegram answers an edit of a deleted message with 400 "message to edit
not found": :class:`~bot.adapters.live_boards.MessageGone`; an edit to the same text, "message
is not modified", is no failure (a restarted bot's first refresh may be one)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from telegram import Bot, ChatMemberAdministrator, ChatMemberOwner
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError

from bot.adapters.live_boards import MessageGone
from bot.service.results import Leaderboard

log = logging.getLogger(__name__)

#: Telegram's flood limit in a group is 20 messages a minute: a board is edited at most once
#: a minute (the issue's choice)
WINDOW_SECONDS = 60.0


class TelegramBoardPoster:
    platform = "telegram"
    window = WINDOW_SECONDS

    def __init__(self, bot: Bot, render: Callable[[Leaderboard], str]) -> None:
        """``render``: the table as the front-end shows ``/top``'s, cut to one message."""
        self._bot = bot
        self._render = render

    def render(self, board: Leaderboard) -> str:
        return self._render(board)

    def serves(self, chat: str) -> bool:
        """Every chat: one process polls (or takes the webhook of) a bot's updates."""
        return True

    async def post(self, chat: str, shown: str) -> str:
        sent = await self._bot.send_message(int(chat), shown, parse_mode=ParseMode.HTML)
        return str(sent.message_id)

    async def edit(self, chat: str, message: str, shown: str) -> None:
        try:
            await self._bot.edit_message_text(shown, chat_id=int(chat), message_id=int(message),
                                              parse_mode=ParseMode.HTML)
        except BadRequest as error:
            said = error.message.lower()
            if "message to edit not found" in said:
                raise MessageGone(message) from error
            if "not modified" not in said:
                raise

    async def pin(self, chat: str, message: str) -> None:
        try:
            me = await self._bot.get_chat_member(int(chat), self._bot.id)
            if isinstance(me, ChatMemberOwner) or (
                    isinstance(me, ChatMemberAdministrator) and me.can_pin_messages):
                await self._bot.pin_chat_message(int(chat), int(message),
                                                 disable_notification=True)
        except TelegramError as error:
            log.info("could not pin the live board %s in %s: %s", message, chat, error.message)

    async def tell(self, chat: str, said: str) -> None:
        try:
            await self._bot.send_message(int(chat), said)
        except TelegramError as error:
            log.warning("could not tell chat %s that its live board stopped: %s", chat,
                        error.message)
