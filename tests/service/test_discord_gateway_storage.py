"""What the processes of one Discord bot share through the database (issue 41), on every
backend: the IDENTIFY turns, the slash commands' hash, and (PostgreSQL, where several processes
run) the shards each process holds."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime

from bot.storage.discord_gateway import FORGET_TURNS_AFTER, shard_lock_key
from bot.storage.postgres import PostgresRepository
from bot.storage.repository import Repository

APP = 700000000000000001
NOW = datetime(2026, 11, 27, 15, 0, tzinfo=UTC)


async def test_identify_turns_are_five_seconds_apart_per_bucket(repository: Repository) -> None:
    first = await repository.identify_turn(APP, 0, 5.0)
    second = await repository.identify_turn(APP, 0, 5.0)
    third = await repository.identify_turn(APP, 0, 5.0)
    other_bucket = await repository.identify_turn(APP, 1, 5.0)
    other_bot = await repository.identify_turn(APP + 1, 0, 5.0)
    assert first == 0.0 and other_bucket == 0.0 and other_bot == 0.0
    # booked one after the other: each a turn later than the one before (less the time the
    # bookings took)
    assert 4.5 < second <= 5.0 and 9.5 < third <= 10.0, (second, third)


async def test_a_turn_booked_by_a_clock_that_went_back_is_forgotten(
        repository: Repository) -> None:
    far = FORGET_TURNS_AFTER * 2
    for _ in range(2):  # the second booking is more than an hour ahead: a clock gone back
        await repository.identify_turn(APP, 0, far)
    assert await repository.identify_turn(APP, 0, 5.0) == 0.0


async def test_the_command_trees_hash_is_kept_per_application_and_scope(
        repository: Repository) -> None:
    assert await repository.command_tree(APP, "global") is None
    await repository.keep_command_tree(APP, "global", "a" * 64, NOW)
    await repository.keep_command_tree(APP, "guild:10", "b" * 64, NOW)
    await repository.keep_command_tree(APP, "global", "c" * 64, NOW)
    assert await repository.command_tree(APP, "global") == "c" * 64
    assert await repository.command_tree(APP, "guild:10") == "b" * 64
    assert await repository.command_tree(APP + 1, "global") is None


async def test_a_shard_is_held_by_one_process_at_a_time(postgres_db: str) -> None:
    first = await PostgresRepository.open(postgres_db)
    second = await PostgresRepository.open(postgres_db)
    try:
        assert await first.hold_shards(APP, [0, 1]) == []
        # an overlap takes nothing: shard 2 stays free for another
        assert await second.hold_shards(APP, [1, 2]) == [1]
        assert await second.hold_shards(APP, [2, 3]) == []
        assert await second.hold_shards(APP + 1, [0, 1]) == []  # another bot's shards
        await first.close()  # a process that ends lets go of its shards
        assert await second.hold_shards(APP, [0, 1]) == []
    finally:
        await second.close()


def test_each_shard_of_each_bot_has_its_own_lock_key() -> None:
    keys = {shard_lock_key(app, shard) for app in (APP, APP + 1) for shard in range(1000)}
    assert len(keys) == 2000
    assert all(-2 ** 63 <= key < 2 ** 63 for key in keys)


async def test_one_process_at_a_time_compares_and_syncs_the_commands(postgres_db: str) -> None:
    first = await PostgresRepository.open(postgres_db)
    second = await PostgresRepository.open(postgres_db)
    try:
        async with first.command_sync(APP):
            waiting = asyncio.ensure_future(_enter(second.command_sync(APP)))
            await asyncio.sleep(0.3)
            assert not waiting.done()  # the second waits for the first's sync
        await asyncio.wait_for(waiting, 5)
        async with first.command_sync(APP + 1), second.command_sync(APP):
            pass  # another bot's sync waits for nobody
    finally:
        await first.close()
        await second.close()


async def _enter(held: AbstractAsyncContextManager[None]) -> None:
    async with held:
        pass


async def test_a_tokens_processes_are_counted_by_the_budget_slots_they_hold(
        postgres_db: str) -> None:
    # issue 41: each process holds one slot; one that ends frees it, one without a slot left
    # counts itself; another token's slots are apart; the shards' locks share the connection
    # and neither lets go of the other's
    first = await PostgresRepository.open(postgres_db)
    second = await PostgresRepository.open(postgres_db)
    third = await PostgresRepository.open(postgres_db)
    try:
        assert await first.hold_budget_slot(11, 2) and await first.hold_budget_slot(11, 2)
        assert await first.hold_shards(APP, [0]) == []
        assert await second.hold_budget_slot(11, 2)
        assert not await third.hold_budget_slot(11, 2)  # both slots held
        assert [await r.budget_processes(11) for r in (first, second, third)] == [2, 2, 3]
        assert await third.hold_budget_slot(12, 2) and await third.budget_processes(12) == 1
        await first.release_shards()  # the slot stays held
        assert await second.budget_processes(11) == 2
        assert await third.hold_shards(APP, [0]) == []
        await second.close()
        assert await first.budget_processes(11) == 1
    finally:
        for repository in (first, second, third):
            await repository.close()
