"""A fake Discord on 127.0.0.1 for tests: the REST API and the gateway that a real discord.py
client needs, the CDN serving attachments, and the members' side (slash commands, with files
too, button clicks, forms filled in).

    async with FakeDiscord() as dc:
        discord.http.Route.BASE = dc.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(dc.gateway_url)
        club = dc.guild(10, "Chess club")
        alice = dc.member(club, dc.user(2, "alice"))
        await client.start(TOKEN)                      # (in a task)
        await dc.command(club, alice, "register")
        answer = await dc.output()                     # the bot's response
        await dc.command(club, alice, "puzzle", {"image": dc.attachment("p.png", b"...")})
        form = await dc.output()                       # kind "modal": the bot opened one
        await dc.submit_modal(club, alice, form, {"answer": "e4"})

What it checks as Discord does (a 400 "Invalid Form Body", noted in ``errors``): message content
up to 2,000 characters, embed title 256, description 4,096, all embeds of a message 6,000, at
most 10 embeds, 5 rows of 5 buttons, custom ids up to 100 characters, labels up to 80; a
modal's title up to 45 characters and 1 to 5 components; an interaction answered twice
("already acknowledged", 40060); command names and descriptions when the command tree is
synced. discord.py only parses answers whose Content-Type is exactly ``application/json``, so
every answer is sent that way.

Sharding as Discord does it: ``GET /gateway/bot`` says how many shards it recommends
(``recommended_shards``) and the day's session starts (``session_starts``, less one per
IDENTIFY; ``max_concurrency``); an IDENTIFY's ``shard: [id, count]`` is honoured, so a session
receives only the guilds of its shard, ``(guild_id >> 22) % count`` (at READY, GUILD_CREATE and
every event of a guild); and two IDENTIFYs of one bucket (``id % max_concurrency``) within
``identify_spacing`` seconds are refused as Discord refuses them, with an invalid session (op 9),
counted in ``invalid_sessions``. ``identifies`` records each accepted IDENTIFY's shard.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import mimetypes
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from aiohttp import WSMsgType, web

from tests.flood_control import FloodControl, FloodLimit

APPLICATION_ID = 700000000000000001
BOT_ID = APPLICATION_ID
TOKEN = "fake-discord-token"
#: permission bits (Discord's "Permissions" docs)
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_GUILD = 1 << 5
MANAGE_ROLES = 1 << 28
MANAGE_MESSAGES = 1 << 13
PIN_MESSAGES = 1 << 51
ADMINISTRATOR = 1 << 3
MEMBER_PERMISSIONS = VIEW_CHANNEL | SEND_MESSAGES
#: option types of application commands
SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE = range(1, 9)
ATTACHMENT = 11
#: component types: the layouts a modal's inputs sit in and the inputs
ACTION_ROW, STRING_SELECT, TEXT_INPUT, TEXT_DISPLAY, LABEL = 1, 3, 4, 10, 18
EPHEMERAL = 1 << 6
_NAME = re.compile(r"^[-_\w]{1,32}$")
_STAMP = "2024-03-01T19:00:00+00:00"


@dataclass(frozen=True)
class User:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    #: the language of the person's Discord app: each interaction's ``locale``
    locale: str = "en-US"

    def payload(self) -> dict[str, Any]:
        return {"id": str(self.id), "username": self.username, "discriminator": "0",
                "global_name": self.global_name, "avatar": None, "bot": self.bot,
                "public_flags": 0}


@dataclass
class Role:
    id: int
    name: str
    permissions: int = 0
    #: its place in the server's list of roles (higher is above; None: its order of
    #: creation, @everyone's 0)
    position: int | None = None

    def payload(self, position: int) -> dict[str, Any]:
        return {"id": str(self.id), "name": self.name, "permissions": str(self.permissions),
                "position": position if self.position is None else self.position, "color": 0,
                "hoist": False, "managed": False, "mentionable": True, "flags": 0}


@dataclass
class Channel:
    id: int
    guild_id: int
    name: str
    position: int = 0

    def payload(self) -> dict[str, Any]:
        return {"id": str(self.id), "guild_id": str(self.guild_id), "type": 0,
                "name": self.name, "position": self.position, "permission_overwrites": [],
                "nsfw": False, "topic": None, "last_message_id": None, "rate_limit_per_user": 0,
                "parent_id": None, "flags": 0}


@dataclass
class Member:
    user: User
    guild_id: int
    roles: list[int] = field(default_factory=list)
    nick: str | None = None

    @property
    def id(self) -> int:
        return self.user.id

    def payload(self) -> dict[str, Any]:
        return {"user": self.user.payload(), "roles": [str(r) for r in self.roles],
                "nick": self.nick, "avatar": None, "joined_at": _STAMP, "premium_since": None,
                "deaf": False, "mute": False, "pending": False, "flags": 0,
                "communication_disabled_until": None}


@dataclass
class Guild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict)
    channels: list[Channel] = field(default_factory=list)
    members: dict[int, Member] = field(default_factory=dict)
    system_channel_id: int | None = None
    #: the server's preferred locale (Server Settings, Community)
    locale: str = "en-US"

    @property
    def channel(self) -> Channel:
        """The channel where the members talk (the first one)."""
        return self.channels[0]

    def position(self, role: int) -> int:
        """A role's position, as the server's payload gives it."""
        for n, each in enumerate(self.roles.values()):
            if each.id == role:
                return n if each.position is None else each.position
        raise KeyError(role)

    def top_position(self, member: Member) -> int:
        """The position of the member's highest role (@everyone's 0 without any)."""
        return max((self.position(role) for role in member.roles), default=0)

    def permissions(self, member: Member) -> int:
        if member.id == self.owner_id:
            return (1 << 53) - 1
        bits = self.roles[self.id].permissions
        for role in member.roles:
            bits |= self.roles[role].permissions
        return (1 << 53) - 1 if bits & ADMINISTRATOR else bits

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id), "name": self.name, "icon": None, "splash": None,
            "discovery_splash": None, "owner_id": str(self.owner_id), "afk_channel_id": None,
            "afk_timeout": 300, "verification_level": 0, "default_message_notifications": 0,
            "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0, "premium_tier": 0,
            "system_channel_id": None if self.system_channel_id is None
            else str(self.system_channel_id),
            "system_channel_flags": 0, "rules_channel_id": None, "vanity_url_code": None,
            "description": None, "banner": None, "preferred_locale": self.locale,
            "features": [], "emojis": [], "stickers": [], "unavailable": False,
            "roles": [r.payload(n) for n, r in enumerate(self.roles.values())],
            "channels": [c.payload() for c in self.channels],
            "members": [m.payload() for m in self.members.values()],
            "member_count": len(self.members), "large": False, "joined_at": _STAMP,
            "threads": [], "voice_states": [], "presences": [], "stage_instances": [],
            "guild_scheduled_events": [], "soundboard_sounds": [],
        }


@dataclass(frozen=True)
class Attachment:
    """A file a member uploads with a slash command (an ATTACHMENT option), which the fake's
    CDN serves at ``url`` and ``proxy_url``."""

    id: int
    filename: str
    data: bytes
    content_type: str | None
    url: str
    proxy_url: str

    def payload(self) -> dict[str, Any]:
        width_height = _png_size(self.data)
        size = {"width": width_height[0], "height": width_height[1]} if width_height else {}
        return {"id": str(self.id), "filename": self.filename, "size": len(self.data),
                "url": self.url, "proxy_url": self.proxy_url,
                "content_type": self.content_type, "ephemeral": True} | size


@dataclass(frozen=True)
class ModalInput:
    """One input of a modal: a text input (type 4) or a string select (type 3)."""

    custom_id: str
    label: str  # the text input's own label, or that of the Label it sits in
    type: int = TEXT_INPUT
    style: int = 1  # 1 short, 2 paragraph
    required: bool = True
    value: str | None = None  # prefilled
    placeholder: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    options: tuple[str, ...] = ()  # a select's values


@dataclass
class ShownModal:
    """A modal (a form) the bot opened in answer to an interaction (callback type 9)."""

    interaction_id: int
    custom_id: str
    title: str
    inputs: list[ModalInput]
    components: list[dict[str, Any]]  # as the bot sent them: action rows, labels, texts

    @property
    def labels(self) -> dict[str, str]:
        """Each input's custom_id and label."""
        return {i.custom_id: i.label for i in self.inputs}


