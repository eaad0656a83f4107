"""Hypothesis strategies: valid club histories of games and membership events."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from ratings_core.model import Game, Join, RatingPeriod, Retire, Return, Step, TeamGame

from .helpers import day

NAMES = [f"p{i}" for i in range(7)]


Drawn = tuple[Game | TeamGame, tuple[str, ...]]


def _history(draw: st.DrawFn, names: list[str], max_steps: int, membership: bool,
             periods: bool, period_games: int,
             game: Callable[[st.DrawFn, list[str], int], Drawn]) -> list[Step]:
    """Steps among ``names``: joins, retirements, returns (``membership``), rating periods of
    up to ``period_games`` games (``periods``) and games drawn by ``game`` among the active
    players at a moment; nobody retired plays, returns only after retiring."""
    known: set[str] = set()
    retired: set[str] = set()
    steps: list[Step] = []
    moment = 0
    for _ in range(draw(st.integers(0, max_steps))):
        moment += draw(st.integers(0, 40))
        kind = draw(st.sampled_from(["game"] * 6 + (["join", "retire", "return"] if membership
                                                   else []) + (["period"] if periods else [])))
        active = [n for n in names if n not in retired]
        if kind == "join":
            fresh = [n for n in names if n not in known]
            if fresh:
                name = draw(st.sampled_from(fresh))
                known.add(name)
                steps.append(Join(name, day(moment)))
        elif kind == "retire":
            candidates = sorted(known - retired)
            if len(candidates) > 2:
                name = draw(st.sampled_from(candidates))
                retired.add(name)
                steps.append(Retire(name, day(moment)))
        elif kind == "return":
            if retired:
                name = draw(st.sampled_from(sorted(retired)))
                retired.discard(name)
                steps.append(Return(name, day(moment)))
        else:
            count = draw(st.integers(1, period_games)) if kind == "period" else 1
            games: list[Game | TeamGame] = []
            for _ in range(count):
                drawn, players = game(draw, active, moment)
                games.append(drawn)
                known.update(players)
            steps.append(RatingPeriod(tuple(games)) if kind == "period" else games[0])
    return steps


@st.composite
def histories(
    draw: st.DrawFn,
    *,
    max_steps: int = 30,
    membership: bool = True,
    periods: bool = True,
    handicaps: bool = False,
) -> list[Step]:
    """A valid sequence of steps: nobody retired plays, returns only after retiring."""

    def game(draw: st.DrawFn, active: list[str], moment: int) -> Drawn:
        a, b = draw(st.lists(st.sampled_from(active), min_size=2, max_size=2, unique=True))
        score = draw(st.sampled_from([0.0, 0.5, 1.0]))
        handicap = draw(st.sampled_from([0.0, 0.0, 1.0, 2.0, -3.0])) if handicaps else 0.0
        seconds = draw(st.sampled_from([5.0, 30.0, 61.0, 400.0]))
        return Game(a, b, score, day(moment), handicap, seconds), (a, b)

    return _history(draw, NAMES, max_steps, membership, periods, 6, game)


@st.composite
def team_histories(
    draw: st.DrawFn,
    *,
    max_steps: int = 30,
    membership: bool = True,
    periods: bool = True,
    handicaps: bool = False,
    uneven: bool = True,
) -> list[Step]:
    """A valid sequence of steps whose games are team games of sides of one to three (even
    sides unless ``uneven``) and games of one against one, with first moves and size handicaps
    (issue 37); nobody retired plays, returns only after retiring."""

    def game(draw: st.DrawFn, active: list[str], moment: int) -> Drawn:
        most = min(3, len(active) // 2)
        size_a = draw(st.integers(1, most))
        size_b = draw(st.integers(1, min(3, len(active) - size_a))) if uneven else size_a
        players = draw(st.lists(st.sampled_from(active), min_size=size_a + size_b,
                                max_size=size_a + size_b, unique=True))
        score = draw(st.sampled_from([0.0, 0.5, 1.0]))
        handicap = draw(st.sampled_from([0.0, 0.0, 1.0, 2.0, -3.0])) if handicaps else 0.0
        first_move = draw(st.sampled_from([-1, 0, 1]))
        size_handicap = draw(st.sampled_from([0.0, 50.0]))
        if size_a == size_b == 1 and draw(st.booleans()):
            return Game(players[0], players[1], score, day(moment), handicap, None,
                        first_move), tuple(players)
        return TeamGame(tuple(players[:size_a]), tuple(players[size_a:]), score, day(moment),
                        handicap, first_move, size_handicap), tuple(players)

    return _history(draw, [f"p{i}" for i in range(9)], max_steps, membership, periods, 4,
                    game)
