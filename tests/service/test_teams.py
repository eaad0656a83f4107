"""Team and doubles games (issue 37) as the console runs them in one process: a 2 v 2 reported
and confirmed by one member of the other side, a moderator's record of sides, the companion
ladder ``main-teams``, /history and /h2h (against and beside), a correction of the sides, and
the refusals of bad input, each of which changes nothing."""

from __future__ import annotations

import re
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


async def test_a_2v2_goes_to_the_companion_and_is_shown_as_sides(chat: Transcript) -> None:
    await chat.as_("ann", "/report @cid @dan with @ben win")
    assert (await chat.as_("dan", "/confirm")).splitlines() == [
        "Game #1 confirmed: ann & ben beat cid & dan.",
        "ann: - -> 1553?", "ben: - -> 1553?", "cid: - -> 1447?", "dan: - -> 1447?"]
    assert await chat.as_("ann", "/top") == "\n".join(
        ["main ladder", *(f"  {n}. {name}      1500?  0 games"
                          for n, name in enumerate(MEMBERS, 1))])
    assert await chat.as_("ann", "/top main-teams") == (
        "main-teams ladder\n  1. ann      1553?  1 game\n  2. ben      1553?  1 game\n"
        "  3. cid      1447?  1 game\n  4. dan      1447?  1 game")
    # the companion takes no game of one against one, nor the team settings
    assert await refused(chat, "ann", "/report @cid win ladder=main-teams") == (
        "Ladder main-teams rates the team games of main: report a game of one against one on "
        "main.")
    assert await refused(chat, "mod!", "/set max_side 3 ladder=main-teams") == (
        "max_side of this ladder's team games is set on ladder main: /set max_side VALUE "
        "ladder=main.")
    # a moderator's record of two sides counts at once, the first side's result
    assert (await chat.as_("mod!", "/report @cid @dan vs @ann @ben draw")).splitlines()[0] == (
        "Game #2 recorded: cid & dan drew with ann & ben.")
    assert await chat.as_("cid", "/h2h @dan with") == (
        "cid with dan (main): 0W 1D 1L\n#2 Mar 1, 2024 cid & dan drew with ann & ben\n"
        "#1 Mar 1, 2024 ann & ben beat cid & dan")
    assert await chat.as_("cid", "/h2h @ben") == (
        "cid vs ben (main): 0W 1D 1L\n#2 Mar 1, 2024 cid & dan drew with ann & ben\n"
        "#1 Mar 1, 2024 ann & ben beat cid & dan")
    assert (await chat.as_("cid", "/h2h @dan")).startswith("cid vs dan (main): 0W 0D 0L")


async def test_shared_team_games_are_rated_on_the_ladder_itself(chat: Transcript) -> None:
    await chat.as_("mod!", "/set team_ladder shared")
    recorded = await chat.as_("mod!", "/report @ann @ben vs @cid @dan win")
    assert recorded.splitlines()[0] == "Game #1 recorded: ann & ben beat cid & dan."
    assert await chat.as_("ann", "/top main-teams") == (
        "There is no ladder main-teams. Ladders: main.")
    assert (await chat.as_("ann", "/top")).splitlines()[1] == "  1. ann      1553?  1 game"


async def test_a_correction_of_sides_previews_every_change(chat: Transcript) -> None:
    await chat.as_("mod!", "/report @ann @ben vs @cid @dan win")
    assert await refused(chat, "mod!", "/correct 1 sides=@ann @ann vs @cid @dan") == (
        "ann is named twice on one side.")
    assert await refused(chat, "mod!", "/correct 1 sides=@ann @ben @cid @dan") == (
        "Name the sides as sides=@a @b vs @c @d.")
    assert await refused(chat, "mod!", "/correct 1 sides=@ann vs @cid") == (
        "Game #1 stays on ladder main-teams, which does not rate games of these sides: /void "
        "it and report it again.")
    preview = await refused(chat, "mod!", "/correct 1 sides=@ann @cid vs @ben @dan")
    assert preview.splitlines()[:2] == [
        "Correcting game #1 would change:",
        "Result: ann & ben beat cid & dan -> ann & cid beat ben & dan"]
    applied = await chat.as_("mod!", "/apply")
    assert applied.splitlines()[1:] == preview.splitlines()[1:-1]
    assert (await chat.as_("ben", "/history")).splitlines()[1] == (
        "#1 Mar 1, 2024 ann & cid beat ben & dan")


async def test_the_worked_evening_of_the_docs_is_what_the_bot_says(tmp_path: Path) -> None:
    """docs/team-games.md's evening, typed again: every answer as the page shows it."""
    page = (Path(__file__).parents[2] / "docs" / "team-games.md").read_text(encoding="utf-8")
    steps: list[tuple[str, str, list[str]]] = []
    for line in page.split("```\n")[1].splitlines():
        said = re.match(r"^(\w+!?)> (.*)$", line)
        if said:
            steps.append((said[1], said[2], []))
        else:
            steps[-1][2].append(line)
    async with open_club(tmp_path / "club.db", rate=None) as chat:
        for name in ("ann", "ben", "cid", "dan", "eve"):
            await chat.as_(name, "/register")
        for who, line, answer in steps:
            assert await chat.as_(who, line) == "\n".join(answer), line
