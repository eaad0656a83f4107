"""The one definition of the bot's buttons (``bot.chat.actions``): ids, parsing, the rows that
go with an answer, what a press runs, and how each front-end shows them."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.adapters.discord import ClubButton, view_for
from bot.adapters.discord_render import BUTTON_TEMPLATE
from bot.adapters.telegram import keyboard
from bot.chat import actions
from bot.chat.actions import PAGE, Action, Emphasis, Group, actions_for, page_of, press
from bot.chat.messages import text
from bot.service.clock import FakeClock
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.results import (
    Audit,
    BoardLine,
    GameLine,
    GameResult,
    Leaderboard,
    NightRoundShown,
    Notice,
    Pending,
    Preview,
    Standing,
)
from bot.storage.sqlite import SqliteRepository

CALLER = Caller("telegram", "-1001", "2", "alice")


def board(players: int, ladder: str = "main") -> Leaderboard:
    return Leaderboard(ladder, [Standing(n + 1, f"p{n}", 1500.0, False, None, 3)
                                for n in range(players)])


def reported(game: int) -> GameResult:
    return GameResult("reported", GameLine(game, "main", "2024-05-01", "alice", "bob", 1.0,
                                           "pending"))


def ids(rows: list[list[Action]]) -> list[list[str]]:
    return [[a.id for a in row] for row in rows]


@pytest.mark.parametrize(("pressed", "expected"), [
    ("g:confirm:#3", Action(Group.GAME, "confirm", 3)),
    ("g:dispute:#3", Action(Group.GAME, "dispute", 3)),
    ("c:accept:#2", Action(Group.CHALLENGE, "accept", 2)),
    ("c:decline:#2", Action(Group.CHALLENGE, "decline", 2)),
    ("x:apply:#3", Action(Group.CORRECTION, "apply", 3)),
    ("x:cancel:#3", Action(Group.CORRECTION, "cancel", 3)),
    ("u:apply:45", Action(Group.UNDO, "apply", 45)),
    ("u:cancel:45", Action(Group.UNDO, "cancel", 45)),
    ("m:apply:17", Action(Group.MERGE, "apply", 17)),
    ("m:cancel:17", Action(Group.MERGE, "cancel", 17)),
    ("k:approve:40", Action(Group.CLAIM, "approve", 40)),
    ("k:decline:40", Action(Group.CLAIM, "decline", 40)),
    # Posted before games and challenges had numbers: named by their event's id, no "#".
    ("g:confirm:12", Action(Group.GAME, "confirm", 12, legacy=True)),
    ("g:dispute:7", Action(Group.GAME, "dispute", 7, legacy=True)),
    ("c:accept:3", Action(Group.CHALLENGE, "accept", 3, legacy=True)),
    ("c:decline:3", Action(Group.CHALLENGE, "decline", 3, legacy=True)),
    ("x:apply:12", Action(Group.CORRECTION, "apply", 12, legacy=True)),
    ("x:cancel:12", Action(Group.CORRECTION, "cancel", 12, legacy=True)),
    ("t:main:2", Action(Group.PAGE, actions.SHOW, 2, "main")),
    ("t:blitz-9_x:0", Action(Group.PAGE, actions.SHOW, 0, "blitz-9_x")),
])
def test_the_ids_of_posted_messages_parse_to_their_action(pressed: str,
                                                           expected: Action) -> None:
    parsed = Action.parse(pressed)
    assert parsed == expected
    assert parsed is not None and parsed.id == pressed
    assert expected.id == pressed


def test_a_legacy_id_is_not_the_numbered_one() -> None:
    # g:confirm:12 named the game reported by event 12, g:confirm:#12 names game #12.
    assert Action.parse("g:confirm:12") != Action.parse("g:confirm:#12")
    assert Action.parse("c:accept:3") != Action.parse("c:accept:#3")
    assert Action.parse("x:apply:12") != Action.parse("x:apply:#12")
    # Buttons made today are numbered.
    assert Action.choice(Group.GAME, "confirm", 3).id == "g:confirm:#3"
    assert Action.choice(Group.UNDO, "apply", 45).id == "u:apply:45"
    assert Action.choice(Group.MERGE, "apply", 17).id == "m:apply:17"


@pytest.mark.parametrize("pressed", [
    "", "hello", "g:confirm:", "g:confirm:x", "z:do:1", "g:accept:1", "c:confirm:1",
    "x:undo:1", "g:confirm:1:2", "g:confirm:-1", "g:confirm:1 ", "g:confirm:\u0661",
    "t:Main:0", "t::0", "t:" + "a" * 33 + ":0", "g:confirm:" + "9" * 19, "t:main:0\n",
    # "#" is for games and challenges (and their corrections) only, once, before the number
    "t:main:#2", "k:approve:#40", "k:decline:#40", "u:apply:#45", "u:cancel:#45",
    "g:confirm:##3", "g:confirm:#", "g:confirm:3#", "#g:confirm:3", "g:#confirm:3",
    "g:confirm:#" + "9" * 19, "u:undo:45", "u:confirm:45", "x:approve:#3",
    # a merge's buttons name the duplicate's member id, never with "#"
    "m:apply:#17", "m:merge:17", "m:confirm:17",
])
def test_anything_else_is_not_ours(pressed: str) -> None:
    assert Action.parse(pressed) is None
    with pytest.raises(Refusal) as refused:
        actions.read(pressed)
    assert refused.value.key == "bad_command"
    assert refused.value.params == {"command": pressed[:40]}


def test_the_limits_are_those_of_today() -> None:
    assert Action.parse("t:" + "a" * 32 + ":" + "9" * 18) is not None
    assert Action.parse("g:confirm:#" + "9" * 18) is not None
    # Discord's template for old messages' custom ids: today's, with the claims' group "k"
    # (issue 15) added, then the undos' group "u" and the "#" of numbered games and challenges,
    # then the merges' group "m", then the /system previews' group "s" (issue 19), then the
    # problems' group "p" (issue 34), then a chat's merge or unlink "l" (issue 35), then a club
    # night's check-in "n" (issue 36), so every id it matched before it matches still.
    assert BUTTON_TEMPLATE == (r"(?P<kind>[gcxtkumsplnz]):(?P<action>[a-z0-9_-]{1,32}):"
                               r"(?P<number>#?)(?P<ref>[0-9]{1,18})")
    for old in ("g:confirm:12", "c:accept:3", "x:apply:12", "k:approve:40", "t:main:2"):
        assert re.fullmatch(BUTTON_TEMPLATE, old), old
    for new in ("g:confirm:#3", "c:decline:#2", "x:cancel:#3", "u:apply:45", "m:apply:17",
                "s:apply:52", "p:solve:0", "p:answer:17", "l:apply:0",
                "n:in:120"):
        assert re.fullmatch(BUTTON_TEMPLATE, new), new


def test_the_rows_that_go_with_an_answer() -> None:
    assert ids(actions_for(reported(7))) == [["g:confirm:#7", "g:dispute:#7"]]
    challenge = Notice("challenge_issued", {"challenge": 5})
    assert ids(actions_for(challenge)) == [["c:accept:#5", "c:decline:#5"]]
    assert ids(actions_for(Preview(4, [], applied=False))) == [["x:apply:#4", "x:cancel:#4"]]
    assert actions_for(Preview(4, [], applied=True)) == []
    # An undo's preview names the action it takes back by its id, as /audit shows it.
    undo = Notice("said_member_retired", {"who": "ada", "name": "bob"})
    assert ids(actions_for(Preview(45, [], applied=False, undo=undo))) == [
        ["u:apply:45", "u:cancel:45"]]
    assert [(a.label, a.emphasis) for a in actions_for(
        Preview(45, [], applied=False, undo=undo))[0]] == [
        ("button_apply", Emphasis.PRIMARY), ("button_cancel", Emphasis.SECONDARY)]
    assert actions_for(Preview(45, [], applied=True, undo=undo)) == []
    # A merge's preview names the duplicate by its member id (the id of its registration).
    merge = Notice("merged", {"from": "bob2", "into": "bob", "games": "#3", "dropped": 1})
    assert ids(actions_for(Preview(17, [], applied=False, merge=merge))) == [
        ["m:apply:17", "m:cancel:17"]]
    assert [(a.label, a.emphasis) for a in actions_for(
        Preview(17, [], applied=False, merge=merge))[0]] == [
        ("button_apply", Emphasis.PRIMARY), ("button_cancel", Emphasis.SECONDARY)]
    assert actions_for(Preview(17, [], applied=True, merge=merge)) == []
    # A /system's preview is numbered by the id its change would have.
    switch = Notice("system_set", {"ladder": "main", "system": "elo", "params": "defaults"})
    assert ids(actions_for(Preview(52, [], applied=False, system=switch))) == [
        ["s:apply:52", "s:cancel:52"]]
    assert actions_for(Preview(52, [], applied=True, system=switch)) == []
    assert actions_for(Notice("challenge", {"challenge": 5})) == []
    assert ids(actions_for(Notice("claim_requested", {"claim": 6}))) == [
        ["k:approve:6", "k:decline:6"]]
    assert actions_for("plain text") == []
    rows = actions_for(reported(7))
    assert [(a.label, a.emphasis) for a in rows[0]] == [
        ("button_confirm", Emphasis.PRIMARY), ("button_dispute", Emphasis.SECONDARY)]


def test_leaderboard_paging() -> None:
    assert actions_for(board(PAGE)) == []
    three = board(2 * PAGE + 1, "blitz")
    assert ids(actions_for(three)) == [["t:blitz:1"]]
    assert ids(actions_for(three, 1)) == [["t:blitz:0", "t:blitz:2"]]
    assert ids(actions_for(three, 2)) == [["t:blitz:1"]]
    assert actions_for(three, -1) == []
    assert [(a.label, a.emphasis) for a in actions_for(three, 1)[0]] == [
        ("button_previous", Emphasis.NEUTRAL), ("button_next", Emphasis.NEUTRAL)]
    assert [s.rank for s in page_of(three, 2).rows] == [2 * PAGE + 1]
    assert page_of(three, 1).ladder == "blitz"


def test_telegram_shows_each_action_as_an_inline_button() -> None:
    markup = keyboard(reported(7))
    assert markup is not None
    assert [[(b.text, b.callback_data) for b in row] for row in markup.inline_keyboard] == [
        [(text("button_confirm"), "g:confirm:#7"), (text("button_dispute"), "g:dispute:#7")]]
    assert keyboard("plain text") is None


def test_discord_shows_each_action_as_a_coloured_button() -> None:
    view = view_for(board(2 * PAGE + 1), 1)
    assert view is not None
    shown = [(b.item.label, b.custom_id, b.item.style) for b in view.children
             if isinstance(b, ClubButton)]
    grey = discord.ButtonStyle.secondary
    assert shown == [(text("button_previous"), "t:main:0", grey),
                     (text("button_next"), "t:main:2", grey)]
    view = view_for(Preview(4, [], applied=False))
    assert view is not None
    assert [(b.custom_id, b.item.style) for b in view.children if isinstance(b, ClubButton)] == [
        ("x:apply:#4", discord.ButtonStyle.success), ("x:cancel:#4", discord.ButtonStyle.danger)]
    undo = Notice("said_member_retired", {"who": "ada", "name": "bob"})
    view = view_for(Preview(45, [], applied=False, undo=undo))
    assert view is not None
    assert [(b.custom_id, b.item.style) for b in view.children if isinstance(b, ClubButton)] == [
        ("u:apply:45", discord.ButtonStyle.success), ("u:cancel:45", discord.ButtonStyle.danger)]
    merge = Notice("merged", {"from": "bob2", "into": "bob", "games": "", "dropped": 0})
    view = view_for(Preview(17, [], applied=False, merge=merge))
    assert view is not None
    assert [(b.custom_id, b.item.style) for b in view.children if isinstance(b, ClubButton)] == [
        ("m:apply:17", discord.ButtonStyle.success), ("m:cancel:17", discord.ButtonStyle.danger)]
    assert view_for("plain text") is None


class Service:
    """Records what a press asks of the service. Event 40 reported game #3, event 41 issued
    challenge #2 (what buttons posted before games were numbered name them by)."""

    NUMBERS = {40: 3, 41: 2}

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    async def number_of(self, caller: Caller, event_id: int) -> int | None:
        self.calls.append(("number_of", event_id))
        return self.NUMBERS.get(event_id)

    async def leaderboard(self, caller: Caller, ladder: str) -> Leaderboard:
        self.calls.append(("leaderboard", ladder))
        return board(3, ladder)

    async def confirm(self, caller: Caller, game: int) -> str:
        self.calls.append(("confirm", game))
        return "confirmed"

    async def dispute(self, caller: Caller, game: int) -> str:
        self.calls.append(("dispute", game))
        return "disputed"

    async def answer_challenge(self, caller: Caller, accept: bool, challenge: int) -> str:
        self.calls.append(("answer_challenge", accept, challenge))
        return "answered"

    async def apply_correction(self, caller: Caller, game: int | None = None,
                               undo: int | None = None, merge: int | None = None,
                               system: int | None = None, link: int | None = None) -> str:
        self.calls.append(("apply_correction", game, undo, merge, system, link))
        return "applied"

    async def cancel_correction(self, caller: Caller, game: int | None = None,
                                undo: int | None = None, merge: int | None = None,
                                system: int | None = None, link: int | None = None) -> Notice:
        self.calls.append(("cancel_correction", game, undo, merge, system, link))
        if link is not None:
            return Notice("unlink_cancelled")
        if system is not None:
            return Notice("system_cancelled", {"system": "elo"})
        if merge is not None:
            return Notice("merge_cancelled", {"from": "bob2", "into": "bob"})
        if undo is not None:
            return Notice("undo_cancelled", {"id": undo})
        return Notice("correction_cancelled", {"game": game})


