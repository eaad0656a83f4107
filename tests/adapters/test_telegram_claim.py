"""Claiming an imported player through Telegram (issue 15): a member's ``/claim NAME`` shows
Approve and Decline; a member's press is refused, a group administrator's Approve links the
member to the imported record."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.history import read_events
from tests.telegram_harness import Running, club_state, press, running_bot, say

GROUP = -1002
GAMES = """played_at,event,player_a,player_b,score_a,handicap,kind
2024-01-06T19:00:00,,ann,bob,1,,
"""


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[Running]:
    async with running_bot(tmp_path / "club.db") as running:
        path = tmp_path / "EVENTS.csv"
        path.write_text(GAMES, encoding="utf-8")
        history = read_events(path)
        await running.service.import_history("telegram", str(GROUP), history, history.labels)
        yield running


async def test_an_administrator_approves_a_claim_with_the_button(bot: Running) -> None:
    tg = bot.tg
    ada = tg.user(1, "Ada", "ada")
    alice, bob = tg.user(2, "Alice", "alice"), tg.user(3, "Bob", "bob")
    group = tg.group(GROUP, "Go club", admins=[ada])
    ann = (await say(bot, group, alice, "/rating ann")).plain
    await say(bot, group, alice, "/register")
    await say(bot, group, bob, "/register")
    asked = await say(bot, group, alice, "/claim ann")
    assert asked.plain == text("claim_requested", member="alice", name="ann", games=1)
    ((approve, approve_id), (decline, decline_id)) = asked.buttons[0]
    assert (approve, decline) == ("Approve", "Decline")
    assert approve_id is not None and approve_id.startswith("k:approve:")
    assert decline_id == approve_id.replace("approve", "decline")
    # A member may not answer the claim, even their own.
    before = await club_state(bot, group)
    for member in (alice, bob):
        answer = await press(bot, group, member, asked, approve_id)
        assert answer["text"] == text("moderators_only")
    assert await club_state(bot, group) == before
    await press(bot, group, ada, asked, approve_id)
    approved = await tg.reply(group)
    assert (approved.kind, approved.message_id) == ("edit", asked.message_id)
    assert approved.plain == text("claim_approved", member="alice", name="ann")
    assert approved.buttons == []
    assert (await say(bot, group, alice, "/rating")).plain == ann
