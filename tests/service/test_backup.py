"""Backups: ``clubrating backup`` while the bot writes gives a sound, consistent copy;
``clubrating restore`` checks the file and asks first; daily backups keep the last N."""

from __future__ import annotations

import asyncio
import io
import signal
import sqlite3
import time
from argparse import Namespace
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot import cli
from bot.ops.backup import backup_command, backup_every_day, daily_backup
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.ratings import LadderRatings
from bot.service.results import Leaderboard
from bot.service.state import ClubState
from bot.storage.sqlite import SqliteRepository
from bot.storage.sqlite_backup import BackupError, check_database
from ratings_core.replay import replay
from ratings_core.systems import make_system
from tests.chat import START
from tests.service.test_crash_safety import start, stored_events, wait_ready

COPIES = 5


def rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT id, club_id, kind, actor, at, reason, data FROM events"
                          " ORDER BY id").fetchall()


def count(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM events").fetchone()[0])


async def board_of(path: Path) -> Leaderboard:
    repository = await SqliteRepository.open(path)
    try:
        clubs = await repository.clubs()
        _, platform, chat = clubs[0]
        answer = await ClubService(repository, FakeClock(START)).leaderboard(
            Caller(platform, chat, "mod", "mod", moderator=True))
        assert isinstance(answer, Leaderboard)
        return answer
    finally:
        await repository.close()


def test_backups_taken_under_write_load_are_sound_and_consistent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    db, acks = tmp_path / "club.db", tmp_path / "acks.txt"
    monkeypatch.setenv("CLUBRATING_DB", str(db))
    driver = start(db, acks, 7)  # the bot, reporting and confirming as fast as it can
    copies = []
    try:
        wait_ready(driver)
        for n in range(COPIES):
            time.sleep(0.15)
            acked = acks.read_text().splitlines() if acks.exists() else []
            copy = tmp_path / f"copy{n}.db"
            assert cli.main(["backup", str(copy)]) == 0
            copies.append((copy, acked))
        # The load goes on after the last copy: the log grows past it before the bot is killed.
        deadline = time.monotonic() + 30
        while count(db) <= count(copies[-1][0]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert driver.poll() is None  # the load ran all along
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.communicate()
    final = rows(db)
    sizes = []
    for copy, acked in copies:
        check_database(copy)  # integrity_check ok, the clubrating tables
        assert not copy.with_name(copy.name + "-wal").exists()  # one self-contained file
        copied = rows(copy)
        sizes.append(len(copied))
        # A snapshot: exactly the log as it was at one moment, a prefix of what came after.
        assert copied == final[:len(copied)]
        # Everything acknowledged before the backup began is in it.
        state = ClubState.build(stored_events(copy))
        for line in acked:
            record = state.game_numbered(int(line.split()[1]))  # acked as the member sees it
            assert record is not None and record.counts
        # Its ratings: what the bot shows on the copy is a scratch replay of the copy's log.
        ladder = state.ladders["main"]
        derived = LadderRatings()
        derived.sync(state, ladder)
        scratch = replay(make_system(ladder.settings.system), derived.steps).final
        board = asyncio.run(board_of(copy))
        assert {r.name: r.rating for r in board.rows} == {
            state.member(int(k[1:])).name: s.rating for k, s in scratch.players.items()}
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1] < len(final)  # taken while writing
    print(f"\nbackups under load: {COPIES} copies of {sizes[0]}..{sizes[-1]} events while "
          f"the log grew to {len(final)}; all sound, consistent, replays equal")


def args(command: str, file: Path, yes: bool = False) -> Namespace:
    return Namespace(command=command, file=file, yes=yes)


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    """A small clubrating database and its backup."""
    async def fill(path: Path) -> None:
        repository = await SqliteRepository.open(path)
        service = ClubService(repository, FakeClock(START))
        for name in ("alice", "bob"):
            await service.register(Caller("console", "local", name, name))
        await repository.close()

    asyncio.run(fill(tmp_path / "club.db"))
    backup_command(args("backup", tmp_path / "saved.db"), str(tmp_path / "club.db"))
    return tmp_path / "saved.db"


def test_restore_asks_first_and_refuses_what_is_no_clubrating_database(
    tmp_path: Path, saved: Path,
) -> None:
    live = tmp_path / "live.db"

    def restore(file: Path, answer: str = "", yes: bool = False) -> str:
        return backup_command(args("restore", file, yes), str(live), io.StringIO(answer),
                              io.StringIO())

    with pytest.raises(BackupError, match="cancelled; nothing changed"):
        restore(saved, "n\n")
    assert not live.exists()
    assert "restored" in restore(saved, "yes\n")
    assert rows(live) == rows(saved)

    text_file = tmp_path / "notes.txt"
    text_file.write_text("hello")
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(saved.read_bytes()[: 4096 + 100])
    for bad, why in [(text_file, "not a SQLite database"),
                     (other, "not a clubrating database"),
                     (damaged, "damaged|cannot be read"),
                     (tmp_path / "missing.db", "no such file")]:
        with pytest.raises(BackupError, match=why):
            restore(bad, yes=True)
    assert rows(live) == rows(saved)  # untouched by every refusal


def test_backup_refuses_a_server_and_itself(tmp_path: Path, saved: Path) -> None:
    with pytest.raises(BackupError, match="pg_dump"):
        backup_command(args("backup", tmp_path / "x.db"), "postgresql://u@h/db")
    with pytest.raises(BackupError, match="itself"):
        backup_command(args("backup", saved), str(saved))


def test_daily_backups_keep_the_last_n(tmp_path: Path, saved: Path) -> None:
    folder = tmp_path / "backups"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a backup: never removed")
    day = datetime(2024, 3, 1, 4, 0)
    made = [daily_backup(saved, folder, keep=3, now=day + timedelta(days=n)) for n in range(5)]
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [p.name for p in made[-3:]] + ["notes.txt"])
    for path in made[-3:]:
        check_database(path)


async def test_the_daily_loop_goes_on_after_a_failure(tmp_path: Path, saved: Path) -> None:
    folder = tmp_path / "backups"
    missing = tmp_path / "gone.db"
    task = asyncio.create_task(backup_every_day(missing, folder, 2, interval=0.01))
    await asyncio.sleep(0.05)
    assert not task.done()  # failures are logged, the loop lives on
    task.cancel()
    task = asyncio.create_task(backup_every_day(saved, folder, 2, interval=5.0))
    for _ in range(100):  # the first backup runs in a thread: wait for it, up to 5 s
        await asyncio.sleep(0.05)
        if list(folder.glob("clubrating-*.db")):
            break
    task.cancel()
    assert len(list(folder.glob("clubrating-*.db"))) == 1
