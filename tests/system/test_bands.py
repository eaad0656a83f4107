"""Rating bands (issue 38) through ``clubrating run`` on the console: a ladder's bands with the
hysteresis of 25 on a scripted sequence of results, restarted in between (a band is no stored
state: the replay gives it again), shown by /rating, /top, /band list and the weekly post; the
moderators' bad input refused, one short answer each, with the log unchanged.

The ladder is rated by Elo (K = 32, everyone from 1600, nobody provisional), so each number
below is Elo's arithmetic: Gold from 1610, Silver from 1590; a band is kept down to 25 points
below its minimum (Gold to 1585, Silver to 1565)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .clubs import FRIDAY
from .process import FakeClock, environment
from .test_puzzles_console import console

BANDS = "\n".join([
    "Rating bands of elo, each kept until the rating is 25 points below its minimum:",
    "Gold: from 1610, {gold}",
    "Silver: from 1590, {silver}",
])


def events(folder: Path) -> int:
    """How many events the club's log holds."""
    with sqlite3.connect(folder / "club.db") as db:
        count = int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    db.close()
    return count


async def test_bands_follow_a_scripted_season_with_hysteresis(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, FRIDAY))
    async with console(env) as chat:
        for name in ("ann", "ben", "cid"):
            await chat.say(f"/as {name}")
            await chat.say("/register")
        await chat.say("/as mod!")
        assert await chat.say("/ladder create elo elo") == (
            "Ladder elo created with the elo system.")
        assert await chat.say("/band add Gold 1610 ladder=elo") == (
            "Band Gold added to elo: from a rating of 1610.")
        assert await chat.say("/band add Silver 1590 ladder=elo") == (
            "Band Silver added to elo: from a rating of 1590.")
        assert await chat.say("/report @ann @ben win ladder=elo", 3) == (
            "Game #1 recorded: ann beat ben.\nann: - -> 1616\nben: - -> 1584")
        assert await chat.say("/report @ann @cid win ladder=elo", 3) == (
            "Game #2 recorded: ann beat cid.\nann: 1616 -> 1631\ncid: - -> 1585")
        assert await chat.say("/rating @ann ladder=elo", 2) == (
            "ann (elo): 1631, rank 1, 2 games (2W 0D 0L), peak 1631, recent W W\nBand: Gold")
    async with console(env) as chat:  # started again: the bands are the replay's
        await chat.say("/as mod!")
        assert await chat.say("/report @ann @ben loss ladder=elo", 3) == (
            "Game #3 recorded: ben beat ann.\nann: 1631 -> 1613\nben: 1584 -> 1602")
        assert await chat.say("/report @ann @cid loss ladder=elo", 3) == (
            "Game #4 recorded: cid beat ann.\nann: 1613 -> 1596\ncid: 1585 -> 1602")
        # ann at 1596: 14 below Gold's minimum, within the 25 she keeps it by
        assert await chat.say("/top elo", 4) == (
            "elo ladder\n"
            "  1. ben       1602  2 games  [Silver]\n"
            "  2. cid       1602  2 games  [Silver]\n"
            "  3. ann       1596  4 games  [Gold]")
        assert await chat.say("/report @ann @ben loss ladder=elo", 3) == (
            "Game #5 recorded: ben beat ann.\nann: 1596 -> 1580\nben: 1602 -> 1618")
        # ann at 1580: 5 below Gold's 1585, and below Silver's 1590: no band at all
        assert await chat.say("/top elo", 4) == (
            "elo ladder\n"
            "  1. ben       1618  3 games  [Gold]\n"
            "  2. cid       1602  2 games  [Silver]\n"
            "  3. ann       1580  5 games")
    async with console(env) as chat:
        await chat.say("/as mod!")
        assert await chat.say("/report @ann @cid win ladder=elo", 3) == (
            "Game #6 recorded: ann beat cid.\nann: 1580 -> 1597\ncid: 1602 -> 1585")
        assert await chat.say("/report @ann @ben loss ladder=elo", 3) == (
            "Game #7 recorded: ben beat ann.\nann: 1597 -> 1582\nben: 1618 -> 1633")
        # ann reached Silver at 1597 and keeps it at 1582; cid keeps his at 1585
        assert await chat.say("/top elo", 4) == (
            "elo ladder\n"
            "  1. ben       1633  4 games  [Gold]\n"
            "  2. cid       1585  3 games  [Silver]\n"
            "  3. ann       1582  7 games  [Silver]")
        assert await chat.say("/band list ladder=elo", 3) == BANDS.format(
            gold="1 member", silver="2 members")
        digest = (await chat.say("/digest elo", 7)).splitlines()
        assert digest[-1].startswith("Also counted since")  # the post's last line
        assert digest[1:4] == [
            "  1. ben       1633    new  4 games  [Gold]",
            "  2. cid       1585    new  3 games  [Silver]",
            "  3. ann       1582    new  7 games  [Silver]"]
        # without hysteresis the bands are the highest each rating reaches
        assert await chat.say("/set band_hysteresis 0 ladder=elo") == (
            "band_hysteresis of elo is now 0.")
        assert await chat.say("/band list ladder=elo", 3) == BANDS.replace(
            "25 points", "0 points").format(gold="1 member", silver="0 members")


async def test_bad_bands_are_refused_with_the_log_unchanged(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, FRIDAY))
    async with console(env) as chat:
        await chat.say("/as ann")
        await chat.say("/register")
        await chat.say("/as mod!")
        await chat.say("/band add Gold 1400")
        before = events(tmp_path)
        for line, refusal in [
            ("/band add Low -1",
             "A band's minimum rating is a whole number from 0 to 4000 (not -1)."),
            ("/band add High 4001",
             "A band's minimum rating is a whole number from 0 to 4000 (not 4001)."),
            ("/band add Other 1400",
             "The band Gold starts at 1400 already: two bands cannot start at the same rating."),
            ("/band add GOLD 1500", "main has a band GOLD already."),
            ("/band remove Silver", "main has no band Silver (its bands: Gold)."),
            ("/band add Role 1500 <@&123>",
             "Bands carry roles on Discord only: add the band without a role here."),
            ("/band preview", "Band roles are Discord's: here a band shows beside the rating."),
            ("/set band_hysteresis -5",
             "band_hysteresis takes rating points from 0 to 1000 (not -5)."),
        ]:
            assert await chat.say(line) == refusal, line
        await chat.say("/as ann")
        assert await chat.say("/band add Mine 1000") == "Only moderators can do that."
        assert await chat.say("/band remove Gold") == "Only moderators can do that."
    assert events(tmp_path) == before
