"""Slash commands written to Discord only when they changed (issue 41): the hash of the command
tree's payload, as discord.py sends it, is kept in the database after each sync; a start whose
tree has the hash already synced to its scope leaves Discord alone (a global sync counts
against a daily limit, and every process of a sharded bot starts with the same tree).
``clubrating sync-commands`` syncs whatever the hash says (``force``)."""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import UTC, datetime
from typing import Any

import discord
from discord import app_commands

from bot.storage.discord_gateway import DiscordGateway

log = logging.getLogger(__name__)


async def tree_payload(tree: app_commands.CommandTree[Any],
                       guild: discord.abc.Snowflake | None) -> list[dict[str, Any]]:
    """What :meth:`CommandTree.sync` sends for ``guild`` (None: the global commands)."""
    translator = tree.translator
    commands = tree.get_commands(guild=guild)
    if translator is not None:
        return [await command.get_translated_payload(tree, translator) for command in commands]
    return [command.to_dict(tree) for command in commands]


def tree_hash(payload: list[dict[str, Any]]) -> str:
    """The payload's SHA-256: keys sorted, so the same tree always has the same hash."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


async def sync_commands(tree: app_commands.CommandTree[Any], guild: int | None,
                        store: DiscordGateway | None, force: bool = False) -> int | None:
    """Sync the tree to ``guild`` (None: globally) unless ``store`` holds its hash already
    (``force``: sync all the same); how many commands were synced, None when none was. Without
    a ``store`` it always syncs."""
    target = None if guild is None else discord.Object(id=guild)
    if target is not None:
        tree.copy_global_to(guild=target)
    application = tree.client.application_id
    scope = "global" if guild is None else f"guild:{guild}"
    digest = tree_hash(await tree_payload(tree, target))
    if store is None or application is None:
        return await _sync(tree, target, scope)
    async with store.command_sync(application):
        if not force and await store.command_tree(application, scope) == digest:
            log.info("slash commands unchanged since the last sync (%s): not synced", scope)
            return None
        synced = await _sync(tree, target, scope)
        await store.keep_command_tree(application, scope, digest, datetime.now(UTC))
    return synced


async def _sync(tree: app_commands.CommandTree[Any], target: discord.Object | None,
                scope: str) -> int:
    synced = await tree.sync(guild=target)
    log.info("synced %d slash commands (%s)", len(synced), scope)
    return len(synced)
