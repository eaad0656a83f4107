"""Discord shards over processes (issue 41): how long ``clubrating run`` takes to be ready for a
bot in 10,000 guilds split into 4 shards, served by two processes (``DISCORD_SHARD_IDS=0-1`` and
``2-3``) on one PostgreSQL database, beside the reference measured in the same run: one process
serving all four shards (``DISCORD_SHARD_COUNT=4`` alone).

    .venv/bin/python bench/shards.py                    # 10,000 guilds
    .venv/bin/python bench/shards.py --guilds 2000

Each scenario gets a fresh fake Discord (``tests/fake_discord.py``: a guild's events go to its
shard only, IDENTIFYs of one bucket closer than 5 s are refused with an invalid session) in this
process, and a fresh schema on a throwaway PostgreSQL server (``tests/pg_server.py``; or
``CLUBRATING_TEST_PG``). The processes are the installed ``clubrating run``, started together;
"ready" is the moment its log says it serves (``serving discord``), counted from the
start of the first. Printed per scenario: the time to ready of each process, the guilds each
shard received, the IDENTIFYs let in and refused, and each process's peak resident memory
(``VmHWM``) once ready.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
import uuid
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import pg_server  # noqa: E402
from tests.fake_discord import FakeDiscord  # noqa: E402
from tests.system.clubs import discord_variables  # noqa: E402
from tests.system.process import Bot, environment  # noqa: E402

SERVING = r"serving discord"
SHARD_READY = re.compile(r"Discord shard (\d+) of (\d+) ready: (\d+) guilds")
SHARDS = 4


async def fresh_schema(server: str) -> str:
    """An empty schema of its own on ``server``: its address."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    connection = await asyncpg.connect(server)
    try:
        await connection.execute(f'CREATE SCHEMA "{schema}"')
    finally:
        await connection.close()
    return f"{server}{'&' if '?' in server else '?'}search_path={schema}"


def peak_memory(bot: Bot) -> int:
    """The process's peak resident memory in MiB (``VmHWM``)."""
    status = Path(f"/proc/{bot.pid}/status").read_text()
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(found.group(1)) // 1024 if found else 0


async def scenario(name: str, guilds: int, server: str, folder: Path,
                   splits: list[str | None]) -> None:
    async with FakeDiscord() as dc:
        for n in range(guilds):
            dc.guild((1_000_000 + n) << 22, f"club {n}")
        database = await fresh_schema(server)
        bots = []
        for n, ids in enumerate(splits):
            home = folder / f"{name}-{n}"
            home.mkdir()
            shards = {"DISCORD_SHARD_COUNT": str(SHARDS)} | (
                {"DISCORD_SHARD_IDS": ids} if ids else {})
            env = environment(home, None, **discord_variables(dc), CLUBRATING_DB=database,
                              **shards)
            bots.append(Bot(env, home / "bot.log"))
        began = time.monotonic()

        async def ready(bot: Bot) -> float:
            await bot.start(SERVING)
            return time.monotonic() - began

        times = await asyncio.gather(*(ready(bot) for bot in bots))
        try:
            print(f"\n{name}: {guilds:,} guilds, {SHARDS} shards, {len(bots)} process(es)")
            for bot, ids, took in zip(bots, splits, times, strict=True):
                received = {int(s): int(c) for s, _, c in SHARD_READY.findall(bot.text())}
                print(f"  DISCORD_SHARD_IDS={ids or '(all)'}: ready in {took:.1f} s, guilds "
                      f"per shard {received}, peak memory {peak_memory(bot)} MiB")
            print(f"  IDENTIFYs let in {len(dc.identifies)}, refused (op 9) "
                  f"{dc.invalid_sessions}; all ready in {max(times):.1f} s")
        finally:
            for bot in bots:
                await bot.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guilds", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="clubrating-shards-") as temp:
        folder = Path(temp)
        with pg_server.given_or_throwaway() as url:
            await scenario("two processes", args.guilds, url, folder, ["0-1", "2-3"])
            await scenario("reference, one process", args.guilds, url, folder, [None])


if __name__ == "__main__":
    asyncio.run(main())
