"""A Telegram bot on a webhook served by two processes (issue 41): ``clubrating run`` started
twice on one PostgreSQL database, each listening on its own port behind the fake Bot API, which
delivers as Telegram does (one update of a chat in flight, the next after a 200) to the two in
turn, as a load balancer would, delivers some updates twice (a 200 lost on its way) and answers
some sends 429 (flood control). One club's results keep the chat's order and count once: the
log and the ratings are those of the same results entered one after another on one console."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]

from tests.fake_telegram import TOKEN as TELEGRAM_TOKEN
from tests.fake_telegram import FakeTelegram

from .clubs import FRIDAY, GROUP, TelegramClub, telegram_bot
from .process import Bot, FakeClock, clubrating, environment, start_together
from .test_web import free_port

#: the results, as a moderator records them in one step each
RESULTS = 50
#: of which this many are delivered twice
TWICE = 10
#: the address Telegram is given (the load balancer's); each process listens on a port of its own
HOOK = "https://bots.example.org/telegram/hook"
SECRET = "one-secret_for-every-process"
PLAYERS = ("alice", "bob", "carol")
OUTCOMES = ("win", "loss", "draw", "win", "win")

#: what every process says once it serves (only one of them reads the plans: the scheduler role)
SERVING = r"serving telegram"


def result(n: int) -> str:
    """The n-th result (0-based): every pair in turn, outcomes mixed so that order matters."""
    first, second = PLAYERS[n % 3], PLAYERS[(n + 1 + n // 3 % 2) % 3]
    return f"/report @{first} @{second} {OUTCOMES[n % len(OUTCOMES)]}"


async def games_in_the_log(database: str) -> list[tuple[int, int | None, str]]:
    """(event id, platform sequence, data) of the club's reported games, in the log's order."""
    connection = await asyncpg.connect(database)
    try:
        rows = await connection.fetch(
            "SELECT e.id, e.platform_sequence, e.data::text AS data FROM events e"
            " JOIN clubs c ON c.id = e.club_id WHERE c.platform = 'telegram'"
            " AND c.chat_id = $1 AND e.kind = 'game_reported' ORDER BY e.id", str(GROUP))
    finally:
        await connection.close()
    return [(int(r["id"]), r["platform_sequence"], str(r["data"])) for r in rows]


def serial_top(folder: Path) -> str:
    """What the console answers to the same results entered one after another, then /top
    (SQLite, one process)."""
    folder.mkdir()
    env = environment(folder, FakeClock(folder, FRIDAY))
    lines = [line for name in PLAYERS for line in (f"/as {name}", "/register")]
    lines += ["/as ada!", *(result(n) for n in range(RESULTS)), "/top"]
    done = clubrating(env, "run", input="".join(f"{line}\n" for line in lines))
    assert done.returncode == 0, done.stderr
    return done.stdout


def webhook_processes(tg: FakeTelegram, club: TelegramClub, folder: Path, database: str
                      ) -> tuple[list[Bot], list[str]]:
    """Two ``clubrating run`` of the club's bot on ``database``, in ``folder``'s a and b, each
    listening for the webhook on a port of its own; and the address of each (what a load
    balancer in front of them would post to)."""
    bots, hooks = [], []
    for name in "ab":
        (folder / name).mkdir()
        port = free_port()
        bots.append(telegram_bot(tg, folder / name, club.clock, CLUBRATING_DB=database,
                                 TELEGRAM_WEBHOOK_URL=HOOK, TELEGRAM_WEBHOOK_SECRET=SECRET,
                                 TELEGRAM_WEBHOOK_LISTEN=f"127.0.0.1:{port}"))
        hooks.append(f"http://127.0.0.1:{port}/telegram/hook")
    return bots, hooks


async def test_two_processes_on_one_webhook_keep_the_chat_s_order(
        tmp_path: Path, postgres_db: str) -> None:
    async with FakeTelegram(token=TELEGRAM_TOKEN) as tg:
        club = TelegramClub.on(tg, tmp_path)
        bots, tg.balancer = webhook_processes(tg, club, tmp_path, postgres_db)
        await start_together(bots, SERVING)
        try:
            assert tg.webhook is not None and tg.webhook["url"] == HOOK
            await club.register(club.alice, club.bob, club.carol)
            # all 50 sent at once: Telegram holds each until the one before was answered 200
            tg.flood("sendMessage", retry_after=1, times=2)
            # (send() only queues, without giving the event loop a turn: nothing is delivered
            # before every tenth is marked to come twice)
            sent = [await tg.send(club.group, club.ada, result(n)) for n in range(RESULTS)]
            tg.twice = set(sent[::RESULTS // TWICE])
            answers = [(await tg.reply(club.group, 60)).plain for _ in range(RESULTS)]
            board = (await club.say(club.ada, "/top", 30)).plain
        finally:
            stopped = [await bot.stop() for bot in bots]
        assert stopped == [0, 0]

    # each result answered once, in the chat's order: game 1 to 50
    numbers = [int(m[1]) for a in answers if (m := re.match(r"Game #(\d+) recorded:", a))]
    assert numbers == list(range(1, RESULTS + 1)), answers
    assert len(tg.outputs(club.group)) == 3 + RESULTS + 1  # no answer twice
    # the deliveries went to both processes in turn, the ten repeated ones too
    delivered = [d for d in tg.deliveries if d[0] in sent and d[2] == 200]
    assert len(delivered) == RESULTS + TWICE
    assert {target for _, target, _ in delivered} == set(tg.balancer)
    assert sum(bot.text().count("came again: handled once") for bot in bots) == TWICE
    # 429s were waited out
    assert [e for e in tg.errors if e[1] == 429] == [
        ("sendMessage", 429, "Too Many Requests: retry after 1")] * 2

    games = await games_in_the_log(postgres_db)
    assert len(games) == RESULTS
    assert [sequence for _, sequence, _ in games] == sent  # each its update's id, in order
    # the ratings are those of a serial replay of the same results
    serial = serial_top(tmp_path / "serial")
    assert "\n".join([*answers, board]) in serial, (answers, board, serial)


async def test_an_update_whose_process_died_is_taken_over_at_once(
        tmp_path: Path, postgres_db: str) -> None:
    """The process handling a result is killed while it waits out a 429 (its game written, its
    answer not sent): Telegram delivers the update again, to the other process, which takes it
    over at once (the claim names a process that is gone; no clock moves): the member is
    answered, and the game is in the log once."""
    async with FakeTelegram(token=TELEGRAM_TOKEN) as tg:
        club = TelegramClub.on(tg, tmp_path)
        bots, hooks = webhook_processes(tg, club, tmp_path, postgres_db)
        tg.balancer = hooks[:1]
        first, second = await start_together(bots, SERVING)
        try:
            await club.register(club.alice, club.bob)
            tg.flood("sendMessage", retry_after=60, times=1)
            sent = await tg.send(club.group, club.ada, result(0))
            for _ in range(600):
                if tg.errors and tg.errors[-1][1] == 429:
                    break
                await asyncio.sleep(0.05)
            assert await first.kill() != 0
            tg.balancer = hooks[1:]
            answer = await tg.reply(club.group, 30)
        finally:
            assert await second.stop() == 0
    assert answer.plain.startswith("Game #1 recorded: alice beat bob."), answer.plain
    assert len(tg.outputs(club.group)) == 3
    assert [d[2] for d in tg.deliveries if d[0] == sent][-1] == 200
    assert "being handled by another process" not in second.text()
    games = await games_in_the_log(postgres_db)
    assert [sequence for _, sequence, _ in games] == [sent]
