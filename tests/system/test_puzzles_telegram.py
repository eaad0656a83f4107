"""Rated puzzles in a Telegram club, through ``clubrating run`` against the fake Bot API, its
clock moved by libfaketime (issue 34): ada, who runs the group, adds three problems in her
private chat with the bot (one as a photo whose caption is the command); members ask for a
problem in the group, get a link button to their private chat, and solve it there, fast,
wrongly, slowly and not at all; the ``tactics`` ratings of members and problems move exactly as
seed 004's rules say, and no answer ever shows in the group.

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

Everyone starts at 1500, a problem at the rating it is given (1500 without one). /puzzle serves
the untried problem whose rating is closest to the member's.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.fake_telegram import BOT_USERNAME, TOKEN, FakeTelegram, Output, User

from .clubs import FRIDAY, GROUP, TelegramClub

#: a JPEG as the bot's picture store tells one (by its first bytes)
DIAGRAM = b"\xff\xd8\xff\xe0" + b"a chess diagram " * 64
#: every accepted answer of the three problems, and the wrong one alice gives
ANSWERS = ("Qh7", "Qxh7", "Rxe8", "Nd5", "Kg1")
#: how long the process may take to read a moved clock (libfaketime: within a second)
CLOCK_READ = 2.5
#: the link of a group's /puzzle: the closest problem (0) of the club's group
LINK = f"https://t.me/{BOT_USERNAME}?start=p{GROUP}_0"


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[TelegramClub]:
    async with FakeTelegram(token=TOKEN) as tg:
        yield TelegramClub.on(tg, tmp_path)


async def private(club: TelegramClub, user: User, line: str,
                  photo: bytes | None = None) -> Output:
    """``user`` sends ``line`` in their private chat with the bot (a photo's caption with
    ``photo``); the bot's answer there."""
    await club.tg.send(club.tg.private(user), user, line, photo=photo)
    return await club.tg.reply(user, 10.0)


async def solve_link(club: TelegramClub, user: User) -> Output:
    """``user`` asks for a problem in the group, and opens the answer's link button: the
    problem, in their private chat."""
    invite = await club.say(user, "/puzzle")
    assert invite.plain.startswith("Problems of puzzles are solved privately"), invite.plain
    assert invite.urls == [("Solve privately", LINK)], invite.buttons
    await club.tg.start_link(user, invite.urls[0][1])
    return await club.tg.reply(user, 10.0)


async def moved(club: TelegramClub, minutes: int) -> None:
    """The clock set to ``minutes`` after FRIDAY, when the bot started (a few real seconds
    after the time it last read: far from every margin below), once the process read it."""
    club.clock.set(FRIDAY + timedelta(minutes=minutes))
    await asyncio.sleep(CLOCK_READ)


def ranked(board: Output) -> list[tuple[str, int]]:
    """A board's rows, in its order: each name (or problem) and its rating."""
    return [(row[1], int(row[2])) for row in
            re.findall(r"^\s*(\d+)\.\s+(\S+)\s+(\d+)\b", board.plain, re.MULTILINE)]


def leaked(outputs: list[Output]) -> list[str]:
    """The group's messages that hold an answer."""
    return [o.plain for o in outputs
            if any(answer.casefold() in o.plain.casefold() for answer in ANSWERS)]


async def test_three_problems_rated_fast_wrong_slow_and_timed_out(club: TelegramClub) -> None:
    bot = await club.bot().start()
    try:
        await journey(club)
        assert club.tg.errors == []
    finally:
        assert await bot.stop() == 0


