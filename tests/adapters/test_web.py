"""The public web leaderboard (issue 35) in process: console clubs (tests/chat.py) and the site
(bot/web) on a real socket on 127.0.0.1 (aiohttp's test server), asked as a browser or a script
would. The JSON shapes are the issue's Exact forms; every request reads the log as it is then."""

from __future__ import annotations

import asyncio
import dataclasses
import html
import re
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.adapters.console import Console
from bot.chat.language import writing_in
from bot.chat.messages import text
from bot.chat.ratelimit import DEFAULT_RATE, RateLimiter
from bot.cli import main
from bot.service.club import Caller
from bot.web.server import PublicSite
from tests.chat import Transcript, open_club

BOARD_KEYS = ["rank", "player", "rating", "provisional", "deviation", "games", "wins", "draws",
              "losses", "change_7d"]
PROFILE_KEYS = ["player", "rating", "provisional", "deviation", "games", "history"]
GAME_KEYS = ["played_at", "opponent", "score", "rating"]
#: a row of the chat's /top: rank, name, rating with its "?", games
TOP_ROW = re.compile(r"^\s*(\d+)\. (.+?)\s+(\d+)(\??)\s+(\d+) games?$")


@pytest.fixture
async def club(database: Path | str) -> AsyncIterator[Transcript]:
    """A console club on each backend in turn (SQLite, PostgreSQL: the site only reads)."""
    async with open_club(database) as transcript:
        yield transcript


@pytest.fixture
async def web(club: Transcript) -> AsyncIterator[TestClient[Any, Any]]:
    """The site over the club's service, on a free port of 127.0.0.1."""
    async with TestClient(TestServer(PublicSite(club.service).app())) as client:
        yield client


class SecondChat(Console):
    """Another chat, so another club (``console:second``), on the same service and database."""

    @property
    def caller(self) -> Caller:
        return dataclasses.replace(super().caller, chat_id="second")


def second_club(club: Transcript) -> Transcript:
    return Transcript(SecondChat(club.service, RateLimiter(club.clock, DEFAULT_RATE)),
                      club.clock)


async def play(club: Transcript, *lines: str) -> None:
    """A moderator records ``lines`` (``/report @a @b win``), each recorded at once."""
    await club.say("/as mod!")
    for line in lines:
        answer = await club.say(line)
        assert "recorded" in answer, (line, answer)


async def founded(club: Transcript, *members: str) -> None:
    """``members`` register, each under the name they speak as (``/as NAME``)."""
    for member in members:
        assert "Welcome" in await club.as_(member, "/register")


async def get(web: TestClient[Any, Any], path: str, status: int = 200,
              tag: str | None = None) -> tuple[str, Mapping[str, str]]:
    """The page's text and headers (``tag``: sent as If-None-Match); fails on another status."""
    response = await web.get(path, headers={} if tag is None else {"If-None-Match": tag})
    body = await response.text()
    assert response.status == status, (path, response.status, body[:500])
    return body, response.headers


async def board(web: TestClient[Any, Any], slug: str = "main") -> list[dict[str, Any]]:
    response = await web.get(f"/l/{slug}.json")
    assert response.status == 200, await response.text()
    assert response.content_type == "application/json"
    data = await response.json()
    assert list(data) == ["ladder", "players"]
    return list(data["players"])


async def last_event(club: Transcript, chat: str = "local") -> tuple[int, int]:
    """The club of the console's chat and the id of its last event."""
    repository = club.service._repository
    club_id = await repository.club_id("console", chat, club.clock.now())
    return club_id, (await repository.events(club_id))[-1].id


def etag(last_event: tuple[int, int], day: str) -> str:
    """A page's ETag: its club, its last event id and the day (issue 35's ERRATA: the day,
    for the 7-day change; the club, for PostgreSQL numbers each club's events from 1)."""
    club_id, last = last_event
    return f'"{club_id}-{last}-{day}"'


def top_rows(answer: str) -> list[tuple[int, str, int, bool, int]]:
    rows = []
    for line in answer.splitlines()[1:]:
        found = TOP_ROW.match(line)
        assert found is not None, line
        rows.append((int(found[1]), found[2], int(found[3]), found[4] == "?", int(found[5])))
    return rows


