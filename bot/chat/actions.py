"""Every button the bot shows, defined once for every chat front-end.

A button is an :class:`Action`: what a press does (confirm or dispute a game, accept or decline a
challenge, apply or cancel a correction, an undo or a merge, approve or decline a claim of an
imported record, show a page of a ladder's leaderboard), the message key of its label, and
whether it is the primary or the secondary choice of a pair (front-ends map that to a style or a
colour). :func:`actions_for` gives the buttons that go with an answer, :meth:`Action.parse`
reads a pressed button's id back, and :func:`press` runs the press.

An action's id is what a chat stores with the button (Telegram's callback data, Discord's custom
id): ``g:confirm:#3`` (game #3), ``c:accept:#2`` (challenge #2), ``x:apply:#3`` (the correction
of game #3), ``u:apply:45`` (the undo of action 45, as /audit numbers it), ``m:apply:17`` (the
merge of member 17, by the id of its registration, into another), ``k:approve:40``,
``t:main:2``, ``l:apply:0`` (a chat's merge or unlink), ``n:in:120`` (check in to night
120), ``n:draw:1200020003`` (a draw on board 3 of round 2 of night 120: :func:`board_ref`).
Messages posted long ago carry these
ids, so they never change: a press after an upgrade still works. Before games and challenges
had numbers of their own, their buttons named them by their event's id, without ``#``
(``g:confirm:12``); such a press is ``legacy`` and is looked up by that id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum

from bot.chat.commands import Answer, press_correction
from bot.chat.messages import text
from bot.service.club import Caller, ClubService
from bot.service.errors import Refusal
from bot.service.results import (
    GameResult,
    Leaderboard,
    NightRoundShown,
    Notice,
    Preview,
    PuzzleInvite,
    PuzzlePost,
    PuzzleShown,
    Result,
    SeasonTable,
)

#: leaderboard rows per page
PAGE = 20
#: every button id: its group, then its verb (a page's: the ladder's name, and ladder names never
#: contain ":"), then the game, challenge, claim, action, member or page number. Discord's
#: template for the custom ids of old messages too, so it only grows; a chat's data not matching
#: it is not ours.
ID_PATTERN = (r"(?P<kind>[gcxtkumsplnz]):(?P<action>[a-z0-9_-]{1,32}):(?P<number>#?)"
              r"(?P<ref>[0-9]{1,18})")
_ID = re.compile(ID_PATTERN)


class Group(StrEnum):
    """What a button acts on: the first part of its id."""

    GAME = "g"
    CHALLENGE = "c"
    CORRECTION = "x"
    PAGE = "t"
    CLAIM = "k"
    UNDO = "u"
    MERGE = "m"
    SYSTEM = "s"
    PUZZLE = "p"
    LINK = "l"
    NIGHT = "n"
    #: a season's close, to confirm (issue 38): its ref names the ladder and the season
    SEASON = "z"


#: the groups whose buttons name a game or challenge by its number in the club (``#3``)
NUMBERED = (Group.GAME, Group.CHALLENGE, Group.CORRECTION)


class Emphasis(Enum):
    """How a button stands out: the yes and the no of a choice, or a plain move (paging)."""

    PRIMARY = "primary"
    SECONDARY = "secondary"
    NEUTRAL = "neutral"


#: the verb of a page button (its id names the ladder instead)
SHOW = "show"
#: the verbs of a problem's buttons: have it delivered privately, answer it
SOLVE = "solve"
ANSWER = "answer"
#: the verbs of a board's buttons under a published round of a club night, and the result
#: each records (the first player's score first, as /result reads it)
BOARD_RESULTS = {"first": "1-0", "draw": "½-½", "second": "0-1"}
#: a board button's ref is (night * ROUNDS + round) * BOARDS + board. A round is at most
#: ``nights.MAX_ROUNDS`` (30) and a round's boards fewer than 10,000 (20,000 players), so each
#: part reads back alone; the ref's 18 digits leave a night's id (its opening's event id) below
#: 10**11, and a board beyond these bounds has no buttons (/result still scores it).
ROUNDS = 1_000
BOARDS = 10_000
_LARGEST_NIGHT = 10**18 // (ROUNDS * BOARDS)
#: the choice under every preview: apply it, or cancel it
_APPLY_OR_CANCEL = {"apply": ("button_apply", Emphasis.PRIMARY),
                    "cancel": ("button_cancel", Emphasis.SECONDARY)}
#: the groups whose buttons apply or cancel a kept preview, and how the service names its ref
#: (:meth:`ClubService.apply_correction`)
_PREVIEWS = {Group.CORRECTION: "game", Group.UNDO: "undo", Group.MERGE: "merge",
             Group.SYSTEM: "system", Group.LINK: "link"}
#: each group's verbs, with their label's message key and emphasis
_CHOICES: dict[Group, dict[str, tuple[str, Emphasis]]] = {
    Group.GAME: {"confirm": ("button_confirm", Emphasis.PRIMARY),
                 "dispute": ("button_dispute", Emphasis.SECONDARY)},
    Group.CHALLENGE: {"accept": ("button_accept", Emphasis.PRIMARY),
                      "decline": ("button_decline", Emphasis.SECONDARY)},
    **{group: _APPLY_OR_CANCEL for group in _PREVIEWS},
    Group.CLAIM: {"approve": ("button_approve", Emphasis.PRIMARY),
                  "decline": ("button_decline", Emphasis.SECONDARY)},
    # a problem (by its id; 0: the one closest to the presser's rating): solve it privately,
    # or answer the one shown (Discord opens a form to type the answer in)
    Group.PUZZLE: {SOLVE: ("button_solve", Emphasis.PRIMARY),
                   ANSWER: ("button_answer", Emphasis.PRIMARY)},
    # a club night's opening post: check in (its ref: the night, by its opening's id); a
    # board of its published round: the first wins, a draw, the second wins (its ref:
    # :func:`board_ref`)
    Group.NIGHT: {"in": ("button_in", Emphasis.PRIMARY),
                  "first": ("button_first_wins", Emphasis.NEUTRAL),
                  "draw": ("button_draw", Emphasis.NEUTRAL),
                  "second": ("button_second_wins", Emphasis.NEUTRAL)},
    Group.SEASON: {"close": ("button_close_season", Emphasis.PRIMARY)},
}


@dataclass(frozen=True, slots=True)
class Action:
    """What one press does: ``verb`` on game or challenge #``ref`` (or on the correction of game
    #``ref``, the undo of action ``ref``, the merge of member ``ref``, claim ``ref``), or show
    page ``ref`` of ``ladder``'s leaderboard. A ``legacy`` ref is the id of the game's or
    challenge's event. ``label`` (a message key, with its fields ``params``) and ``emphasis``
    say how the button looks; they are not part of what it does (a page button's id does not
    say whether it pointed back or on, so a parsed one has no label; a parsed board button's
    label names its board again). :func:`caption` is the label as a front-end shows it."""

    group: Group
    verb: str
    ref: int
    ladder: str = ""
    legacy: bool = False
    label: str = field(default="", compare=False)
    emphasis: Emphasis = field(default=Emphasis.NEUTRAL, compare=False)
    params: Mapping[str, object] = field(default_factory=dict, compare=False)

    @classmethod
    def choice(cls, group: Group, verb: str, ref: int, legacy: bool = False) -> Action:
        """One of a pair of choices (confirm or dispute game #``ref``, ...)."""
        label, emphasis = _CHOICES[group][verb]
        params = ({"board": board_of_ref(ref)[2]} if group is Group.NIGHT
                  and verb in BOARD_RESULTS else {})
        return cls(group, verb, ref, legacy=legacy, label=label, emphasis=emphasis,
                   params=params)

    @classmethod
    def board(cls, night: int, number: int, board: int, verb: str) -> Action | None:
        """A button of board ``board`` of round ``number`` of night ``night`` (``verb``: one of
        :data:`BOARD_RESULTS`); None where :func:`board_ref` cannot name the board."""
        ref = board_ref(night, number, board)
        return None if ref is None else cls.choice(Group.NIGHT, verb, ref)

    @classmethod
    def page(cls, ladder: str, page: int, label: str = "") -> Action:
        """Show page ``page`` of ``ladder``'s leaderboard."""
        return cls(Group.PAGE, SHOW, page, ladder, label=label)

    @property
    def key(self) -> str:
        """The middle of its id: the verb, or a page button's ladder."""
        return self.ladder if self.group is Group.PAGE else self.verb

    @property
    def id(self) -> str:
        """What the chat stores with the button and gives back when it is pressed."""
        number = "#" if self.group in NUMBERED and not self.legacy else ""
        return f"{self.group}:{self.key}:{number}{self.ref}"

    @classmethod
    def parse(cls, pressed: str) -> Action | None:
        """The action a pressed button's id names, or None when it names none of ours (Telegram
        does not promise that a callback query's data is any button's)."""
        match = _ID.fullmatch(pressed)
        if match is None:
            return None
        group, key, ref = Group(match["kind"]), match["action"], int(match["ref"])
        numbered = match["number"] == "#"
        if numbered and group not in NUMBERED:
            return None
        if group is Group.PAGE:
            return cls.page(key, ref)
        if key not in _CHOICES[group]:
            return None
        return cls.choice(group, key, ref, legacy=group in NUMBERED and not numbered)


def stays(action: Action | None) -> bool:
    """Whether a press leaves the message it was pressed under as it was, and is answered in a
    message of its own: a club night's buttons, which many press (each member checks in; each
    board is scored by its players or a moderator). Every other button's message shows the
    answer instead."""
    return action is not None and action.group is Group.NIGHT


def caption(action: Action) -> str:
    """A button's label as every front-end shows it, in the language being written."""
    return text(action.label, action.params)


def board_ref(night: int, number: int, board: int) -> int | None:
    """The ref of a board's buttons: night, round and board in one number (see
    :data:`ROUNDS`), so a button never names another round's board; None beyond the bounds."""
    if not (0 < night < _LARGEST_NIGHT and 0 < number < ROUNDS and 0 < board < BOARDS):
        return None
    return (night * ROUNDS + number) * BOARDS + board


def board_of_ref(ref: int) -> tuple[int, int, int]:
    """A board button's night, round and board, from its ref (:func:`board_ref`)."""
    rest, board = divmod(ref, BOARDS)
    night, number = divmod(rest, ROUNDS)
    return night, number, board


def read(pressed: str) -> Action:
    """The action a pressed button's id names; refused (as an unknown command) when it names
    none of ours."""
    action = Action.parse(pressed)
    if action is None:
        raise Refusal("bad_command", command=pressed[:40])
    return action


def page_of(board: Leaderboard, page: int) -> Leaderboard:
    """Page ``page`` (from 0) of a leaderboard: the rows a page button shows."""
    rows = board.rows[page * PAGE:(page + 1) * PAGE]
    return Leaderboard(board.ladder, rows, board.hidden_provisional)


def pages(board: Leaderboard) -> int:
    """How many pages a leaderboard has (at least one)."""
    return max(1, (len(board.rows) + PAGE - 1) // PAGE)


def actions_for(answer: Answer, page: int = 0) -> list[list[Action]]:
    """The buttons that go with an answer, in rows, where a person would press rather than
    type: none for most answers. ``page`` is the leaderboard page the answer shows."""
    if isinstance(answer, GameResult) and answer.key == "reported":
        return [_pair(Group.GAME, "confirm", "dispute", answer.game.id)]
    if isinstance(answer, Notice) and answer.key == "challenge_issued":
        challenge = answer.params["challenge"]  # the service's number: an int
        if isinstance(challenge, int):
            return [_pair(Group.CHALLENGE, "accept", "decline", challenge)]
    if isinstance(answer, Notice) and answer.key == "claim_requested":
        claim = answer.params["claim"]  # the claim's number: an int
        if isinstance(claim, int):
            return [_pair(Group.CLAIM, "approve", "decline", claim)]
    if isinstance(answer, Preview) and not answer.applied:
        group = (Group.UNDO if answer.undo is not None
                 else Group.MERGE if answer.merge is not None
                 else Group.SYSTEM if answer.system is not None
                 else Group.LINK if answer.link is not None else Group.CORRECTION)
        return [_pair(group, "apply", "cancel", answer.game_id)]
    if isinstance(answer, Notice) and answer.key.startswith("night_opened"):
        night = answer.params.get("night")
        if isinstance(night, int):
            return [[Action.choice(Group.NIGHT, "in", night)]]
    if isinstance(answer, NightRoundShown) and not answer.preview and answer.night is not None:
        # one row a board still played, its three results
        found = [[Action.board(answer.night, answer.round, line.number, verb)
                  for verb in BOARD_RESULTS] for line in answer.boards if line.result is None]
        return [[a for a in row if a is not None] for row in found if all(row)]
    if isinstance(answer, SeasonTable) and answer.state == "preview" and not answer.named:
        return [[Action.choice(Group.SEASON, "close", answer.ref)]]
    if isinstance(answer, PuzzleInvite):
        return [[Action.choice(Group.PUZZLE, SOLVE, answer.ref)]]
    if isinstance(answer, PuzzlePost) and answer.card is not None:
        return [[Action.choice(Group.PUZZLE, SOLVE, answer.card.ref)]]
    if isinstance(answer, PuzzleShown):
        return [[Action.choice(Group.PUZZLE, ANSWER, answer.card.ref)]]
    if isinstance(answer, Leaderboard) and page >= 0 and pages(answer) > 1:
        row = []
        if page > 0:
            row.append(Action.page(answer.ladder, page - 1, "button_previous"))
        if page < pages(answer) - 1:
            row.append(Action.page(answer.ladder, page + 1, "button_next"))
        return [row]
    return []


def _pair(group: Group, yes: str, no: str, ref: int) -> list[Action]:
    return [Action.choice(group, yes, ref), Action.choice(group, no, ref)]


async def press(service: ClubService, caller: Caller, action: Action) -> tuple[Result | str, int]:
    """Run a press: the caller acts as themselves, and the service refuses (raises
    :class:`Refusal`) what they may not do. Gives the answer and the leaderboard page it
    shows (0 for any other answer)."""
    if action.legacy:
        action = await _numbered(service, caller, action)
    ref = action.ref
    if action.group is Group.PAGE:
        board = await service.leaderboard(caller, action.ladder)
        return board, ref if isinstance(board, Leaderboard) else 0
    if action.group is Group.GAME and action.verb == "confirm":
        return await service.confirm(caller, ref), 0
    if action.group is Group.GAME and action.verb == "dispute":
        return await service.dispute(caller, ref), 0
    if action.group is Group.CHALLENGE and action.verb in ("accept", "decline"):
        return await service.answer_challenge(caller, action.verb == "accept", ref), 0
    if action.group is Group.CLAIM and action.verb in ("approve", "decline"):
        return await service.claim(caller, action.verb, ref), 0
    if action.group is Group.PUZZLE and action.verb == SOLVE:
        return await service.serve_puzzle(caller, ref=ref or None), 0
    if action.group is Group.NIGHT and action.verb == "in":
        return await service.enter_night(caller, "in", night=ref), 0
    if action.group is Group.NIGHT and action.verb in BOARD_RESULTS:
        night, number, on = board_of_ref(ref)
        return await service.board_button(caller, night, number, on,
                                          BOARD_RESULTS[action.verb]), 0
    if action.group is Group.SEASON and action.verb == "close":
        return await service.close_season(caller, button=ref), 0
    if action.group in _PREVIEWS and action.verb in _APPLY_OR_CANCEL:
        return await press_correction(service, caller, action.verb,
                                      **{_PREVIEWS[action.group]: ref}), 0
    raise Refusal("bad_command", command=action.id[:40])


async def _numbered(service: ClubService, caller: Caller, action: Action) -> Action:
    """A button posted before games and challenges were numbered, as it is posted today: its
    game or challenge by number. An old preview's Apply whose id names no game was an undo's."""
    number = await service.number_of(caller, action.ref)
    if number is not None:
        return Action.choice(action.group, action.verb, number)
    if action.group is Group.CORRECTION:
        return Action.choice(Group.UNDO, action.verb, action.ref)
    raise Refusal("bad_command", command=action.id[:40])
