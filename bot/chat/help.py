"""``/help``: the commands that work on a platform, and one command's usage, options and
example, from the commands' declarations (:data:`bot.chat.commands.COMMANDS`, passed in).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from bot.chat.messages import text
from bot.service.errors import Refusal
from bot.service.ladder_settings import SETTINGS


class Declared(Protocol):
    """What help reads of a command's declaration (:class:`bot.chat.commands.Command`)."""

    @property
    def usage(self) -> str: ...

    options: tuple[str, ...]
    params: str | None
    example: str
    also: tuple[str, ...]


def listed(keys: list[str], platform: str) -> list[str]:
    """The usage lines of ``keys`` offered on ``platform``, and after /set's line those of the
    settings only that platform has (Discord's moderator_role)."""
    lines = []
    for key in keys:
        if FRONT_END_ONLY.get(key, platform) != platform:
            continue
        lines.append(text(key))
        if key == "help_set":
            lines += [text("help_set_platform", setting=s.name, about=text(s.help))
                      for s in SETTINGS if s.platform == platform]
    return lines


def command_help(name: str, platform: str, commands: Mapping[str, Declared]) -> str:
    """``/help NAME`` (with or without the slash) on ``platform``: the command's usage
    line(s), the options it takes (from its entry in ``commands``) and one example."""
    name = name.removeprefix("/").split("@")[0].lower()
    if name == "as" and platform == FRONT_END_ONLY["help_as"]:
        return "\n".join([text("help_as"), text("help_options_none"),
                          text("help_example", example=text("example_as"))])
    entry = commands.get(name)
    if entry is None:
        raise Refusal("bad_command", command=f"/{name}"[:40])
    taken = [f"{option}=" for option in entry.options]
    if entry.params is not None:
        taken.append(text(entry.params))
    options = (text("help_options", options=", ".join(taken)) if taken
               else text("help_options_none"))
    settings = []
    if name == "set":  # each setting with what it means (issue 31), this platform's only
        settings = [text("help_settings_list"), *(
            text("help_setting_line", setting=s.name, about=text(s.help))
            for s in SETTINGS if s.platform in (None, platform))]
    return "\n".join([*(text(key) for key in (entry.usage, *entry.also)), *settings, options,
                      text("help_example", example=text(entry.example))])


MEMBER_HELP = [
    "help_register", "help_rating", "help_top", "help_challenge", "help_accept", "help_decline",
    "help_report", "help_confirm", "help_dispute", "help_withdraw", "help_history", "help_h2h",
    "help_pending", "help_chart", "help_card", "help_digest", "help_puzzle", "help_answer",
    "help_claim", "help_link_me", "help_nights_member", "help_help",
    "help_as", "help_stake_member",
]
MODERATOR_HELP = [
    "help_mod_report", "help_mod_report_repeat", "help_correct", "help_void", "help_restore",
    "help_merge", "help_retire", "help_return", "help_event", "help_ladder", "help_system",
    "help_set", "help_settings", "help_audit", "help_undo", "help_moderator", "help_schedule",
    "help_evaluate", "help_claim_answer", "help_puzzle_add", "help_link",
    "help_unlink", "help_nights_moderator", "help_bands", "help_board_short",
    "help_seasons",
]
#: help lines of what one front-end reads itself (no command of the table) -> its platform
FRONT_END_ONLY = {"help_as": "console"}
