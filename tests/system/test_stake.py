"""The points at stake (issue 38) through ``clubrating run``: on the console, on the fake Bot
API and on the fake Discord.

On the console, an Elo ladder (``blitz``, K 32, adults start at 1600): /stake, then the game
reported (its answer shows the same lines) and confirmed, and each member's shown rating after
minus before is the stake's number for that result, exactly; the same for a team game on the
companion ``blitz-teams``; ``show_stake off`` takes the lines off reports and challenges; bad
input is refused in one short sentence and leaves the log as it was. On Telegram, a report
confirmed with the button moves each rating by its stake; on Discord, the ``stake`` slash
command with a member and typed sides."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from .clubs import FRIDAY, DiscordClub, TelegramClub, button, mention
from .process import FakeClock, environment
from .test_puzzles_console import ConsoleChat, console

#: a stake line: name, win, draw, loss, the side's chance to win
STAKE_LINE = re.compile(r"^(\w+): ([+-]\d+|0) / ([+-]\d+|0) / ([+-]\d+|0) \(win \d+%\)$")
#: a change line of a confirmed game: name, shown rating before, after
CHANGE_LINE = re.compile(r"^(\w+): (\d+)\?? -> (\d+)\??$")
WIN, DRAW, LOSS = 0, 1, 2


def stakes(shown: str) -> dict[str, tuple[int, int, int]]:
    """Each member's win, draw and loss from an answer's stake lines."""
    return {m[1]: (int(m[2]), int(m[3]), int(m[4]))
            for m in map(STAKE_LINE.match, shown.splitlines()) if m}


def moved(shown: str) -> dict[str, int]:
    """Each member's shown rating after minus before, from a confirmation's change lines."""
    return {m[1]: int(m[3]) - int(m[2]) for m in map(CHANGE_LINE.match, shown.splitlines()) if m}


def log_size(folder: Path) -> int:
    """How many events the club's log holds (the bot keeps running: its WAL is read too)."""
    with sqlite3.connect(folder / "club.db") as db:
        (count,) = db.execute("SELECT count(*) FROM events").fetchone()
    db.close()
    return int(count)


async def refused(chat: ConsoleChat, folder: Path, line: str) -> str:
    """``line``'s one-line answer, checked to have written nothing."""
    before = log_size(folder)
    answer = await chat.say(line)
    assert log_size(folder) == before, (line, answer)
    return answer


async def test_the_stake_is_the_change_once_confirmed_on_the_console(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, FRIDAY))
    async with console(env) as chat:
        for name in ("ann", "ben", "cid", "dan", "eve"):
            await chat.say(f"/as {name}")
            await chat.say("/register")
        await chat.say("/as mod!")
        assert await chat.say("/ladder create blitz elo") == (
            "Ladder blitz created with the elo system.")
        await chat.say("/report @dan @cid win ladder=blitz", 3)  # dan 1616, cid 1584
        await chat.say("/report @ann @eve win ladder=blitz", 3)  # ann 1616, eve 1584
        # ann 1616 against cid 1584: E = 1 / (1 + 10^(-32/400)) = 0.546, K 32
        await chat.say("/as ann")
        asked = await chat.say("/stake @cid ladder=blitz", 3)
        assert asked == "\n".join([
            "At stake on blitz (win / draw / loss):",
            "ann: +15 / -1 / -17 (win 55%)",
            "cid: +17 / +1 / -15 (win 45%)"])
        reported = await chat.say("/report @cid win ladder=blitz", 4)
        assert reported.splitlines()[2:] == asked.splitlines()[1:]  # the same lines
        await chat.say("/as cid")
        confirmed = await chat.say("/confirm", 3)
        assert confirmed == "Game #3 confirmed: ann beat cid.\nann: 1616 -> 1631\ncid: 1584 -> 1569"
        seen = stakes(asked)
        assert moved(confirmed) == {"ann": seen["ann"][WIN], "cid": seen["cid"][LOSS]}

        # a team game on the companion blitz-teams, once its four have team ratings
        await chat.say("/as mod!")
        await chat.say("/report @ann @eve vs @cid @dan win ladder=blitz", 5)
        await chat.say("/as ann")
        asked = await chat.say("/stake @cid @dan with @eve ladder=blitz", 5)
        assert asked == "\n".join([
            "At stake on blitz-teams (win / draw / loss):",
            "ann: +15 / -1 / -17 (win 55%)",
            "eve: +15 / -1 / -17 (win 55%)",
            "cid: +17 / +1 / -15 (win 45%)",
            "dan: +17 / +1 / -15 (win 45%)"])
        reported = await chat.say("/report @cid @dan with @eve loss ladder=blitz", 6)
        assert reported.splitlines()[2:] == asked.splitlines()[1:]
        await chat.say("/as dan")
        confirmed = await chat.say("/confirm", 5)
        seen = stakes(asked)
        assert moved(confirmed) == {"ann": seen["ann"][LOSS], "eve": seen["eve"][LOSS],
                                    "cid": seen["cid"][WIN], "dan": seen["dan"][WIN]}
        assert moved(confirmed) == {"ann": -17, "eve": -17, "cid": 17, "dan": 17}

        # show_stake off: a report's two lines and a challenge's one, nothing after them (the
        # next answer's first line is its own)
        await chat.say("/as mod!")
        assert await chat.say("/set show_stake off ladder=blitz") == (
            "show_stake of blitz is now no.")
        await chat.say("/as ann")
        assert (await chat.say("/report @eve win ladder=blitz", 2)).startswith("Game #6: ")
        assert (await chat.say("/challenge @dan ladder=blitz")).startswith("ann challenges dan")
        assert await chat.say("/stake @zed") == (
            "There is no member called zed. /top lists everyone.")
        await chat.say("/as mod!")
        assert await chat.say("/set show_stake on ladder=blitz") == (
            "show_stake of blitz is now yes.")
        await chat.say("/as cid")
        assert (await chat.say("/challenge @eve ladder=blitz", 3)).splitlines()[1:] == [
            "cid: +17 / +1 / -15 (win 48%)", "eve: +15 / -1 / -17 (win 52%)"]
        await chat.say("/as mod!")
        assert await chat.say("/retire @ben") == "ben is retired from main."

        # bad input: one short sentence each, the log as it was
        await chat.say("/as ann")
        assert await refused(chat, tmp_path, "/stake @ann ladder=blitz") == (
            "A stake needs an opponent: name another member, not yourself.")
        assert await refused(chat, tmp_path, "/stake @zed") == (
            "There is no member called zed. /top lists everyone.")
        assert await refused(chat, tmp_path, "/stake @cid ladder=nope") == (
            "There is no ladder nope. Ladders: blitz, blitz-teams, main.")
        assert await refused(chat, tmp_path, "/stake @ben") == (
            "ben is retired on ladder main: /return them first.")
        assert await refused(chat, tmp_path, "/stake @cid @dan @eve with @ben ladder=blitz") == (
            "Sides of 2 and 3 members: ladder blitz rates only even sides "
            "(/set uneven_teams on).")


