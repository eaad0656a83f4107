"""Club nights (issue 36) as the console runs them in one process: a night opened, check-ins,
each round paired, changed and published, results by report and by /result, the standings, a
restart in the middle, and the refusals of bad input (each changes nothing)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.chat import Transcript, open_club


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db", rate=None) as opened:
        yield opened


BOARD = re.compile(r"Board (\d+): (\w+) – (\w+)")


def boards(shown: str) -> list[tuple[str, str]]:
    """The pairs of a round as shown (first player first)."""
    return [(m[2], m[3]) for m in BOARD.finditer(shown)]


async def register(chat: Transcript, *names: str) -> None:
    for name in names:
        await chat.as_(name, "/register")


async def test_an_evening_of_four_rounds(chat: Transcript) -> None:
    await register(chat, "ann", "ben", "cid", "dan", "eve")
    assert await chat.as_("ann", "/night open swiss rounds=3") == "Only moderators can do that."
    assert await chat.as_("mod!", "/night open swiss") == (
        "Say how many rounds: /night open swiss rounds=N.")
    assert await chat.as_("mod!", "/night open swiss rounds=3") == (
        "Club night open on main (swiss, 3 rounds): check in with /in.")
    assert await chat.as_("mod!", "/night open swiss rounds=3") == (
        "A club night is open on main already: /night close it first.")
    for name in ("ann", "ben", "cid", "dan"):
        assert await chat.as_(name, "/in") == f"{name} is in tonight."
    assert await chat.as_("ann", "/in") == "ann is in tonight already."
    assert await chat.as_("ann", "/pair") == "Only moderators can do that."
    # round 1: equal ratings, so by name: ann, ben | cid, dan, top half against bottom half
    preview = await chat.as_("mod!", "/pair")
    assert preview.splitlines()[0] == "Round 1 (preview)"
    assert {frozenset(p) for p in boards(preview)} == {frozenset(("ann", "cid")),
                                                        frozenset(("ben", "dan"))}
    assert await chat.as_("mod!", "/pair") == "Round 1 is paired already: /publish it."
    published = await chat.as_("mod!", "/publish")
    assert published.splitlines()[0] == "Round 1"
    first_round = boards(published)
    # a report between a board's players is that board's; a moderator's /result counts at once
    (a1, b1), (a2, b2) = first_round
    reported = await chat.as_(a1, f"/report @{b1} win")
    assert reported.startswith("Game #1"), reported
    assert await chat.as_("mod!", "/pair") == "Not yet: 2 boards are still playing (1, 2)."
    await chat.as_(b1, "/confirm")
    assert await chat.as_("mod!", "/result 2 9-9") == (
        "A result is 1-0, 0-1, ½-½ (or 1/2-1/2, =), +- or -+, not 9-9.")
    assert await chat.as_("mod!", "/result 3 1-0") == (
        "There is no board 3: the round has 2 boards.")
    assert await chat.as_("mod!", "/result 2 ½-½") == f"Board 2: {a2} ½-½ {b2}."
    assert await chat.as_("mod!", "/result 2 1-0") == (
        "Board 2 has its result already: /correct its game to change it.")
    standings = await chat.as_("ann", "/standings")
    lines = standings.splitlines()
    assert lines[0] == "Standings on main after 1 round"
    assert lines[1].startswith(f"1. {a1} 1  "), standings
    assert any(line.startswith(f"2. {a2} ½") or line.startswith(f"2. {b2} ½")
               for line in lines), standings
    # eve joins late (round 2 of 3 has not started: allowed), with 0 points
    assert await chat.as_("eve", "/in") == "eve is in tonight."
    second = await chat.as_("mod!", "/pair")
    assert "Bye: " in second, second
    pairs = {frozenset(p) for p in boards(second)}
    assert not pairs & {frozenset(p) for p in first_round}  # no rematch
    await chat.as_("mod!", "/publish")
    # too late now: half the rounds have started
    await register(chat, "fay")
    assert await chat.as_("fay", "/in") == (
        "Too late to join: 2 rounds have started, half the night or more.")


async def test_a_night_survives_a_restart(tmp_path: Path) -> None:
    async with open_club(tmp_path / "club.db", rate=None) as chat:
        await register(chat, "ann", "ben", "cid")
        await chat.as_("mod!", "/night open swiss rounds=2")
        for name in ("ann", "ben", "cid"):
            await chat.as_(name, "/in")
        before = await chat.as_("mod!", "/publish")
        assert before == "No round is paired yet: /pair first."
        paired = await chat.as_("mod!", "/pair")
    async with open_club(tmp_path / "club.db", rate=None) as chat:
        published = await chat.as_("mod!", "/publish")
        assert published.splitlines()[1:] == paired.splitlines()[1:]
        assert (await chat.as_("ann", "/standings")).startswith(
            "Standings on main after 1 round")


async def test_swap_forbid_and_bye_change_the_preview(chat: Transcript) -> None:
    await register(chat, "ann", "ben", "cid", "dan", "eve")
    await chat.as_("mod!", "/night open swiss rounds=3")
    for name in ("ann", "ben", "cid", "dan", "eve"):
        await chat.as_(name, "/in")
    preview = await chat.as_("mod!", "/pair")
    bye = re.search(r"Bye: (\w+)", preview)
    assert bye is not None, preview
    (first, second), _ = boards(preview)
    swapped = await chat.as_("mod!", f"/swap @{first} @{bye[1]}")
    assert f"Bye: {first}" in swapped and boards(swapped)[0][0] == bye[1], swapped
    forbidden = await chat.as_("mod!", f"/forbid @{bye[1]} @{second}")
    assert frozenset((bye[1], second)) not in {frozenset(p) for p in boards(forbidden)}
    given = await chat.as_("mod!", "/bye @ann")
    assert "Bye: ann" in given, given
    assert await chat.as_("mod!", "/swap @ann @zed") == (
        "There is no member called zed. /top lists everyone.")


async def test_closing_posts_the_final_standings(chat: Transcript) -> None:
    await register(chat, "ann", "ben")
    await chat.as_("mod!", "/night open swiss rounds=1")
    await chat.as_("ann", "/in")
    await chat.as_("ben", "/in")
    await chat.as_("mod!", "/pair")
    await chat.as_("mod!", "/publish")
    await chat.as_("mod!", "/result 1 1-0")
    final = await chat.as_("mod!", "/night close")
    assert final.splitlines()[0] == "Final standings on main after 1 round", final
    assert await chat.as_("ann", "/standings") == final
    assert await chat.as_("mod!", "/pair") == (
        "No club night is open on main: /night open starts one.")


async def test_undo_takes_back_the_last_moderator_step(chat: Transcript) -> None:
    await register(chat, "ann", "ben", "cid")
    await chat.as_("mod!", "/night open swiss rounds=2")
    for name in ("ann", "ben", "cid"):
        await chat.as_(name, "/in")
    await chat.as_("mod!", "/pair")
    published = await chat.as_("mod!", "/publish")
    undone = await chat.as_("mod!", "/undo")
    assert "published round 1 on main" in undone, undone
    assert (await chat.as_("mod!", "/publish")).splitlines() == published.splitlines()
    for step in ("published round 1", "paired round 1", "opened a club night"):
        assert step in await chat.as_("mod!", "/undo")
    # the check-ins of a night taken back stay in the log, and change nothing
    assert await chat.as_("ann", "/in") == (
        "No club night is open on main: /night open starts one.")
    assert (await chat.as_("mod!", "/night open swiss rounds=2")).startswith(
        "Club night open on main")


async def test_a_round_robin_plays_everyone_once_and_a_leaver_forfeits(
        chat: Transcript) -> None:
    await register(chat, "ann", "ben", "cid", "dan")
    assert await chat.as_("mod!", "/night open roundrobin") == (
        "Club night open on main (roundrobin: everyone plays everyone once): check in with "
        "/in.")
    for name in ("ann", "ben", "cid", "dan"):
        await chat.as_(name, "/in")
    met: set[frozenset[str]] = set()
    for round_number in (1, 2, 3):
        await chat.as_("mod!", "/pair")
        published = await chat.as_("mod!", "/publish")
        pairs = boards(published)
        met |= {frozenset(p) for p in pairs}
        if round_number == 1:
            await register(chat, "eve")
            assert await chat.as_("eve", "/in") == (
                "A round robin takes nobody once its first round is paired.")
            await chat.as_("dan", "/out")  # he forfeits the rest of his table
            assert await chat.as_("dan", "/in") == (
                "dan has left tonight's night and is not paired again.")
            for n, _ in enumerate(pairs, 1):
                await chat.as_("mod!", f"/result {n} 1-0")
        else:
            assert any("+-" in line or "-+" in line for line in published.splitlines()), \
                published
            for n, pair in enumerate(pairs, 1):
                if "dan" not in pair:
                    await chat.as_("mod!", f"/result {n} ½-½")
    assert len(met) == 6  # everyone met everyone once
    assert await chat.as_("mod!", "/pair") == "Every round of the night has been paired."
    standings = await chat.as_("ann", "/standings")
    assert "Sonneborn-Berger" in standings and "wins" in standings, standings


async def test_a_go_night_pairs_by_mcmahon_and_is_rated_as_one_event(chat: Transcript) -> None:
    await chat.as_("mod!", "/system rs-go")
    await register(chat, "ann", "ben", "cid", "dan")
    assert (await chat.as_("mod!", "/night open rounds=2")).startswith(
        "Club night open on main (mcmahon, 2 rounds)")
    for name in ("ann", "ben", "cid", "dan"):
        await chat.as_(name, "/in")
    await chat.as_("mod!", "/pair")
    await chat.as_("mod!", "/publish")
    top = await chat.as_("ann", "/top")
    for n in (1, 2):
        await chat.as_("mod!", f"/result {n} 1-0")
    assert await chat.as_("ann", "/top") == top  # rated with the night, at its close
    await chat.as_("mod!", "/pair")
    await chat.as_("mod!", "/publish")
    for n in (1, 2):
        await chat.as_("mod!", f"/result {n} 0-1")
    final = await chat.as_("mod!", "/night close")
    assert "SOS" in final, final
    assert await chat.as_("ann", "/top") != top


async def test_a_bye_scores_what_the_ladder_says(chat: Transcript) -> None:
    await register(chat, "ann", "ben", "cid")
    assert "0.5" in await chat.as_("mod!", "/set night_bye_points 0.5")
    await chat.as_("mod!", "/night open swiss rounds=1")
    for name in ("ann", "ben", "cid"):
        await chat.as_(name, "/in")
    bye = re.search(r"Bye: (\w+)", await chat.as_("mod!", "/pair"))
    assert bye is not None
    await chat.as_("mod!", "/publish")
    standings = await chat.as_("ann", "/standings")
    assert re.search(rf"\d\. {bye[1]} ½ ", standings), standings


async def test_the_worked_evening_of_the_docs_is_what_the_bot_says(chat: Transcript) -> None:
    """docs/club-night.md's evening, typed again: every answer as the page shows it."""
    page = (Path(__file__).parents[2] / "docs" / "club-night.md").read_text(encoding="utf-8")
    block = page.split("```\n")[1]
    steps: list[tuple[str, str, list[str]]] = []
    for line in block.splitlines():
        said = re.match(r"^(\w+!?)> (.*)$", line)
        if said:
            steps.append((said[1], said[2], []))
        else:
            steps[-1][2].append(line)
    await register(chat, "ann", "ben", "cid", "dan", "eve")
    for who, line, answer in steps:
        assert await chat.as_(who, line) == "\n".join(answer), line


