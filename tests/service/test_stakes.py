"""The points at stake (issue 38): the ERRATA's example to the point, and for each rating system
the stake's number for a result equal to the shown rating after minus before once that result
is reported and confirmed (a game of one against one, a team game, provisional members), the
estimate of an event-rated system, ``show_stake off``, and bad input changing nothing."""

from __future__ import annotations

import math
import re
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from bot.chat.language import writing_in
from bot.chat.messages import text
from bot.service import stakes
from bot.service.ratings import Hypothetical
from ratings_core.model import Game, PlayerState
from ratings_core.replay import replay
from ratings_core.systems import make_system
from tests.chat import Transcript, open_club

MEMBERS = ("ann", "ben", "cid", "dan", "eve")
#: a stake line as the bot writes it: name, win, draw, loss, the side's chance to win
STAKE_LINE = re.compile(r"^(\w+): ([+-]\d+|0) / ([+-]\d+|0) / ([+-]\d+|0) \(win (\d+)%\)$")
#: a rating change line of a confirmed game: ``ann: 1616 -> 1631`` (a deviation, a mark)
CHANGE_LINE = re.compile(r"^(\w+): (\d+)\S*(?: ±\d+\??)? -> (\d+)")
COLUMN = {"win": 0, "draw": 1, "loss": 2}


def shown(stake_answer: str) -> dict[str, tuple[int, int, int, int]]:
    """Each member's stake line: win, draw, loss and percentage."""
    found = {}
    for line in stake_answer.splitlines():
        matched = STAKE_LINE.match(line)
        if matched:
            name, *numbers = matched.groups()
            win, draw, loss, chance = (int(n) for n in numbers)
            found[name] = (win, draw, loss, chance)
    return found


def moved(confirmed: str) -> dict[str, int]:
    """Each member's shown rating after minus before, from a confirmation's change lines."""
    found = {}
    for line in confirmed.splitlines():
        matched = CHANGE_LINE.match(line)
        if matched:
            found[matched[1]] = int(matched[3]) - int(matched[2])
    return found


def test_the_errata_example_k32_and_an_expected_score_of_62_5_percent() -> None:
    """ERRATA: K = 32, E = 62.5 % gives ``alice: +12 / -4 / -20 (win 62%)``: Elo's own step
    from 1600 + 88.74 against 1600 (the difference whose expected score is 0.625)."""
    system = make_system("elo", {})
    difference = 400 * math.log10(0.625 / 0.375)
    players = {"alice": PlayerState(rating=1600 + difference, games=100),
               "bob": PlayerState(rating=1600.0, games=100)}
    start = replay(system, [], players=players).final
    game = Game("alice", "bob", 1.0, datetime(2026, 11, 1))
    found = Hypothetical(game, start, tuple(
        replay(system, [Game("alice", "bob", score, game.played_at)], start=start).final
        for score in stakes.SCORES))
    expected = stakes.side_a_expected(found, system)
    assert expected == pytest.approx(0.625, abs=1e-12)
    # exactly 62.5 % shows as 62, half to even as every number shown (37.5 % as 38)
    assert (stakes.percent(0.625), stakes.percent(0.375)) == (62, 38)
    alice = stakes.line("alice", start.state("alice").rating,  # type: ignore[union-attr]
                        [c.state("alice").rating for c in found.after],  # type: ignore[union-attr]
                        expected)
    with writing_in("en"):
        assert text(alice.key, alice.params) == "alice: +12 / -4 / -20 (win 62%)"
    # the other side's: its win is alice's loss; 37.5 % rounds half to even, to 38
    bob = stakes.line("bob", 1600.0, [1620.0, 1604.0, 1588.0], 1 - expected)
    with writing_in("en"):
        assert text(bob.key, bob.params) == "bob: +20 / +4 / -12 (win 38%)"


@pytest.mark.parametrize(("points", "written"), [(12, "+12"), (-4, "-4"), (0, "0")])
def test_a_change_is_written_with_its_sign_or_as_0(points: int, written: str) -> None:
    assert stakes.signed(points) == written


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db", rate=None) as opened:
        for name in MEMBERS:
            await opened.as_(name, "/register")
        yield opened


async def on_system(chat: Transcript, system: str) -> None:
    if system != "club":
        await chat.as_("mod!", f"/system {system}", "/apply")


@pytest.mark.parametrize("system", ["elo", "club", "glicko", "glicko2", "asymmetric"])
@pytest.mark.parametrize("result", ["win", "draw", "loss"])
async def test_the_stake_is_the_change_once_the_game_is_confirmed(
        chat: Transcript, system: str, result: str) -> None:
    """Provisional members first (their first games), then after some games: each time the
    stake's number for the result is the confirmed change of every member's shown rating."""
    await on_system(chat, system)
    for opponent, other in (("ben", "cid"), ("cid", "ben"), ("ben", "dan")):
        stake = shown(await chat.as_("ann", f"/stake @{opponent}"))
        assert set(stake) == {"ann", opponent}
        assert stake["ann"][3] + stake[opponent][3] in (99, 100, 101)
        await chat.as_("ann", f"/report @{opponent} {result}")
        confirmed = await chat.as_(opponent, "/confirm")
        if system in ("club", "glicko", "glicko2"):  # provisional: their K, their deviation
            assert "?" in confirmed.splitlines()[1], confirmed
        # ann's side's result; the opponent's is the other way round
        assert moved(confirmed) == {"ann": stake["ann"][COLUMN[result]],
                                    opponent: stake[opponent][2 - COLUMN[result]]}
        await chat.as_("mod!", f"/report @{other} @eve win")  # others play in between


