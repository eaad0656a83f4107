"""Rated puzzles on a Discord server, through ``clubrating run`` against the fake Discord, its
clock moved by libfaketime (issue 34): a moderator adds three problems with ``/puzzle add:``
(one with its picture attached), members solve them in messages only they see, fast, slowly,
wrongly and not at all, and the ``tactics`` ratings of members and problems move exactly as
seed 004's rules say.

The times are chosen where the time adjustment is capped, so that the numbers are exact however
long the process takes: the adjustment is clamp(125 log2(t / 30 s), -400, +400), so an answer
within 3.26 s of the delivery counts -400 (fast: answered at once, the clock left alone) and one
after 277 s or more counts +400 (slow: the clock moved minutes on before answering). Each attempt
is rated on its own when it ends, from the ratings before it (R: the member's, P: the
problem's, a: the adjustment):

- member's estimate: P - a + 400 when solved (dropped when below R), P - a - 400 when failed
  (dropped when above R); their new rating is the estimate when kept, else R;
- problem's estimate: R + a - 400 when solved (dropped when above P), R + a + 400 when failed
  (dropped when below P).

Everyone starts at 1500, a problem at the rating it is given.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.fake_discord import FakeDiscord, Output

from .clubs import FRIDAY, GUILD, DiscordClub

#: a PNG's signature and header: what the bot's picture store and Discord look at
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + (8).to_bytes(4, "big")
       + (8).to_bytes(4, "big") + b"\x08\x02\x00\x00\x00" + b"\x00" * 40)
#: every accepted answer of the three problems
ANSWERS = ("Qh7", "Qxh7", "Nf7", "Rd8")
#: how long the process may take to read a moved clock (libfaketime: within a second)
CLOCK_READ = 2.5


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[DiscordClub]:
    async with FakeDiscord() as dc:
        yield DiscordClub.on(dc, tmp_path)


async def moved(club: DiscordClub, minutes: int) -> None:
    """The clock set to ``minutes`` after FRIDAY, the bot's start: far enough from every
    earlier instant of the test (a few real seconds each) for the margins below."""
    await jumped(club, FRIDAY + timedelta(minutes=minutes))


async def jumped(club: DiscordClub, when: datetime) -> None:
    """The clock set to ``when``, once the bot is connected again: across a jump of minutes
    discord.py finds the gateway silent for longer than it waits and connects again, and an
    interaction sent meanwhile would be lost. Until then the gateway sends an event no one
    handles, which wakes the bot's event loop."""
    dc = club.dc
    dc.identified.clear()
    club.clock.set(when)
    async with asyncio.timeout(60):
        while not dc.identified.is_set():
            await asyncio.sleep(CLOCK_READ)
            await dc.dispatch("CLUBRATING_TEST_NUDGE", {})


def leaked(outputs: list[Output]) -> list[str]:
    """The messages anyone in the channel could read that hold an accepted answer."""
    return [o.plain for o in outputs
            if o.kind in ("reply", "followup", "update", "post") and not o.ephemeral
            and any(answer.casefold() in o.plain.casefold() for answer in ANSWERS)]


async def test_three_problems_rated_fast_slow_wrong_and_timed_out(club: DiscordClub) -> None:
    bot = await club.bot().start()
    try:
        await journey(club)
        assert club.dc.errors == []
    finally:
        assert await bot.stop() == 0