@dataclass
class Output:
    """Something the bot said: an interaction's answer, an edit of the message whose button
    was pressed, a follow-up, a post in a channel, or a modal it opened."""

    #: "reply" | "update" | "followup" | "post" | "edit" (a channel message's) |
    #: "autocomplete" | "modal"
    kind: str
    message: dict[str, Any]
    interaction_id: int | None = None
    #: the files sent with it, (filename, bytes), as uploaded
    files: list[tuple[str, bytes]] = field(default_factory=list)
    allowed_mentions: dict[str, Any] | None = None
    choices: list[dict[str, Any]] = field(default_factory=list)
    modal: ShownModal | None = None  # kind "modal"

    @property
    def message_id(self) -> int:
        return int(self.message["id"])

    @property
    def ephemeral(self) -> bool:
        return bool(self.message.get("flags", 0) & EPHEMERAL)

    @property
    def content(self) -> str:
        return str(self.message.get("content") or "")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.message.get("embeds") or [])

    @property
    def plain(self) -> str:
        """What a member reads: the text and the embeds' text, without markdown escapes,
        code fences and the zero-width spaces that break mentions."""
        parts = [self.content] if self.content else []
        for embed in self.embeds:
            parts += [embed[k] for k in ("title", "description") if embed.get(k)]
        return unescape("\n".join(parts))

    @property
    def buttons(self) -> list[list[tuple[str, str]]]:
        return [[(b.get("label") or "", b["custom_id"]) for b in row["components"]]
                for row in self.message.get("components") or []]