@pytest.mark.parametrize(("pressed", "calls", "page"), [
    ("g:confirm:#12", [("confirm", 12)], 0),
    ("g:dispute:#12", [("dispute", 12)], 0),
    ("c:accept:#3", [("answer_challenge", True, 3)], 0),
    ("c:decline:#3", [("answer_challenge", False, 3)], 0),
    ("x:apply:#12", [("apply_correction", 12, None, None, None, None)], 0),
    ("x:cancel:#12", [("cancel_correction", 12, None, None, None, None)], 0),
    ("u:apply:45", [("apply_correction", None, 45, None, None, None)], 0),
    ("u:cancel:45", [("cancel_correction", None, 45, None, None, None)], 0),
    ("m:apply:17", [("apply_correction", None, None, 17, None, None)], 0),
    ("m:cancel:17", [("cancel_correction", None, None, 17, None, None)], 0),
    ("s:apply:52", [("apply_correction", None, None, None, 52, None)], 0),
    ("s:cancel:52", [("cancel_correction", None, None, None, 52, None)], 0),
    ("l:apply:0", [("apply_correction", None, None, None, None, 0)], 0),
    ("l:cancel:0", [("cancel_correction", None, None, None, None, 0)], 0),
    ("t:blitz:2", [("leaderboard", "blitz")], 2),
    # An old button names its game or challenge by its event's id: looked up, then numbered.
    ("g:confirm:40", [("number_of", 40), ("confirm", 3)], 0),
    ("g:dispute:40", [("number_of", 40), ("dispute", 3)], 0),
    ("c:accept:41", [("number_of", 41), ("answer_challenge", True, 2)], 0),
    ("c:decline:41", [("number_of", 41), ("answer_challenge", False, 2)], 0),
    ("x:apply:40", [("number_of", 40), ("apply_correction", 3, None, None, None, None)], 0),
    ("x:cancel:40", [("number_of", 40), ("cancel_correction", 3, None, None, None, None)], 0),
    # ... and an old preview's button naming no game was an undo's (of action 45).
    ("x:apply:45", [("number_of", 45), ("apply_correction", None, 45, None, None, None)], 0),
    ("x:cancel:45", [("number_of", 45), ("cancel_correction", None, 45, None, None, None)], 0),
])
async def test_what_a_press_runs(pressed: str, calls: list[tuple[Any, ...]], page: int) -> None:
    service = Service()
    _, shown = await press(service, CALLER, actions.read(pressed))  # type: ignore[arg-type]
    assert service.calls == calls
    assert shown == page


