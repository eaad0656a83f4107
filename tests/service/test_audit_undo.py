"""/audit and /undo say what happened as sentences a club's organiser reads (names from the
club's state, the reason after "because", "(undone)"), one per kind of event; an /undo that would
move ratings first previews every rating it changes and waits for Apply, like /correct
(issue 15)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.chat import actions
from bot.chat.actions import actions_for, press
from bot.chat.messages import MESSAGES, text
from bot.chat.presenter import render
from bot.service import moderation
from bot.service.events import CLASSES, Kind
from bot.service.identity import Caller
from bot.service.results import Leaderboard, Preview
from bot.service.state import ClubState
from bot.storage.repository import StoredEvent
from tests.chat import START, Transcript, open_club

MOD = Caller("console", "local", "mod", "mod", moderator=True)
FRI, SUN = "Fri, Mar 1 19:00 UTC", "Sun, Mar 3 19:00 UTC"


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db") as transcript:
        yield transcript


async def register(chat: Transcript, *names: str) -> None:
    for name in names:
        await chat.as_(name, "/register")


async def rows(chat: Transcript) -> dict[str, tuple[float, bool]]:
    """The main ladder's exact ratings and provisional marks, in the order of registration
    (the order a preview lists them in)."""
    board = await chat.service.leaderboard(MOD)
    assert isinstance(board, Leaderboard)
    found = {row.name: (row.rating, row.provisional) for row in board.rows}
    return {name: found[name] for name in ("ann", "ben", "cid", "dot") if name in found}


async def test_every_kind_of_entry_reads_as_a_sentence(chat: Transcript) -> None:
    await register(chat, "ann", "ben", "cid", "dot")
    await chat.as_("ann", "/report @ben win handicap=2 colour=black")
    await chat.as_("ben", "/confirm")
    await chat.as_("cid", "/report @dot draw")
    await chat.as_("dot", "/dispute it was a loss")
    await chat.as_("ann", "/report @cid loss")
    await chat.say("/withdraw")
    await chat.as_("ben", "/challenge @cid")
    await chat.as_("cid", "/accept")
    await chat.as_("ann", "/challenge @dot")
    await chat.as_("dot", "/decline")
    await chat.as_("dot", "/report @ann win")
    chat.clock.advance(days=2)
    await chat.as_("mod!", "/report @ann @cid loss")
    await chat.say("/correct 5 win b=@dot")
    await chat.say("/apply")
    await chat.say("/void 1 wrong pairing")
    await chat.say("/restore 1")
    await chat.say("/ladder create blitz elo k=40")
    await chat.say("/report @ann @ben draw ladder=blitz")
    await chat.say("/event open spring")
    await chat.say("/event close spring")
    await chat.say("/retire @dot")
    await chat.say("/return @dot")
    await chat.say("/set announce yes")
    # Issue 19: a /system that moves ratings is previewed first (nothing written), then applied.
    before = await rows(chat)
    preview = await chat.say("/system club k=24")
    assert await rows(chat) == before
    applied = await chat.say("/apply")
    after = await rows(chat)
    lines = [f"{name}: {old:.0f}{'?' if was else ''} -> {after[name][0]:.0f}"
             f"{'?' if after[name][1] else ''}"
             for name, (old, was) in before.items() if after[name][0] != old]
    assert [line.split(":")[0] for line in lines] == ["ann", "ben", "dot"]  # cid has no game
    assert preview == "\n".join([
        "Setting ladder main to club (k=24) re-rates every game and would change:", *lines,
        text("apply_hint_system")])
    assert applied == "\n".join([
        "Ladder main now uses club (k=24); every game was re-rated. Ratings changed:", *lines])
    await chat.say("/schedule cron=\"0 18 * * FRI\" tz=Europe/Berlin size=5")
    await chat.say("/schedule pause")
    await chat.say("/schedule resume")
    await chat.say("/moderator add @ann")
    await chat.say("/moderator remove @ann")
    await chat.say("/merge @dot @cid")
    await chat.say("/apply")
    await chat.say("/undo")
    shown = [(id_, FRI if when.startswith("Fri") else SUN, said) for id_, when, said in
             (re.fullmatch(r"#(\d+) (\w+, \w+ \d+ 19:00 UTC) (.*)", line).groups()  # type: ignore[union-attr]
              for line in (await chat.say("/audit 100")).split("\n"))]
    assert shown == [(str(id_), day, said) for id_, day, said in [
        (35, SUN, "mod merged the duplicate record dot into cid"),
        (34, SUN, "mod removed ann as a moderator of the club"),
        (33, SUN, "mod named ann a moderator of the club"),
        (32, SUN, "mod resumed the main ladder's posts"),
        (31, SUN, "mod paused the main ladder's posts"),
        (30, SUN, "mod set the main ladder's posts: top 5 at \"0 18 * * FRI\" (Europe/Berlin)"),
        (29, SUN, "mod changed the main ladder's rating system to club (k=24); every game was re-"
                  "rated"),
        (28, SUN, "mod set the main ladder's announce to yes"),
        (27, SUN, "mod brought dot back to the main ladder"),
        (26, SUN, "mod retired dot from the main ladder"),
        (25, SUN, "mod closed event spring on the main ladder; its games were rated together"),
        (24, SUN, "mod opened event spring on the main ladder"),
        (23, SUN, "mod recorded game #6 on blitz: ann drew with ben"),
        (22, SUN, "mod created the blitz ladder, rated by elo (k=40)"),
        (21, SUN, "mod restored game #1"),
        (20, SUN, "mod voided game #1, because: wrong pairing"),
        # "win": the side shown first (cid's) wins, now dot's (issue 31)
        (19, SUN, "mod corrected game #5: cid beat ann -> dot beat ann"),
        (18, SUN, "mod recorded game #5 on main: cid beat ann"),
        (17, SUN, "game #4 counted by itself, because: unanswered for 24 h"),
        (16, FRI, "dot reported game #4 on main: dot beat ann"),
        (15, FRI, "dot declined challenge #2"),
        (14, FRI, "ann challenged dot on the main ladder"),
        (13, FRI, "cid accepted challenge #1"),
        (12, FRI, "ben challenged cid on the main ladder"),
        (11, FRI, "ann withdrew game #3"),
        (10, FRI, "ann reported game #3 on main: cid beat ann"),
        (9, FRI, "dot disputed game #2, because: it was a loss"),
        (8, FRI, "cid reported game #2 on main: cid drew with dot"),
        (7, FRI, "ben confirmed game #1"),
        (6, FRI, "ann reported game #1 on main: ann beat ben, handicap 2 given by ann, "
                 "ann played black"),
        (5, FRI, "dot joined the club"),
        (4, FRI, "cid joined the club"),
        (3, FRI, "ben joined the club"),
        (2, FRI, "ann joined the club"),
        (1, FRI, "system created the main ladder, rated by club (defaults)"),
    ]]


def _stored(id_: int, kind: Kind, data: dict[str, Any], actor: str = "u-mod") -> StoredEvent:
    return StoredEvent(id_, kind, actor, START, data)


async def test_the_kinds_no_chat_command_writes_read_as_sentences_too() -> None:
    log = [
        _stored(0, Kind.LADDER_CREATED, {"ladder": "main", "system": "club", "params": {}},
                "system"),
        _stored(1, Kind.MEMBER_REGISTERED, {"user": "u-mod", "name": "mod", "ladder": "main"},
                "u-mod"),
        _stored(2, Kind.MEMBER_REGISTERED, {"user": "import:Old Al", "name": "Old Al"}, "import"),
        _stored(3, Kind.MEMBER_REGISTERED, {"user": "u-al", "name": "al", "ladder": "main"},
                "u-al"),
    ]
    crafted = [
        *log[1:],
        _stored(4, Kind.PLAYER_JOINED, {"ladder": "main", "member": "import:Old Al",
                                        "event": None, "played_at": "2020-01-01"}, "import"),
        _stored(5, Kind.GAME_REPORTED, {
            "ladder": "main", "player_a": "import:Old Al", "player_b": "u-al", "score_a": 0.0,
            "handicap": 0.0, "colour": None, "event": "spring", "played_at": "2020-01-01",
            "direct": True}, "import"),
        _stored(6, Kind.HISTORY_IMPORTED, {"ladder": "main", "fingerprint": "f",
                                           "file": "club.csv"}, "import"),
        _stored(7, Kind.CLAIM_REQUESTED, {"member": "import:Old Al", "claimant": "u-al"}, "u-al"),
        _stored(8, Kind.CLAIM_APPROVED, {"claim": 7}),
        _stored(9, Kind.CLAIM_DECLINED, {"claim": 7}),
        _stored(10, Kind.SCHEDULE_SET, {"ladder": "main", "cron": "0 9 * * MON",
                                        "timezone": None, "channel": "-100", "size": 10}),
    ]
    # The state knows the game's report (it numbers the club's games), as /audit's does.
    state = ClubState.build([*log, *crafted[3:5]])
    said = [text(n.key, n.params) for n in (moderation.sentence(state, e) for e in crafted)]
    assert said == [
        "mod joined the club",
        "import added Old Al to the club",
        "al joined the club",
        "Old Al joined the main ladder",
        "import recorded game #1 on main: al beat Old Al, event spring",
        "import imported club.csv into the main ladder",
        "al claimed the imported player Old Al",
        "mod approved the claim #7",
        "mod declined the claim #7",
        "mod set the main ladder's posts: top 10 at \"0 9 * * MON\" (the ladder's time zone) "
        "into -100",
    ]


def test_every_kind_of_event_has_its_sentence() -> None:
    """Each kind's sentence is in the catalogue, with exactly the fields the service fills."""
    keys = {f"said_{kind}" for kind in CLASSES} | {
        "said_system_changed", "said_member_added", "said_game_recorded",
        "said_game_reported_draw", "said_game_recorded_draw",
        # a corrected result in words before and after, decisive or drawn (issue 31)
        "said_game_corrected_ww", "said_game_corrected_wd", "said_game_corrected_dw",
        "said_game_corrected_dd",
        # an attempt at a problem, solved or not (issue 34)
        "said_attempt_solved", "said_attempt_failed",
        # a member's code to link their other account (issue 35)
        "said_link_code_member",
        # a joined chat's own setting taken back to the club's, a chat joining with its games
        # (issue 35)
        "said_chat_setting_off", "said_chat_merging",
        # a club night's check-ins: in, out, paused (issue 36)
        "said_night_left", "said_night_paused",
        # a live leaderboard stopped by its failures (issue 38)
        "said_live_board_failed"}
    assert keys <= set(MESSAGES)
    assert {k for k in MESSAGES if k.startswith("said_")} == keys


