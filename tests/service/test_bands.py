"""Rating bands (issue 38): the hysteresis rule on scripted sequences, every member's band kept
per ladder as games come, are corrected and voided (always what a walk from the start gives),
and the moderators' commands with their refusals (each changes nothing)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.service import bands
from bot.service.bands import next_band, walk
from bot.service.ratings import LadderRatings
from bot.service.state import Band, ClubState, Ladder, LadderSettings
from bot.service.view import Club
from ratings_core.model import Game, Join, Retire, Return, SeasonStart, Step
from ratings_core.replay import replay
from ratings_core.systems import make_system
from tests.chat import Transcript, open_club

#: Silver from 1200, Gold from 1400, Master from 1600
MINIMUMS = (1200, 1400, 1600)


def test_the_highest_band_reached_is_taken_at_once() -> None:
    assert walk([1100], MINIMUMS, 25) is None
    assert walk([1200], MINIMUMS, 25) == 0
    assert walk([1399], MINIMUMS, 25) == 0
    assert walk([1400], MINIMUMS, 25) == 1
    assert walk([1100, 1650], MINIMUMS, 25) == 2  # straight past Gold to Master


def test_a_band_is_kept_until_the_rating_falls_hysteresis_below_its_minimum() -> None:
    # Gold at 1400; 1376 and 1375 keep it (at least 1400 - 25), 1374 loses it for Silver
    assert walk([1400, 1376], MINIMUMS, 25) == 1
    assert walk([1400, 1375], MINIMUMS, 25) == 1
    assert walk([1400, 1374], MINIMUMS, 25) == 0
    # losing it gives the highest band reached, or none
    assert walk([1400, 1100], MINIMUMS, 25) is None
    assert walk([1200, 1180], MINIMUMS, 25) == 0
    assert walk([1200, 1174], MINIMUMS, 25) is None
    # once lost, the band is taken again only where the rating reaches its minimum
    assert walk([1400, 1374, 1390], MINIMUMS, 25) == 0
    assert walk([1400, 1374, 1400], MINIMUMS, 25) == 1


def test_a_scripted_season_of_one_member() -> None:
    shown = [1190, 1210, 1405, 1390, 1380, 1376, 1410, 1372, 1390, 1401, 1620, 1580, 1574]
    held = []
    band = None
    for rating in shown:
        band = next_band(band, rating, MINIMUMS, 25)
        held.append(band)
    assert held == [None, 0, 1, 1, 1, 1, 1, 0, 0, 1, 2, 2, 1]
    assert walk(shown, MINIMUMS, 25) == 1


def test_no_hysteresis_is_the_highest_band_reached() -> None:
    assert walk([1400, 1399], MINIMUMS, 0) == 0
    assert walk([1400, 1400], MINIMUMS, 0) == 1


def test_a_provisional_or_retired_step_leaves_no_band_and_the_walk_starts_again() -> None:
    assert walk([1400, None], MINIMUMS, 25) is None
    # after it, a rating of 1390 is Silver: Gold was not held when it came
    assert walk([1400, None, 1390], MINIMUMS, 25) == 0


# -- every member's band, kept per ladder ----------------------------------------------------


def _brute_force(steps: list[Step], system_name: str, minimums: tuple[int, ...],
                 hysteresis: float) -> dict[str, int | None]:
    """Each player's band by a replay of every prefix of the steps: the rule from scratch."""
    system = make_system(system_name)
    shown: dict[str, list[int | None]] = {}
    for end in range(1, len(steps) + 1):
        final = replay(system, steps[:end]).final
        step = steps[end - 1]
        # a season's start resets everyone's rating (issue 38)
        touched = final.players if isinstance(step, SeasonStart) else bands._players(step)
        for key in touched:
            state = final.state(key)
            assert state is not None
            shown.setdefault(key, []).append(bands.shown_rating(system, state))
    return {key: walk(ratings, minimums, hysteresis) for key, ratings in shown.items()}


