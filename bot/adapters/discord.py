"""The Discord front-end on discord.py: a guild (server) is a club.

Slash commands (``bot.adapters.discord_commands``) carry the product's command names and run
the shared commands of ``bot.chat.commands``; answers come back as embeds or text
(``bot.adapters.discord_render``), with buttons wherever a person would press rather than type.
Buttons are dynamic items: their custom id names the stored game, challenge or ladder page, so a
button pressed after a restart still works. Members with the Manage Server permission, and the
holders of the role the club sets (``/set moderator_role``), are moderators. The interaction's
id is the request id, so an interaction delivered twice changes nothing.

Rated puzzles are solved in ephemeral messages, which only the solver sees: ``/puzzle`` (and
the "Solve privately" button of a puzzle post) shows a problem, with its picture, and an Answer
button; the button opens a form (a modal) whose text is the member's ``/answer``. A moderator
adds problems with ``/puzzle add:ID``, the picture as an attachment option, kept in the
club's :class:`~bot.storage.pictures.PictureStore`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, cast
from urllib.parse import urlsplit

import aiohttp
import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord_boards import DiscordBoardPoster
from bot.adapters.discord_budget import DiscordRequestBudget
from bot.adapters.discord_channels import check_board_channel, check_channel
from bot.adapters.discord_commands import (
    MENTION,
    CatalogueTranslator,
    MemberCommands,
    ModeratorCommands,
    Typed,
    typed_commands,
)
from bot.adapters.discord_render import (
    BUTTON_TEMPLATE,
    STYLES,
    Answer,
    Piece,
    pieces,
    refusal_text,
)
from bot.adapters.discord_roles import RoleSync
from bot.adapters.discord_shards import ShardPlan
from bot.adapters.discord_sync import sync_commands
from bot.adapters.live_boards import BoardKeeper
from bot.chat import actions, intake
from bot.chat.commands import ChannelCheck, Context, Forward, execute, no_other_channel, parse
from bot.chat.language import supported
from bot.chat.messages import text
from bot.chat.ratelimit import RateLimiter
from bot.chat.words import Pointed, Words
from bot.errors import ConfigError, StartupError
from bot.scheduling.publishing import POST_NONCE, Button, Picture, PostDelayed, PostRefused
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.identity import UserRef
from bot.service.puzzles import MAX_ANSWER
from bot.service.results import Notice, PuzzleShown
from bot.storage.budget_slots import BudgetSlots
from bot.storage.discord_gateway import DiscordGateway
from bot.storage.pictures import MAX_BYTES, PictureError, PictureStore

log = logging.getLogger(__name__)

PLATFORM = "discord"
#: how long a guild's moderator role is trusted before asking the service again
ROLE_TTL_SECONDS = 60.0
#: answers only the asker needs to see
PERSONAL = {"pending", "help", "puzzle", "answer", "link"}
#: commands whose answer only the asker sees, which may show what no one else may see (a
#: problem, an answer, a new problem's accepted answers): their Context is ``alone``
ALONE = {"puzzle", "answer"}
#: the custom id of the answer form's text input
ANSWER_INPUT = "answer"
#: the longest title and label Discord shows in a form
FORM_TITLE_LIMIT = 45
#: the rows of buttons Discord takes under one message
MAX_ROWS = 5
#: commands that may take longer than the 3 s Discord allows before an interaction is answered
#: (a comparison of every rating system, drawing a picture): deferred first, answered after
SLOW = {"evaluate", "chart", "card", "band"}
#: how often the rating bands' roles follow changes no interaction made (issue 38)
BAND_FOLLOW_SECONDS = 60.0
#: what a quiet bot is allowed to mention in its messages: no one
NO_MENTIONS = discord.AllowedMentions.none()
#: how long discord.py waits for the guilds announced at READY (its default, 2 s, is for
#: bots in thousands of guilds, whose GUILD_CREATEs trickle in)
GUILD_READY_TIMEOUT = 0.5

Interaction = discord.Interaction[discord.Client]


def point_discord_py_at(api_base: str | None, gateway: str | None) -> None:
    """Send discord.py's REST calls (interaction responses too) to ``api_base`` and open its
    gateway at ``gateway``: a rate-limit proxy, a gateway proxy, or a test's fake Discord.

    discord.py has no per-client address to set: its REST base is a class attribute
    (``discord.http.Route.BASE``) and so is its gateway
    (``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``); a client's ``proxy`` only tunnels
    requests meant for discord.com. So both are overwritten, for the whole process, and only
    when an address is configured (``DiscordBot.start``)."""
    if api_base:
        discord.http.Route.BASE = api_base.rstrip("/")
    if gateway:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)


class ClubButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                 template=BUTTON_TEMPLATE):
    """Any of the bot's buttons: its custom id is its action's id (``bot.chat.actions``), and it
    is rebuilt from that id whenever it is pressed, after a restart too."""

    def __init__(self, action_id: str, label: str | None = None,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=action_id),
                         row=row)
        self.action_id = action_id

    @classmethod
    def of(cls, action: actions.Action, row: int | None = None) -> ClubButton:
        """The button of an action, labelled and coloured as it says."""
        return cls(action.id, actions.caption(action), STYLES[action.emphasis], row)

    @classmethod
    async def from_custom_id(cls, interaction: Interaction,
                             item: discord.ui.Item[Any], match: re.Match[str]) -> ClubButton:
        return cls(match.group(0))

    async def callback(self, interaction: Interaction) -> None:
        client = interaction.client
        if isinstance(client, ClubClient):
            await client.front.on_button(interaction, self.action_id)


def answer_form(problem: str, ref: int) -> discord.ui.Modal:
    """The form an Answer button opens: one line to type the answer to ``problem`` (id
    ``ref``) in. Its custom id is the button's (``p:answer:REF``). discord.py does not keep it
    (it is sent finished, and keeps a form by its custom id alone, which every solver of the
    problem shares): :meth:`ClubClient.on_interaction` reads its submission, so a form opened
    before a restart is still answered."""
    form = discord.ui.Modal(
        title=text("answer_form_title", problem=problem)[:FORM_TITLE_LIMIT],
        custom_id=actions.Action.choice(actions.Group.PUZZLE, actions.ANSWER, ref).id,
        timeout=None)
    form.add_item(discord.ui.Label(
        text=text("answer_form_label")[:FORM_TITLE_LIMIT],
        component=discord.ui.TextInput(custom_id=ANSWER_INPUT, max_length=MAX_ANSWER)))
    form.stop()
    return form


def _typed_in_form(data: Mapping[str, Any]) -> str:
    """What the member typed in the answer form, from a submission's components (each input
    in an action row or a label)."""
    for component in data.get("components") or []:
        inner = component.get("components") or [component.get("component") or {}]
        for entry in inner:
            if entry.get("custom_id") == ANSWER_INPUT:
                return str(entry.get("value") or "")
    return ""


def view_for(answer: Answer, page: int = 0) -> discord.ui.View | None:
    """The buttons that go with an answer (``bot.chat.actions``), row by row, if any."""
    rows = actions.actions_for(answer, page)
    if not rows:
        return None
    view = discord.ui.View(timeout=None)
    # Discord takes five rows of buttons under a message: a club night's round of more boards
    # has buttons for its first five still played (/result scores any board)
    for n, row in enumerate(rows[:MAX_ROWS]):
        for action in row:
            view.add_item(ClubButton.of(action, n))
    return view


class ClubTree(app_commands.CommandTree["ClubClient"]):
    """The slash commands: a command that fails is the front-end's to log and explain."""

    async def on_error(self, interaction: Interaction,
                       error: app_commands.AppCommandError, /) -> None:
        await self.client.front.on_command_error(interaction, error)