@pytest.mark.parametrize("pressed", ["g:confirm:45", "g:dispute:45", "c:accept:45",
                                     "c:decline:45"])
async def test_an_old_button_naming_no_game_or_challenge_is_refused(pressed: str) -> None:
    service = Service()
    with pytest.raises(Refusal) as refused:
        await press(service, CALLER, actions.read(pressed))  # type: ignore[arg-type]
    assert (refused.value.key, refused.value.params) == ("bad_command", {"command": pressed})
    assert service.calls == [("number_of", 45)]  # nothing else was run


async def test_an_old_button_confirms_the_game_its_event_reported(tmp_path: Path) -> None:
    """Through the real service: buttons posted before games were numbered name them by their
    report's event id, which is not their number; a press still answers the right one."""
    repository = await SqliteRepository.open(tmp_path / "club.db")
    try:
        service = ClubService(repository, FakeClock(datetime(2024, 3, 1, 19)))

        def member(user: str, moderator: bool = False) -> Caller:
            return Caller("telegram", "-1001", user, user, moderator)

        alice, bob, carol = member("alice"), member("bob"), member("carol")
        for who in (alice, bob, carol):
            await service.register(who)
        first = await service.report(alice, "bob", "win")
        issued = await service.challenge(alice, "carol")
        second = await service.report(carol, "bob", "draw")
        assert isinstance(first, GameResult) and isinstance(second, GameResult)
        assert first.game is not None and second.game is not None
        assert (first.game.id, second.game.id) == (1, 2)
        assert isinstance(issued, Notice) and issued.params["challenge"] == 1

        # The events' ids, as /audit numbers them.
        audit = await service.audit(member("ada", moderator=True), 100)
        assert isinstance(audit, Audit)
        reports = {line.what.params["game"]: line.id for line in audit.lines
                   if line.kind == "game_reported" and line.what is not None}
        [challenge_event] = [line.id for line in audit.lines if line.kind == "challenge_issued"]
        assert set(reports) == {1, 2}
        assert reports[2] not in (1, 2) and challenge_event != 1  # ids are not the numbers

        # bob presses Confirm under carol's report (game #2), posted with its event id.
        old = actions.read(f"g:confirm:{reports[2]}")
        assert old.legacy
        answer, shown = await press(service, bob, old)
        assert shown == 0
        assert isinstance(answer, GameResult) and answer.game is not None
        assert (answer.game.id, answer.game.player_a, answer.game.player_b) == (2, "carol", "bob")
        assert answer.game.status == "confirmed"
        # alice's report (game #1) still waits for bob.
        waiting = await service.pending(bob)
        assert isinstance(waiting, Pending)
        assert [game.id for game in waiting.to_confirm] == [1]
        assert [game.status for game in waiting.to_confirm] == ["pending"]

        # carol accepts alice's challenge #1 by its old button, too.
        accepted, _ = await press(service, carol, actions.read(f"c:accept:{challenge_event}"))
        assert isinstance(accepted, Notice)
        assert (accepted.key, accepted.params["challenge"]) == ("challenge_accepted", 1)

        # The old Confirm under alice's report now confirms game #1.
        answer, _ = await press(service, bob, actions.read(f"g:confirm:{reports[1]}"))
        assert isinstance(answer, GameResult) and answer.game is not None
        assert (answer.game.id, answer.game.player_a, answer.game.status) == (
            1, "alice", "confirmed")
    finally:
        await repository.close()


