"""Numbers that mean something (issue 31), through ``clubrating`` as a process: a member without
games has no rank and no peak, /rating and /chart agree on the peak, counts are English (``1
game``, ``1 entry``), /top labels its games column and says how to see the players it hides,
``clubrating evaluate`` recommends nothing from a handful of games, and the command line
answers ``--version``, shows plain help and names the chat it was given."""

from __future__ import annotations

import json
import re
import tomllib
from datetime import datetime, timedelta
from pathlib import Path

from .process import FakeClock, clubrating, environment

START = datetime(2026, 11, 23, 21, 0)
HEADER = "played_at,event,player_a,player_b,score_a"
ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ("replay", "evaluate", "run", "export", "import", "schedule", "backup", "restore",
            "migrate-db")


def write(folder: Path, name: str, content: str) -> Path:
    path = folder / name
    path.write_text(content, encoding="utf-8")
    return path


def console(env: dict[str, str], folder: Path, *lines: str) -> list[str]:
    """The console's answers to ``lines``, one list entry per line printed."""
    shown = clubrating(env, "run", input="\n".join([*lines, "/quit"]) + "\n", cwd=folder)
    assert shown.returncode == 0, shown.stderr
    return shown.stdout.splitlines()


def answer_after(lines: list[str], start: str) -> str:
    return next(line for line in lines if line.startswith(start))


def history(games: list[tuple[str, str, str]]) -> str:
    """EVENTS.csv of ``games`` (a, b, a's score), one a day from a year before START."""
    first = START - timedelta(days=365)
    return HEADER + "\n" + "".join(
        f"{(first + timedelta(days=n)).date()},,{a},{b},{score}\n"
        for n, (a, b, score) in enumerate(games))


def test_a_member_without_games_has_no_rank_and_no_peak(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    lines = console(env, tmp_path, "/as bob", "/register", "/rating", "/as carl", "/register",
                    "/as alice", "/register", "/report @bob win", "/as bob", "/confirm",
                    "/rating", "/rating @carl", "/top")
    unplayed = [line for line in lines if line.startswith(("bob (main)", "carl (main)"))]
    assert len(unplayed) == 3
    for line in unplayed[0], unplayed[2]:  # bob before his game, carl
        assert re.match(r"(bob|carl) \(main\): \d{3,4}\?*,? no games yet\.$", line), line
        assert not re.search(r"\b(rank|peak)\b", line), line
    played = unplayed[1]
    assert re.match(r"bob \(main\): \d{3,4}", played), played
    assert " 1 game " in played and "1 games" not in played, played
    # /top: every active player by name, with a labelled games column
    top = lines[lines.index("main ladder"):]
    assert any(re.match(r"\s*1\. alice\s+\d{3,4}\S*\s+1 game$", line) for line in top), top
    assert any(re.match(r"\s*\d\. bob\s+\d{3,4}\S*\s+1 game$", line) for line in top), top
    assert any("carl" in line for line in top), top


def test_rating_and_chart_agree_on_the_peak(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    # ann wins her first games (a provisional high), then loses; bob and cy play on; dee has
    # one game only
    games = [("ann", "bob", "1")] * 4 + [("ann", "cy", "1")] * 4
    games += [("ann", "bob", "0"), ("ann", "cy", "0")] * 15 + [("bob", "cy", "0.5")] * 10
    games += [("dee", "bob", "1")]
    made = clubrating(env, "import", "--chat", "console:local",
                      str(write(tmp_path, "EVENTS.csv", history(games))))
    assert made.returncode == 0, made.stderr
    names = ("ann", "bob", "cy", "dee")
    lines = console(env, tmp_path, "/as zed",
                    *[line for name in names for line in (f"/rating @{name}", f"/chart @{name}")])
    peaks = {}
    for name in names:
        rating = answer_after(lines, f"{name} (main): ")
        chart = next(line for line in lines if line.startswith(f"{name} (main): ")
                     and " now" in line)
        in_rating = re.search(r"(no peak yet|peak (\d+))", rating)
        in_chart = re.search(r"(no peak yet|peak (\d+))", chart)
        assert in_rating is not None and in_chart is not None, (rating, chart)
        assert in_rating.group(2) == in_chart.group(2), (rating, chart)
        peaks[name] = in_rating.group(2)
    assert peaks["dee"] is None  # one game: never established
    assert any(peaks.values()), lines


def test_a_hidden_leaderboard_says_how_to_see_everyone(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    lines = console(env, tmp_path, "/as bob", "/register", "/as alice!", "/register",
                    "/set hide_provisional yes", "/top")
    top = lines[lines.index("main ladder"):]
    hint = " ".join(top)
    assert "2 provisional players" in hint, top
    assert "/set hide_provisional no" in hint and "/rating" in hint, top


def test_an_import_of_one_game_says_one_game(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    shown = clubrating(env, "import", "--chat", "console:local",
                       str(write(tmp_path, "ONE.csv", history([("ann", "bob", "1")]))))
    assert (shown.returncode, shown.stdout) == (0, "Imported 1 game (1 entry) into main.\n"), \
        shown.stderr


def test_evaluate_recommends_nothing_from_a_handful_of_games(tmp_path: Path) -> None:
    env = environment(tmp_path, None)
    few = write(tmp_path, "FEW.csv", history([("ann", "bob", "1"), ("bob", "cy", "0")] * 4))
    for form in ((), ("--format", "json")):
        shown = clubrating(env, "evaluate", *form, str(few))
        assert shown.returncode != 0, shown.stdout
        assert "recommended: " not in shown.stdout
        assert "30" in shown.stderr and "too few games" in shown.stderr, shown.stderr
    # enough games: recommended, saying what was scored
    names = ["ann", "bob", "cy", "dee"]
    many = write(tmp_path, "MANY.csv", history(
        [(names[n % 4], names[(n + 1 + n // 4) % 4 or 1], "1" if n % 3 else "0")
         for n in range(200) if names[n % 4] != names[(n + 1 + n // 4) % 4 or 1]]))
    table = clubrating(env, "evaluate", str(many))
    assert table.returncode == 0, table.stderr
    assert "the last 30 % of the history's time" in table.stdout, table.stdout
    shown = clubrating(env, "evaluate", "--format", "json", str(many))
    assert json.loads(shown.stdout)["recommended"], shown.stdout


def test_version_and_plain_help(tmp_path: Path) -> None:
    env = environment(tmp_path, None)
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    shown = clubrating(env, "--version")
    assert (shown.returncode, shown.stdout.strip()) == (0, f"clubrating {version}")
    for argv in ((), *((command,) for command in COMMANDS), ("schedule", "set")):
        helped = clubrating(env, *argv, "--help")
        assert helped.returncode == 0, (argv, helped.stderr)
        assert "``" not in helped.stdout and not re.search(r":[a-z]+:`", helped.stdout), \
            (argv, helped.stdout)


def test_the_shells_schedule_names_the_chat_it_was_given(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    chat = "telegram:-1001234"
    outputs = []
    for argv in (("set", "--cron", "0 9 * * MON"), ("show",), ("pause",), ("show",),
                 ("resume",)):
        shown = clubrating(env, "schedule", *argv, "--chat", chat)
        assert shown.returncode == 0, (argv, shown.stderr)
        outputs.append(shown.stdout)
    assert not any("this chat" in out for out in outputs), outputs
    assert all(chat in out for out in outputs if "into" in out), outputs