async def test_an_undo_that_moves_ratings_is_previewed_then_applied(chat: Transcript) -> None:
    await register(chat, "ann", "ben")
    await chat.as_("mod!", "/report @ann @ben win")
    await chat.say("/void 1 a friendly")
    board = await chat.say("/top")
    assert await chat.say("/undo") == "\n".join([
        "Undoing #5 (mod voided game #1) would change:",
        "ann: 1500 -> 1553?",
        "ben: 1500 -> 1447?",
        "Send /apply to undo it, or /cancel.",
    ])
    # Nothing changed yet: the ratings, the log.
    assert await chat.say("/top") == board
    assert (await chat.say("/audit 1")).endswith("mod voided game #1, because: a friendly")
    assert await chat.say("/apply") == "\n".join([
        "Undone #5: mod voided game #1. Ratings changed:",
        "ann: 1500 -> 1553?",
        "ben: 1500 -> 1447?",
    ])
    assert await chat.say("/apply") == text("no_preview")
    assert (await chat.say("/audit 2")).split("\n")[1].endswith(
        "mod voided game #1, because: a friendly (undone)")
    # The report itself, a direct one: previewed, then cancelled.
    assert await chat.say("/undo") == "\n".join([
        "Undoing #4 (mod recorded game #1 on main: ann beat ben) would change:",
        "ann: 1553 -> 1500?",
        "ben: 1447 -> 1500?",
        "Send /apply to undo it, or /cancel.",
    ])
    assert await chat.say("/cancel") == "Undo of #4 cancelled; nothing changed."
    assert await chat.say("/top") == "\n".join([
        "main ladder", "  1. ann      1553?  1 game", "  2. ben      1447?  1 game"])


