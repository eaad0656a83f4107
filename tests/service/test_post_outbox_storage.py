"""The outbox of scheduled posts (migration 0011, issue 41) on every backend: a period enqueued
once (and never after an older version claimed it), rows claimed earliest due first with a
lease, taken again only once the lease ran out (with "maybe sent" when the dead claimer had
handed it to the platform), put back later, finished, forgotten a week later; a process's
Discord shards; and on PostgreSQL two processes claiming at once, each row going to one."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from bot.storage.postgres import PostgresRepository
from bot.storage.repository import QueuedPost, Repository

NOW = datetime(2026, 11, 23, 9, 0)
LEASE = timedelta(seconds=120)


def post(club: int, due: float, platform: str = "telegram", chat: str = "-1001",
         ladder: str = "main") -> QueuedPost:
    return QueuedPost(club, ladder, NOW, platform, chat, chat, ladder, False,
                      NOW - timedelta(days=7), NOW + timedelta(seconds=due))


async def test_a_period_is_enqueued_once_and_claimed_earliest_first(
        repository: Repository) -> None:
    clubs = [await repository.club_id("telegram", f"-{100 + n}", NOW) for n in range(3)]
    assert await repository.enqueue_post(post(clubs[0], 40), NOW)
    assert await repository.enqueue_post(post(clubs[1], 0.5), NOW)
    assert not await repository.enqueue_post(post(clubs[1], 0.5), NOW)  # enqueued already
    # a period a version without the outbox claimed: never enqueued
    assert await repository.claim_post(clubs[2], "main", NOW, NOW)
    assert not await repository.enqueue_post(post(clubs[2], 0), NOW)

    assert await repository.claim_outbox(["telegram"], "a", NOW, NOW + LEASE, 10) == []
    later = NOW + timedelta(seconds=40)
    claimed = await repository.claim_outbox(["telegram", "discord"], "a", later,
                                            later + LEASE, 10)
    assert [(c.post.club_id, c.post.due_at, c.attempts, c.maybe_sent) for c in claimed] == [
        (clubs[1], NOW + timedelta(seconds=0.5), 0, False),
        (clubs[0], NOW + timedelta(seconds=40), 0, False)]
    assert claimed[0].post == post(clubs[1], 0.5)
    assert await repository.claim_outbox(["telegram"], "b", later, later + LEASE, 10) == []


async def test_a_lease_run_out_gives_the_row_to_another_claimer(
        repository: Repository) -> None:
    club = await repository.club_id("telegram", "-100", NOW)
    other = await repository.club_id("telegram", "-200", NOW)
    assert await repository.enqueue_post(post(club, 0), NOW)
    assert await repository.enqueue_post(post(other, 0), NOW)
    first, second = await repository.claim_outbox(["telegram"], "dead", NOW, NOW + LEASE, 10)
    await repository.outbox_sending(first.id, NOW)  # handed to the platform, then died
    before_end = NOW + LEASE - timedelta(microseconds=1)
    assert await repository.claim_outbox(["telegram"], "b", before_end, before_end + LEASE,
                                         10) == []
    again = await repository.claim_outbox(["telegram"], "b", NOW + LEASE, NOW + 2 * LEASE, 10)
    assert [(c.id, c.attempts, c.maybe_sent) for c in again] == [(first.id, 1, True),
                                                                  (second.id, 0, False)]
    # put back by a 429: due again later, no longer "maybe sent"; finished rows stay finished
    await repository.outbox_later(first.id, NOW + timedelta(minutes=5))
    await repository.outbox_done(second.id, "sent", NOW + LEASE)
    late = NOW + timedelta(hours=1)
    [back] = await repository.claim_outbox(["telegram"], "c", late, late + LEASE, 10)
    assert (back.id, back.post.due_at, back.maybe_sent) == (
        first.id, NOW + timedelta(minutes=5), False)
    await repository.outbox_done(back.id, "given_up", late)
    assert await repository.claim_outbox(["telegram"], "d", late + 2 * LEASE,
                                         late + 3 * LEASE, 10) == []


async def test_a_wake_up_enqueues_its_posts_at_once_each_period_once(
        repository: Repository) -> None:
    clubs = [await repository.club_id("telegram", f"-{100 + n}", NOW) for n in range(3)]
    assert await repository.enqueue_post(post(clubs[1], 5), NOW)
    assert await repository.enqueue_posts([post(club, n) for n, club in enumerate(clubs)],
                                          NOW) == [True, False, True]
    assert await repository.enqueue_posts([], NOW) == []
    later = NOW + timedelta(seconds=10)
    claimed = await repository.claim_outbox(["telegram"], "a", later, later + LEASE, 10)
    assert [(c.post.club_id, c.post.due_at) for c in claimed] == [
        (clubs[0], NOW), (clubs[2], NOW + timedelta(seconds=2)),
        (clubs[1], NOW + timedelta(seconds=5))]


async def test_rows_that_ended_are_forgotten_and_their_posts_stay_made(
        repository: Repository) -> None:
    """A week after a row ended (sent or given up) it goes; a row not ended stays however old,
    and the period of a forgotten row is never enqueued again (its claim stays)."""
    clubs = [await repository.club_id("telegram", f"-{100 + n}", NOW) for n in range(3)]
    for club in clubs:
        assert await repository.enqueue_post(post(club, 0), NOW)
    sent, given_up, waiting = await repository.claim_outbox(["telegram"], "a", NOW,
                                                            NOW + LEASE, 10)
    await repository.outbox_done(sent.id, "sent", NOW)
    await repository.outbox_done(given_up.id, "given_up", NOW + timedelta(seconds=1))
    await repository.outbox_later(waiting.id, NOW + timedelta(days=30))
    assert await repository.forget_outbox(NOW) == 0
    assert await repository.forget_outbox(NOW + timedelta(seconds=1)) == 1
    assert await repository.forget_outbox(NOW + timedelta(days=60)) == 1
    assert not await repository.enqueue_post(post(sent.post.club_id, 0), NOW)
    far = NOW + timedelta(days=60)
    assert [row.id for row in await repository.claim_outbox(["telegram"], "b", far,
                                                            far + LEASE, 10)] == [waiting.id]


async def test_a_process_claims_the_discord_rows_of_its_own_shards(
        repository: Repository) -> None:
    guilds = [(1_000_000 + n) << 22 for n in range(4)]  # shards 0, 1, 0, 1 of 2
    for guild in guilds:
        club = await repository.club_id("discord", str(guild), NOW)
        assert await repository.enqueue_post(post(club, 0, "discord", str(guild)), NOW)
    console = await repository.club_id("console", "local", NOW)
    assert await repository.enqueue_post(post(console, 0, "console", "local"), NOW)
    odd = await repository.claim_outbox(["discord", "console"], "b", NOW, NOW + LEASE, 10,
                                        (2, [1]))
    assert [c.post.chat_id for c in odd] == [str(guilds[1]), str(guilds[3]), "local"]
    even = await repository.claim_outbox(["discord"], "a", NOW, NOW + LEASE, 10, (2, [0]))
    assert [c.post.chat_id for c in even] == [str(guilds[0]), str(guilds[2])]


async def test_two_processes_enqueuing_one_wake_up_at_once_enqueue_each_post_once(
        postgres_db: str) -> None:
    """Two schedulers (a role changing hands) enqueue the same 300 posts in batches, in orders
    of their own: each post once, and neither waits on the other for good."""
    first = await PostgresRepository.open(postgres_db)
    second = await PostgresRepository.open(postgres_db)
    try:
        posts = [post(await first.club_id("telegram", f"-{1000 + n}", NOW), n / 100)
                 for n in range(300)]

        async def enqueue(repository: Repository, order: list[QueuedPost]) -> int:
            return sum([sum(await repository.enqueue_posts(order[at:at + 50], NOW))
                        for at in range(0, len(order), 50)])

        made = await asyncio.wait_for(asyncio.gather(
            enqueue(first, posts), enqueue(second, posts[::-1])), 30)
        assert sum(made) == 300
        later = NOW + timedelta(seconds=5)
        rows = await first.claim_outbox(["telegram"], "a", later, later + LEASE, 1000)
        assert sorted(row.post.club_id for row in rows) == sorted(p.club_id for p in posts)
    finally:
        await first.close()
        await second.close()


async def test_two_processes_claiming_at_once_take_each_row_once(postgres_db: str) -> None:
    first = await PostgresRepository.open(postgres_db)
    second = await PostgresRepository.open(postgres_db)
    try:
        for n in range(200):
            club = await first.club_id("telegram", f"-{1000 + n}", NOW)
            assert await first.enqueue_post(post(club, n / 100), NOW)
        later = NOW + timedelta(seconds=2)

        async def claim_all(repository: Repository, claimer: str) -> list[int]:
            taken: list[int] = []
            while rows := await repository.claim_outbox(["telegram"], claimer, later,
                                                        later + LEASE, 7):
                taken += [row.id for row in rows]
                await asyncio.sleep(0)
            return taken

        a, b = await asyncio.gather(claim_all(first, "a"), claim_all(second, "b"))
        assert len(a) + len(b) == 200 and len(set(a) | set(b)) == 200
        assert a and b  # both took part
    finally:
        await first.close()
        await second.close()
