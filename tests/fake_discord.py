"""A fake Discord on 127.0.0.1 for tests: the REST API and the gateway that a real discord.py
client needs, and the members' side (slash commands, button clicks).

    async with FakeDiscord() as dc:
        discord.http.Route.BASE = dc.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(dc.gateway_url)
        club = dc.guild(10, "Chess club")
        alice = dc.member(club, dc.user(2, "alice"))
        await client.start(TOKEN)                      # (in a task)
        await dc.command(club, alice, "register")
        answer = await dc.output()                     # the bot's response

What it checks as Discord does (a 400 "Invalid Form Body", noted in ``errors``): message content
up to 2,000 characters, embed title 256, description 4,096, all embeds of a message 6,000, at
most 10 embeds, 5 rows of 5 buttons, custom ids up to 100 characters, labels up to 80; an
interaction answered twice ("already acknowledged", 40060); command names and descriptions when
the command tree is synced. discord.py only parses answers whose Content-Type is exactly
``application/json``, so every answer is sent that way.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web

APPLICATION_ID = 700000000000000001
BOT_ID = APPLICATION_ID
TOKEN = "fake-discord-token"
#: permission bits (Discord's "Permissions" docs)
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_GUILD = 1 << 5
ADMINISTRATOR = 1 << 3
MEMBER_PERMISSIONS = VIEW_CHANNEL | SEND_MESSAGES
#: option types of application commands
SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE = range(1, 9)
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

    def payload(self, position: int) -> dict[str, Any]:
        return {"id": str(self.id), "name": self.name, "permissions": str(self.permissions),
                "position": position, "color": 0, "hoist": False, "managed": False,
                "mentionable": True, "flags": 0}


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


@dataclass
class Output:
    """Something the bot said: an interaction's answer, an edit of the message whose button
    was pressed, a follow-up, or a post in a channel."""

    kind: str  # "reply" | "update" | "followup" | "post" | "autocomplete"
    message: dict[str, Any]
    interaction_id: int | None = None
    files: list[tuple[str, bytes]] = field(default_factory=list)
    allowed_mentions: dict[str, Any] | None = None
    choices: list[dict[str, Any]] = field(default_factory=list)

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
        self.interactions: dict[int, dict[str, Any]] = {}
        self.answered: set[int] = set()
        self.log: list[Output] = []
        self._outputs: asyncio.Queue[Output] = asyncio.Queue()
        #: (status, method, path, body) of every answer that was not a success
        self.errors: list[tuple[int, str, str, Any]] = []
        self.requests: list[tuple[str, str]] = []
        self._floods: dict[str, list[float]] = {}
        self._sockets: list[web.WebSocketResponse] = []
        #: the gateway says nothing while set (no hello, no heartbeat acknowledged, no event):
        #: a connection that went dead without closing
        self.silent = False
        self._sequence = 0
        self.identified = asyncio.Event()

    # -- the server ------------------------------------------------------------------------------

    async def __aenter__(self) -> FakeDiscord:
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def __aexit__(self, *exc: object) -> None:
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

    def role(self, guild: Guild, role_id: int, name: str, permissions: int = 0) -> Role:
        role = Role(role_id, name, permissions)
        guild.roles[role_id] = role
        return role

    def member(self, guild: Guild, user: User, *roles: Role, nick: str | None = None) -> Member:
        member = Member(user, guild.id, [r.id for r in roles], nick)
        guild.members[user.id] = member
        return member

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
                      subcommand: str | None = None, /, **values: Any) -> int:
        """``speaker`` runs ``/name [subcommand] option:value ...``; returns the interaction id.
        Members (``User`` options) are given as ``Member``s, roles as ``Role``s."""
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
        for ws in list(self._sockets):
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
                elif op in (2, 6):  # IDENTIFY, RESUME: a fresh session either way
                    await self._ready(ws)
        finally:
            if ws in self._sockets:
                self._sockets.remove(ws)
        return ws

    async def _ready(self, ws: web.WebSocketResponse) -> None:
        await self._send(ws, {"op": 0, "t": "READY", "d": {
            "v": 10, "user": self.bot.payload() | {"verified": True, "mfa_enabled": False,
                                                  "flags": 0},
            "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds],
            "session_id": f"session-{self.next_id()}",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(APPLICATION_ID), "flags": 0},
            "private_channels": [], "relationships": [],
        }})
        for guild in self.guilds.values():
            await self._send(ws, {"op": 0, "t": "GUILD_CREATE", "d": guild.payload()})
        self._sockets.append(ws)
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
        body, files = await self._body(request)
        method = request.method
        parts = path.strip("/").split("/")
        if method == "GET" and path == "/users/@me":
            return self._json(self.bot.payload() | {"verified": True, "mfa_enabled": False,
                                                    "flags": 0})
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
            return self._post(request, int(parts[1]), body, files)
        if method == "GET" and parts[0] == "channels" and len(parts) == 2:
            for guild in self.guilds.values():
                for channel in guild.channels:
                    if channel.id == int(parts[1]):
                        return self._json(channel.payload())
        return self._error(request, 404, 0, f"404: Not Found ({method} {path})")

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
        attachments = [{"id": str(self.next_id()), "filename": name, "size": len(content),
                        "url": f"{self.url}/attachments/{message_id}/{name}",
                        "proxy_url": f"{self.url}/attachments/{message_id}/{name}",
                        "content_type": "image/png" if name.endswith(".png") else None}
                       for name, content in files]
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
        if kind == 4:  # a message answering the interaction
            message = self._message(request, channel, data, files, interaction=interaction_id)
            if isinstance(message, web.Response):
                return message
            self.answered.add(interaction_id)
            self._record(Output("reply", message, interaction_id, files, mentions))
        elif kind == 7:  # the message whose button was pressed, edited
            old = interaction["message"]
            message = self._edit(int(old["id"]), data, files)
            if isinstance(message, str):
                return self._error(request, 400, 50035, f"Invalid Form Body: {message}", data)
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

    def _post(self, request: web.Request, channel_id: int, body: dict[str, Any],
              files: list[tuple[str, bytes]]) -> web.Response:
        message = self._message(request, channel_id, body, files)
        if isinstance(message, web.Response):
            return message
        self._record(Output("post", message, None, files, body.get("allowed_mentions")))
        return self._json(message)


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