async def test_the_buttons_of_an_undo_preview_are_the_corrections(chat: Transcript) -> None:
    await register(chat, "ann", "ben")
    await chat.as_("mod!", "/report @ann @ben win")
    preview = await chat.service.undo(MOD)
    assert isinstance(preview, Preview) and not preview.applied
    # an undo's own group, naming the action (#4 in /audit), not a game's number
    assert [a.id for row in actions_for(preview) for a in row] == ["u:apply:4", "u:cancel:4"]
    answer, _ = await press(chat.service, MOD, actions.read("u:apply:4"))
    assert render(answer) == "\n".join([
        "Undone #4: mod recorded game #1 on main: ann beat ben. Ratings changed:",
        "ann: 1553 -> 1500?",
        "ben: 1447 -> 1500?",
    ])


async def test_an_undo_preview_of_an_action_no_longer_the_latest_applies_nothing(
    chat: Transcript,
) -> None:
    await register(chat, "ann", "ben")
    await chat.as_("mod!", "/report @ann @ben win")
    assert (await chat.say("/undo")).startswith("Undoing #4 ")
    await chat.say("/moderator add @ann")
    assert await chat.say("/apply") == text("undo_moved", id=4)
    assert await chat.say("/undo") == "Undone #5: mod named ann a moderator of the club."
    assert "  1 game" in await chat.say("/top")  # the game still counts


async def test_an_undo_that_moves_no_rating_applies_at_once(chat: Transcript) -> None:
    await register(chat, "ann")
    await chat.as_("mod!", "/schedule pause")
    assert await chat.say("/undo") == "Undone #3: mod paused the main ladder's posts."
    assert await chat.say("/cancel") == text("no_preview_to_cancel")
