"""Shogi Club 24 and TAISEN linear Elo (seed 002, SPEC 3.3 and 3.4)."""

import pytest

from ratings_core.linear import LinearElo, TaisenElo, linear_change
from ratings_core.replay import replay
from tests.helpers import established, game

SHOGI24 = dict(k=32.0, min_change=1, max_change=31)


def test_shogi_club_24_example() -> None:
    # Seed 002: 1500 beats 1700 -> 16 + 0.04 * 200 = 24 each way.
    result = replay(
        LinearElo(), [game("A", "B", 1.0)], players={"A": established(1500), "B": established(1700)}
    )
    assert result.players["A"].rating == 1524
    assert result.players["B"].rating == 1676


@pytest.mark.parametrize(
    ("winner", "loser", "gain"),
    [
        (1500, 1700, 24),
        (1700, 1500, 8),  # 16 - 0.04 * 200
        (1500, 2300, 31),  # 48 clamped to 31
        (2300, 1500, 1),  # -16 clamped to 1: a win always gains at least 1
        (1500, 1512.5, 17),  # 16.5 rounds half up
    ],
)
def test_shogi24_changes_are_rounded_and_clamped(winner: float, loser: float, gain: int) -> None:
    assert linear_change(winner, loser, 1.0, **SHOGI24) == gain
    assert linear_change(loser, winner, 0.0, **SHOGI24) == -gain


def test_draw_moves_the_lower_rated_player_up() -> None:
    assert linear_change(1500, 1700, 0.5, **SHOGI24) == 8
    assert linear_change(1700, 1500, 0.5, **SHOGI24) == -8
    assert linear_change(1600, 1600, 0.5, **SHOGI24) == 0


def test_taisen_k24_with_handicap_points() -> None:
    kw = dict(k=24.0, min_change=1, max_change=23)
    # Without handicap the weaker side's win is worth 12 + 0.03 * 200 = 18.
    assert linear_change(1500, 1700, 1.0, **kw) == 18
    # Receiving 100 handicap points (handicap -100 from the receiver's side), it counts less.
    assert linear_change(1500, 1700, 1.0, handicap=-100, **kw) == 15
    players = {"weak": established(1500), "strong": established(1700)}
    result = replay(TaisenElo(), [game("strong", "weak", 0.0, handicap=100)], players=players)
    assert result.players["weak"].rating == 1515
    assert result.players["strong"].rating == 1685
