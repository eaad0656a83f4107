"""Issue 31, "Corrections say what they do", through ``clubrating run`` (the console, one
command a line): ``/correct N win|loss|draw`` gives the result of the player shown first in the
game's line as recorded (ERRATA: the winner of a decisive game, player_a of a draw), the
preview and the audit say the result in words before and after, and a preview applied after
the club's log moved applies nothing but shows the new preview."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from .process import FakeClock, clubrating, environment

NOW = datetime(2026, 11, 23, 21, 0)
#: the acceptance forms of a decisive result in words (issue 31, "Exact forms"), as regexes
#: with the winner and the loser in named groups
_DECISIVE = [
    r"(?P<w>\w+) (?:beat|beats|defeated|defeats) (?P<l>\w+)",
    r"(?P<w>\w+) (?:won|wins) (?:against|over|vs) (?P<l>\w+)",
    r"(?P<l>\w+) (?:lost|loses) to (?P<w>\w+)",
    r"(?P<w>\w+) 1-0 (?P<l>\w+)",
]
_ARROW = r"\s*(?:->|→)\s*"
#: erin reports her loss to frank: the game reads "frank beat erin" (player_a is erin)
_PLAYED = [("erin", "/register"), ("frank", "/register"), ("dot", "/register"),
           ("erin", "/report @frank loss"), ("frank", "/confirm")]


def answers(tmp_path: Path, steps: list[tuple[str, str]]) -> list[str]:
    """Each command's answer, in order: every command is sent as its speaker (``/as``), whose
    answer ("You are now ...") frames the one before it."""
    env = environment(tmp_path, FakeClock(tmp_path, NOW))
    typed = "".join(f"/as {who}\n{command}\n" for who, command in steps) + "/as nobody\n"
    done = clubrating(env, "run", input=typed)
    assert done.returncode == 0, done.stderr
    parts = re.split(r"^You are now .*$", done.stdout, flags=re.MULTILINE)
    said = [part.strip() for part in parts[1:-1]]
    assert len(said) == len(steps), done.stdout
    return said


def decisive(line: str) -> tuple[str, str] | None:
    """The winner and loser a line says in words, if it says one."""
    for form in _DECISIVE:
        found = re.search(form, line)
        if found is not None:
            return found["w"], found["l"]
    return None


def change_in_words(answer: str) -> tuple[str, str] | None:
    """The result before and after that an answer states as ``BEFORE -> AFTER``."""
    for line in answer.splitlines():
        parts = re.split(_ARROW, line)
        if len(parts) == 2 and not re.search(r"\d+\??$", parts[1]):
            return parts[0], parts[1]
    return None


def test_win_is_the_result_of_the_player_shown_first(tmp_path: Path) -> None:
    said = answers(tmp_path, [*_PLAYED, ("frank", "/history"), ("mod!", "/correct 1 win"),
                              ("mod!", "/apply"), ("frank", "/history")])
    assert "#1" in said[5] and decisive(said[5]) == ("frank", "erin")
    # "frank beat erin" and a win for frank, shown first: no change, nothing to apply
    assert "no change" in said[6].lower() or "already" in said[6].lower(), said[6]
    assert "->" not in said[6]
    assert "corrected" not in said[7].lower()
    assert decisive(said[8]) == ("frank", "erin")


def test_loss_makes_the_player_shown_first_lose_and_says_so_before_and_after(
        tmp_path: Path) -> None:
    said = answers(tmp_path, [*_PLAYED, ("mod!", "/correct 1 loss"), ("mod!", "/apply"),
                              ("frank", "/history"), ("mod!", "/audit 1")])
    preview, applied, history, audit = said[5:]
    for answer in (preview, applied, audit):
        worded = change_in_words(answer)
        assert worded is not None, answer
        assert decisive(worded[0]) == ("frank", "erin"), answer
        assert decisive(worded[1]) == ("erin", "frank"), answer
    assert re.search(r"erin: \d+ -> \d+", preview), preview
    assert decisive(history) == ("erin", "frank")
    assert "first player" not in audit


def test_draw_is_said_as_a_draw(tmp_path: Path) -> None:
    said = answers(tmp_path, [*_PLAYED, ("mod!", "/correct 1 draw"), ("mod!", "/apply"),
                              ("mod!", "/audit 1")])
    for answer in said[5:]:
        worded = change_in_words(answer)
        assert worded is not None, answer
        assert decisive(worded[0]) == ("frank", "erin")
        assert re.search(r"drew|draw|drawn|tie|½", worded[1]), answer
        assert "erin" in worded[1] and "frank" in worded[1]


def test_an_apply_after_the_log_moved_applies_nothing_and_shows_the_new_preview(
        tmp_path: Path) -> None:
    said = answers(tmp_path, [
        *_PLAYED,
        ("mod!", "/correct 1 loss"),
        ("dot", "/report @erin win"),  # the log moves on: a report dot made since
        ("mod!", "/apply"),
        ("frank", "/history"),
        ("mod!", "/apply"),
        ("frank", "/history"),
    ])
    stale, _, refused, unchanged, again, changed = said[5:]
    assert "corrected" not in stale.lower()
    # the preview is out of date: nothing applied, the new one waits for another /apply
    assert "out of date" in refused.lower() or "/apply" in refused, refused
    assert "corrected" not in refused.lower()
    assert decisive(unchanged) == ("frank", "erin")
    assert "corrected" in again.lower()
    assert decisive(changed) == ("erin", "frank")


def test_a_second_correct_of_the_same_game_says_it_replaces_the_first(tmp_path: Path) -> None:
    said = answers(tmp_path, [*_PLAYED, ("mod!", "/correct 1 loss"), ("mod!", "/correct 1 draw"),
                              ("mod!", "/apply"), ("frank", "/history")])
    first, second, applied, history = said[5:]
    assert "replace" not in first.lower()
    assert "replaces" in second.lower() and "#1" in second
    assert re.search(r"drew|draw", history) and "erin" in history


def test_help_says_what_a_result_word_means(tmp_path: Path) -> None:
    said = answers(tmp_path, [("mod!", "/help correct"), ("mod!", "/help")])
    for answer in said:
        line = next(x for x in answer.splitlines() if x.startswith("/correct"))
        assert "shown first" in line, line
