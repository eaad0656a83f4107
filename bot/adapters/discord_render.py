"""Answers as Discord messages: embeds for profiles, results and tables, plain text for the rest,
a picture as an embed image with its PNG attached; the buttons (``bot.chat.actions``) get their
Discord style here.

Everything a member typed (display names above all) is shown as text only: markdown escaped,
mentions broken by a zero-width space, and every message is sent with
``AllowedMentions.none()`` as well. Discord's limits (developer docs, "Message Resource" and
"Embed Limits"): message content 2,000 characters, embed description 4,096, an embed's title
256, all the embeds of one message 6,000; a longer answer is cut at line ends into several
messages.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import discord

from bot.chat.actions import ID_PATTERN, Emphasis, page_of
from bot.chat.presenter import cut, render
from bot.scheduling.publishing import Picture
from bot.service.errors import Refusal
from bot.service.results import (
    Audit,
    GameResult,
    HeadToHead,
    History,
    Leaderboard,
    Preview,
    Profile,
    Result,
)

#: Discord's limits, with room left for the code fence around a table
CONTENT_LIMIT = 2000
DESCRIPTION_LIMIT = 4096
TITLE_LIMIT = 256
_FENCE = "```\n{}\n```"
_TABLE_ROOM = DESCRIPTION_LIMIT - len(_FENCE.format(""))
#: answers shown as a monospaced table in an embed
TABLES = (Leaderboard, History, HeadToHead, Audit, Preview)
#: embed colours: results green, profiles blue, tables grey
_COLOURS = {GameResult: 0x2E7D32, Profile: 0x1565C0}
_GREY = 0x546E7A

Answer = Result | str | Picture


@dataclass
class Piece:
    """One message: text, or an embed, and the PNG it shows."""

    content: str | None = None
    embed: discord.Embed | None = None
    picture: Picture | None = None

    def file(self) -> discord.File | None:
        if self.picture is None:
            return None
        return discord.File(io.BytesIO(self.picture.png), filename=self.picture.filename)


def harmless(shown: str) -> str:
    """Text shown as written: no markdown, no mention that could ping."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(shown))


def _in_table(shown: str) -> str:
    # Inside a code block only a run of backticks could end it early.
    return discord.utils.escape_mentions(shown.replace("`", "`\u200b"))


def pieces(answer: Answer, page: int = 0, picture: Picture | None = None) -> list[Piece]:
    """The messages that show an answer (most answers: one); with ``picture`` (a problem's),
    one embed: the answer's text above the picture."""
    if picture is not None and not isinstance(answer, Picture):
        shown = answer if isinstance(answer, str) else render(answer)
        return pieces(Picture(picture.png, picture.filename, shown))
    if isinstance(answer, Picture):
        embed = discord.Embed(description=harmless(answer.caption)[:DESCRIPTION_LIMIT] or None,
                              colour=_GREY)
        embed.set_image(url=f"attachment://{answer.filename}")
        return [Piece(embed=embed, picture=answer)]
    if isinstance(answer, str):
        return [Piece(content=p) for p in cut(harmless(answer), CONTENT_LIMIT)]
    if isinstance(answer, Leaderboard):
        answer = page_of(answer, page)
    shown = render(answer)
    if isinstance(answer, TABLES):
        return [Piece(embed=discord.Embed(description=_FENCE.format(p), colour=_GREY))
                for p in cut(_in_table(shown), _TABLE_ROOM)]
    if isinstance(answer, Profile | GameResult):
        colour = _COLOURS[type(answer)]
        return [Piece(embed=discord.Embed(description=p, colour=colour))
                for p in cut(harmless(shown), DESCRIPTION_LIMIT)]
    return [Piece(content=p) for p in cut(harmless(shown), CONTENT_LIMIT)]


def refusal_text(refusal: Refusal | str) -> str:
    """A refusal (or its sentence) as one message."""
    shown = refusal if isinstance(refusal, str) else render(refusal)
    return harmless(shown)[:CONTENT_LIMIT]


# -- buttons ------------------------------------------------------------------------------------

#: the custom ids of the bot's buttons (their actions' ids, ``bot.chat.actions``):
#: g:confirm|dispute:<game>, c:accept|decline:<challenge>, x:apply|cancel:<game>,
#: t:<ladder>:<page>, p:solve|answer:<problem>; unchanged, for the buttons of messages posted
#: long ago
BUTTON_TEMPLATE = ID_PATTERN
#: a button's colour: the yes of a choice green, the no red, paging grey
STYLES = {
    Emphasis.PRIMARY: discord.ButtonStyle.success,
    Emphasis.SECONDARY: discord.ButtonStyle.danger,
    Emphasis.NEUTRAL: discord.ButtonStyle.secondary,
}
