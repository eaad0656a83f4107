"""Issue 31 through ``clubrating run`` and ``clubrating import`` as a club runs them: an import
never retires a member who played lately (ERRATA, "Inactivity, one rule"), an imported player's
person is pointed to ``/claim``, the console's scheduled posts appear while it waits for a line,
and the answers that misled say what is wrong."""

from __future__ import annotations

import os
import pty
import subprocess
import time
from datetime import datetime, timedelta
from pathlib import Path

from bot.chat.messages import text

from .process import CLUBRATING, TIMEOUT, FakeClock, clubrating, environment

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


def wait_for(path: Path, wanted: str, process: subprocess.Popen[bytes]) -> str:
    """The text of ``path`` once it holds ``wanted`` (the process still running)."""
    deadline = time.monotonic() + TIMEOUT
    while wanted not in (shown := path.read_text(encoding="utf-8")):
        assert process.poll() is None, f"the console ended before {wanted!r}:\n{shown}"
        assert time.monotonic() < deadline, f"no {wanted!r} within {TIMEOUT} s:\n{shown}"
        time.sleep(0.1)
    return shown


def console_on_a_terminal(env: dict[str, str], folder: Path, name: str
                          ) -> tuple[subprocess.Popen[bytes], int, Path, Path]:
    """``clubrating run`` with a terminal as its input, as an operator runs it (the scheduler
    runs then); its output and log in files. The process, the terminal's writing end, and the
    output and log files."""
    master, slave = pty.openpty()
    out, log = folder / f"{name}.out", folder / f"{name}.log"
    with out.open("wb") as stdout, log.open("wb") as stderr:
        process = subprocess.Popen([CLUBRATING, "run"], stdin=slave, stdout=stdout,
                                   stderr=stderr, env=env, cwd=folder)
    os.close(slave)
    return process, master, out, log


def clean(log: Path) -> None:
    shown = log.read_text(encoding="utf-8")
    assert "Traceback" not in shown and "ERROR" not in shown, shown


def test_the_console_shows_a_scheduled_post_while_it_waits_and_quits_cleanly(
        tmp_path: Path) -> None:
    clock = FakeClock(tmp_path, NOW)  # a Monday evening: the default post is Mondays 09:00
    env = environment(tmp_path, clock)
    made = clubrating(env, "run", input="/as bob\n/register\n/as alice\n/register\n"
                      "/report @bob win\n/as bob\n/confirm\n")
    assert made.returncode == 0, made.stderr

    # /quit, or the end of input (Ctrl-D), at once, while the scheduler's first reading of the
    # plans runs: no cancelled job
    for end in (b"/quit\n", b"\x04"):
        process, master, out, log = console_on_a_terminal(env, tmp_path, "quick")
        try:
            os.write(master, end)
            assert process.wait(TIMEOUT) == 0
        finally:
            os.close(master)
        clean(log)

    process, master, out, log = console_on_a_terminal(env, tmp_path, "console")
    try:
        os.write(master, b"/top\n")
        wait_for(out, "bob", process)
        # A week on, Monday 09:00: the post appears while the console waits for a line
        clock.set(NOW + timedelta(days=6, hours=12, seconds=5))
        shown = wait_for(out, text("digest_games", games=1), process)
        before, after = shown.split(text("digest_games", games=1))
        assert "alice" in before and before.startswith(text(
            "console_welcome", club="console:local", user="guest"))
        # the post starts on a line of its own, and the prompt is shown again after it
        assert "guest> \n" in before and after.endswith("\nguest> "), shown
        os.write(master, b"/quit\n")
        assert process.wait(TIMEOUT) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    clean(log)


def answers(env: dict[str, str], script: str) -> list[str]:
    """The lines ``clubrating run`` answers ``script`` with."""
    shown = clubrating(env, "run", input=script)
    assert shown.returncode == 0, shown.stderr
    return shown.stdout.split("\n")


def test_answers_that_misled_say_what_is_wrong(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    out = clubrating(env, "run", input=(
        "/as bob\n/register\n/as alice\n/register\n/report @bob win\n/as mod!\n"
        "/ladder create go rs-go\n"))
    assert out.returncode == 0, out.stderr
    shown = "\n".join(answers(env, "/as alice\n/challenge @alice\n"))
    assert text("challenge_yourself") in shown and "two different players" not in shown
    shown = "\n".join(answers(env, "/as alice\n/h2h @alice\n"))
    assert text("h2h_yourself") in shown and "two different players" not in shown
    # the reporter's own /confirm: the opponent confirms, not "no report waiting for you"
    for confirm in ("/confirm", "/confirm 1"):
        shown = "\n".join(answers(env, f"/as alice\n{confirm}\n"))
        assert "bob confirms" in shown and "#1" in shown, shown
    shown = "\n".join(answers(env, "/as mod!\n/set hide_provisional maybe\n"))
    assert "hide_provisional" in shown and "yes or no" in shown, shown
    shown = "\n".join(answers(env, "/as mod!\n/help set\n"))
    for setting in ("auto_confirm_hours", "inactivity_days", "hide_provisional", "timezone"):
        assert f"  {setting} - " in shown, shown  # each setting on a line of its own, explained
    shown = "\n".join(answers(env, "/as mod!\n/ladder create blitz elo k=24\n"))
    assert "blitz" in shown and "k=24" in shown, shown
    # a right-to-left override in a name: the refusal says which character
    shown = "\n".join(answers(env, "/as zoe\n/register Al\u202eice\n"))
    assert "U+202E" in shown, shown
    # go handicaps are stones: 500 is refused, naming the bound; 9 stones are a game
    shown = "\n".join(answers(env, "/as alice\n/report @bob win handicap=500 ladder=go\n"))
    assert "500" in shown and "stones" in shown and "Game #" not in shown, shown
    shown = "\n".join(answers(env, "/as alice\n/report @bob win handicap=9 ladder=go\n"))
    assert "Game #2" in shown and "handicap 9" in shown, shown
    # and a correction of a go game's handicap alike
    shown = "\n".join(answers(env, "/as mod!\n/correct 2 handicap=50\n"))
    assert "50" in shown and "stones" in shown and "would change" not in shown, shown


def test_an_import_bounds_go_handicaps_in_stones(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    made = clubrating(env, "run", input="/as mod!\n/ladder create go rs-go\n")
    assert made.returncode == 0, made.stderr
    refused = clubrating(env, "import", "--chat", "console:local", "--ladder", "go", str(write(
        tmp_path, "GO.csv", f"{HEADER}\n{days_ago(3)},,ann,bob,1,500,\n")))
    assert refused.returncode == 2 and "stones" in refused.stderr and "500" in refused.stderr
    taken = clubrating(env, "import", "--chat", "console:local", "--ladder", "go", str(write(
        tmp_path, "GO9.csv", f"{HEADER}\n{days_ago(3)},,ann,bob,1,9,\n")))
    assert taken.returncode == 0, taken.stderr
