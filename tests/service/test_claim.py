"""Imported players can be claimed (issue 15): ``/claim NAME`` by a registered member without
games asks to be the imported record NAME; a moderator approves (a button, or ``/claim approve
NAME``) or declines. On approval the member's platform user finds the record: its games and
rating are theirs, and nobody's rating changes. ``/undo`` takes an approval back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.adapters.console import CHAT, PLATFORM
from bot.chat.actions import Action, Group, actions_for
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.history import read_events
from bot.service.club import Caller
from bot.service.results import Notice
from tests.chat import Transcript, open_club

GAMES = """played_at,event,player_a,player_b,score_a,handicap,kind
2024-01-06T19:00:00,,ann,bob,1,,
2024-01-13T19:00:00,,ann,carl,0.5,,
2024-01-20T19:00:00,,bob,carl,0,,
"""
MODERATOR = Caller(PLATFORM, CHAT, "mod", "mod", moderator=True)


async def log(chat: Transcript) -> str:
    return render(await chat.service.audit(MODERATOR, 100))


async def top(chat: Transcript) -> str:
    return render(await chat.service.leaderboard(MODERATOR))


async def refused(chat: Transcript, user: str, line: str) -> str:
    """The answer to a refused line, and that nothing was written."""
    before = await log(chat)
    answer = await chat.as_(user, line)
    assert await log(chat) == before
    return answer


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db") as chat:
        await chat.as_("mod!", "/help")  # the club exists
        path = tmp_path / "EVENTS.csv"
        path.write_text(GAMES, encoding="utf-8")
        history = read_events(path)
        await chat.service.import_history(PLATFORM, CHAT, history, history.labels)
        yield chat


async def test_a_member_claims_an_imported_player_and_a_moderator_approves(
    chat: Transcript, tmp_path: Path
) -> None:
    ann = await chat.as_("alice", "/rating ann")
    board = await top(chat)
    assert (await chat.as_("alice", "/register")).startswith("Welcome, alice!")
    asked = await chat.as_("alice", "/claim ann")
    assert asked == text("claim_requested", member="alice", name="ann", games=2)
    assert await chat.as_("mod!", "/claim approve ann") == text(
        "claim_approved", member="alice", name="ann")
    # alice is ann now: her /rating is ann's record, with its games, and no rating changed.
    assert await chat.as_("alice", "/rating") == ann
    assert await top(chat) == board
    assert "ann" in await chat.as_("alice", "/history")
    # She plays on as ann.
    await chat.as_("dave", "/register")
    await chat.as_("dave", "/report ann loss")
    assert (await chat.as_("alice", "/confirm")).startswith("Game #")
    played = await chat.as_("alice", "/rating")
    assert played.startswith("ann (main)") and "3 games" in played
    # The same after a restart: the log says it.
    async with open_club(tmp_path / "club.db") as again:
        assert await again.as_("alice", "/rating") == played


async def test_the_claim_waits_for_a_moderator_and_can_be_declined(chat: Transcript) -> None:
    await chat.as_("alice", "/register")
    await chat.as_("alice", "/claim bob")
    assert await refused(chat, "alice", "/claim approve bob") == text("moderators_only")
    assert await chat.as_("mod!", "/claim decline bob") == text(
        "claim_declined", member="alice", name="bob")
    assert await refused(chat, "mod!", "/claim approve bob") == text("no_claim", name="bob")
    assert await refused(chat, "alice", "/rating") != await chat.as_("alice", "/rating bob")
    # Declined, she may ask again.
    assert (await chat.as_("alice", "/claim bob")).startswith("alice asks to be bob")


async def test_refusals_name_the_real_problem_and_change_nothing(chat: Transcript) -> None:
    assert await refused(chat, "zed", "/claim ann") == text("not_registered")
    for name in ("alice", "dave", "erin", "frank"):
        await chat.as_(name, "/register")
    assert await refused(chat, "alice", "/claim nobody") == text("unknown_member", name="nobody")
    assert await refused(chat, "alice", "/claim dave") == text("claim_not_imported", name="dave")
    assert await refused(chat, "alice", "/claim") == text("usage", usage=text("help_claim"))
    assert await refused(chat, "alice", "/claim ann bob") == text(
        "extra_word", word="bob", usage=text("help_claim"))
    # A member with games of their own: a moderator merges instead.
    await chat.as_("dave", "/report @erin win")
    assert await refused(chat, "dave", "/claim ann") == text(
        "claim_has_games", member="dave", name="ann")
    # One claim at a time, for a record and for a member.
    await chat.as_("alice", "/claim ann")
    assert await refused(chat, "frank", "/claim ann") == text(
        "claim_waiting", member="alice", name="ann")
    assert await refused(chat, "alice", "/claim bob") == text(
        "claim_waiting", member="alice", name="ann")
    await chat.as_("mod!", "/claim approve ann")
    assert await refused(chat, "frank", "/claim ann") == text("claim_taken", name="ann")
    assert await refused(chat, "mod!", "/claim approve ann") == text("no_claim", name="ann")


async def test_undo_takes_an_approval_back(chat: Transcript) -> None:
    await chat.as_("alice", "/register")
    mine, board = await chat.as_("alice", "/rating"), await top(chat)
    await chat.as_("alice", "/claim ann")
    await chat.as_("mod!", "/claim approve ann")
    assert await top(chat) != board  # alice's own row (no games) is folded into ann's
    await chat.as_("mod!", "/undo")
    assert await chat.as_("alice", "/rating") == mine
    assert await top(chat) == board
    # The claim waits again: a moderator answers it anew.
    assert await chat.as_("mod!", "/claim decline ann") == text(
        "claim_declined", member="alice", name="ann")


async def test_the_claim_shows_approve_and_decline_buttons(chat: Transcript) -> None:
    await chat.as_("alice", "/register")
    alice = Caller(PLATFORM, CHAT, "alice", "alice")
    asked = await chat.service.claim(alice, "request", "carl")
    assert isinstance(asked, Notice)
    claim = asked.params["claim"]
    assert isinstance(claim, int)
    assert actions_for(asked) == [[Action.choice(Group.CLAIM, "approve", claim),
                                   Action.choice(Group.CLAIM, "decline", claim)]]
    assert Action.parse(f"k:approve:{claim}") == Action.choice(Group.CLAIM, "approve", claim)
