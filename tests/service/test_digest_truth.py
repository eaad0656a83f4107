"""/digest says what it covers truthfully (issue 15): before anything was posted it covers the
ladder from its start and says so, instead of naming a post time from before the club existed;
and games that came to count since but were played earlier (an imported history, a result
recorded late) are not counted as games played since, but named apart with their dates."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from bot.chat.presenter import render
from bot.history import read_events
from tests.chat import Transcript, open_club

#: a Wednesday noon; the default weekly post time before it is Monday's, before the club began
WEDNESDAY = datetime(2024, 3, 6, 12, 0)
HISTORY = ("played_at,event,player_a,player_b,score_a\n"
           "2024-01-05,,ann,ben,1\n2024-02-10,,ben,cy,0.5\n2024-02-29,,cy,ann,1\n")


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db", WEDNESDAY) as transcript:
        await transcript.as_("mod!", "/top")  # the club and its main ladder begin now
        transcript.clock.advance(minutes=5)
        await transcript.as_("ann", "/register")
        await transcript.as_("ben", "/register")
        transcript.clock.advance(minutes=5)
        yield transcript


async def imported(chat: Transcript, folder: Path) -> str:
    (folder / "EVENTS.csv").write_text(HISTORY, encoding="utf-8")
    history = read_events(folder / "EVENTS.csv")
    return render(await chat.service.import_history("console", "local", history,
                                                    history.labels))


async def test_before_any_post_the_digest_covers_the_ladder_from_its_start(
        chat: Transcript) -> None:
    assert (await chat.as_("mod!", "/digest")).splitlines() == [
        "main ladder, changes since it began on Wed, Mar 6 12:00 UTC (nothing posted yet)",
        "  1. ann      1500?    new  0 games",
        "  2. ben      1500?    new  0 games",
        "New: ann, ben",
        "Games played: 0",
    ]


async def test_an_imported_history_is_not_counted_as_games_played_since(
        chat: Transcript, tmp_path: Path) -> None:
    assert await imported(chat, tmp_path) == "Imported 3 games (3 entries) into main."
    chat.clock.advance(minutes=5)
    await chat.as_("ann", "/report @ben win")
    await chat.as_("ben", "/confirm")
    lines = (await chat.as_("mod!", "/digest")).splitlines()
    assert lines[0] == ("main ladder, changes since it began on Wed, Mar 6 12:00 UTC "
                        "(nothing posted yet)")
    assert lines[-2:] == [
        "Games played: 1",
        "Also counted since, played earlier (imported or recorded late): 3 games, played "
        "Jan 5, 2024 to Feb 29, 2024",
    ]


async def test_after_a_post_time_an_import_is_named_apart_from_the_weeks_games(
        chat: Transcript, tmp_path: Path) -> None:
    chat.clock.advance(days=6)  # past Monday 11 March 09:00, the next weekly post time
    await chat.as_("ann", "/report @ben win")
    await chat.as_("ben", "/confirm")
    await imported(chat, tmp_path)
    lines = (await chat.as_("mod!", "/digest")).splitlines()
    assert lines[0] == "main ladder, changes since Mon, Mar 11 09:00 UTC"
    assert lines[-2:] == [
        "Games played: 1",
        "Also counted since, played earlier (imported or recorded late): 3 games, played "
        "Jan 5, 2024 to Feb 29, 2024",
    ]
