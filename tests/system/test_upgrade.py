"""An upgrade never changes a club's ratings or history: a database written by an earlier
version opens, migrates and gives the same leaderboards and export.

``data/clubrating-6fa0741.sql`` is the SQL dump of a database written by the build before issues
13 and 21 (commit 6fa0741) from the console session beside it (``.session``: members with a
birth date, games with a handicap, a second ladder on ``elo``, a correction applied, the system's
K changed, announcements on); the expected answers below are what that build showed for it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
from datetime import datetime
from pathlib import Path

import asyncpg
import pytest

from bot.storage.migrations import load_migrations
from bot.storage.postgres import MIGRATION_LOCK
from tests.fake_telegram import TOKEN, FakeTelegram

from .clubs import GROUP, TelegramClub
from .process import CLUBRATING, TIMEOUT, clubrating, environment

DATA = Path(__file__).parent / "data"
#: what the earlier build answered to "/top" and "/top blitz" on that database: the same ratings
#: and marks, with the games column in words since issue 31 ("2 games", where it showed "(2)")
BOARDS = """\
main ladder
  1. alice        1538?  2 games
  2. carol_k      1499?  1 game
  3. bob          1464?  1 game
blitz ladder
  1. bob           1604  1 game
  2. carol_k       1200  1 game
