"""A moderator's own game waits for the opponent like anyone's (issue 15): a result counts at
once only when a moderator records it for two other members."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat.messages import text
from tests.chat import Transcript, open_club


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db") as club:
        for name in ("ann", "bob", "cid"):
            await club.as_(name, "/register")
        await club.as_("ann!")  # ann is a moderator from now on
        yield club


async def test_a_moderators_own_report_waits_and_counts_when_the_opponent_confirms(
    chat: Transcript,
) -> None:
    assert await chat.say("/report @bob win") == (
        "Game #1: ann beat bob. bob, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "ann: +53 / 0 / -53 (win 50%)\nbob: +53 / 0 / -53 (win 50%)")
    assert "  0 games" in await chat.say("/top")  # nothing counted yet
    assert await chat.say("/confirm 1") == text("own_report", game=1, opponent="bob")
    assert await chat.as_("bob", "/confirm 1") == "\n".join([
        "Game #1 confirmed: ann beat bob.", "ann: 1500 -> 1553?", "bob: 1500 -> 1447?"])


async def test_a_moderator_named_in_a_two_member_report_is_asked_like_a_member(
    chat: Transcript,
) -> None:
    # "/report @bob @ann win" by ann: bob beat ann, her own game, so bob confirms it. It is
    # kept from ann's side (ann lost), with the handicap and colour turned round: the same
    # ratings as when a third moderator records it (bob gave 50 points and had White).
    assert await chat.say("/report @bob @ann win handicap=50 colour=white") == (
        "Game #1: bob beat ann. bob, please /confirm or /dispute.\n"
        "Ladder main, handicap 50 given by bob, ann played black, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "ann: +50 / -3 / -57 (win 52%)\nbob: +57 / +3 / -50 (win 48%)")
    assert await chat.as_("bob", "/confirm 1") == "\n".join([
        "Game #1 confirmed: bob beat ann.", "ann: 1500 -> 1443?", "bob: 1500 -> 1557?"])
    reported = (await chat.as_("ann!", "/audit 2")).splitlines()[-1]
    # (the colour kept is the first player's: ann's)
    assert reported.startswith("#5 ") and reported.endswith(
        "ann reported game #1 on main: bob beat ann, handicap 50 given by bob, "
        "ann played black"), reported


async def test_a_result_for_two_other_members_counts_at_once(chat: Transcript) -> None:
    assert await chat.say("/report @bob @cid win") == "\n".join([
        "Game #1 recorded: bob beat cid.", "bob: 1500 -> 1553?", "cid: 1500 -> 1447?"])


async def test_a_dispute_names_the_clubs_moderators_and_waits_in_their_pending(
    chat: Transcript,
) -> None:
    await chat.as_("mod!", "/moderator add @cid")
    await chat.as_("ann", "/report @bob win")
    assert await chat.as_("bob", "/dispute 1 I won on time") == "\n".join([
        "Game #1 is disputed: ann beat bob. A moderator will settle it; it waits in their "
        "/pending.",
        "The club's moderators: cid."])
    await chat.as_("bob", "/report @ann draw")
    await chat.as_("ann", "/dispute 2")
    queue = "\n".join([
        "Disputes to settle:",
        "#1 Mar 1, 2024 ann beat bob [disputed], because: I won on time. Settle: /correct 1 "
        "win|loss|draw, or /void 1",
        "#2 Mar 1, 2024 bob drew with ann [disputed], no reason given. Settle: /correct 2 "
        "win|loss|draw, or /void 2"])
    # cid, a moderator the club named, and a platform moderator who never registered
    assert await chat.as_("cid", "/pending") == queue
    assert await chat.as_("ops!", "/pending") == queue
    # a member sees only their own business
    assert await chat.as_("bob", "/pending") == (
        "Your reports waiting: #2 Mar 1, 2024 bob drew with ann [disputed]")
    # settled from the list: the game leaves the queue
    await chat.as_("ops!", "/void 1 never played")
    assert "#1" not in await chat.as_("ops!", "/pending")
