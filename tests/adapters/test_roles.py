"""A role's work runs in one process at a time (issue 41): taken at once when free, taken over
when its holder lets go, stopped when the holder's lock is lost and taken again after; the
Telegram receiver so among two bots on one database."""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from pathlib import Path

import pytest

from bot.adapters import telegram
from bot.adapters.roles import RETRY_SECONDS, Role
from bot.adapters.telegram import TelegramBot
from bot.chat.messages import text
from bot.chat.ratelimit import DEFAULT_RATE, RateLimiter
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.storage.sqlite import SqliteRepository
from tests.chat import START
from tests.fake_telegram import TOKEN, FakeTelegram

RETRY = 0.01
CHECK = 0.01


class Locks:
    """The database's side of the roles, shared by the processes of a test: who holds each."""

    def __init__(self) -> None:
        self.holders: dict[str, object] = {}


class ProcessLocks:
    """One process's view of :class:`Locks`; ``lost`` makes its holds end as a lock
    connection that closed would."""

    def __init__(self, locks: Locks) -> None:
        self.locks = locks

    async def take_role(self, role: str) -> bool:
        return self.locks.holders.setdefault(role, self) is self

    async def role_held(self, role: str) -> bool:
        return self.locks.holders.get(role) is self

    async def release_role(self, role: str) -> None:
        if self.locks.holders.get(role) is self:
            del self.locks.holders[role]

    def lost(self) -> None:
        self.locks.holders = {r: p for r, p in self.locks.holders.items() if p is not self}


class Work:
    def __init__(self) -> None:
        self.runs: list[str] = []
        self.failure: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def start(self) -> None:
        self.runs.append("start")

    async def failed(self) -> None:
        await asyncio.shield(self.failure)

    async def stop(self) -> None:
        self.runs.append("stop")


async def until(condition: object, seconds: float = 2.0) -> None:
    for _ in range(int(seconds / 0.005)):
        if callable(condition) and condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition not met in time")


async def test_one_process_works_and_another_takes_over_when_it_lets_go(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "bot.adapters.roles")
    locks = Locks()
    first_work, second_work = Work(), Work()
    first = Role(ProcessLocks(locks), "scheduler", first_work,
                 retry_seconds=RETRY, check_seconds=CHECK)
    second = Role(ProcessLocks(locks), "scheduler", second_work,
                  retry_seconds=RETRY, check_seconds=CHECK)
    await first.start()
    assert first.held and first_work.runs == ["start"]  # alone: working once start returns
    await second.start()
    await asyncio.sleep(10 * RETRY)
    assert not second.held and second_work.runs == []
    await first.stop()
    assert first_work.runs == ["start", "stop"]
    await until(lambda: second.held)
    assert second_work.runs == ["start"]
    await second.stop()
    assert second_work.runs == ["start", "stop"] and locks.holders == {}
    assert [r.getMessage() for r in caplog.records] == [
        "role scheduler taken: this process does its work", "role scheduler released",
        "role scheduler taken: this process does its work", "role scheduler released"]


async def test_a_holder_that_lost_its_lock_stops_working_until_it_takes_the_role_again(
        caplog: pytest.LogCaptureFixture) -> None:
    locks = Locks()
    mine, other = ProcessLocks(locks), ProcessLocks(locks)
    work = Work()
    role = Role(mine, "telegram-receiver:1", work, retry_seconds=RETRY, check_seconds=CHECK)
    await role.start()
    assert await other.take_role("telegram-receiver:1") is False
    mine.lost()
    assert await other.take_role("telegram-receiver:1")  # another process has it by now
    await until(lambda: not role.held)
    assert work.runs == ["start", "stop"]
    assert "role telegram-receiver:1 lost (its lock's hold on the database ended): its work " \
           "stops" in caplog.text
    await asyncio.sleep(10 * RETRY)
    assert work.runs == ["start", "stop"]  # not while the other holds it
    await other.release_role("telegram-receiver:1")
    await until(lambda: role.held)
    assert work.runs == ["start", "stop", "start"]
    await role.stop()
    assert work.runs == ["start", "stop", "start", "stop"]


async def test_a_work_that_fails_by_itself_is_the_roles_failure() -> None:
    work = Work()
    role = Role(ProcessLocks(Locks()), "telegram-receiver:1", work,
                retry_seconds=RETRY, check_seconds=CHECK)
    await role.start()
    work.failure.set_exception(RuntimeError("token refused"))
    with pytest.raises(RuntimeError, match="token refused"):
        await asyncio.wait_for(role.failed(), 2.0)
    await role.stop()
    assert work.runs == ["start", "stop"]


async def test_a_second_telegram_bot_on_the_database_stands_by_until_the_first_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the standby's pulse every 0.1 s rather than every minute
    monkeypatch.setattr(telegram, "WEBHOOK_CHECK_SECONDS", 0.1)
    # two processes on one SQLite file, as two started by mistake: the lock file beside it
    # (two repositories here, each with its own file descriptors, as two processes would)
    repositories = [await SqliteRepository.open(tmp_path / "club.db") for _ in range(2)]
    service = [ClubService(repository, FakeClock(START)) for repository in repositories]
    pulses = {0: 0, 1: 0}

    def pulse(n: int) -> None:
        pulses[n] += 1

    async with FakeTelegram(token=TOKEN) as tg:
        group, alice = tg.group(-1001, "Chess club"), tg.user(2, "Alice", "alice")
        bots = [TelegramBot(s, RateLimiter(s.clock, DEFAULT_RATE), TOKEN, f"{tg.url}/bot",
                            repository=r, pulse=partial(pulse, n))
                for n, (s, r) in enumerate(zip(service, repositories, strict=True))]
        for bot in bots:
            await bot.start()
        try:
            # the standby hears from Telegram all the same: it asks getMe (its heartbeat)
            started = pulses[1]
            await asyncio.sleep(0.5)
            assert pulses[1] >= started + 3, pulses
            await tg.send(group, alice, "/register")
            assert (await tg.reply(group)).plain == text("registered", name="alice",
                                                         ladder="main")
            await bots[0].stop()
            await tg.send(group, alice, "/top")  # waits for the second to take over
            assert "alice" in (await tg.reply(group, timeout=2 * RETRY_SECONDS + 1)).plain
        finally:
            await bots[1].stop()
        assert len(tg.outputs(group)) == 2
        assert [error for error in tg.errors if error[1] == 409] == []
    for repository in repositories:
        await repository.close()


async def test_work_that_does_not_start_after_a_take_over_is_tried_again(
        caplog: pytest.LogCaptureFixture) -> None:
    locks = Locks()
    other = ProcessLocks(locks)
    assert await other.take_role("scheduler")
    work = Work()
    refusals = [ConnectionError("Telegram out of reach")]

    async def start() -> None:
        work.runs.append("start")
        if refusals:
            raise refusals.pop()

    work.start = start  # type: ignore[method-assign]
    role = Role(ProcessLocks(locks), "scheduler", work, retry_seconds=RETRY,
                check_seconds=CHECK)
    await role.start()
    await other.release_role("scheduler")
    await until(lambda: role.held)
    # the first start failed (the role went back meanwhile), the second one runs
    assert work.runs == ["start", "stop", "start"]
    assert ("role scheduler: its work did not start (ConnectionError: Telegram out of reach); "
            "trying again") in caplog.text
    await role.stop()
