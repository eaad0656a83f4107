"""The fake Discord itself, driven by a bare discord.py client (not the product's): login,
gateway, command sync, interactions and their answers, and the limits it enforces."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands

from tests.discord_harness import pointed_at
from tests.fake_discord import TOKEN, FakeDiscord, Guild, Member, unescape


class Bare(discord.Client):
    """One slash command, /echo, that answers as the test asks."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents(guilds=True), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)
        self.answer: dict[str, object] = {"content": "hi"}
        self.failures: list[BaseException] = []

        @self.tree.command(name="echo", description="Say something")
        @app_commands.describe(what="What to say")
        async def echo(interaction: discord.Interaction, what: str = "") -> None:
            try:
                await interaction.response.send_message(**self.answer)  # type: ignore[arg-type]
            except discord.HTTPException as error:
                self.failures.append(error)

    async def setup_hook(self) -> None:
        await self.tree.sync()


@pytest.fixture
async def world() -> AsyncIterator[tuple[FakeDiscord, Guild, Member, Bare]]:
    async with FakeDiscord() as dc:
        guild = dc.guild(800000000000000001, "Club")
        member = dc.member(guild, dc.user(800000000000000009, "ann"))
        with pointed_at(dc):
            client = Bare()
            task = asyncio.create_task(client.start(TOKEN, reconnect=False))
            await asyncio.wait_for(client.wait_until_ready(), 10)
            try:
                yield dc, guild, member, client
            finally:
                await client.close()
                with contextlib.suppress(asyncio.CancelledError):
                    await task


async def test_login_ready_guilds_and_sync(world: tuple[FakeDiscord, Guild, Member, Bare]
                                           ) -> None:
    dc, guild, member, client = world
    assert client.user is not None and client.user.id == dc.bot.id
    assert [g.id for g in client.guilds] == [guild.id]
    assert client.guilds[0].member_count == 3  # the owner, ann and the bot
    assert [c["name"] for c in dc.commands[None]] == ["echo"]
    assert ("GET", "/oauth2/applications/@me") in dc.requests


async def test_a_slash_command_and_its_answer(world: tuple[FakeDiscord, Guild, Member, Bare]
                                              ) -> None:
    dc, guild, member, client = world
    await dc.command(guild, member, "echo", what="x")
    answer = await dc.output()
    assert (answer.kind, answer.content, answer.ephemeral) == ("reply", "hi", False)
    with pytest.raises(AssertionError, match="no option"):
        await dc.command(guild, member, "echo", nothing="x")


async def test_an_embed_with_a_png_arrives_whole(world: tuple[FakeDiscord, Guild, Member, Bare]
                                                 ) -> None:
    dc, guild, member, client = world
    embed = discord.Embed(description="chart").set_image(url="attachment://c.png")
    client.answer = {"embed": embed, "file": discord.File(io.BytesIO(b"PNG"), "c.png"),
                     "ephemeral": True}
    await dc.command(guild, member, "echo")
    answer = await dc.output()
    assert answer.files == [("c.png", b"PNG")] and answer.ephemeral
    assert answer.embeds[0]["image"]["url"] == "attachment://c.png"


async def test_discords_limits_are_enforced(world: tuple[FakeDiscord, Guild, Member, Bare]
                                            ) -> None:
    dc, guild, member, client = world
    client.answer = {"content": "x" * 2001}
    await dc.command(guild, member, "echo")
    client.answer = {"embed": discord.Embed(description="x" * 4097)}
    await dc.command(guild, member, "echo")
    for _ in range(100):
        if len(client.failures) == 2:
            break
        await asyncio.sleep(0.01)
    assert [e.code for e in client.failures] == [50035, 50035]  # type: ignore[attr-defined]
    assert dc.pending_outputs() == 0


async def test_an_interaction_is_answered_once(world: tuple[FakeDiscord, Guild, Member, Bare]
                                               ) -> None:
    dc, guild, member, client = world
    interaction = await dc.command(guild, member, "echo")
    await dc.output()
    await dc.redeliver(interaction)
    for _ in range(100):
        if client.failures:
            break
        await asyncio.sleep(0.01)
    assert [e.code for e in client.failures] == [40060]  # type: ignore[attr-defined]


async def test_invalid_commands_are_refused_at_sync() -> None:
    async with FakeDiscord() as dc:
        client = discord.Client(intents=discord.Intents(guilds=True))
        tree = app_commands.CommandTree(client)

        @tree.command(name="long", description="x" * 100)
        async def long(interaction: discord.Interaction) -> None: ...

        with pointed_at(dc):
            await client.login(TOKEN)
            try:
                tree.get_command("long").description = "x" * 101  # type: ignore[union-attr]
                with pytest.raises(discord.HTTPException):
                    await tree.sync()
            finally:
                await client.close()
        assert dc.errors[0][0] == 400 and None not in dc.commands


def test_plain_text_undoes_discords_escapes() -> None:
    assert unescape("```\n\\*\\*x\\*\\* @\u200beveryone\n```") == "**x** @everyone"
