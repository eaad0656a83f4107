"""Each chat's answers leave in order, on a task of that chat's own (``bot/adapters/outbox.py``):
a chat that waits (for its flood limit) holds up no other, a failed send is logged and the next
goes on, and a stopping bot gives up what it cannot send in time."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.adapters.outbox import Outbox


async def test_a_chats_answers_leave_in_order_and_a_waiting_chat_holds_up_no_other() -> None:
    outbox, sent = Outbox(), []
    release = asyncio.Event()

    async def send(chat: str, n: int, wait: bool = False) -> None:
        if wait:
            await release.wait()
        sent.append((chat, n))

    outbox.put("busy", lambda: send("busy", 1, wait=True))
    for n in (2, 3):
        outbox.put("busy", lambda n=n: send("busy", n))
    for n in (1, 2):
        outbox.put("calm", lambda n=n: send("calm", n))
    await asyncio.sleep(0.01)
    assert sent == [("calm", 1), ("calm", 2)]  # the busy chat's first still waits
    release.set()
    await outbox.close(1.0)
    assert sent[2:] == [("busy", 1), ("busy", 2), ("busy", 3)]


async def test_a_failed_send_is_logged_and_the_next_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    outbox, sent = Outbox(), []

    async def fail() -> None:
        raise RuntimeError("refused")

    async def send() -> None:
        sent.append("next")

    outbox.put(1, fail)
    outbox.put(1, send)
    with caplog.at_level(logging.ERROR, logger="bot.adapters.outbox"):
        await outbox.close(1.0)
    assert sent == ["next"]
    assert "could not send into chat 1" in caplog.text


async def test_past_its_room_a_chat_drops_further_sends_and_a_stop_gives_up_the_rest() -> None:
    outbox, started = Outbox(max_waiting=2), []

    async def forever(n: int) -> None:
        started.append(n)
        await asyncio.Event().wait()

    for n in range(5):
        outbox.put("flooded", lambda n=n: forever(n))
    await asyncio.sleep(0.01)
    await outbox.close(0.05)  # the first never ends: cancelled, and the others given up
    assert started == [0]
    outbox.put("flooded", lambda: forever(9))  # after a stop, a chat starts afresh
    await asyncio.sleep(0.01)
    assert started == [0, 9]
    await outbox.close(0.01)