async def journey(club: DiscordClub) -> None:
    dc = club.dc
    created = await club.say(club.ada, "ladder", "create", name="puzzles", system="tactics")
    assert created.plain == "Ladder puzzles created with the tactics system.", created.plain

    # -- ada adds the problems, each answer seen by her alone --------------------------------
    added = await club.say(club.ada, "puzzle", add="p1", answers="Qh7|Qxh7",
                           prompt="White to play and mate in one",
                           image=dc.attachment("mate.png", PNG))
    assert (added.ephemeral, added.plain) == (True, "Problem p1 added to puzzles with its "
                                                    "picture: 2 answers accepted, starting "
                                                    "rating 1500."), added
    [kept] = (club.folder / "pictures").iterdir()
    assert kept.read_bytes() == PNG
    added = await club.say(club.ada, "puzzle", add="p2", answers="Nf7", rating=1800,
                           prompt="Black to play and win the queen")
    assert (added.ephemeral, added.plain) == (True, "Problem p2 added to puzzles: 1 answer "
                                                    "accepted, starting rating 1800."), added
    added = await club.say(club.ada, "puzzle", add="p3", answers="Rd8",
                           prompt="White to play: the back rank")
    assert added.ephemeral and added.plain.startswith("Problem p3 added"), added.plain
    # a member may not add one
    refused = await club.say(club.alice, "puzzle", add="p4", answers="e4", prompt="Open")
    assert (refused.ephemeral, refused.plain) == (True, "Only moderators can do that.")
    await club.register(club.alice, club.bob, club.carol)

    # -- alice, fast and right, in the form of her problem's Answer button -------------------
    # Served the problem closest to her 1500: p1 and p3 are both 1500, p1 was added first.
    shown = await club.say(club.alice, "puzzle")
    assert shown.ephemeral and shown.plain.startswith(
        "Problem p1 (puzzles, rating 1500):\nWhite to play and mate in one"), shown.plain
    [(name, picture)] = shown.files
    assert picture == PNG and shown.embeds[0]["image"]["url"] == f"attachment://{name}"
    [[(answer_label, answer_button)]] = shown.buttons
    assert answer_label == "Answer" and re.fullmatch(r"p:answer:\d+", answer_button)
    form = await club.press(club.alice, shown, answer_button)
    assert form.kind == "modal" and form.modal is not None
    assert form.modal.title == "Your answer to p1"
    [(field, label)] = form.modal.labels.items()
    assert label == "Answer"
    await dc.submit_modal(club.guild, club.alice, form, {field: "qh7"})
    solved = await dc.output(10.0)
    # alice: 1500 - (-400) + 400 = 2300, not below 1500: kept
    # p1:    1500 + (-400) - 400 = 700, not above 1500: kept
    assert solved.ephemeral and solved.plain.splitlines()[1:] == [
        "Accepted answers: Qh7 | Qxh7", "alice: - -> 2300", "p1: 1500 -> 700"], solved.plain
    assert re.fullmatch(r"Solved! p1 in [0-3]\.\d s\.", solved.plain.splitlines()[0]), (
        solved.plain)

    # -- alice, slowly and wrong, with /answer ------------------------------------------------
    # Closest to her 2300: p2 (1800, 500 away) before p3 (1500, 800 away).
    shown = await club.say(club.alice, "puzzle")
    assert shown.ephemeral and shown.plain.startswith("Problem p2 (puzzles, rating 1800)")
    assert shown.files == []
    await moved(club, 10)  # delivered within a minute or two of FRIDAY: 8 to 10 minutes on
    wrong = await club.say(club.alice, "answer", text="Qd1")
    # alice: 1800 - 400 - 400 = 1000, not above 2300: kept
    # p2:    2300 + 400 + 400 = 3100, not below 1800: kept
    assert wrong.ephemeral and wrong.plain.splitlines()[1:] == [
        "Accepted answers: Nf7", "alice: 2300 -> 1000", "p2: 1800 -> 3100"], wrong.plain
    took = re.fullmatch(r"Not solved: p2 \(([0-9.]+) s\)\.", wrong.plain.splitlines()[0])
    assert took is not None and 277 < float(took[1]) < 1800, wrong.plain

    # -- bob, slowly and right ----------------------------------------------------------------
    # Closest to his 1500: p3 (1500); p1 (700) is 800 away, p2 (3100) 1600.
    shown = await club.say(club.bob, "puzzle")
    assert shown.ephemeral and shown.plain.startswith("Problem p3 (puzzles, rating 1500)")
    await moved(club, 20)
    right = await club.say(club.bob, "answer", text="rd8")
    # bob: 1500 - 400 + 400 = 1500, not below 1500: kept (a slow success never loses)
    # p3:  1500 + 400 - 400 = 1500, not above 1500: kept
    assert right.ephemeral and right.plain.splitlines()[1:] == [
        "Accepted answers: Rd8", "bob: - -> 1500", "p3: 1500 -> 1500"], right.plain
    assert right.plain.startswith("Solved! p3 in ")

    # -- carol, too late ------------------------------------------------------------------------
    # Closest to her 1500: p3 (1500), which she has not tried.
    shown = await club.say(club.carol, "puzzle")
    assert shown.ephemeral and shown.plain.startswith("Problem p3 (puzzles, rating 1500)")
    await moved(club, 60)  # delivered some 20 minutes after FRIDAY: 40 minutes on, past 30
    late = await club.say(club.carol, "answer", text="Rd8")
    assert (late.ephemeral, late.plain) == (True, (
        "Time is up: your 30 minutes for p3 ran out, and it counts as not solved. /puzzle "
        "gives you another.")), late.plain
    # ended at its deadline, after the whole 1800 s: +400
    # carol: 1500 - 400 - 400 = 700, not above 1500: kept
    # p3:    1500 + 400 + 400 = 2300, not below 1500: kept

    # -- what everyone sees ---------------------------------------------------------------------
    ratings = {}
    for member in (club.alice, club.bob, club.carol):
        profile = await club.say(club.ada, "rating", member=member, ladder="puzzles")
        assert not profile.ephemeral
        found = re.match(r"(\w+) \(puzzles\): (-?\d+), rank (\d)", profile.plain)
        assert found is not None, profile.plain
        ratings[found[1]] = (int(found[2]), int(found[3]))
    assert ratings == {"bob": (1500, 1), "alice": (1000, 2), "carol": (700, 3)}
    board = await club.say(club.carol, "top", ladder="puzzles")
    assert not board.ephemeral
    rows = [line.split()[1:3] for line in board.plain.splitlines()[1:]]
    assert rows == [["bob", "1500"], ["alice", "1000"], ["carol", "700"]], board.plain
    problems = await club.say(club.carol, "top", ladder="puzzles", problems=True)
    assert not problems.ephemeral
    assert problems.plain.splitlines() == [
        "Problems of puzzles, hardest first:",
        "1. p2  3100  0 of 1 attempt solved",
        "2. p3  2300  1 of 2 attempts solved",
        "3. p1  700  1 of 1 attempt solved"], problems.plain

    # No message the channel could read ever held an accepted answer.
    assert leaked(dc.log) == []