async def test_a_ladder_chooses_its_nights_tie_breaks(chat: Transcript) -> None:
    await register(chat, "ann", "ben")
    assert "wins,sonneborn_berger" in await chat.as_(
        "mod!", "/set night_tiebreaks wins,sonneborn_berger")
    await chat.as_("mod!", "/night open swiss rounds=1")
    await chat.as_("ann", "/in")
    await chat.as_("ben", "/in")
    await chat.as_("mod!", "/pair")
    await chat.as_("mod!", "/publish")
    await chat.as_("mod!", "/result 1 1-0")
    standings = await chat.as_("ann", "/standings")
    assert standings.splitlines()[1].endswith("wins 1, Sonneborn-Berger 0"), standings


async def test_nearest_pairs_the_closest_ratings_and_no_rematch(chat: Transcript) -> None:
    await register(chat, "ann", "ben", "cid", "dan")
    for _ in range(3):  # ann above the rest, ben below: cid and dan between them
        await chat.as_("mod!", "/report @ann @ben win")
    await chat.as_("mod!", "/night open nearest rounds=2")
    for name in ("ann", "ben", "cid", "dan"):
        await chat.as_(name, "/in")
    await chat.as_("mod!", "/pair")
    first = {frozenset(p) for p in boards(await chat.as_("mod!", "/publish"))}
    # the least squared distance in all: ann and ben each with one of the two in between
    assert frozenset(("ann", "ben")) not in first and frozenset(("cid", "dan")) not in first
    for n in (1, 2):
        await chat.as_("mod!", f"/result {n} ½-½")
    await chat.as_("mod!", "/pair")
    second = {frozenset(p) for p in boards(await chat.as_("mod!", "/publish"))}
    assert not first & second


async def test_without_the_extra_fide_dutch_says_how_to_install_it(
        chat: Transcript, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.pairing import dutch

    monkeypatch.setattr(dutch, "available", lambda: False)
    assert await chat.as_("mod!", "/night open fide-dutch rounds=4") == (
        "The FIDE Dutch system needs an extra: pip install 'clubrating[fide]', then start the "
        "bot again.")
    assert await chat.as_("mod!", "/night open dutch rounds=4") == (
        "There is no pairing mode dutch: choose one of swiss, nearest, roundrobin, mcmahon, "
        "fide-dutch.")
    assert await chat.as_("mod!", "/night open swiss rounds=31") == "A night has 1 to 30 rounds."
