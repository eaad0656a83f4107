"""Rated puzzles (issue 34) as a club runs them from the console: ``clubrating run`` with its
standard input a pipe, the clock moved from outside by libfaketime between the lines typed, and
the shell's ``clubrating puzzles import|export``, ``export --players`` and ``replay``.

The ratings are seed 004's, each attempt rated on its own when it ends, worked out by hand.
The times are chosen where the time adjustment is capped (adj = clamp(125 log2(t/30), -400,
400)): an answer typed at once takes under 3.26 s (adj = -400) however slow the machine, and
one typed after the clock moved 300 s takes over 277 s (adj = +400), so every number is exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import subprocess
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from .process import CLUBRATING, TIMEOUT, FakeClock, clubrating, environment

START = datetime(2026, 11, 20, 10, 0, 0)
#: the smallest PNG there is: one transparent pixel
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6300010000050001"
    "0d0a2db40000000049454e44ae426082")


class ConsoleChat:
    """``clubrating run`` on the console: a line typed, its answer read from standard output
    (the console answers every line in turn, an empty answer as nothing)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    async def say(self, line: str, lines: int = 1) -> str:
        """Type ``line``; its answer's first ``lines`` lines."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{line}\n".encode())
        await self.process.stdin.drain()
        out = []
        for _ in range(lines):
            read = await asyncio.wait_for(self.process.stdout.readline(), TIMEOUT)
            out.append(read.decode().rstrip("\n"))
        return "\n".join(out)


@contextlib.asynccontextmanager
async def console(env: dict[str, str]) -> AsyncIterator[ConsoleChat]:
    process = await asyncio.create_subprocess_exec(
        CLUBRATING, "run", env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL)
    try:
        yield ConsoleChat(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0


def replayed(env: dict[str, str], folder: Path) -> dict[str, float]:
    """``clubrating replay --system tactics --players`` of the puzzle ladder's export."""
    events, players = folder / "EVENTS.csv", folder / "PLAYERS.csv"
    exported = clubrating(env, "export", "--chat", "console:local", "--ladder", "puzzles",
                          "--output", str(events), "--players", str(players))
    assert exported.returncode == 0, exported.stderr
    result = clubrating(env, "replay", "--system", "tactics", "--players", str(players),
                        str(events))
    assert result.returncode == 0, result.stderr
    return {p["player"]: p["rating"] for p in json.loads(result.stdout)["players"]}


@pytest.fixture
def clock(tmp_path: Path) -> FakeClock:
    return FakeClock(tmp_path, START)


async def test_three_problems_fast_wrong_and_slow(tmp_path: Path, clock: FakeClock) -> None:
    env = environment(tmp_path, clock)
    async with console(env) as chat:
        await chat.say("/as mod!")
        await chat.say("/ladder create puzzles tactics")
        assert await chat.say("/puzzle add p1 answers=Qh7|Qh7# White mates in one") == (
            "Problem p1 added to puzzles: 2 answers accepted, starting rating 1500.")
        await chat.say("/puzzle add p2 rating=1800 answers=Rd8 Mate in two")
        await chat.say("/puzzle add alice rating=1200 answers=e4 A problem called like a "
                       "member")
        await chat.say("/as alice")
        await chat.say("/register")
        # alice (1500) gets p1 (1500), answers at once: adj = -400.
        # alice: 1500 + 400 + 400 = 2300 (kept); p1: 1500 - 400 - 400 = 700 (kept).
        assert await chat.say("/puzzle", 3) == "\n".join([
            "Problem p1 (puzzles, rating 1500):", "White mates in one",
            "Answer with /answer TEXT within 30 minutes. The clock started when I sent it."])
        assert (await chat.say("/answer qh7#", 4)).split("\n")[2:] == [
            "alice: - -> 2300", "p1: 1500 -> 700"]
        # Next the closest to 2300 of p2 (1800) and the problem alice (1200): p2, answered
        # wrongly at once (adj = -400). alice: 1800 + 400 - 400 = 1800 (kept: below 2300);
        # p2: 2300 - 400 + 400 = 2300 (kept: above 1800).
        assert (await chat.say("/puzzle", 3)).startswith("Problem p2 (puzzles, rating 1800)")
        assert (await chat.say("/answer Rd1", 4)).split("\n")[1:] == [
            "Accepted answers: Rd8", "alice: 2300 -> 1800", "p2: 1800 -> 2300"]
        await chat.say("/as bob")
        await chat.say("/register")
        # bob (1500) gets the problem called alice (1200, the closest of 700, 2300, 1200)
        # and solves it after 300 s (adj = +400): his 1200 - 400 + 400 = 1200 is below 1500,
        # dropped (a slow success never costs rating); the problem's 1500 + 400 - 400 = 1500
        # is above 1200, dropped too.
        assert (await chat.say("/puzzle", 3)).startswith("Problem alice (puzzles, rating 1200)")
        clock.set(START + timedelta(seconds=300))
        await asyncio.sleep(1.5)  # libfaketime reads its file again within a second
        answered = await chat.say("/answer E4", 4)
        assert answered.split("\n")[2:] == ["bob: - -> 1500", "alice: 1200 -> 1200"]
        assert await chat.say("/top puzzles", 3) == "\n".join([
            "puzzles ladder", "  1. alice       1800  2 games", "  2. bob         1500  1 game"])
        assert await chat.say("/top puzzles problems", 4) == "\n".join([
            "Problems of puzzles, hardest first:", "1. p2  2300  0 of 1 attempt solved",
            "2. alice  1200  1 of 1 attempt solved", "3. p1  700  1 of 1 attempt solved"])
    # The export replays to the bot's ratings; the member and the problem called alice stay
    # two players.
    assert replayed(env, tmp_path) == {"alice": 1800.0, "bob": 1500.0, "@p1": 700.0,
                                       "@p2": 2300.0, "@alice": 1200.0}


