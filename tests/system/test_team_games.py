"""Team and doubles games (issue 37) through ``clubrating run``: on the console (restarted in
between), on the fake Bot API and on the fake Discord, and on a database an earlier build wrote.

A 2 v 2 is reported by one side and confirmed by one member of the other (a partner's
confirmation is refused); the game is rated on the companion ladder ``main-teams`` and shown as
``ann & ben beat cid & dan`` everywhere; a moderator records a 2 v 3 once ``uneven_teams`` is on
and corrects the sides of the first game. ``clubrating export`` of the companion, replayed with
``--set uneven_teams=on team_size_handicap=N``, gives exactly the ratings the bot shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .clubs import FRIDAY, DiscordClub, TelegramClub, button, mention
from .process import FakeClock, clubrating, environment
from .test_puzzles_console import console
from .test_upgrade import BOARDS, EXPORT, earlier_build

#: what the four see once cid confirms ann's report of ann & ben beating cid & dan: newcomers
#: of the club default, each side's expected score one half, each member by their own K
CONFIRMED = """\
Game #1 confirmed: ann & ben beat cid & dan.
ann: - -> 1553?
ben: - -> 1553?
cid: - -> 1447?
dan: - -> 1447?"""


def board(shown: str) -> dict[str, str]:
    """A leaderboard's rating by name (``  1. ann  1553?  1 game``)."""
    return {m[1]: m[2] for m in re.finditer(r"^\s*\d+\. (\S+)\s+(\S+)\s+\d+ games?$", shown,
                                             re.MULTILINE)}


def replayed(env: dict[str, str], folder: Path, ladder: str, *settings: str) -> dict[str, str]:
    """``clubrating export`` of ``ladder`` replayed with ``--set settings``: each player's
    rating as a leaderboard shows it (whole points, ``?`` while provisional)."""
    events = folder / f"{ladder}.csv"
    exported = clubrating(env, "export", "--chat", "console:local", "--ladder", ladder,
                          "--output", str(events))
    assert exported.returncode == 0, exported.stderr
    done = clubrating(env, "replay", *(arg for s in settings for arg in ("--set", s)),
                      str(events))
    assert done.returncode == 0, done.stderr
    return {p["player"]: f"{p['rating']:.0f}" + ("?" if p["provisional"] else "")
            for p in json.loads(done.stdout)["players"]}


async def test_a_team_season_on_the_console_with_restarts(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, FRIDAY))
    async with console(env) as chat:
        for name in ("ann", "ben", "cid", "dan", "eve"):
            await chat.say(f"/as {name}")
            await chat.say("/register")
        await chat.say("/as ann")
        reported = await chat.say("/report @cid @dan with @ben win", 6)
        assert reported.splitlines()[0] == (
            "Game #1: ann & ben beat cid & dan. cid & dan, please /confirm or /dispute.")
        assert reported.splitlines()[1].startswith("Ladder main-teams, no handicap")
        # the points at stake (issue 38): what CONFIRMED below gives each member for the win
        assert reported.splitlines()[2:] == [f"{name}: +53 / 0 / -53 (win 50%)"
                                             for name in ("ann", "ben", "cid", "dan")]
        await chat.say("/as ben")  # ann's partner: not theirs to confirm
        assert await chat.say("/confirm 1") == (
            "Game #1 is for your opponent to confirm or dispute.")
    async with console(env) as chat:  # started again: the report waits for cid or dan
        await chat.say("/as cid")
        assert await chat.say("/confirm", 5) == CONFIRMED
        await chat.say("/as ann")
        assert await chat.say("/history", 2) == (
            "ann's games on main:\n#1 Nov 20, 2026 ann & ben beat cid & dan")
        assert await chat.say("/h2h @ben with", 2) == (
            "ann with ben (main): 1W 0D 0L\n#1 Nov 20, 2026 ann & ben beat cid & dan")
        assert await chat.say("/h2h @dan", 2) == (
            "ann vs dan (main): 1W 0D 0L\n#1 Nov 20, 2026 ann & ben beat cid & dan")
        assert await chat.say("/rating", 3) == (
            "ann (main): 1500?, no games yet.\nTeam games (main-teams): 1553?, 1 game\n"
            "Latest: #1 Nov 20, 2026 ann & ben beat cid & dan")
        await chat.say("/as mod!")
        assert await chat.say("/report @ann @ben vs @cid @dan @eve loss") == (
            "Sides of 2 and 3 members: ladder main rates only even sides "
            "(/set uneven_teams on).")
        assert await chat.say("/set uneven_teams on") == "uneven_teams of main is now yes."
        assert await chat.say("/set team_size_handicap 40") == (
            "team_size_handicap of main is now 40.")
        recorded = await chat.say("/report @ann @ben vs @cid @dan @eve loss", 6)
        assert recorded.splitlines()[0] == "Game #2 recorded: cid & dan & eve beat ann & ben."
        top = board(await chat.say("/top main-teams", 6))
    assert set(top) == {"ann", "ben", "cid", "dan", "eve"}
    assert replayed(env, tmp_path, "main-teams", "uneven_teams=on",
                    "team_size_handicap=40") == top
    # without the ladder's team settings the same file is refused, naming the row
    events = tmp_path / "main-teams.csv"
    refused = clubrating(env, "replay", str(events))
    assert refused.returncode != 0
    assert "row 2, column player_b: sides of 2 and 3 members need uneven_teams=on" in (
        refused.stderr)
    async with console(env) as chat:  # a correction of the first game's sides, applied
        await chat.say("/as mod!")    # after a restart
        preview = (await chat.say("/correct 1 win sides=@ann @cid vs @ben @dan", 8)).splitlines()
        assert preview[:2] == [
            "Correcting game #1 would change:",
            "Result: ann & ben beat cid & dan -> ann & cid beat ben & dan"]
        assert preview[-1] == "Send /apply to make this correction, or /cancel."
    async with console(env) as chat:
        await chat.say("/as mod!")
        applied = (await chat.say("/apply", 7)).splitlines()
        assert applied == ["Game #1 corrected. Ratings changed:", *preview[1:-1]]
    async with console(env) as chat:
        await chat.say("/as cid")
        assert (await chat.say("/history", 3)).splitlines()[1:] == [
            "#2 Nov 20, 2026 cid & dan & eve beat ann & ben",
            "#1 Nov 20, 2026 ann & cid beat ben & dan"]
        after = board(await chat.say("/top main-teams", 6))
    assert after != top
    assert replayed(env, tmp_path, "main-teams", "uneven_teams=on",
                    "team_size_handicap=40") == after
    # the main ladder has no game: its table is its members, none rated by a game
    assert all(rating == "1500?" for rating in replayed(env, tmp_path, "main").values())


