"""Issue 31, "One result, one report", through ``clubrating run`` as a club runs it (the console
on one database, the clock moved by libfaketime between runs): a second report of a pair records
nothing unless a moderator says ``repeat``; a void report never counts by itself and a restore
gives its opponent time to answer; an event closes once its reports are settled, so that they
are rated together, and ``event=`` finds the only ladder where the event is open; a challenger
withdraws their own challenge."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

from .process import FakeClock, clubrating, environment

NOW = datetime(2026, 11, 23, 21, 0)


def run(env: dict[str, str], *lines: str) -> list[str]:
    """The answers to one console session of ``lines``: what each command printed (a
    ``/as NAME`` command's own line included), in order."""
    shown = clubrating(env, "run", input="".join(f"{line}\n" for line in lines))
    assert shown.returncode == 0, shown.stderr
    return shown.stdout.splitlines()


def after(lines: list[str], speaker: str) -> list[str]:
    """The lines printed after the last ``/as`` that made ``speaker`` speak."""
    starts = [n for n, line in enumerate(lines) if line.startswith(f"You are now {speaker}")]
    assert starts, lines
    return lines[starts[-1] + 1:]


def registered(env: dict[str, str], *names: str) -> None:
    run(env, *(line for name in names for line in (f"/as {name}", "/register")))


def test_a_second_identical_report_records_nothing(tmp_path: Path) -> None:
    clock = FakeClock(tmp_path, NOW)
    env = environment(tmp_path, clock)
    registered(env, "alice", "bob")
    clock.set(NOW + timedelta(minutes=1))
    answers = run(env, "/as alice", "/report @bob win", "/report @bob win")
    assert answers[-1].startswith("Your report #1 against bob is still waiting"), answers
    pending = after(run(env, "/as bob", "/pending"), "bob")
    assert any("#1" in line for line in pending), pending
    assert not any("#2" in line for line in pending), pending


def test_a_moderator_reports_their_own_repeated_game_with_repeat(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    registered(env, "mod", "bob", "alice")
    answers = run(env, "/as mod!", "/report @bob win", "/report @bob win",
                  "/report @bob win repeat", "/report @bob loss repeat=yes",
                  "/as alice", "/report @bob win", "/report @bob win repeat=yes")
    mine = after(answers, "mod")
    # each report: its line, its terms, and the points at stake of its two players (issue 38)
    assert mine[0].startswith("Game #1: mod beat bob."), answers
    assert mine[2:4] == ["mod: +53 / 0 / -53 (win 50%)", "bob: +53 / 0 / -53 (win 50%)"]
    assert mine[4].startswith("Your report #1 against bob is still waiting"), answers
    assert mine[5].startswith("Game #2: mod beat bob."), answers
    assert mine[9].startswith("Game #3: bob beat mod."), answers
    # a member's repeat is refused: only a moderator's word says it is another game
    assert after(answers, "alice")[-1].startswith("Only moderators"), answers
    pending = after(run(env, "/as bob", "/pending"), "bob")
    assert [n for n in (1, 2, 3, 4) if any(f"#{n} " in line for line in pending)] == [1, 2, 3, 4]


def test_a_void_report_never_counts_by_itself_and_a_restore_gives_time_to_answer(
        tmp_path: Path) -> None:
    clock = FakeClock(tmp_path, NOW)
    env = environment(tmp_path, clock)
    registered(env, "alice", "bob")
    run(env, "/as alice", "/report @bob win", "/as mod!", "/void 1 entered by mistake")

    clock.set(NOW + timedelta(hours=25))
    answers = run(env, "/as bob", "/pending", "/as mod!", "/restore 1", "/as bob", "/pending",
                  "/dispute 1 we never played", "/as alice", "/rating")
    assert after(answers, "bob")[0].startswith("To confirm or dispute: #1"), answers
    # before the restore, the void report waited for nobody and had not counted
    first_pending = answers[answers.index("You are now bob.") + 1]
    assert "#1" not in first_pending, answers
    restored = after(answers, "mod")[0]
    assert "#1" in restored and "counts again" not in restored, answers
    assert "disputed" in after(answers, "bob")[1], answers

    clock.set(NOW + timedelta(hours=75))  # far past any confirmation period: still not counted
    profile = after(run(env, "/as alice", "/rating", "/as mod!", "/pending"), "alice")[0]
    assert not re.search(r"\b1 games?\b", profile) and "1553" not in profile, profile
    assert any("#1" in line for line in after(run(env, "/as mod!", "/pending"), "mod"))


def test_an_event_closes_once_its_reports_are_settled_and_rates_them_together(
        tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    registered(env, "alice", "bob", "carol")
    answers = run(env, "/as mod!", "/ladder create blitz", "/event open spring ladder=blitz",
                  # no ladder=: blitz is the only ladder where spring is open
                  "/as alice", "/report @carol win event=spring",
                  "/as bob", "/report @carol win event=spring",
                  "/as mod!", "/event close spring ladder=blitz")
    assert "Ladder blitz" in after(answers, "alice")[1], answers
    refused = after(answers, "mod")[0]
    assert "#1, #2" in refused and "is closed" not in refused, answers

    answers = run(env, "/as carol", "/confirm 1", "/confirm 2",
                  "/as mod!", "/event close spring ladder=blitz",
                  "/rating @alice ladder=blitz", "/rating @bob ladder=blitz")
    closed, alice, bob = after(answers, "mod")
    assert "2 games" in closed, answers
    ratings = [re.search(r"\b\d{3,4}\b", line) for line in (alice, bob)]
    assert ratings[0] and ratings[1] and ratings[0][0] == ratings[1][0] != "1500", answers


def test_a_challenger_withdraws_their_own_challenge(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    registered(env, "alice", "bob", "carol")
    answers = run(env, "/as alice", "/challenge @bob", "/withdraw", "/as bob", "/pending",
                  "/accept")
    # the challenge, the points at stake of its two players (issue 38), the withdrawal
    assert after(answers, "alice")[1:4] == [
        "alice: +53 / 0 / -53 (win 50%)", "bob: +53 / 0 / -53 (win 50%)",
        "alice withdraws challenge #1 to bob."], answers
    assert after(answers, "bob") == ["Nothing waiting for you.", "Nobody has challenged you."]

    # games and challenges are numbered apart: /withdraw N takes back whichever of alice's is
    # open as #N; with her report #2 and her challenge #2 both open, she says which
    answers = run(env, "/as alice", "/challenge @carol", "/report @carol win", "/report @bob win",
                  "/withdraw 2", "/withdraw challenge 2", "/withdraw 2", "/challenge @bob",
                  "/withdraw 3", "/as carol", "/pending")
    mine = after(answers, "alice")
    # a challenge's answer is 3 lines and a report's 4 with their points at stake (issue 38)
    assert "/withdraw game 2" in mine[11] and "/withdraw challenge 2" in mine[11], answers
    assert mine[12] == "alice withdraws challenge #2 to carol.", answers
    assert mine[13].startswith("Game #2 withdrawn"), answers
    assert mine[17] == "alice withdraws challenge #3 to bob.", answers
    waiting = after(answers, "carol")
    assert any("#1" in line for line in waiting), waiting
    assert not any("challenge" in line.casefold() for line in waiting), waiting


def test_an_event_open_on_two_ladders_is_named_with_its_ladder(tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    registered(env, "alice", "bob")
    answers = run(env, "/as mod!", "/ladder create blitz", "/event open spring ladder=blitz",
                  "/event open spring", "/as alice", "/report @bob win event=spring",
                  "/report @bob win event=spring ladder=blitz")
    refused, reported = after(answers, "alice")[0], after(answers, "alice")[1]
    assert "blitz, main" in refused and "ladder=blitz" in refused, answers
    assert reported.startswith("Game #1: alice beat bob."), answers


def test_a_void_report_of_a_closed_event_is_reported_again_not_restored(tmp_path: Path) -> None:
    # restored and confirmed after its event closed, it would be rated alone, not with it
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    registered(env, "alice", "bob")
    answers = run(env, "/as mod!", "/event open spring", "/as alice",
                  "/report @bob win event=spring", "/as mod!", "/void 1 wrong event",
                  "/event close spring", "/restore 1", "/as bob", "/pending")
    closed, refused = after(answers, "mod")[1:3]
    assert closed.startswith("Event spring is closed"), answers
    assert "#1" in refused and "report it again" in refused, answers
    assert after(answers, "bob") == ["Nothing waiting for you."], answers
