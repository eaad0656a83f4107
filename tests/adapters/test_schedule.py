"""The scheduler with a fake clock on a real database: weekly posts, daylight saving, catch-up
once after downtime, no duplicate across a restart (two schedulers on one file), each club in
its own time zone, retries with backoff, and a slow platform that holds nobody up."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest

from bot.chat.posts import ChatPosts
from bot.chat.presenter import render
from bot.scheduling.publishing import Button, Picture, PostRefused
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.puzzles import NewProblem
from bot.storage.pictures import PictureStore
from bot.storage.sqlite import SqliteRepository
from tests.scheduled_posts import ScheduledPosts

FRIDAY = datetime(2024, 3, 1, 19, 0)
MONDAY_9 = datetime(2024, 3, 4, 9, 0)


class Recorder:
    """A publisher that keeps what it was asked to post; it can fail the first sends."""

    def __init__(self, platform: str = "console", failures: int = 0) -> None:
        self.platform = platform
        self.failures = failures
        self.posts: list[tuple[str, str, Picture | None]] = []
        #: the buttons under each post (a puzzle's), in the order of ``posts``
        self.buttons: list[Sequence[Button]] = []

    async def publish(self, chat_id: str, text: str, picture: Picture | None = None,
                      buttons: Sequence[Button] = ()) -> None:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("platform unreachable")
        self.posts.append((chat_id, text, picture))
        self.buttons.append(buttons)


class Refusing(Recorder):
    """A platform that refuses posts into ``refused`` chats for good (the bot was removed)."""

    def __init__(self, refused: set[str]) -> None:
        super().__init__()
        self.refused = refused

    async def publish(self, chat_id: str, text: str, picture: Picture | None = None,
                      buttons: Sequence[Button] = ()) -> None:
        if chat_id in self.refused:
            raise PostRefused("Forbidden: bot was kicked from the channel chat")
        await super().publish(chat_id, text, picture, buttons)


class Stuck:
    """A platform that never answers."""

    platform = "stuck"

    async def publish(self, chat_id: str, text: str, picture: Picture | None = None,
                      buttons: Sequence[Button] = ()) -> None:
        await asyncio.Event().wait()


@dataclass
class Bot:
    """One bot process: its own connection, service and scheduler, on a shared file."""

    repository: SqliteRepository
    service: ClubService
    scheduler: ScheduledPosts
    recorder: Recorder
    delays: list[float] = field(default_factory=list)

    async def poll(self) -> None:
        await asyncio.gather(*await self.scheduler.poll())


@asynccontextmanager
async def bot_on(path: Path, clock: FakeClock, failures: int = 0) -> AsyncIterator[Bot]:
    repository = await SqliteRepository.open(path)
    service = ClubService(repository, clock)
    recorder = Recorder(failures=failures)
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    scheduler = ScheduledPosts(service, repository, {"console": recorder}, clock, ChatPosts(),
                              pictures=False, sleep=sleep)
    try:
        yield Bot(repository, service, scheduler, recorder, delays)
    finally:
        await scheduler.stop()
        await repository.close()


def mod(chat: str = "local", platform: str = "console") -> Caller:
    return Caller(platform, chat, "mod", "mod", moderator=True)


async def club_with_players(service: ClubService, chat: str = "local",
                            platform: str = "console") -> None:
    for name in ("alice", "bob"):
        await service.register(Caller(platform, chat, name, name))


def claimed(path: Path) -> list[tuple[int, str, str]]:
    with sqlite3.connect(path) as db:
        return [(int(r[0]), str(r[1]), str(r[2])) for r in db.execute(
            "SELECT club_id, ladder, scheduled_for FROM posts ORDER BY club_id, scheduled_for")]


async def test_posts_weekly_and_once_per_week(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock) as bot:
        await club_with_players(bot.service)
        await bot.poll()
        assert bot.recorder.posts == []
        clock.current = datetime(2024, 3, 4, 8, 59)
        await bot.poll()
        assert bot.recorder.posts == []
        clock.current = MONDAY_9
        await bot.poll()
        clock.advance(minutes=1)
        await bot.poll()  # the same Monday: nothing more
        assert [(chat, text.splitlines()[0]) for chat, text, _ in bot.recorder.posts] == [
            ("local", "main ladder, changes since Mon, Feb 26 09:00 UTC")]
        clock.current = datetime(2024, 3, 11, 9, 0, 30)
        await bot.poll()
        assert len(bot.recorder.posts) == 2
        assert claimed(tmp_path / "club.db") == [
            (1, "main", "2024-03-04T09:00:00"), (1, "main", "2024-03-11T09:00:00")]


async def test_the_cron_jobs_wake_up_posts_the_same_once(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock) as bot:
        await club_with_players(bot.service)
        await bot.poll()  # reads the plans
        clock.current = MONDAY_9
        # what APScheduler calls at Monday 09:00
        await asyncio.gather(*await bot.scheduler.fire("0 9 * * MON", "UTC"))
        await bot.poll()
        assert len(bot.recorder.posts) == 1


async def test_after_downtime_the_last_missed_post_catches_up_once(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock) as bot:
        await club_with_players(bot.service)
        await bot.poll()
    clock.current = datetime(2024, 3, 27, 12, 0)  # down for four Mondays
    async with bot_on(tmp_path / "club.db", clock) as bot:
        await bot.poll()
        await bot.poll()
        assert len(bot.recorder.posts) == 1
        assert bot.recorder.posts[0][1].startswith(
            "main ladder, changes since Mon, Mar 18 09:00 UTC")
    assert claimed(tmp_path / "club.db") == [(1, "main", "2024-03-25T09:00:00")]


async def test_a_restart_never_posts_twice(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    path = tmp_path / "club.db"
    async with bot_on(path, clock) as first:
        await club_with_players(first.service)
        clock.current = MONDAY_9
        await first.poll()
        assert len(first.recorder.posts) == 1
    clock.advance(minutes=2)  # restarted a little later, the same Monday
    async with bot_on(path, clock) as again:
        await again.poll()
        assert again.recorder.posts == []
    # Two processes waking at the same moment: exactly one of them posts.
    clock.current = datetime(2024, 3, 11, 9, 0)
    async with bot_on(path, clock) as a, bot_on(path, clock) as b:
        await asyncio.gather(a.poll(), b.poll())
        assert len(a.recorder.posts) + len(b.recorder.posts) == 1
    assert [row[2] for row in claimed(path)] == ["2024-03-04T09:00:00", "2024-03-11T09:00:00"]


async def test_daylight_saving_keeps_nine_in_berlin(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2024, 3, 20, 12, 0))
    path = tmp_path / "club.db"
    async with bot_on(path, clock) as bot:
        await club_with_players(bot.service)
        await bot.service.set_schedule(mod(), timezone="Europe/Berlin")
        posted = []
        # Poll every half hour through both Mondays around the change to summer time.
        for day in (25, 1):
            month = 3 if day == 25 else 4
            for hour in range(5, 11):
                for minute in (0, 30):
                    clock.current = datetime(2024, month, day, hour, minute)
                    before = len(bot.recorder.posts)
                    await bot.poll()
                    if len(bot.recorder.posts) > before:
                        posted.append(clock.current)
        assert posted == [datetime(2024, 3, 25, 8, 0), datetime(2024, 4, 1, 7, 0)]


async def test_each_club_posts_at_nine_in_its_own_zone(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock) as bot:
        for chat, zone in (("berlin", "Europe/Berlin"), ("newyork", "America/New_York"),
                           ("tokyo", "Asia/Tokyo")):
            await club_with_players(bot.service, chat)
            await bot.service.set_schedule(mod(chat), timezone=zone)
        order = []
        for hour in range(0, 24):  # Monday 4 March, hour by hour in UTC
            clock.current = datetime(2024, 3, 4, hour, 0)
            seen = len(bot.recorder.posts)
            await bot.poll()
            order += [(hour, chat) for chat, _, _ in bot.recorder.posts[seen:]]
        # 09:00 JST = 00:00 UTC, 09:00 CET = 08:00 UTC, 09:00 EST = 14:00 UTC
        assert order == [(0, "tokyo"), (8, "berlin"), (14, "newyork")]


async def test_a_failing_send_is_retried_with_backoff(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock, failures=2) as bot:
        await club_with_players(bot.service)
        clock.current = MONDAY_9
        await bot.poll()
        assert bot.delays == [2.0, 4.0]
        assert len(bot.recorder.posts) == 1
        assert "failed (ConnectionError('platform unreachable')); attempt 2 of 5" in caplog.text


async def test_a_send_that_keeps_failing_gives_up_and_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock, failures=99) as bot:
        await club_with_players(bot.service)
        clock.current = MONDAY_9
        await bot.poll()
        assert bot.delays == [2.0, 4.0, 8.0, 16.0]
        assert bot.recorder.posts == []
        assert "posting to console:local failed 5 times, giving up" in caplog.text
        await bot.poll()  # claimed: not tried again
        assert bot.delays == [2.0, 4.0, 8.0, 16.0]


async def test_a_stuck_platform_holds_up_no_other_club(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    repository = await SqliteRepository.open(tmp_path / "club.db")
    service = ClubService(repository, clock)
    recorder = Recorder()
    scheduler = ScheduledPosts(service, repository, {"stuck": Stuck(), "console": recorder},
                              clock, ChatPosts(), pictures=False)
    try:
        await club_with_players(service, "stuck-group", platform="stuck")
        await club_with_players(service)
        clock.current = MONDAY_9
        tasks = await scheduler.poll()
        assert len(tasks) == 2
        done, pending = await asyncio.wait(tasks, timeout=0.5)
        assert len(done) == 1 and len(pending) == 1
        assert [chat for chat, _, _ in recorder.posts] == ["local"]
    finally:
        await scheduler.stop(grace_seconds=0.1)
        await repository.close()


async def test_paused_and_unknown_platforms_post_nothing(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock) as bot:
        await club_with_players(bot.service)
        await club_with_players(bot.service, "-100", platform="telegram")  # no publisher here
        await bot.service.pause_schedule(mod(), True)
        clock.current = MONDAY_9
        await bot.poll()
        assert bot.recorder.posts == []
        assert claimed(tmp_path / "club.db") == []
        # Resumed after Monday's time: that post is not made up for, the next one comes.
        clock.advance(hours=1)
        await bot.service.pause_schedule(mod(), False)
        await bot.poll()
        assert bot.recorder.posts == []
        clock.current = datetime(2024, 3, 11, 9, 0)
        await bot.poll()
        assert len(bot.recorder.posts) == 1


async def test_posts_go_to_the_channel_set(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock) as bot:
        await club_with_players(bot.service)
        await bot.service.set_schedule(mod(), cron="30 18 * * FRI", channel="-100777", size="1")
        clock.current = datetime(2024, 3, 8, 18, 30)
        await bot.poll()
        [(chat, text, _)] = bot.recorder.posts
        assert chat == "-100777"
        assert text.splitlines()[1].startswith("  1. ")
        assert not text.splitlines()[2].startswith("  2. ")  # size=1: the top row only


async def test_a_post_the_platform_refuses_pauses_the_schedule_and_tells_the_club_once(
        tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock) as bot:
        refusing = Refusing({"-100777"})
        bot.scheduler.publish_with("console", refusing)
        await club_with_players(bot.service)
        await bot.service.set_schedule(mod(), cron="30 18 * * FRI", channel="-100777")
        clock.current = datetime(2024, 3, 8, 18, 30)
        await bot.poll()
        await asyncio.gather(*bot.scheduler._tasks)
        # No retry of a refusal: the club's own chat is told, once, and the schedule paused.
        assert bot.delays == []
        [(chat, told, _)] = refusing.posts
        assert chat == "local" and told.startswith("Scheduled posts of main are paused: "
                                                   "Console refused the post to -100777")
        shown = await bot.service.show_schedule(mod())
        assert "paused" in render(shown)
        clock.current = datetime(2024, 3, 15, 18, 30)
        await bot.poll()
        await asyncio.gather(*bot.scheduler._tasks)
        assert len(refusing.posts) == 1  # paused: nothing tried, nobody told again
        audit = render(await bot.service.audit(mod(), 5))
        assert "the platform refused the post: Forbidden: bot was kicked" in audit


async def test_a_ladder_nobody_plays_on_is_not_posted(tmp_path: Path) -> None:
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock) as bot:
        await bot.service.leaderboard(Caller("console", "local", "guest", "guest"))
        clock.current = MONDAY_9
        await bot.poll()
        assert bot.recorder.posts == []


async def test_apscheduler_runs_the_poll_and_one_cron_job_per_schedule(tmp_path: Path) -> None:
    """A cron job per schedule the ladders post on (issue 41: not one per ladder, all waking at
    once); a schedule no ladder posts on any more loses its job."""
    clock = FakeClock(FRIDAY)
    async with bot_on(tmp_path / "club.db", clock) as bot:
        await club_with_players(bot.service)
        for ladder in ("blitz", "rapid"):
            await bot.service.create_ladder(mod(), ladder)
            await bot.service.set_schedule(mod(), ladder, cron="0 20 * * 3",
                                           timezone="Europe/Berlin")
        bot.scheduler.poll_seconds = 0.05
        await bot.scheduler.start()
        for _ in range(200):
            if len(bot.scheduler.jobs()) == 3:
                break
            await asyncio.sleep(0.01)
        jobs = {job.id: job for job in bot.scheduler.jobs()}
        berlin = "post:Europe/Berlin 0 20 * * 3"
        assert set(jobs) == {"poll", "post:UTC 0 9 * * MON", berlin}
        assert str(jobs[berlin].trigger.timezone) == "Europe/Berlin"
        # One of the two ladders on it paused from elsewhere: the job stays for the other;
        # both paused, it goes at the next poll.
        other = ClubService(bot.repository, clock)
        await other.pause_schedule(mod(), True, "blitz")
        await asyncio.sleep(0.3)
        assert berlin in {job.id for job in bot.scheduler.jobs()}
        await other.pause_schedule(mod(), True, "rapid")
        for _ in range(200):
            if len(bot.scheduler.jobs()) == 2:
                break
            await asyncio.sleep(0.01)
        assert {job.id for job in bot.scheduler.jobs()} == {"poll", "post:UTC 0 9 * * MON"}


async def test_claim_post_is_true_for_exactly_one_claimant(tmp_path: Path) -> None:
    path = tmp_path / "club.db"
    first, second = await SqliteRepository.open(path), await SqliteRepository.open(path)
    try:
        club = await first.club_id("console", "local", FRIDAY)
        other = await first.club_id("console", "other", FRIDAY)
        claims = await asyncio.gather(*(
            repo.claim_post(club, "main", MONDAY_9, FRIDAY)
            for repo in (first, second) * 5
        ))
        assert sorted(claims) == [False] * 9 + [True]
        # Another time, ladder or club is another post.
        assert await second.claim_post(club, "main", datetime(2024, 3, 11, 9, 0), FRIDAY)
        assert await second.claim_post(club, "blitz", MONDAY_9, FRIDAY)
        assert await first.claim_post(other, "main", MONDAY_9, FRIDAY)
        assert not await first.claim_post(other, "main", MONDAY_9, MONDAY_9)
    finally:
        await first.close()
        await second.close()


async def test_a_puzzle_ladder_posts_a_problem_then_its_solution(tmp_path: Path) -> None:
    """Issue 34: a puzzle ladder's post is a problem with its picture and a button to solve it
    privately; the next one shows its solution and its fastest solver, then the next problem."""
    clock = FakeClock(FRIDAY)
    store = PictureStore(tmp_path)
    picture = store.put(PIXEL)
    repository = await SqliteRepository.open(tmp_path / "club.db")
    service = ClubService(repository, clock)
    recorder = Recorder()
    scheduler = ScheduledPosts(service, repository, {"console": recorder}, clock, ChatPosts(),
                              pictures=False, store=store)
    try:
        await service.create_ladder(mod(), "puzzles", "tactics", {})
        await service.add_problem(mod(), NewProblem("p1", "White mates in one", ["Qh7"],
                                                    picture))
        await service.add_problem(mod(), NewProblem("p2", "Mate in two", ["Rd8"]))
        await club_with_players(service)
        await asyncio.gather(*await scheduler.poll())
        clock.current = MONDAY_9
        await asyncio.gather(*await scheduler.poll())
        posts = [post for post in recorder.posts if post[1].startswith(("Puzzle", "Solution"))]
        [(chat, text, shown)] = posts
        assert text.splitlines() == [
            "Puzzle p1 (puzzles, rating 1500):", "White mates in one",
            "Press the button to solve it privately: your clock starts when I send it to you."]
        assert shown is not None and shown.png == PIXEL and "Qh7" not in text
        [buttons] = [b for b, post in zip(recorder.buttons, recorder.posts, strict=True)
                     if post[1].startswith("Puzzle")]
        assert [(b.label, b.action.rsplit(":", 1)[0], b.club_chat) for b in buttons] == [
            ("Solve privately", "p:solve", "local")]
        alice = Caller("console", "local", "alice", "alice")
        await service.serve_puzzle(alice, ref=int(buttons[0].action.rsplit(":", 1)[1]))
        clock.advance(seconds=12)
        await service.answer_puzzle(alice, "qh7")
        clock.current = datetime(2024, 3, 11, 9, 0)
        await asyncio.gather(*await scheduler.poll())
        text = recorder.posts[-1][1]
        assert text.splitlines()[:3] == ["Solution of p1: Qh7", "Fastest: alice 12.0 s",
                                         "Puzzle p2 (puzzles, rating 1500):"]
    finally:
        await scheduler.stop()
        await repository.close()


#: the smallest PNG there is: one transparent pixel
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6300010000050001"
    "0d0a2db40000000049454e44ae426082")


@dataclass
class LinkedClub:
    """Issue 35's scheduler tests: a Telegram group's club with players (its moderator
    ``moderator``), a Discord server to link to it, and the posts each platform received."""

    clock: FakeClock
    service: ClubService
    scheduler: ScheduledPosts
    telegram: Recorder
    discord: Recorder
    moderator: Caller
    server: tuple[str, str] = ("discord", "9001")


@asynccontextmanager
async def linked_club(tmp_path: Path) -> AsyncIterator[LinkedClub]:
    clock = FakeClock(FRIDAY)
    repository = await SqliteRepository.open(tmp_path / "club.db")
    service = ClubService(repository, clock)
    telegram, discord = Recorder("telegram"), Recorder("discord")
    scheduler = ScheduledPosts(service, repository, {"telegram": telegram, "discord": discord},
                              clock, ChatPosts(), pictures=False)
    try:
        await club_with_players(service, "-1001", "telegram")
        yield LinkedClub(clock, service, scheduler, telegram, discord,
                         Caller("telegram", "-1001", "1", "1", moderator=True))
    finally:
        await scheduler.stop()
        await repository.close()


async def test_each_chat_of_a_linked_club_gets_its_post_once(tmp_path: Path) -> None:
    """Issue 35: a club of a Telegram group and a Discord server: the weekly post goes into
    both, once each (a restart claims nothing twice); a puzzle ladder's post, which shows a
    solution and a new problem, goes into the club's own chat alone."""
    async with linked_club(tmp_path) as club:
        service, moderator = club.service, club.moderator
        await service.create_ladder(moderator, "puzzles", "tactics", {})
        await service.add_problem(moderator, NewProblem("p1", "White mates in one", ["Qh7"]))
        code = (await service.link_code(moderator)).params["code"]
        assert isinstance(code, str)
        await service.link(Caller(*club.server, "2", "2", moderator=True), code)
        await asyncio.gather(*await club.scheduler.poll())
        club.clock.current = MONDAY_9
        await asyncio.gather(*await club.scheduler.poll())
        await asyncio.gather(*await club.scheduler.poll())
        assert [(chat, text.splitlines()[0]) for chat, text, _ in club.telegram.posts] == [
            ("-1001", "main ladder, changes since Mon, Feb 26 09:00 UTC"),
            ("-1001", "Puzzle p1 (puzzles, rating 1500):")]
        assert [(chat, text.splitlines()[0]) for chat, text, _ in club.discord.posts] == [
            ("9001", "main ladder, changes since Mon, Feb 26 09:00 UTC")]


