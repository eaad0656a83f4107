"""Roles across processes (issue 41): how soon a member's command is answered again after the
process that long-polls Telegram is SIGKILLed, when a second ``clubrating run`` on the same
PostgreSQL database stands by (it takes the receiver role over), beside the reference measured
in the same run: one process, killed and started again at once (what a service manager's
restart gives at best).

    .venv/bin/python bench/roles.py               # 6 kills of each
    .venv/bin/python bench/roles.py --rounds 3

The fake Bot API (``tests/fake_telegram.py``) runs in this process, the bots are the installed
``clubrating run`` on a fresh schema of a throwaway PostgreSQL server (``tests/pg_server.py``;
or ``CLUBRATING_TEST_PG``). Each round: after a pause of 0 - 3 s, ``/top`` is sent to the group
and the process that polls is killed at once; printed: the time from the kill to the role taken
(``role telegram-receiver:... taken`` in the survivor's log) and to the answer. The killed
process is started again (the next round's standby, or in the reference the restart itself).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shards import fresh_schema  # noqa: E402
from bot.adapters.roles import RETRY_SECONDS  # noqa: E402
from tests import pg_server  # noqa: E402
from tests.fake_telegram import TOKEN, FakeTelegram  # noqa: E402
from tests.system.clubs import telegram_bot  # noqa: E402
from tests.system.process import Bot  # noqa: E402

SERVING = r"serving telegram"
CHANCE = random.Random(41)
RECEIVER = r"role telegram-receiver:\d+ taken"


def process(tg: FakeTelegram, folder: Path, database: str) -> Bot:
    folder.mkdir(exist_ok=True)
    return telegram_bot(tg, folder, None, CLUBRATING_DB=database)


async def at_random_moment() -> None:
    """A pause of 0 - 3 s: the kill then falls at any point of the survivor's 1.5 s between
    two tries (right after a start, it would fall just after the first one: the worst case)."""
    await asyncio.sleep(CHANCE.uniform(0.0, 2 * RETRY_SECONDS))


def summary(name: str, seconds: list[float]) -> str:
    return (f"{name}: median {statistics.median(seconds):.2f} s, "
            f"{min(seconds):.2f} - {max(seconds):.2f} s")


async def standby(server: str, folder: Path, rounds: int) -> None:
    async with FakeTelegram(token=TOKEN) as tg:
        group, ada = tg.group(-1001, "Chess club"), tg.user(1, "Ada", "ada")
        database = await fresh_schema(server)
        bots = [process(tg, folder / "standby-a", database),
                process(tg, folder / "standby-b", database)]
        await bots[0].start(RECEIVER)
        await bots[1].start(SERVING)
        taken, answered = [], []
        try:
            for _ in range(rounds):
                holder, survivor = bots
                await at_random_moment()
                await tg.send(group, ada, "/top")
                await holder.kill()
                killed = time.monotonic()
                await survivor.wait_log(RECEIVER)
                taken.append(time.monotonic() - killed)
                await tg.reply(group, 60.0)
                answered.append(time.monotonic() - killed)
                await holder.start(SERVING)  # the next round's standby
                bots = [survivor, holder]
        finally:
            for bot in bots:
                await bot.stop()
        conflicts = [e for e in tg.errors if e[1] == 409]
        print(f"\ntwo processes, one standing by ({rounds} kills of the one polling)")
        print("  " + summary("receiver role taken after the kill", taken))
        print("  " + summary("command sent at the kill answered after it", answered))
        print(f"  409 Conflicts: {len(conflicts)}")


async def restart(server: str, folder: Path, rounds: int) -> None:
    async with FakeTelegram(token=TOKEN) as tg:
        group, ada = tg.group(-1001, "Chess club"), tg.user(1, "Ada", "ada")
        database = await fresh_schema(server)
        bot = process(tg, folder / "restart", database)
        await bot.start(RECEIVER)
        answered = []
        try:
            for _ in range(rounds):
                await at_random_moment()
                await tg.send(group, ada, "/top")
                await bot.kill()
                killed = time.monotonic()
                await bot.start(SERVING)
                await tg.reply(group, 60.0)
                answered.append(time.monotonic() - killed)
        finally:
            await bot.stop()
        print(f"\nreference, one process killed and started again at once ({rounds} kills)")
        print("  " + summary("command sent at the kill answered after it", answered))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="clubrating-roles-") as temp:
        folder = Path(temp)
        with pg_server.given_or_throwaway() as url:
            await standby(url, folder, args.rounds)
            await restart(url, folder, args.rounds)


if __name__ == "__main__":
    asyncio.run(main())
