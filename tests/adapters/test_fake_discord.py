"""The fake Discord itself, driven by a bare discord.py client (not the product's): login,
gateway, command sync, interactions and their answers, files both ways, modals, and the limits
it enforces."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from tests.discord_harness import pointed_at
from tests.fake_discord import (
    MANAGE_MESSAGES,
    MANAGE_ROLES,
    TOKEN,
    FakeDiscord,
    Guild,
    Member,
    unescape,
)

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + (64).to_bytes(4, "big") * 2 + bytes(range(256))


class Answer(discord.ui.Modal, title="Solve p1"):
    """A form with a text input in an action row (the old layout) and one in a Label."""

    move: discord.ui.TextInput[Answer] = discord.ui.TextInput(
        label="Your move", custom_id="move", max_length=10)
    note: discord.ui.Label[Answer] = discord.ui.Label(
        text="A note", component=discord.ui.TextInput(
            custom_id="note", required=False, style=discord.TextStyle.paragraph, default="none"))

    def __init__(self, client: Bare) -> None:
        super().__init__(custom_id="answer:p1")
        self.client = client

    async def on_submit(self, interaction: discord.Interaction) -> None:
        if self.client.reopen:  # Discord refuses a modal answering a modal
            try:
                await interaction.response.send_modal(Answer(self.client))
            except discord.HTTPException as error:
                self.client.failures.append(error)
            return
        assert isinstance(self.note.component, discord.ui.TextInput)
        self.client.submitted.append((self.move.value, self.note.component.value,
                                      interaction.message.id if interaction.message else None))
        await interaction.response.send_message(
            f"you played {self.move.value}", ephemeral=True,
            file=discord.File(io.BytesIO(PNG), "board.png"))
        await interaction.followup.send("and the solution", ephemeral=True,
                                        file=discord.File(io.BytesIO(b"GIF89a"), "line.gif"))


class Solve(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
            template=r"solve:(?P<puzzle>\w+)"):
    """A persistent button (any message, any restart) that opens the modal."""

    def __init__(self, puzzle: str) -> None:
        super().__init__(discord.ui.Button(label="Solve", custom_id=f"solve:{puzzle}"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Solve:
        return cls(match["puzzle"])

    async def callback(self, interaction: discord.Interaction) -> None:
        client = interaction.client
        assert isinstance(client, Bare)
        await interaction.response.send_modal(Answer(client))


class Bare(discord.Client):
    """Slash commands that answer as the test asks (/echo), read an uploaded file (/upload),
    open a modal (/form) or show an ephemeral panel with a button opening it (/panel)."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents(guilds=True), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)
        self.answer: dict[str, Any] = {"content": "hi"}
        self.failures: list[BaseException] = []
        self.uploaded: list[tuple[str, str | None, bytes, str]] = []
        self.submitted: list[tuple[str, str, int | None]] = []
        self.seen: list[tuple[discord.InteractionType, str | None]] = []
        self.reopen = False

        @self.tree.command(name="upload", description="Send a file")
        async def upload(interaction: discord.Interaction, image: discord.Attachment,
                         caption: str = "") -> None:
            data = await image.read()
            self.uploaded.append((image.filename, image.content_type, data, caption))
            await interaction.response.send_message(f"{image.filename}: {len(data)} bytes")

        @self.tree.command(name="form", description="Open a form")
        async def form(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(Answer(self))

        @self.tree.command(name="panel", description="A panel only you see")
        async def panel(interaction: discord.Interaction) -> None:
            view = discord.ui.View(timeout=None).add_item(Solve("p1"))
            await interaction.response.send_message("p1", view=view, ephemeral=True)

        @self.tree.command(name="echo", description="Say something")
        @app_commands.describe(what="What to say")
        async def echo(interaction: discord.Interaction, what: str = "") -> None:
            try:
                await interaction.response.send_message(**self.answer)
            except discord.HTTPException as error:
                self.failures.append(error)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Solve)
        await self.tree.sync()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        self.seen.append((interaction.type, data.get("custom_id")))


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
    assert sorted(c["name"] for c in dc.commands[None]) == ["echo", "form", "panel", "upload"]
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


