"""Replays and races: a request delivered twice, two confirmations of one report at the same
time, a correction racing a confirmation - nothing is counted twice and nothing is lost.

Races run on two ``ClubService`` instances, each with its own repository (its own SQLite
connection) on one file, as two bot processes would be: their use cases really interleave, and
the storage's ``BEGIN IMMEDIATE`` plus the expected-last-event check decide who wins.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService, Correction
from bot.service.errors import Refusal
from bot.service.ratings import LadderRatings
from bot.service.results import GameResult, Preview, Result
from bot.service.state import ClubState, Kind
from bot.storage.sqlite import SqliteRepository
from ratings_core.replay import replay
from ratings_core.systems import make_system
from tests.chat import START
from tests.fake_telegram import Chat, User
from tests.telegram_harness import Running, running_bot, say

PLATFORM, CHAT = "console", "race"
ALICE = Caller(PLATFORM, CHAT, "alice", "alice")
BOB = Caller(PLATFORM, CHAT, "bob", "bob")
MOD = Caller(PLATFORM, CHAT, "mod", "mod", moderator=True)
ROUNDS = 25


@dataclass
class Two:
    first: ClubService
    second: ClubService
    repository: SqliteRepository


@asynccontextmanager
async def two_services(path: Path) -> AsyncIterator[Two]:
    one = await SqliteRepository.open(path)
    other = await SqliteRepository.open(path)
    clock = FakeClock(START)
    try:
        first, second = ClubService(one, clock), ClubService(other, clock)
        await first.register(ALICE)
        await first.register(BOB)
        yield Two(first, second, one)
    finally:
        await one.close()
        await other.close()


async def outcome(call: Awaitable[Result]) -> Result | Refusal:
    try:
        return await call
    except Refusal as refusal:
        return refusal


async def later(call: Awaitable[Result], seconds: float) -> Result:
    await asyncio.sleep(seconds)
    return await call


async def report(service: ClubService) -> int:
    answer = await service.report(ALICE, "bob", "win")
    assert isinstance(answer, GameResult)
    return answer.game.id


async def log(repository: SqliteRepository) -> ClubState:
    club_id = await repository.club_id(PLATFORM, CHAT, START)
    return ClubState.build(await repository.events(club_id))


def confirmations(state: ClubState) -> Counter[int]:
    return Counter(int(e.data["game"]) for e in state.log  # type: ignore[arg-type]
                   if e.kind == Kind.GAME_CONFIRMED)


async def assert_ratings_equal_a_replay(two: Two) -> None:
    """Both services, brought up to date, show what a scratch replay of the log gives."""
    state = await log(two.repository)
    ladder = state.ladders["main"]
    derived = LadderRatings()
    derived.sync(state, ladder)
    scratch = replay(make_system(ladder.settings.system), derived.steps).final
    for service in (two.first, two.second):
        board = await service.leaderboard(MOD)
        assert {row.name: row.rating for row in board.rows} == {  # type: ignore[attr-defined]
            state.member(int(key[1:])).name: s.rating for key, s in scratch.players.items()}
    counted = [g for g in ladder.games.values() if g.counts]
    assert sum(s.games for s in scratch.players.values()) == 2 * len(counted)


async def test_two_confirmations_of_one_report_at_once_count_once(tmp_path: Path) -> None:
    async with two_services(tmp_path / "club.db") as two:
        for _ in range(ROUNDS):
            game = await report(two.first)
            answers = await asyncio.gather(outcome(two.first.confirm(BOB, game)),
                                           outcome(two.second.confirm(BOB, game)))
            done = [a for a in answers if isinstance(a, GameResult)]
            refused = [a for a in answers if isinstance(a, Refusal)]
            assert len(done) == 1 and [r.key for r in refused] == ["already_confirmed"]
        state = await log(two.repository)
        assert set(confirmations(state).values()) == {1}
        assert len(confirmations(state)) == ROUNDS
        await assert_ratings_equal_a_replay(two)


async def test_one_request_id_on_two_services_at_once_is_answered_once(tmp_path: Path) -> None:
    async with two_services(tmp_path / "club.db") as two:
        for n in range(ROUNDS):
            game = await report(two.first)
            again = Caller(PLATFORM, CHAT, "bob", "bob", request_id=f"update:{n}")
            answers = await asyncio.gather(two.first.confirm(again, game),
                                           two.second.confirm(again, game))
            assert answers[0] == answers[1]  # the first answer, given twice
        state = await log(two.repository)
        assert set(confirmations(state).values()) == {1}
        assert len(confirmations(state)) == ROUNDS
        await assert_ratings_equal_a_replay(two)


async def test_a_correction_racing_a_confirmation(tmp_path: Path) -> None:
    async with two_services(tmp_path / "club.db") as two:
        orders = Counter()
        for n in range(ROUNDS):
            game = await report(two.first)
            # Head starts of 0 to 8 ms either way: both orders happen, and true ties.
            head_start = (n % 5) * 0.002 * (1 if n % 2 else -1)
            confirmed, corrected = await asyncio.gather(
                outcome(later(two.first.confirm(BOB, game), max(head_start, 0))),
                outcome(later(two.second.correct(MOD, game, Correction(result="draw"),
                                                 apply=True), max(-head_start, 0))),
            )
            # The correction always lands (a moderator's correction also confirms); the
            # member's confirmation lands only if it came first.
            assert isinstance(corrected, Preview) and corrected.applied
            if isinstance(confirmed, Refusal):
                assert confirmed.key == "already_confirmed"
                orders["correction first"] += 1
            else:
                orders["confirmation first"] += 1
            record = (await log(two.repository)).game_numbered(game)
            assert record is not None and record.counts and record.score_a == 0.5
        state = await log(two.repository)
        assert max(confirmations(state).values(), default=1) == 1
        corrections = Counter(int(e.data["game"]) for e in state.log  # type: ignore[arg-type]
                              if e.kind == Kind.GAME_CORRECTED)
        assert len(corrections) == ROUNDS and set(corrections.values()) == {1}
        await assert_ratings_equal_a_replay(two)
        print(f"\ncorrection racing a confirmation: {dict(orders)}")


async def test_a_telegram_update_delivered_twice_at_once_counts_once(tmp_path: Path) -> None:
    async with running_bot(tmp_path / "club.db") as bot:
        group, alice, bob = people(bot)
        for user in (alice, bob):
            await say(bot, group, user, "/register")
        for _ in range(5):
            reported = await say(bot, group, alice, "/report @bob win")
            game = int(reported.plain.split("#")[1].split(":")[0])
            update = await bot.tg.send(group, bob, f"/confirm {game}")
            await bot.tg.redeliver(update)  # before the first delivery was answered
            first, second = await bot.tg.reply(group), await bot.tg.reply(group)
            assert first.plain == second.plain and first.plain.startswith(f"Game #{game} ")
            # A button press delivered twice: the first answer, nothing more written.
            answered = len(bot.tg.called("answerCallbackQuery"))
            press = await bot.tg.press(group, bob, reported, f"g:confirm:#{game}", strict=False)
            await bot.tg.redeliver(press)
            for _ in range(400):  # both deliveries answered (the second one refused by Telegram)
                if len(bot.tg.called("answerCallbackQuery")) >= answered + 2:
                    break
                await asyncio.sleep(0.005)
            assert len(bot.tg.called("answerCallbackQuery")) == answered + 2
        club = Caller("telegram", str(group.id), "0", "snapshot", moderator=True)
        repository = bot.service._repository
        club_id = await repository.club_id("telegram", club.chat_id, START)
        state = ClubState.build(await repository.events(club_id))
        assert len(confirmations(state)) == 5 and set(confirmations(state).values()) == {1}


def people(bot: Running) -> tuple[Chat, User, User]:
    alice, bob = bot.tg.user(1, "Alice", "alice"), bot.tg.user(2, "Bob", "bob")
    return bot.tg.group(-100, "Club", admins=[]), alice, bob