async def test_a_page_press_answered_with_no_leaderboard_shows_page_0() -> None:
    class Empty(Service):
        async def leaderboard(self, caller: Caller, ladder: str) -> Notice:  # type: ignore[override]
            return Notice("leaderboard_empty", {"ladder": ladder})

    answer, shown = await press(Empty(), CALLER, actions.read("t:main:3"))  # type: ignore[arg-type]
    assert (answer, shown) == (Notice("leaderboard_empty", {"ladder": "main"}), 0)


# -- a club night's round: a board's three results (issue 36) --------------------------------


def round_shown(night: int | None = 120, preview: bool = False, played: int = 3
                ) -> NightRoundShown:
    """Round 2 of night 120: ``played`` boards still played, then one that has its result."""
    lines = [BoardLine(n, f"a{n}", f"b{n}") for n in range(1, played + 1)]
    lines.append(BoardLine(played + 1, "c", "d", result="1-0", game=4))
    return NightRoundShown("main", 2, preview, lines, night=night)


def test_a_board_button_names_its_night_round_and_board() -> None:
    draw = Action.board(120, 2, 3, "draw")
    assert draw is not None and draw.id == "n:draw:1200020003"
    assert actions.board_of_ref(draw.ref) == (120, 2, 3)
    assert (draw.label, draw.params, draw.emphasis) == ("button_draw", {"board": 3},
                                                       Emphasis.NEUTRAL)
    for pressed, verb, label in [("n:first:1200020003", "first", "button_first_wins"),
                                 ("n:draw:1200020003", "draw", "button_draw"),
                                 ("n:second:1200020003", "second", "button_second_wins")]:
        parsed = Action.parse(pressed)
        assert parsed == Action(Group.NIGHT, verb, 1200020003) == Action.board(120, 2, 3, verb)
        # parsed again, the button's label still names its board
        assert parsed is not None and (parsed.label, parsed.params) == (label, {"board": 3})
        assert parsed.id == pressed and re.fullmatch(BUTTON_TEMPLATE, pressed)
    # the same board of another round, or of another night, is another button
    assert len({Action.board(n, r, 3, "draw") for n in (120, 121) for r in (1, 2)}) == 4
    # as large as the 18 digits take: a night's id below 10**11, 999 rounds, 9,999 boards
    largest = Action.board(10**11 - 1, 999, 9_999, "first")
    assert largest is not None and largest.id == "n:first:" + "9" * 18
    assert actions.board_of_ref(largest.ref) == (10**11 - 1, 999, 9_999)
    assert Action.parse(largest.id) == largest
    for beyond in [(10**11, 1, 1), (1, 1_000, 1), (1, 1, 10_000), (0, 1, 1), (1, 0, 1),
                   (1, 1, 0)]:
        assert actions.board_ref(*beyond) is None, beyond
    # a check-in stays what it was; a board's verbs are the night group's alone
    assert Action.parse("n:in:120") == Action(Group.NIGHT, "in", 120)
    assert Action.parse("n:in:120") is not None and Action.parse("n:in:120").params == {}
    for other in ("g:first:1", "n:win:1200020003", "n:first:#1200020003", "x:draw:1"):
        assert Action.parse(other) is None, other


