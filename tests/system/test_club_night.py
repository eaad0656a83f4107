"""A club night (issue 36) as a club runs it: ``clubrating run`` on the console, started again
between the rounds, and ``clubrating night export`` afterwards.

The swiss evening: five check in, a sixth joins late, one withdraws mid-round; results come by
a member's report and the opponent's /confirm, and by a moderator's /result (a forfeit among
them). The fide-dutch evening is exported as TRF16 and BBP Pairings (the FIDE-endorsed
reference, beside the repository) re-pairs every round of it the same."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from tests.pairing import reference

from .process import FakeClock, clubrating, environment
from .test_puzzles_console import ConsoleChat, console

START = datetime(2026, 11, 20, 19, 0, 0)
BOARD = re.compile(r"Board (\d+): (\w+) – (\w+)")


async def round_of(chat: ConsoleChat, lines: int) -> list[tuple[str, str, str]]:
    """The moderator pairs and publishes the next round of ``lines`` lines (its title, its
    boards, its bye); its boards (number, first, second)."""
    preview = await chat.say("/pair", lines)
    assert preview.splitlines()[0].endswith("(preview)"), preview
    published = await chat.say("/publish", lines)
    assert published.splitlines()[1:] == preview.splitlines()[1:]
    return [(m[1], m[2], m[3]) for m in BOARD.finditer(published)]


async def test_a_swiss_evening_with_restarts_a_late_joiner_and_a_withdrawal(
        tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    async with console(env) as chat:
        for name in ("ann", "ben", "cid", "dan", "eve", "fay"):
            await chat.say(f"/as {name}")
            await chat.say("/register")
        await chat.say("/as mod!")
        assert await chat.say("/night open swiss rounds=3") == (
            "Club night open on main (swiss, 3 rounds): check in with /in.")
        for name in ("ann", "ben", "cid", "dan", "eve"):
            await chat.say(f"/as {name}")
            assert await chat.say("/in") == f"{name} is in tonight."
        await chat.say("/as mod!")
        first = await round_of(chat, 4)  # two boards and a bye
    # started again: the round is there, its boards are played
    async with console(env) as chat:
        (_, a, b), (_, c, d) = first
        await chat.say(f"/as {a}")
        # the report, its terms and the points at stake of its two players (issue 38)
        assert (await chat.say(f"/report @{b} win", 4)).startswith("Game #1: ")
        await chat.say(f"/as {b}")
        assert (await chat.say("/confirm", 3)).startswith("Game #1 confirmed: ")
        await chat.say("/as mod!")
        assert await chat.say("/result 2 +-") == f"Board 2: {c} +- {d}."
        await chat.say("/as fay")
        assert await chat.say("/in") == "fay is in tonight."  # late, with 0 points
        await chat.say("/as mod!")
        second = await round_of(chat, 4)  # six: three boards, no bye
        assert len(second) == 3
        assert not {frozenset(p[1:]) for p in second} & {frozenset(p[1:]) for p in first}
    async with console(env) as chat:
        # dan withdraws in the middle of round 2: his board is a forfeit, he is paired no more
        (n, x, y) = next(p for p in second if "dan" in p[1:])
        await chat.say("/as dan")
        assert await chat.say("/out") == (
            "dan has left tonight's night: their games stay in the standings.")
        await chat.say("/as mod!")
        assert await chat.say(f"/result {n} {'-+' if x == 'dan' else '+-'}") == (
            f"Board {n}: {x} {'-+' if x == 'dan' else '+-'} {y}.")
        for number, _, _ in second:
            if number != n:
                assert (await chat.say(f"/result {number} ½-½")).startswith(f"Board {number}")
        third = await round_of(chat, 4)
        assert all("dan" not in p[1:] for p in third)
        for number, _, _ in third:
            await chat.say(f"/result {number} 1-0")
        final = await chat.say("/night close", 7)
        lines = final.splitlines()
        assert lines[0] == "Final standings on main after 3 rounds"
        assert [re.match(r"\d+\. (\w+)", line)[1] for line in lines[1:]].count("dan") == 1
    exported = clubrating(env, "night", "export", "--chat", "console:local")
    assert exported.returncode == 0, exported.stderr
    trf = exported.stdout
    assert trf.startswith("012 main night 1"), trf[:200]
    assert len([line for line in trf.splitlines() if line.startswith("001")]) == 6
    assert "XXR 3" in trf


async def test_a_fide_dutch_evening_is_paired_as_the_reference_pairs_it(
        tmp_path: Path) -> None:
    env = environment(tmp_path, FakeClock(tmp_path, START))
    names = ("ann", "ben", "cid", "dan", "eve", "fay", "gus", "hal")
    async with console(env) as chat:
        for name in names:
            await chat.say(f"/as {name}")
            await chat.say("/register")
        await chat.say("/as mod!")
        opened = await chat.say("/night open fide-dutch rounds=4")
        assert opened == "Club night open on main (fide-dutch, 4 rounds): check in with /in."
        for name in names:
            assert await chat.say(f"/in @{name}") == f"{name} is in tonight."
    for round_number in range(4):
        async with console(env) as chat:  # started again before every round
            await chat.say("/as mod!")
            shown = await chat.say("/pair", 6)
            assert shown.splitlines()[-1].startswith("Paired by FIDE Dutch 2017 (C.04.3)")
            await chat.say("/publish", 6)
            for board in range(1, 5):
                result = ("1-0", "0-1", "½-½")[(board + round_number) % 3]
                assert (await chat.say(f"/result {board} {result}")).startswith(
                    f"Board {board}:")
    output = tmp_path / "night.trf"
    exported = clubrating(env, "night", "export", "--chat", "console:local", "--output",
                          str(output))
    assert exported.returncode == 0, exported.stderr
    assert reference.check(output.read_text(encoding="utf-8"), tmp_path) == set()


async def test_round_robin_nearest_and_go_nights_with_restarts_between_rounds(
        tmp_path: Path) -> None:
    """A round robin of four on the main ladder (everyone once, three rounds), a nearest night
    on a blitz ladder (no rematch) and a McMahon night on a go ladder (rs-go: rated as one
    event at the close), each open at once."""
    env = environment(tmp_path, FakeClock(tmp_path, START))
    names = ("ann", "ben", "cid", "dan")
    async with console(env) as chat:
        for name in names:
            await chat.say(f"/as {name}")
            await chat.say("/register")
        await chat.say("/as mod!")
        await chat.say("/ladder create go rs-go")
        await chat.say("/ladder create blitz elo")
        assert (await chat.say("/night open roundrobin")).startswith(
            "Club night open on main (roundrobin: everyone plays everyone once)")
        assert (await chat.say("/night open rounds=1 ladder=go")).startswith(
            "Club night open on go (mcmahon, 1 round)")
        for name in names:
            assert await chat.say(f"/in @{name} ladder=main") == f"{name} is in tonight."
            assert await chat.say(f"/in @{name} ladder=go") == f"{name} is in tonight."
        assert (await chat.say("/night open nearest rounds=2 ladder=blitz")).startswith(
            "Club night open on blitz (nearest, 2 rounds)")
        for name in names:
            assert await chat.say(f"/in @{name} ladder=blitz") == f"{name} is in tonight."
    blitz: list[set[frozenset[str]]] = []
    for _ in range(2):  # the nearest night, started again before every round
        async with console(env) as chat:
            await chat.say("/as mod!")
            await chat.say("/pair ladder=blitz", 3)
            published = await chat.say("/publish ladder=blitz", 3)
            blitz.append({frozenset(p[1:]) for p in BOARD.findall(published)})
            for number, _, _ in BOARD.findall(published):
                await chat.say(f"/result {number} ½-½ ladder=blitz")
    assert len(blitz[0]) == len(blitz[1]) == 2 and not blitz[0] & blitz[1]  # no rematch
    met: set[frozenset[str]] = set()
    for _ in range(3):
        async with console(env) as chat:  # started again before every round
            await chat.say("/as mod!")
            preview = await chat.say("/pair ladder=main", 4)
            published = await chat.say("/publish ladder=main", 4)
            assert published.splitlines()[1:] == preview.splitlines()[1:]
            assert published.splitlines()[-1].startswith("Paired by "), published
            for number, first, second in BOARD.findall(published):
                met.add(frozenset((first, second)))
                assert (await chat.say(f"/result {number} 1-0 ladder=main")).startswith(
                    f"Board {number}: ")
    assert len(met) == 6
    async with console(env) as chat:
        await chat.say("/as mod!")
        assert await chat.say("/pair ladder=main") == "Every round of the night has been paired."
        go = await chat.say("/pair ladder=go", 3)
        assert go.splitlines()[0] == "Round 1 (preview)", go
        await chat.say("/publish ladder=go", 3)
        for number in (1, 2):
            await chat.say(f"/result {number} 1-0 ladder=go")
        # rated with the night, as one event, at its close
        assert await chat.say("/top go") == "Nobody is rated on go yet."
        final = await chat.say("/night close ladder=go", 5)
        assert final.splitlines()[0] == "Final standings on go after 1 round"
        assert "SOS" in final
        assert (await chat.say("/top go", 5)).splitlines()[0] == "go ladder"
