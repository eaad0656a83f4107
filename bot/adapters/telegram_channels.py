"""Whether a member may have the bot post into another Telegram chat (``/schedule channel=``):
only a chat they run, and only where the bot may post.

Telegram says both through ``getChatMember``: the member must be the chat's creator or one of
its administrators; the bot must be a member that may send messages - in a channel, an
administrator with the right to post (Bot API, "ChatMember" and "ChatMemberAdministrator").
"""

from __future__ import annotations

from telegram import Bot, ChatMember, ChatMemberAdministrator, ChatMemberRestricted
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from bot.service.errors import Refusal

_RUNS_THE_CHAT = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


def _may_post(member: ChatMember, chat_type: str) -> bool:
    """Whether the bot, a member of a chat of ``chat_type`` as ``member`` says, may post."""
    if isinstance(member, ChatMemberAdministrator):
        return chat_type != ChatType.CHANNEL or bool(member.can_post_messages)
    if isinstance(member, ChatMemberRestricted):
        return member.is_member and member.can_send_messages
    return member.status == ChatMemberStatus.MEMBER and chat_type != ChatType.CHANNEL


async def check_channel(bot: Bot, user_id: int, channel: str) -> None:
    """Refuse, saying which check fails, unless user ``user_id`` runs ``channel`` (a chat id or
    a channel's @username) and the bot may post there."""
    target: int | str = channel if channel.startswith("@") else int(channel)
    try:
        chat = await bot.get_chat(target)
        asker = await bot.get_chat_member(target, user_id)
        me = await bot.get_chat_member(target, bot.id)
    except TelegramError:
        # Telegram shows a chat to a bot only when the bot is in it.
        raise Refusal("channel_unknown", channel=channel) from None
    if asker.status not in _RUNS_THE_CHAT:
        raise Refusal("channel_not_yours", channel=channel)
    if not _may_post(me, chat.type):
        raise Refusal("channel_bot_cannot_post", channel=channel)


async def check_board_chat(bot: Bot, chat_id: int, chat_type: str) -> None:
    """Refuse unless the bot may post in the chat ``chat_id`` (of ``chat_type``), where a live
    leaderboard is asked for (issue 38): Telegram's ``getChatMember`` of the bot says so."""
    try:
        me = await bot.get_chat_member(chat_id, bot.id)
    except TelegramError:
        raise Refusal("board_bot_cannot_post") from None
    if not _may_post(me, chat_type):
        raise Refusal("board_bot_cannot_post")
