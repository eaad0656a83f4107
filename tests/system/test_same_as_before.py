"""The redesign of issue 14 (the service split by use case, typed events, one button protocol,
one settings table, settings read once) changed no answer, no stored event and no export.

``data/redesign-76c8ccb.*`` was written by the build before it (commit 76c8ccb) from the console
session beside it, with the wall clock frozen at 2026-11-20 10:00 UTC by libfaketime: 82 lines
that use every kind of use case (registrations, reports by members and by a moderator,
confirmations, a dispute, a challenge, a correction previewed, cancelled and applied, a void and
a restore, a second ladder, an event rated together, retire and return, settings, the system's
K, a schedule set, paused and resumed, a moderator named, two undos, the audit, boards,
profiles, histories, the digest, refusals, a merge and an evaluation). ``.answers`` is what that
build answered, ``.events.jsonl`` every row it stored, ``.export.csv`` its ``clubrating export``.
Today's build must give the same, byte for byte, but for the answers later issues changed on
purpose, edited into ``.answers`` and listed here. Issue 15: the several-games hint names one
game ("e.g. /confirm 7", not "7, 8"); a game in an open event says it counts when the event
closes; /audit and /undo say each entry as a sentence (names, not user ids; "mod named ann a
moderator of the club", "Undone #37: ..."); a report's prompt has a second line with every term
and when it counts by itself ("Ladder main, no handicap, colours not given, no event; counts on
Sat, Nov 21 10:00 UTC unless disputed."); every time is shown in the ladder's zone in one format
("before Sun, Nov 22 10:00 UTC", not "before 2026-11-22T10:00"; audit lines "Fri, Nov 20 10:00
UTC"; "next post: Fri, Nov 20 18:00 CET", not "2026-11-20 18:00 (CET)"; "changes since Fri 13
Nov 17:00 UTC"). Games and challenges are numbered from #1 in the club ("Game #1", "challenge
#1", not the ids of their events, "Game #7", "challenge #15"), so the session types the new
numbers of the same games (``/confirm 1`` where the build before was sent ``/confirm 7``; 8 and
12 became 2 and 3). /merge is previewed like a correction ("Merging Eve into dot would drop
game #6 (played between the two records) and change:" and every rating it moves) and done by
/apply ("... Game #6 between them no longer counts. Ratings changed:"), so the session has an
/apply after its /merge. /digest before anything was posted says it covers the ladder from its
start ("main ladder, changes since it began on Fri, Nov 20 11:00 CET (nothing posted yet)", not
a post time a week before the club existed). Issue 19: a new club's ladder gets today's ``club``
defaults and rates by deviation, so the ratings shown differ ("ann: 1500 -> 1552?", not 1536?)
and /settings lists the new parameters (uncertainty, initial_deviation, deviation_growth).
Later in issue 19 the defaults became edition 3 (a newcomer's deviation from the league's spread,
a first move toward their first opponents, three quarters of a game's information): the first
win reads "ann: 1500 -> 1553?" (was 1552?), every later rating moves, /settings lists
newcomer_spread, max_deviation, information and first_opponents after initial_deviation, and the
correction and the undo of game #1 list cid_k, dot and Eve too: they joined after it, so their
starting deviation, taken from the league's ratings then, moves with it. /system that would
move ratings is previewed like a merge ("Setting ladder main to club (k=24) re-rates every game
and would change:", every rating, "Send /apply to switch, or /cancel.") and made by /apply, so
the session has an /apply after its /system; an /apply with nothing waiting says so of every
kind of preview ("Nothing previewed waits for /apply. /correct, /merge, /undo and /system
preview first.", not "There is no correction to apply. Start one with /correct.").
The stored events and the export are still those of the build before, but that (issue 19) a
ladder created or given a system now names the edition of the defaults it was set up with
(``"edition":3`` in events 1, 21 and 33; 1, 22 and 34 since the report caps below). Issue 30: a
typed ``@name`` is the member whose
username it is before one merely shown so, and the console user cid_k (registered as "again")
has the username cid_k, so the session names cid's record, shown as cid_k, by cid's username
(``@cid``, where the build before was sent ``@cid_k``); and /register keeps a valid username
even when it is the display name (``"handle":"ann"`` in events 2, 3 and 5, not ``null``).
Issue 30 also caps a member's reports that wait (5, and 1 against one opponent: issue 31's
duplicate reports), and ann reports ben twice before he answers: the session's moderator first
lets two wait against one opponent (``/set open_reports_per_opponent 2`` after the
registrations). That is one event more, event 7, so every later event's id is one higher, and so
is each id an event names (a game, a challenge, an undone action's target), and /audit and /undo
show those numbers; /settings shows both caps of each ladder ("reports waiting per member: 5,
against one opponent: 2"). The export is unchanged.
Issue 31 changed answers on purpose: a correction's preview states the result before and after
("Result: ann beat ben -> ann drew with ben"); /ladder create echoes its parameters ("(k=40)");
/settings lists ``provisional_margin`` (``club`` edition 4, whose provisional mark means "not
known yet": ``"edition":4`` in events 1, 22 and 34, and no ``?`` of this session moves); boards
show their games column in words ("3 games", "1 game", not "(3)"); a peak is the highest
established rating ("no peak yet" for ann, provisional throughout; dot's 1580, not elo's start
of 1600); a /system preview marks each rating before the switch as its system marked it
("ann: 1620? -> 1619?", not "1620 -> 1619?"), since a switch may move the mark alone. And the
session goes on past the build before's end (events 42 to 49, two join rows in the export):
names with an apostrophe and a space (``/register O'Brien``, ``@"Zoë Smith"``, ``@“O’Brien”``
in typographic quotes), a withdrawn challenge, a second report of a pair refused naming the
first, an unquoted spaced name answered with the quoted form, a dispute's and a void's reasons
with apostrophes shown as written in /pending and /audit, ``/correct N win`` read for the
player shown first (no change) and ``loss`` previewed in words, and a member without games
shown with no rank and no peak.
Issue 33 changed answers on purpose: dates and times are written by Babel in the club's
language (English here: "#2 Nov 20, 2026 ann beat ben", "counts on Sat, Nov 21 10:00 UTC", where
the build before wrote "2026-11-20" and "Sat 21 Nov"), /settings names the club's language ("the
club's language: en"), and every count with its noun is a plural phrase ("5 games scored; at
least 30 are needed", not "5 scored").
Issue 38 changed answers on purpose: a member's report waiting for the opponent, and a new
challenge, end with the points at stake, a line per member of the game (``ann: +53 / 0 / -53
(win 50%)``: the shown rating's change for a win, a draw and a loss, and the side's chance to
win), since ``show_stake`` is on by default; a moderator's record, which counts at once, has none.
The stored events and the export are unchanged.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from .process import LIBFAKETIME, clubrating, environment

DATA = Path(__file__).parent / "data"
BEFORE = "redesign-76c8ccb"


@pytest.fixture
def frozen(tmp_path: Path) -> dict[str, str]:
    """The environment of a console session at a wall clock that stands still."""
    assert LIBFAKETIME is not None, "libfaketime is missing: apt-get install faketime"
    return environment(tmp_path, None, LD_PRELOAD=LIBFAKETIME, FAKETIME="2026-11-20 10:00:00",
                       FAKETIME_DONT_FAKE_MONOTONIC="1", TZ="UTC")


def test_the_same_session_answers_stores_and_exports_as_the_build_before(
    tmp_path: Path, frozen: dict[str, str]
) -> None:
    session = (DATA / f"{BEFORE}.session").read_text(encoding="utf-8")
    shown = clubrating(frozen, "run", input=session)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == (DATA / f"{BEFORE}.answers").read_text(encoding="utf-8")

    with sqlite3.connect(tmp_path / "club.db") as db:
        stored = [list(row) for row in db.execute(
            "SELECT id, club_id, kind, actor, at, data, reason FROM events ORDER BY id")]
    db.close()
    expected = [json.loads(line) for line in
                (DATA / f"{BEFORE}.events.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(stored) == len(expected) == 49
    for row, before in zip(stored, expected, strict=True):
        assert row == before  # the data column compared as the stored JSON text

    exported = clubrating(frozen, "export", "--chat", "console:local")
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == (DATA / f"{BEFORE}.export.csv").read_text(encoding="utf-8")
