"""The operator's own commands as processes (issue 15): a command that only reads creates
nothing (no club for an unknown chat, not even the database file), an export into a missing
folder is one line, a history is not imported twice by mistake, and the console, the operator's
own terminal, is never rate-limited."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from bot.chat.messages import text

from .process import FakeClock, clubrating, environment

START = datetime(2026, 11, 23, 21, 0)
HEADER = "played_at,event,player_a,player_b,score_a,handicap,kind"
GAMES = f"""{HEADER}
2026-01-06T19:00:00,,ann,bob,1,,
2026-01-13T19:00:00,night,ann,carl,0.5,,
2026-01-13T19:00:00,night,bob,carl,0,,
2026-01-20T19:00:00,,ann,carl,1,50,
"""
READERS = [
    ["export", "--chat", "telegram:123"],
    ["export", "--chat", "telegram:123", "--ladder", "main"],
    ["schedule", "show", "--chat", "telegram:123"],
]


def clubs(database: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT platform, chat_id FROM clubs ORDER BY id").fetchall()
    connection.close()
    return [(str(p), str(c)) for p, c in rows]


@pytest.mark.parametrize("argv", READERS, ids=[" ".join(a[:2]) for a in READERS])
def test_a_reader_on_an_unknown_chat_changes_no_byte_of_the_database(
        tmp_path: Path, argv: list[str]) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    database = tmp_path / "club.db"
    made = clubrating(env, "import", "--chat", "console:local",
                      str(write(tmp_path, "EVENTS.csv", GAMES)))
    assert made.returncode == 0, made.stderr
    before = database.read_bytes()
    companions = sorted(p.name for p in tmp_path.glob("club.db*"))

    shown = clubrating(env, *argv)
    assert (shown.returncode, shown.stdout, shown.stderr) == (
        2, "", "clubrating: no club telegram:123 in DB\n")
    assert database.read_bytes() == before
    assert sorted(p.name for p in tmp_path.glob("club.db*")) == companions
    assert clubs(database) == [("console", "local")]
    # The chat that has a club is read as before.
    assert clubrating(env, "export", "--chat", "console:local").returncode == 0


@pytest.mark.parametrize("argv", READERS, ids=[" ".join(a[:2]) for a in READERS])
def test_a_reader_without_a_database_creates_none(tmp_path: Path, argv: list[str]) -> None:
    env = environment(tmp_path, None)
    shown = clubrating(env, *argv)
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr == (f"clubrating: no club telegram:123 in DB (there is no database file "
                            f"{tmp_path / 'club.db'}; CLUBRATING_DB names it)\n")
    assert list(tmp_path.glob("club.db*")) == []


def test_an_export_into_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    assert clubrating(env, "import", "--chat", "console:local",
                      str(write(tmp_path, "EVENTS.csv", GAMES))).returncode == 0
    target = tmp_path / "missing" / "EVENTS.csv"
    shown = clubrating(env, "export", "--chat", "console:local", "--output", str(target))
    assert (shown.returncode, shown.stdout, shown.stderr) == (
        2, "", f"clubrating: --output {target}: there is no folder {target.parent}\n")
    assert not target.parent.exists()
    # a folder for a file
    shown = clubrating(env, "export", "--chat", "console:local", "--output", str(tmp_path))
    assert (shown.returncode, shown.stdout, shown.stderr) == (
        2, "", f"clubrating: --output {tmp_path} is a folder; name a file in it, e.g. "
               f"{tmp_path / 'EVENTS.csv'}\n")


def test_a_history_imported_before_is_refused_unless_allowed(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    first = clubrating(env, "import", "--chat", "telegram:-100", str(write(tmp_path, "E.csv",
                                                                             GAMES)))
    assert (first.returncode, first.stdout) == (
        0, text("imported", games=4, steps=3, ladder="main") + "\n"), first.stderr
    exported = clubrating(env, "export", "--chat", "telegram:-100").stdout

    # The same file again, and the ladder's own export of it (the same rows, written otherwise)
    for name, content in (("E.csv", GAMES), ("EXPORT.csv", exported)):
        again = clubrating(env, "import", "--chat", "telegram:-100",
                           str(write(tmp_path, name, content)))
        refusal = text("import_duplicate", file=name, earlier="E.csv", ladder="main",
                       day="2026-11-23")
        assert (again.returncode, again.stdout, again.stderr) == (2, "",
                                                                  f"clubrating: {refusal}\n")
        assert clubrating(env, "export", "--chat", "telegram:-100").stdout == exported

    # Into another club it is no duplicate; with --allow-duplicates the operator means it.
    other = clubrating(env, "import", "--chat", "telegram:-200", str(tmp_path / "E.csv"))
    assert other.returncode == 0, other.stderr
    allowed = clubrating(env, "import", "--chat", "telegram:-100", "--allow-duplicates",
                         str(tmp_path / "E.csv"))
    assert allowed.returncode == 0, allowed.stderr
    rows = clubrating(env, "export", "--chat", "telegram:-100").stdout.splitlines()[1:]
    assert len(rows) == 8


def test_the_console_is_never_rate_limited(tmp_path: Path) -> None:
    # One command a minute for the platforms' members; the operator's terminal answers all five
    env = environment(tmp_path, FakeClock(tmp_path, START), CLUBRATING_RATE_LIMIT="1/60")
    shown = clubrating(env, "run", input="/top\n" * 5)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (text("leaderboard_empty", ladder="main") + "\n") * 5


def write(folder: Path, name: str, content: str) -> Path:
    path = folder / name
    path.write_text(content, encoding="utf-8")
    return path