async def test_a_puzzle_post_is_solved_privately_and_its_solution_shown_after_the_attempts(
        club: DiscordClub) -> None:
    """The ladder posts a problem every hour: its "Solve privately" button answers each
    presser alone and leaves the post as it was; the next post shows the solution, once the
    attempts still open at it have ended as failures."""
    bot = await club.bot().start()
    try:
        await club.say(club.ada, "ladder", "create", name="puzzles", system="tactics")
        added = await club.say(club.ada, "puzzle", add="p1", answers="Qh7|Qxh7",
                               prompt="White to play and mate in one",
                               image=club.dc.attachment("mate.png", PNG))
        assert added.ephemeral and "added" in added.plain, added.plain
        added = await club.say(club.ada, "puzzle", add="p2", answers="Nf7", prompt="Fork")
        assert added.ephemeral and "added" in added.plain, added.plain
        await club.register(club.alice, club.bob)
    finally:
        assert await bot.stop() == 0
    club.shell("schedule", "set", "--chat", f"discord:{GUILD}", "--ladder", "puzzles",
               "--cron", "0 * * * *", "--tz", "UTC")

    club.clock.set(FRIDAY.replace(minute=59, second=45))
    bot = await club.bot().start()
    try:
        [post] = await club.next_posts(1)
        assert post.plain.splitlines() == [
            "Puzzle p1 (puzzles, rating 1500):", "White to play and mate in one",
            "Press the button to solve it privately: your clock starts when I send it to "
            "you."], post.plain
        [(name, picture)] = post.files
        assert picture == PNG and post.embeds[0]["image"]["url"] == f"attachment://{name}"
        [[(label, solve)]] = post.buttons
        assert label == "Solve privately" and re.fullmatch(r"p:solve:\d+", solve), solve
        as_posted = dict(club.dc.messages[post.message_id])

        # bob presses it, and solves p1 at once in the form of his own message's button
        shown = await club.press(club.bob, post, solve)
        assert (shown.kind, shown.ephemeral) == ("reply", True), shown
        assert shown.plain.startswith("Problem p1 (puzzles, rating 1500):"), shown.plain
        assert [(n, png) for n, png in shown.files] == [(name, PNG)]
        [[(_, answer_button)]] = shown.buttons
        form = await club.press(club.bob, shown, answer_button)
        assert form.modal is not None
        [field] = form.modal.labels
        await club.dc.submit_modal(club.guild, club.bob, form, {field: "Qh7"})
        solved = await club.dc.output(10.0)
        # bob: 1500 - (-400) + 400 = 2300; p1: 1500 + (-400) - 400 = 700
        assert solved.ephemeral and solved.plain.splitlines()[2:] == [
            "bob: - -> 2300", "p1: 1500 -> 700"], solved.plain
        # alice presses it at 19:40, and never answers
        await jumped(club, FRIDAY.replace(hour=19, minute=40))
        opened = await club.press(club.alice, post, solve)
        assert opened.ephemeral and opened.plain.startswith("Problem p1 (puzzles, rating 700)")
        assert club.dc.messages[post.message_id] == as_posted  # the post never changed

        # 20:00: the next post shows p1's solution; alice's attempt, still open, ended first:
        # a failure after some 20 minutes (+400), from alice's 1500 and p1's 700:
        # alice: 700 - 400 - 400 = -100, not above 1500: kept
        # p1:    1500 + 400 + 400 = 2300, not below 700: kept
        await jumped(club, FRIDAY.replace(hour=19, minute=59, second=50))
        [revealed] = await club.next_posts(1)
        lines = revealed.plain.splitlines()
        assert lines[0] == "Solution of p1: Qh7 | Qxh7", revealed.plain
        assert re.fullmatch(r"Fastest: bob [0-3]\.\d s", lines[1]), revealed.plain
        assert lines[2] == "Puzzle p2 (puzzles, rating 1500):", revealed.plain
        late = await club.say(club.alice, "answer", text="Qh7")
        assert (late.ephemeral, late.plain) == (True, (
            "The solution of p1 was posted before your answer came: it counts as not solved. "
            "/puzzle gives you another.")), late.plain
        profile = await club.say(club.alice, "rating", ladder="puzzles")
        assert profile.plain.startswith("alice (puzzles): -100, rank 2"), profile.plain
        problems = await club.say(club.alice, "top", ladder="puzzles", problems=True)
        assert problems.plain.splitlines()[1:] == [
            "1. p1  2300  1 of 2 attempts solved",
            "2. p2  1500  0 of 0 attempts solved"], problems.plain
        # The solution reached the channel only in the post that showed it.
        assert leaked(club.dc.log) == [revealed.plain]
        assert club.dc.errors == []
    finally:
        assert await bot.stop() == 0