def test_a_button_s_caption_fills_its_label() -> None:
    assert [actions.caption(a) for a in actions_for(round_shown(played=1))[0]] == [
        "1: 1-0", "1: ½-½", "1: 0-1"]
    assert actions.caption(Action.choice(Group.GAME, "confirm", 3)) == text("button_confirm")


def test_a_published_round_has_a_row_for_each_board_still_played() -> None:
    assert ids(actions_for(round_shown())) == [
        [f"n:{verb}:120002000{n}" for verb in ("first", "draw", "second")] for n in (1, 2, 3)]
    # a preview is not played yet; an answer stored before rounds named their night has none
    assert actions_for(round_shown(preview=True)) == []
    assert actions_for(round_shown(night=None)) == []
    assert actions_for(round_shown(played=0)) == []
    # a night too large for the ref keeps /result only
    assert actions_for(round_shown(night=10**11)) == []
    assert actions.stays(Action.board(120, 2, 1, "first"))
    assert actions.stays(Action.choice(Group.NIGHT, "in", 120))
    assert not actions.stays(Action.choice(Group.GAME, "confirm", 3))
    assert not actions.stays(None)


def test_telegram_and_discord_show_a_round_s_buttons_alike() -> None:
    markup = keyboard(round_shown(played=2))
    assert markup is not None
    shown = [[(b.text, b.callback_data) for b in row] for row in markup.inline_keyboard]
    assert shown == [[("1: 1-0", "n:first:1200020001"), ("1: ½-½", "n:draw:1200020001"),
                      ("1: 0-1", "n:second:1200020001")],
                     [("2: 1-0", "n:first:1200020002"), ("2: ½-½", "n:draw:1200020002"),
                      ("2: 0-1", "n:second:1200020002")]]
    view = view_for(round_shown(played=2))
    assert view is not None
    assert [[(b.item.label, b.custom_id) for b in view.children
             if isinstance(b, ClubButton) and b.item.row == n] for n in (0, 1)] == shown


