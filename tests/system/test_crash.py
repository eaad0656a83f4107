"""``clubrating run`` killed with SIGKILL while members confirm results in a Telegram group: no
result the bot acknowledged is lost or counted twice, and the database it leaves serves a restart.

A result is acknowledged when the bot's edit of the report message saying "Game #n confirmed"
has reached the fake Bot API: that is what the members saw. Every pair of members plays at most
once in the whole test, so a game is known in the exported history by its pair alone; a report
the fake delivers again after a kill (Telegram keeps updates until the next ``getUpdates``
offset confirms them) must not make a second game. After each restart the test delivers every
report and press since the previous start again, as Telegram would had the kill come before the
bot's next ``getUpdates``.
"""

from __future__ import annotations

import asyncio
import csv
import io
import random
import re
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import pytest

from tests.fake_telegram import TOKEN, Chat, FakeTelegram, User

from .clubs import FRIDAY, GROUP, chess_club, telegram_bot
from .process import Bot, FakeClock, clubrating

#: usernames: none is a part of another
NAMES = ["ann", "ben", "cid", "dot", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "lou"]
#: per round: how many of its confirmations are acknowledged before the kill
KILL_AFTER = (3, 9, 14)
REPORTED = re.compile(r"Game #(\d+): (\w+) beat (\w+)\. (\w+), please /confirm")
CONFIRMED = re.compile(r"Game #(\d+) confirmed: (\w+) beat (\w+)\.")

Pair = tuple[str, str]  # (winner, loser)


@dataclass
class Group:
    """What the members see of the bot in the group, and their presses of Confirm: every
    report message is confirmed by its opponent as soon as it appears."""

    tg: FakeTelegram
    chat: Chat
    members: dict[str, User]
    folder: Path
    clock: FakeClock
    games: dict[int, Pair] = field(default_factory=dict)  # reported, by game number
    pressed: set[int] = field(default_factory=set)
    acknowledged: dict[int, Pair] = field(default_factory=dict)
    updates: list[int] = field(default_factory=list)  # of reports and presses, since a restart
    seen: int = 0

    def bot(self) -> Bot:
        return telegram_bot(self.tg, self.folder, self.clock, CLUBRATING_RATE_LIMIT="off")

    async def follow(self) -> None:
        """Read the group's new outputs and press Confirm on each new report, until cancelled."""
        while True:
            outputs = self.tg.outputs(self.chat)
            for output in outputs[self.seen:]:
                if output.kind == "send" and (found := REPORTED.match(output.plain)):
                    game, opponent = int(found[1]), found[4]
                    self.games.setdefault(game, (found[2], found[3]))
                    assert self.games[game] == (found[2], found[3]), output.plain
                    self.updates.append(await self.tg.press(
                        self.chat, self.members[opponent], output, f"g:confirm:{game}"))
                    self.pressed.add(game)
                elif output.kind == "edit" and (found := CONFIRMED.match(output.plain)):
                    self.acknowledged[int(found[1])] = (found[2], found[3])
            self.seen = len(outputs)
            await asyncio.sleep(0.005)


@pytest.fixture
async def group(tmp_path: Path) -> AsyncIterator[Group]:
    async with FakeTelegram(token=TOKEN) as tg:
        chat = chess_club(tg, tg.user(1, "Ada", "ada"))
        members = {name: tg.user(10 + n, name.title(), name) for n, name in enumerate(NAMES)}
        yield Group(tg, chat, members, tmp_path, FakeClock(tmp_path, FRIDAY))


async def until(condition: Callable[[], bool], follower: asyncio.Task[None], what: str,
                timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if follower.done():
            follower.result()  # its failure
        assert asyncio.get_running_loop().time() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.005)


async def quiet(tg: FakeTelegram, chat: Chat, follower: asyncio.Task[None],
                seconds: float = 1.5) -> None:
    """Wait until the bot has said and answered nothing for ``seconds``."""
    def activity() -> tuple[int, int]:
        return len(tg.outputs(chat)), len(tg.callback_answers)

    last, since = activity(), asyncio.get_running_loop().time()
    while asyncio.get_running_loop().time() - since < seconds:
        await asyncio.sleep(0.05)
        if follower.done():
            follower.result()
        if activity() != last:
            last, since = activity(), asyncio.get_running_loop().time()


async def exported(bot: Bot) -> Counter[Pair]:
    """The games of ``clubrating export``, as (winner, loser) counts."""
    done = await asyncio.to_thread(clubrating, bot.env, "export", "--chat", f"telegram:{GROUP}")
    assert done.returncode == 0, done.stderr
    games: Counter[Pair] = Counter()
    for row in csv.DictReader(io.StringIO(done.stdout)):
        if row.get("kind", "") not in ("", "game"):
            continue
        a, b, score = row["player_a"], row["player_b"], float(row["score_a"])
        assert score in (0.0, 1.0), row  # every game here has a winner
        games[(a, b) if score == 1.0 else (b, a)] += 1
    return games