def _png_size(data: bytes) -> tuple[int, int] | None:
    """A PNG's width and height, from its IHDR chunk (None: no PNG)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def unescape(shown: str) -> str:
    shown = re.sub(r"```\n?", "", shown).replace("\u200b", "")
    return re.sub(r"\\([\\*_`~|>#\-\[\]()<:])", r"\1", shown).strip("\n")


class FakeDiscord:
    """The REST API under ``/api/v10`` and the gateway at ``/gateway`` of a fake Discord."""

    def __init__(self, token: str | None = None) -> None:
        #: the bot token it accepts (REST calls authorised with another are refused: 401, as
        #: Discord answers a wrong token; interactions' and webhooks' calls carry none); None
        #: accepts any
        self.token = token
        self.app = web.Application(client_max_size=32 * 1024 * 1024)
        self.app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        self.app.router.add_get("/gateway", self._gateway)
        for cdn in ("/attachments/", "/ephemeral-attachments/", "/media/"):
            self.app.router.add_get(cdn + "{path:.+}", self._cdn)
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._ids = itertools.count(1_000_000_000_000_000_000)
        self.bot = User(BOT_ID, "clubrating", None, bot=True)
        self.guilds: dict[int, Guild] = {}
        self.users: dict[int, User] = {}
        #: synced application commands: None for global, else by guild id
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.sync_calls: list[int | None] = []
        self.messages: dict[int, dict[str, Any]] = {}
        #: each channel's pinned messages, the latest last
        self.pins: dict[int, list[int]] = {}
        self.interactions: dict[int, dict[str, Any]] = {}
        self.answered: set[int] = set()
        self.log: list[Output] = []
        #: every modal the bot opened, in order
        self.modals: list[ShownModal] = []
        #: what the CDN serves, by path
        self.cdn: dict[str, bytes] = {}
        self._outputs: asyncio.Queue[Output] = asyncio.Queue()
        #: (status, method, path, body) of every answer that was not a success
        self.errors: list[tuple[int, str, str, Any]] = []
        #: every change of a member's roles that went through: (guild, user, the new roles),
        #: one per PATCH of a member (rating bands, issue 38)
        self.role_edits: list[tuple[int, int, list[int]]] = []
        self.requests: list[tuple[str, str]] = []
        #: every REST request made with the bot's token (interactions' and webhooks' are
        #: exempt, as Discord exempts them); past Discord's global 50 a second, refused with
        #: 429 when turned ``on``
        self.flood_control = FloodControl([FloodLimit(50, 1.0)])
        self._floods: dict[str, list[float]] = {}
        #: each open session's socket and its shard, (id, count)
        self._sockets: dict[web.WebSocketResponse, tuple[int, int]] = {}
        #: each session's shard, for a RESUME of it
        self._sessions: dict[str, tuple[int, int]] = {}
        #: what GET /gateway/bot says: the shards Discord recommends, the session starts left
        #: today (one less per IDENTIFY) and how many buckets identify at once
        self.recommended_shards = 1
        self.session_starts = 1000
        self.max_concurrency = 1
        #: seconds between two IDENTIFYs of one bucket (Discord's 5; 0: not checked)
        self.identify_spacing = 5.0
        self._last_identify: dict[int, float] = {}
        #: the shard, (id, count), of every IDENTIFY that was let in, in order
        self.identifies: list[tuple[int, int]] = []
        #: IDENTIFYs refused with op 9 (too soon after another of their bucket)
        self.invalid_sessions = 0
        #: the gateway says nothing while set (no hello, no heartbeat acknowledged, no event):
        #: a connection that went dead without closing
        self.silent = False
        #: posts into channels are made, but their answers held back while set (until the
        #: fake stops): a bot killed meanwhile never learns that its post was made
        self.hold_posts = False
        self._released = asyncio.Event()
        #: (channel, nonce) of every message posted with ``enforce_nonce``, and its id:
        #: Discord answers the same nonce again with that message and makes no other
        self._nonces: dict[tuple[int, str], int] = {}
        self._sequence = 0
        self.identified = asyncio.Event()

    # -- the server ------------------------------------------------------------------------------

    async def __aenter__(self) -> FakeDiscord:
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._released.set()  # answers held back go now: nothing waits for them any more
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close()
        assert self._runner is not None
        await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def next_id(self) -> int:
        return next(self._ids)

    # -- the world --------------------------------------------------------------------------------

    def user(self, user_id: int, username: str, global_name: str | None = None,
             locale: str = "en-US") -> User:
        user = User(user_id, username, global_name, locale=locale)
        self.users[user_id] = user
        return user

    def guild(self, guild_id: int, name: str, owner: User | None = None,
              channels: Iterable[str] = ("general",)) -> Guild:
        owner = owner or self.user(guild_id + 1, f"owner{guild_id}")
        guild = Guild(guild_id, name, owner.id)
        guild.roles[guild_id] = Role(guild_id, "@everyone", MEMBER_PERMISSIONS)
        for n, channel in enumerate(channels):
            guild.channels.append(Channel(guild_id + 100 + n, guild_id, channel, n))
        guild.members[BOT_ID] = Member(self.bot, guild_id)
        guild.members[owner.id] = Member(owner, guild_id)
        self.guilds[guild_id] = guild
        return guild

    def role(self, guild: Guild, role_id: int, name: str, permissions: int = 0,
             position: int | None = None) -> Role:
        """A role of ``guild``; ``position``: its place (higher is above; by default after
        the roles made before it)."""
        role = Role(role_id, name, permissions, position)
        guild.roles[role_id] = role
        return role

    def member(self, guild: Guild, user: User, *roles: Role, nick: str | None = None) -> Member:
        member = Member(user, guild.id, [r.id for r in roles], nick)
        guild.members[user.id] = member
        return member

    def attachment(self, filename: str, data: bytes, content_type: str | None = None
                   ) -> Attachment:
        """A file a member uploads, to give as an ATTACHMENT option of ``command``: served by
        the fake's CDN (``discord.Attachment.read()`` gets exactly ``data``). ``content_type``
        is guessed from the file name unless given."""
        assert self.port, "the fake serves files once started (async with FakeDiscord())"
        content_type = content_type or mimetypes.guess_type(filename)[0]
        attachment_id = self.next_id()
        url = self._serve(f"/ephemeral-attachments/{attachment_id}/{filename}", data)
        proxy = self._serve(f"/media/ephemeral-attachments/{attachment_id}/{filename}", data)
        return Attachment(attachment_id, filename, data, content_type, url, proxy)

    def _serve(self, path: str, data: bytes) -> str:
        """The CDN serves ``data`` at ``path`` from now on; returns its URL."""
        self.cdn[path] = data
        return self.url + quote(path)

    # -- what members do --------------------------------------------------------------------------

    def _synced(self, guild: Guild, name: str) -> dict[str, Any]:
        for scope in (guild.id, None):
            for command in self.commands.get(scope, []):
                if command["name"] == name:
                    return command
        raise AssertionError(f"no synced slash command /{name}")

    def _options(self, guild: Guild, schema: list[dict[str, Any]], values: dict[str, Any],
                 resolved: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        known = {o["name"]: o for o in schema}
        options = []
        for name, value in values.items():
            if value is None:
                continue
            if name not in known:
                raise AssertionError(f"no option {name!r}; the command has {sorted(known)}")
            kind = known[name]["type"]
            if kind == USER:
                member = value if isinstance(value, Member) else guild.members[value.id]
                resolved.setdefault("users", {})[str(member.id)] = member.user.payload()
                data = member.payload()
                del data["user"]
                resolved.setdefault("members", {})[str(member.id)] = data | {
                    "permissions": str(guild.permissions(member))}
                value = str(member.id)
            elif kind == ROLE:
                resolved.setdefault("roles", {})[str(value.id)] = value.payload(1)
                value = str(value.id)
            elif kind == INTEGER:
                value = int(value)
            elif kind == ATTACHMENT:
                assert isinstance(value, Attachment), f"{name}: make it with dc.attachment()"
                resolved.setdefault("attachments", {})[str(value.id)] = value.payload()
                value = str(value.id)
            options.append({"name": name, "type": kind, "value": value})
        missing = [o["name"] for o in schema if o.get("required") and o["name"] not in values]
        if missing:
            raise AssertionError(f"required options missing: {missing}")
        return options

    def _interaction(self, kind: int, guild: Guild, member: Member, data: dict[str, Any],
                     message: dict[str, Any] | None = None) -> dict[str, Any]:
        interaction_id = self.next_id()
        channel = guild.channel
        payload: dict[str, Any] = {
            "id": str(interaction_id), "application_id": str(APPLICATION_ID), "type": kind,
            "token": f"token-{interaction_id}", "version": 1, "guild_id": str(guild.id),
            "channel_id": str(channel.id), "channel": channel.payload(),
            "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
            "member": member.payload() | {"permissions": str(guild.permissions(member))},
            "app_permissions": str(guild.permissions(guild.members[BOT_ID])),
            "locale": member.user.locale, "guild_locale": guild.locale, "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild.id)}, "context": 0,
            "attachment_size_limit": 8 * 1024 * 1024, "data": data,
        }
        if message is not None:
            payload["message"] = message
        self.interactions[interaction_id] = payload
        return payload

    async def command(self, guild: Guild, speaker: Member, name: str,
                      subcommand: str | dict[str, Any] | None = None,
                      given: dict[str, Any] | None = None, /, **values: Any) -> int:
        """``speaker`` runs ``/name [subcommand] option:value ...``; returns the interaction id.
        Options are given as keywords or a dict (``given``, or in place of ``subcommand``).
        Members (``User`` options) are given as ``Member``s, roles as ``Role``s, files
        (``Attachment`` options) as ``dc.attachment(...)``: the option's value is then the
        attachment's id and the attachment is in ``data.resolved.attachments``, as Discord
        sends it."""
        if isinstance(subcommand, dict):
            subcommand, given = None, subcommand
        values = (given or {}) | values
        synced = self._synced(guild, name)
        resolved: dict[str, dict[str, Any]] = {}
        schema = synced.get("options", [])
        if subcommand is not None:
            sub = next(o for o in schema if o["name"] == subcommand)
            options = [{"name": subcommand, "type": SUB_COMMAND,
                        "options": self._options(guild, sub.get("options", []), values,
                                                 resolved)}]
        else:
            options = self._options(guild, schema, values, resolved)
        data = {"id": synced["id"], "name": name, "type": 1, "options": options,
                "resolved": resolved}
        if synced.get("guild_id"):
            data["guild_id"] = synced["guild_id"]
        payload = self._interaction(2, guild, speaker, data)
        await self.dispatch("INTERACTION_CREATE", payload)
        return int(payload["id"])

    async def autocomplete(self, guild: Guild, member: Member, name: str, option: str,
                           typed: str) -> int:
        """``member`` types ``typed`` into ``option`` of ``/name``."""
        synced = self._synced(guild, name)
        data = {"id": synced["id"], "name": name, "type": 1, "options": [
            {"name": option, "type": STRING, "value": typed, "focused": True}]}
        payload = self._interaction(4, guild, member, data)
        await self.dispatch("INTERACTION_CREATE", payload)
        return int(payload["id"])

    async def click(self, guild: Guild, member: Member, message: Output | int,
                    custom_id: str) -> int:
        """``member`` clicks the button ``custom_id`` of a message the bot sent."""
        message_id = message if isinstance(message, int) else message.message_id
        stored = self.messages[message_id]
        ids = [b["custom_id"] for row in stored.get("components") or []
               for b in row["components"]]
        assert custom_id in ids, f"the message has no button {custom_id!r} (it has {ids})"
        data = {"custom_id": custom_id, "component_type": 2}
        payload = self._interaction(3, guild, member, data, dict(stored))
        await self.dispatch("INTERACTION_CREATE", payload)
        return int(payload["id"])

    async def click_as_shown(self, guild: Guild, member: Member, message: Output,
                             custom_id: str) -> int:
        """``member`` clicks the button ``custom_id`` of ``message`` as it was shown then,
        though the bot may have edited it since (a client that has not caught up yet)."""
        ids = [b["custom_id"] for row in message.message.get("components") or []
               for b in row["components"]]
        assert custom_id in ids, f"the message had no button {custom_id!r} (it had {ids})"
        data = {"custom_id": custom_id, "component_type": 2}
        payload = self._interaction(3, guild, member, data, dict(message.message))
        await self.dispatch("INTERACTION_CREATE", payload)
        return int(payload["id"])

    async def submit_modal(self, guild: Guild, member: Member, modal: ShownModal | Output | str,
                           values: dict[str, str | list[str]] | None = None, /,
                           **typed: str | list[str]) -> int:
        """``member`` fills in a modal the bot opened (the record, its output, or its custom_id:
        the latest opened with it) and submits it; returns the interaction id. ``values``: what
        they typed, by input custom_id (a select's: a list); the others are sent as prefilled
        (or empty). As Discord's client, it refuses a required input left empty and a value
        outside an input's lengths. The submit (type 5) comes in the modal's layout, each input
        as ``{type, custom_id, value}`` (a select: ``values``), with the message whose button
        opened the modal, if any."""
        shown = self._modal(modal)
        given = (values or {}) | typed
        known = {i.custom_id: i for i in shown.inputs}
        unknown = sorted(set(given) - set(known))
        assert not unknown, f"the modal has no input {unknown} (it has {sorted(known)})"
        submitted = {key: self._typed(entry, given.get(key)) for key, entry in known.items()}
        data = {"custom_id": shown.custom_id,
                "components": _submitted(shown.components, submitted)}
        opened = self.interactions[shown.interaction_id]
        payload = self._interaction(5, guild, member, data, opened.get("message"))
        await self.dispatch("INTERACTION_CREATE", payload)
        return int(payload["id"])

    def _modal(self, modal: ShownModal | Output | str) -> ShownModal:
        if isinstance(modal, Output):
            assert modal.modal is not None, f"a {modal.kind!r} output, not a modal"
            return modal.modal
        if isinstance(modal, str):
            shown = [m for m in self.modals if m.custom_id == modal]
            assert shown, f"the bot opened no modal {modal!r}"
            return shown[-1]
        return modal

    @staticmethod
    def _typed(entry: ModalInput, value: str | list[str] | None) -> str | list[str]:
        """What the member's client submits for ``entry`` (``value``: what they typed)."""
        if entry.type != TEXT_INPUT:
            chosen = list(value or [])
            assert set(chosen) <= set(entry.options), f"{entry.custom_id}: no option {chosen}"
            assert chosen or not entry.required, f"{entry.custom_id} is required"
            return chosen
        assert not isinstance(value, list), f"{entry.custom_id} is a text input: type a str"
        text = (entry.value or "") if value is None else value
        assert text or not entry.required, f"{entry.custom_id} is required"
        low, high = entry.min_length or 0, entry.max_length or 4000
        assert not text or low <= len(text) <= high, (
            f"{entry.custom_id}: {len(text)} characters, not {low} to {high}")
        return text

    async def redeliver(self, interaction_id: int) -> None:
        """The gateway sends an interaction a second time (as after a resumed session)."""
        await self.dispatch("INTERACTION_CREATE", self.interactions[interaction_id])

    async def output(self, timeout: float = 5.0) -> Output:
        """The bot's next output, in the order they arrived."""
        return await asyncio.wait_for(self._outputs.get(), timeout)

    def pending_outputs(self) -> int:
        return self._outputs.qsize()

    def flood(self, route: str, retry_after: float, times: int = 1) -> None:
        """Answer the next ``times`` requests whose path contains ``route`` with 429."""
        self._floods[route] = [retry_after] * times

    # -- the gateway ------------------------------------------------------------------------------

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send an event to the sessions that receive it: a guild's to its shard's alone."""
        guild = data.get("guild_id")
        for ws, shard in list(self._sockets.items()):
            if guild is None or _shard_of(int(guild), shard[1]) == shard[0]:
                await self._send(ws, {"op": 0, "t": event, "d": data})

    async def _send(self, ws: web.WebSocketResponse, payload: dict[str, Any]) -> None:
        if self.silent:
            return
        if payload["op"] == 0:
            self._sequence += 1
            payload["s"] = self._sequence
        else:
            payload.setdefault("s", None)
        payload.setdefault("t", None)
        with contextlib.suppress(ConnectionResetError):
            await ws.send_str(json.dumps(payload))

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await self._send(ws, {"op": 10, "d": {"heartbeat_interval": 45000}})
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                message = json.loads(frame.data)
                op = message.get("op")
                if op == 1:
                    await self._send(ws, {"op": 11})
                elif op == 2:
                    await self._identify(ws, message.get("d") or {})
                elif op == 6:  # RESUME: a fresh session of the same shard
                    data = message.get("d") or {}
                    await self._ready(ws, self._sessions.get(str(data.get("session_id")),
                                                             (0, 1)))
        finally:
            self._sockets.pop(ws, None)
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: dict[str, Any]) -> None:
        """An IDENTIFY: its shard's session, unless its bucket identified too recently."""
        shard_id, count = (int(n) for n in data.get("shard") or (0, 1))
        bucket = shard_id % self.max_concurrency
        now = time.monotonic()
        last = self._last_identify.get(bucket)
        if self.identify_spacing and last is not None and now - last < self.identify_spacing:
            self.invalid_sessions += 1
            await self._send(ws, {"op": 9, "d": False})
            return
        self._last_identify[bucket] = now
        self.session_starts -= 1
        self.identifies.append((shard_id, count))
        await self._ready(ws, (shard_id, count))

    # -- the CDN --------------------------------------------------------------------------------

    async def _cdn(self, request: web.Request) -> web.Response:
        data = self.cdn.get(request.path)
        if data is None:
            return web.Response(status=404, text="404: Not Found")
        content_type = mimetypes.guess_type(request.path)[0] or "application/octet-stream"
        return web.Response(body=data, content_type=content_type)

    def guilds_of(self, shard_id: int, count: int) -> list[Guild]:
        """The guilds a session of shard ``shard_id`` of ``count`` receives."""
        return [g for g in self.guilds.values() if _shard_of(g.id, count) == shard_id]

    async def _ready(self, ws: web.WebSocketResponse, shard: tuple[int, int]) -> None:
        guilds = self.guilds_of(*shard)
        session = f"session-{self.next_id()}"
        self._sessions[session] = shard
        await self._send(ws, {"op": 0, "t": "READY", "d": {
            "v": 10, "user": self.bot.payload() | {"verified": True, "mfa_enabled": False,
                                                  "flags": 0},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session, "shard": list(shard),
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(APPLICATION_ID), "flags": 0},
            "private_channels": [], "relationships": [],
        }})
        for guild in guilds:
            await self._send(ws, {"op": 0, "t": "GUILD_CREATE", "d": guild.payload()})
        self._sockets[ws] = shard
        self.identified.set()

    # -- the REST API ---------------------------------------------------------------------------

    @staticmethod
    def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None
              ) -> web.Response:
        return web.Response(status=status, body=json.dumps(data).encode(),
                            headers={"Content-Type": "application/json", **(headers or {})})

    def _error(self, request: web.Request, status: int, code: int, message: str,
               body: Any = None) -> web.Response:
        self.errors.append((status, request.method, request.path, body or message))
        return self._json({"code": code, "message": message}, status)

    async def _body(self, request: web.Request) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
        if request.content_type.startswith("multipart/"):
            payload: dict[str, Any] = {}
            files: list[tuple[str, bytes]] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if part.name == "payload_json":  # type: ignore[union-attr]
                    payload = json.loads(await part.text())  # type: ignore[union-attr]
                else:
                    files.append((part.filename or "", await part.read()))  # type: ignore
            return payload, files
        raw = await request.read()
        return (json.loads(raw) if raw else {}), []

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        self.requests.append((request.method, path))
        authorised = request.headers.get("Authorization")
        if self.token is not None and authorised not in (None, f"Bot {self.token}"):
            return self._error(request, 401, 0, "401: Unauthorized")
        for route, delays in self._floods.items():
            if route in path and delays:
                delay = delays.pop(0)
                self.errors.append((429, request.method, path, None))
                return self._json({"message": "You are being rate limited.",
                                   "retry_after": delay, "global": False}, 429,
                                  {"Via": "1.1 google", "Retry-After": str(delay),
                                   "X-RateLimit-Scope": "user"})
        if (authorised or "").startswith("Bot ") and path.split("/")[1] not in (
                "interactions", "webhooks"):
            wait = self.flood_control.admit()
            if wait is not None:
                self.errors.append((429, request.method, path, None))
                return self._json({"message": "You are being rate limited.",
                                   "retry_after": wait, "global": True}, 429,
                                  {"Retry-After": str(wait), "X-RateLimit-Global": "true",
                                   "X-RateLimit-Scope": "global"})
        body, files = await self._body(request)
        method = request.method
        parts = path.strip("/").split("/")
        if method == "GET" and path == "/users/@me":
            return self._json(self.bot.payload() | {"verified": True, "mfa_enabled": False,
                                                    "flags": 0})
        if method == "GET" and path == "/gateway/bot":
            return self._json({"url": self.gateway_url, "shards": self.recommended_shards,
                               "session_start_limit": {
                                   "total": 1000, "remaining": self.session_starts,
                                   "reset_after": 14_400_000,
                                   "max_concurrency": self.max_concurrency}})
        if method == "GET" and path == "/oauth2/applications/@me":
            return self._json(self._application())
        if method == "PUT" and parts[:2] == ["applications", str(APPLICATION_ID)]:
            guild = int(parts[3]) if len(parts) == 5 and parts[2] == "guilds" else None
            return self._sync(request, guild, body)
        if method == "POST" and parts[0] == "interactions" and parts[-1] == "callback":
            return self._callback(request, int(parts[1]), body, files)
        if parts[0] == "webhooks" and len(parts) >= 3:
            return self._webhook(request, method, parts, body, files)
        if method == "POST" and parts[0] == "channels" and parts[-1] == "messages":
            answer = self._post(request, int(parts[1]), body, files)
            if self.hold_posts:
                await self._released.wait()
            return answer
        if parts[0] == "guilds" and len(parts) >= 3 and int(parts[1]) in self.guilds:
            return self._guild_rest(request, method, self.guilds[int(parts[1])], parts[2:],
                                    body)
        if parts[0] == "channels" and parts[2:4] == ["messages", "pins"] and len(parts) == 5:
            return self._pin(request, method, int(parts[1]), int(parts[4]))
        if parts[0] == "channels" and len(parts) == 4 and parts[2] == "messages":
            return self._channel_message(request, method, int(parts[1]), int(parts[3]), body,
                                         files)
        if method == "GET" and parts[0] == "channels" and len(parts) == 2:
            for server in self.guilds.values():
                for channel in server.channels:
                    if channel.id == int(parts[1]):
                        return self._json(channel.payload())
        return self._error(request, 404, 0, f"404: Not Found ({method} {path})")

    def _guild_rest(self, request: web.Request, method: str, guild: Guild, parts: list[str],
                    body: dict[str, Any]) -> web.Response:
        """A server's roles and members: ``GET roles``, ``GET members/ID`` (what
        ``Guild.fetch_member`` asks) and ``PATCH members/ID`` with ``roles`` (what
        ``Member.edit(roles=...)`` sends). Discord refuses a change of roles (403, 50013
        Missing Permissions) unless the bot has Manage Roles and every role given or taken is
        below its own highest role (the server's owner may change any)."""
        if method == "GET" and parts == ["roles"]:
            return self._json([r.payload(guild.position(r.id)) for r in guild.roles.values()])
        if parts[0] != "members" or len(parts) != 2 or not parts[1].isdigit():
            return self._error(request, 404, 0, f"404: Not Found ({method} {request.path})")
        member = guild.members.get(int(parts[1]))
        if member is None:
            return self._error(request, 404, 10007, "Unknown Member")
        if method == "GET":
            return self._json(member.payload())
        if method != "PATCH":
            return self._error(request, 405, 0, "405: Method Not Allowed")
        if "roles" in body:
            roles = [int(r) for r in body["roles"]]
            unknown = [r for r in roles if r not in guild.roles or r == guild.id]
            if unknown:
                return self._error(request, 400, 50035, "Invalid Form Body", body)
            bot = guild.members[BOT_ID]
            if bot.id != guild.owner_id:
                changed = set(roles) ^ set(member.roles)
                top = guild.top_position(bot)
                if not guild.permissions(bot) & (MANAGE_ROLES | ADMINISTRATOR) or any(
                        guild.position(r) >= top for r in changed):
                    return self._error(request, 403, 50013, "Missing Permissions", body)
            member.roles = roles
            self.role_edits.append((guild.id, member.id, list(roles)))
        return self._json(member.payload())

    def _application(self) -> dict[str, Any]:
        return {"id": str(APPLICATION_ID), "name": "clubrating", "icon": None,
                "description": "", "bot_public": True, "bot_require_code_grant": False,
                "owner": self.users.get(1, User(1, "owner")).payload(), "verify_key": "00",
                "flags": 0, "team": None, "summary": "", "rpc_origins": [],
                "interactions_endpoint_url": None, "redirect_uris": [], "tags": []}

    def _sync(self, request: web.Request, guild: int | None, body: Any) -> web.Response:
        problems = [c.get("name") for c in body if not _valid_command(c)]
        if problems:
            return self._error(request, 400, 50035, "Invalid Form Body", problems)
        stored = []
        for command in body:
            command = dict(command)
            command |= {"id": str(self.next_id()), "application_id": str(APPLICATION_ID),
                        "version": "1"}
            if guild is not None:
                command["guild_id"] = str(guild)
            stored.append(command)
        self.commands[guild] = stored
        self.sync_calls.append(guild)
        return self._json(stored)

    def _message(self, request: web.Request, channel_id: int, data: dict[str, Any],
                 files: list[tuple[str, bytes]], flags: int = 0,
                 interaction: int | None = None) -> dict[str, Any] | web.Response:
        problem = _message_problem(data)
        if problem:
            return self._error(request, 400, 50035, f"Invalid Form Body: {problem}", data)
        message_id = self.next_id()
        attachments = []
        for name, content in files:  # served as Discord's CDN serves them
            attachment_id = self.next_id()
            path = f"/attachments/{channel_id}/{attachment_id}/{name}"
            attachments.append({"id": str(attachment_id), "filename": name, "size": len(content),
                                "url": self._serve(path, content),
                                "proxy_url": self._serve(f"/media{path}", content),
                                "content_type": mimetypes.guess_type(name)[0]})
        message = {
            "id": str(message_id), "channel_id": str(channel_id), "type": 0,
            "content": data.get("content") or "", "author": self.bot.payload(),
            "attachments": attachments, "embeds": data.get("embeds") or [], "mentions": [],
            "mention_roles": [], "mention_everyone": False, "pinned": False, "tts": False,
            "timestamp": datetime.now(UTC).isoformat(), "edited_timestamp": None,
            "flags": flags | (data.get("flags") or 0), "components": data.get("components") or [],
            "application_id": str(APPLICATION_ID),
        }
        if interaction is not None:
            message["interaction_metadata"] = {
                "id": str(interaction), "type": self.interactions[interaction]["type"],
                "user": self.interactions[interaction]["member"]["user"],
                "authorizing_integration_owners": {}}
        self.messages[message_id] = message
        return message

    def _record(self, output: Output) -> None:
        self.log.append(output)
        self._outputs.put_nowait(output)

    def _callback(self, request: web.Request, interaction_id: int, body: dict[str, Any],
                  files: list[tuple[str, bytes]]) -> web.Response:
        interaction = self.interactions.get(interaction_id)
        if interaction is None:
            return self._error(request, 404, 10062, "Unknown interaction")
        if interaction_id in self.answered:
            return self._error(request, 400, 40060,
                               "Interaction has already been acknowledged.")
        kind, data = body.get("type"), body.get("data") or {}
        channel = int(interaction["channel_id"])
        info: dict[str, Any] = {"id": str(interaction_id), "type": interaction["type"],
                                "response_message_loading": kind == 5,
                                "response_message_ephemeral": bool(
                                    (data.get("flags") or 0) & EPHEMERAL)}
        mentions = data.get("allowed_mentions")
        message: dict[str, Any]
        if kind == 4:  # a message answering the interaction
            posted = self._message(request, channel, data, files, interaction=interaction_id)
            if isinstance(posted, web.Response):
                return posted
            message = posted
            self.answered.add(interaction_id)
            self._record(Output("reply", message, interaction_id, files, mentions))
        elif kind == 7:  # the message whose button was pressed, edited
            old = interaction.get("message")
            if old is None:
                return self._error(request, 400, 50035,
                                   "Invalid Form Body: no message to update", data)
            edited = self._edit(int(old["id"]), data, files)
            if isinstance(edited, str):
                return self._error(request, 400, 50035, f"Invalid Form Body: {edited}", data)
            message = edited
            self.answered.add(interaction_id)
            self._record(Output("update", message, interaction_id, files, mentions))
        elif kind == 8:  # autocomplete choices
            self.answered.add(interaction_id)
            self._record(Output("autocomplete", {"id": "0"}, interaction_id,
                                choices=data.get("choices") or []))
            return self._json({"interaction": info})
        elif kind in (5, 6):
            self.answered.add(interaction_id)
            return self._json({"interaction": info})
        elif kind == 9:  # a modal
            problem = _modal_problem(data) if interaction["type"] in (2, 3) else (
                "a modal answers a slash command or a component only")
            if problem:
                return self._error(request, 400, 50035, f"Invalid Form Body: {problem}", data)
            self.answered.add(interaction_id)
            shown = ShownModal(interaction_id, data["custom_id"], data["title"],
                               _inputs(data["components"]), data["components"])
            self.modals.append(shown)
            self._record(Output("modal", {"id": "0"}, interaction_id, modal=shown))
            return self._json({"interaction": info, "resource": {"type": 9}})
        else:
            return self._error(request, 400, 50035, f"unknown callback type {kind}")
        info["response_message_id"] = message["id"]
        return self._json({"interaction": info, "resource": {"type": kind, "message": message}})

    def _edit(self, message_id: int, data: dict[str, Any],
              files: list[tuple[str, bytes]]) -> dict[str, Any] | str:
        problem = _message_problem(data)
        if problem:
            return problem
        message = dict(self.messages[message_id])
        for key in ("content", "embeds", "components"):
            if key in data:
                message[key] = data[key] if data[key] is not None else (
                    "" if key == "content" else [])
        if "attachments" in data and not files:
            kept = {a.get("id") for a in data["attachments"] or []}
            message["attachments"] = [a for a in message["attachments"] if a["id"] in kept]
        message["edited_timestamp"] = datetime.now(UTC).isoformat()
        self.messages[message_id] = message
        return message

    def _webhook(self, request: web.Request, method: str, parts: list[str], body: dict[str, Any],
                 files: list[tuple[str, bytes]]) -> web.Response:
        token = parts[2]
        interaction_id = int(token.removeprefix("token-")) if token.startswith("token-") else 0
        interaction = self.interactions.get(interaction_id)
        if interaction is None:
            return self._error(request, 404, 10015, "Unknown Webhook")
        channel = int(interaction["channel_id"])
        if method == "POST" and len(parts) == 3:
            message = self._message(request, channel, body, files, interaction=interaction_id)
            if isinstance(message, web.Response):
                return message
            self._record(Output("followup", message, interaction_id, files,
                                body.get("allowed_mentions")))
            return self._json(message)
        if len(parts) == 5 and parts[3] == "messages":
            target = parts[4]
            if target == "@original":
                originals = [m for m in self.log if m.interaction_id == interaction_id
                             and m.kind == "reply"]
                if not originals:
                    return self._error(request, 404, 10008, "Unknown Message")
                message_id = originals[0].message_id
            else:
                message_id = int(target)
            if method == "GET":
                return self._json(self.messages[message_id])
            if method == "PATCH":
                edited = self._edit(message_id, body, files)
                if isinstance(edited, str):
                    return self._error(request, 400, 50035, edited, body)
                self._record(Output("update", edited, interaction_id, files,
                                    body.get("allowed_mentions")))
                return self._json(edited)
        return self._error(request, 404, 0, "404: Not Found")

    def delete(self, message: Output | int) -> None:
        """A member (a moderator) deletes the message: editing it then answers 404 with code
        10008 (Unknown Message), as on Discord."""
        message_id = message if isinstance(message, int) else message.message_id
        found = self.messages.pop(message_id)
        pinned = self.pins.get(int(found["channel_id"]), [])
        if message_id in pinned:
            pinned.remove(message_id)

    def _bot_may(self, channel_id: int, bits: int) -> bool:
        """Whether the bot's roles in the channel's server grant any of ``bits``."""
        for guild in self.guilds.values():
            if any(c.id == channel_id for c in guild.channels):
                return bool(guild.permissions(guild.members[BOT_ID]) & bits)
        return False

    def _channel_message(self, request: web.Request, method: str, channel_id: int,
                         message_id: int, body: dict[str, Any],
                         files: list[tuple[str, bytes]]) -> web.Response:
        """GET, PATCH (edit) or DELETE a message of a channel; a deleted one is 10008."""
        message = self.messages.get(message_id)
        if message is None or int(message["channel_id"]) != channel_id:
            return self._error(request, 404, 10008, "Unknown Message")
        if method == "GET":
            return self._json(message)
        if method == "DELETE":
            self.delete(message_id)
            return web.Response(status=204)
        if method == "PATCH":
            edited = self._edit(message_id, body, files)
            if isinstance(edited, str):
                return self._error(request, 400, 50035, f"Invalid Form Body: {edited}", body)
            self._record(Output("edit", edited, None, files, body.get("allowed_mentions")))
            return self._json(edited)
        return self._error(request, 405, 0, "405: Method Not Allowed")

    def _pin(self, request: web.Request, method: str, channel_id: int,
             message_id: int) -> web.Response:
        """PUT (pin) or DELETE (unpin) a message: the bot needs Pin Messages or Manage
        Messages in the channel."""
        message = self.messages.get(message_id)
        if message is None or int(message["channel_id"]) != channel_id:
            return self._error(request, 404, 10008, "Unknown Message")
        if not self._bot_may(channel_id, PIN_MESSAGES | MANAGE_MESSAGES):
            return self._error(request, 403, 50013, "Missing Permissions")
        pinned = self.pins.setdefault(channel_id, [])
        if message_id in pinned:
            pinned.remove(message_id)
        if method == "PUT":
            pinned.append(message_id)
        message["pinned"] = method == "PUT"
        return web.Response(status=204)

    def _post(self, request: web.Request, channel_id: int, body: dict[str, Any],
              files: list[tuple[str, bytes]]) -> web.Response:
        nonce = (channel_id, str(body["nonce"])) if body.get("nonce") is not None else None
        enforced = nonce is not None and body.get("enforce_nonce") is True
        if enforced and nonce in self._nonces and self._nonces[nonce] in self.messages:
            return self._json(self.messages[self._nonces[nonce]])  # made before: not again
        message = self._message(request, channel_id, body, files)
        if isinstance(message, web.Response):
            return message
        if nonce is not None:
            message["nonce"] = nonce[1]
            if enforced:
                self._nonces[nonce] = int(message["id"])
        self._record(Output("post", message, None, files, body.get("allowed_mentions")))
        return self._json(message)