def _steps(count: int, seed: int) -> list[Step]:
    rng = random.Random(seed)
    start = datetime(2024, 1, 1)
    steps: list[Step] = []
    retired: set[str] = set()
    for n in range(count):
        at = start + timedelta(hours=n)
        if n % 37 == 36:
            player = f"m{rng.randrange(6)}"
            if player in retired:
                steps.append(Return(player, at))
                retired.discard(player)
            elif len(retired) < 2 and any(
                    player in (g.player_a, g.player_b) for g in steps if isinstance(g, Game)):
                steps.append(Retire(player, at))
                retired.add(player)
            continue
        a, b = rng.sample([p for p in (f"m{i}" for i in range(6)) if p not in retired], 2)
        steps.append(Game(a, b, rng.choice((0.0, 0.5, 1.0)), at))
    steps.insert(0, Join("m0", start - timedelta(days=1)))
    return steps


def _walked(steps: list[Step], minimums: tuple[int, ...], hysteresis: float,
            ratings: LadderRatings) -> dict[str, int | None]:
    """The kept walk over ``steps``, on ``ratings`` made to hold them as a synced ladder's
    (its system set by the caller, kept from one call to the next)."""
    system = ratings.system
    assert system is not None
    result = replay(system, steps, checkpoint_every=50)
    ratings.steps = steps
    ratings.checkpoints = [replay(system, []).final, *result.checkpoints]
    ratings.final = result.final
    club = Club(1, ClubState())
    walked = bands._walked(ratings, club, minimums, hysteresis)
    return {key: held for key, held in walked.held.items()}


@pytest.mark.parametrize("system_name", ["elo", "club", "glicko2"])
def test_the_kept_walk_is_the_walk_from_scratch(system_name: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bands, "CHECKPOINT_EVERY", 50)
    steps = _steps(160, seed=len(system_name))
    minimums = (1480, 1500, 1520)
    ratings = LadderRatings()
    ratings.system = make_system(system_name)
    # appended in three goes, then a game in the middle changed (a correction)
    for end in (40, 100, 160):
        assert _walked(steps[:end], minimums, 10, ratings) == _brute_force(
            steps[:end], system_name, minimums, 10)
    changed = list(steps)
    for i in (120, 75):
        step = changed[i]
        if isinstance(step, Game):
            changed[i] = Game(step.player_a, step.player_b, 1.0 - step.score_a, step.played_at)
        assert _walked(changed, minimums, 10, ratings) == _brute_force(
            changed, system_name, minimums, 10)


