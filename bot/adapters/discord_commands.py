"""The product's commands as Discord slash commands: the same names as on the console and
Telegram, typed parameters (members from Discord's member picker, results, colours and settings
as choices, ladders with autocomplete), each documented with ``@app_commands.describe``.

Two cogs hold them, each command a method: :class:`MemberCommands`, which every member may run,
and :class:`ModeratorCommands`, hidden from members by their default permissions (Manage Server;
a server's admins can open them to the club's moderator role in the server's Integrations
settings); the service still checks who may. Every command only gathers its words and runs the
shared command of ``bot.chat.commands`` through ``DiscordFrontEnd.run``: no use case is written
twice. A command of ``bot.chat.commands`` without a method here (one added since) is still a slash
command (:func:`typed_commands`): its words typed as one text, as on the console. Command
``start`` (Telegram's greeting) has no slash command: ``/help`` is the same.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.chat.commands import COMMANDS
from bot.chat.messages import text
from bot.service import ladder_settings

if TYPE_CHECKING:
    from bot.adapters.discord import DiscordFrontEnd

Interaction = discord.Interaction[discord.Client]
Choice = app_commands.Choice
Result = Literal["win", "loss", "draw"]
Colour = Literal["white", "black"]
#: what a /withdraw takes back, when one's report and challenge share its number (issue 31)
Withdrawn = Literal["game", "challenge"]
#: every setting /set changes (``bot.service.ladder_settings``; a ladder's system and parameters
#: are /system's), offered by name
SETTINGS = [Choice(name=name, value=name) for name in ladder_settings.names()]
MODERATORS = discord.Permissions(manage_guild=True)
#: Telegram's greeting; /help says the same
NOT_ON_DISCORD = {"start"}
#: the most choices Discord shows as one types
MAX_CHOICES = 25


class _Commands(commands.Cog):
    """What both cogs share: the front-end their commands run through, and the club's ladders
    offered as a ladder's name is typed."""

    def __init__(self, front: DiscordFrontEnd) -> None:
        self.front = front

    async def ladders(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        """The club's ladder names that hold what is typed (autocomplete)."""
        names = await self.front.ladders(interaction)
        return [Choice(name=n, value=n) for n in names
                if current.casefold() in n][:MAX_CHOICES]

    async def with_params(self, interaction: Interaction, command: str,
                          args: list[str | None], params: str | None,
                          ladder: str | None = None) -> None:
        """Run a command taking a system's ``key=value`` parameters, typed as one text."""
        options: dict[str, str | None] = {"ladder": ladder}
        for word in (params or "").split():
            key, sep, value = word.partition("=")
            if not sep:
                await self.front.run(interaction, command, [*args, word], options)  # usage
                return
            options[key] = value
        await self.front.run(interaction, command, args, options)


class MemberCommands(_Commands):
    """The commands every member may run."""

    @app_commands.command(name="register", description=text("menu_register"))
    @app_commands.describe(name=text("param_name"), birth=text("param_birth"))
    async def register(self, interaction: Interaction, name: str | None = None,
                       birth: str | None = None) -> None:
        await self.front.run(interaction, "register", [name], {"birth": birth})

    @app_commands.command(name="rating", description=text("menu_rating"))
    @app_commands.describe(member=text("param_member_optional"), ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def rating(self, interaction: Interaction, member: discord.Member | None = None,
                     ladder: str | None = None) -> None:
        await self.front.run(interaction, "rating", [member], {"ladder": ladder})

    @app_commands.command(name="top", description=text("menu_top"))
    @app_commands.describe(ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def top(self, interaction: Interaction, ladder: str | None = None) -> None:
        await self.front.run(interaction, "top", [ladder])

    @app_commands.command(name="challenge", description=text("menu_challenge"))
    @app_commands.describe(member=text("param_member"), ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def challenge(self, interaction: Interaction, member: discord.Member,
                        ladder: str | None = None) -> None:
        await self.front.run(interaction, "challenge", [member], {"ladder": ladder})

    @app_commands.command(name="accept", description=text("menu_accept"))
    @app_commands.describe(number=text("param_challenge"))
    async def accept(self, interaction: Interaction,
                     number: app_commands.Range[int, 1] | None = None) -> None:
        await self.front.run(interaction, "accept", [_number(number)])

    @app_commands.command(name="decline", description=text("menu_decline"))
    @app_commands.describe(number=text("param_challenge"))
    async def decline(self, interaction: Interaction,
                      number: app_commands.Range[int, 1] | None = None) -> None:
        await self.front.run(interaction, "decline", [_number(number)])

    @app_commands.command(name="report", description=text("menu_report"))
    @app_commands.describe(
        opponent=text("param_opponent"), result=text("param_result"),
        handicap=text("param_handicap"), colour=text("param_colour"),
        event=text("param_event"), ladder=text("param_ladder"), player=text("param_player"),
        repeat=text("param_repeat"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def report(self, interaction: Interaction, opponent: discord.Member, result: Result,
                     handicap: str | None = None, colour: Colour | None = None,
                     event: str | None = None, ladder: str | None = None,
                     player: discord.Member | None = None, repeat: bool | None = None) -> None:
        await self.front.run(
            interaction, "report", [player, opponent, result],
            {"handicap": handicap, "colour": colour, "event": event, "ladder": ladder,
             "repeat": None if repeat is None else ("yes" if repeat else "no")})

    @app_commands.command(name="confirm", description=text("menu_confirm"))
    @app_commands.describe(number=text("param_game_optional"))
    async def confirm(self, interaction: Interaction,
                      number: app_commands.Range[int, 1] | None = None) -> None:
        await self.front.run(interaction, "confirm", [_number(number)])

    @app_commands.command(name="dispute", description=text("menu_dispute"))
    @app_commands.describe(number=text("param_game_optional"), reason=text("param_reason"))
    async def dispute(self, interaction: Interaction,
                      number: app_commands.Range[int, 1] | None = None,
                      reason: str | None = None) -> None:
        await self.front.run(interaction, "dispute", [_number(number), *(reason or "").split()])

    @app_commands.command(name="withdraw", description=text("menu_withdraw"))
    @app_commands.describe(number=text("param_withdraw_number"), what=text("param_withdraw_what"))
    async def withdraw(self, interaction: Interaction,
                       number: app_commands.Range[int, 1] | None = None,
                       what: Withdrawn | None = None) -> None:
        # /withdraw [game|challenge] [number], as typed (issue 31)
        await self.front.run(interaction, "withdraw", [what, _number(number)])

    @app_commands.command(name="history", description=text("menu_history"))
    @app_commands.describe(member=text("param_member_optional"), ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def history(self, interaction: Interaction, member: discord.Member | None = None,
                      ladder: str | None = None) -> None:
        await self.front.run(interaction, "history", [member], {"ladder": ladder})

    @app_commands.command(name="h2h", description=text("menu_h2h"))
    @app_commands.describe(member=text("param_member"), ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def h2h(self, interaction: Interaction, member: discord.Member,
                  ladder: str | None = None) -> None:
        await self.front.run(interaction, "h2h", [member], {"ladder": ladder})

    @app_commands.command(name="pending", description=text("menu_pending"))
    async def pending(self, interaction: Interaction) -> None:
        await self.front.run(interaction, "pending")

    @app_commands.command(name="settings", description=text("menu_settings"))
    @app_commands.describe(ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def settings(self, interaction: Interaction, ladder: str | None = None) -> None:
        await self.front.run(interaction, "settings", [ladder])

    @app_commands.command(name="help", description=text("menu_help"))
    @app_commands.describe(command=text("param_help_command"))
    async def help_(self, interaction: Interaction, command: str | None = None) -> None:
        await self.front.run(interaction, "help", [command])


class ModeratorCommands(_Commands):
    """The commands only moderators may run: hidden from members by default."""

    event = app_commands.Group(name="event", description=text("menu_event"),
                               default_permissions=MODERATORS)
    ladder = app_commands.Group(name="ladder", description=text("menu_ladder"),
                                default_permissions=MODERATORS)
    moderator = app_commands.Group(name="moderator", description=text("menu_moderator"),
                                   default_permissions=MODERATORS)

    @app_commands.command(name="correct", description=text("menu_correct"))
    @app_commands.describe(number=text("param_game"), result=text("param_corrected_result"),
                           a=text("param_a"), b=text("param_b"),
                           handicap=text("param_handicap"))
    @app_commands.default_permissions(manage_guild=True)
    async def correct(self, interaction: Interaction, number: app_commands.Range[int, 1],
                      result: Result | None = None, a: discord.Member | None = None,
                      b: discord.Member | None = None, handicap: str | None = None) -> None:
        await self.front.run(interaction, "correct", [str(number), result],
                             {"a": a, "b": b, "handicap": handicap})

    @app_commands.command(name="apply", description=text("menu_apply"))
    @app_commands.default_permissions(manage_guild=True)
    async def apply(self, interaction: Interaction) -> None:
        await self.front.run(interaction, "apply")

    @app_commands.command(name="cancel", description=text("menu_cancel"))
    @app_commands.default_permissions(manage_guild=True)
    async def cancel(self, interaction: Interaction) -> None:
        await self.front.run(interaction, "cancel")

    @app_commands.command(name="void", description=text("menu_void"))
    @app_commands.describe(number=text("param_game"), reason=text("param_reason"))
    @app_commands.default_permissions(manage_guild=True)
    async def void(self, interaction: Interaction, number: app_commands.Range[int, 1],
                   reason: str | None = None) -> None:
        await self.front.run(interaction, "void", [str(number), *(reason or "").split()])

    @app_commands.command(name="restore", description=text("menu_restore"))
    @app_commands.describe(number=text("param_game"))
    @app_commands.default_permissions(manage_guild=True)
    async def restore(self, interaction: Interaction,
                      number: app_commands.Range[int, 1]) -> None:
        await self.front.run(interaction, "restore", [str(number)])

    @app_commands.command(name="merge", description=text("menu_merge"))
    @app_commands.describe(duplicate=text("param_duplicate"), member=text("param_member"))
    @app_commands.default_permissions(manage_guild=True)
    async def merge(self, interaction: Interaction, duplicate: discord.Member,
                    member: discord.Member) -> None:
        await self.front.run(interaction, "merge", [duplicate, member])

    @app_commands.command(name="retire", description=text("menu_retire"))
    @app_commands.describe(member=text("param_member"), ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    @app_commands.default_permissions(manage_guild=True)
    async def retire(self, interaction: Interaction, member: discord.Member,
                     ladder: str | None = None) -> None:
        await self.front.run(interaction, "retire", [member], {"ladder": ladder})

    @app_commands.command(name="return", description=text("menu_return"))
    @app_commands.describe(member=text("param_member"), ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    @app_commands.default_permissions(manage_guild=True)
    async def return_(self, interaction: Interaction, member: discord.Member,
                      ladder: str | None = None) -> None:
        await self.front.run(interaction, "return", [member], {"ladder": ladder})

    @event.command(name="open", description=text("menu_event_open"))
    @app_commands.describe(name=text("param_event_name"), ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def event_open(self, interaction: Interaction, name: str,
                         ladder: str | None = None) -> None:
        await self.front.run(interaction, "event", ["open", name], {"ladder": ladder})

    @event.command(name="close", description=text("menu_event_close"))
    @app_commands.describe(name=text("param_event_name"), ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def event_close(self, interaction: Interaction, name: str,
                          ladder: str | None = None) -> None:
        await self.front.run(interaction, "event", ["close", name], {"ladder": ladder})

    @ladder.command(name="create", description=text("menu_ladder_create"))
    @app_commands.describe(name=text("param_ladder_name"), system=text("param_system"),
                           params=text("param_params"))
    async def ladder_create(self, interaction: Interaction, name: str,
                            system: str | None = None, params: str | None = None) -> None:
        await self.with_params(interaction, "ladder", ["create", name, system], params)

    @app_commands.command(name="system", description=text("menu_system"))
    @app_commands.describe(name=text("param_system"), params=text("param_params"),
                           ladder=text("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    @app_commands.default_permissions(manage_guild=True)
    async def system(self, interaction: Interaction, name: str, params: str | None = None,
                     ladder: str | None = None) -> None:
        await self.with_params(interaction, "system", [name], params, ladder)

    @app_commands.command(name="set", description=text("menu_set"))
    @app_commands.describe(key=text("param_setting"), value=text("param_value"),
                           role=text("param_role"), ladder=text("param_ladder"))
    @app_commands.choices(key=SETTINGS)
    @app_commands.autocomplete(ladder=_Commands.ladders)
    @app_commands.default_permissions(manage_guild=True)
    async def set_(self, interaction: Interaction, key: str, value: str | None = None,
                   role: discord.Role | None = None, ladder: str | None = None) -> None:
        chosen = str(role.id) if role is not None else value
        await self.front.run(interaction, "set", [key, chosen], {"ladder": ladder})

    @app_commands.command(name="audit", description=text("menu_audit"))
    @app_commands.describe(entries=text("param_entries"))
    @app_commands.default_permissions(manage_guild=True)
    async def audit(self, interaction: Interaction,
                    entries: app_commands.Range[int, 1, 100] | None = None) -> None:
        await self.front.run(interaction, "audit", [_number(entries)])

    @app_commands.command(name="undo", description=text("menu_undo"))
    @app_commands.default_permissions(manage_guild=True)
    async def undo(self, interaction: Interaction) -> None:
        await self.front.run(interaction, "undo")

    @moderator.command(name="add", description=text("menu_moderator_add"))
    @app_commands.describe(member=text("param_member"))
    async def moderator_add(self, interaction: Interaction, member: discord.Member) -> None:
        await self.front.run(interaction, "moderator", ["add", member])

    @moderator.command(name="remove", description=text("menu_moderator_remove"))
    @app_commands.describe(member=text("param_member"))
    async def moderator_remove(self, interaction: Interaction, member: discord.Member) -> None:
        await self.front.run(interaction, "moderator", ["remove", member])


def typed_commands(front: DiscordFrontEnd,
                   defined: Collection[str]) -> list[app_commands.Command[Any, Any, None]]:
    """Slash commands for the commands of ``bot.chat.commands`` not ``defined`` as slash
    commands (those added since the cogs were written): their words typed as one text."""
    return [_typed(front, name, usage_key) for name, (_, usage_key) in COMMANDS.items()
            if name not in defined and name not in NOT_ON_DISCORD]


def _typed(front: DiscordFrontEnd, name: str,
           usage_key: str) -> app_commands.Command[Any, Any, None]:
    @app_commands.describe(arguments=text("param_arguments"))
    async def typed(interaction: Interaction, arguments: str | None = None) -> None:
        await front.run_line(interaction, name, arguments)

    return app_commands.Command(name=name, description=text(usage_key)[:100], callback=typed)


def _number(number: int | None) -> str | None:
    return None if number is None else str(number)
