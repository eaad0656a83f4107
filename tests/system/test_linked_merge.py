"""A chat with games joining a club, and a chat leaving it (issue 35), through ``clubrating
run`` serving a Telegram group on the fake Bot API and a Discord server on the fake Discord.

Both chats have played: the Telegram group (alice beat bob, on Friday) and the Discord server
(carol beat alice's namesake, a little later). ``/link CODE`` alone is refused, naming the games;
``/link CODE merge`` previews what merging would change (only ada sees it, with Apply and
Cancel), and ``/apply`` merges: the server's game is rated after the group's, by date, and
both chats show one table, and a member of the server names one of the group in a report.
``/unlink`` on the server then previews leaving, and its Apply
button splits the server off: the club keeps every game, the server starts empty."""

from __future__ import annotations

from .clubs import button
from .test_linked_club import Linked, code_in, linked  # noqa: F401 (the fixture)


async def test_a_server_with_games_merges_into_the_club_and_leaves_again(
        linked: Linked) -> None:  # noqa: F811
    tg, dc = linked.telegram, linked.discord
    bot = await linked.bot().start()
    try:
        # 1. Each chat has a game: the group's first, the server's a little later.
        await tg.register(tg.alice, tg.bob)
        report = await tg.say(tg.alice, "/report @bob win")
        await tg.press(tg.bob, report, button(report, "Confirm"))
        await dc.register(dc.carol, dc.alice)
        recorded = await dc.say(dc.ada, "report", player=dc.carol, opponent=dc.alice,
                                result="win")
        assert "recorded" in recorded.plain, recorded.plain
        alone = await linked.boards()

        # 2. ada's code, from the group, in her private chat with the bot.
        tg.tg.private(tg.ada)
        assert await linked.in_group(tg.ada, "/link") == (
            "I sent you the code in our private chat.")
        code = code_in(tg.tg.outputs(tg.tg.private(tg.ada))[-1].plain)

        # 3. Without merge the server is refused, naming its game; with merge ada sees what
        # it would change, and nothing has changed yet.
        assert await linked.ephemeral(dc.ada, "link", arguments=code) == (
            "This chat has 1 game of its own: /link CODE merge shows what merging its history "
            "into the club would change.")
        preview = await linked.on_discord(dc.ada, "link", arguments=f"{code} merge")
        assert preview.ephemeral and preview.plain.splitlines()[0] == (
            "Merging this chat into the club (preview): 1 game on main, rated among the "
            "club's by date, and 2 new members. Ratings that change:"), preview.plain
        assert button(preview, "Apply") and button(preview, "Cancel")
        assert await linked.boards() == alone

        # 4. /apply merges: one table in both chats, the server's alice beside the group's.
        applied = await linked.on_discord(dc.ada, "apply")
        assert applied.plain.startswith(
            "This chat is now part of the club: 1 game merged, 2 members joined from here."), (
            applied.plain)
        telegram, discord = await linked.boards()
        assert telegram == discord and len(telegram) == 4, (telegram, discord)
        assert sorted(line.split()[1] for line in telegram) == [
            "alice", "alice", "bob", "carol"]
        assert any("(Discord)" in line for line in telegram), telegram

        # 5. carol, on the server, reports a win over bob, who has no Discord account: she
        # names him (Discord's member picker offers only the server's members); he is asked
        # in the group, and confirms with its button there.
        named = await linked.on_discord(dc.carol, "report", result="win", name="bob")
        asked = "Game #3: carol beat bob. bob, please /confirm or /dispute."
        assert named.plain.startswith(asked), named.plain
        forwarded = await tg.tg.reply(tg.group, 10.0)
        assert forwarded.plain.startswith(asked), forwarded.plain
        confirmed = await tg.press(tg.bob, forwarded, button(forwarded, "Confirm"))
        assert confirmed.plain.startswith("Game #3 confirmed: carol beat bob."), confirmed.plain
        telegram, discord = await linked.boards()
        assert telegram == discord

        # 6. /unlink on the server: a preview for all to read, with Apply and Cancel; Apply.
        unlink = await linked.on_discord(dc.ada, "unlink")
        assert unlink.plain == (
            "Unlinking this chat (preview): the club keeps its 3 games and 4 members, and its "
            "other chats. This chat starts as an empty club of its own: /export first what "
            "you want to keep."), unlink.plain
        left = await dc.press(dc.ada, unlink, button(unlink, "Apply"))
        assert left.plain == ("This chat has left the club and starts empty. The club keeps "
                              "its 3 games and 4 members."), left.plain
        assert (await linked.in_group(tg.bob, "/top")).splitlines()[1:] == telegram
        empty = await linked.on_discord(dc.carol, "top")
        assert "carol" not in empty.plain and "alice" not in empty.plain, empty.plain
        audit = await linked.in_group(tg.ada, "/audit")
        assert "unlinked the Discord chat" in audit, audit
        assert dc.dc.errors == []
    finally:
        assert await bot.stop() == 0