async def test_problems_and_attempts_round_trip_through_files(tmp_path: Path,
                                                              clock: FakeClock) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (tmp_path / "board.png").write_bytes(PIXEL)
    (tmp_path / "PROBLEMS.csv").write_text(
        "id,prompt,answers,image,rating\n"
        "p1,White mates in one,Qh7|Qh7#,board.png,\n"
        "p2,\"=Mate in two, a formula-like text\",Rd8,,1800\n", encoding="utf-8")
    env = environment(first, clock)
    imported = clubrating(env, "puzzles", "import", "--chat", "console:local",
                          str(tmp_path / "PROBLEMS.csv"))
    assert imported.stdout == "Added 2 problems to puzzles.\n", imported.stderr
    # the picture is kept in the data folder, private to the bot's user
    [picture] = (first / "pictures").iterdir()
    assert picture.read_bytes() == PIXEL and picture.stat().st_mode & 0o077 == 0
    async with console(env) as chat:
        await chat.say("/as ann")
        await chat.say("/register")
        await chat.say("/puzzle", 3)
        await chat.say("/answer Qh7", 4)
    exported = clubrating(env, "puzzles", "export", "--chat", "console:local")
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert [(r["id"], r["prompt"], r["answers"], r["rating"]) for r in rows] == [
        ("p1", "White mates in one", "Qh7|Qh7#", ""),
        ("p2", "'=Mate in two, a formula-like text", "Rd8", "1800")]
    assert Path(rows[0]["image"]).read_bytes() == PIXEL
    ratings = replayed(env, first)
    # Into another club: the problems, then the attempts, give the same ratings and files.
    (tmp_path / "AGAIN.csv").write_text(exported.stdout, encoding="utf-8")
    other = environment(second, clock)
    assert clubrating(other, "puzzles", "import", "--chat", "console:local",
                      str(tmp_path / "AGAIN.csv")).returncode == 0
    loaded = clubrating(other, "import", "--chat", "console:local", "--ladder", "puzzles",
                        str(first / "EVENTS.csv"))
    assert loaded.stdout == "Imported 1 game (1 entry) into puzzles.\n", loaded.stderr
    assert replayed(other, second) == ratings
    assert (second / "EVENTS.csv").read_text() == (first / "EVENTS.csv").read_text()
    assert (second / "PLAYERS.csv").read_text() == (first / "PLAYERS.csv").read_text()
    again = clubrating(other, "puzzles", "export", "--chat", "console:local")
    assert again.stdout.replace(str(second), "") == exported.stdout.replace(str(first), "")


async def test_a_bad_problem_file_changes_nothing(tmp_path: Path, clock: FakeClock) -> None:
    env = environment(tmp_path, clock)
    (tmp_path / "BAD.csv").write_text("id,prompt,answers\nq1,A text,x\nq1,Again,y\n",
                                      encoding="utf-8")
    refused = clubrating(env, "puzzles", "import", "--chat", "console:local",
                         str(tmp_path / "BAD.csv"))
    assert refused.returncode == 2
    assert refused.stderr.endswith("\nclubrating: BAD.csv, row 2: puzzles has a problem q1 "
                                   "already.\n")
    (tmp_path / "NOPIC.csv").write_text("id,prompt,answers,image\nq1,A text,x,none.png\n",
                                        encoding="utf-8")
    refused = clubrating(env, "puzzles", "import", "--chat", "console:local",
                         str(tmp_path / "NOPIC.csv"))
    assert refused.returncode == 2 and "NOPIC.csv row 1, column image" in refused.stderr
    # nothing was stored, not even the ladder the import would have created
    exported = clubrating(env, "puzzles", "export", "--chat", "console:local")
    assert (exported.returncode, exported.stderr) == (2, (
        "clubrating: This club has no puzzle ladder yet. A moderator creates one: /ladder "
        "create puzzles tactics\n"))