def test_a_round_of_many_boards_keeps_to_each_platform_s_limit() -> None:
    # Telegram takes 100 buttons under a message: 33 boards' rows; Discord five rows
    many = round_shown(played=40)
    markup = keyboard(many)
    assert markup is not None and len(markup.inline_keyboard) == 33
    view = view_for(many)
    assert view is not None and len(view.children) == 15
    assert [b.custom_id for b in view.children if isinstance(b, ClubButton)][-1] == (
        "n:second:1200020005")


class NightService(Service):
    async def board_button(self, caller: Caller, night: int, number: int, board: int,
                           result: str) -> str:
        self.calls.append(("board_button", night, number, board, result))
        return "scored"


@pytest.mark.parametrize(("pressed", "call"), [
    ("n:first:1200020003", ("board_button", 120, 2, 3, "1-0")),
    ("n:draw:1200020003", ("board_button", 120, 2, 3, "½-½")),
    ("n:second:1200020003", ("board_button", 120, 2, 3, "0-1")),
])
async def test_what_a_board_button_runs(pressed: str, call: tuple[Any, ...]) -> None:
    service = NightService()
    answer, _ = await press(service, CALLER, actions.read(pressed))  # type: ignore[arg-type]
    assert (service.calls, answer) == ([call], "scored")