async def test_an_attachment_option_downloads_whole(
        world: tuple[FakeDiscord, Guild, Member, Bare]) -> None:
    dc, guild, member, client = world
    image = dc.attachment("p1.png", PNG)
    interaction = await dc.command(guild, member, "upload", {"image": image, "caption": "e4"})
    answer = await dc.output()
    assert answer.content == f"p1.png: {len(PNG)} bytes"
    assert client.uploaded == [("p1.png", "image/png", PNG, "e4")]
    data = dc.interactions[interaction]["data"]
    assert data["options"][0] == {"name": "image", "type": 11, "value": str(image.id)}
    resolved = data["resolved"]["attachments"][str(image.id)]
    assert (resolved["size"], resolved["width"], resolved["height"]) == (len(PNG), 64, 64)
    async with aiohttp.ClientSession() as http, http.get(image.proxy_url) as proxied:
        assert await proxied.read() == PNG
    with pytest.raises(AssertionError, match="required options missing"):
        await dc.command(guild, member, "upload", caption="no file")


async def test_a_modal_opened_from_a_command_and_submitted(
        world: tuple[FakeDiscord, Guild, Member, Bare]) -> None:
    dc, guild, member, client = world
    await dc.command(guild, member, "form")
    opened = await dc.output()
    assert opened.kind == "modal" and opened.modal is not None
    modal = opened.modal
    assert (modal.custom_id, modal.title) == ("answer:p1", "Solve p1")
    assert modal.labels == {"move": "Your move", "note": "A note"}
    assert dc.modals == [modal]
    with pytest.raises(AssertionError, match="no input"):
        await dc.submit_modal(guild, member, modal, {"mvoe": "e4"})
    with pytest.raises(AssertionError, match="required"):
        await dc.submit_modal(guild, member, modal)
    with pytest.raises(AssertionError, match="characters"):
        await dc.submit_modal(guild, member, modal, {"move": "x" * 11})
    submit = await dc.submit_modal(guild, member, "answer:p1", {"move": "Nf3"})
    reply, followup = await dc.output(), await dc.output()
    assert client.submitted == [("Nf3", "none", None)]  # the note as prefilled
    assert (discord.InteractionType.modal_submit, "answer:p1") in client.seen
    assert dc.interactions[submit]["data"]["components"][0] == {
        "type": 1, "components": [{"type": 4, "custom_id": "move", "value": "Nf3"}]}
    assert (reply.kind, reply.content, reply.ephemeral) == ("reply", "you played Nf3", True)
    assert reply.files == [("board.png", PNG)]
    assert (followup.kind, followup.ephemeral, followup.files) == (
        "followup", True, [("line.gif", b"GIF89a")])
    async with aiohttp.ClientSession() as http:
        for output, data in ((reply, PNG), (followup, b"GIF89a")):
            async with http.get(output.message["attachments"][0]["url"]) as sent:
                assert await sent.read() == data


async def test_a_button_on_an_ephemeral_message_opens_a_modal(
        world: tuple[FakeDiscord, Guild, Member, Bare]) -> None:
    dc, guild, member, client = world
    await dc.command(guild, member, "panel")
    panel = await dc.output()
    assert panel.ephemeral and panel.buttons == [[("Solve", "solve:p1")]]
    await dc.click(guild, member, panel, "solve:p1")
    opened = await dc.output()
    await dc.submit_modal(guild, member, opened, move="e4", note="fork")
    reply = await dc.output()
    assert reply.content == "you played e4" and reply.ephemeral
    assert client.submitted == [("e4", "fork", panel.message_id)]
    await dc.output()  # the follow-up


async def test_a_modal_answers_no_modal_submit(
        world: tuple[FakeDiscord, Guild, Member, Bare]) -> None:
    dc, guild, member, client = world
    client.reopen = True
    await dc.command(guild, member, "form")
    await dc.submit_modal(guild, member, await dc.output(), move="e4")
    for _ in range(100):
        if client.failures:
            break
        await asyncio.sleep(0.01)
    assert [e.code for e in client.failures] == [50035]  # type: ignore[attr-defined]
    assert dc.pending_outputs() == 0 and len(dc.modals) == 1