async def journey(club: TelegramClub) -> None:
    tg, ada, alice, bob, carol = club.tg, club.ada, club.alice, club.bob, club.carol
    created = await club.say(ada, "/ladder create puzzles tactics")
    assert created.plain == "Ladder puzzles created with the tactics system.", created.plain

    # ada adds the problems in her private chat: p1 as a photo whose caption is the command
    # (the picture kept in the data folder), p2 at 1800, p3 at 2000.
    for line, photo in (("/puzzle add p1 answers=Qh7|Qxh7 White mates in one", DIAGRAM),
                        ("/puzzle add p2 rating=1800 answers=Rxe8 Black wins the exchange",
                         None),
                        ("/puzzle add p3 rating=2000 answers=Nd5 White forks", None)):
        added = await private(club, ada, line, photo)
        assert re.match(r"Problem p\d added to puzzles(:| with its picture:)", added.plain), (
            added.plain)
    [kept] = (club.folder / "pictures").iterdir()
    assert kept.read_bytes() == DIAGRAM
    downloads = len(tg.called("getFile"))
    # In the group /puzzle add is refused, typed or as a caption, and nothing is downloaded.
    refused = await club.say(ada, "/puzzle add p4 answers=Qh7 Everyone sees this")
    assert refused.plain.startswith("Add problems in your private chat with me"), refused.plain
    await tg.send(club.group, ada, "/puzzle add p5 answers=Qh7 Everyone sees this",
                  photo=DIAGRAM)
    assert (await tg.reply(club.group, 10.0)).plain == refused.plain
    assert len(tg.called("getFile")) == downloads
    assert len(list((club.folder / "pictures").iterdir())) == 1

    await club.register(alice, bob, carol)

    # alice (1500): p1 (1500) is the closest; it comes with its picture. She answers at once
    # (a = -400) and right:
    #   alice: P - a + 400 = 1500 + 400 + 400 = 2300 (not below 1500: kept)
    #   p1:    R + a - 400 = 1500 - 400 - 400 = 700  (not above 1500: kept)
    shown = await solve_link(club, alice)
    assert shown.kind == "photo" and shown.size == len(DIAGRAM), shown
    assert shown.plain.startswith("Problem p1 (puzzles, rating 1500):\nWhite mates in one")
    solved = await private(club, alice, "/answer qh7")
    assert solved.plain.startswith("Solved! p1"), solved.plain
    assert "alice: - -> 2300" in solved.plain and "p1: 1500 -> 700" in solved.plain

    # alice (2300) asks again in her private chat: p3 (2000, 300 away; p2 1800 is 500 away).
    # At once and wrong (a = -400):
    #   alice: P - a - 400 = 2000 + 400 - 400 = 2000 (not above 2300: kept)
    #   p3:    R + a + 400 = 2300 - 400 + 400 = 2300 (not below 2000: kept)
    shown = await private(club, alice, "/puzzle")
    assert shown.kind == "send", shown
    assert shown.plain.startswith("Problem p3 (puzzles, rating 2000):\nWhite forks")
    failed = await private(club, alice, "/answer Kg1")
    assert failed.plain.startswith("Not solved: p3"), failed.plain
    assert "alice: 2300 -> 2000" in failed.plain and "p3: 2000 -> 2300" in failed.plain

    # bob (1500): p2 (1800, 300 away; p1 700 and p3 2300 are 800 away). He answers right once
    # the clock moved five minutes on (t >= 277 s, a = +400):
    #   bob: P - a + 400 = 1800 - 400 + 400 = 1800 (not below 1500: kept)
    #   p2:  R + a - 400 = 1500 + 400 - 400 = 1500 (not above 1800: kept)
    shown = await solve_link(club, bob)
    assert shown.plain.startswith("Problem p2 (puzzles, rating 1800):"), shown.plain
    await moved(club, 5)
    solved = await private(club, bob, "/answer RXE8")
    took = re.match(r"Solved! p2 in ([0-9.]+) s\.", solved.plain)
    assert took is not None and 277 <= float(took[1]) < 1800, solved.plain
    assert "bob: - -> 1800" in solved.plain and "p2: 1800 -> 1500" in solved.plain

    rating = await club.say(alice, "/rating ladder=puzzles")
    assert rating.plain.startswith("alice (puzzles): 2000,"), rating.plain
    assert ranked(await club.say(carol, "/top puzzles")) == [("alice", 2000), ("bob", 1800)]
    problems = await club.say(carol, "/top puzzles problems")
    assert ranked(problems) == [("p3", 2300), ("p2", 1500), ("p1", 700)], problems.plain

    # carol (1500) gets p2 (1500, 0 away) and lets 31 minutes pass: her /answer is refused,
    # and the attempt ended as a failure at its deadline (t = 1800 s, a = +400):
    #   carol: P - a - 400 = 1500 - 400 - 400 = 700  (not above 1500: kept)
    #   p2:    R + a + 400 = 1500 + 400 + 400 = 2300 (not below 1500: kept)
    shown = await solve_link(club, carol)
    assert shown.plain.startswith("Problem p2 (puzzles, rating 1500):"), shown.plain
    await moved(club, 5 + 31)
    late = await private(club, carol, "/answer Rxe8")
    assert late.plain == ("Time is up: your 30 minutes for p2 ran out, and it counts as not "
                          "solved. /puzzle gives you another."), late.plain
    assert ranked(await club.say(carol, "/top puzzles")) == [
        ("alice", 2000), ("bob", 1800), ("carol", 700)]
    problems = await club.say(carol, "/top puzzles problems")
    assert ranked(problems) == [("p2", 2300), ("p3", 2300), ("p1", 700)], problems.plain

    # Everything the group saw: no answer, and no problem's text.
    seen = tg.outputs(club.group)
    assert leaked(seen) == []
    assert not any("White mates" in o.plain or "forks" in o.plain for o in seen)
