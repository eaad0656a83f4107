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

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.chat.commands import COMMANDS, PROBLEMS
from bot.chat.language import DEFAULT_LANGUAGE, supported, writing_in
from bot.chat.messages import text
from bot.chat.words import Unbalanced, split_words
from bot.service import ladder_settings
from bot.service.puzzles import DEFAULT_PUZZLE_LADDER, MAX_RATING, MIN_RATING

if TYPE_CHECKING:
    from bot.adapters.discord import DiscordFrontEnd

#: a member mentioned in typed text, as Discord writes one: ``<@id>`` (``<@!id>`` of old)
MENTION = re.compile(r"<@!?([0-9]{1,20})>")


class Typed(str):
    """An option's text of several words, typed as on the console (a team game's sides,
    issue 37): :meth:`DiscordFrontEnd.run` reads its words as the command's, a mention
    (``<@id>``) among them as the member of that user id."""

    def words(self) -> list[str]:
        spaced = MENTION.sub(lambda mention: f" {mention[0]} ", self)
        try:
            return split_words(spaced)
        except Unbalanced:
            return spaced.split()


Interaction = discord.Interaction[discord.Client]
Choice = app_commands.Choice
Result = Literal["win", "loss", "draw"]
Colour = Literal["white", "black"]
#: what a /withdraw takes back, when one's report and challenge share its number (issue 31)
Withdrawn = Literal["game", "challenge"]
#: what /season does (issue 38)
SeasonAction = Literal["list", "close"]
#: every setting /set changes (``bot.service.ladder_settings``; a ladder's system and parameters
#: are /system's), offered by name
SETTINGS = [Choice(name=name, value=name) for name in ladder_settings.names()]
MODERATORS = discord.Permissions(manage_guild=True)
#: Telegram's greeting; /help says the same
NOT_ON_DISCORD = {"start"}
#: the most choices Discord shows as one types
MAX_CHOICES = 25
#: the most characters Discord takes in a description
DESCRIPTION_LIMIT = 100


def described(key: str) -> locale_str:
    """A description of a command or an option: the catalogue's English (Discord takes at most
    100 characters), carrying its key for :class:`CatalogueTranslator`."""
    return locale_str(text(key)[:DESCRIPTION_LIMIT], key=key)


