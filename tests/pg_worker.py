"""One bot process for tests/service/test_processes.py: a ClubService of its own on the shared
PostgreSQL database, hammering one club while another process does the same.

    python -m tests.pg_worker URL ROLE SHARED OWN CORRECTIONS SLOTS

It prints ``ready`` once connected and waits for a line on stdin before it starts, so that the
processes begin together; it prints ``done`` when its work is over and waits again, so that
its final reading sees the other process's work too; then it prints one JSON line:

- ``shared``: its answers to the updates both processes receive (same request ids);
- ``claimed``: the scheduled-post slots it won;
- ``ratings``: the main ladder's exact ratings by name, from its own cache;
- ``cache_is_replay``: whether that cache equals a from-scratch replay of the log it reads.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Awaitable
from datetime import datetime, timedelta

from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService, Correction
from bot.service.errors import Refusal
from bot.service.ratings import LadderRatings, member_of_key
from bot.service.results import GameResult, Leaderboard, Preview, Result, encode
from bot.service.state import ClubState
from bot.storage.postgres import PostgresRepository
from ratings_core.replay import replay
from ratings_core.systems import make_system

START = datetime(2024, 3, 1, 19, 0)
PLATFORM, CHAT = "telegram", "-100"
#: members of the shared updates, and each process's own pairs
SHARED_PAIR = ("s0", "s1")
OWN_PAIRS = {0: (("a0", "a1"), ("a2", "a3")), 1: (("b0", "b1"), ("b2", "b3"))}
MEMBERS = [*SHARED_PAIR, *(m for pairs in OWN_PAIRS.values() for p in pairs for m in p)]
RESULTS = ("win", "loss", "draw")


def caller(user: str, request: str | None = None, moderator: bool = False) -> Caller:
    return Caller(PLATFORM, CHAT, user, user, moderator, request)


async def answered(call: Awaitable[Result]) -> str:
    """The answer as stored (a refusal too), for comparing two processes' answers."""
    try:
        result = await call
    except Refusal as refusal:
        return encode(refusal)
    return encode(result)


async def shared(service: ClubService, count: int) -> tuple[list[str], list[int]]:
    """Updates delivered to both processes: the same request ids, in the same order. Returns
    the answers and the games reported."""
    a, b = SHARED_PAIR
    answers, games = [], []
    for i in range(count):
        reported = await service.report(caller(a, f"s-r{i}"), b, RESULTS[i % 3])
        assert isinstance(reported, GameResult), reported
        answers.append(encode(reported))
        games.append(reported.game.id)
        answers.append(await answered(service.confirm(caller(b, f"s-c{i}"), reported.game.id)))
    return answers, games


async def own(service: ClubService, role: int, count: int) -> None:
    """This process's own members report and confirm, two pairs at once."""

    async def pair(k: int, me: str, partner: str) -> None:
        for i in range(count):
            reported = await service.report(caller(me, f"w{role}-{k}-r{i}"), partner,
                                            RESULTS[(i + k) % 3])
            assert isinstance(reported, GameResult), reported
            confirmed = await service.confirm(caller(partner, f"w{role}-{k}-c{i}"),
                                              reported.game.id)
            assert isinstance(confirmed, GameResult), confirmed

    await asyncio.gather(*(pair(k, *p) for k, p in enumerate(OWN_PAIRS[role])))


async def corrections(service: ClubService, role: int, count: int, game: int) -> None:
    """A moderator in each process corrects the same game again and again."""
    for i in range(count):
        result = RESULTS[(i + role) % 3]
        done = await service.correct(caller(f"mod{role}", f"w{role}-x{i}", moderator=True), game,
                                     Correction(result=result), apply=True)
        assert isinstance(done, Preview) and done.applied, done


async def claims(repository: PostgresRepository, club: int, slots: int) -> list[int]:
    won = []
    for slot in range(slots):
        if await repository.claim_post(club, "main", START + timedelta(hours=slot), START):
            won.append(slot)
    return won


async def final_reading(service: ClubService, repository: PostgresRepository, club: int
                        ) -> tuple[dict[str, float], bool]:
    """The ladder's ratings from this process's cache, and whether the cache equals a replay
    of the whole log from scratch (as tests/service/test_derivation.py compares)."""
    board = await service.leaderboard(caller("s0"))  # folds what the other process wrote
    assert isinstance(board, Leaderboard)
    state = ClubState.build(await repository.events(club))
    ladder = state.ladders["main"]
    derived = LadderRatings()
    final = derived.sync(state, ladder)
    system = make_system(ladder.settings.system, dict(ladder.settings.params))
    scratch = replay(system, derived.steps).final
    cached = service._session.clubs[club].ratings["main"]
    same = (cached.steps == derived.steps and cached.final is not None
            and dict(cached.final.players) == dict(scratch.players) == dict(final.players)
            and cached.final.pool == scratch.pool)
    ratings = {state.member(member_of_key(k)).name: s.rating for k, s in scratch.players.items()}
    shown = {row.name: row.rating for row in board.rows}
    return shown, same and shown == {n: r for n, r in ratings.items() if n in shown}


async def main(url: str, role: int, shared_count: int, own_count: int, fixes: int,
               slots: int) -> None:
    repository = await PostgresRepository.open(url)
    service = ClubService(repository, FakeClock(START))
    club = await repository.club_id(PLATFORM, CHAT, START)
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    answers, games = await shared(service, shared_count)
    await asyncio.gather(own(service, role, own_count),
                         corrections(service, role, fixes, games[0]))
    won = await claims(repository, club, slots)
    print("done", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    ratings, same = await final_reading(service, repository, club)
    print(json.dumps({"shared": answers, "claimed": won, "ratings": ratings,
                      "cache_is_replay": same, "games": games}), flush=True)
    await repository.close()


if __name__ == "__main__":
    # The service's retries (INFO) go to the worker's log, which a failing test shows.
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    url, *numbers = sys.argv[1:]
    asyncio.run(main(url, *(int(n) for n in numbers)))  # type: ignore[arg-type]