async def test_roles_with_positions_members_fetched_and_their_roles_changed() -> None:
    """What discord.py calls for rating bands' roles (issue 38): the bot's own highest role
    and Manage Roles from the server's payload, a member fetched, one PATCH with the whole new
    list of roles; Discord's 403 (50013) for a role not below the bot's highest, and for a
    bot without Manage Roles."""
    async with FakeDiscord() as dc:
        guild = dc.guild(800000000000000001, "Club")
        bot_role = dc.role(guild, 11, "clubrating", MANAGE_ROLES, position=5)
        gold = dc.role(guild, 12, "Gold", position=2)
        admins = dc.role(guild, 13, "Admins", position=9)
        guild.members[dc.bot.id].roles = [bot_role.id]
        ann = dc.member(guild, dc.user(800000000000000009, "ann"))
        with pointed_at(dc):
            client = Bare()
            task = asyncio.create_task(client.start(TOKEN, reconnect=False))
            await asyncio.wait_for(client.wait_until_ready(), 10)
            try:
                server = client.get_guild(guild.id)
                assert server is not None
                assert server.me.top_role.name == "clubrating"
                assert server.me.guild_permissions.manage_roles
                role = server.get_role(gold.id)
                assert role is not None and role.position == 2
                assert [r.position for r in await server.fetch_roles()] == [0, 5, 2, 9]
                fetched = await server.fetch_member(ann.id)
                assert fetched.roles == [server.default_role]
                await fetched.edit(roles=[discord.Object(id=gold.id)])
                assert dc.role_edits == [(guild.id, ann.id, [gold.id])]
                assert ann.roles == [gold.id]
                assert ("PATCH", f"/guilds/{guild.id}/members/{ann.id}") in dc.requests
                with pytest.raises(discord.Forbidden) as above:
                    await fetched.edit(roles=[discord.Object(id=admins.id)])
                assert (above.value.status, above.value.code) == (403, 50013)
                bot_role.permissions = 0  # Manage Roles taken from the bot
                with pytest.raises(discord.Forbidden):
                    await fetched.edit(roles=[])
                assert ann.roles == [gold.id] and len(dc.role_edits) == 1
                with pytest.raises(discord.NotFound):
                    await server.fetch_member(12345)
            finally:
                await client.close()
                with contextlib.suppress(asyncio.CancelledError):
                    await task


async def test_channel_messages_edited_pinned_and_deleted(
        world: tuple[FakeDiscord, Guild, Member, Bare]) -> None:
    """What a live leaderboard meets (issue 38): a channel message edited in place (PATCH), a
    pin refused without Pin Messages or Manage Messages and made with it, and a message a
    member deleted: editing it is 404 with code 10008 (Unknown Message)."""
    dc, guild, member, client = world
    channel = client.get_channel(guild.channel.id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("table")
    assert (await dc.output()).kind == "post"
    await channel.get_partial_message(sent.id).edit(content="new table")
    edited = await dc.output()
    assert (edited.kind, edited.message_id, edited.content) == ("edit", sent.id, "new table")
    with pytest.raises(discord.Forbidden) as refused:
        await channel.get_partial_message(sent.id).pin()
    assert refused.value.code == 50013 and dc.pins.get(channel.id, []) == []
    pinner = dc.role(guild, 800000000000000050, "Bots", MANAGE_MESSAGES)
    guild.members[dc.bot.id].roles.append(pinner.id)
    await channel.get_partial_message(sent.id).pin()
    assert dc.pins[channel.id] == [sent.id]
    dc.delete(sent.id)
    assert dc.pins[channel.id] == []
    with pytest.raises(discord.NotFound) as gone:
        await channel.get_partial_message(sent.id).edit(content="again")
    assert gone.value.code == 10008
    other = await channel.send("other")
    await dc.output()
    await channel.get_partial_message(other.id).delete()
    assert other.id not in dc.messages


async def test_a_repeated_nonce_answers_the_first_message(
        world: tuple[FakeDiscord, Guild, Member, Bare]) -> None:
    """Discord drops a message sent again with the same nonce and ``enforce_nonce`` (discord.py
    sets it with every nonce) and answers with the first one (issue 41: a post sent again after
    a crash); without the nonce, or with another, a message is made each time."""
    dc, guild, member, client = world
    channel = client.get_channel(guild.channel.id)
    assert isinstance(channel, discord.TextChannel)
    first = await channel.send("post", nonce="clubrating-1.0")
    again = await channel.send("post", nonce="clubrating-1.0")
    other = await channel.send("post", nonce="clubrating-2.0")
    assert again.id == first.id and other.id != first.id
    assert [o.message_id for o in dc.log if o.kind == "post"] == [first.id, other.id]
    assert dc.messages[first.id]["nonce"] == "clubrating-1.0"
