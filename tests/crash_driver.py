"""A load driver for the crash-safety test: many members report and confirm games on one club
through the product's commands (``bot.chat.commands`` parse/execute on a real ``ClubService`` and
SQLite file) until the process is killed.

    python -m tests.crash_driver DB ACKS SEED [--members N] [--workers N] [--stop-after N]
                                 [--dump FILE]

Every result is acknowledged - one line ``confirmed <game number>`` or ``recorded <game number>``
(the number the member is told: #1 is the club's first game) appended to ACKS with a single
``write`` - only after the use case returned, that is after its transaction committed: the moment
a chat front-end would tell the member "Game #n confirmed". A SIGKILL can come at any instant;
whatever ACKS holds must then be in the database exactly once.

``--stop-after N`` ends the run by itself after N acknowledgements and writes the service's cached
ratings (every ladder's final states, as the running bot holds them) to ``--dump`` as JSON, so the
test can compare them with a fresh replay of the log.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
from pathlib import Path

from bot.chat.commands import Context, execute, parse
from bot.chat.ratelimit import RateLimiter
from bot.service.clock import SystemClock
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.results import GameResult, Preview, Result
from bot.storage.sqlite import SqliteRepository

PLATFORM, CHAT = "console", "crash"


def member(i: int) -> Caller:
    return Caller(PLATFORM, CHAT, f"u{i}", f"player{i}")


MODERATOR = Caller(PLATFORM, CHAT, "mod", "mod", moderator=True)


class Driver:
    def __init__(self, service: ClubService, acks: int, members: int, seed: int) -> None:
        self.service = service
        # The load is far above what one person may send: the per-member rate limit is not
        # what is tested here.
        self.limiter = RateLimiter(service.clock, None)
        self.acks = acks
        self.members = members
        self.random = random.Random(seed)
        self.acknowledged = 0

    async def say(self, caller: Caller, line: str) -> Result | str:
        command, words = parse(line)
        return await execute(Context(self.service, caller, self.limiter), command, words)

    def ack(self, what: str, game: int) -> None:
        # One write() per line: a kill leaves whole lines behind, never half of one.
        os.write(self.acks, f"{what} {game}\n".encode())
        self.acknowledged += 1

    async def register_everyone(self) -> None:
        for i in range(self.members):
            try:
                await self.say(member(i), "/register")
            except Refusal as refusal:
                assert refusal.key == "already_registered", refusal

    async def one_game(self) -> None:
        a, b = self.random.sample(range(self.members), 2)
        result = self.random.choice(["win", "loss", "draw"])
        if self.random.random() < 0.15:  # a moderator records a game at once
            answer = await self.say(MODERATOR, f"/report @player{a} @player{b} {result}")
            assert isinstance(answer, GameResult)
            self.ack("recorded", answer.game.id)
            return
        try:
            report = await self.say(member(a), f"/report @player{b} {result}")
        except Refusal as refusal:
            # another worker's report of the pair waits (issue 30 caps a member's waiting
            # reports), or one left disputed when a kill came between dispute and correction
            assert refusal.key.startswith("open_reports"), refusal
            return
        assert isinstance(report, GameResult)
        game = report.game.id
        if self.random.random() < 0.1:  # a dispute, settled by a moderator's correction
            await self.say(member(b), f"/dispute {game} wrong result")
            try:
                await self.say(MODERATOR, f"/correct {game} draw")
                applied = await self.say(MODERATOR, "/apply")
                for _ in range(20):
                    if not (isinstance(applied, Preview) and applied.outdated):
                        break
                    # another worker wrote since the preview: applied only as previewed again
                    # (issue 31)
                    applied = await self.say(MODERATOR, "/apply")
            except Refusal as refusal:  # it was a draw already
                assert refusal.key == "nothing_to_correct", refusal
                # its reporter takes it back, so that it does not wait for ever (a member's
                # waiting reports are capped since issue 30)
                await self.say(member(a), f"/withdraw {game}")
            return
        answer = await self.say(member(b), f"/confirm {game}")
        assert isinstance(answer, GameResult)
        self.ack("confirmed", game)

    async def worker(self, stop_after: int | None) -> None:
        while stop_after is None or self.acknowledged < stop_after:
            await self.one_game()

    async def dump(self, path: Path) -> None:
        """The cached ratings of the running service, per ladder (read after a leaderboard
        has brought them up to date)."""
        await self.service.leaderboard(MODERATOR)
        club = next(iter(self.service._session.clubs.values()))
        cached = {}
        for name, ladder in club.ratings.items():
            assert ladder.final is not None
            cached[name] = {key: [s.rating, s.games, s.status.value]
                            for key, s in ladder.final.players.items()}
        path.write_text(json.dumps(cached, sort_keys=True), encoding="utf-8")


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("db", type=Path)
    parser.add_argument("acks", type=Path)
    parser.add_argument("seed", type=int)
    parser.add_argument("--members", type=int, default=12)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--stop-after", type=int, default=None)
    parser.add_argument("--dump", type=Path, default=None)
    args = parser.parse_args(argv)
    repository = await SqliteRepository.open(args.db)
    acks = os.open(args.acks, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        driver = Driver(ClubService(repository, SystemClock()), acks, args.members, args.seed)
        await driver.register_everyone()
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        await asyncio.gather(*(driver.worker(args.stop_after) for _ in range(args.workers)))
        if args.dump is not None:
            await driver.dump(args.dump)
    finally:
        os.close(acks)
        await repository.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
