"""The ``nearest`` mode: each player meets the closest rating available, whatever tonight's
score (issue 36): casual club nights where everyone wants an even game.

The rules, in our words, most important first (tiers of :mod:`bot.pairing.matching`):

1. *The bye* to the lowest-rated eligible player who has had no bye tonight (everyone had one:
   the lowest rated).
2. *No rematch* tonight, unless no full pairing exists without it; forbidden pairs never.
3. *The closest ratings*: the sum of the boards' squared rating differences is as small as it
   can be (squared, so that two games 100 points apart beat one of 0 and one of 200).
4. *The lot* of ``Settings.seed``.

Boards are ordered by the higher rating of the pair; colours (chess) as in the swiss mode
(:mod:`bot.pairing.colours`, FIDE C.04.3 Article E), else the higher rated first.

Source: the issue's contract (there is no published standard for this mode); the matching and
the colour rules as cited in :mod:`bot.pairing.matching` and :mod:`bot.pairing.colours`.
"""

from __future__ import annotations

from . import reasons
from .colours import Colour, allocate, histories
from .matching import BYE, Edge, boards_of, edges, lot, pack, perfect_matching, with_bye
from .model import Absence, Board, Night, Pairing, Player, eligible, met


def pair(night: Night) -> Pairing:
    """The next round of a ``nearest`` night: see the module's rules."""
    # highest rating first; the pairing number breaks equal ratings
    ranked = sorted(eligible(night), key=lambda p: (-p.rating, p.number))
    vertices, packed = weights(night, ranked)
    already = met(night)
    pairs, bye = boards_of(perfect_matching(vertices, packed), ranked)
    position = {p.key: i for i, p in enumerate(ranked)}
    pairs.sort(key=lambda ab: position[ab[0].key])
    initial: Colour = "W" if night.settings.seed % 2 == 0 else "B"
    history = histories(night)
    boards: list[Board] = []
    why: dict[int, str] = {}
    for number, (higher, lower) in enumerate(pairs, start=1):
        first, second, clashed = higher, lower, False
        if night.settings.colours:
            first, second, clashed = allocate(higher, lower, history, initial)
        boards.append(Board(number, first.key, second.key))
        reason = _reason(ranked, already, higher, lower, bye, clashed)
        if reason is not None:
            why[number] = reason
    return Pairing(tuple(boards), bye=bye, reasons=why)


def weights(night: Night, ranked: list[Player]) -> tuple[list[str], dict[Edge, int]]:
    """The matching's vertices and every allowed edge's packed weight (see the rules)."""
    vertices = with_bye([p.key for p in ranked])
    candidates = edges(vertices, night.forbidden)
    rating = {p.key: p.rating for p in ranked}
    had_bye = {k for r in night.rounds for k, a in r.absent.items() if a is Absence.PAIRING_BYE}
    everyone_had_one = had_bye >= set(rating)
    from_bottom = {p.key: len(ranked) - 1 - i for i, p in enumerate(ranked)}
    already = met(night)
    bye: dict[Edge, int] = {}
    rematch: dict[Edge, int] = {}
    distance: dict[Edge, int] = {}
    drawn: dict[Edge, int] = {}
    for edge in candidates:
        drawn[edge] = lot(night.settings.seed, edge)
        if BYE in edge:
            (key,) = edge - {BYE}
            second = key in had_bye and not everyone_had_one
            bye[edge] = (len(ranked) if second else 0) + from_bottom[key]
            continue
        a, b = edge
        rematch[edge] = 1 if edge in already else 0
        distance[edge] = round(abs(rating[a] - rating[b])) ** 2
    return vertices, pack(candidates, [bye, rematch, distance, drawn], len(vertices) // 2)


def _reason(ranked: list[Player], already: set[frozenset[str]], higher: Player, lower: Player,
            bye: str | None, clashed: bool) -> str | None:
    """The board's reason: a rematch; or a player's nearest rating (among the others paired)
    was met already; or a colour clash."""
    if frozenset((higher.key, lower.key)) in already:
        return reasons.REMATCH
    others = [p for p in ranked if p.key != bye]
    for one, other in ((higher, lower), (lower, higher)):
        nearest = min((p for p in others if p.key != one.key),
                      key=lambda p: (abs(p.rating - one.rating), p.number))
        if nearest.key != other.key and frozenset((one.key, nearest.key)) in already:
            return reasons.REMATCH_AVOIDED
    return reasons.COLOUR if clashed else None