async def test_a_board_button_is_the_moderator_s_result_and_a_player_s_report(
        tmp_path: Path) -> None:
    """Through the real service: a moderator's press counts at once, a player's is their
    report from their own side (the opponent confirms it), anyone else's is refused, and a
    button of a round that is over, or of a closed night, changes nothing."""
    repository = await SqliteRepository.open(tmp_path / "club.db")
    try:
        service = ClubService(repository, FakeClock(datetime(2024, 3, 1, 19)))

        def member(user: str, moderator: bool = False) -> Caller:
            return Caller("telegram", "-1001", user, user, moderator)

        mod = member("mod", moderator=True)
        people = {name: member(name) for name in ("ann", "ben", "cid", "dan", "eve")}
        for who in people.values():
            await service.register(who)
        opened = await service.open_night(mod, "swiss", 2)
        for name in ("ann", "ben", "cid", "dan"):
            await service.enter_night(people[name], "in")
        await service.pair_round(mod)
        first = await service.publish_round(mod)
        assert first.night == opened.params["night"]
        rows = actions_for(first)
        assert len(rows) == 2
        boards = {line.number: line for line in first.boards}

        async def pressing(who: Caller, row: int, verb: str) -> Any:
            [action] = [a for a in rows[row] if a.verb == verb]
            return (await press(service, who, Action.parse(action.id) or action))[0]

        async def refused(who: Caller, row: int, verb: str) -> tuple[str, dict[str, Any]]:
            with pytest.raises(Refusal) as refusal:
                await pressing(who, row, verb)
            return refusal.value.key, refusal.value.params

        # eve plays no board: a moderator's /result, refused
        assert await refused(people["eve"], 0, "first") == ("moderators_only", {})
        # board 1's second player says the first won: their report of a loss
        one = boards[1]
        reported = await pressing(people[one.second], 0, "first")
        assert isinstance(reported, GameResult) and reported.key == "reported"
        assert reported.game is not None
        assert (reported.game.player_a, reported.game.player_b, reported.game.score_a) == (
            one.second, one.first, 0.0)
        assert reported.game.status == "pending"
        # the board waits for the opponent: another press is refused, a moderator's too
        assert await refused(people[one.first], 0, "draw") == (
            "night_board_has_result", {"board": 1})
        assert await refused(mod, 0, "second") == ("night_board_has_result", {"board": 1})
        confirmed = await service.confirm(people[one.first], reported.game.id)
        assert confirmed.game is not None and confirmed.game.status == "confirmed"
        # a moderator's press is /result: counted at once
        two = boards[2]
        assert await pressing(mod, 1, "draw") == Notice("night_result", {
            "board": 2, "first": two.first, "second": two.second, "result": "½-½"})
        second = await service.pair_round(mod)
        assert await refused(mod, 1, "first") == ("night_board_has_result", {"board": 2})
        await service.publish_round(mod)
        # round 1's buttons score no board of round 2
        assert second.round == 2
        assert await refused(mod, 0, "first") == ("night_round_over", {"round": 1})
        assert await refused(people[second.boards[0].first], 0, "first") == (
            "night_round_over", {"round": 1})
        standings = await service.night_standings(mod)
        assert sorted(row.points for row in standings.rows) == [0.0, 0.5, 0.5, 1.0]
        await service.close_night(mod)
        assert await refused(mod, 0, "first") == ("night_closed", {})
    finally:
        await repository.close()
