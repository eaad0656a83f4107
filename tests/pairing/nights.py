"""Nights for the pairing tests: a builder from a compact notation, random histories for the
property tests, and a brute force over every perfect matching."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from hypothesis import strategies as st

from bot.pairing.matching import Edge
from bot.pairing.model import (
    Absence,
    Board,
    Mode,
    Night,
    Player,
    Result,
    Round,
    Settings,
    Status,
)

RESULTS = {"1-0": Result.FIRST_WINS, "0-1": Result.SECOND_WINS, "=": Result.DRAW,
           "+-": Result.FIRST_FORFEIT_WIN, "-+": Result.SECOND_FORFEIT_WIN, "?": None}


def players(names: str, *, top: float = 2000.0, step: float = 100.0) -> tuple[Player, ...]:
    """One player a letter, rated from ``top`` down by ``step``, numbered in that order."""
    return tuple(Player(k, k.upper(), top - step * i, i + 1) for i, k in enumerate(names))


def round_(number: int, boards: str, **absent: Absence) -> Round:
    """``"a-b 1-0, c-d ="``: boards in order, first player white; ``absent`` by key."""
    made = []
    for i, text in enumerate(t for t in boards.split(",") if t.strip()):
        pair, result = text.split()
        first, second = pair.split("-")
        made.append(Board(i + 1, first, second, RESULTS[result]))
    return Round(number, tuple(made), dict(absent))


def night(people: Sequence[Player], *rounds: Round, mode: Mode = Mode.SWISS,
          forbidden: Sequence[str] = (), **settings: object) -> Night:
    return Night(tuple(people), tuple(rounds), Settings(mode=mode, **settings),  # type: ignore[arg-type]
                 frozenset(frozenset(pair.split("-")) for pair in forbidden))


def perfect_matchings(vertices: Sequence[str], allowed: Mapping[Edge, int]
                      ) -> Iterator[list[Edge]]:
    """Every perfect matching of ``vertices`` over the edges of ``allowed``."""
    if not vertices:
        yield []
        return
    first, rest = vertices[0], vertices[1:]
    for i, other in enumerate(rest):
        edge = frozenset((first, other))
        if edge in allowed:
            for more in perfect_matchings([*rest[:i], *rest[i + 1:]], allowed):
                yield [edge, *more]


@st.composite
def histories(draw: st.DrawFn, *, max_players: int = 10, max_rounds: int = 4,
              mode: Mode = Mode.SWISS, colours: bool = True) -> Night:
    """A night of 2 to ``max_players`` players after 0 to ``max_rounds`` random rounds: random
    pairings (rematches too), results (a few not in yet, a few forfeits), pairing byes, half
    byes and absences; some players paused or out for the next round, a few forbidden pairs."""
    # sampled, not an integer range, so that large fields (the brute force's hard cases) come
    # as often as small ones (hypothesis favours small integers)
    count = draw(st.sampled_from([*range(2, max_players + 1), *range(max_players - 3,
                                                                     max_players + 1)]))
    ratings = draw(st.lists(st.integers(1000, 2400), min_size=count, max_size=count))
    keys = [f"p{i}" for i in range(count)]
    ranked = sorted(zip(keys, ratings, strict=True), key=lambda kr: (-kr[1], kr[0]))
    rounds = []
    for number in range(1, draw(st.sampled_from(range(max_rounds + 1))) + 1):
        order = draw(st.permutations(keys))
        away = set(draw(st.lists(st.sampled_from(keys), max_size=2)))
        present = [k for k in order if k not in away]
        absent = {k: draw(st.sampled_from([Absence.HALF_BYE, Absence.ZERO])) for k in away}
        if len(present) % 2:
            absent[present.pop()] = Absence.PAIRING_BYE
        boards = tuple(
            Board(i // 2 + 1, present[i], present[i + 1],
                  draw(st.sampled_from([*Result, Result.DRAW, Result.FIRST_WINS, None])))
            for i in range(0, len(present), 2))
        rounds.append(Round(number, boards, absent))
    statuses = draw(st.lists(st.sampled_from([Status.IN] * 6 + [Status.PAUSED, Status.OUT]),
                             min_size=count, max_size=count))
    people = tuple(Player(k, k.upper(), float(r), i + 1, statuses[i])
                   for i, (k, r) in enumerate(ranked))
    forbidden = draw(st.lists(st.lists(st.sampled_from(keys), min_size=2, max_size=2,
                                       unique=True), max_size=2))
    return Night(people, tuple(rounds),
                 Settings(mode=mode, colours=colours, seed=draw(st.integers(0, 2**16)),
                          bye_points=draw(st.sampled_from([1.0, 0.5]))),
                 frozenset(frozenset(f) for f in forbidden))
