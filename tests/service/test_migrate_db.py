"""``clubrating migrate-db``: clubs move from a SQLite file to PostgreSQL whole (ids, answers,
claimed posts, each event's platform sequence), the ratings are the same after the move, and a
club already on the server is never overwritten."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.chat.presenter import render
from bot.cli import main
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService, Correction
from bot.service.events import Kind
from bot.service.results import GameResult
from bot.storage.backends import open_repository
from bot.storage.migrations import MIGRATIONS
from bot.storage.repository import QueuedPost, Repository
from bot.storage.sqlite import SqliteRepository

START = datetime(2024, 3, 1, 19, 0)
CHATS = [("telegram", "-100"), ("discord", "42")]


#: the platform sequence (update id) of chat 0's reports (migration 0012)
SEQUENCE = 7_000


def member(chat: int, user: str, request: str | None = None, moderator: bool = False,
           sequence: int | None = None) -> Caller:
    platform, chat_id = CHATS[chat]
    return Caller(platform, chat_id, user, user, moderator, request, sequence=sequence)


async def play(service: ClubService) -> None:
    """Two clubs whose writes interleave (so each club's event ids have gaps in SQLite), with
    corrections, an undo, a second ladder on another system and platform request ids."""
    for chat in (0, 1):
        for name in ("ann", "bob", "cid"):
            await service.register(member(chat, name))
    await service.create_ladder(member(1, "mod", moderator=True), "blitz", "glicko2", {})
    for i in range(6):
        for chat in (0, 1):
            a, b = ("ann", "bob") if i % 2 else ("cid", "ann")
            ladder = "blitz" if chat == 1 and i % 3 == 0 else None
            reported = await service.report(
                member(chat, a, f"r{chat}-{i}", sequence=SEQUENCE + i if chat == 0 else None),
                b, ("win", "draw", "loss")[i % 3], ladder=ladder)
            assert isinstance(reported, GameResult)
            await service.confirm(member(chat, b, f"c{chat}-{i}"), reported.game.id)
            if i == 2:
                await service.correct(member(chat, "mod", f"x{chat}", moderator=True),
                                      reported.game.id, Correction(result="loss"), apply=True)
    undoing = member(0, "mod", moderator=True)
    await service.undo(undoing)  # the correction: previewed, then applied
    await service.apply_correction(undoing)


async def boards(repository: Repository) -> list[str]:
    service = ClubService(repository, FakeClock(START))
    seen = []
    for chat, ladders in ((0, [None]), (1, [None, "blitz"])):
        for ladder in ladders:
            seen.append(render(await service.leaderboard(member(chat, "ann"), ladder)))
        seen.append(render(await service.audit(member(chat, "mod", moderator=True), 100)))
    return seen


def unsent(club: int) -> QueuedPost:
    """The club's post of the Friday after START, due a minute after its time."""
    when = START + timedelta(days=14)
    return QueuedPost(club, "main", when, *CHATS[0], CHATS[0][1], "main", False, START,
                      when + timedelta(minutes=1))


async def make_source(path: Path) -> tuple[list[str], int]:
    repository = await open_repository(path)
    try:
        await play(ClubService(repository, FakeClock(START)))
        club = await repository.club_id(*CHATS[0], START)
        assert await repository.claim_post(club, "main", START + timedelta(days=7), START)
        # a post of the outbox not sent yet when the bot stopped (issue 41)
        assert await repository.enqueue_post(unsent(club), START)
        ids = [e.id for e in await repository.events(club)]
        assert ids != list(range(1, len(ids) + 1))  # SQLite numbers all clubs' events at once
        return await boards(repository), len(ids)
    finally:
        await repository.close()


def test_every_club_moves_whole_and_rates_the_same(
    postgres_db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "club.db"
    before, events_of_first = asyncio.run(make_source(source))

    assert main(["migrate-db", "--from", f"sqlite:{source}", "--to", postgres_db]) == 0
    summary = capsys.readouterr().out
    assert summary.startswith("migrate-db: 2 clubs, ")
    assert "2 posts copied to postgresql://postgres@127.0.0.1:" in summary  # one in the outbox
    assert summary.rstrip().endswith("the ratings of all 3 ladders match")

    async def after_the_move() -> None:
        repository = await open_repository(postgres_db)
        try:
            # Leaderboards (both ladders) and audit logs read the same from the server.
            assert await boards(repository) == before
            club = await repository.club_id(*CHATS[0], START)
            assert len(await repository.events(club)) == events_of_first
            # each event keeps its update's sequence
            connection = await asyncpg.connect(postgres_db)
            try:
                sequences = [r[0] for r in await connection.fetch(
                    "SELECT platform_sequence FROM events WHERE club_id = $1"
                    " AND kind = 'game_reported' ORDER BY id", club)]
            finally:
                await connection.close()
            assert sequences == [SEQUENCE + i for i in range(6)]
            # A redelivered update finds its first answer; a claimed post stays claimed.
            service = ClubService(repository, FakeClock(START))
            again = await service.confirm(member(0, "ann", "c0-1"), 2)
            assert isinstance(again, GameResult)
            assert (again.game.player_a, again.game.player_b) == ("ann", "bob")
            assert not await repository.claim_post(club, "main", START + timedelta(days=7),
                                                   START)
            # the post the outbox held is still to be sent, once
            due = unsent(club).due_at
            [row] = await repository.claim_outbox(["telegram"], "after", due,
                                                  due + timedelta(minutes=2), 10)
            assert (row.post, row.attempts, row.maybe_sent) == (unsent(club), 0, False)
            assert not await repository.enqueue_post(unsent(club), due)
            # The club goes on: the next event follows the copied ids, and the next game
            # follows the club's numbers.
            copied = await repository.events(club)
            last = copied[-1].id
            games = sum(1 for e in copied if e.kind == Kind.GAME_REPORTED)
            reported = await service.report(member(0, "bob", "new"), "cid", "win")
            assert isinstance(reported, GameResult) and reported.game.id == games + 1
            newest = (await repository.events(club))[-1]
            assert newest.id == last + 1 and newest.kind == Kind.GAME_REPORTED
        finally:
            await repository.close()

    asyncio.run(after_the_move())

    # A second move finds the clubs there: it refuses and copies nothing.
    assert main(["migrate-db", "--from", str(source), "--to", postgres_db]) == 2
    assert "already has a log here; nothing was copied" in capsys.readouterr().err

    async def count() -> int:
        repository = await open_repository(postgres_db)
        try:
            return len(await repository.events(await repository.club_id(*CHATS[0], START)))
        finally:
            await repository.close()

    assert asyncio.run(count()) == events_of_first + 1


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        ("sqlite:{tmp}/missing.db", "{pg}", "no SQLite database at"),
        ("sqlite:{tmp}/club.db", "{tmp}/other.db", "--to takes a postgresql:// address"),
        ("postgresql://elsewhere/db", "{pg}", "--from takes sqlite:FILE"),
    ],
)
def test_a_move_that_cannot_be_done_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, target: str, message: str
) -> None:
    (tmp_path / "club.db").touch()
    pg = "postgresql://nobody@127.0.0.1:1/none"  # never reached: the arguments are refused
    args = [a.format(tmp=tmp_path, pg=pg) for a in (source, target)]
    assert main(["migrate-db", "--from", args[0], "--to", args[1]]) == 2
    assert message in capsys.readouterr().err


