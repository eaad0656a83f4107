"""Say the whole truth (issue 15): a report's prompt shows everything being confirmed and when it
counts by itself, and every time people read is in the ladder's time zone, with the zone, without
seconds (``Sun, Mar 3 12:30 CET``); game lines show the ladder's local date.

The club plays in Berlin; the clock starts at 23:30 UTC on Friday 1 March 2024, which is already
Saturday 00:30 in Berlin.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.chat.presenter import render
from bot.service.identity import Caller
from bot.service.results import (
    Digest,
    GameLine,
    GameResult,
    Notice,
    Pending,
    ScheduleInfo,
)
from tests.chat import Transcript, open_club

LATE_FRIDAY = datetime(2024, 3, 1, 23, 30)
MOD = Caller("console", "local", "mod", "mod", moderator=True)
PROMPT = re.compile(r"Game #(\d+): ann beat ben\. ben, please /confirm or /dispute\.")


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db", LATE_FRIDAY) as transcript:
        await transcript.as_("mod!", "/set timezone Europe/Berlin")
        for name in ("ann", "ben"):
            await transcript.as_(name, "/register")
        yield transcript


def game_of(answer: str) -> int:
    found = PROMPT.match(answer)
    assert found, answer
    return int(found.group(1))


async def test_the_prompt_shows_every_term_and_when_it_counts_by_itself(chat: Transcript) -> None:
    await chat.as_("mod!", "/set auto_confirm_hours 36", "/event open cup")
    answer = await chat.as_("ann", "/report @ben win handicap=-50 colour=black event=cup")
    lines = answer.split("\n")
    game_of(lines[0])  # the first sentence as before
    # 23:30 UTC + 36 h = Sunday 11:30 UTC = 12:30 in Berlin (CET in March)
    assert lines[1:] == [
        "Ladder main, handicap 50 given by ben, ann played black, event cup; "
        "counts on Sun, Mar 3 12:30 CET unless disputed.",
        text("held_for_event", event="cup"),
        # the points at stake with its handicap and colour (issue 38), an event's estimate
        "ann: +50 / -3 / -57 (win 52%)", "ben: +57 / +3 / -50 (win 48%)",
        "An estimate: main rates an event's games together when it closes.",
    ]


async def test_the_deadline_is_the_moment_it_counts(chat: Transcript) -> None:
    answer = await chat.as_("ann", "/report @ben win")
    game = game_of(answer)
    assert answer.split("\n")[1] == (
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sun, Mar 3 00:30 CET unless disputed.")
    chat.clock.advance(hours=23, minutes=59)
    assert (await chat.as_("ben", "/pending")).startswith(f"To confirm or dispute: #{game} ")
    chat.clock.advance(minutes=1)  # Sunday 00:30 in Berlin
    assert await chat.as_("ben", "/pending") == text("pending_none")
    assert "  1 game" in await chat.say("/top")


async def test_each_ladder_shows_its_own_zone(chat: Transcript) -> None:
    await chat.as_("mod!", "/ladder create blitz")
    answer = await chat.as_("ann", "/report @ben draw ladder=blitz")
    assert answer.split("\n")[1] == (
        "Ladder blitz, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 23:30 UTC unless disputed.")


async def test_summer_time_is_named_as_such(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db", datetime(2024, 7, 1, 10, 0)) as chat:
        await chat.as_("mod!", "/set timezone Europe/Berlin")
        for name in ("ann", "ben"):
            await chat.as_(name, "/register")
        answer = await chat.as_("ann", "/report @ben win colour=white")
        assert answer.split("\n")[1] == (
            "Ladder main, no handicap, ann played white, no event; "
            "counts on Tue, Jul 2 12:00 CEST unless disputed.")


async def test_a_challenge_expires_in_the_ladders_zone(chat: Transcript) -> None:
    # 48 h (challenge_hours) after Friday 23:30 UTC: Sunday 23:30 UTC, Monday 00:30 in Berlin
    answer = await chat.as_("ann", "/challenge @ben")
    assert answer.splitlines() == [
        "ann challenges ben (challenge #1, main). ben: /accept or /decline before Mon, Mar 4 "
        "00:30 CET.", "ann: +53 / 0 / -53 (win 50%)", "ben: +53 / 0 / -53 (win 50%)"]
    assert (await chat.as_("ben", "/pending")).endswith(
        "(main), open until Mon, Mar 4 00:30 CET.")


async def test_game_lines_show_the_ladders_local_date(chat: Transcript) -> None:
    game = game_of(await chat.as_("ann", "/report @ben win"))
    # reported on 1 March in UTC, on 2 March in Berlin
    assert await chat.as_("ben", "/pending") == text(
        "pending_confirm", games=f"#{game} Mar 2, 2024 ann beat ben [pending]")
    await chat.as_("ben", f"/confirm {game}")
    assert (await chat.say("/history")).endswith(f"#{game} Mar 2, 2024 ann beat ben")


async def test_audit_lines_and_the_schedule_are_in_the_ladders_zone(chat: Transcript) -> None:
    game = game_of(await chat.as_("ann", "/report @ben win"))
    latest = (await chat.as_("mod!", "/audit 1")).split("\n")[0]
    # an audit entry is numbered by its event's id: the report's, the event of game #game
    entry = re.match(r"#(\d+) Sat, Mar 2 00:30 CET ", latest)
    assert entry, latest
    assert await chat.service.number_of(MOD, int(entry.group(1))) == game, latest
    assert latest.endswith(f"ann reported game #{game} on main: ann beat ben"), latest
    # the default schedule, Mondays 09:00 on the ladder's clock
    assert (await chat.say("/schedule")).endswith("next post: Mon, Mar 4 09:00 CET.")


def test_the_presenter_shows_instants_in_one_format() -> None:
    digest = Digest("main", "2024-03-01T17:00", [], [], [], [], [], [], 0, zone="Europe/Berlin")
    assert render(digest).split("\n")[0] == "main ladder, changes since Fri, Mar 1 18:00 CET"
    line = GameLine(3, "main", "2024-03-01T23:30:45", "ann", "ben", 1.0, "pending",
                    zone="Europe/Berlin")
    answer = GameResult("reported", line, counts_at="2024-03-02T23:30:45")
    assert render(answer).split("\n")[1].endswith(
        "counts on Sun, Mar 3 00:30 CET unless disputed.")  # no seconds
    assert render(Pending([line], [], [])) == text(
        "pending_confirm", games="#3 Mar 2, 2024 ann beat ben [pending]")


def test_answers_stored_before_are_shown_as_they_were() -> None:
    """A redelivered update gets its first answer again: what older builds stored still shows
    (a bare date, a wall clock as text, a notice without its zone, a report without terms)."""
    line = GameLine(3, "main", "2024-03-01", "ann", "ben", 1.0, "pending")
    assert render(GameResult("reported", line)) == (
        "Game #3: ann beat ben. ben, please /confirm or /dispute.")
    assert render(Pending([line], [], [])) == text(
        "pending_confirm", games="#3 Mar 1, 2024 ann beat ben [pending]")
    shown = ScheduleInfo("schedule_shown", "main", "0 9 * * MON", "Europe/Berlin", None, False,
                         10, "2024-03-04 09:00 (CET)")
    assert render(shown).endswith("next post: 2024-03-04 09:00 (CET).")
    notice = Notice("challenge", {"challenge": 4, "challenger": "ann", "opponent": "ben",
                                  "ladder": "main", "expires_at": "2024-03-03T19:00"})
    assert render(notice).endswith("open until 2024-03-03T19:00.")