"""
#: and what its `clubrating export --chat console:local` wrote
EXPORT = """\
played_at,event,player_a,player_b,score_a,handicap,kind
2026-11-23T21:50:55.212472,,bob,,,,join
2026-11-23T21:50:55.214720,,alice,,,,join
2026-11-23T21:50:55.215738,,carol_k,,,,join
2026-11-23T21:50:55.216710,,alice,bob,1,0,game
2026-11-23T21:50:55.218345,,alice,carol_k,0.5,50,game
"""


def earlier_build(folder: Path) -> dict[str, str]:
    """The environment of a console session on the database the earlier build wrote."""
    with sqlite3.connect(folder / "club.db") as written:
        written.executescript((DATA / "clubrating-6fa0741.sql").read_text(encoding="utf-8"))
    written.close()
    return environment(folder, None)


def test_a_database_of_the_earlier_build_migrates_and_rates_the_same(tmp_path: Path) -> None:
    env = earlier_build(tmp_path)
    shown = clubrating(env, "run", input="/top\n/top blitz\n")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == BOARDS
    assert "applied migration 0003_previews" in shown.stderr
    # Its games are numbered from #1 in the order they were reported (issue 15; migration 0005)
    assert "applied migration 0005_game_numbers" in shown.stderr
    numbered = clubrating(env, "run", input="/history @alice\n/history @bob ladder=blitz\n")
    assert numbered.returncode == 0, numbered.stderr
    assert numbered.stdout == (
        "alice's games on main:\n"
        "#2 Nov 23, 2026 alice drew with carol_k, handicap 50\n"
        "#1 Nov 23, 2026 alice beat bob\n"
        "bob's games on blitz:\n"
        "#3 Nov 23, 2026 bob beat carol_k\n")
    exported = clubrating(env, "export", "--chat", "console:local")
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.replace("\r\n", "\n") == EXPORT


def test_a_ladder_of_the_earlier_build_keeps_its_defaults_until_a_moderator_sets_them(
    tmp_path: Path,
) -> None:
    """Issue 19: its main ladder is on edition 1 of club's defaults (the provisional mean);
    /settings says so, and only /system club moves it to today's, re-rating its games: first a
    preview of every rating it would move (kept in the database: the /apply comes from another
    process), then /apply."""
    env = earlier_build(tmp_path)
    shown = clubrating(env, "run", input="/as mod!\n/settings\n/system club\n/top\n")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.split("\n")[1:]
    before, preview = lines[0], lines[1:]
    assert "uncertainty=games" in before
    assert "with the defaults it was set up with (edition 1; /system club gives it today's" in (
        before)
    assert preview[0] == ("Setting ladder main to club (defaults) re-rates every game and would "
                          "change:")
    hint = preview.index("Send /apply to switch, or /cancel.")
    changes = preview[1:hint]
    assert changes and all(" -> " in line for line in changes)
    assert preview[hint + 1:hint + 2] == ["main ladder"]
    assert "1538?" in shown.stdout.split("main ladder", 1)[1]  # nothing switched yet

    applied = clubrating(env, "run", input="/as mod!\n/apply\n/top\n/settings\n")
    assert applied.returncode == 0, applied.stderr
    lines = applied.stdout.split("\n")[1:]
    assert lines[0] == ("Ladder main now uses club (defaults); every game was re-rated. Ratings "
                        "changed:")
    assert lines[1:1 + len(changes)] == changes  # what the preview said
    board = lines.index("main ladder")
    after = "\n".join(lines[board:])
    assert "1538?" not in after and "uncertainty=deviation" in after and "edition" not in after


def test_an_upgrade_keeps_a_backup_to_roll_back_to(tmp_path: Path) -> None:
    """Upgrades by restart (issue 32): before the new version migrates the earlier build's
    database, a copy goes to the backups folder of the data folder. Rolling back is restoring
    that copy for the earlier version; started again, today's version migrates it again (and
    backs it up again) with the same boards."""
    env = earlier_build(tmp_path)
    first = clubrating(env, "run", input="/top\n/top blitz\n")
    assert first.returncode == 0 and first.stdout == BOARDS, first.stderr
    backups = sorted((tmp_path / "backups").glob("clubrating-before-0003-*.db"))
    assert len(backups) == 1, list((tmp_path / "backups").iterdir())
    assert oct(backups[0].stat().st_mode & 0o777) == "0o600"  # members' birth dates
    with sqlite3.connect(backups[0]) as kept:
        versions = [v for (v,) in kept.execute("SELECT version FROM schema_migrations")]
    kept.close()
    assert versions == [1, 2]  # the earlier build's schema, as it was

    again = clubrating(env, "run", input="/top\n")
    assert again.returncode == 0 and "before migrating" not in again.stderr  # up to date
    assert len(list((tmp_path / "backups").iterdir())) == 1

    restored = clubrating(env, "restore", str(backups[0]), "--yes")
    assert restored.returncode == 0, restored.stderr
    rolled = clubrating(env, "run", input="/top\n/top blitz\n")
    assert rolled.returncode == 0 and rolled.stdout == BOARDS, rolled.stderr
    assert "applied migration 0003_previews" in rolled.stderr
    assert len(list((tmp_path / "backups").glob("clubrating-before-0003-*.db"))) == 2


@pytest.mark.postgres
async def test_processes_starting_at_once_on_postgresql_migrate_it_once(
        tmp_path: Path, postgres_db: str) -> None:
    """Several processes on one server (a restart of a hosted deployment starts them at once):
    each waits for PostgreSQL's advisory migration lock, which the test holds until all three
    wait; then one migrates and the others find it done."""
    env = environment(tmp_path, None, CLUBRATING_DB=postgres_db)
    holder = await asyncpg.connect(postgres_db)
    try:
        await holder.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
        started = [await asyncio.create_subprocess_exec(
            CLUBRATING, "run", env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE) for _ in range(3)]
        waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while await holder.fetchval(waiting) < 3:
            assert asyncio.get_running_loop().time() < deadline, "they did not wait for the lock"
            await asyncio.sleep(0.1)
        await holder.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
        done = [await asyncio.wait_for(process.communicate(b"/top\n"), TIMEOUT)
                for process in started]
    finally:
        await holder.close()
    assert [process.returncode for process in started] == [0, 0, 0], done
    logs = "".join(err.decode() for _, err in done)
    for migration in load_migrations(dialect="postgresql"):
        assert logs.count(f"applied migration {migration.version:04d}_") == 1, logs


async def test_a_telegram_club_of_the_version_before_the_directory_posts_and_answers_privately(
        tmp_path: Path) -> None:
    """Issue 41: the lookups across clubs (the scheduler's plans, a private chat's clubs) read
    the directory, which a database written before it lacks: the first start fills it, one
    club at a time, and the weekly post and the private chat work as before. The database of
    that version is this one's without the directory: the same events, the table dropped and
    its migration unrecorded (0008 added nothing else)."""
    async with FakeTelegram(token=TOKEN) as tg:
        club = TelegramClub.on(tg, tmp_path)
        bot = await club.bot().start()
        await club.rate_alice_285_above_bob()
        assert await bot.stop() == 0
        club.shell("schedule", "set", "--chat", f"telegram:{GROUP}", "--cron", "0 9 * * SUN",
                   "--tz", "Europe/Berlin")
        with sqlite3.connect(tmp_path / "club.db") as written:
            written.execute("DROP TABLE directory")
            written.execute("DELETE FROM schema_migrations WHERE version = 8")
        written.close()

        club.clock.set(datetime(2026, 11, 22, 7, 59, 45))  # Berlin's 09:00 post in 15 s
        bot = await club.bot().start()
        try:
            started = bot.text()  # (start() waited for the scheduler, after these lines)
            assert "applied migration 0008_directory" in started
            assert "directory: 1 clubs indexed" in started
            private = tg.private(club.alice)
            await tg.send(private, club.alice, "/rating")
            answer = await tg.reply(private, 10.0)
            assert "1673" in answer.plain, answer.plain  # her club, found from her user id
            [post] = await club.next_posts(1)
            await bot.wait_log(r"scheduled for 2026-11-22T08:00:00 claimed")
            assert post.kind == "photo" and "alice" in post.plain and "1673" in post.plain
        finally:
            assert await bot.stop() == 0