@pytest.mark.parametrize("system", ["elo", "club", "glicko2"])
async def test_a_team_stake_is_the_change_of_every_member(chat: Transcript, system: str) -> None:
    await on_system(chat, system)
    await chat.as_("mod!", "/report @ann @ben vs @cid @dan win")  # the companion exists
    stake_answer = await chat.as_("ann", "/stake @cid @dan with @ben")
    assert stake_answer.splitlines()[0] == "At stake on main-teams (win / draw / loss):"
    stake = shown(stake_answer)
    assert list(stake) == ["ann", "ben", "cid", "dan"]  # the asker's side first
    assert stake["ann"][3] == stake["ben"][3]  # one side, one chance
    await chat.as_("ann", "/report @cid @dan with @ben loss")
    confirmed = await chat.as_("dan", "/confirm")
    assert moved(confirmed) == {"ann": stake["ann"][2], "ben": stake["ben"][2],
                                "cid": stake["cid"][0], "dan": stake["dan"][0]}


async def test_a_newcomer_starts_as_the_system_starts_them(chat: Transcript) -> None:
    """eve's first team game, on a companion made by it: she starts at elo's adult 1600."""
    await on_system(chat, "elo")
    stake = shown(await chat.as_("ann", "/stake @cid @eve with @ben"))
    await chat.as_("ann", "/report @cid @eve with @ben win")
    confirmed = await chat.as_("eve", "/confirm")
    assert "eve: - -> 1584" in confirmed.splitlines()
    assert stake["eve"] == (16, 0, -16, 50)


async def test_elo_numbers_exactly(chat: Transcript) -> None:
    await on_system(chat, "elo")
    assert await chat.as_("ann", "/stake @ben") == "\n".join([
        "At stake on main (win / draw / loss):",
        "ann: +16 / 0 / -16 (win 50%)",
        "ben: +16 / 0 / -16 (win 50%)"])
    await chat.as_("mod!", "/report @ann @cid win")
    assert await chat.as_("ann", "/stake @ben") == "\n".join([
        "At stake on main (win / draw / loss):",
        "ann: +15 / -1 / -17 (win 52%)",
        "ben: +17 / +1 / -15 (win 48%)"])


async def test_a_report_and_a_challenge_show_the_stake_until_show_stake_is_off(
        chat: Transcript) -> None:
    await on_system(chat, "elo")
    reported = await chat.as_("ann", "/report @ben win")
    assert reported.splitlines()[2:] == ["ann: +16 / 0 / -16 (win 50%)",
                                         "ben: +16 / 0 / -16 (win 50%)"]
    challenged = await chat.as_("cid", "/challenge @dan")
    assert challenged.splitlines()[1:] == ["cid: +16 / 0 / -16 (win 50%)",
                                           "dan: +16 / 0 / -16 (win 50%)"]
    await chat.as_("mod!", "/set show_stake off")
    assert len((await chat.as_("cid", "/report @dan win")).splitlines()) == 2
    assert len((await chat.as_("eve", "/challenge @ann")).splitlines()) == 1
    # a moderator's record counts at once: its changes, never a stake
    recorded = await chat.as_("mod!", "/set show_stake on", "/report @eve @ann win")
    assert not shown(recorded)


async def test_an_event_rated_system_gives_an_estimate(chat: Transcript) -> None:
    await on_system(chat, "fqe")
    answer = await chat.as_("ann", "/stake @ben")
    assert answer.splitlines()[-1] == (
        "An estimate: main rates an event's games together when it closes.")
    assert set(shown(answer)) == {"ann", "ben"}


async def refused(chat: Transcript, who: str, line: str) -> str:
    await chat.as_(who)
    before = await chat.log_size()
    answer = await chat.say(line)
    assert await chat.log_size() == before, (line, answer)
    return answer


@pytest.mark.parametrize(("line", "answer"), [
    ("/stake @ann", "A stake needs an opponent: name another member, not yourself."),
    ("/stake @zed", "There is no member called zed. /top lists everyone."),
    ("/stake @ben ladder=nope", "There is no ladder nope. Ladders: main."),
    ("/stake @ben @cid with @ann", "ann is named twice on one side."),
    ("/stake @ben @cid with @ben", "ben cannot play on both sides."),
    ("/stake @ben @cid @dan with @eve",
     "Sides of 2 and 3 members: ladder main rates only even sides (/set uneven_teams on)."),
    ("/stake @ben handicap=lots", "A handicap is a number from -1000 to 1000 (not lots)."),
    ("/stake", None),
    ("/stake with @ben", None),
])
async def test_bad_input_is_refused_and_changes_nothing(
        chat: Transcript, line: str, answer: str | None) -> None:
    said = await refused(chat, "ann", line)
    if answer is None:
        assert "/stake" in said, said
    else:
        assert said == answer


async def test_a_retired_member_a_side_over_max_side_and_a_system_without_teams(
        chat: Transcript) -> None:
    await chat.as_("mod!", "/report @dan @eve win", "/retire @dan", "/set max_side 2",
                   "/set uneven_teams on")
    assert await refused(chat, "ann", "/stake @dan") == (
        "dan is retired on ladder main: /return them first.")
    assert await refused(chat, "ann", "/stake @ben @cid @eve with @ann") == (
        "ann is named twice on one side.")
    assert await refused(chat, "ann", "/stake @ben @cid @eve") == (
        "A side has 3 members; ladder main allows at most 2 (/set max_side).")
    await chat.as_("mod!", "/ladder create puzzles tactics")
    assert await refused(chat, "ann", "/stake @ben @cid with @eve ladder=puzzles") == (
        "This ladder's system (tactics) rates one member at a time, not sides.")
