"""Small builders shared by the tests."""

from datetime import datetime, timedelta

from ratings_core.model import Game, PlayerState

DAY0 = datetime(2024, 1, 1)


def day(n: int) -> datetime:
    return DAY0 + timedelta(days=n)


def established(rating: float, games: int = 100) -> PlayerState:
    return PlayerState(rating=rating, games=games, peak=rating)


def game(a: str, b: str, score: float, n: int = 0, handicap: float = 0.0) -> Game:
    return Game(a, b, score, day(n), handicap)