async def test_each_chat_of_a_linked_club_posts_in_its_own_zone_and_language(
        tmp_path: Path) -> None:
    """Issue 35 (ERRATA): the Discord server that joined the Telegram group's club set its own
    time zone and language: its weekly post comes at 18:00 Tokyo time, in Japanese, dated in
    Tokyo; the group's at 18:00 London time, in English, as the ladder says."""
    async with linked_club(tmp_path) as club:
        service, moderator, clock = club.service, club.moderator, club.clock
        telegram, discord = club.telegram, club.discord
        await service.set_schedule(moderator, cron="0 18 * * SUN")
        await service.set_setting(moderator, "timezone", "Europe/London")
        code = (await service.link_code(moderator)).params["code"]
        assert isinstance(code, str)
        server_moderator = Caller(*club.server, "2", "2", moderator=True)
        await service.link(server_moderator, code)
        await service.set_setting(server_moderator, "timezone", "Asia/Tokyo")
        await service.set_setting(server_moderator, "language", "ja")
        await asyncio.gather(*await club.scheduler.poll())
        clock.current = datetime(2024, 3, 3, 8, 59)  # Sunday 17:59 in Tokyo
        await asyncio.gather(*await club.scheduler.poll())
        assert (telegram.posts, discord.posts) == ([], [])
        clock.current = datetime(2024, 3, 3, 9, 0)  # 18:00 in Tokyo, 09:00 in London
        await asyncio.gather(*await club.scheduler.poll())
        assert telegram.posts == []
        assert [(chat, text.splitlines()[0]) for chat, text, _ in discord.posts] == [
            ("9001", "ラダー main、2月25日(日) 18:00 JST 以降の変化")]
        clock.current = datetime(2024, 3, 3, 18, 0)  # 18:00 in London
        await asyncio.gather(*await club.scheduler.poll())
        assert [(chat, text.splitlines()[0]) for chat, text, _ in telegram.posts] == [
            ("-1001", "main ladder, changes since Sun, Feb 25 18:00 GMT")]
        assert len(discord.posts) == 1
