"""Rating bands as Discord roles (issue 38): ``/band preview`` and ``/band sync``, and the
roles following the ratings afterwards.

A band of a ladder may carry a role (``/band add Gold 1400 @Gold``). Which band each member
holds is the service's (:func:`bot.service.bands.role_bands`); this module gives and takes
the roles:

- before a preview or a sync, the checks Discord would make: the bot has Manage Roles
  (``guild.me.guild_permissions.manage_roles``) and each band role is below the bot's own
  highest role (``Role.position`` under ``guild.me.top_role``); a failed check is a refusal
  that names the role, and nothing changes;
- each member changed gets ONE request, ``Member.edit(roles=...)`` with the whole new list
  (ERRATA: never one request per role), paced by discord.py's own rate-limit handling and a
  small pause between members;
- a refusal from Discord in the middle (403, code 50013 Missing Permissions) stops the sync,
  pauses the ladder's role sync (an event of the log, so it survives a restart:
  :class:`~bot.service.events.BandRolesPaused`) and tells the moderators once; ``/band sync``
  resumes it;
- afterwards the roles follow every committed change: before each interaction the front-end
  notes each ladder's wanted roles, after it the members whose wanted role changed get their
  roles edited (:meth:`RoleSync.follow`). Choice: a band added or removed, and a change made
  while the bot was not running (or before the first interaction since its start), wait for
  ``/band sync``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.chat.commands import Context
from bot.chat.messages import text
from bot.service.bands import RoleBands
from bot.service.club import ClubService
from bot.service.errors import Refusal

log = logging.getLogger(__name__)

PLATFORM = "discord"
#: seconds between two members' role edits (discord.py waits out a 429 by itself besides)
EDIT_PAUSE = 0.2
#: the most members a preview names one by one
PREVIEW_LINES = 25
#: Discord's error code for "Missing Permissions"
MISSING_PERMISSIONS = 50013


@dataclass(frozen=True, slots=True)
class Change:
    """One member's band roles to change: the member as fetched, the roles given and taken
    (ids)."""

    user: str
    name: str
    gain: tuple[int, ...]
    lose: tuple[int, ...]
    member: discord.Member


class RoleSync:
    """The band roles of the guilds of one discord.py client (``Context.roles``)."""

    def __init__(self, client: discord.Client, service: ClubService) -> None:
        self.client = client
        self.service = service
        #: each (guild id, ladder)'s bands with roles and wanted band role by user id, as last
        #: seen (the baseline the next change is measured against)
        self._seen: dict[tuple[str, str], RoleBands] = {}
        self._lock = asyncio.Lock()

    def _guild(self, guild_id: str) -> discord.Guild:
        guild = self.client.get_guild(int(guild_id))
        if guild is None:
            raise Refusal("discord_guild_only")
        return guild

    # -- the checks --------------------------------------------------------------------------

    def _checked(self, guild: discord.Guild, roles: Sequence[str]) -> None:
        """Refuse (naming the role) unless the bot may give and take each of ``roles``."""
        me = guild.me
        if not me.guild_permissions.manage_roles:
            raise Refusal("band_role_manage")
        top = me.top_role
        for role_id in roles:
            role = guild.get_role(int(role_id))
            if role is None:
                raise Refusal("band_role_unknown", role=role_id)
            if role.position >= top.position or role.managed or role.is_default():
                raise Refusal("band_role_above", role=role.name, top=top.name)

    async def check(self, ctx: Context, role: str) -> None:
        """``/band add ... @role``: whether the bot may give the role, and whether the
        moderator who names it may give it themselves. A club's moderator need not manage
        the server's roles, and a band must not be a way to get a role one could not give
        (Discord's own rule for people: Manage Roles, and a role below one's highest; the
        server's owner may give any)."""
        guild = self._guild(ctx.caller.chat_id)
        self._checked(guild, [role])
        given = guild.get_role(int(role))
        assert given is not None  # checked just above
        if guild.owner_id == int(ctx.caller.user):
            return
        try:
            member = await guild.fetch_member(int(ctx.caller.user))
        except discord.NotFound:
            raise Refusal("band_role_yours", role=given.name) from None
        if (not member.guild_permissions.manage_roles
                or given.position >= member.top_role.position):
            raise Refusal("band_role_yours", role=given.name)

    # -- preview and sync --------------------------------------------------------------------

    async def _changes(self, guild: discord.Guild, bands: RoleBands) -> list[Change]:
        """Each member whose band roles differ from what their band calls for (one member
        fetched at a time: the bot has no privileged member intent)."""
        band_roles = {int(role) for _, role in bands.roles}
        out = []
        for user, wanted in bands.wanted.items():
            try:
                member = await guild.fetch_member(int(user))
            except discord.NotFound:
                continue  # not (or no longer) on the server
            want = set() if wanted is None else {int(wanted)}
            # the member's role ids as Discord sent them (a role the cache lacks is kept)
            have = set(member._roles) & band_roles
            if want != have:
                out.append(Change(user, bands.names[user], tuple(sorted(want - have)),
                                  tuple(sorted(have - want)), member))
        return out

    async def preview(self, ctx: Context, ladder: str | None) -> str:
        """``/band preview``: who would gain and lose which role (moderators)."""
        bands = await self.service.band_roles(ctx.caller, ladder)
        guild = self._guild(ctx.caller.chat_id)
        self._checked(guild, [role for _, role in bands.roles])
        changes = await self._changes(guild, bands)
        if not changes:
            lines = [text("band_preview_none", ladder=bands.ladder)]
        else:
            lines = [text("band_preview_title", ladder=bands.ladder)]
            named = [text(key, name=change.name, role=_role_name(guild, role))
                     for change in changes
                     for key, roles in (("band_preview_gain", change.gain),
                                        ("band_preview_lose", change.lose))
                     for role in roles]
            lines += named[:PREVIEW_LINES]
            if len(named) > PREVIEW_LINES:
                lines.append(text("band_preview_more", members=len(named) - PREVIEW_LINES))
        if bands.paused is not None:
            lines.append(text("band_roles_paused", ladder=bands.ladder, role=bands.paused))
        return "\n".join(lines)

    async def sync(self, ctx: Context, ladder: str | None) -> str:
        """``/band sync``: give and take the roles (moderators); resumes a paused ladder."""
        bands = await self.service.band_roles(ctx.caller, ladder)
        guild = self._guild(ctx.caller.chat_id)
        self._checked(guild, [role for _, role in bands.roles])
        if bands.paused is not None:
            await self.service.resume_band_roles(ctx.caller, bands.ladder)
        async with self._lock:
            changes = await self._changes(guild, bands)
            stopped = await self._apply(guild, bands, changes)
            self._seen[(str(guild.id), bands.ladder)] = bands
        if stopped is None:
            return text("band_synced", ladder=bands.ladder, members=len(changes))
        done, change, role = stopped
        await self.service.pause_band_roles(PLATFORM, str(guild.id), bands.ladder, str(role))
        return text("band_sync_stopped", ladder=bands.ladder, name=change.name,
                    role=_role_name(guild, role), members=done)

    async def _apply(self, guild: discord.Guild, bands: RoleBands, changes: Sequence[Change]
                     ) -> tuple[int, Change, int] | None:
        """Edit each member's roles with one request; at Discord's first refusal stop: how
        many were changed, the change refused and its role (None: all went through)."""
        for done, change in enumerate(changes):
            if done:
                await asyncio.sleep(EDIT_PAUSE)
            member = change.member
            roles = [discord.Object(id=role) for role in member._roles
                     if role not in change.lose] + [discord.Object(id=role)
                                                    for role in change.gain]
            try:
                await member.edit(roles=roles, reason=f"band:{bands.ladder}")
            except discord.NotFound:
                continue  # left the server meanwhile
            except discord.Forbidden as refused:
                log.warning("Discord refused the band roles of %s on %s (%s %s): role sync "
                            "of %s paused", change.user, guild.id, refused.status, refused.code,
                            bands.ladder)
                return done, change, (change.gain or change.lose)[0]
        return None

    # -- following the ratings ---------------------------------------------------------------

    async def note(self, guild_id: str) -> None:
        """Before an interaction: each ladder's wanted roles, where not noted yet."""
        if not any(guild == guild_id for guild, _ in self._seen):
            for bands in await self.service.all_band_roles(PLATFORM, guild_id):
                self._seen.setdefault((guild_id, bands.ladder), bands)

    async def follow(self, guild_id: str, channel: discord.abc.Messageable | None) -> None:
        """After an interaction: the members whose wanted band role changed get their roles
        edited (on ladders not paused); Discord's refusal pauses the ladder and is told once
        in ``channel``."""
        try:
            ladders = await self.service.all_band_roles(PLATFORM, guild_id)
        except Refusal:
            return
        guild = self.client.get_guild(int(guild_id))
        if guild is None:
            return
        async with self._lock:
            for bands in ladders:
                key = (guild_id, bands.ladder)
                before = self._seen.get(key)
                self._seen[key] = bands
                # Choice: a band added or removed (or another role) waits for /band sync
                if before is None or bands.paused is not None or before.roles != bands.roles:
                    continue
                moved = {user: wanted for user, wanted in bands.wanted.items()
                         if before.wanted.get(user) != wanted}
                if not moved:
                    continue
                changes = await self._changes(guild, RoleBands(
                    bands.ladder, bands.roles, bands.paused, moved, bands.names))
                stopped = await self._apply(guild, bands, changes)
                if stopped is not None:
                    await self._pause(guild, bands, stopped, channel)

    async def _pause(self, guild: discord.Guild, bands: RoleBands,
                     stopped: tuple[int, Change, int], channel: discord.abc.Messageable | None
                     ) -> None:
        _, _, role = stopped
        notice = await self.service.pause_band_roles(PLATFORM, str(guild.id), bands.ladder,
                                                     str(role))
        if channel is None:
            return
        try:
            await channel.send(text(notice.key, notice.params),
                               allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as error:
            log.warning("could not tell %s that its band roles are paused: %s", guild.id, error)


def _role_name(guild: discord.Guild, role: int) -> str:
    found = guild.get_role(role)
    return f"@{found.name}" if found is not None else str(role)
