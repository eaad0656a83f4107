"""The one definition of the bot's buttons (``bot.chat.actions``): ids, parsing, the rows that
go with an answer, what a press runs, and how each front-end shows them."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.adapters.discord import ClubButton, view_for
from bot.adapters.discord_render import BUTTON_TEMPLATE
from bot.adapters.telegram import keyboard
from bot.chat import actions
from bot.chat.actions import PAGE, Action, Emphasis, Group, actions_for, page_of, press
from bot.chat.messages import text
from bot.service.club import Caller
from bot.service.errors import Refusal
from bot.service.results import GameLine, GameResult, Leaderboard, Notice, Preview, Standing

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
    ("g:confirm:12", Action(Group.GAME, "confirm", 12)),
    ("g:dispute:7", Action(Group.GAME, "dispute", 7)),
    ("c:accept:3", Action(Group.CHALLENGE, "accept", 3)),
    ("c:decline:3", Action(Group.CHALLENGE, "decline", 3)),
    ("x:apply:12", Action(Group.CORRECTION, "apply", 12)),
    ("x:cancel:12", Action(Group.CORRECTION, "cancel", 12)),
    ("t:main:2", Action(Group.PAGE, actions.SHOW, 2, "main")),
    ("t:blitz-9_x:0", Action(Group.PAGE, actions.SHOW, 0, "blitz-9_x")),
])
def test_the_ids_of_posted_messages_parse_to_their_action(pressed: str,
                                                           expected: Action) -> None:
    parsed = Action.parse(pressed)
    assert parsed == expected
    assert parsed is not None and parsed.id == pressed


@pytest.mark.parametrize("pressed", [
    "", "hello", "g:confirm:", "g:confirm:x", "z:do:1", "g:accept:1", "c:confirm:1",
    "x:undo:1", "g:confirm:1:2", "g:confirm:-1", "g:confirm:1 ", "g:confirm:\u0661",
    "t:Main:0", "t::0", "t:" + "a" * 33 + ":0", "g:confirm:" + "9" * 19, "t:main:0\n",
])
def test_anything_else_is_not_ours(pressed: str) -> None:
    assert Action.parse(pressed) is None
    with pytest.raises(Refusal) as refused:
        actions.read(pressed)
    assert refused.value.key == "bad_command"
    assert refused.value.params == {"command": pressed[:40]}


def test_the_limits_are_those_of_today() -> None:
    assert Action.parse("t:" + "a" * 32 + ":" + "9" * 18) is not None
    # Discord's template for old messages' custom ids: today's, with the claims' group "k"
    # (issue 15) added, so every id it matched before it matches still.
    assert BUTTON_TEMPLATE == r"(?P<kind>[gcxtk]):(?P<action>[a-z0-9_-]{1,32}):(?P<ref>[0-9]{1,18})"


def test_the_rows_that_go_with_an_answer() -> None:
    assert ids(actions_for(reported(7))) == [["g:confirm:7", "g:dispute:7"]]
    challenge = Notice("challenge_issued", {"challenge": 5})
    assert ids(actions_for(challenge)) == [["c:accept:5", "c:decline:5"]]
    assert ids(actions_for(Preview(4, [], applied=False))) == [["x:apply:4", "x:cancel:4"]]
    assert actions_for(Preview(4, [], applied=True)) == []
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
        [(text("button_confirm"), "g:confirm:7"), (text("button_dispute"), "g:dispute:7")]]
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
        ("x:apply:4", discord.ButtonStyle.success), ("x:cancel:4", discord.ButtonStyle.danger)]
    assert view_for("plain text") is None


class Service:
    """Records what a press asks of the service."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

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

    async def apply_correction(self, caller: Caller, game: int) -> str:
        self.calls.append(("apply_correction", game))
        return "applied"

    async def cancel_correction(self, caller: Caller, game: int) -> Notice:
        self.calls.append(("cancel_correction", game))
        return Notice("correction_cancelled", {"game": game})


@pytest.mark.parametrize(("pressed", "call", "page"), [
    ("g:confirm:12", ("confirm", 12), 0),
    ("g:dispute:12", ("dispute", 12), 0),
    ("c:accept:3", ("answer_challenge", True, 3), 0),
    ("c:decline:3", ("answer_challenge", False, 3), 0),
    ("x:apply:12", ("apply_correction", 12), 0),
    ("x:cancel:12", ("cancel_correction", 12), 0),
    ("t:blitz:2", ("leaderboard", "blitz"), 2),
])
async def test_what_a_press_runs(pressed: str, call: tuple[Any, ...], page: int) -> None:
    service = Service()
    _, shown = await press(service, CALLER, actions.read(pressed))  # type: ignore[arg-type]
    assert service.calls == [call]
    assert shown == page


async def test_a_page_press_answered_with_no_leaderboard_shows_page_0() -> None:
    class Empty(Service):
        async def leaderboard(self, caller: Caller, ladder: str) -> Notice:  # type: ignore[override]
            return Notice("leaderboard_empty", {"ladder": ladder})

    answer, shown = await press(Empty(), CALLER, actions.read("t:main:3"))  # type: ignore[arg-type]
    assert (answer, shown) == (Notice("leaderboard_empty", {"ladder": "main"}), 0)
