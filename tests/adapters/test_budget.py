"""The rate budget a token's processes share (issue 41): sliding windows that answers go through
before scheduled posts, each process's share of the platform's limits, and which Discord
requests count."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.adapters import budget
from bot.adapters.budget import Limit, RateBudget, Share, Window
from bot.adapters.discord_budget import counted
from bot.adapters.telegram_budget import SharedFloodLimits
from bot.scheduling.publishing import SCHEDULED_POST
from tests.flood_control import FloodControl, FloodLimit


@pytest.fixture(autouse=True)
def no_spread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows of their period alone, so that the tests' short periods stay exact."""
    monkeypatch.setattr(budget, "ARRIVAL_SPREAD", 0.0)


def test_a_share_is_the_limit_divided_rounded_down() -> None:
    assert Share.of(30, 1, 1) == Share(30, 1)
    assert Share.of(30, 1, 2) == Share(15, 1)
    assert Share.of(20, 60, 3) == Share(6, 60)  # 3 x 6 = 18: never more than 20 in all
    assert Share.of(20, 60, 40) == Share(1, 120)  # less than one a minute: one in two


async def test_a_window_lets_its_count_through_in_any_period() -> None:
    window = Window(Share(3, 0.3))
    loop = asyncio.get_running_loop()
    sent: list[float] = []

    async def send() -> None:
        async with window.turn(post=False):
            pass
        sent.append(loop.time())

    await asyncio.gather(*(send() for _ in range(7)))
    # 3 at once, 3 a period later, the seventh a period after the fourth
    assert all(later - earlier >= 0.3 for earlier, later in zip(sent, sent[3:], strict=False))
    assert sent[6] - sent[0] >= 0.6


async def test_answers_go_before_scheduled_posts_that_waited_longer() -> None:
    window = Window(Share(1, 0.2))
    order: list[str] = []

    async def send(name: str, post: bool) -> None:
        async with window.turn(post):
            order.append(name)

    await send("first answer", False)  # the window is full for 0.2 s
    posts = [asyncio.create_task(send(f"post {n}", True)) for n in range(2)]
    await asyncio.sleep(0.05)
    answers = [asyncio.create_task(send(f"answer {n}", False)) for n in range(2)]
    await asyncio.gather(*posts, *answers)
    assert order == ["first answer", "answer 0", "answer 1", "post 0", "post 1"]


async def test_a_request_made_for_a_scheduled_post_waits_for_answers() -> None:
    limits = SharedFloodLimits()
    limits.overall.divide(30)  # one request a second in all
    order: list[str] = []

    async def call(name: str) -> str:
        order.append(name)
        return name

    async def request(name: str, post: bool) -> object:
        SCHEDULED_POST.set(post)
        return await limits.process_request(call, (name,), {}, "sendMessage",
                                            {"chat_id": 7}, None)

    await request("answer", False)
    post = asyncio.create_task(request("weekly post", True))
    await asyncio.sleep(0.1)
    answer = asyncio.create_task(request("late answer", False))
    await asyncio.gather(post, answer)
    assert order == ["answer", "late answer", "weekly post"]


class Slots:
    """The database's count of a token's processes, as a test sets it."""

    def __init__(self) -> None:
        self.processes = 2
        self.held: list[tuple[int, int]] = []

    async def hold_budget_slot(self, namespace: int, slots: int) -> bool:
        self.held.append((namespace, slots))
        return True

    async def budget_processes(self, namespace: int) -> int:
        return self.processes


async def test_each_process_keeps_to_its_share_and_grows_back(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "bot.adapters.budget")
    slots = Slots()
    limits = [Limit(30, 1, "{share} requests a second each"),
              Limit(20, 60, "{share} a minute in each group")]
    shared = RateBudget("telegram", limits, slots, refresh=0.05)
    group = limits[1].window(-100)
    await shared.start("telegram", 123456)
    try:
        assert limits[0].window().share == Share(15, 1) and group.share == Share(10, 60)
        slots.processes = 1  # the other process died
        await asyncio.sleep(0.2)
        assert limits[0].window().share == Share(30, 1) and group.share == Share(20, 60)
    finally:
        await shared.stop()
    namespace = budget.budget_namespace("telegram", 123456)
    assert slots.held[0] == (namespace, budget.SLOTS) and 0 < namespace < 2**31
    assert [r.getMessage() for r in caplog.records] == [
        "rate budget of telegram:123456: 2 processes, 15 requests a second each, "
        "10 a minute in each group",
        "rate budget of telegram:123456: 1 process, 30 requests a second each, "
        "20 a minute in each group"]


def test_discord_counts_the_tokens_requests_but_not_interactions() -> None:
    bot = "Bot abc.def"
    assert counted("/api/v10/channels/1/messages", bot)
    assert counted("/api/v10/gateway/bot", bot)
    assert not counted("/api/v10/interactions/1/token/callback", bot)
    assert not counted("/api/v10/webhooks/700/token/messages/@original", bot)
    assert not counted("/api/v10/webhooks/700/token", None)  # no token: not the bot's


def test_the_fakes_flood_control_counts_any_span() -> None:
    control = FloodControl([FloodLimit(2, 1.0), FloodLimit(1, 60.0, per_key=True)], on=True)
    assert control.admit(-1) is None and control.admit() is None
    assert control.admit() == 1  # a third in the second
    assert control.admit(-1) is not None  # the group's second in the minute
    control.sends = [(0.0, None), (0.5, None), (1.0, None), (1.2, None), (1.9, None)]
    assert control.most(1.0) == 3  # 1.0, 1.2, 1.9


def test_a_share_below_one_a_period_is_logged_as_a_fraction() -> None:
    limit = Limit(20, 60, "{share} a minute in each group")
    limit.divide(40)
    assert limit.described_share() == "0.5 a minute in each group"
    limit.divide(3)
    assert limit.described_share() == "6 a minute in each group"
