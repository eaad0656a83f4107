"""Weekly posts through the outbox (issue 41), with a fake clock on a real SQLite database: the
posts of one instant spread over the post window by club, a window too short stretched with one
warning, a 429 moving the post, a post left "sending" by a dead process sent again with its
nonce on Discord and never again on Telegram, and a period an older version claimed never
enqueued."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.chat.posts import ChatPosts
from bot.errors import ConfigError
from bot.scheduling.publishing import (
    POST_NONCE,
    SCHEDULED_POST,
    Button,
    Picture,
    PostDelayed,
    leaving,
)
from bot.scheduling.sender import PostSender
from bot.scheduling.spread import parse_window, window_used
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.puzzles import NewProblem
from bot.settings import Settings
from bot.storage.sqlite import SqliteRepository
from tests.scheduled_posts import ScheduledPosts

from .test_schedule import FRIDAY, MONDAY_9, Recorder, club_with_players


class Platform(Recorder):
    """A platform's publisher that also keeps each post's nonce and whether it was sent as a
    scheduled post; ``delayed``: the next sends answer 429 with this ``retry_after``."""

    def __init__(self, platform: str) -> None:
        super().__init__(platform)
        self.nonces: list[str | None] = []
        self.scheduled: list[bool] = []
        self.delayed: list[float] = []
        #: cleared: the sends wait for their turn (in the rate budget) until it is set
        self.turn = asyncio.Event()
        self.turn.set()

    async def publish(self, chat_id: str, text: str, picture: Picture | None = None,
                      buttons: Sequence[Button] = ()) -> None:
        await self.turn.wait()  # its turn in the rate budget
        await leaving()  # what the platforms' rate limiters say as a request leaves
        if self.delayed:
            raise PostDelayed(self.delayed.pop(0))
        await super().publish(chat_id, text, picture, buttons)
        self.nonces.append(POST_NONCE.get())
        self.scheduled.append(SCHEDULED_POST.get())


@asynccontextmanager
async def posting(path: Path, clock: FakeClock, platform: Platform,
                  window: timedelta) -> AsyncIterator[ScheduledPosts]:
    repository = await SqliteRepository.open(path)
    service = ClubService(repository, clock)
    posts = ScheduledPosts(service, repository, {platform.platform: platform}, clock,
                           ChatPosts(), pictures=False, window=window)
    try:
        yield posts
    finally:
        await posts.stop()
        await repository.close()


async def poll_at(posts: ScheduledPosts, clock: FakeClock, when: datetime) -> None:
    clock.current = when
    for task in await posts.poll():
        await task


def outbox(path: Path) -> list[tuple[int, str, str, int]]:
    with sqlite3.connect(path) as db:
        return [(int(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in db.execute(
            "SELECT club_id, due_at, state, attempts FROM post_outbox ORDER BY due_at, club_id")]


async def test_the_posts_of_one_instant_are_spread_over_the_window_by_club(
        tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    telegram = Platform("telegram")
    async with posting(tmp_path / "club.db", clock, telegram, timedelta(seconds=120)) as posts:
        for chat in ("-1003", "-1001", "-1002"):  # clubs 1, 2, 3
            await club_with_players(posts.service, chat, "telegram")
        await poll_at(posts, clock, MONDAY_9)
        assert [chat for chat, _, _ in telegram.posts] == ["-1003"]  # club 1: at its time
        assert outbox(tmp_path / "club.db") == [
            (1, "2024-03-04T09:00:00.000000", "sent", 1),
            (2, "2024-03-04T09:00:40.000000", "due", 0),
            (3, "2024-03-04T09:01:20.000000", "due", 0)]
        await poll_at(posts, clock, MONDAY_9 + timedelta(seconds=39))
        assert len(telegram.posts) == 1
        await poll_at(posts, clock, MONDAY_9 + timedelta(seconds=40))
        await poll_at(posts, clock, MONDAY_9 + timedelta(seconds=80))
        await poll_at(posts, clock, MONDAY_9 + timedelta(minutes=5))
        assert [chat for chat, _, _ in telegram.posts] == ["-1003", "-1001", "-1002"]
        assert telegram.scheduled == [True] * 3
        assert [state for _, _, state, _ in outbox(tmp_path / "club.db")] == ["sent"] * 3


async def test_a_clubs_ladders_of_one_instant_post_at_its_time_together(
        tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    telegram = Platform("telegram")
    async with posting(tmp_path / "club.db", clock, telegram, timedelta(seconds=120)) as posts:
        moderator = Caller("telegram", "-1001", "mod", "mod", moderator=True)
        await posts.service.create_ladder(moderator, "puzzles", "tactics", {})
        await posts.service.add_problem(moderator, NewProblem("p1", "Mate in one", ["Qh7"]))
        await club_with_players(posts.service, "-1001", "telegram")
        await club_with_players(posts.service, "-1002", "telegram")
        await poll_at(posts, clock, MONDAY_9)
        # club 1's two ladders at its time, club 2 half the window later (2 clubs, not 3 posts)
        assert sorted(text.split(" (")[0].split(",")[0] for _, text, _ in telegram.posts) == [
            "Puzzle p1", "main ladder"]
        assert outbox(tmp_path / "club.db") == [
            (1, "2024-03-04T09:00:00.000000", "sent", 1),
            (1, "2024-03-04T09:00:00.000000", "sent", 1),
            (2, "2024-03-04T09:01:00.000000", "due", 0)]


async def test_a_schedule_s_wake_up_enqueues_every_ladder_on_it_at_its_place(
        tmp_path: Path) -> None:
    """One cron job per schedule (issue 41): its wake-up enqueues the ladders on it, each at its
    place among them; a ladder on another schedule waits for its own."""
    clock = FakeClock(FRIDAY)
    telegram = Platform("telegram")
    async with posting(tmp_path / "club.db", clock, telegram, timedelta(seconds=120)) as posts:
        for chat in ("-1001", "-1002", "-1003", "-1004"):
            await club_with_players(posts.service, chat, "telegram")
        moderator = Caller("telegram", "-1004", "mod", "mod", moderator=True)
        await posts.service.set_schedule(moderator, "main", cron="0 20 * * 3", timezone="UTC")
        await poll_at(posts, clock, FRIDAY)  # reads the plans
        clock.current = MONDAY_9
        # what APScheduler calls at Monday 09:00: the three clubs on the schedule, the first
        # sent at once
        for task in await posts.fire("0 9 * * MON", "UTC"):
            await task
        assert outbox(tmp_path / "club.db") == [
            (1, "2024-03-04T09:00:00.000000", "sent", 1),
            (2, "2024-03-04T09:00:40.000000", "due", 0),
            (3, "2024-03-04T09:01:20.000000", "due", 0)]


def test_a_window_too_short_is_stretched_to_half_the_platforms_rate() -> None:
    assert parse_window("7200") == parse_window("120m") == parse_window("2h") == \
        timedelta(hours=2)
    assert parse_window("120s") == timedelta(seconds=120) and parse_window("0") == timedelta(0)
    hours_2 = timedelta(hours=2)
    assert window_used(hours_2, 10_000, "telegram") == hours_2  # 1.4 a second fits
    assert window_used(hours_2, 200_000, "telegram") == timedelta(seconds=200_000 / 15)
    assert window_used(hours_2, 200_000, "discord") == timedelta(seconds=8_000)
    assert window_used(timedelta(0), 200_000, "telegram") == timedelta(0)  # no spread asked
    assert window_used(timedelta(seconds=1), 10**6, "console") == timedelta(seconds=1)


def test_the_window_setting_is_checked() -> None:
    assert Settings.from_environment({}).post_window == timedelta(hours=2)
    assert Settings.from_environment(
        {"CLUBRATING_POST_WINDOW": "30m"}).post_window == timedelta(minutes=30)
    for bad in ("2 days", "-5", "h"):
        with pytest.raises(ConfigError, match="CLUBRATING_POST_WINDOW must be a duration"):
            Settings.from_environment({"CLUBRATING_POST_WINDOW": bad})


async def test_a_stretched_window_is_said_once(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock(FRIDAY)
    telegram = Platform("telegram")
    # 30 clubs in a window of 1 s: 2 s are needed at 15 posts a second
    async with posting(tmp_path / "club.db", clock, telegram, timedelta(seconds=1)) as posts:
        for n in range(30):
            await club_with_players(posts.service, f"-{2000 + n}", "telegram")
        with caplog.at_level(logging.WARNING):
            for when in (MONDAY_9, datetime(2024, 3, 11, 9, 0)):
                await poll_at(posts, clock, when)
                assert len(telegram.posts) % 30 == 1  # the first club's at once
                # the others within 2 s, 20 at a time (IN_FLIGHT)
                for _ in range(2):
                    await poll_at(posts, clock, when + timedelta(seconds=2))
                assert len(telegram.posts) % 30 == 0
        assert len(telegram.posts) == 60
        warned = [r.getMessage() for r in caplog.records if "do not fit" in r.getMessage()]
        assert warned == ["scheduled posts: 30 telegram posts at 2024-03-04T09:00:00 do not fit "
                          "in the post window of 1 s at 15 posts a second (half the platform's "
                          "rate); spread over 2 s instead"]
        assert outbox(tmp_path / "club.db")[29][1] == "2024-03-04T09:00:01.933333"


async def test_a_429_moves_the_post_by_its_retry_after(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    telegram = Platform("telegram")
    telegram.delayed = [30.0]
    async with posting(tmp_path / "club.db", clock, telegram, timedelta(0)) as posts:
        await club_with_players(posts.service, "-1001", "telegram")
        await poll_at(posts, clock, MONDAY_9 + timedelta(seconds=5))
        assert telegram.posts == []
        assert outbox(tmp_path / "club.db") == [(1, "2024-03-04T09:00:35.000000", "due", 1)]
        await poll_at(posts, clock, MONDAY_9 + timedelta(seconds=34))
        assert telegram.posts == []
        await poll_at(posts, clock, MONDAY_9 + timedelta(seconds=35))
        await poll_at(posts, clock, MONDAY_9 + timedelta(seconds=60))
        assert len(telegram.posts) == 1
        assert outbox(tmp_path / "club.db") == [(1, "2024-03-04T09:00:35.000000", "sent", 2)]


async def died_sending(path: Path, clock: FakeClock, platform: str, chat: str) -> None:
    """A process that enqueued the club's Monday post, claimed it, marked it ``sending``, and
    died before it could say ``sent``."""
    repository = await SqliteRepository.open(path)
    try:
        service = ClubService(repository, clock)
        await club_with_players(service, chat, platform)
        scheduler = ScheduledPosts(service, repository, {}, clock, ChatPosts(), pictures=False)
        scheduler.publishers[platform] = Platform(platform)  # enqueues; its sender has none
        clock.current = MONDAY_9
        await scheduler.poll()
        [row] = await repository.claim_outbox([platform], "dead:1", MONDAY_9,
                                              MONDAY_9 + timedelta(seconds=120), 10)
        await repository.outbox_sending(row.id, MONDAY_9)
    finally:
        await repository.close()


async def test_a_discord_post_left_sending_is_sent_again_with_its_nonce(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    path = tmp_path / "club.db"
    await died_sending(path, clock, "discord", "9001")
    discord = Platform("discord")
    async with posting(path, clock, discord, timedelta(0)) as posts:
        await poll_at(posts, clock, MONDAY_9 + timedelta(seconds=119))
        assert discord.posts == []  # the dead process's lease still runs
        await poll_at(posts, clock, MONDAY_9 + timedelta(seconds=120))
        assert len(discord.posts) == 1 and discord.nonces == ["clubrating-1"]
        assert outbox(path) == [(1, "2024-03-04T09:00:00.000000", "sent", 2)]


async def test_a_telegram_post_left_sending_is_never_sent_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock(FRIDAY)
    path = tmp_path / "club.db"
    await died_sending(path, clock, "telegram", "-1001")
    telegram = Platform("telegram")
    async with posting(path, clock, telegram, timedelta(0)) as posts:
        await poll_at(posts, clock, MONDAY_9 + timedelta(minutes=3))
        await poll_at(posts, clock, MONDAY_9 + timedelta(minutes=10))
        assert telegram.posts == []
        assert outbox(path) == [(1, "2024-03-04T09:00:00.000000", "given_up", 1)]
        assert ("post of telegram:-1001 main scheduled for 2024-03-04T09:00:00 was being sent "
                "when its process stopped: maybe made, not sent again (at most once)"
                in caplog.text)


async def test_a_period_an_older_version_claimed_is_not_enqueued(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    telegram = Platform("telegram")
    async with posting(tmp_path / "club.db", clock, telegram, timedelta(0)) as posts:
        await club_with_players(posts.service, "-1001", "telegram")
        # what a version without the outbox did on Monday 09:00 before the upgrade
        assert await posts.repository.claim_post(1, "main", MONDAY_9, MONDAY_9)
        await poll_at(posts, clock, MONDAY_9 + timedelta(minutes=1))
        assert telegram.posts == [] and outbox(tmp_path / "club.db") == []


async def test_a_sender_without_the_platform_leaves_its_rows(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    path = tmp_path / "club.db"
    telegram = Platform("telegram")
    async with posting(path, clock, telegram, timedelta(0)) as posts:
        await club_with_players(posts.service, "9001", "discord")
        posts.publishers["discord"] = Platform("discord")  # the scheduler knows Discord...
        await poll_at(posts, clock, MONDAY_9)
        # ...this process's sender serves Telegram alone: the row waits for a Discord one
        assert outbox(path) == [(1, "2024-03-04T09:00:00.000000", "due", 0)]
        discord = Platform("discord")
        sender = PostSender(posts.service, posts.repository, {"discord": discord}, clock,
                            ChatPosts(), pictures=False)
        for task in await sender.send_due():
            await task
        assert len(discord.posts) == 1 and outbox(path)[0][2] == "sent"


async def test_a_row_the_database_could_not_finish_is_never_sent_twice_on_telegram(
        tmp_path: Path, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock(FRIDAY)
    telegram = Platform("telegram")
    async with posting(tmp_path / "club.db", clock, telegram, timedelta(0)) as posts:
        await club_with_players(posts.service, "-1001", "telegram")
        finish = posts.repository.outbox_done

        async def unreachable(row_id: int, state: str, now: datetime) -> None:
            monkeypatch.setattr(posts.repository, "outbox_done", finish)  # back after once
            raise ConnectionError("database unreachable")

        monkeypatch.setattr(posts.repository, "outbox_done", unreachable)
        await poll_at(posts, clock, MONDAY_9)
        assert len(telegram.posts) == 1
        assert "the outbox could not be updated" in caplog.text
        assert outbox(tmp_path / "club.db") == [(1, "2024-03-04T09:00:00.000000", "sending", 1)]
        await poll_at(posts, clock, MONDAY_9 + timedelta(minutes=2))
        assert len(telegram.posts) == 1  # sent, but the row did not say so: not again
        assert outbox(tmp_path / "club.db") == [
            (1, "2024-03-04T09:00:00.000000", "given_up", 1)]


async def test_a_post_waiting_for_its_turn_is_sent_after_its_process_died(
        tmp_path: Path) -> None:
    # Marked "sending" only once its request leaves, after its wait in the rate budget: a
    # Telegram post whose process was killed while it waited is sent by the next sender, where
    # a mark made before the wait had it given up (bench/scale.py lost 8 posts that way).
    clock = FakeClock(FRIDAY)
    path = tmp_path / "club.db"
    waiting = Platform("telegram")
    waiting.turn.clear()
    async with posting(path, clock, waiting, timedelta(0)) as posts:
        await club_with_players(posts.service, "-1001", "telegram")
        clock.current = MONDAY_9
        tasks = await posts.poll()
        for _ in range(100):
            await asyncio.sleep(0.01)
            if outbox(path)[0][2] == "claimed":
                break
        assert outbox(path) == [(1, "2024-03-04T09:00:00.000000", "claimed", 0)]
        for task in tasks:  # the process dies while its post waits for its turn
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    telegram = Platform("telegram")
    async with posting(path, clock, telegram, timedelta(0)) as posts:
        await poll_at(posts, clock, MONDAY_9 + timedelta(minutes=3))  # its lease ended
        assert [chat for chat, _, _ in telegram.posts] == ["-1001"]
        assert outbox(path) == [(1, "2024-03-04T09:00:00.000000", "sent", 1)]
    assert waiting.posts == []