async def test_the_board_and_a_profile_as_json_in_the_exact_forms(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    await founded(club, "alice", "bob", "carol", "dave")
    await play(club, "/report @alice @bob win", "/report @bob @carol draw",
               "/report @carol @dave win", "/report @alice @carol win")
    # nothing is public by default
    await get(web, "/l/main.json", 404)
    assert await club.as_("mod!", "/set public on") == "Ladder main is public at /l/main."

    players = await board(web)
    assert all(list(row) == BOARD_KEYS for row in players)
    # the same players, order and ratings as the chat's /top
    shown = top_rows(await club.say("/top"))
    assert [(r["rank"], r["player"], round(r["rating"]), r["provisional"], r["games"])
            for r in players] == shown
    records = {r["player"]: (r["wins"], r["draws"], r["losses"]) for r in players}
    assert records == {"alice": (2, 0, 0), "bob": (0, 1, 1), "carol": (1, 1, 1),
                       "dave": (0, 0, 1)}
    assert all(r["wins"] + r["draws"] + r["losses"] == r["games"] for r in players)
    for row in players:
        assert isinstance(row["rating"], float) and isinstance(row["provisional"], bool)
        assert row["deviation"] is None or isinstance(row["deviation"], float)
        assert row["change_7d"] is None  # nobody was rated a week ago

    response = await web.get("/l/main/p/carol.json")
    assert response.status == 200 and response.content_type == "application/json"
    carol = await response.json()
    assert list(carol) == PROFILE_KEYS
    assert {k: carol[k] for k in ("player", "games")} == {"player": "carol", "games": 3}
    [row] = [r for r in players if r["player"] == "carol"]
    assert (carol["rating"], carol["provisional"], carol["deviation"]) == (
        row["rating"], row["provisional"], row["deviation"])
    # every rated game, oldest first, with carol's rating after it: the last one is her rating
    assert all(list(game) == GAME_KEYS for game in carol["history"])
    assert [(g["opponent"], g["score"]) for g in carol["history"]] == [
        ("bob", 0.5), ("dave", 1.0), ("alice", 0.0)]
    assert carol["history"][-1]["rating"] == carol["rating"]
    assert [g["played_at"] for g in carol["history"]] == ["2024-03-01T19:00"] * 3

    # the home page lists it, with its players
    home, _ = await get(web, "/")
    assert '<a href="/l/main">main</a>' in home and '<td class="n">4</td>' in home


async def test_the_7_day_change_moves_with_the_calendar(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    await founded(club, "alice", "bob", "carol")
    await play(club, "/report @alice @bob win", "/report @bob @carol draw")
    await club.say("/set public on")
    first = {r["player"]: r for r in await board(web)}
    assert all(r["change_7d"] is None for r in first.values())

    # Ten days on: the games are more than a week old, and nothing moved since.
    club.clock.advance(days=10)
    assert {r["player"]: r["change_7d"] for r in await board(web)} == {
        "alice": 0.0, "bob": 0.0, "carol": 0.0}

    # New games, and dave, who joined within the week (no rating a week ago: null).
    await founded(club, "dave")
    await play(club, "/report @alice @carol win", "/report @bob @dave win")
    now = {r["player"]: r for r in await board(web)}
    for name in ("alice", "bob", "carol"):
        assert now[name]["change_7d"] == pytest.approx(
            now[name]["rating"] - first[name]["rating"]), name
        assert now[name]["change_7d"] != 0
    assert now["dave"]["change_7d"] is None
    # the page shows each change rounded and signed, coloured by its direction
    page, _ = await get(web, "/l/main")
    alice = round(now["alice"]["change_7d"])
    carol = round(now["carol"]["change_7d"])
    assert alice > 0 > carol
    assert f'<td class="n up">+{alice}</td>' in page
    assert f'<td class="n down">−{-carol}</td>' in page

    # Eight days after those games, the week holds none: every change is 0 again.
    club.clock.advance(days=8)
    assert {r["player"]: r["change_7d"] for r in await board(web)} == {
        "alice": 0.0, "bob": 0.0, "carol": 0.0, "dave": 0.0}


async def test_the_etag_is_the_last_event_and_the_day_and_304_has_no_body(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    await founded(club, "alice", "bob")
    await play(club, "/report @alice @bob win")
    await club.say("/set public on")
    pages = ["/l/main", "/l/main.json", "/l/main.csv", "/l/main/p/alice", "/l/main/p/alice.json"]
    tag = etag(await last_event(club), "2024-03-01")
    for page in pages:
        body, headers = await get(web, page)
        assert headers["ETag"] == tag and body, page
        response = await web.get(page, headers={"If-None-Match": tag})
        assert response.status == 304 and await response.read() == b"", page
        assert response.headers["ETag"] == tag
        # among other tags too; another tag gets the page
        response = await web.get(page, headers={"If-None-Match": f'"1-2000-01-01", {tag}'})
        assert response.status == 304, page
        again, _ = await get(web, page, tag='"1-2024-03-01"')
        assert again == body

    # A new event: a new tag, and the old one gets the page again.
    await play(club, "/report @bob @alice win")
    newer = etag(await last_event(club), "2024-03-01")
    assert newer != tag
    for page in pages:
        body, headers = await get(web, page, tag=tag)
        assert headers["ETag"] == newer and body
    # The next day: the same last event, another tag (the 7-day change moved).
    club.clock.advance(days=1)
    _, headers = await get(web, "/l/main", tag=newer)
    assert headers["ETag"] == etag(await last_event(club), "2024-03-02")


async def test_a_private_ladder_is_the_same_404_as_an_unknown_one_from_the_next_request(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    await founded(club, "alice", "bob")
    await play(club, "/report @alice @bob win")
    unknown, headers = await get(web, "/l/nowhere", 404)
    assert "ETag" not in headers and "text/html" in headers["Content-Type"]
    # private by default
    for page in ["/l/main", "/l/main.json", "/l/main.csv", "/l/main/p/alice",
                 "/l/main/p/alice.json"]:
        assert (await get(web, page, 404))[0] == unknown

    await club.say("/set public on")
    _, headers = await get(web, "/l/main")
    tag = headers["ETag"]
    await get(web, "/l/main/p/alice")
    assert (await get(web, "/l/main/p/nobody", 404))[0] == unknown
    assert (await get(web, "/l/main/p/nobody.json", 404))[0] == unknown
    assert (await get(web, "/elsewhere/at/all", 404))[0] == unknown

    assert await club.say("/set public off") == (
        "Ladder main is private again: /l/main shows nothing.")
    for page in ["/l/main", "/l/main.json", "/l/main.csv", "/l/main/p/alice",
                 "/l/main/p/alice.json"]:
        assert (await get(web, page, 404))[0] == unknown, page
    # not even a 304 for what was shown before
    assert (await get(web, "/l/main", 404, tag=tag))[0] == unknown
    home, _ = await get(web, "/")
    assert "/l/main" not in home and text("web_none") in home

    # A new slug: the old address is gone at once, the new one shows the board.
    await club.say("/set public on")
    assert await club.say("/set public_slug thursday") == (
        "Ladder main is public at /l/thursday.")
    assert (await get(web, "/l/main", 404))[0] == unknown
    assert [r["player"] for r in await board(web, "thursday")] == ["alice", "bob"]


async def test_the_csv_is_what_clubrating_export_writes(
        club: Transcript, web: TestClient[Any, Any], database: Path | str,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    await founded(club, "alice", "bob", "carol")
    await play(club, "/report @alice @bob win", "/report @bob @carol draw")
    club.clock.advance(days=3)
    await club.as_("bob", "/report @alice win")  # pending, then confirmed by alice
    assert "confirmed" in await club.as_("alice", "/confirm")
    assert "created" in await club.as_("mod!", "/ladder create blitz elo")
    await play(club, "/report @carol @alice win ladder=blitz")
    await club.say("/set public on")
    await club.say("/set public on ladder=blitz")
    await club.say("/set public_slug blitz-night ladder=blitz")

    monkeypatch.setenv("CLUBRATING_DB", str(database))
    for slug, ladder in (("main", []), ("blitz-night", ["--ladder", "blitz"])):
        # main() runs its own event loop: from a worker thread of this test's
        code = await asyncio.to_thread(main, ["export", "--chat", "console:local", *ladder])
        exported, err = capsys.readouterr()
        assert code == 0, err
        response = await web.get(f"/l/{slug}.csv")
        assert response.status == 200 and response.content_type == "text/csv"
        assert response.charset == "utf-8"
        assert await response.text() == exported
        assert exported.startswith("played_at,event,player_a,player_b,score_a,handicap,kind\n")
        assert exported.count(",game\n") == (3 if slug == "main" else 1)


async def test_names_with_a_space_or_other_letters_link_and_open(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    await club.as_("zoe", "/register Zoë")
    await club.as_("jl", "/register Jean Luc")
    await club.as_("ivan", "/register Иван")
    await club.as_("yuki", "/register 雪")
    await play(club, '/report @Zoë "Jean Luc" win', '/report Иван 雪 draw',
               '/report "Jean Luc" Иван win')
    await club.say("/set public on")
    page, _ = await get(web, "/l/main")
    links = re.findall(r'<a href="(/l/main/p/[^"]+)">([^<]+)</a>', page)
    assert sorted(name for _, name in links) == sorted(["Zoë", "Jean Luc", "Иван", "雪"])
    for href, name in links:
        assert href == f"/l/main/p/{quote(name, safe='')}"  # escaped, as a URL must be
        assert unquote(href.rsplit("/", 1)[1]) == name
        profile, _ = await get(web, href)
        assert f"<h1>{name} on main</h1>" in profile
        assert f'<a href="{href}.json">JSON</a>' in profile
        response = await web.get(href + ".json")
        assert response.status == 200 and (await response.json())["player"] == name
    assert "<svg" not in (await get(web, "/l/main/p/Zo%C3%AB"))[0]  # one game: no line yet
    jean = (await get(web, "/l/main/p/Jean%20Luc"))[0]
    assert "<polyline" in jean  # two games, a line


async def test_a_hostile_name_is_escaped_everywhere(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    hostile = "<script>alert(1)</script><img"  # typed unquoted: the chat reads quotes
    assert (await club.as_("eve", f"/register {hostile}")).startswith(f"Welcome, {hostile}!")
    await founded(club, "bob")
    await play(club, f"/report @bob {hostile} win", f"/report {hostile} @bob win")
    await club.say("/set public on")
    page, _ = await get(web, "/l/main")
    href = f"/l/main/p/{quote(hostile, safe='')}"
    assert "<script" not in page and "<img" not in page
    assert f'<a href="{href}">{html.escape(hostile)}</a>' in page
    profile, _ = await get(web, href)
    assert "<script" not in profile and f"<h1>{html.escape(hostile)} on main</h1>" in profile
    bob, _ = await get(web, "/l/main/p/bob")
    assert "<script" not in bob and f"<td>{html.escape(hostile)}</td>" in bob
    response = await web.get(href + ".json")
    assert (await response.json())["player"] == hostile
    assert response.content_type == "application/json"  # never sniffed as a page


@pytest.mark.parametrize(("language", "direction"), [("fr", "ltr"), ("he", "rtl"),
                                                     ("ja", "ltr"), ("ru", "ltr")])
async def test_the_pages_speak_the_clubs_language(
        club: Transcript, web: TestClient[Any, Any], language: str, direction: str) -> None:
    await founded(club, "alice", "bob")
    await play(club, "/report @alice @bob win")
    await club.say("/set public on")
    await club.say(f"/set language {language}")
    page, _ = await get(web, "/l/main")
    profile, _ = await get(web, "/l/main/p/alice")
    for shown in (page, profile):
        assert f'<html lang="{language}" dir="{direction}">' in shown
    with writing_in(language):
        words = [text("web_player"), text("web_rating"), text("web_games"), text("web_change"),
                 text("web_board_title", ladder="main")]
        recent, won = text("web_recent"), text("web_won")
    with writing_in("en"):
        english = [text("web_player"), text("web_games"), text("web_recent")]
    for word in words:
        assert html.escape(word, quote=False) in page, word
    for word in english:
        assert f">{word}<" not in page and f">{word}<" not in profile, word
    assert f"<h2>{html.escape(recent, quote=False)}</h2>" in profile
    assert f"<td>{html.escape(won, quote=False)}</td>" in profile
    # the missing page is one for all: never the club's language (it names no club)
    missing, _ = await get(web, "/l/main/p/nobody", 404)
    assert missing == (await get(web, "/l/nowhere", 404))[0]


async def test_slugs_are_unique_across_clubs(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    await founded(club, "alice", "bob")
    await play(club, "/report @alice @bob win")
    assert await club.say("/set public on") == "Ladder main is public at /l/main."

    other = second_club(club)
    await founded(other, "carol", "dave")
    await play(other, "/report @dave @carol win")
    before = await last_event(club, "second")
    refused = await other.as_("mod!", "/set public on")
    assert refused == text("public_name_taken", slug="main", ladder="main")
    assert "/set public_slug NAME" in refused
    assert await last_event(club, "second") == before
    assert [r["player"] for r in await board(web)] == ["alice", "bob"]

    assert await other.say("/set public_slug main") == text("public_slug_taken", slug="main")
    assert await last_event(club, "second") == before
    assert await other.say("/set public_slug juniors") == (
        "Ladder main will be at /l/juniors once it is public (/set public on).")
    await get(web, "/l/juniors", 404)
    assert await other.say("/set public on") == "Ladder main is public at /l/juniors."
    assert [r["player"] for r in await board(web, "juniors")] == ["dave", "carol"]
    assert [r["player"] for r in await board(web, "main")] == ["alice", "bob"]
    home, _ = await get(web, "/")
    assert '<a href="/l/main">main</a>' in home and '<a href="/l/juniors">main</a>' in home

    # The first club cannot take the other's chosen slug either, nor a private ladder's
    # chosen one.
    assert await club.say("/set public_slug juniors") == text("public_slug_taken",
                                                              slug="juniors")
    await other.say("/set public off")
    assert await club.say("/set public_slug juniors") == text("public_slug_taken",
                                                              slug="juniors")
    await get(web, "/l/juniors", 404)


async def test_a_slug_another_club_takes_shows_that_clubs_board(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    """A slug given up by one club and taken by another: its pages are the new club's, even
    where the new club's last event has the number the old one's had (PostgreSQL numbers each
    club's events from 1)."""
    await founded(club, "alice", "bob")
    await play(club, "/report @alice @bob win", "/report @bob @alice draw")
    await club.say("/set public on")
    page, headers = await get(web, "/l/main")
    old = headers["ETag"]
    _, shown = await last_event(club)
    await club.say("/set public_slug first")  # the first club moves to /l/first

    other = second_club(club)
    await founded(other, "carol", "dave")
    await other.say("/as mod!")
    for turn in range(shown):  # the second club's log, one event short of the first's
        if (await last_event(club, "second"))[1] >= shown - 1:
            break
        await other.say(f"/set announce {'yes' if turn % 2 == 0 else 'no'}")
    assert await other.say("/set public on") == "Ladder main is public at /l/main."
    body, headers = await get(web, "/l/main", tag=old)
    assert "carol" in body and "alice" not in body
    assert headers["ETag"] != old
    assert [r["player"] for r in await board(web)] == ["carol", "dave"]
    # and the slug given up is free for the first club again
    await other.say("/set public_slug seconds")
    assert await club.say("/set public_slug main") == "Ladder main is public at /l/main."
    assert [r["player"] for r in await board(web)] == ["alice", "bob"]


async def test_only_moderators_make_a_ladder_public_or_name_its_address(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    await founded(club, "alice", "bob")
    await play(club, "/report @alice @bob win")
    before = await club.log_size()
    for line in ["/set public on", "/set public_slug mine", "/set public off",
                 "/set public on ladder=main"]:
        assert await club.as_("alice", line) == text("moderators_only"), line
    assert await club.log_size() == before
    await get(web, "/l/main", 404)
    await get(web, "/l/mine", 404)
    assert await club.as_("mod!", "/set public on") == "Ladder main is public at /l/main."
    assert await club.as_("alice", "/set public off") == text("moderators_only")
    await get(web, "/l/main")


async def test_bad_slugs_are_refused(club: Transcript) -> None:
    await club.say("/as mod!")
    for bad in ["-x", "a" * 33, "a/b", "é", "a.json"]:
        assert await club.say(f"/set public_slug {bad}") == text(
            "bad_public_slug", text=bad[:40]), bad
    assert await club.say("/set public_slug Night_Owls") == (
        "Ladder main will be at /l/night_owls once it is public (/set public on).")


async def test_the_record_follows_new_games_corrections_and_voids(
        club: Transcript, web: TestClient[Any, Any]) -> None:
    """The W-D-L the board keeps up to date as games come, and counts again after a
    correction or a void (its record of each member is kept between requests)."""
    await founded(club, "alice", "bob")
    await play(club, "/report @alice @bob win")
    await club.say("/set public on")

    async def records() -> dict[str, tuple[int, int, int]]:
        return {r["player"]: (r["wins"], r["draws"], r["losses"]) for r in await board(web)}

    assert await records() == {"alice": (1, 0, 0), "bob": (0, 0, 1)}
    await play(club, "/report @bob @alice draw")
    assert await records() == {"alice": (1, 1, 0), "bob": (0, 1, 1)}
    await club.say("/as mod!")
    await club.say("/correct 1 loss")  # alice beat bob -> bob beat alice
    await club.say("/apply")
    assert await records() == {"alice": (0, 1, 1), "bob": (1, 1, 0)}
    await club.say("/void 2 a friendly")
    assert await records() == {"alice": (0, 0, 1), "bob": (1, 0, 0)}