# -- Telegram ---------------------------------------------------------------------------------


async def test_a_report_confirmed_with_the_button_moves_each_rating_by_its_stake(
        telegram: TelegramClub) -> None:
    club = telegram
    bot = await club.bot().start()
    try:
        await club.register(club.alice, club.bob, club.carol)
        assert (await club.say(club.ada, "/ladder create blitz elo")).plain == (
            "Ladder blitz created with the elo system.")
        recorded = await club.say(club.ada, "/report @alice @carol win ladder=blitz")
        assert recorded.plain.splitlines()[1:] == ["alice: - -> 1616", "carol: - -> 1584"]
        asked = await club.say(club.alice, "/stake @bob ladder=blitz")
        # bob, new to blitz, starts as elo starts an adult: 1600
        assert asked.plain == "\n".join([
            "At stake on blitz (win / draw / loss):",
            "alice: +15 / -1 / -17 (win 52%)",
            "bob: +17 / +1 / -15 (win 48%)"])
        report = await club.say(club.alice, "/report @bob draw ladder=blitz")
        assert report.plain.splitlines()[2:] == asked.plain.splitlines()[1:]
        confirmed = await club.press(club.bob, report, button(report, "Confirm"))
        assert confirmed.kind == "edit"
        assert confirmed.plain == (
            "Game #2 confirmed: alice drew with bob.\nalice: 1616 -> 1615\nbob: - -> 1601")
        assert stakes(asked.plain) == {"alice": (15, -1, -17), "bob": (17, 1, -15)}
        refusal = await club.say(club.alice, "/stake @alice")
        assert refusal.plain == "A stake needs an opponent: name another member, not yourself."
        # a challenge shows its stake too, under its buttons' question (carol 1584, bob 1601)
        challenge = await club.say(club.carol, "/challenge @bob ladder=blitz")
        assert challenge.plain.splitlines()[1:] == [
            "carol: +17 / +1 / -15 (win 48%)", "bob: +15 / -1 / -17 (win 52%)"]
        assert [label for row in challenge.buttons for label, _ in row] == ["Accept", "Decline"]
    finally:
        assert await bot.stop() == 0


# -- Discord ----------------------------------------------------------------------------------


async def test_the_stake_slash_command_with_a_member_and_typed_sides(
        discord: DiscordClub) -> None:
    club = discord
    bot = await club.bot().start()
    try:
        await club.register(club.ada, club.alice, club.bob, club.carol)
        asked = await club.say(club.alice, "stake", member=club.bob)
        assert asked.plain == "\n".join([
            "At stake on main (win / draw / loss):",
            "alice: +53 / 0 / -53 (win 50%)",
            "bob: +53 / 0 / -53 (win 50%)"])
        team = await club.say(club.alice, "stake", member=club.bob,
                              sides=f"{mention(club.carol)} with {mention(club.ada)}")
        assert team.plain.splitlines() == [
            "At stake on main-teams (win / draw / loss):",
            "alice: +53 / 0 / -53 (win 50%)",
            "ada: +53 / 0 / -53 (win 50%)",
            "bob: +53 / 0 / -53 (win 50%)",
            "carol: +53 / 0 / -53 (win 50%)"]
        report = await club.say(club.alice, "report", result="loss", opponent=club.bob)
        assert report.plain.splitlines()[2:] == asked.plain.splitlines()[1:]
        confirmed = await club.press(club.bob, report, button(report, "Confirm"))
        assert confirmed.plain.splitlines() == [
            "Game #1 confirmed: bob beat alice.", "alice: 1500 -> 1447?", "bob: 1500 -> 1553?"]
        refusal = await club.say(club.alice, "stake", member=club.alice)
        assert refusal.plain == "A stake needs an opponent: name another member, not yourself."
        assert club.dc.errors == []
    finally:
        assert await bot.stop() == 0