def check(history: Counter[Pair], group: Group) -> None:
    """Every acknowledged result exactly once; no pair twice; no pair under two numbers."""
    twice = {pair: n for pair, n in history.items() if n > 1}
    assert not twice, f"games counted twice: {twice}"
    pairs = Counter(frozenset(pair) for pair in history)
    assert max(pairs.values(), default=1) == 1, f"a pair played twice: {pairs}"
    numbers = Counter(group.games.values())
    assert max(numbers.values(), default=1) == 1, f"a report made two games: {group.games}"
    lost = {game: pair for game, pair in group.acknowledged.items() if pair not in history}
    assert not lost, f"acknowledged results lost: {lost}"
    assert set(history) <= set(group.games.values()), "a game nobody reported"


async def test_sigkill_during_confirmations_loses_no_acknowledged_result(group: Group) -> None:
    rng = random.Random(20261120)
    pairs = list(combinations(NAMES, 2))
    rng.shuffle(pairs)
    rounds = [pairs[n::len(KILL_AFTER)] for n in range(len(KILL_AFTER))]
    bot = group.bot()
    await bot.start()
    follower = asyncio.create_task(group.follow())
    try:
        for member in group.members.values():  # all at once
            await group.tg.send(group.chat, member, "/register")
        await until(lambda: sum(o.plain.startswith("Welcome, ")
                                for o in group.tg.outputs(group.chat)) == len(NAMES),
                    follower, "every member registered")

        in_flight: list[int] = []  # per kill: presses made since the last kill, unacknowledged
        unacknowledged: set[int] = set()
        at_kills: list[int] = []  # results acknowledged when each kill came
        for games, kill_after in zip(rounds, KILL_AFTER, strict=True):
            acknowledged = len(group.acknowledged)
            for a, b in games:  # a burst of reports, the loser reporting every other time
                reporter, line = (a, f"/report @{b} win") if rng.random() < 0.5 else (
                    b, f"/report @{a} loss")
                group.updates.append(await group.tg.send(group.chat, group.members[reporter],
                                                         line))
            await until(lambda: len(group.acknowledged) - acknowledged >= kill_after,  # noqa: B023
                        follower, f"{kill_after} confirmations acknowledged")
            fresh = group.pressed - set(group.acknowledged) - unacknowledged
            in_flight.append(len(fresh))
            at_kills.append(len(group.acknowledged))
            unacknowledged |= fresh
            assert await bot.kill() == -9

            with sqlite3.connect(group.folder / "club.db") as db:
                assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            check(await exported(bot), group)
            await bot.start()  # on what the kill left; updates not yet confirmed come again
            # The kill might have come before getUpdates confirmed any of them: every report
            # and press since the last start comes again (same update_id), and changes nothing.
            for update in group.updates:
                await group.tg.redeliver(update)
            group.updates.clear()
            await quiet(group.tg, group.chat, follower)  # the next kill comes in its own burst

        # After the last restart (and the deliveries again) every report was answered and
        # confirmed: each reported game counts exactly once, and the board says so.
        assert group.acknowledged == group.games
        history = await exported(bot)
        check(history, group)
        assert set(history) == set(group.games.values()) and len(history) == len(pairs)

        board_at = len(group.tg.outputs(group.chat))
        await group.tg.send(group.chat, group.members["ann"], "/top")

        def boards() -> list[str]:
            return [o.plain for o in group.tg.outputs(group.chat)[board_at:]
                    if o.kind == "send" and o.plain.startswith("  1. ", o.plain.find("\n") + 1)]

        await until(lambda: bool(boards()), follower, "the answer to /top")
        board = boards()[0]
        counts = [int(n) for n in re.findall(r"\((\d+)\)$", board, re.MULTILINE)]
        assert len(counts) == len(NAMES) and sum(counts) == 2 * sum(history.values()), board
        print(f"\nSIGKILLs {len(KILL_AFTER)}, acknowledged at the kills {at_kills}, presses in "
              f"flight at the kills {in_flight}, acknowledged in all {len(group.acknowledged)}, "
              f"games exported {sum(history.values())}")
        assert all(in_flight), f"a kill came with no confirmation in flight: {in_flight}"
        assert await bot.stop() == 0
        assert "Traceback" not in bot.text(), bot.text()
    finally:
        follower.cancel()
        if bot.process is not None and bot.process.returncode is None:
            await bot.kill()
