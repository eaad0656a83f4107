"""Issue 35's "done when", in one ``clubrating run`` process: a Telegram group (the fake Bot API)
and a Discord server (the fake Discord) linked into one club, the public web leaderboard served
by the same process (``CLUBRATING_WEB_LISTEN`` on 127.0.0.1), its clock libfaketime's.

A Telegram member and a Discord member link their accounts; a game reported on Telegram is
confirmed with the Confirm button of its copy on Discord, and one reported on Discord with the
button of its copy in the Telegram group; both chats' /top agree; the ladder made public shows
the same table on the web (its JSON and its page); made private again, it is a 404, the page of
an address nobody has.
"""

from __future__ import annotations

import json

import aiohttp

from .clubs import button
from .test_linked_club import Linked, code_in
from .test_linked_club import linked as linked  # the fixture: an explicit re-export
from .test_web import TOP_ROW, answering, board_rows, fetch, free_port, page_rows


def rows(board: list[str]) -> list[tuple[int, str, int, bool, int]]:
    """A /top's rows (title left out): rank, name, rating, provisional, games."""
    parsed = []
    for line in board:
        found = TOP_ROW.match(line)
        assert found is not None, board
        parsed.append((int(found[1]), found[2], int(found[3]), found[4] == "?",
                       int(found[5])))
    return parsed


async def test_two_platforms_one_club_one_board_on_the_web(linked: Linked) -> None:
    tg, dc = linked.telegram, linked.discord
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bot = await linked.bot(CLUBRATING_WEB_LISTEN=f"127.0.0.1:{port}").start()
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
            await answering(http, base, bot)
            status, missing, _ = await fetch(http, f"{base}/l/main.json")
            assert status == 404  # nothing is public yet: what an unknown address shows

            # 1. alice and bob in the Telegram group, carol on the Discord server, no games.
            await tg.register(tg.alice, tg.bob)
            await dc.register(dc.carol)

            # 2. The chats linked: ada's code (sent to her privately), used on Discord.
            private = tg.tg.private(tg.ada)
            assert await linked.in_group(tg.ada, "/link") == (
                "I sent you the code in our private chat.")
            code = code_in(tg.tg.outputs(private)[-1].plain)
            assert await linked.ephemeral(dc.ada, "link", arguments=code) == (
                "This chat is now part of the club: one ladder, one log. "
                "1 member joined from here.")

            # 3. alice's Discord account (never registered there) becomes her Telegram one.
            alices = code_in(await linked.ephemeral(dc.alice, "link", arguments="me"))
            assert await linked.in_group(tg.alice, f"/link me {alices}") == (
                "Linked: both accounts are alice now.")

            # 4. bob reports on Telegram; carol confirms with the Confirm button of the copy
            # posted on Discord.
            reported = await linked.in_group(tg.bob, "/report @carol loss")
            asked = "Game #1: carol beat bob. carol, please /confirm or /dispute."
            assert reported.startswith(asked), reported
            [post] = await dc.next_posts(1)
            assert post.plain.startswith(asked), post.plain
            pressed = await dc.press(dc.carol, post, button(post, "Confirm"))
            assert pressed.plain.startswith("Game #1 confirmed: carol beat bob."), pressed.plain

            # 5. carol reports on Discord against alice (her Discord account, picked in the
            # member picker); alice confirms with the button of the copy in the Telegram group.
            there = await linked.on_discord(dc.carol, "report", opponent=dc.alice,
                                            result="loss")
            asked = "Game #2: alice beat carol. alice, please /confirm or /dispute."
            assert there.plain.startswith(asked), there.plain
            forwarded = await tg.tg.reply(tg.group, 10.0)
            assert forwarded.plain.startswith(asked), forwarded.plain
            confirmed = await tg.press(tg.alice, forwarded, button(forwarded, "Confirm"))
            assert confirmed.plain.startswith("Game #2 confirmed: alice beat carol."), (
                confirmed.plain)

            # 6. Both chats' /top: one table.
            telegram, discord = await linked.boards()
            top = rows(telegram)
            assert rows(discord) == top
            assert top == [(1, "alice", 1543, True, 1), (2, "carol", 1498, True, 2),
                           (3, "bob", 1447, True, 1)], telegram

            # 7. The ladder made public: the web's JSON and page show that table.
            assert await linked.in_group(tg.ada, "/set public on") == (
                "Ladder main is public at /l/main.")
            status, body, headers = await fetch(http, f"{base}/l/main.json")
            assert status == 200 and headers["Content-Type"].startswith("application/json")
            board = json.loads(body)
            assert board["ladder"] == "main" and board_rows(board) == top
            status, page, _ = await fetch(http, f"{base}/l/main")
            assert status == 200
            assert page_rows(page) == [row[:4] for row in top]
            status, profile, _ = await fetch(http, f"{base}/l/main/p/alice")
            assert status == 200 and "alice on main" in profile

            # 8. Private again, from Discord: a 404 at once, as an address nobody has.
            private_again = await linked.on_discord(dc.ada, "set", key="public", value="off")
            assert private_again.plain == (
                "Ladder main is private again: /l/main shows nothing."), private_again.plain
            for path in ("/l/main.json", "/l/main", "/l/main/p/alice"):
                status, body, _ = await fetch(http, f"{base}{path}")
                assert (status, body) == (404, missing), path
            status, unknown, _ = await fetch(http, f"{base}/l/nobody")
            assert (status, unknown) == (404, missing)
        # The group saw the journey's answers alone: the Discord server's /set not among them.
        assert [o.plain.splitlines()[0] for o in tg.tg.outputs(tg.group)] == [
            "Welcome, alice! You are on the main ladder.",
            "Welcome, bob! You are on the main ladder.",
            "I sent you the code in our private chat.", "Linked: both accounts are alice now.",
            "Game #1: carol beat bob. carol, please /confirm or /dispute.",
            "Game #2: alice beat carol. alice, please /confirm or /dispute.",
            "Game #2 confirmed: alice beat carol.", "main ladder",
            "Ladder main is public at /l/main."]
        assert tg.tg.errors == [] and dc.dc.errors == [] and dc.dc.pending_outputs() == 0
    finally:
        assert await bot.stop() == 0
    assert "Traceback" not in bot.text(), bot.text()[-4000:]
