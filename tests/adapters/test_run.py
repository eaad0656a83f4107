"""`clubrating run` without tokens: the console chat, scripted through standard input."""

import os
import subprocess
import sys
from pathlib import Path

SESSION = """\
# a scripted session
/as bob
/register
/as alice
/register
/report @bob win
/as bob
/confirm
/top
"""
# Two newcomers of deviation 150, alice wins: 1500 +- K 115.7 x w 0.924 x 1/2 = 1553.5 and 1446.5.
BOARD = ["  1. alice      1553?  1 game", "  2. bob        1447?  1 game"]


def test_a_scripted_console_session(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("TELEGRAM_TOKEN", "DISCORD_TOKEN")}
    env["CLUBRATING_DB"] = str(tmp_path / "club.db")
    script = Path(sys.executable).parent / "clubrating"
    done = subprocess.run([str(script), "run"], input=SESSION, capture_output=True, text=True,
                          env=env, timeout=60, check=True)
    lines = done.stdout.splitlines()
    assert lines[-3:] == ["main ladder", *BOARD]
    assert "Game #1 confirmed: alice beat bob." in lines
    assert (tmp_path / "club.db").exists()
    # The same file again: the club is still there.
    again = subprocess.run([str(script), "run"], input="/top\n", capture_output=True, text=True,
                           env=env, timeout=60, check=True)
    assert again.stdout.splitlines()[-2:] == BOARD


def test_the_console_shows_no_log_line_between_the_answers(tmp_path: Path) -> None:
    """The console is the chat: the log line every use case writes stays out of it (a terminal
    shows standard error beside standard output)."""
    env = {k: v for k, v in os.environ.items() if k not in ("TELEGRAM_TOKEN", "DISCORD_TOKEN")}
    env["CLUBRATING_DB"] = str(tmp_path / "club.db")
    script = Path(sys.executable).parent / "clubrating"
    done = subprocess.run([str(script), "run"], input=SESSION, capture_output=True, text=True,
                          env=env, timeout=60, check=True)
    assert "use_case" not in done.stderr
    assert "console chat on" in done.stderr  # the start-up line still says where the file is