def test_a_file_from_before_answers_had_times_moves_with_its_answers(
    postgres_db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 30 gave each stored answer its time (migration 0006), and answers older than the
    redelivery window go. A SQLite file an earlier build wrote (read as it is, never migrated)
    still moves: its answers count as given at the move, as the migration counts them, so a
    redelivery just after the move still finds its first answer."""
    schema = tmp_path / "schema"
    schema.mkdir()
    for migration in MIGRATIONS.iterdir():
        if migration.name.endswith(".sql") and migration.name < "0006":
            (schema / migration.name).write_text(migration.read_text(encoding="utf-8"))
    source = tmp_path / "old.db"

    async def write_old() -> None:
        repository = await SqliteRepository.open(source, schema)
        try:
            await repository.club_id(*CHATS[0], START)
        finally:
            await repository.close()

    asyncio.run(write_old())
    with contextlib.closing(sqlite3.connect(source)) as db, db:
        db.execute("INSERT INTO requests (club_id, request_id, response) VALUES (1, 'u1', ?)",
                   ('"first"',))
    assert main(["migrate-db", "--from", f"sqlite:{source}", "--to", postgres_db]) == 0
    assert "1 clubs, 0 events, 1 answers" in capsys.readouterr().out

    async def after_the_move() -> None:
        repository = await open_repository(postgres_db)
        try:
            club = await repository.club_id(*CHATS[0], START)
            assert await repository.answer(club, "u1") == '"first"'
            moved = datetime.now(UTC).replace(tzinfo=None)
            assert await repository.forget_answers(moved - timedelta(minutes=5)) == 0
            assert await repository.forget_answers(moved + timedelta(minutes=5)) == 1
        finally:
            await repository.close()

    asyncio.run(after_the_move())
