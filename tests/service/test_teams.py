"""Team and doubles games (issue 37) as the console runs them in one process: a 2 v 2 reported
and confirmed by one member of the other side, a moderator's record of sides, the companion
ladder ``main-teams``, /history and /h2h (against and beside), a correction of the sides, and
the refusals of bad input, each of which changes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.chat import Transcript, open_club

MEMBERS = ("ann", "ben", "cid", "dan", "eve", "fay", "gus")


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db", rate=None) as opened:
        for name in MEMBERS:
            await opened.as_(name, "/register")
        yield opened


async def refused(chat: Transcript, who: str, line: str) -> str:
    """``who`` says ``line``; the answer, checked to have changed nothing in the log."""
    await chat.as_(who)
    before = await chat.log_size()
    answer = await chat.say(line)
    assert await chat.log_size() == before, (line, answer)
    return answer


@pytest.mark.parametrize(("who", "line", "answer"), [
    ("ann", "/report @cid @ann with @ben win", "ann cannot play on both sides."),
    ("ann", "/report @cid @dan with @cid win", "cid cannot play on both sides."),
    ("ann", "/report @cid @cid with @ben win", "cid is named twice on one side."),
    ("ann", "/report @cid @dan with @ben @ben win", "ben is named twice on one side."),
    ("ann", "/report @cid @dan @eve with @ben win",
     "Sides of 2 and 3 members: ladder main rates only even sides (/set uneven_teams on)."),
    ("mod!", "/report @ann @ben vs @cid win",
     "Sides of 2 and 1 members: ladder main rates only even sides (/set uneven_teams on)."),
    ("ann", "/report @zed @cid with @ben win",
     "There is no member called zed. /top lists everyone."),
    ("ann", "/report with @ben win", None),
    ("ann", "/report @cid with win", None),
    ("ann", "/report @cid @dan with @ben", None),
    ("ann", "/report @cid vs @dan win", "Only moderators can do that."),
    ("ann", "/report @cid win ladder=main-teams", "There is no ladder main-teams. Ladders: main."),
    ("ann", "/set team_size_handicap 5", "Only moderators can do that."),
    ("mod!", "/set team_size_handicap -5",
     "team_size_handicap takes rating points from 0 to 400 (not -5)."),
    ("mod!", "/set max_side 51", "max_side takes a whole number from 1 to 50 (not 51)."),
    ("mod!", "/set team_ladder elsewhere",
     "team_ladder takes companion, shared (not elsewhere)."),
])
async def test_bad_sides_are_refused_and_change_nothing(
        chat: Transcript, who: str, line: str, answer: str | None) -> None:
    said = await refused(chat, who, line)
    if answer is None:  # the words do not fit: the usage lines
        assert said.startswith("Usage: /report"), said
    else:
        assert said == answer


async def test_a_side_larger_than_max_side_is_refused(chat: Transcript) -> None:
    await chat.as_("mod!", "/set max_side 2", "/set uneven_teams on")
    assert await refused(chat, "ann", "/report @cid @dan @eve with @ben win") == (
        "A side has 3 members; ladder main allows at most 2 (/set max_side).")


async def test_a_retired_member_cannot_play_on_a_side(chat: Transcript) -> None:
    await chat.as_("mod!", "/report @dan @eve win", "/retire @dan")
    assert await refused(chat, "ann", "/report @cid @dan with @ben win") == (
        "dan is retired on ladder main: /return them first.")


async def test_the_reporters_partner_cannot_confirm(chat: Transcript) -> None:
    reported = await chat.as_("ann", "/report @cid @dan with @ben win")
    assert reported.splitlines()[0] == (
        "Game #1: ann & ben beat cid & dan. cid & dan, please /confirm or /dispute.")
    assert await refused(chat, "ben", "/confirm 1") == (
        "Game #1 is for your opponent to confirm or dispute.")
    assert await refused(chat, "ann", "/confirm 1") == (
        "Game #1 is your own report: cid confirms or disputes it, not you.")