# -- Telegram ---------------------------------------------------------------------------------


async def test_a_doubles_game_on_telegram_confirmed_with_the_button(
        telegram: TelegramClub) -> None:
    club = telegram
    bot = await club.bot().start()
    try:
        await club.register(club.ada, club.alice, club.bob, club.carol)
        report = await club.say(club.alice, "/report @bob @carol with @ada win")
        assert report.plain.splitlines()[0] == (
            "Game #1: alice & ada beat bob & carol. bob & carol, please /confirm or /dispute.")
        # ada, alice's partner, cannot confirm it: a short alert, the report stays
        refused = await club.press_answer(club.ada, report, button(report, "Confirm"))
        assert refused.get("show_alert") is True
        confirmed = await club.press(club.carol, report, button(report, "Confirm"))
        assert confirmed.kind == "edit"
        assert confirmed.plain.splitlines() == CONFIRMED.replace("ann", "alice").replace(
            "ben", "ada").replace("cid", "bob").replace("dan", "carol").splitlines()
        shown = await club.say(club.bob, "/h2h @carol with")
        assert shown.plain.splitlines() == [
            "bob with carol (main): 0W 0D 1L",
            "#1 Nov 20, 2026 alice & ada beat bob & carol"]
        top = await club.say(club.bob, "/top main-teams")
        assert board(top.plain) == {"alice": "1553?", "ada": "1553?", "bob": "1447?",
                                    "carol": "1447?"}
    finally:
        assert await bot.stop() == 0


# -- Discord ----------------------------------------------------------------------------------


async def test_sides_on_discord_typed_with_mentions(discord: DiscordClub) -> None:
    club = discord
    bot = await club.bot().start()
    try:
        await club.register(club.ada, club.alice, club.bob, club.carol)
        report = await club.say(club.alice, "report", result="win", opponent=club.bob,
                                sides=f"{mention(club.carol)} with {mention(club.ada)}")
        assert report.plain.splitlines()[0] == (
            "Game #1: alice & ada beat bob & carol. bob & carol, please /confirm or /dispute.")
        refused = await club.press(club.ada, report, button(report, "Confirm"))
        assert refused.ephemeral, refused
        confirmed = await club.press(club.bob, report, button(report, "Confirm"))
        assert confirmed.plain.splitlines()[0] == (
            "Game #1 confirmed: alice & ada beat bob & carol.")
        # a moderator names sides typed with mentions, the first side's result; ada plays on
        # the second: her own game, reported from her side, waits for alice or bob
        recorded = await club.say(
            club.ada, "report", result="loss",
            sides=f"{mention(club.alice)} {mention(club.bob)} vs {mention(club.carol)} "
                  f"{mention(club.ada)}")
        assert recorded.plain.splitlines()[0] == (
            "Game #2: carol & ada beat alice & bob. alice & bob, please /confirm or /dispute.")
        partners = await club.say(club.alice, "h2h", member=club.ada, partners=True)
        assert partners.plain.splitlines()[0] == "alice with ada (main): 1W 0D 0L"
        assert club.dc.errors == []
    finally:
        assert await bot.stop() == 0


# -- an earlier build's database ------------------------------------------------------------


def test_a_database_of_an_earlier_build_keeps_its_ratings_and_takes_team_games(
        tmp_path: Path) -> None:
    """An upgrade changes nothing of a club's singles: the same boards and export as the
    earlier build showed (tests/system/test_upgrade.py), and then a team game goes to a
    companion ladder of its own, the main ladder's table and export untouched."""
    env = earlier_build(tmp_path)
    shown = clubrating(env, "run", input=(
        "/as dan\n/register\n/as mod!\n/report @alice @bob vs @carol_k @dan win\n"
        "/top\n/top blitz\n"))
    assert shown.returncode == 0, shown.stderr
    assert "Game #4 recorded: alice & bob beat carol_k & dan." in shown.stdout
    main, blitz = shown.stdout.split("main ladder\n")[1].split("blitz ladder\n")
    before_main, before_blitz = BOARDS.split("main ladder\n")[1].split("blitz ladder\n")
    assert board(main) == board(before_main) | {"dan": "1500?"}  # dan has no game there
    assert blitz == before_blitz
    exported = clubrating(env, "export", "--chat", "console:local")
    written = exported.stdout.replace("\r\n", "\n")
    assert written.startswith(EXPORT)  # the main ladder's rows as before, and dan's join
    assert re.fullmatch(r"[0-9T:.-]+,,dan,,,,join\n", written.removeprefix(EXPORT))
