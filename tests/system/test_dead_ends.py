"""Issue 31 through ``clubrating run`` and ``clubrating import`` as a club runs them: an import
never retires a member who played lately (ERRATA, "Inactivity, one rule"), an imported player's
person is pointed to ``/claim``, the console's scheduled posts appear while it waits for a line,
and the answers that misled say what is wrong."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from .process import FakeClock, clubrating, environment

NOW = datetime(2026, 11, 23, 21, 0)
HEADER = "played_at,event,player_a,player_b,score_a,handicap,kind"


def write(folder: Path, name: str, content: str) -> Path:
    path = folder / name
    path.write_text(content, encoding="utf-8")
    return path


def days_ago(days: int) -> str:
    return (NOW - timedelta(days=days)).isoformat(timespec="seconds")


def test_an_import_of_old_games_never_retires_a_member_who_played_today(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    today = clubrating(env, "run", input="/as admin!\n/set inactivity_days 30\n/as bob\n"
                       "/register\n/as alice\n/register\n/report @bob win\n/as bob\n/confirm\n")
    assert today.returncode == 0, today.stderr

    # alice's games of a year ago are rated after today's: her last game in rating order is old
    first = clubrating(env, "import", "--chat", "console:local", str(write(
        tmp_path, "YEAR.csv", f"{HEADER}\n{days_ago(365)},,alice,carl,1,,\n"
                              f"{days_ago(330)},,carl,alice,1,,\n")))
    assert first.returncode == 0, first.stderr
    # a second import naming alice is not refused: she was not retired by the first
    second = clubrating(env, "import", "--chat", "console:local", str(write(
        tmp_path, "LATER.csv", f"{HEADER}\n{days_ago(300)},,dan,alice,0.5,,\n")))
    assert second.returncode == 0, second.stderr

    shown = clubrating(env, "run", input="/top\n/rating @alice\n")
    assert shown.returncode == 0, shown.stderr
    board, profile = shown.stdout.split("\nalice (main)")
    assert "alice" in board and "bob" in board, shown.stdout
    # carl and dan played last 300 days ago and more: the rule retires them
    assert "carl" not in board and "dan" not in board, shown.stdout
    assert "retired" not in profile, shown.stdout


def test_an_imported_players_person_is_pointed_to_claim_and_the_claim_waits_in_pending(
        tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    imported = clubrating(env, "import", "--chat", "console:local", str(write(
        tmp_path, "E.csv", f"{HEADER}\n{days_ago(20)},,zack,carl,1,,\n")))
    assert imported.returncode == 0, imported.stderr

    shown = clubrating(env, "run", input="/as zed\n/register zack\n/register zed\n/claim zack\n"
                       "/as mod!\n/pending\n/claim approve zack\n/pending\n")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    refused = lines[1]
    assert "taken" not in refused and "/claim zack" in refused, shown.stdout
    waiting = lines[lines.index("You are now mod (moderator).") + 1]
    assert "zed" in waiting and "zack" in waiting and "/claim approve zack" in waiting
    assert lines[-1] == "Nothing waiting for you.", shown.stdout
