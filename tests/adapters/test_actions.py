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
    GameLine,
    GameResult,
    Leaderboard,
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
    assert BUTTON_TEMPLATE == (r"(?P<kind>[gcxtkumspln]):(?P<action>[a-z0-9_-]{1,32}):"
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
