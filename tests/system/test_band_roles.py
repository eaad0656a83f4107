"""Rating bands as Discord roles (issue 38) through ``clubrating run`` on the fake Discord.

The server has the bot's role (Manage Roles) at position 6, the band roles Gold (3) and Silver
(2) below it, and Admins (8) above it. A band with Admins is refused, naming the role, with
nothing changed and no request to change roles; ``/band preview`` lists who gains what and
``/band sync`` gives it, one PATCH per member changed; afterwards the roles follow the games,
one PATCH for each member whose band changed and none for the others. When Discord refuses in
the middle of a sync (Gold moved above the bot's role in the server's settings, which the bot
has not heard of), the sync stops at that member, the ladder's roles are paused (no request
for the games after it), and ``/band sync`` resumes once the role is back below.

The main ladder is rated by Elo (K = 32, everyone from 1600), so the numbers are Elo's: Gold
from 1610, Silver from 1580, each kept down to 25 below its minimum."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fake_discord import BOT_ID, MANAGE_GUILD, MANAGE_ROLES, FakeDiscord

from .clubs import GUILD, DiscordClub

BOT_ROLE, GOLD, SILVER, ADMINS = (900000000000000401 + n for n in range(4))
#: ada's role in the club's server (tests/system/clubs.py ``chess_server``)
MANAGERS = 900000000000000201


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[DiscordClub]:
    async with FakeDiscord() as dc:
        club = DiscordClub.on(dc, tmp_path)
        dc.role(club.guild, BOT_ROLE, "clubrating", MANAGE_ROLES, position=6)
        dc.role(club.guild, GOLD, "Gold", position=3)
        dc.role(club.guild, SILVER, "Silver", position=2)
        dc.role(club.guild, ADMINS, "Admins", position=8)
        club.guild.members[BOT_ID].roles = [BOT_ROLE]
        # ada manages the server's roles, with her highest role (Managers) above the bands'
        managers = club.guild.roles[MANAGERS]
        managers.permissions |= MANAGE_ROLES
        managers.position = 5
        yield club


def events(folder: Path) -> int:
    with sqlite3.connect(folder / "club.db") as db:
        count = int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    db.close()
    return count


async def settled(club: DiscordClub) -> None:
    """Wait until the bot is done with ada's last command, role changes after its answer
    included: ada's commands run one after another, so the answer to one more (a read) comes
    after them."""
    listed = await club.say(club.ada, "band", arguments="list")
    assert listed.plain.startswith("Rating bands of main"), (listed.kind, listed.plain)


def patches(club: DiscordClub) -> list[tuple[str, str]]:
    """Every request that changed (or tried to change) a member of the server."""
    return [(method, path) for method, path in club.dc.requests
            if method == "PATCH" and path.startswith(f"/guilds/{GUILD}/members/")]


@pytest.mark.parametrize(("permissions", "position", "may"), [
    (MANAGE_GUILD, 5, False),  # a moderator, but without Manage Roles
    (MANAGE_GUILD | MANAGE_ROLES, 1, False),  # Manage Roles, her highest role below Gold
    (MANAGE_GUILD | MANAGE_ROLES, 5, True),  # above Gold: she may give it, so a band may
])
async def test_a_band_cannot_give_a_role_its_moderator_could_not_give(
        club: DiscordClub, permissions: int, position: int, may: bool) -> None:
    """A club's moderator need not manage the server's roles: a band's role must be one they
    may give themselves (Manage Roles, below their highest role), else it is refused, naming
    the role, with nothing written and no request to change roles."""
    managers = club.guild.roles[MANAGERS]
    managers.permissions, managers.position = permissions, position
    bot = await club.bot().start()
    try:
        await club.register(club.alice)  # the club exists
        before = events(club.folder)
        answer = await club.say(club.ada, "band", arguments=f"add Gold 1610 <@&{GOLD}>")
        if may:
            assert answer.plain == (f"Band Gold added to main: from a rating of 1610, with the "
                                    f"role <@&{GOLD}>.")
            assert events(club.folder) == before + 1
        else:
            assert (answer.plain, answer.ephemeral) == (
                "You cannot give the role Gold yourself (it needs Manage Roles and a role "
                "below your highest), so a band cannot give it. Nothing changed.", True)
            assert events(club.folder) == before
        assert patches(club) == []
    finally:
        assert await bot.stop() == 0


async def test_band_roles_checked_synced_followed_and_paused(club: DiscordClub) -> None:
    alice, bob, carol = club.alice, club.bob, club.carol
    bot = await club.bot().start()
    try:
        assert (await club.say(club.ada, "system", name="elo")).plain == (
            "Ladder main now uses elo (defaults); every game was re-rated.")
        await club.register(alice, bob, carol)
        for winner, loser in ((alice, bob), (alice, carol)):
            await club.say(club.ada, "report", player=winner, opponent=loser, result="win")
        # alice 1631, bob 1584, carol 1585

        # A role above the bot's own: refused, naming it; nothing written, nothing sent.
        before = events(club.folder)
        refused = await club.say(club.ada, "band", arguments=f"add Top 1700 <@&{ADMINS}>")
        assert refused.plain == ("I cannot give the role Admins: it is not below my highest "
                                 "role (clubrating). Nothing changed.")
        assert refused.ephemeral
        assert events(club.folder) == before
        assert patches(club) == []

        added = await club.say(club.ada, "band", arguments=f"add Gold 1610 <@&{GOLD}>")
        assert added.plain == (f"Band Gold added to main: from a rating of 1610, with the "
                               f"role <@&{GOLD}>.")
        await club.say(club.ada, "band", arguments=f"add Silver 1580 <@&{SILVER}>")
        preview = await club.say(club.ada, "band", arguments="preview")
        assert preview.plain == ("Band roles of main (preview; /band sync applies it):\n"
                                 "alice gains @Gold\nbob gains @Silver\ncarol gains @Silver")
        assert patches(club) == []
        synced = await club.say(club.ada, "band", arguments="sync")
        assert synced.plain == "Band roles of main: 3 members changed."
        assert club.dc.role_edits == [(GUILD, alice.id, [GOLD]), (GUILD, bob.id, [SILVER]),
                                      (GUILD, carol.id, [SILVER])]
        assert len(patches(club)) == 3

        # bob beats alice: alice 1613 keeps Gold, bob 1602 keeps Silver: no request
        await club.say(club.ada, "report", player=bob, opponent=alice, result="win")
        # carol beats alice: alice 1596, 14 below Gold and within its 25, keeps it
        await club.say(club.ada, "report", player=carol, opponent=alice, result="win")
        await settled(club)
        assert len(patches(club)) == 3
        # bob beats alice again: alice 1580 loses Gold for Silver, bob 1618 reaches Gold: one
        # request each, with the whole new list of roles
        report = await club.say(club.ada, "report", player=bob, opponent=alice, result="win")
        assert report.plain.splitlines()[1:] == ["bob: 1602 -> 1618", "alice: 1596 -> 1580"]
        await settled(club)
        assert club.dc.role_edits[3:] == [(GUILD, alice.id, [SILVER]), (GUILD, bob.id, [GOLD])]
        assert len(patches(club)) == 5

        # Gold moved above the bot's role in the server's settings (the bot was not told), and
        # everyone's roles taken by hand: the sync gives alice Silver, then Discord refuses
        # bob's Gold: it stops there (carol is not tried) and the ladder's roles are paused.
        club.guild.roles[GOLD].position = 7
        for member in (alice, bob, carol):
            member.roles = []
        stopped = await club.say(club.ada, "band", arguments="sync")
        assert stopped.plain == (
            "Discord refused to change the roles of bob (@Gold): the band roles of main are "
            "paused after 1 member changed. Check that I have Manage Roles and that my highest "
            "role is above the band roles, then send /band sync.")
        assert club.dc.role_edits[5:] == [(GUILD, alice.id, [SILVER])]
        assert len(patches(club)) == 7  # alice's, and bob's refused
        assert [e[0] for e in club.dc.errors].count(403) == 1
        # paused: a game that changes bands sends nothing
        await club.say(club.ada, "report", player=carol, opponent=bob, result="win")
        await settled(club)
        assert len(patches(club)) == 7
        # Gold back below the bot's role: /band sync resumes and gives what is due
        club.guild.roles[GOLD].position = 3
        resumed = await club.say(club.ada, "band", arguments="sync")
        # carol's win over bob (1602 to 1619) gave her Gold; bob (1601) keeps his within 25
        assert resumed.plain == "Band roles of main: 2 members changed."
        assert club.dc.role_edits[6:] == [(GUILD, bob.id, [GOLD]), (GUILD, carol.id, [GOLD])]
        assert [e[0] for e in club.dc.errors].count(403) == 1

        # Silver moved above the bot's role: the next game that moves a member to or from
        # Silver is refused by Discord; the ladder's roles pause and the moderators are told
        # once, in the channel; the games after it send nothing and tell nothing.
        club.guild.roles[SILVER].position = 7
        report = await club.say(club.ada, "report", player=alice, opponent=bob, result="win")
        # bob at 1584: one below Gold's 1585, so Silver: his change takes and gives Silver
        assert report.plain == ("Game #7 recorded: alice beat bob.\nalice: 1580 -> 1597\n"
                                "bob: 1601 -> 1584")
        told = await club.dc.output(10.0)
        assert told.kind == "post" and told.plain == (
            f"The band roles of main are paused: Discord refused to change the role "
            f"<@&{SILVER}>. Check that I have Manage Roles and that my highest role is above "
            f"the band roles, then send /band sync.")
        refused_so_far = len(patches(club))
        await club.say(club.ada, "report", player=carol, opponent=alice, result="win")
        await club.say(club.ada, "report", player=bob, opponent=alice, result="win")
        await settled(club)
        assert len(patches(club)) == refused_so_far
        assert [post.plain for post in club.posts()] == [told.plain]
        assert [e[0] for e in club.dc.errors].count(403) == 2
    finally:
        assert await bot.stop() == 0
