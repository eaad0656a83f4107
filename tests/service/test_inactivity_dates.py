"""Where inactivity counts from (issue 31, ERRATA "Inactivity, one rule"): the latest date on
which a member played any game, imported or not, whatever its place in the rating order; the
date :func:`bot.service.view.last_played` keeps up to date from the appended games equals the
one read afresh from every game, after corrections, voids, restores and a merge too."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from bot.history import read_events
from bot.service.state import latest_played
from bot.service.view import Club, last_played
from tests.chat import START, Transcript, open_club

HEADER = "played_at,event,player_a,player_b,score_a,handicap,kind"


def cached_club(chat: Transcript) -> Club:
    """The service's cached club (the console's only one)."""
    (club,) = chat.service._session.clubs.values()
    return club


def dates(chat: Transcript) -> dict[str, datetime]:
    """Each member's latest date on the main ladder, by name, as the cache keeps it; checked
    against the dates read afresh."""
    club = cached_club(chat)
    ladder = club.state.ladders["main"]
    kept = dict(last_played(club, ladder))
    assert kept == latest_played(club.state, ladder.games.values())
    return {club.state.members[m].name: when for m, when in kept.items()}


async def test_an_older_imported_game_never_moves_the_date_back(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db") as chat:
        for name in ("alice", "bob"):
            await chat.as_(name, "/register")
        await chat.as_("mod!", "/set inactivity_days 30")
        await chat.as_("alice", "/report @bob win")
        await chat.as_("bob", "/confirm")
        assert dates(chat) == {"alice": START, "bob": START}

        year_ago = (START - timedelta(days=365)).isoformat()
        path = tmp_path / "OLD.csv"
        path.write_text(f"{HEADER}\n{year_ago},,alice,carl,1,,\n", encoding="utf-8")
        history = read_events(path)
        await chat.service.import_history("console", "local", history, history.labels, None)
        await chat.say("/top")  # what time made due is decided: carl alone is retired
        assert dates(chat)["alice"] == START
        board = await chat.say("/top")
        assert "alice" in board and "bob" in board and "carl" not in board

        # a void takes a game's date away, a restore gives it back; the cache follows both
        chat.clock.advance(days=1)
        await chat.as_("alice", "/report @bob draw")
        await chat.as_("bob", "/confirm")
        assert dates(chat)["bob"] == START + timedelta(days=1)
        await chat.as_("mod!", "/void 3 a mistake")
        assert dates(chat)["bob"] == START
        await chat.as_("mod!", "/restore 3")
        assert dates(chat)["bob"] == START + timedelta(days=1)
