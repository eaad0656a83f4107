"""The ``swiss`` mode: our own Swiss engine, one maximum-weight matching a round (issue 36).

The rules, in our words, most important first (each is a tier of
:mod:`bot.pairing.matching`, so no amount of a later rule outweighs one step of an earlier one):

1. *Byes, absolutely* (FIDE C.04.1 d, and the issue's ERRATA): nobody gets a second pairing
   bye while someone eligible has had none; nobody who leads (the highest score among the
   eligible players, once a round is out) gets the bye while someone who does not lead can,
   unless that would be a second bye: "never to a leader" gives way to "at most one bye".
2. *No rematch* (C.04.1 b): two players meet once a night, unless no full pairing exists
   without it. Forbidden pairs (``/forbid``) are no edge at all: never paired.
3. *The bye to the lowest placed* (C.04.3 C.5, "minimise the score of the bye's assignee"):
   placed by score, then rating, then pairing number; in round 1 that is the lowest rated.
4. *Score groups* (C.04.1 e): players meet their own score group where they can. The sum of
   the boards' squared score differences (in half points) is as small as it can be: one player
   floating a whole point costs as much as four floating half a point.
5. *Top half against bottom half* (C.04.3 B.2, the Dutch system's S1 against S2): within a
   score group of ``g`` players placed ``0 .. g-1``, players ``i`` and ``j`` meet best when
   ``|i - j|`` is ``g/2``; a floater is best the lowest of its group, meeting the highest of
   the group below.
6. *Colours* (chess only, :mod:`bot.pairing.colours`): as few clashing colour preferences as
   can be, the absolute ones first.
7. *The lot*: a number from ``Settings.seed`` and the pair's keys, so that equal choices are
   settled by the seed and the same night always gives the same round.

Boards are ordered by the higher score of the pair, then the better placed of the two (the
order FIDE's general handling rules, C.04.2, give boards, less its middle step, the sum of the
two scores).

Departure from FIDE: C.04.1 f-g (colour difference and runs of a colour) are wishes here, not
absolute rules, and the Dutch system's sequence of transpositions is replaced by one global
optimum of the criteria above (for the FIDE Dutch system itself, the ``fide-dutch`` mode).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import reasons
from .colours import Colour, allocate, clash, histories, preference
from .matching import BYE, Edge, boards_of, edges, lot, pack, perfect_matching, with_bye
from .model import Absence, Board, Night, Pairing, Player, eligible, met, scores


def pair(night: Night) -> Pairing:
    """The next round of a ``swiss`` night: see the module's rules."""
    points = scores(night)
    field = Field.of(night, points)
    found = match(night, field, colours=night.settings.colours)
    initial: Colour = "W" if night.settings.seed % 2 == 0 else "B"
    history = histories(night)
    boards: list[Board] = []
    why: dict[int, str] = {}
    for number, (higher, lower) in enumerate(found.pairs, start=1):
        clashed = False
        first, second = higher, lower
        if night.settings.colours:
            first, second, clashed = allocate(higher, lower, history, initial)
        boards.append(Board(number, first.key, second.key))
        reason = field.reason(higher, lower, clashed=clashed)
        if reason is not None:
            why[number] = reason
    return Pairing(tuple(boards), bye=found.bye, reasons=why)


@dataclass(frozen=True, slots=True)
class Field:
    """The players to pair as the rules read them: the eligible players in placement order
    (score, then rating, then pairing number), their scores in half points, their score groups,
    who met whom tonight, who had a pairing bye, and who leads."""

    ranked: tuple[Player, ...]
    half_points: dict[str, int]
    position: dict[str, int]
    groups: dict[int, tuple[str, ...]]
    in_group: dict[str, int]
    met: frozenset[Edge]
    had_bye: frozenset[str]
    leaders: frozenset[str]
    forbidden: frozenset[Edge]
    seed: int

    @classmethod
    def of(cls, night: Night, points: Mapping[str, float]) -> Field:
        """The field of ``night``'s next round, placed by ``points`` (tonight's points, or
        McMahon scores)."""
        ranked = tuple(sorted(eligible(night), key=lambda p: (-points[p.key], -p.rating,
                                                               p.number)))
        # scores count in half points: integers, so the weights stay exact
        half = {p.key: round(2 * points[p.key]) for p in ranked}
        groups: dict[int, list[str]] = {}
        for p in ranked:
            groups.setdefault(half[p.key], []).append(p.key)
        byes = {key for r in night.rounds for key, a in r.absent.items()
                if a is Absence.PAIRING_BYE}
        # a leader: the highest score among the eligible, once a round is out (ERRATA)
        top = max(half.values(), default=0)
        leaders = {k for k, v in half.items() if v == top} if night.rounds else set()
        in_group = {key: i for g in groups.values() for i, key in enumerate(g)}
        return cls(ranked, half, {p.key: i for i, p in enumerate(ranked)},
                   {s: tuple(g) for s, g in groups.items()}, in_group, frozenset(met(night)),
                   frozenset(byes), frozenset(leaders), night.forbidden, night.settings.seed)

    def natural(self, key: str) -> str | None:
        """The opponent the top-half-against-bottom-half rule gives ``key`` in their score
        group (None alone in it): the player half the group below, or above, them."""
        group = self.groups[self.half_points[key]]
        size, i = len(group), self.in_group[key]
        if size < 2:
            return None
        half = size // 2
        return group[i + half] if i < half else group[i - half]

    def reason(self, higher: Player, lower: Player, *, clashed: bool) -> str | None:
        """The board's reason (:mod:`bot.pairing.reasons`), the first that holds."""
        pair = frozenset((higher.key, lower.key))
        if pair in self.met:
            return reasons.REMATCH
        for one, other in ((higher.key, lower.key), (lower.key, higher.key)):
            natural = self.natural(one)
            if natural not in (None, other) and frozenset((one, natural)) in self.met:
                return reasons.REMATCH_AVOIDED
        if self.half_points[higher.key] != self.half_points[lower.key]:
            return reasons.SCORE_GROUP
        return reasons.COLOUR if clashed else None


