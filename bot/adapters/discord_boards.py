"""A live leaderboard's message on Discord (issue 38), for :class:`~bot.adapters.live_boards.
BoardKeeper`: the table as ``/top`` shows it (an embed), sent into the text channel where
``/board here`` was run, edited through a ``PartialMessage`` (no fetch first), and pinned where
the bot may pin there (Pin Messages, or Manage Messages: Discord's "Permissions" docs).
discord.py paces every call by Discord's rate limits. An edit of a deleted message answers 404
with Discord's code 10008 (Unknown Message): :class:`~bot.adapters.live_boards.MessageGone`."""

from __future__ import annotations

import logging

import discord

from bot.adapters.discord_render import pieces
from bot.adapters.live_boards import MessageGone
from bot.service.results import Leaderboard

log = logging.getLogger(__name__)

#: Discord allows 5 edits of a channel's messages in 5 s: a board is edited at most once every
#: 10 s (the issue's choice)
WINDOW_SECONDS = 10.0
#: Discord's code of an answer about a message that does not exist (deleted)
UNKNOWN_MESSAGE = 10008
#: the grey of the tables' embeds (``discord_render``'s)
TABLE_COLOUR = 0x546E7A
NO_MENTIONS = discord.AllowedMentions.none()


class DiscordBoardPoster:
    platform = "discord"
    window = WINDOW_SECONDS

    def __init__(self, client: discord.Client) -> None:
        self._client = client

    def render(self, board: Leaderboard) -> str:
        """What /top's first message shows (its embed's text)."""
        piece = pieces(board)[0]
        if piece.embed is not None:
            return piece.embed.description or ""
        return piece.content or ""

    def serves(self, chat: str) -> bool:
        """The channels of the servers this client (its shards) received."""
        return self._client.get_channel(int(chat)) is not None

    def _channel(self, where: str) -> discord.TextChannel | discord.Thread:
        found = self._client.get_channel(int(where))
        if not isinstance(found, discord.TextChannel | discord.Thread):
            raise LookupError(f"no Discord text channel {where}")
        return found

    @staticmethod
    def _embed(shown: str) -> discord.Embed:
        return discord.Embed(description=shown, colour=TABLE_COLOUR)

    async def post(self, chat: str, shown: str) -> str:
        sent = await self._channel(chat).send(embed=self._embed(shown),
                                              allowed_mentions=NO_MENTIONS)
        return str(sent.id)

    async def edit(self, chat: str, message: str, shown: str) -> None:
        try:
            await self._channel(chat).get_partial_message(int(message)).edit(
                embed=self._embed(shown))
        except discord.NotFound as gone:
            if gone.code == UNKNOWN_MESSAGE:
                raise MessageGone(message) from gone
            raise

    async def pin(self, chat: str, message: str) -> None:
        channel = self._channel(chat)
        mine = channel.permissions_for(channel.guild.me)
        if not (mine.pin_messages or mine.manage_messages):
            return
        try:
            await channel.get_partial_message(int(message)).pin()
        except discord.HTTPException as error:
            log.info("could not pin the live board %s in %s: %s", message, chat, error.text)

    async def tell(self, chat: str, said: str) -> None:
        try:
            await self._channel(chat).send(said, allowed_mentions=NO_MENTIONS)
        except (LookupError, discord.HTTPException) as error:
            log.warning("could not tell channel %s that its live board stopped: %s", chat, error)
