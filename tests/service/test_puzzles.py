"""Rated puzzles (issue 34, seed 004) through the console: problems added, delivered, answered
against the service's clock, each attempt rated when it ends, with the numbers worked out by
hand from the rule of seed 004.

Each attempt is a rating period of its own, rated from the ratings before it. With the time
adjustment adj = clamp(125 log2(t / 30), -400, 400):

- the member's estimate is problem - adj + 400 when solved (dropped below the member's rating)
  and problem - adj - 400 when not (dropped above it); the new rating is the estimate kept;
- the problem's is member + adj - 400 when solved (dropped above the problem's rating) and
  member + adj + 400 when not (dropped below it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.adapters import console
from bot.service.answers import accepted, normalised
from bot.service.club import Caller
from bot.service.results import PuzzlePost
from tests.chat import Transcript, open_club

SYSTEM = Caller(console.PLATFORM, console.CHAT, "system", "system", moderator=True)


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db") as transcript:
        await transcript.as_("mod!", "/ladder create puzzles tactics",
                             "/puzzle add p1 answers=Qh7|Qh7# White mates in one",
                             "/puzzle add p2 rating=1800 answers=Rd8 Mate in two",
                             "/puzzle add p3 rating=1200 answers=e4 The best first move")
        await transcript.as_("alice", "/register")
        await transcript.as_("bob", "/register")
        yield transcript


async def test_fast_wrong_and_slow_attempts_move_members_and_problems(chat: Transcript) -> None:
    # alice (1500) gets p1 (1500, distance 0) and solves it in 15 s: adj = -125.
    shown = await chat.as_("alice", "/puzzle")
    assert shown.splitlines()[:2] == ["Problem p1 (puzzles, rating 1500):",
                                      "White mates in one"]
    assert "Qh7" not in shown
    chat.clock.advance(seconds=15)
    # alice: 1500 + 125 + 400 = 2025 (kept: above 1500); p1: 1500 - 125 - 400 = 975 (kept)
    assert await chat.say("/answer  QH7 ") == "\n".join([
        "Solved! p1 in 15.0 s.", "Accepted answers: Qh7 | Qh7#",
        "alice: - -> 2025", "p1: 1500 -> 975"])
    # Next, the closest to 2025 of p2 (1800) and p3 (1200): p2; a wrong answer after 60 s,
    # adj = +125. alice: 1800 - 125 - 400 = 1275 (kept: below 2025); p2: 2025 + 125 + 400 =
    # 2550 (kept: above 1800).
    assert (await chat.say("/puzzle")).startswith("Problem p2 (puzzles, rating 1800):")
    chat.clock.advance(seconds=60)
    assert await chat.say("/answer Rd1") == "\n".join([
        "Not solved: p2 (60.0 s).", "Accepted answers: Rd8",
        "alice: 2025 -> 1275", "p2: 1800 -> 2550"])
    # bob (1500) gets p3 (1200, the closest of 975, 2550 and 1200) and solves it slowly, in
    # 120 s: adj = +250. His estimate 1200 - 250 + 400 = 1350 is below 1500: dropped, a slow
    # success never costs rating; p3's 1500 + 250 - 400 = 1350 is above 1200: dropped too.
    assert (await chat.as_("bob", "/puzzle")).startswith("Problem p3 (puzzles, rating 1200):")
    chat.clock.advance(seconds=120)
    assert await chat.say("/answer e4") == "\n".join([
        "Solved! p3 in 120.0 s.", "Accepted answers: e4", "bob: - -> 1500", "p3: 1200 -> 1200"])
    assert await chat.say("/top puzzles") == "\n".join([
        "puzzles ladder", "  1. bob         1500  1 game", "  2. alice       1275  2 games"])
    assert await chat.say("/top puzzles problems") == "\n".join([
        "Problems of puzzles, hardest first:",
        "1. p2  2550  0 of 1 attempt solved",
        "2. p3  1200  1 of 1 attempt solved",
        "3. p1  975  1 of 1 attempt solved"])
    assert (await chat.say("/rating @alice ladder=puzzles")).startswith(
        "alice (puzzles): 1275, rank 2, 2 games (1W 0D 1L)")
    # a word that names a ladder and no member: one's own rating there
    assert (await chat.as_("alice", "/rating puzzles")).startswith("alice (puzzles): 1275")
    assert await chat.say("/rating nobody") == "There is no member called nobody. /top lists "\
        "everyone."


async def test_an_attempt_out_of_time_fails_at_its_deadline(chat: Transcript) -> None:
    await chat.as_("alice", "/puzzle")
    chat.clock.advance(minutes=10)
    # /puzzle while one is open sends it again, on the same clock
    assert (await chat.say("/puzzle")).endswith(
        "Your problem is still open: 20 minutes left to answer with /answer TEXT.")
    chat.clock.advance(minutes=21)
    # 1800 s: adj = +400 (capped). alice: 1500 - 400 - 400 = 700; p1: 1500 + 400 + 400 = 2300.
    assert await chat.say("/answer Qh7") == (
        "Time is up: your 30 minutes for p1 ran out, and it counts as not solved. /puzzle gives "
        "you another.")
    assert await chat.say("/answer Qh7") == (
        "Time is up: your 30 minutes for p1 ran out, and it counts as not solved. /puzzle gives "
        "you another.")
    assert (await chat.say("/rating ladder=puzzles")).startswith("alice (puzzles): 700, rank 1")
    assert "1. p1  2300  0 of 1 attempt solved" in await chat.say("/top puzzles problems")
    assert "alice did not solve p1 on puzzles (1800 s, game #1)" in await chat.as_(
        "mod!", "/audit 3")


async def test_each_problem_is_tried_once_and_the_answers_stay_hidden(chat: Transcript) -> None:
    for _ in range(3):
        await chat.as_("alice", "/puzzle")
        await chat.say("/answer x")
    assert await chat.say("/puzzle") == (
        "You have tried every problem of puzzles. New ones come as the moderators add them.")
    assert await chat.say("/answer x") == "You have no problem to answer. Send /puzzle to get one."
    # what the group may read of a problem: never its answers
    audit = await chat.as_("mod!", "/audit 20")
    assert "Qh7" not in audit and "Rd8" not in audit


async def test_refusals_change_nothing(chat: Transcript) -> None:
    size = await chat.log_size()
    assert await chat.as_("alice", "/puzzle add p9 answers=x A problem") == (
        "Only moderators can do that.")
    assert await chat.as_("mod!", "/puzzle add p1 answers=x Again") == (
        "puzzles has a problem p1 already.")
    assert await chat.say("/puzzle add p/9 answers=x Text") == (
        "A problem's id is 1 to 32 letters, digits, _ or - (not p/9).")
    assert await chat.say("/puzzle add p9 answers=| Text") == (
        "A problem needs at least one accepted answer: answers=A|B")
    assert await chat.say("/puzzle add p9 answers=x") == (
        "A problem needs its text: /puzzle add ID answers=A|B TEXT")
    assert await chat.say("/puzzle add p9 rating=99999 answers=x Text") == (
        "A problem's rating is a number from 0 to 4000 (not 99999).")
    assert await chat.say("/puzzle add p9 rating=nan answers=x Text") == (
        "A problem's rating is a number from 0 to 4000 (not nan).")
    assert await chat.say(f"/puzzle add p9 answers=x {'y' * 1001}") == (
        "A problem's text is at most 1000 characters.")
    assert await chat.as_("alice", "/puzzle ladder=main") == (
        "main is no puzzle ladder: its system is not tactics.")
    await chat.say("/as mod!")
    assert await chat.say("/set normalise san") == "normalise is a setting of tactics ladders "\
        "only."
    assert await chat.say("/set normalise chess ladder=puzzles") == (
        "normalise takes exact, case, san (not chess).")
    assert await chat.log_size() == size


async def test_the_normalise_rule_of_the_ladder(chat: Transcript) -> None:
    await chat.as_("mod!", "/set normalise san ladder=puzzles")
    await chat.as_("alice", "/puzzle")
    assert (await chat.say("/answer 1. Qh7+!")).startswith("Solved! p1")
    await chat.as_("mod!", "/set normalise exact ladder=puzzles")
    await chat.as_("bob", "/puzzle")  # p1 is the closest to 1500 for bob too: now 1100
    assert (await chat.say("/answer qh7")).startswith("Not solved: p")


def test_normalise_rules() -> None:
    assert normalised("  Qh7   Kg8 ", "exact") == "Qh7 Kg8"
    assert normalised("Paris", "case") == normalised("PARIS", "case")
    assert normalised("1. e4 e5 2. Nf3", "san") == "e4 e5 Nf3"
    assert normalised("0-0-0+", "san") == "O-O-O"
    assert normalised("e8=Q#", "san") == "e8Q"
    assert normalised("Bc4", "san") != normalised("bc4", "san")  # a bishop, a pawn
    assert accepted("qh7", ("Qh7",), "case") and not accepted("qh7", ("Qh7",), "exact")
    assert not accepted("!?", ("Qh7",), "san")  # nothing left: never an answer


async def test_the_puzzle_post_reveals_the_last_problem_and_shows_the_next(
        chat: Transcript) -> None:
    first = await chat.service.puzzle_post(SYSTEM, "puzzles")
    assert isinstance(first, PuzzlePost) and first.card is not None
    assert (first.card.problem, first.revealed) == ("p1", None)
    # both open p1 (the closest to their 1500); alice solves it in 8 s, bob is still thinking
    # when the next post shows its solution
    await chat.as_("bob", "/puzzle")
    await chat.as_("alice", "/puzzle")
    chat.clock.advance(seconds=8)
    await chat.say("/answer Qh7")
    chat.clock.advance(seconds=20)
    second = await chat.service.puzzle_post(SYSTEM, "puzzles")
    assert isinstance(second, PuzzlePost) and second.card is not None
    assert (second.revealed, second.answers, second.card.problem) == (
        "p1", ["Qh7", "Qh7#"], "p2")
    assert [(s.name, s.seconds) for s in second.solvers] == [("alice", 8.0)]
    assert second.attempts == 2
    # bob's attempt ended, as not solved, before the solution was shown (28 s after he got it)
    assert await chat.as_("bob", "/answer Qh7") == (
        "The solution of p1 was posted before your answer came: it counts as not solved. "
        "/puzzle gives you another.")
    assert "bob did not solve p1 on puzzles (28 s, game #2)" in await chat.as_("mod!", "/audit 5")
    # p1 takes no attempt now: carol gets another problem
    await chat.as_("carol", "/register")
    assert not (await chat.say("/puzzle")).startswith("Problem p1")
    # a third post: p2's solution, nobody solved it, and p3
    third = await chat.service.puzzle_post(SYSTEM, "puzzles")
    assert isinstance(third, PuzzlePost) and third.card is not None
    assert (third.revealed, third.solvers, third.card.problem) == ("p2", [], "p3")


async def test_evaluate_weighs_the_puzzle_ladder_beside_the_game_systems(
        chat: Transcript) -> None:
    await chat.say("/as mod!")
    for n in range(4, 21):
        await chat.say(f"/puzzle add p{n} answers=x Problem {n}")
    for member in ("ann", "ben", "cat", "dan", "eve", "fay"):  # 120 attempts, 36 scored
        await chat.as_(member, "/register")
        for n in range(20):
            await chat.say("/puzzle")
            chat.clock.advance(seconds=5 + 7 * n)
            await chat.say("/answer x" if n % 3 else "/answer y")
    evaluation = await chat.service.evaluate(SYSTEM, "puzzles")
    assert evaluation.games >= 30
    assert {"tactics", "club", "elo"} <= {score.system for score in evaluation.scores}


async def test_a_button_names_its_problem_whatever_the_ladder(chat: Transcript) -> None:
    await chat.as_("mod!", "/ladder create tsumego tactics",
                   "/puzzle add t1 ladder=tsumego answers=b2 Black lives")
    alice = Caller(console.PLATFORM, console.CHAT, "alice", "alice")
    # without a name, /puzzle means the ladder called puzzles
    assert (await chat.as_("bob", "/puzzle")).startswith("Problem p1 (puzzles")
    board = await chat.service.problems(alice, "tsumego")
    assert [row.problem for row in board.rows] == ["t1"]
    state = await chat.service._session.current(1)
    ref = state.ladders["tsumego"].problems["t1"].id
    shown = await chat.service.serve_puzzle(alice, ref=ref)  # what its Solve button does
    assert (shown.card.ladder, shown.card.problem) == ("tsumego", "t1")
