"""Pictures: the leaderboard card and the rating chart, drawn with matplotlib's Agg backend.

``data`` turns the service's answers into what is plotted; ``card`` and ``chart`` draw it as PNG
bytes (pure functions, safe in worker threads: call them through ``asyncio.to_thread``);
``pictures`` names and captions them for the front-ends and the scheduler.
"""

from .card import card_size, leaderboard_card
from .chart import chart_size, rating_chart
from .data import CardRow, ChartPoint, Series, card_rows, ratings_of, series_of
from .theme import DARK, LIGHT, THEMES, Theme

__all__ = [
    "DARK", "LIGHT", "THEMES", "CardRow", "ChartPoint", "Series", "Theme", "card_rows",
    "card_size", "chart_size", "leaderboard_card", "rating_chart", "ratings_of", "series_of",
]