def _shard_of(guild_id: int, count: int) -> int:
    """The shard a guild's events go to (Discord's "Sharding": ``(guild_id >> 22) % count``)."""
    return (guild_id >> 22) % count


def _message_problem(data: dict[str, Any]) -> str | None:
    """What Discord would refuse in a message (None: nothing)."""
    if len(data.get("content") or "") > 2000:
        return "content longer than 2000"
    embeds = data.get("embeds") or []
    if len(embeds) > 10:
        return "more than 10 embeds"
    total = 0
    for embed in embeds:
        title, description = embed.get("title") or "", embed.get("description") or ""
        if len(title) > 256 or len(description) > 4096:
            return "embed title or description too long"
        total += len(title) + len(description)
    if total > 6000:
        return "embeds longer than 6000 in all"
    rows = data.get("components") or []
    if len(rows) > 5:
        return "more than 5 rows of components"
    for row in rows:
        if len(row.get("components", [])) > 5:
            return "more than 5 buttons in a row"
        for button in row["components"]:
            if len(button.get("custom_id") or "") > 100 or len(button.get("label") or "") > 80:
                return "custom_id or label too long"
    return None


def _modal_problem(data: dict[str, Any]) -> str | None:
    """What Discord would refuse in a modal (None: nothing)."""
    if not 1 <= len(data.get("title") or "") <= 45:
        return "modal title not 1 to 45 characters"
    if not 1 <= len(data.get("custom_id") or "") <= 100:
        return "modal custom_id not 1 to 100 characters"
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        return "not 1 to 5 components in a modal"
    for component in components:
        if component.get("type") == ACTION_ROW:
            inner = component.get("components") or []
            if len(inner) != 1 or inner[0].get("type") != TEXT_INPUT:
                return "a modal's action row holds one text input"
            if not 1 <= len(inner[0].get("label") or "") <= 45:
                return "text input label not 1 to 45 characters"
        elif component.get("type") == LABEL:
            if not 1 <= len(component.get("label") or "") <= 45:
                return "label not 1 to 45 characters"
            inner = [component.get("component") or {}]
        elif component.get("type") == TEXT_DISPLAY:
            continue
        else:
            return f"component type {component.get('type')} in a modal"
        for entry in inner:
            if not 1 <= len(entry.get("custom_id") or "") <= 100:
                return "input custom_id not 1 to 100 characters"
            if entry.get("type") == TEXT_INPUT and (
                    len(entry.get("value") or "") > 4000
                    or len(entry.get("placeholder") or "") > 100
                    or not 0 <= entry.get("min_length", 0) <= 4000
                    or not 1 <= entry.get("max_length", 4000) <= 4000):
                return "text input value, placeholder or lengths out of range"
    return None


