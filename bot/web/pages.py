"""The public pages as HTML (Jinja2, autoescaped) and as JSON, in the club's language.

Every word comes from the chat's catalogue (:func:`bot.chat.messages.text`); names and other
text members typed are escaped by the templates. The rating chart is inline SVG, drawn here from
the player's ratings: no JavaScript, nothing else to load.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import escape

from bot.chat.language import RIGHT_TO_LEFT, writing_in
from bot.chat.messages import text
from bot.chat.presenter import day, rating_text
from bot.service.public import PublicBoard, PublicLadder, PublicProfile

_TEMPLATES = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)
#: the chart's size in SVG units (it scales to the page's width)
WIDTH, HEIGHT, MARGIN = 640, 220, 28


def _page(template: str, language: str | None, **values: Any) -> str:
    language = language or "en"
    return _TEMPLATES.get_template(template).render(
        lang=language, dir="rtl" if language in RIGHT_TO_LEFT else "ltr", **values)


def home(ladders: Sequence[PublicLadder]) -> str:
    words = {"title": text("web_home_title"), "ladder": text("web_ladder"),
             "players": text("web_players"), "none": text("web_none")}
    return _page("home.html", None, title=words["title"], words=words, ladders=ladders)


def player_path(slug: str, player: str) -> str:
    return f"/l/{slug}/p/{quote(player, safe='')}"


def _signed(change: float | None) -> tuple[str, str]:
    if change is None:
        return "", ""
    rounded = round(change)
    if rounded == 0:
        return "0", ""
    return (f"+{rounded}", "up") if rounded > 0 else (f"−{-rounded}", "down")


def board(shown: PublicBoard) -> str:
    with writing_in(shown.language):
        words = {"title": text("web_board_title", ladder=shown.ladder),
                 "home": text("web_home_title"), "rank": text("web_rank"),
                 "player": text("web_player"), "rating": text("web_rating"),
                 "deviation": text("web_deviation"), "games": text("web_games"),
                 "record": text("web_record"), "change": text("web_change"),
                 "empty": text("leaderboard_empty", ladder=shown.ladder)}
        rows = []
        for row in shown.players:
            change, trend = _signed(row.change_7d)
            rows.append({
                "rank": row.rank, "player": row.player,
                "href": player_path(shown.slug, row.player),
                "rating": rating_text(row.rating, row.provisional),
                "deviation": "" if row.deviation is None else f"±{row.deviation:.0f}",
                "games": row.games, "record": f"{row.wins}–{row.draws}–{row.losses}",
                "change": change, "trend": trend})
        # the deviation's column only where the ladder's system keeps one
        deviations = any(row.deviation is not None for row in shown.players)
        return _page("board.html", shown.language, title=words["title"], words=words,
                     board={"slug": shown.slug, "players": rows, "deviations": deviations})


def rating_svg(ratings: Sequence[float], label: str) -> str:
    """The ratings, one point per game, as an SVG line chart with its lowest and highest values
    marked and ``label`` read out for it (escaped here); an empty string for fewer than two
    points."""
    if len(ratings) < 2:
        return ""
    low, high = min(ratings), max(ratings)
    span = (high - low) or 1.0
    inner_w, inner_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN
    points = " ".join(
        f"{MARGIN + inner_w * i / (len(ratings) - 1):.1f},"
        f"{MARGIN + inner_h * (high - r) / span:.1f}" for i, r in enumerate(ratings))
    return (f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}" '
            f'xmlns="http://www.w3.org/2000/svg">'
            f'<polyline fill="none" stroke="#2457c5" stroke-width="2" points="{points}"/>'
            f'<text x="4" y="{MARGIN - 8}" font-size="12" fill="#6b7385">{high:.0f}</text>'
            f'<text x="4" y="{HEIGHT - 8}" font-size="12" fill="#6b7385">{low:.0f}</text>'
            f'</svg>')


def profile(shown: PublicProfile) -> str:
    with writing_in(shown.language):
        rating = rating_text(shown.rating, shown.provisional, shown.deviation)
        words = {"title": text("web_profile_title", player=shown.player, ladder=shown.ladder),
                 "home": text("web_home_title"),
                 "summary": text("web_profile_summary", rating=rating, games=shown.games,
                                 wins=shown.wins, draws=shown.draws, losses=shown.losses),
                 "recent": text("web_recent"), "when": text("web_when"),
                 "opponent": text("web_opponent"), "result": text("web_result"),
                 "rating": text("web_rating")}
        results = {1.0: text("web_won"), 0.5: text("web_drew"), 0.0: text("web_lost")}
        recent = [{"when": day(game.played_at, shown.zone), "opponent": game.opponent,
                   "result": results.get(game.score, ""),
                   "rating": "" if game.rating is None else f"{game.rating:.0f}"}
                  for game in shown.history[::-1][:10]]
        chart = rating_svg([g.rating for g in shown.history if g.rating is not None],
                           text("web_chart", player=shown.player))
        return _page("profile.html", shown.language, title=words["title"], words=words,
                     profile={"slug": shown.slug, "ladder": shown.ladder}, recent=recent,
                     chart=chart, json=player_path(shown.slug, shown.player) + ".json")


def missing(language: str | None = None) -> str:
    """The one page of every address that shows nothing: an unknown ladder and a private one
    alike."""
    with writing_in(language):
        words = {"title": text("web_missing_title"), "text": text("web_missing"),
                 "home": text("web_home_title")}
        return _page("missing.html", language, title=words["title"], words=words)


def board_json(shown: PublicBoard) -> dict[str, Any]:
    return {"ladder": shown.ladder, "players": [
        {"rank": r.rank, "player": r.player, "rating": r.rating, "provisional": r.provisional,
         "deviation": r.deviation, "games": r.games, "wins": r.wins, "draws": r.draws,
         "losses": r.losses, "change_7d": r.change_7d} for r in shown.players]}


def profile_json(shown: PublicProfile) -> dict[str, Any]:
    return {"player": shown.player, "rating": shown.rating, "provisional": shown.provisional,
            "deviation": shown.deviation, "games": shown.games, "history": [
                {"played_at": g.played_at, "opponent": g.opponent, "score": g.score,
                 "rating": g.rating} for g in shown.history]}