class ClubClient(commands.AutoShardedBot):
    """The discord.py client: the command cogs added, the buttons registered and the slash
    commands synced at start. A ``commands.Bot`` for its cogs: it reads no message (no message
    content intent, no message events), so no prefix command ever runs. Auto-sharded (issue
    41): the shards ``plan`` takes (all, as many as Discord recommends, without one), each in
    its own gateway connection, their IDENTIFYs in the turns the plan books; the slash commands
    are synced only when their hash differs from the one ``store`` keeps (always without
    one)."""

    def __init__(self, front: DiscordFrontEnd, sync_guild: int | None = None,
                 guild_ready_timeout: float = GUILD_READY_TIMEOUT,
                 pulse: Callable[[], None] | None = None, plan: ShardPlan | None = None,
                 store: DiscordGateway | None = None,
                 requests: DiscordRequestBudget | None = None) -> None:
        #: the token's REST requests a second, shared with its other processes
        self.requests = requests or DiscordRequestBudget()
        sharding: dict[str, Any] = {} if plan is None or plan.count is None else {
            "shard_count": plan.count, "shard_ids": list(plan.ids)}
        # The gateway's messages (its heartbeat acknowledgements among them) reach
        # on_socket_raw_receive only with discord.py's debug events on: the bot's pulse.
        super().__init__(command_prefix=commands.when_mentioned, help_command=None,
                         tree_cls=ClubTree,
                         allowed_contexts=app_commands.AppCommandContext(guild=True),
                         intents=discord.Intents(guilds=True), allowed_mentions=NO_MENTIONS,
                         guild_ready_timeout=guild_ready_timeout,
                         enable_debug_events=pulse is not None,
                         http_trace=self.requests.trace(), **sharding)
        self.front = front
        self.sync_guild = sync_guild
        self.plan = plan
        self.store = store
        #: sync the slash commands at login whatever hash ``store`` holds
        #: (``clubrating sync-commands``)
        self.force_sync = False
        #: how many slash commands the login synced (None: none, they had not changed)
        self.synced: int | None = None
        self._pulse = pulse
        #: the rating bands' roles following what no interaction changed (issue 38)
        self._band_roles: asyncio.Task[None] | None = None

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Every IDENTIFY waits for its bucket's turn, booked through the database for every
        process of the bot (discord.py's own wait, 5 s, knows of this process alone)."""
        if self.plan is None:
            await super().before_identify_hook(shard_id, initial=initial)
            return
        await self.plan.identify_turn(shard_id)

    async def on_shard_ready(self, shard_id: int) -> None:
        """A shard received its guilds: how many, for the operator (and the tests)."""
        guilds = sum(1 for guild in self.guilds if guild.shard_id == shard_id)
        log.info("Discord shard %d of %s ready: %d guilds", shard_id, self.shard_count, guilds)

    async def close(self) -> None:
        if self._band_roles is not None:
            self._band_roles.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._band_roles
        await self.requests.budget.stop()
        await super().close()

    async def on_interaction(self, interaction: Interaction) -> None:
        """A submitted answer form (:func:`answer_form`); every other interaction is the
        command tree's or a button's."""
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data = cast(Mapping[str, Any], interaction.data or {})
        action = actions.Action.parse(str(data.get("custom_id") or ""))
        if action is None or (action.group, action.verb) != (actions.Group.PUZZLE,
                                                             actions.ANSWER):
            return
        await self.front.on_answer_form(interaction, _typed_in_form(data))

    async def on_socket_raw_receive(self, message: str) -> None:
        """Discord answered on the gateway (an event or a heartbeat's acknowledgement)."""
        if self._pulse is not None:
            self._pulse()

    async def setup_hook(self) -> None:
        """Add the commands and the buttons; take this process's shards (before any gateway
        connection: a refusal connects nothing), then publish the commands to Discord if they
        changed: to one guild when configured (at once, for development), else globally."""
        await self.tree.set_translator(CatalogueTranslator())
        await self.add_cog(MemberCommands(self.front))
        await self.add_cog(ModeratorCommands(self.front))
        defined = {c.name for c in self.tree.get_commands()}
        for command in typed_commands(self.front, defined):
            self.tree.add_command(command)
        self.add_dynamic_items(ClubButton)
        if self.plan is not None:
            await self.plan.claim(self)
        if not self.force_sync:  # serving (not ``clubrating sync-commands``)
            await self.requests.budget.start(PLATFORM, self.application_id or 0)
        self.synced = await sync_commands(self.tree, self.sync_guild, self.store,
                                          force=self.force_sync)
        self._band_roles = asyncio.create_task(self.front.follow_bands_forever(self))


class DiscordFrontEnd:
    """Slash commands and buttons of one discord.py client, all calling one service."""

    def __init__(self, service: ClubService, limiter: RateLimiter,
                 monotonic: Callable[[], float] = time.monotonic,
                 pictures: PictureStore | None = None, forward: Forward | None = None) -> None:
        self.service = service
        self.limiter = limiter
        #: posts into the club's chats on other platforms (a club of several chats)
        self.forward = forward
        #: where problems' pictures are kept (None: a problem's picture is neither taken nor
        #: shown)
        self.pictures = pictures
        self._monotonic = monotonic
        self._roles: dict[str, tuple[float, str | None]] = {}
        self._turns: dict[int, asyncio.Lock] = {}
        #: how many of each member's interactions hold or wait for their turn
        self._queued: dict[int, int] = {}
        #: the rating bands' roles (issue 38), once the client is made
        self.band_roles: RoleSync | None = None

    def client(self, sync_guild: int | None = None, **options: Any) -> ClubClient:
        made = ClubClient(self, sync_guild, **options)
        self.band_roles = RoleSync(made, self.service)
        return made

    async def _note_bands(self, interaction: Interaction) -> None:
        """Before an interaction: what the bands' roles are measured against after it."""
        if self.band_roles is not None and interaction.guild_id is not None:
            try:
                await self.band_roles.note(str(interaction.guild_id))
            except Exception:
                log.exception("band roles of %s not noted", interaction.guild_id)

    async def follow_bands_forever(self, client: discord.Client) -> None:
        """Every BAND_FOLLOW_SECONDS, each guild's band roles follow what changed without an
        interaction there (a report that counted by itself when its time ran out): told, if
        Discord refuses, in the server's system channel."""
        while True:
            await asyncio.sleep(BAND_FOLLOW_SECONDS)
            for guild in list(client.guilds):
                if self.band_roles is None:
                    continue
                try:
                    await self.band_roles.follow(str(guild.id), guild.system_channel)
                except Exception:
                    log.exception("band roles of %s not followed", guild.id)

    async def _follow_bands(self, interaction: Interaction) -> None:
        """After an interaction: the roles of the members whose band changed (issue 38)."""
        if self.band_roles is not None and interaction.guild_id is not None:
            channel = interaction.channel
            try:
                await self.band_roles.follow(
                    str(interaction.guild_id),
                    channel if isinstance(channel, discord.abc.Messageable) else None)
            except Exception:
                log.exception("band roles of %s not followed", interaction.guild_id)

    # -- who is asking ---------------------------------------------------------------------------

    async def _moderator_role(self, guild_id: str) -> str | None:
        cached = self._roles.get(guild_id)
        now = self._monotonic()
        if cached is None or cached[0] <= now:
            cached = (now + ROLE_TTL_SECONDS,
                      await self.service.moderator_role(PLATFORM, guild_id))
            self._roles[guild_id] = cached
        return cached[1]

    async def caller(self, interaction: Interaction) -> Caller:
        """The member who acts: a moderator with Manage Server (the platform's own, who may
        change who moderates) or with the club's role (who moderates, and no more)."""
        assert interaction.guild_id is not None
        guild_id = str(interaction.guild_id)
        user = interaction.user
        manager = interaction.permissions.manage_guild
        holder = False
        if not manager and isinstance(user, discord.Member):
            role = await self._moderator_role(guild_id)
            # The member's role ids come with the interaction; the guild's role cache may lag.
            holder = role is not None and any(str(r) == role for r in user._roles)
        # The display name is the member's to choose; the handle is their username alone.
        return Caller(PLATFORM, guild_id, str(user.id), user.display_name, manager,
                      request_id=f"interaction:{interaction.id}", handle=user.name,
                      sequence=interaction.id,
                      role_moderator=holder)

    @asynccontextmanager
    async def _turn(self, user_id: int) -> AsyncIterator[None]:
        """One member's interactions run in the order they came (discord.py runs each as a
        task of its own); different members' run concurrently."""
        turn = self._turns.setdefault(user_id, asyncio.Lock())
        self._queued[user_id] = self._queued.get(user_id, 0) + 1
        try:
            async with turn:
                yield
        finally:
            # Forgotten once nobody holds it or waits for it: a lock just released may have a
            # waiter that has not taken it yet (it is not locked() then), which a new lock for
            # the member's next interaction would let run beside it.
            self._queued[user_id] -= 1
            if not self._queued[user_id]:
                del self._queued[user_id]
                if self._turns.get(user_id) is turn:
                    del self._turns[user_id]

    # -- slash commands ------------------------------------------------------------------------

    async def run(self, interaction: Interaction, command: str,
                  args: Sequence[str | discord.Member | discord.User | None] = (),
                  options: Mapping[str, str | discord.Member | discord.User | None]
                  | None = None) -> None:
        """Run one of the product's commands for a slash command and answer it. Members
        chosen in Discord's member picker are carried by user id (a ``UserRef``): found by
        that id alone, whatever anyone's display name."""
        words: list[str] = []
        members: dict[int | str, UserRef] = {}

        def word_of(word: str, at: int | str) -> str:
            """A typed word; a mention (``<@id>``) is the member of that user id."""
            mention = MENTION.fullmatch(word)
            if mention is None:
                return word
            members[at] = UserRef(mention[1], mention[1])
            return mention[1]

        for arg in args:
            if isinstance(arg, discord.Member | discord.User):
                members[len(words)] = _picked(arg)
                words.append(arg.display_name)
            elif isinstance(arg, Typed):
                for word in arg.words():
                    words.append(word_of(word, len(words)))
            elif arg:
                words.append(arg)
        kept: dict[str, str] = {}
        for key, value in (options or {}).items():
            if isinstance(value, discord.Member | discord.User):
                members[key] = _picked(value)
                kept[key] = value.display_name
            elif isinstance(value, Typed) and value.words():
                # as typed on the console, ``key=first rest...``: the rest are words after
                # the others (a correction's sides, issue 37)
                first, *rest = value.words()
                kept[key] = word_of(first, key)
                for word in rest:
                    words.append(word_of(word, len(words)))
            elif value:
                kept[key] = value
        typed = Words(words, kept, members)
        await self._run(interaction, command, lambda: (command, typed))

    def _context(self, interaction: Interaction, caller: Caller,
                 check: ChannelCheck = no_other_channel, alone: bool = False) -> Context:
        """Who asks in the interaction, and in which languages: what only they see (every
        refusal here) in their app's locale, the rest in the club's, else the server's.
        ``alone``: the answer is ephemeral, seen by the caller alone."""
        return Context(self.service, caller, self.limiter, check,
                       own_language=supported(str(interaction.locale)), private_refusals=True,
                       chat_language=supported(str(interaction.guild_locale or "")),
                       alone=alone, forward=self.forward, roles=self.band_roles,
                       check_board=partial(_board_check, interaction),
                       channel=None if interaction.channel_id is None
                       else str(interaction.channel_id))

    async def run_with_picture(self, interaction: Interaction, command: str,
                               words: Sequence[str],
                               attachment: discord.Attachment | None) -> None:
        """Run a command whose words are ``words`` (already in the order the shared command
        reads them) with a picture the member attached, if any: a new problem's."""
        typed = Words(list(words), {})
        await self._run(interaction, command, lambda: (command, typed), attachment)

    async def _run(self, interaction: Interaction, command: str, read: intake.Read,
                   attachment: discord.Attachment | None = None) -> None:
        if interaction.guild_id is None:
            await self._say(interaction, text("discord_guild_only"), ephemeral=True)
            return
        async with self._turn(interaction.user.id):
            caller = await self.caller(interaction)
            personal = command in PERSONAL
            if command in SLOW or attachment is not None:
                # drawn, or a picture downloaded first: longer than Discord waits for an answer
                await interaction.response.defer(thinking=True, ephemeral=personal)
            ctx = self._context(interaction, caller, _channel_check(interaction),
                                alone=command in ALONE)
            await self._note_bands(interaction)
            if attachment is None:
                reply = await intake.command(ctx, read, command)
            else:
                reply = await intake.answer(
                    ctx, command, lambda: self._with_picture(ctx, attachment, read))
            if reply is None:  # past the rate, and told so: nothing is sent
                if interaction.response.is_done():  # the "thinking..." of a slow command
                    with contextlib.suppress(discord.HTTPException):
                        await interaction.delete_original_response()
                return
            if reply.refused:
                await self._say(interaction, refusal_text(str(reply.answer)),
                                ephemeral=True)
                return
            if command == "set":
                self._roles.pop(caller.chat_id, None)
            await self.answer(interaction, reply.answer, ephemeral=personal)
            await self._follow_bands(interaction)

    async def _with_picture(self, ctx: Context, attachment: discord.Attachment,
                            read: intake.Read) -> Answer:
        """The command ``read`` gives, run with the ``attachment`` kept as its picture."""
        ctx.picture = await self._keep(attachment)
        name, words = read()
        return await execute(ctx, name, words)

    async def _keep(self, attachment: discord.Attachment) -> str | None:
        """Keep an attached picture in the picture store; its name. Refused when it is too
        large (told by its size, before it is downloaded) or no picture (told by its bytes,
        never by its name or the type the member's app gave it)."""
        if self.pictures is None:
            log.warning("no picture store: the picture %s is not kept", attachment.id)
            return None
        refused = Refusal("bad_picture", limit=MAX_BYTES // (1024 * 1024))
        if attachment.size > MAX_BYTES:
            raise refused
        data = await attachment.read()
        try:
            return await asyncio.to_thread(self.pictures.put, data)
        except PictureError:
            raise refused from None

    async def _problem_picture(self, answer: Answer) -> Picture | None:
        """The picture of the problem an answer shows, if it has one and it is kept."""
        if not isinstance(answer, PuzzleShown) or not answer.card.image or self.pictures is None:
            return None
        try:
            png = await asyncio.to_thread(self.pictures.read, answer.card.image)
        except OSError:
            log.warning("the picture %s of problem %s is missing: shown without it",
                        answer.card.image, answer.card.problem)
            return None
        return Picture(png, answer.card.image)

    async def run_line(self, interaction: Interaction, command: str,
                       arguments: str | None) -> None:
        """A command whose words are typed as one text, as on the console; a member
        mentioned in it (``<@id>``) is carried by user id, like a member picked in the member
        picker; a typed ``@name`` is only a name."""
        pointed = Pointed()

        def mark(mention: re.Match[str]) -> str:
            return pointed.mark(UserRef(mention[1], mention[1]))

        def read() -> tuple[str, Words]:
            typed = MENTION.sub(mark, arguments or "")
            return command, parse(f"/{command} {typed}", pointed)[1]

        await self._run(interaction, command, read)

    async def answer(self, interaction: Interaction, answer: Answer,
                     ephemeral: bool = False) -> None:
        """The answer's messages: the first as the interaction's response, the rest as
        follow-ups; the buttons go with the last."""
        shown = pieces(answer, picture=await self._problem_picture(answer))
        view = view_for(answer)
        for n, piece in enumerate(shown):
            last = n == len(shown) - 1
            kwargs = _message(piece, view if last else None)
            if n == 0 and not interaction.response.is_done():
                await interaction.response.send_message(ephemeral=ephemeral, **kwargs)
            else:
                await interaction.followup.send(ephemeral=ephemeral, **kwargs)

    async def _say(self, interaction: Interaction, shown: str, ephemeral: bool) -> None:
        if interaction.response.is_done():  # deferred: the answer follows up
            await interaction.followup.send(shown, ephemeral=ephemeral,
                                            allowed_mentions=NO_MENTIONS)
            return
        await interaction.response.send_message(shown, ephemeral=ephemeral,
                                                allowed_mentions=NO_MENTIONS)

    async def on_command_error(self, interaction: Interaction,
                               error: app_commands.AppCommandError) -> None:
        """Anything unexpected is logged once; the member gets one short sentence."""
        if _answered_already(error.__cause__ or error):
            log.info("interaction %s was answered already (delivered twice)", interaction.id)
            return
        if isinstance(error, app_commands.CommandNotFound):
            # A Discord app with a stale command list (a command since dropped or renamed):
            # the member's mistake to correct, not the bot's failure.
            log.info("slash command %r is not one of ours", error.name)
            await self._say(interaction, refusal_text(
                Refusal("bad_command", command=f"/{error.name}"[:40])), ephemeral=True)
            return
        log.error("slash command %r failed", getattr(interaction.command, "name", None),
                  exc_info=error)
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text("internal_error"), ephemeral=True,
                                                allowed_mentions=NO_MENTIONS)
            else:
                await self._say(interaction, text("internal_error"), ephemeral=True)
        except discord.HTTPException:
            log.warning("could not tell the member about the failure")

    async def ladders(self, interaction: Interaction) -> list[str]:
        """The club's ladder names (for autocomplete)."""
        if interaction.guild_id is None:
            return []
        caller = Caller(PLATFORM, str(interaction.guild_id), str(interaction.user.id),
                        interaction.user.display_name)
        settings = await self.service.settings(caller)
        if not isinstance(settings, Notice):
            return []
        return str(settings.params.get("ladders", "")).split(", ")

    async def puzzle_ladder(self, interaction: Interaction) -> str | None:
        """The club's puzzle ladder that no name means (``/top problems``), if any."""
        if interaction.guild_id is None:
            return None
        caller = Caller(PLATFORM, str(interaction.guild_id), str(interaction.user.id),
                        interaction.user.display_name)
        return await self.service.puzzle_ladder(caller)

    # -- buttons ----------------------------------------------------------------------------------

    async def on_button(self, interaction: Interaction, action_id: str) -> None:
        """A press of the button whose custom id is ``action_id`` (one the template matched):
        the presser acts and the message shows the outcome (a club night's post, whose buttons
        many press, stays: the outcome is answered on its own); a press by someone who
        may not press it gets an answer only they see, and changes nothing. A server is a
        club: a press in a private message is refused, and no club is made for it. Presses
        count against the rate limit as commands do."""
        if interaction.guild_id is None:
            await self._say(interaction, text("discord_guild_only"), ephemeral=True)
            return
        action = actions.Action.parse(action_id)
        if action is not None and action.group is actions.Group.PUZZLE:
            await self._on_problem_button(interaction, action)
            return
        async with self._turn(interaction.user.id):
            ctx = self._context(interaction, await self.caller(interaction))
            await self._note_bands(interaction)
            reply = await intake.press(ctx, action_id)
            if reply is None:  # past the rate, and told so: nothing is sent
                return
            if reply.refused:
                await self._say(interaction, refusal_text(str(reply.answer)),
                                ephemeral=True)
                return
            try:
                if actions.stays(action):  # many press its buttons: answered on its own
                    await self.answer(interaction, reply.answer)
                    await self._follow_bands(interaction)
                    return
                piece = pieces(reply.answer, reply.page)[0]
                await interaction.response.edit_message(
                    content=piece.content, embed=piece.embed,
                    view=view_for(reply.answer, reply.page), allowed_mentions=NO_MENTIONS)
            except discord.HTTPException as error:
                if not _answered_already(error):
                    raise
                log.info("click %s was answered already (delivered twice)", interaction.id)
            await self._follow_bands(interaction)

    async def _on_problem_button(self, interaction: Interaction, action: actions.Action) -> None:
        """A problem's button, answered to the presser alone; the message that carries it
        (a puzzle post in the channel) is never changed. "Solve privately" shows them the
        problem (the post's, or the one closest to their rating) with their clock started;
        "Answer" opens the form to type their answer in, or, when another of their problems
        is the open one, shows that problem again."""
        async with self._turn(interaction.user.id):
            caller = await self.caller(interaction)
            ctx = self._context(interaction, caller, alone=True)
            if action.verb == actions.ANSWER:
                reply = await intake.answer(
                    ctx, f"press:{action.id[:30]}",
                    lambda: self.service.serve_puzzle(caller, ref=action.ref or None))
            else:
                reply = await intake.press(ctx, action.id)
            if reply is None:  # past the rate, and told so: nothing is sent
                return
            shown = reply.answer
            try:
                if reply.refused:
                    await self._say(interaction, refusal_text(str(shown)), ephemeral=True)
                elif (action.verb == actions.ANSWER and isinstance(shown, PuzzleShown)
                      and shown.card.ref == action.ref):
                    await interaction.response.send_modal(
                        answer_form(shown.card.problem, action.ref))
                else:
                    await self.answer(interaction, shown, ephemeral=True)
            except discord.HTTPException as error:
                if not _answered_already(error):
                    raise
                log.info("click %s was answered already (delivered twice)", interaction.id)

    async def on_answer_form(self, interaction: Interaction, typed: str) -> None:
        """A submitted answer form: the member's ``/answer`` with what they typed, answered
        to them alone (a form delivered twice is answered once)."""
        words = Words(typed.split(), {})
        try:
            await self._run(interaction, "answer", lambda: ("answer", words))
        except discord.HTTPException as error:
            if not _answered_already(error):
                raise
            log.info("form %s was answered already (delivered twice)", interaction.id)


async def _board_check(interaction: Interaction) -> None:
    """Whether the bot may post where the interaction was sent (a live leaderboard)."""
    check_board_channel(interaction.guild, interaction.channel)


def _channel_check(interaction: Interaction) -> ChannelCheck:
    """Checks a channel the member names against their server and their rights there."""

    async def check(channel: str) -> None:
        guild, member = interaction.guild, interaction.user
        if guild is None or not isinstance(member, discord.Member):
            raise Refusal("channel_not_in_server", channel=channel)
        check_channel(guild, member, channel)

    return check


#: a member mentioned in a typed text, as Discord writes it

#: Discord's error code for a second answer to one interaction
ALREADY_ACKNOWLEDGED = 40060


def _answered_already(error: BaseException) -> bool:
    return isinstance(error, discord.HTTPException) and error.code == ALREADY_ACKNOWLEDGED


def _picked(user: discord.Member | discord.User) -> UserRef:
    """A member picked in the member picker: their user id, shown as Discord shows them."""
    return UserRef(str(user.id), user.display_name)


def _message(piece: Piece, view: discord.ui.View | None) -> dict[str, Any]:
    """Keyword arguments of a send for one piece."""
    kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
    if piece.content is not None:
        kwargs["content"] = piece.content
    if piece.embed is not None:
        kwargs["embed"] = piece.embed
    file = piece.file()
    if file is not None:
        kwargs["file"] = file
    if view is not None:
        kwargs["view"] = view
    return kwargs


class DiscordPublisher:
    """Posts into a guild: to the channel ``chat_id`` names, or, given a guild's id, to the
    channel the club set (``channel_for``), else the guild's system channel, else its first
    text channel where the bot may write."""

    platform = PLATFORM

    def __init__(self, client: discord.Client,
                 channel_for: Callable[[str], str | None] | None = None) -> None:
        self.client = client
        self._channel_for = channel_for

    def _channel(self, chat_id: str) -> discord.abc.Messageable:
        stored = self._channel_for(chat_id) if self._channel_for is not None else None
        found = self.client.get_channel(int(stored or chat_id))
        if isinstance(found, discord.TextChannel | discord.Thread):
            return found
        guild = self.client.get_guild(int(chat_id))
        if guild is None:
            raise LookupError(f"unknown Discord guild or channel {chat_id}")
        candidates = [guild.system_channel] if guild.system_channel else []
        candidates += sorted(guild.text_channels, key=lambda c: c.position)
        for channel in candidates:
            if channel.permissions_for(guild.me).send_messages:
                return channel
        raise LookupError(f"no channel of guild {chat_id} where the bot may write")

    async def publish(self, chat_id: str, text: str, picture: Picture | None = None,
                      buttons: Sequence[Button] = ()) -> None:
        try:
            await self._publish(chat_id, text, picture, buttons)
        except (LookupError, discord.Forbidden, discord.NotFound) as refused:
            # No such channel any more, or the bot lost its right to see or post in it.
            raise PostRefused(str(refused)) from refused
        except discord.RateLimited as limited:
            # discord.py waits out a 429 itself, unless the wait is longer than the client's
            # max_ratelimit_timeout: then the post waits in the outbox, not in this call.
            raise PostDelayed(limited.retry_after) from limited

    async def _publish(self, chat_id: str, text: str, picture: Picture | None,
                       buttons: Sequence[Button]) -> None:
        channel = self._channel(chat_id)
        shown = pieces(text) if picture is None else pieces(picture)
        if picture is not None and text:
            shown[0].content = pieces(text)[0].content
        view = _buttons_view(buttons)
        # A scheduled post's pieces carry nonces derived from its outbox row: sent again after
        # a crash, Discord drops each piece it already has (discord.py sets enforce_nonce).
        nonce = POST_NONCE.get()
        for n, piece in enumerate(shown):
            kwargs = _message(piece, view if n == len(shown) - 1 else None)
            if nonce is not None:
                kwargs["nonce"] = f"{nonce}.{n}"
            await channel.send(**kwargs)


def _buttons_view(buttons: Sequence[Button]) -> discord.ui.View | None:
    """A post's buttons, in one row under its last message, coloured as their actions say."""
    if not buttons:
        return None
    view = discord.ui.View(timeout=None)
    for button in buttons:
        action = actions.Action.parse(button.action)
        style = STYLES[action.emphasis] if action is not None else discord.ButtonStyle.secondary
        view.add_item(ClubButton(button.action, button.label, style))
    return view


class DiscordBot:
    """The Discord front-end as a process runs it: built first (so that its publisher is known
    before anything is scheduled), then started (logged in, slash commands synced, guilds
    received) and stopped. ``api_base`` and ``gateway`` point discord.py elsewhere
    (:func:`point_discord_py_at`); ``sync_guild`` syncs the commands to that guild alone;
    ``gateway_store`` (the database) shares the shards, the IDENTIFY turns and the commands'
    hash with the bot's other processes, and ``shard_ids`` of ``shard_count``
    (``DISCORD_SHARD_IDS``, ``DISCORD_SHARD_COUNT``) are the shards this one serves (none: all,
    as many as Discord recommends); ``pictures`` keeps and shows problems' pictures;
    ``budget_slots`` (the database) counts the processes sharing the token's rate budget."""

    platform = PLATFORM

    def __init__(self, service: ClubService, limiter: RateLimiter, token: str, *,
                 api_base: str | None = None, gateway: str | None = None,
                 sync_guild: int | None = None, pulse: Callable[[], None] | None = None,
                 pictures: PictureStore | None = None, forward: Forward | None = None,
                 gateway_store: DiscordGateway | None = None, shard_count: int | None = None,
                 shard_ids: Sequence[int] = (), budget_slots: BudgetSlots | None = None) -> None:
        plan = (None if gateway_store is None
                else ShardPlan(gateway_store, shard_count, shard_ids))
        self.client = DiscordFrontEnd(service, limiter, pictures=pictures,
                                      forward=forward).client(
            sync_guild, pulse=pulse, plan=plan, store=gateway_store,
            requests=DiscordRequestBudget(budget_slots))
        self._api_base, self._gateway = api_base, gateway
        self.publisher = DiscordPublisher(self.client)
        #: the live leaderboards in the server's channels (issue 38)
        self.boards = BoardKeeper(service, DiscordBoardPoster(self.client))
        self._token = token
        self._proxied = bool(api_base or gateway)
        self._server = urlsplit(api_base).netloc.rpartition("@")[2] if api_base else "discord.com"
        self._sync_guild = sync_guild
        self._running: asyncio.Task[None] | None = None

    def explain(self, error: Exception) -> StartupError | None:
        """What to check when Discord refused to start or the bot could not reach it; a refused
        token, intents the portal does not grant or a server the bot is not in are settings to
        fix (:class:`ConfigError`)."""
        server = self._server
        proxies = " and DISCORD_API_BASE, DISCORD_GATEWAY_URL" if self._proxied else ""
        if isinstance(error, StartupError):  # said already (a shard served elsewhere, ...)
            return error
        if isinstance(error, discord.LoginFailure):
            return ConfigError(f"Discord ({server}) refused DISCORD_TOKEN: check the bot's token "
                               "(Developer Portal, your application, Bot, Reset Token)")
        if isinstance(error, discord.PrivilegedIntentsRequired):
            return ConfigError("Discord refused the bot's privileged intents: turn them on in "
                               "the Developer Portal (your application, Bot, Privileged Gateway "
                               "Intents)")
        if isinstance(error, discord.Forbidden | discord.NotFound) and self._sync_guild:
            return ConfigError(f"Discord ({server}) refused ({error.status} {error.text}): is "
                               "the bot in the server DISCORD_GUILD_ID names?")
        if isinstance(error, discord.HTTPException):
            return StartupError(f"Discord ({server}) refused to start the bot: {error.status} "
                                f"{error.text}")
        if isinstance(error, discord.ConnectionClosed):
            return StartupError(f"Discord ({server}) closed the connection ({error.code}: "
                                f"{error.reason})")
        if isinstance(error, aiohttp.ClientError | discord.GatewayNotFound | OSError
                      | TimeoutError):
            return StartupError(f"cannot reach Discord at {server} "
                                f"({error or type(error).__name__}): check the network{proxies}")
        return None

    async def start(self) -> None:
        """Connect and wait until ready; a client that fails first (a refused token) raises."""
        if self._api_base or self._gateway:
            point_discord_py_at(self._api_base, self._gateway)
        running = self._running = asyncio.create_task(self.client.start(self._token))
        ready = asyncio.create_task(self.client.wait_until_ready())
        await asyncio.wait({running, ready}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            ready.cancel()
            running.result()  # the client's own failure (LoginFailure, ...)
            raise RuntimeError("the Discord client stopped before it was ready")
        log.info("Discord bot %s is running", self.client.user)
        await self.boards.start()

    async def sync_commands(self) -> int:
        """``clubrating sync-commands``: log in, sync the slash commands whatever hash the
        database holds, and keep theirs; no shard is taken and the gateway is never opened. How
        many were synced; a refusal raises what :meth:`explain` says."""
        if self._api_base or self._gateway:
            point_discord_py_at(self._api_base, self._gateway)
        client = self.client
        client.plan, client.force_sync = None, True
        try:
            await client.login(self._token)
        except Exception as error:
            raise (self.explain(error) or error) from error
        finally:
            await client.close()
        return client.synced or 0

    async def failed(self) -> None:
        """Returns (or raises) when the client stops by itself."""
        if self._running is not None:
            await asyncio.shield(self._running)

    async def stop(self) -> None:
        await self.boards.stop()
        await self.client.close()
        if self._running is not None and not self._running.done():
            self._running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._running
