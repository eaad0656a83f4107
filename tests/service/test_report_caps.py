"""No member buries another in reports (issue 30, and issue 31's duplicate reports): a member's
own reports that wait on a ladder (pending or disputed) are capped, in all (``open_reports``,
5) and against one opponent (``open_reports_per_opponent``, 1); beyond either a report is
refused, naming the games that wait, and nothing is stored. A moderator's record of two other
members' game counts at once and is never capped. Lowering a cap changes no report that waits:
the log replays as it was written."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat.messages import text
from tests.chat import Transcript, open_club

MEMBERS = ("ann", "bob", "cid", "dot", "eve", "fay", "gus")


@pytest.fixture
async def chat(database: Path | str) -> AsyncIterator[Transcript]:
    async with open_club(database, rate=None) as club:
        for name in MEMBERS:
            await club.as_(name, "/register")
        yield club


async def test_a_second_report_of_a_pair_waits_for_the_first_however_much_later(
    chat: Transcript,
) -> None:
    assert (await chat.as_("ann", "/report @bob win")).startswith("Game #1: ann beat bob.")
    refused = text("open_reports_against_one", games="#1", opponent="bob", first=1)
    assert refused == ("Your report #1 against bob is still waiting for confirmation: wait for "
                       "it or /withdraw 1.")
    before = await chat.log_size()
    assert await chat.say("/report @bob win") == refused
    chat.clock.advance(hours=23)  # a day less an hour: still waiting
    assert await chat.say("/report @bob loss colour=white") == refused
    assert await chat.log_size() == before
    # bob's own report of the pair is his, not ann's: it waits for her answer
    assert (await chat.as_("bob", "/report @ann draw")).startswith("Game #2: bob drew with ann")
    # once it counts (confirmed here), ann may report the next game
    assert (await chat.as_("bob", "/confirm 1")).startswith("Game #1 confirmed")
    assert (await chat.as_("ann", "/report @bob win")).startswith("Game #3: ann beat bob.")


async def test_a_members_waiting_reports_are_capped_and_the_refusal_names_them(
    chat: Transcript,
) -> None:
    for n, opponent in enumerate(MEMBERS[1:6], start=1):
        assert (await chat.as_("ann", f"/report @{opponent} win")).startswith(f"Game #{n}: ")
    await chat.as_("bob", "/dispute 1 never played")  # a disputed report still waits
    full = text("open_reports_full", count=5, games="#1, #2, #3, #4, #5")
    assert full == ("You have 5 reports waiting for confirmation (#1, #2, #3, #4, #5): wait for "
                    "them or /withdraw one.")
    before = await chat.log_size()
    assert await chat.as_("ann", "/report @gus win") == full
    assert await chat.log_size() == before
    # the per-opponent refusal is the more precise one where both apply
    assert await chat.say("/report @cid win") == text(
        "open_reports_against_one", games="#2", opponent="cid", first=2)
    # a report taken back, or one answered, makes room
    assert (await chat.say("/withdraw 1")).startswith("Game #1 withdrawn")
    assert (await chat.say("/report @gus win")).startswith("Game #6: ann beat gus.")
    assert await chat.say("/report @gus win") == text(
        "open_reports_against_one", games="#6", opponent="gus", first=6)
    assert (await chat.as_("cid", "/confirm 2")).startswith("Game #2 confirmed")
    assert (await chat.as_("ann", "/report @bob draw")).startswith("Game #7: ann drew with bob")


async def test_moderators_recording_others_games_are_not_capped_their_own_are(
    chat: Transcript,
) -> None:
    """A club night's score sheet: a moderator records game after game between the same two
    members, each counting at once (nothing waits). A moderator's own game waits for the
    opponent like anyone's, and so is capped like anyone's."""
    for n in range(1, 31):
        assert (await chat.as_("mod!", "/report @ann @bob win")).startswith(
            f"Game #{n} recorded: ")
    await chat.as_("gus!", "/report @ann win")
    assert await chat.say("/report @ann draw") == text(
        "open_reports_against_one", games="#31", opponent="ann", first=31)
    # named second, the moderator's game is theirs too (reported from their side)
    assert await chat.say("/report @ann @gus loss") == text(
        "open_reports_against_one", games="#31", opponent="ann", first=31)


async def test_the_caps_are_ladder_settings_and_lowering_them_changes_no_waiting_report(
    chat: Transcript,
) -> None:
    assert await chat.as_("mod!", "/set open_reports_per_opponent 3") == (
        "open_reports_per_opponent of main is now 3.")
    for n in range(1, 4):
        assert (await chat.as_("ann", "/report @bob win")).startswith(f"Game #{n}: ")
    assert await chat.say("/report @bob win") == text(
        "open_reports_against", count=3, games="#1, #2, #3", opponent="bob")
    # Another ladder has caps of its own: its reports are other games.
    await chat.as_("mod!", "/ladder create blitz")
    await chat.as_("ann", "/join blitz")
    await chat.as_("bob", "/join blitz")
    assert (await chat.as_("ann", "/report @bob win ladder=blitz")).startswith("Game #4: ")
    # Lowered below what waits: nothing that waits changes, no new report until room is made.
    assert await chat.as_("mod!", "/set open_reports 2") == "open_reports of main is now 2."
    assert await chat.as_("ann", "/report @cid win") == text(
        "open_reports_full", count=3, games="#1, #2, #3")
    assert await chat.say("/report @bob win") == text(
        "open_reports_against", count=3, games="#1, #2, #3", opponent="bob")
    chat.clock.advance(hours=24)  # every waiting report counts by itself, as it was filed
    history = await chat.say("/history")
    # each line: #N, the date (Mar 1, 2024), the game
    assert [line.split(" ", 4)[4] for line in history.splitlines()[1:]] == [
        "ann beat bob"] * 3, history
    # with room again, the lowered caps apply: 3 against one opponent, but never above the 2
    # in all
    assert (await chat.say("/report @bob win")).startswith("Game #5: ")
    assert (await chat.say("/report @bob win")).startswith("Game #6: ")
    assert await chat.say("/report @bob win") == text(
        "open_reports_against", count=2, games="#5, #6", opponent="bob")
    assert await chat.say("/report @cid win") == text(
        "open_reports_full", count=2, games="#5, #6")
