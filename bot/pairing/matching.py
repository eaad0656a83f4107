"""One maximum-weight perfect matching whose weights pack several criteria by priority: the
shared machinery of the matching engines (``swiss``, ``mcmahon``, ``nearest``; issue 36).

Each criterion (a *tier*) gives every possible board a penalty, a small integer (0: nothing to
regret). A matching is judged tier by tier, most important first, by the sum of its boards'
penalties, as a dictionary orders words: a single point of an important tier outweighs any sum
of the tiers below it. That order is packed into one integer weight per board, and
``networkx.max_weight_matching`` (maxcardinality: everyone is paired if anyone can be) finds
the best matching at once.

Source: J. Edmonds, "Paths, trees, and flowers" (1965), and Z. Galil, "Efficient algorithms for
finding maximum matching in graphs" (1986), as networkx implements them (O(n³), integer
arithmetic for integer weights, so the packing is exact). Weighted matching for Swiss pairings:
the approach of bbpPairings (B. Bierema) and of C. Olafsson, "A Weighted Matching Approach to
Swiss Tournaments" (Computers & Operations Research, 1990).

With an odd number of players, a virtual vertex :data:`BYE` joins the graph: whoever is matched
with it gets the pairing bye, so who gets the bye is chosen in the same optimisation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence

from .errors import FORBIDDEN, TOO_FEW_PLAYERS, NoPairing
from .model import Player

#: the virtual opponent of the pairing bye (no player key looks like it)
BYE = "(bye)"

Edge = frozenset[str]


def edges(vertices: Sequence[str], forbidden: Iterable[frozenset[str]]) -> list[Edge]:
    """Every board a matching may use among ``vertices`` (with :data:`BYE` among them where the
    number is odd), in a fixed order: a forbidden pair is no edge at all."""
    never = set(forbidden)
    return [frozenset((a, b)) for i, a in enumerate(vertices) for b in vertices[i + 1:]
            if frozenset((a, b)) not in never]


def with_bye(keys: Sequence[str]) -> list[str]:
    """The matching's vertices: the players, and :data:`BYE` when their number is odd."""
    if len(keys) < 2:
        raise NoPairing(TOO_FEW_PLAYERS, *keys)
    return [*keys, BYE] if len(keys) % 2 else list(keys)


def pack(candidates: Sequence[Edge], tiers: Sequence[Mapping[Edge, int]],
         boards: int) -> dict[Edge, int]:
    """One weight per edge from ``tiers`` (most important first; an edge missing from a tier
    has penalty 0 there). ``boards`` is how many edges a perfect matching has.

    A tier's unit is worth more than the largest sum the tiers below can reach over a whole
    matching (``boards`` times their largest penalty, plus one), so maximising the total
    weight of a perfect matching minimises its penalties tier by tier. The weight is a
    constant above the largest penalty minus the edge's packed penalty: positive, and equal
    totals for equal penalties, since every perfect matching has the same number of edges."""
    unit = 1
    units = []
    for tier in reversed(tiers):
        units.append(unit)
        largest = max((tier.get(e, 0) for e in candidates), default=0)
        if any(tier.get(e, 0) < 0 for e in candidates):
            raise ValueError("tiers must hold penalties of 0 or more")
        unit *= boards * largest + 1
    units.reverse()
    penalty = {e: sum(u * t.get(e, 0) for u, t in zip(units, tiers, strict=True))
               for e in candidates}
    ceiling = unit  # above any single edge's packed penalty
    return {e: ceiling - p for e, p in penalty.items()}


def perfect_matching(vertices: Sequence[str], weights: Mapping[Edge, int]) -> list[Edge]:
    """The maximum-weight perfect matching of ``vertices`` over the edges of ``weights``, in
    the order of ``vertices``; :class:`~bot.pairing.errors.NoPairing` (forbidden) when no
    perfect matching exists. The graph is built in a fixed order, so the same weights always
    give the same matching."""
    # Imported here, not with the module: the ladder settings import the tie-breaks (and so
    # this module), and `clubrating replay` would spend 70 ms of its start loading networkx.
    import networkx as nx  # type: ignore[import-untyped]

    order = {v: i for i, v in enumerate(vertices)}
    graph = nx.Graph()
    graph.add_nodes_from(vertices)
    for edge, weight in weights.items():
        a, b = sorted(edge, key=order.__getitem__)
        graph.add_edge(a, b, weight=weight)
    found = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(found) != len(vertices):
        raise NoPairing(FORBIDDEN, *[v for v in vertices if v != BYE])
    return sorted((frozenset(pair) for pair in found), key=lambda e: min(order[v] for v in e))


def boards_of(matching: Iterable[Edge], ranked: Sequence[Player]
              ) -> tuple[list[tuple[Player, Player]], str | None]:
    """A perfect matching as pairs of players, each the better ranked first (``ranked``'s
    order), and the player matched with :data:`BYE` (None: nobody)."""
    position = {p.key: i for i, p in enumerate(ranked)}
    bye: str | None = None
    pairs: list[tuple[Player, Player]] = []
    for edge in matching:
        if BYE in edge:
            (bye,) = edge - {BYE}
            continue
        a, b = sorted(edge, key=position.__getitem__)
        pairs.append((ranked[position[a]], ranked[position[b]]))
    return pairs, bye


def total(matching: Iterable[Edge], weights: Mapping[Edge, int]) -> int:
    """A matching's total weight (the quantity the engines maximise)."""
    return sum(weights[e] for e in matching)


def lot(seed: int, edge: Edge, span: int = 1000) -> int:
    """The seeded lot of an edge: a number in ``[0, span)`` fixed by the seed and the two keys
    (blake2b, not Python's ``hash``, which changes from one process to the next)."""
    text = f"{seed}\x00" + "\x00".join(sorted(edge))
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % span