class CatalogueTranslator(app_commands.Translator):
    """The slash commands' descriptions in each language Discord has a locale for (French,
    Russian, Japanese; Discord has no Hebrew), from the catalogues, sent with the commands when
    they are synced. Names of commands, options and choices are never translated: /report is
    /report everywhere."""

    async def translate(self, string: locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        key = string.extras.get("key")
        language = supported(str(locale))
        if key is None or language in (None, DEFAULT_LANGUAGE):
            return None
        with writing_in(language):
            return text(key)[:DESCRIPTION_LIMIT]


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

    @app_commands.command(name="register", description=described("menu_register"))
    @app_commands.describe(name=described("param_name"), birth=described("param_birth"))
    async def register(self, interaction: Interaction, name: str | None = None,
                       birth: str | None = None) -> None:
        await self.front.run(interaction, "register", [name], {"birth": birth})

    @app_commands.command(name="rating", description=described("menu_rating"))
    @app_commands.describe(member=described("param_member_optional"),
                           ladder=described("param_ladder"), season=described("param_season"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def rating(self, interaction: Interaction, member: discord.Member | None = None,
                     ladder: str | None = None,
                     season: app_commands.Range[int, 1] | None = None) -> None:
        await self.front.run(interaction, "rating", [member],
                             {"ladder": ladder, "season": _number(season)})

    @app_commands.command(name="top", description=described("menu_top"))
    @app_commands.describe(ladder=described("param_ladder"), problems=described("param_problems"),
                           season=described("param_season"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def top(self, interaction: Interaction, ladder: str | None = None,
                  problems: bool | None = None,
                  season: app_commands.Range[int, 1] | None = None) -> None:
        if season is not None:  # a closed season's table (issue 38)
            await self.front.run(interaction, "top", [], {"ladder": ladder,
                                                          "season": str(season)})
            return
        if not problems:
            await self.front.run(interaction, "top", [ladder])
            return
        # /top LADDER problems: a puzzle ladder's problems, hardest first
        named = ladder or await self.front.puzzle_ladder(interaction) or DEFAULT_PUZZLE_LADDER
        await self.front.run(interaction, "top", [named, PROBLEMS])

    @app_commands.command(name="challenge", description=described("menu_challenge"))
    @app_commands.describe(member=described("param_member"), ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def challenge(self, interaction: Interaction, member: discord.Member,
                        ladder: str | None = None) -> None:
        await self.front.run(interaction, "challenge", [member], {"ladder": ladder})

    @app_commands.command(name="accept", description=described("menu_accept"))
    @app_commands.describe(number=described("param_challenge"))
    async def accept(self, interaction: Interaction,
                     number: app_commands.Range[int, 1] | None = None) -> None:
        await self.front.run(interaction, "accept", [_number(number)])

    @app_commands.command(name="decline", description=described("menu_decline"))
    @app_commands.describe(number=described("param_challenge"))
    async def decline(self, interaction: Interaction,
                      number: app_commands.Range[int, 1] | None = None) -> None:
        await self.front.run(interaction, "decline", [_number(number)])

    @app_commands.command(name="report", description=described("menu_report"))
    @app_commands.describe(
        result=described("param_result"), opponent=described("param_opponent"),
        handicap=described("param_handicap"), colour=described("param_colour"),
        event=described("param_event"),
        ladder=described("param_ladder"),
        player=described("param_player"),
        repeat=described("param_repeat"),
        name=described("param_opponent_name"),
        sides=described("param_sides"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def report(self, interaction: Interaction, result: Result,
                     opponent: discord.Member | None = None,
                     handicap: str | None = None, colour: Colour | None = None,
                     event: str | None = None, ladder: str | None = None,
                     player: discord.Member | None = None, repeat: bool | None = None,
                     name: str | None = None, sides: str | None = None) -> None:
        # The opponent is picked among the server's members, or named: a member of the club
        # known only in another chat of it (issue 35) has no account here to pick. A team
        # game's sides are typed with mentions (issue 37): "@c @d with @b", "@a @b vs @c @d".
        named = None if opponent is not None or not name else f"@{name.lstrip('@')}"
        await self.front.run(
            interaction, "report", [player, opponent or named, Typed(sides or ""), result],
            {"handicap": handicap, "colour": colour, "event": event, "ladder": ladder,
             "repeat": None if repeat is None else ("yes" if repeat else "no")})

    @app_commands.command(name="confirm", description=described("menu_confirm"))
    @app_commands.describe(number=described("param_game_optional"))
    async def confirm(self, interaction: Interaction,
                      number: app_commands.Range[int, 1] | None = None) -> None:
        await self.front.run(interaction, "confirm", [_number(number)])

    @app_commands.command(name="dispute", description=described("menu_dispute"))
    @app_commands.describe(number=described("param_game_optional"),
                           reason=described("param_reason"))
    async def dispute(self, interaction: Interaction,
                      number: app_commands.Range[int, 1] | None = None,
                      reason: str | None = None) -> None:
        await self.front.run(interaction, "dispute", [_number(number), *(reason or "").split()])

    @app_commands.command(name="withdraw", description=described("menu_withdraw"))
    @app_commands.describe(number=described("param_withdraw_number"),
                           what=described("param_withdraw_what"))
    async def withdraw(self, interaction: Interaction,
                       number: app_commands.Range[int, 1] | None = None,
                       what: Withdrawn | None = None) -> None:
        # /withdraw [game|challenge] [number], as typed (issue 31)
        await self.front.run(interaction, "withdraw", [what, _number(number)])

    @app_commands.command(name="history", description=described("menu_history"))
    @app_commands.describe(member=described("param_member_optional"),
                           ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def history(self, interaction: Interaction, member: discord.Member | None = None,
                      ladder: str | None = None) -> None:
        await self.front.run(interaction, "history", [member], {"ladder": ladder})

    @app_commands.command(name="h2h", description=text("menu_h2h"))
    @app_commands.describe(member=described("param_member"), ladder=described("param_ladder"),
                           partners=described("param_partners"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def h2h(self, interaction: Interaction, member: discord.Member,
                  ladder: str | None = None, partners: bool | None = None) -> None:
        await self.front.run(interaction, "h2h", [member, "with" if partners else None],
                             {"ladder": ladder})

    @app_commands.command(name="stake", description=described("menu_stake"))
    @app_commands.describe(member=described("param_stake_opponent"),
                           sides=described("param_stake_sides"),
                           handicap=described("param_handicap"), colour=described("param_colour"),
                           ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def stake(self, interaction: Interaction, member: discord.Member,
                    sides: str | None = None, handicap: str | None = None,
                    colour: Colour | None = None, ladder: str | None = None) -> None:
        # issue 38: a team game's further opponents and partners typed with mentions, as
        # /report's sides: "@dan with @ben"
        await self.front.run(interaction, "stake", [member, Typed(sides or "")],
                             {"handicap": handicap, "colour": colour, "ladder": ladder})

    @app_commands.command(name="pending", description=described("menu_pending"))
    async def pending(self, interaction: Interaction) -> None:
        await self.front.run(interaction, "pending")

    @app_commands.command(name="puzzle", description=described("help_puzzle"))
    @app_commands.describe(ladder=described("param_puzzle_ladder"),
                           add=described("param_problem_id"),
                           answers=described("param_answers"),
                           rating=described("param_problem_rating"),
                           prompt=described("param_prompt"),
                           image=described("param_image"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def puzzle(self, interaction: Interaction, ladder: str | None = None,
                     add: str | None = None, answers: str | None = None,
                     rating: app_commands.Range[float, MIN_RATING, MAX_RATING] | None = None,
                     prompt: str | None = None,
                     image: discord.Attachment | None = None) -> None:
        # /puzzle: a problem to solve, which only the member sees; /puzzle add:ID answers:A|B
        # prompt:TEXT [rating:N] [image:FILE]: a moderator's new problem, in the words of
        # /puzzle add ID [rating=N] answers=A|B TEXT (what is given without add: refused by
        # the shared command, as typed)
        options = [f"{key}={value}" for key, value in
                   (("ladder", ladder), ("rating", None if rating is None else f"{rating:g}"),
                    ("answers", answers)) if value is not None]
        words = ["add", *options, add] if add is not None else options
        if prompt:
            words.append(prompt)
        await self.front.run_with_picture(interaction, "puzzle", words,
                                          image if add is not None else None)

    @app_commands.command(name="answer", description=described("help_answer"))
    @app_commands.describe(text=described("param_answer"))
    async def answer(self, interaction: Interaction, text: str) -> None:
        await self.front.run(interaction, "answer", text.split())

    @app_commands.command(name="settings", description=described("menu_settings"))
    @app_commands.describe(ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def settings(self, interaction: Interaction, ladder: str | None = None) -> None:
        await self.front.run(interaction, "settings", [ladder])

    @app_commands.command(name="season", description=described("menu_season"))
    @app_commands.describe(action=described("param_season_action"),
                           name=described("param_season_name"),
                           confirm=described("param_season_confirm"),
                           ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def season(self, interaction: Interaction, action: SeasonAction,
                     name: str | None = None, confirm: bool | None = None,
                     ladder: str | None = None) -> None:
        """``/season list`` and ``/season close`` (moderators; the service refuses others)
        (issue 38)."""
        words = [action, name, "confirm" if confirm and action == "close" else None]
        await self.front.run(interaction, "season", words, {"ladder": ladder})

    @app_commands.command(name="help", description=described("menu_help"))
    @app_commands.describe(command=described("param_help_command"))
    async def help_(self, interaction: Interaction, command: str | None = None) -> None:
        await self.front.run(interaction, "help", [command])


class ModeratorCommands(_Commands):
    """The commands only moderators may run: hidden from members by default."""

    event = app_commands.Group(name="event", description=described("menu_event"),
                               default_permissions=MODERATORS)
    ladder = app_commands.Group(name="ladder", description=described("menu_ladder"),
                                default_permissions=MODERATORS)
    moderator = app_commands.Group(name="moderator", description=described("menu_moderator"),
                                   default_permissions=MODERATORS)

    @app_commands.command(name="correct", description=described("menu_correct"))
    @app_commands.describe(number=described("param_game"),
                           result=described("param_corrected_result"),
                           a=described("param_a"), b=described("param_b"),
                           handicap=described("param_handicap"),
                           sides=described("param_corrected_sides"),
                           force=described("param_force"))
    @app_commands.default_permissions(manage_guild=True)
    async def correct(self, interaction: Interaction, number: app_commands.Range[int, 1],
                      result: Result | None = None, a: discord.Member | None = None,
                      b: discord.Member | None = None, handicap: str | None = None,
                      sides: str | None = None, force: bool | None = None) -> None:
        await self.front.run(interaction, "correct",
                             [str(number), result, "force" if force else None],
                             {"a": a, "b": b, "handicap": handicap,
                              "sides": Typed(sides) if sides else None})

    @app_commands.command(name="apply", description=described("menu_apply"))
    @app_commands.default_permissions(manage_guild=True)
    async def apply(self, interaction: Interaction) -> None:
        await self.front.run(interaction, "apply")

    @app_commands.command(name="cancel", description=described("menu_cancel"))
    @app_commands.default_permissions(manage_guild=True)
    async def cancel(self, interaction: Interaction) -> None:
        await self.front.run(interaction, "cancel")

    @app_commands.command(name="void", description=described("menu_void"))
    @app_commands.describe(number=described("param_game"), reason=described("param_reason"))
    @app_commands.default_permissions(manage_guild=True)
    async def void(self, interaction: Interaction, number: app_commands.Range[int, 1],
                   reason: str | None = None) -> None:
        await self.front.run(interaction, "void", [str(number), *(reason or "").split()])

    @app_commands.command(name="restore", description=described("menu_restore"))
    @app_commands.describe(number=described("param_game"))
    @app_commands.default_permissions(manage_guild=True)
    async def restore(self, interaction: Interaction,
                      number: app_commands.Range[int, 1]) -> None:
        await self.front.run(interaction, "restore", [str(number)])

    @app_commands.command(name="merge", description=described("menu_merge"))
    @app_commands.describe(duplicate=described("param_duplicate"), member=described("param_member"))
    @app_commands.default_permissions(manage_guild=True)
    async def merge(self, interaction: Interaction, duplicate: discord.Member,
                    member: discord.Member) -> None:
        await self.front.run(interaction, "merge", [duplicate, member])

    @app_commands.command(name="retire", description=described("menu_retire"))
    @app_commands.describe(member=described("param_member"), ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    @app_commands.default_permissions(manage_guild=True)
    async def retire(self, interaction: Interaction, member: discord.Member,
                     ladder: str | None = None) -> None:
        await self.front.run(interaction, "retire", [member], {"ladder": ladder})

    @app_commands.command(name="return", description=described("menu_return"))
    @app_commands.describe(member=described("param_member"), ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    @app_commands.default_permissions(manage_guild=True)
    async def return_(self, interaction: Interaction, member: discord.Member,
                      ladder: str | None = None) -> None:
        await self.front.run(interaction, "return", [member], {"ladder": ladder})

    @event.command(name="open", description=described("menu_event_open"))
    @app_commands.describe(name=described("param_event_name"), ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def event_open(self, interaction: Interaction, name: str,
                         ladder: str | None = None) -> None:
        await self.front.run(interaction, "event", ["open", name], {"ladder": ladder})

    @event.command(name="close", description=described("menu_event_close"))
    @app_commands.describe(name=described("param_event_name"), ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    async def event_close(self, interaction: Interaction, name: str,
                          ladder: str | None = None) -> None:
        await self.front.run(interaction, "event", ["close", name], {"ladder": ladder})

    @ladder.command(name="create", description=described("menu_ladder_create"))
    @app_commands.describe(name=described("param_ladder_name"), system=described("param_system"),
                           params=described("param_params"))
    async def ladder_create(self, interaction: Interaction, name: str,
                            system: str | None = None, params: str | None = None) -> None:
        await self.with_params(interaction, "ladder", ["create", name, system], params)

    @app_commands.command(name="system", description=described("menu_system"))
    @app_commands.describe(name=described("param_system"), params=described("param_params"),
                           ladder=described("param_ladder"))
    @app_commands.autocomplete(ladder=_Commands.ladders)
    @app_commands.default_permissions(manage_guild=True)
    async def system(self, interaction: Interaction, name: str, params: str | None = None,
                     ladder: str | None = None) -> None:
        await self.with_params(interaction, "system", [name], params, ladder)

    @app_commands.command(name="set", description=described("menu_set"))
    @app_commands.describe(key=described("param_setting"), value=described("param_value"),
                           role=described("param_role"), ladder=described("param_ladder"))
    @app_commands.choices(key=SETTINGS)
    @app_commands.autocomplete(ladder=_Commands.ladders)
    @app_commands.default_permissions(manage_guild=True)
    async def set_(self, interaction: Interaction, key: str, value: str | None = None,
                   role: discord.Role | None = None, ladder: str | None = None) -> None:
        chosen = str(role.id) if role is not None else value
        await self.front.run(interaction, "set", [key, chosen], {"ladder": ladder})

    @app_commands.command(name="audit", description=described("menu_audit"))
    @app_commands.describe(entries=described("param_entries"))
    @app_commands.default_permissions(manage_guild=True)
    async def audit(self, interaction: Interaction,
                    entries: app_commands.Range[int, 1, 100] | None = None) -> None:
        await self.front.run(interaction, "audit", [_number(entries)])

    @app_commands.command(name="undo", description=described("menu_undo"))
    @app_commands.default_permissions(manage_guild=True)
    async def undo(self, interaction: Interaction) -> None:
        await self.front.run(interaction, "undo")

    @moderator.command(name="add", description=described("menu_moderator_add"))
    @app_commands.describe(member=described("param_member"))
    async def moderator_add(self, interaction: Interaction, member: discord.Member) -> None:
        await self.front.run(interaction, "moderator", ["add", member])

    @moderator.command(name="remove", description=described("menu_moderator_remove"))
    @app_commands.describe(member=described("param_member"))
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
    @app_commands.describe(arguments=described("param_arguments"))
    async def typed(interaction: Interaction, arguments: str | None = None) -> None:
        await front.run_line(interaction, name, arguments)

    return app_commands.Command(name=name, description=described(usage_key), callback=typed)


def _number(number: int | None) -> str | None:
    return None if number is None else str(number)