@dataclass(frozen=True, slots=True)
class Matched:
    """A matching's boards as (better placed, other) in board order, and the bye."""

    pairs: tuple[tuple[Player, Player], ...]
    bye: str | None


def weights(night: Night, field: Field, *, colours: bool) -> tuple[list[str], dict[Edge, int]]:
    """The matching's vertices (the eligible players in placement order, and :data:`BYE` when
    they are odd) and every allowed edge's packed weight: what :func:`match` maximises, open
    for the tests to check against a brute force."""
    vertices = with_bye([p.key for p in field.ranked])
    candidates = edges(vertices, field.forbidden)
    history = histories(night) if colours else {}
    prefer = {k: preference(h) for k, h in history.items()}
    absolute: dict[Edge, int] = {}
    rematch: dict[Edge, int] = {}
    bye: dict[Edge, int] = {}
    score: dict[Edge, int] = {}
    closeness: dict[Edge, int] = {}
    colour: dict[Edge, int] = {}
    drawn: dict[Edge, int] = {}
    bottom = len(field.ranked) - 1
    everyone_had_one = field.had_bye >= {p.key for p in field.ranked}
    for edge in candidates:
        drawn[edge] = lot(field.seed, edge)
        if BYE in edge:
            (key,) = edge - {BYE}
            # 1: a second bye (2) outweighs a leader's bye (1): ERRATA, "never to a leader"
            # gives way to "at most one bye"
            if key in field.had_bye and not everyone_had_one:
                absolute[edge] = 2
            elif key in field.leaders and not everyone_had_one:
                absolute[edge] = 1
            # 3: the lowest placed player first
            bye[edge] = bottom - field.position[key]
            continue
        a, b = sorted(edge, key=field.position.__getitem__)
        if edge in field.met:
            rematch[edge] = 1
        score[edge] = (field.half_points[a] - field.half_points[b]) ** 2
        closeness[edge] = _closeness(field, a, b)
        if colours:
            colour[edge] = clash(prefer[a], prefer[b])
    tiers = [absolute, rematch, bye, score, closeness, colour, drawn]
    return vertices, pack(candidates, tiers, len(vertices) // 2)


def _closeness(field: Field, a: str, b: str) -> int:
    """Rule 5: how far ``a`` (better placed) and ``b`` are from the top half meeting the
    bottom half. Same group of ``g``, places ``i < j``: ``(2(j - i) - g)²``, zero when ``b``
    sits half the group below ``a``. Different groups: how far ``a`` is from the bottom of its
    group plus how far ``b`` is from the top of its own, squared."""
    upper = field.groups[field.half_points[a]]
    lower = field.groups[field.half_points[b]]
    i, j = field.in_group[a], field.in_group[b]
    if upper is lower:
        return (2 * (j - i) - len(upper)) ** 2
    return (len(upper) - 1 - i + j) ** 2


def match(night: Night, field: Field, *, colours: bool) -> Matched:
    """The best matching of ``field`` under the rules (:func:`weights`), as boards in order:
    by the higher score of the pair, then the better placed player."""
    vertices, packed = weights(night, field, colours=colours)
    pairs, bye = boards_of(perfect_matching(vertices, packed), field.ranked)
    pairs.sort(key=lambda ab: (-field.half_points[ab[0].key], field.position[ab[0].key]))
    return Matched(tuple(pairs), bye)
