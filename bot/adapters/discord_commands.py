"""The product's commands as Discord slash commands: the same names as on the console and
Telegram, typed parameters (members from Discord's member picker, results and colours as
choices, ladders with autocomplete), each documented with ``@app_commands.describe``.

Every command only gathers its words and runs the shared command of ``bot.chat.commands`` through
``DiscordFrontEnd.run``: no use case is written twice. Moderator commands are hidden from members
by their default permissions (Manage Server; a server's admins can open them to the club's
moderator role in the server's Integrations settings); the service still checks who may.
Command ``start`` (Telegram's greeting) has no slash command: ``/help`` is the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands

from bot.chat.commands import COMMANDS
from bot.chat.messages import text

if TYPE_CHECKING:
    from bot.adapters.discord import ClubClient, DiscordFrontEnd

Interaction = discord.Interaction[discord.Client]
Result = Literal["win", "loss", "draw"]
Colour = Literal["white", "black"]
#: every setting ``bot.service.parsing.setting`` accepts (a ladder's ``LadderSettings`` but its
#: system and parameters, which ``/system`` sets)
Setting = Literal["auto_confirm_hours", "challenge_hours", "inactivity_days",
                  "hide_provisional", "announce", "timezone", "moderator_role"]
MODERATORS = discord.Permissions(manage_guild=True)
#: Telegram's greeting; /help says the same
NOT_ON_DISCORD = {"start"}


def define_commands(tree: app_commands.CommandTree[ClubClient], front: DiscordFrontEnd) -> None:
    """Add every slash command to ``tree``."""
    run = front.run
    command = tree.command
    moderator = app_commands.default_permissions(manage_guild=True)

    # -- members ------------------------------------------------------------------------------

    @command(name="register", description=text("menu_register"))
    @app_commands.describe(name=text("param_name"), birth=text("param_birth"))
    async def register(interaction: Interaction, name: str | None = None,
                       birth: str | None = None) -> None:
        await run(interaction, "register", [name], {"birth": birth})

    @command(name="rating", description=text("menu_rating"))
    @app_commands.describe(member=text("param_member_optional"), ladder=text("param_ladder"))
    async def rating(interaction: Interaction, member: discord.Member | None = None,
                     ladder: str | None = None) -> None:
        await run(interaction, "rating", [member], {"ladder": ladder})

    @command(name="top", description=text("menu_top"))
    @app_commands.describe(ladder=text("param_ladder"))
    async def top(interaction: Interaction, ladder: str | None = None) -> None:
        await run(interaction, "top", [ladder])

    @command(name="challenge", description=text("menu_challenge"))
    @app_commands.describe(member=text("param_member"), ladder=text("param_ladder"))
    async def challenge(interaction: Interaction, member: discord.Member,
                        ladder: str | None = None) -> None:
        await run(interaction, "challenge", [member], {"ladder": ladder})

    @command(name="accept", description=text("menu_accept"))
    @app_commands.describe(number=text("param_challenge"))
    async def accept(interaction: Interaction,
                     number: app_commands.Range[int, 1] | None = None) -> None:
        await run(interaction, "accept", [_number(number)])

    @command(name="decline", description=text("menu_decline"))
    @app_commands.describe(number=text("param_challenge"))
    async def decline(interaction: Interaction,
                      number: app_commands.Range[int, 1] | None = None) -> None:
        await run(interaction, "decline", [_number(number)])

    @command(name="report", description=text("menu_report"))
    @app_commands.describe(
        opponent=text("param_opponent"), result=text("param_result"),
        handicap=text("param_handicap"), colour=text("param_colour"),
        event=text("param_event"), ladder=text("param_ladder"), player=text("param_player"))
    async def report(interaction: Interaction, opponent: discord.Member, result: Result,
                     handicap: str | None = None, colour: Colour | None = None,
                     event: str | None = None, ladder: str | None = None,
                     player: discord.Member | None = None) -> None:
        await run(interaction, "report", [player, opponent, result],
                  {"handicap": handicap, "colour": colour, "event": event, "ladder": ladder})

    @command(name="confirm", description=text("menu_confirm"))
    @app_commands.describe(number=text("param_game_optional"))
    async def confirm(interaction: Interaction,
                      number: app_commands.Range[int, 1] | None = None) -> None:
        await run(interaction, "confirm", [_number(number)])

    @command(name="dispute", description=text("menu_dispute"))
    @app_commands.describe(number=text("param_game_optional"), reason=text("param_reason"))
    async def dispute(interaction: Interaction,
                      number: app_commands.Range[int, 1] | None = None,
                      reason: str | None = None) -> None:
        await run(interaction, "dispute", [_number(number), *(reason or "").split()])

    @command(name="withdraw", description=text("menu_withdraw"))
    @app_commands.describe(number=text("param_game_optional"))
    async def withdraw(interaction: Interaction,
                       number: app_commands.Range[int, 1] | None = None) -> None:
        await run(interaction, "withdraw", [_number(number)])

    @command(name="history", description=text("menu_history"))
    @app_commands.describe(member=text("param_member_optional"), ladder=text("param_ladder"))
    async def history(interaction: Interaction, member: discord.Member | None = None,
                      ladder: str | None = None) -> None:
        await run(interaction, "history", [member], {"ladder": ladder})

    @command(name="h2h", description=text("menu_h2h"))
    @app_commands.describe(member=text("param_member"), ladder=text("param_ladder"))
    async def h2h(interaction: Interaction, member: discord.Member,
                  ladder: str | None = None) -> None:
        await run(interaction, "h2h", [member], {"ladder": ladder})

    @command(name="pending", description=text("menu_pending"))
    async def pending(interaction: Interaction) -> None:
        await run(interaction, "pending")

    @command(name="help", description=text("menu_help"))
    async def help_(interaction: Interaction) -> None:
        await run(interaction, "help")

    # -- moderators ---------------------------------------------------------------------------

    @command(name="correct", description=text("menu_correct"))
    @app_commands.describe(number=text("param_game"), result=text("param_corrected_result"),
                           a=text("param_a"), b=text("param_b"),
                           handicap=text("param_handicap"))
    @moderator
    async def correct(interaction: Interaction, number: app_commands.Range[int, 1],
                      result: Result | None = None, a: discord.Member | None = None,
                      b: discord.Member | None = None, handicap: str | None = None) -> None:
        await run(interaction, "correct", [str(number), result],
                  {"a": a, "b": b, "handicap": handicap})

    @command(name="apply", description=text("menu_apply"))
    @moderator
    async def apply(interaction: Interaction) -> None:
        await run(interaction, "apply")

    @command(name="cancel", description=text("menu_cancel"))
    @moderator
    async def cancel(interaction: Interaction) -> None:
        await run(interaction, "cancel")

    @command(name="void", description=text("menu_void"))
    @app_commands.describe(number=text("param_game"), reason=text("param_reason"))
    @moderator
    async def void(interaction: Interaction, number: app_commands.Range[int, 1],
                   reason: str | None = None) -> None:
        await run(interaction, "void", [str(number), *(reason or "").split()])

    @command(name="restore", description=text("menu_restore"))
    @app_commands.describe(number=text("param_game"))
    @moderator
    async def restore(interaction: Interaction, number: app_commands.Range[int, 1]) -> None:
        await run(interaction, "restore", [str(number)])

    @command(name="merge", description=text("menu_merge"))
    @app_commands.describe(duplicate=text("param_duplicate"), member=text("param_member"))
    @moderator
    async def merge(interaction: Interaction, duplicate: discord.Member,
                    member: discord.Member) -> None:
        await run(interaction, "merge", [duplicate, member])

    @command(name="retire", description=text("menu_retire"))
    @app_commands.describe(member=text("param_member"), ladder=text("param_ladder"))
    @moderator
    async def retire(interaction: Interaction, member: discord.Member,
                     ladder: str | None = None) -> None:
        await run(interaction, "retire", [member], {"ladder": ladder})

    @command(name="return", description=text("menu_return"))
    @app_commands.describe(member=text("param_member"), ladder=text("param_ladder"))
    @moderator
    async def return_(interaction: Interaction, member: discord.Member,
                      ladder: str | None = None) -> None:
        await run(interaction, "return", [member], {"ladder": ladder})

    event = app_commands.Group(name="event", description=text("menu_event"),
                               default_permissions=MODERATORS)

    @event.command(name="open", description=text("menu_event_open"))
    @app_commands.describe(name=text("param_event_name"), ladder=text("param_ladder"))
    async def event_open(interaction: Interaction, name: str, ladder: str | None = None) -> None:
        await run(interaction, "event", ["open", name], {"ladder": ladder})

    @event.command(name="close", description=text("menu_event_close"))
    @app_commands.describe(name=text("param_event_name"), ladder=text("param_ladder"))
    async def event_close(interaction: Interaction, name: str,
                          ladder: str | None = None) -> None:
        await run(interaction, "event", ["close", name], {"ladder": ladder})

    tree.add_command(event)

    ladder_group = app_commands.Group(name="ladder", description=text("menu_ladder"),
                                      default_permissions=MODERATORS)

    @ladder_group.command(name="create", description=text("menu_ladder_create"))
    @app_commands.describe(name=text("param_ladder_name"), system=text("param_system"),
                           params=text("param_params"))
    async def ladder_create(interaction: Interaction, name: str, system: str | None = None,
                            params: str | None = None) -> None:
        await _with_params(interaction, front, "ladder", ["create", name, system], params)

    tree.add_command(ladder_group)

    @command(name="system", description=text("menu_system"))
    @app_commands.describe(name=text("param_system"), params=text("param_params"),
                           ladder=text("param_ladder"))
    @moderator
    async def system(interaction: Interaction, name: str, params: str | None = None,
                     ladder: str | None = None) -> None:
        await _with_params(interaction, front, "system", [name], params, ladder)

    @command(name="set", description=text("menu_set"))
    @app_commands.describe(key=text("param_setting"), value=text("param_value"),
                           role=text("param_role"), ladder=text("param_ladder"))
    @moderator
    async def set_(interaction: Interaction, key: Setting, value: str | None = None,
                   role: discord.Role | None = None, ladder: str | None = None) -> None:
        chosen = str(role.id) if role is not None else value
        await run(interaction, "set", [key, chosen], {"ladder": ladder})

    @command(name="settings", description=text("menu_settings"))
    @app_commands.describe(ladder=text("param_ladder"))
    async def settings(interaction: Interaction, ladder: str | None = None) -> None:
        await run(interaction, "settings", [ladder])

    @command(name="audit", description=text("menu_audit"))
    @app_commands.describe(entries=text("param_entries"))
    @moderator
    async def audit(interaction: Interaction,
                    entries: app_commands.Range[int, 1, 100] | None = None) -> None:
        await run(interaction, "audit", [_number(entries)])

    @command(name="undo", description=text("menu_undo"))
    @moderator
    async def undo(interaction: Interaction) -> None:
        await run(interaction, "undo")

    moderator_group = app_commands.Group(name="moderator", description=text("menu_moderator"),
                                         default_permissions=MODERATORS)

    @moderator_group.command(name="add", description=text("menu_moderator_add"))
    @app_commands.describe(member=text("param_member"))
    async def moderator_add(interaction: Interaction, member: discord.Member) -> None:
        await run(interaction, "moderator", ["add", member])

    @moderator_group.command(name="remove", description=text("menu_moderator_remove"))
    @app_commands.describe(member=text("param_member"))
    async def moderator_remove(interaction: Interaction, member: discord.Member) -> None:
        await run(interaction, "moderator", ["remove", member])

    tree.add_command(moderator_group)

    # Commands without a slash command of their own above (those added to bot.chat.commands
    # since) are still reachable: their words typed as one text, as on the console.
    defined = {c.name for c in tree.get_commands()}
    for name, (_, usage_key) in COMMANDS.items():
        if name not in defined and name not in NOT_ON_DISCORD:
            tree.add_command(_typed(front, name, usage_key))

    async def ladder_names(interaction: Interaction,
                           current: str) -> list[app_commands.Choice[str]]:
        names = await front.ladders(interaction)
        return [app_commands.Choice(name=n, value=n) for n in names
                if current.casefold() in n][:25]

    for each in tree.walk_commands():
        if isinstance(each, app_commands.Command) and any(
                p.name == "ladder" for p in each.parameters):
            each.autocomplete("ladder")(ladder_names)


def _typed(front: DiscordFrontEnd, name: str,
           usage_key: str) -> app_commands.Command[Any, Any, None]:
    @app_commands.describe(arguments=text("param_arguments"))
    async def typed(interaction: Interaction, arguments: str | None = None) -> None:
        await front.run_line(interaction, name, arguments)

    return app_commands.Command(name=name, description=text(usage_key)[:100], callback=typed)


def _number(number: int | None) -> str | None:
    return None if number is None else str(number)


async def _with_params(interaction: Interaction, front: DiscordFrontEnd, command: str,
                       args: list[str | None], params: str | None,
                       ladder: str | None = None) -> None:
    """A command taking a system's ``key=value`` parameters, typed as one text."""
    options: dict[str, str | None] = {"ladder": ladder}
    for word in (params or "").split():
        key, sep, value = word.partition("=")
        if not sep:
            await front.run(interaction, command, [*args, word], options)  # usage refusal
            return
        options[key] = value
    await front.run(interaction, command, args, options)
