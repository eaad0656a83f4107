"""Whether a member may have the bot post into another Discord channel (``/schedule
channel=``): a text channel of the club's own server, that the member manages (Manage Channels
there), where the bot may see and send messages (Discord's "Permissions" docs; the permissions
are computed from the roles and overwrites discord.py keeps of the server)."""

from __future__ import annotations

import discord

from bot.service.errors import Refusal


def check_channel(guild: discord.Guild, member: discord.Member, channel: str) -> None:
    """Refuse, saying which check fails, unless ``channel`` (an id) is a text channel of
    ``guild`` that ``member`` manages and where the bot may post."""
    found = guild.get_channel(int(channel)) if channel.isdigit() else None
    if not isinstance(found, discord.TextChannel):
        raise Refusal("channel_not_in_server", channel=channel)
    if not found.permissions_for(member).manage_channels:
        raise Refusal("channel_not_yours", channel=channel)
    mine = found.permissions_for(guild.me)
    if not (mine.view_channel and mine.send_messages):
        raise Refusal("channel_bot_cannot_post", channel=channel)


def check_board_channel(guild: discord.Guild | None, channel: object) -> None:
    """Refuse unless the bot may see and send messages in ``channel``, the text channel where
    a live leaderboard is asked for (issue 38)."""
    if guild is None or not isinstance(channel, discord.TextChannel | discord.Thread):
        raise Refusal("board_bot_cannot_post")
    mine = channel.permissions_for(guild.me)
    if not (mine.view_channel and mine.send_messages):
        raise Refusal("board_bot_cannot_post")