def _inputs(components: list[dict[str, Any]]) -> list[ModalInput]:
    """The inputs of a modal's components, with their labels."""
    inputs = []
    for component in components:
        label = component.get("label") or ""
        inner = component.get("components") or [component.get("component") or {}]
        for entry in inner:
            if entry.get("type") == TEXT_INPUT:
                inputs.append(ModalInput(
                    entry["custom_id"], entry.get("label") or label, TEXT_INPUT,
                    entry.get("style", 1), entry.get("required", True), entry.get("value"),
                    entry.get("placeholder"), entry.get("min_length"), entry.get("max_length")))
            elif entry.get("type") == STRING_SELECT:
                inputs.append(ModalInput(
                    entry["custom_id"], label, STRING_SELECT,
                    required=entry.get("required", True) and entry.get("min_values", 1) > 0,
                    options=tuple(o["value"] for o in entry.get("options") or [])))
    return inputs


def _submitted(components: list[dict[str, Any]], values: dict[str, str | list[str]]
               ) -> list[dict[str, Any]]:
    """A modal's components as Discord submits them: the same layout, each input with what
    was typed or chosen (text displays are left out)."""
    def answer(entry: dict[str, Any]) -> dict[str, Any]:
        value = values[entry["custom_id"]]
        key = "values" if isinstance(value, list) else "value"
        kept = {k: entry[k] for k in ("id",) if k in entry}
        return {"type": entry["type"], "custom_id": entry["custom_id"], key: value} | kept

    submitted = []
    for component in components:
        kept = {k: component[k] for k in ("id",) if k in component}
        inner = component.get("components") or [component.get("component") or {}]
        if not all(f.get("custom_id") in values for f in inner):
            continue  # a text display, or an input this fake does not fill in
        if component.get("type") == ACTION_ROW:
            submitted.append({"type": ACTION_ROW, "components": [answer(f) for f in inner]}
                             | kept)
        elif component.get("type") == LABEL:
            submitted.append({"type": LABEL, "component": answer(inner[0])} | kept)
    return submitted


def _valid_command(command: dict[str, Any]) -> bool:
    """Names and descriptions as Discord accepts them, required options first."""
    def valid(entry: dict[str, Any]) -> bool:
        options = entry.get("options") or []
        required = [bool(o.get("required")) for o in options]
        return (bool(_NAME.match(entry.get("name", ""))) and entry["name"] == entry[
            "name"].lower() and 1 <= len(entry.get("description", "")) <= 100
                and len(options) <= 25 and required == sorted(required, reverse=True)
                and all(valid(o) for o in options))
    return valid(command)
