"""Colours for chess nights (``Settings.colours``): each player's colour history, their colour
preference, and who gets white on a board (issue 36). ``first`` of a board is white.

Source: FIDE Handbook C.04.3, the Dutch system (2017 rules), Article A.6 (colour preferences)
and Article E (colour allocation); C.04.1 f-g (no colour difference beyond two, no colour three
times running), which this engine treats as strong wishes, not absolute rules (departure: a club
night is short, and a matching with no rematch matters more to it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .model import Night, Player

Colour = Literal["W", "B"]

#: the strengths of a preference (C.04.3 A.6): none (no game yet), mild, strong, absolute
NONE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3


def histories(night: Night) -> dict[str, tuple[Colour, ...]]:
    """Each player's colours tonight, oldest first. A forfeited board gave no colour (the game
    was not played, and C.04.3 A.6 reads colours from the games played); a board whose result is
    not in yet did (the game is on)."""
    played: dict[str, list[Colour]] = {p.key: [] for p in night.players}
    for round_ in night.rounds:
        for board in round_.boards:
            if board.result is not None and board.result.forfeit:
                continue
            played[board.first].append("W")
            played[board.second].append("B")
    return {key: tuple(colours) for key, colours in played.items()}


@dataclass(frozen=True, slots=True)
class Preference:
    """The colour a player should get next and how much (``colour`` None: no preference), and
    their colour difference (whites minus blacks)."""

    colour: Colour | None
    strength: int
    difference: int


def preference(history: Sequence[Colour]) -> Preference:
    """C.04.3 A.6, in our words: with no game, no preference. A colour difference beyond one
    either way, or the same colour in the last two games, makes the other colour absolute; a
    difference of one makes it strong; at zero, the colour opposite the last game is mild."""
    difference = history.count("W") - history.count("B")
    if not history:
        return Preference(None, NONE, 0)
    other: Colour = "B" if history[-1] == "W" else "W"
    if difference > 1 or difference < -1:
        return Preference("B" if difference > 0 else "W", ABSOLUTE, difference)
    if len(history) >= 2 and history[-1] == history[-2]:
        return Preference(other, ABSOLUTE, difference)
    if difference != 0:
        return Preference("B" if difference > 0 else "W", STRONG, difference)
    return Preference(other, MILD, difference)


def clash(a: Preference, b: Preference) -> int:
    """What pairing ``a`` with ``b`` costs in colours: nothing when their preferences differ or
    one has none; else the weaker of the two preferences, squared (one of them will not get
    their colour: an absolute preference lost costs far more than a mild one)."""
    if a.colour is None or b.colour is None or a.colour != b.colour:
        return 0
    return min(a.strength, b.strength) ** 2


def allocate(higher: Player, lower: Player, colours: dict[str, tuple[Colour, ...]],
             initial: Colour) -> tuple[Player, Player, bool]:
    """White and black of a board of ``higher`` (the higher ranked) and ``lower``, and whether
    one of them did not get the colour they wanted. ``initial`` is the night's initial colour,
    drawn by lot before the first round (C.04.3 E.5; here by ``Settings.seed``'s parity).

    C.04.3 Article E, in order, in our words: (E.1) give both their preferences; (E.2) else the
    stronger preference wins (both absolute: the wider colour difference); (E.3) else go back
    through their latest games to the last one where their colours differed, and give each the
    other colour than then; (E.4) else the higher ranked player gets their preference; (E.5)
    else the higher ranked player gets the initial colour if their pairing number is odd, the
    other one if even."""
    mine, theirs = preference(colours[higher.key]), preference(colours[lower.key])
    white = _white_for_higher(mine, theirs, colours[higher.key], colours[lower.key],
                              initial if higher.number % 2 else _other(initial))
    clashed = clash(mine, theirs) > 0
    return (higher, lower, clashed) if white else (lower, higher, clashed)


def _white_for_higher(mine: Preference, theirs: Preference, my_colours: Sequence[Colour],
                      their_colours: Sequence[Colour], by_number: Colour) -> bool:
    # E.1: no clash, each gets theirs (one side may have none: the other decides)
    if mine.colour is not None and mine.colour != theirs.colour:
        return mine.colour == "W"
    if mine.colour is None and theirs.colour is not None:
        return theirs.colour == "B"
    if mine.colour is None:
        return by_number == "W"  # E.5: neither has played
    # E.2: the stronger preference wins
    if mine.strength != theirs.strength:
        winner = mine if mine.strength > theirs.strength else theirs
        return (winner is mine) == (winner.colour == "W")
    if mine.strength == ABSOLUTE and abs(mine.difference) != abs(theirs.difference):
        wider_is_mine = abs(mine.difference) > abs(theirs.difference)
        return wider_is_mine == (mine.colour == "W")
    # E.3: back to the latest game where their colours differed, each takes the other colour
    for own, other in zip(reversed(my_colours), reversed(their_colours), strict=False):
        if own != other:
            return own == "B"
    # E.4: the higher ranked player's preference
    return mine.colour == "W"


def _other(colour: Colour) -> Colour:
    return "B" if colour == "W" else "W"