@pytest.mark.parametrize("system_name", ["elo", "club", "glicko2"])
def test_a_season_s_reset_walks_every_band_again(system_name: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A soft reset moves every rating toward the base and a hard one makes everyone
    provisional (issue 38): every member's band follows, as a walk from scratch gives it."""
    monkeypatch.setattr(bands, "CHECKPOINT_EVERY", 50)
    steps = _steps(160, seed=7)
    steps.insert(90, SeasonStart(steps[89].played_at, "soft", 0.25))
    steps.insert(140, SeasonStart(steps[139].played_at, "hard", 0.5))
    minimums = (1480, 1500, 1520)
    ratings = LadderRatings()
    ratings.system = make_system(system_name)
    before_hard = None
    for end in (60, 91, 141, len(steps)):
        walked = _walked(steps[:end], minimums, 10, ratings)
        assert walked == _brute_force(steps[:end], system_name, minimums, 10)
        if end == 91:
            before_hard = walked
    assert before_hard is not None and any(held is not None for held in before_hard.values())
    # right after the hard reset nobody holds a band: everyone is provisional again
    assert set(_walked(steps[:141], minimums, 10, ratings).values()) == {None}


def test_the_holders_follow_the_ladder() -> None:
    """A ladder of Ladder objects is what the service hands in: bands sorted by minimum."""
    ladder = Ladder("main", LadderSettings(), bands=[Band("Silver", 1200), Band("Gold", 1400)])
    assert bands.ladder_hysteresis(ladder) == 25.0


# -- the commands -------------------------------------------------------------------------------


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db", rate=None) as opened:
        yield opened


async def test_bands_through_the_console(chat: Transcript) -> None:
    await chat.as_("mod!", "/ladder create elo elo")
    for name in ("ann", "ben", "cid"):
        await chat.as_(name, "/register")
    assert await chat.as_("mod!", "/band list ladder=elo") == (
        "elo has no rating bands yet. A moderator adds one: /band add NAME MIN_RATING")
    assert await chat.as_("mod!", "/band add Gold 1610 ladder=elo") == (
        "Band Gold added to elo: from a rating of 1610.")
    assert await chat.as_("mod!", "/band add Silver 1590 ladder=elo") == (
        "Band Silver added to elo: from a rating of 1590.")
    # Elo, K = 32, everyone from 1600: each game moves its winner up by 16 at equal ratings
    await chat.as_("mod!", "/report @ann @ben win ladder=elo")
    await chat.as_("mod!", "/report @ann @cid win ladder=elo")
    assert await chat.as_("ann", "/rating ladder=elo") == (
        "ann (elo): 1631, rank 1, 2 games (2W 0D 0L), peak 1631, recent W W\nBand: Gold")
    assert await chat.as_("ann", "/top ladder=elo") == (
        "elo ladder\n"
        "  1. ann       1631  2 games  [Gold]\n"
        "  2. cid       1585  1 game\n"
        "  3. ben       1584  1 game")
    # ann falls to 1613, still above Gold's 1610; ben reaches Silver
    await chat.as_("mod!", "/report @ann @ben loss ladder=elo")
    assert await chat.as_("ann", "/top ladder=elo") == (
        "elo ladder\n"
        "  1. ann       1613  3 games  [Gold]\n"
        "  2. ben       1602  2 games  [Silver]\n"
        "  3. cid       1585  1 game")
    # ann 1613 -> 1595 (lost to cid): 15 below Gold's minimum, inside the hysteresis of 25
    await chat.as_("mod!", "/report @ann @cid loss ladder=elo")
    assert (await chat.as_("ann", "/rating ladder=elo")).endswith("\nBand: Gold")
    assert await chat.as_("mod!", "/band list ladder=elo") == (
        "Rating bands of elo, each kept until the rating is 25 points below its minimum:\n"
        "Gold: from 1610, 1 member\n"
        "Silver: from 1590, 2 members")  # ben, and cid after his win
    # without hysteresis she holds Silver: her shown rating is below Gold's minimum
    await chat.as_("mod!", "/set band_hysteresis 0 ladder=elo")
    assert (await chat.as_("ann", "/rating ladder=elo")).endswith("\nBand: Silver")
    assert await chat.as_("mod!", "/band remove silver ladder=elo") == (
        "Band Silver removed from elo.")
    assert "Band:" not in await chat.as_("ann", "/rating ladder=elo")


async def test_bad_bands_are_refused_and_change_nothing(chat: Transcript) -> None:
    await chat.as_("ann", "/register")
    await chat.as_("mod!", "/band add Gold 1400")
    size = await chat.log_size()
    refusals = {
        "/band add Low -1": "A band's minimum rating is a whole number from 0 to 4000 (not -1).",
        "/band add High 4001": (
            "A band's minimum rating is a whole number from 0 to 4000 (not 4001)."),
        "/band add Odd 1400.5": (
            "A band's minimum rating is a whole number from 0 to 4000 (not 1400.5)."),
        "/band add gold 1500": "main has a band gold already.",
        "/band add Other 1400": (
            "The band Gold starts at 1400 already: two bands cannot start at the same rating."),
        "/band add Role 1500 <@&123>": (
            "Bands carry roles on Discord only: add the band without a role here."),
        "/band remove Silver": "main has no band Silver (its bands: Gold).",
        "/band sync": "Band roles are Discord's: here a band shows beside the rating.",
        "/band add Long 1500 ladder=nowhere": (
            "There is no ladder nowhere. Ladders: main."),
    }
    for line, refusal in refusals.items():
        assert await chat.as_("mod!", line) == refusal, line
    assert await chat.as_("ann", "/band add Mine 1000") == "Only moderators can do that."
    assert await chat.as_("ann", "/band remove Gold") == "Only moderators can do that."
    assert await chat.log_size() == size
