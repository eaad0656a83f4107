"""The club cache (issue 41) through ``clubrating run`` on the fake Bot API: a process that keeps
two clubs in memory (``CLUBRATING_CACHE_CLUBS=2``) serves five groups in turn with exactly the
answers of one that keeps them all; a long club is read again after a restart from the snapshot
the process kept, with the same ratings, and a snapshot of another format is ignored."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from bot.service import snapshots
from tests.fake_telegram import TOKEN, Chat, FakeTelegram, User
from tests.long_history import write_events

from .clubs import FRIDAY, telegram_variables
from .process import Bot, FakeClock, clubrating, environment

#: the five groups; the first is the long club
GROUPS = [-1001, -1002, -1003, -1004, -1005]
#: games imported into the first group's club: enough for a snapshot (2,000 events)
LONG_GAMES = 2500


class Groups:
    """Five groups on one fake Bot API, ada the administrator of each, alice and bob playing."""

    def __init__(self, tg: FakeTelegram) -> None:
        self.tg = tg
        self.ada = tg.user(1, "Ada", "ada")
        self.alice = tg.user(2, "Alice", "alice")
        self.bob = tg.user(3, "Bob", "bob")
        self.chats = [tg.group(id, f"Club {n}", admins=[self.ada], creator=self.ada)
                      for n, id in enumerate(GROUPS, 1)]

    async def say(self, chat: Chat, user: User, line: str) -> str:
        await self.tg.send(chat, user, line)
        return (await self.tg.reply(chat, 30.0)).plain

    async def round_robin(self) -> list[str]:
        """A command in each group in turn, again and again; every answer."""
        answers = []
        for user in (self.alice, self.bob):
            for chat in self.chats:
                answers.append(await self.say(chat, user, "/register"))
        for n, line in enumerate(["/report @alice @bob win", "/report @bob @alice draw",
                                  "/report @alice @bob win"]):
            for chat in self.chats[n % 2:]:
                answers.append(await self.say(chat, self.ada, line))
        for chat in self.chats:
            answers.append(await self.say(chat, self.bob, "/top"))
        return answers


def snapshot_of(folder: Path) -> tuple[int, str] | None:
    """The long club's snapshot (its last event and format), if one was kept."""
    with sqlite3.connect(folder / "club.db") as connection:
        row = connection.execute(
            "SELECT last_id, format FROM snapshots WHERE club_id = 1").fetchone()
    return None if row is None else (int(row[0]), str(row[1]))


def bot_on(tg: FakeTelegram, folder: Path, **variables: str) -> Bot:
    env = environment(folder, FakeClock(folder, FRIDAY), **telegram_variables(tg), **variables)
    return Bot(env, folder / "bot.log")


def long_club(tmp_path: Path, folder: Path) -> None:
    """The first group's club with LONG_GAMES games imported by ``clubrating import``."""
    events = write_events(tmp_path / "EVENTS.csv", LONG_GAMES, players=30)
    env = environment(folder, FakeClock(folder, FRIDAY))
    done = clubrating(env, "import", "--chat", f"telegram:{GROUPS[0]}", str(events))
    assert done.returncode == 0, done.stderr


async def served(tmp_path: Path, name: str, **variables: str) -> tuple[list[str], Path]:
    folder = tmp_path / name
    folder.mkdir()
    long_club(tmp_path, folder)
    async with FakeTelegram(token=TOKEN) as tg:
        groups = Groups(tg)
        bot = await bot_on(tg, folder, **variables).start()
        try:
            answers = await groups.round_robin()
            # The long club, read from its log, gets a snapshot once it has answered (the
            # import's short process may have kept one first).
            for _ in range(600):
                if snapshot_of(folder) is not None:
                    break
                await asyncio.sleep(0.05)
        finally:
            assert await bot.stop() == 0
    return answers, folder


async def top_after_restart(folder: Path, first_id: int, **variables: str) -> tuple[str, str]:
    """The long club's /top from a process started anew (Telegram's update ids going on from
    ``first_id``); the process's log."""
    async with FakeTelegram(token=TOKEN, first_id=first_id) as tg:
        groups = Groups(tg)
        bot = await bot_on(tg, folder, **variables).start()
        try:
            return await groups.say(groups.chats[0], groups.bob, "/top"), bot.text()
        finally:
            assert await bot.stop() == 0


async def test_five_clubs_through_a_cache_of_two_and_a_restart_from_the_snapshot(
        tmp_path: Path) -> None:
    everything, _ = await served(tmp_path, "default")
    answers, folder = await served(tmp_path, "two", CLUBRATING_CACHE_CLUBS="2")
    assert answers == everything
    board = answers[-5]  # the long club's /top
    assert board.splitlines()[1:4] == [
        "  1. p028        1628  116 games", "  2. p005        1572  126 games",
        "  3. p003        1555  121 games"]
    assert answers[-1].splitlines()[1:] == ["  1. alice      1574?  3 games",
                                            "  2. bob        1426?  3 games"]

    # A restart: the long club comes from its snapshot, with the same ratings.
    again, log = await top_after_restart(folder, 100_000, CLUBRATING_CACHE_CLUBS="2")
    assert again == board
    assert "club 1 read from its snapshot" in log and "reading its log" not in log
    kept = snapshot_of(folder)
    assert kept is not None and kept[1] == snapshots.FORMAT

    # A snapshot of a format this version does not write is ignored: the log is read.
    with sqlite3.connect(folder / "club.db") as connection:
        connection.execute("UPDATE snapshots SET format = 'clubrating-0.0.1/state-0/pickle-5'")
    again, log = await top_after_restart(folder, 200_000)
    assert again == board
    assert "club 1: its snapshot is of another format (clubrating-0.0.1" in log
