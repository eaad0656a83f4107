"""A rating system's parameter typed outside its bounds is refused, stating the bounds
(issue 15): in the chat (/system, /ladder create) and on the command line (--set). Nothing is
stored after a refusal, and a parameter an older bot stored outside the bounds still loads and
rates exactly as before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.chat.presenter import render
from bot.cli import main
from bot.service import events as ev
from bot.service.club import Caller
from bot.service.parsing import MAX_HANDICAP
from bot.service.ratings import LadderRatings, member_of_key
from bot.service.state import ClubState
from bot.storage.backends import open_repository
from ratings_core.elo import ClassicElo, EloParams
from ratings_core.replay import replay
from tests.chat import START, Transcript, open_club

MOD = Caller("console", "local", "mod", "mod", moderator=True)


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db") as chat:
        for name in ("alice", "bob"):
            await chat.as_(name, "/register")
        await chat.as_("alice", "/report @bob win")
        await chat.as_("bob", "/confirm")
        yield chat


async def snapshot(chat: Transcript) -> tuple[str, ...]:
    """The whole log, the leaderboard and every ladder's settings, as a moderator sees them."""
    return (render(await chat.service.audit(MOD, 100)),
            render(await chat.service.leaderboard(MOD)),
            render(await chat.service.settings(MOD)))


def bounds(key: str, parameter: str, low: str, high: str, typed: str) -> str:
    return text(key, parameter=parameter, low=low, high=high, text=typed)


REFUSALS = [
    ("/system club k=1e308", "k is a number from 1 to 400 (not 1e308)."),
    ("/ladder create b elo k=1e300", "k is a number from 1 to 400 (not 1e300)."),
    ("/system elo k=0", "k is a number from 1 to 400 (not 0)."),
    ("/system elo k=400.5", "k is a number from 1 to 400 (not 400.5)."),
    ("/ladder create blitz elo k=-1e9", "k is a number from 1 to 400 (not -1e9)."),
    ("/system club base=4001", "base is a number from 0 to 4000 (not 4001)."),
    ("/system club provisional_games=101",
     "provisional_games is a whole number from 0 to 100 (not 101)."),
    ("/system elo floor=-1", "floor is a number from 0 to 4000, or none (not -1)."),
    ("/system elo veteran_games=1001",
     "veteran_games is a whole number from 0 to 1000, or none (not 1001)."),
    ("/system glicko2 tau=3", "tau is a number from 0.05 to 2 (not 3)."),
    ("/system glicko initial_deviation=0", "initial_deviation is a number from 1 to 1000 (not 0)."),
    ("/system club first_move_advantage=1000.5",
     "first_move_advantage is a number from -1000 to 1000 (not 1000.5)."),
    ("/system rs-go expert_trust=0", "expert_trust is a number from 0.01 to 1 (not 0)."),
    ("/system club k=24 pool_cap=" + "9" * 40,
     f"pool_cap is a number from 0 to 1000 (not {'9' * 20})."),
]


@pytest.mark.parametrize(("line", "answer"), REFUSALS, ids=[line for line, _ in REFUSALS])
async def test_a_value_outside_its_bounds_is_refused_stating_them(
    club: Transcript, line: str, answer: str
) -> None:
    before = await snapshot(club)
    assert await club.as_("mod!", line) == answer
    assert await snapshot(club) == before  # nothing stored
    assert await club.as_("mod!", "/settings b") == text("unknown_ladder", ladder="b",
                                                          ladders="main")


async def test_the_four_sentences_come_from_the_catalogue(club: Transcript) -> None:
    assert await club.as_("mod!", "/system club k=0") == bounds(
        "parameter_out_of_range", "k", "1", "400", "0")
    assert await club.as_("mod!", "/system club provisional_games=-1") == bounds(
        "parameter_out_of_range_whole", "provisional_games", "0", "100", "-1")
    assert await club.as_("mod!", "/system elo ratchet=5000") == bounds(
        "parameter_out_of_range_or_none", "ratchet", "0", "4000", "5000")
    assert await club.as_("mod!", "/system elo veteran_games=-1") == bounds(
        "parameter_out_of_range_whole_or_none", "veteran_games", "0", "1000", "-1")


async def test_values_at_the_bounds_are_taken(club: Transcript) -> None:
    # alice's win is re-rated by elo from 1600: veteran_games=0 makes both veterans from their
    # first game, so K is k_master's 16, not 400: +-8 (previewed first, issue 19).
    switch = {"ladder": "main", "system": "elo", "params": "floor=none, k=400, veteran_games=0"}
    changes = ["alice: 1553? -> 1608", "bob: 1447? -> 1592"]
    assert await club.as_("mod!", "/system elo k=400 floor=none veteran_games=0") == "\n".join([
        text("system_preview", switch), *changes, text("apply_hint_system")])
    assert await club.say("/apply") == "\n".join([text("system_applied", switch), *changes])
    settings = await club.say("/settings")
    assert "k=400.0, " in settings and "veteran_games=0, " in settings
    assert await club.as_("mod!", "/ladder create b glicko2 tau=0.05 first_move_advantage=-1000"
                          ) == text("ladder_created_params", {
                              "ladder": "b", "system": "glicko2",
                              "params": "first_move_advantage=-1000, tau=0.05"})
    assert "tau=0.05" in await club.as_("mod!", "/settings b")


async def test_other_bad_parameters_are_refused_as_before(club: Transcript) -> None:
    # issue 33: the kind of mistake is a message of its own, in the reader's language
    assert await club.as_("mod!", "/system club k=abc") == (
        "k is a number (not abc).") == text("parameter_number", parameter="k", text="abc")
    assert await club.say("/system elo curve=logistik") == (
        "curve is one of logistic, normal (not logistik).")
    assert (await club.say("/system club kk=1")).startswith("There is no parameter kk; ")
    # within each parameter's bounds, but not together: the system's own rule says why
    assert await club.as_("mod!", "/system glicko min_deviation=500") == text(
        "bad_parameter", problem="parameter 'max_deviation' must be finite and >= min_deviation")


def test_the_first_move_advantage_keeps_the_handicap_rule() -> None:
    from ratings_core.parameters import FIRST_MOVE_LIMIT  # bounds of ratings_core, no bot

    assert FIRST_MOVE_LIMIT == MAX_HANDICAP


# -- the command line: the same rule, one line --------------------------------------------------


def events_file(tmp_path: Path) -> Path:
    events = tmp_path / "EVENTS.csv"
    events.write_text("played_at,event,player_a,player_b,score_a\n2024-05-01,,A,B,1\n"
                      "2024-05-02,,B,A,0.5\n")
    return events


@pytest.mark.parametrize(("argv", "answer"), [
    (["replay", "--set", "k=1e308"], "k is a number from 1 to 400 (not 1e308)."),
    (["replay", "--system", "elo", "--set", "floor=-1"],
     "floor is a number from 0 to 4000, or none (not -1)."),
    (["evaluate", "--systems", "elo,glicko2", "--set", "tau=9"],
     "tau is a number from 0.05 to 2 (not 9)."),
    (["evaluate", "--systems", "club", "--set", "provisional_games=500"],
     "provisional_games is a whole number from 0 to 100 (not 500)."),
])
def test_the_command_line_refuses_the_same_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], answer: str
) -> None:
    assert main([*argv, str(events_file(tmp_path))]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"clubrating: {answer}\n"


def test_the_command_line_takes_values_within_the_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "--set", "k=400", str(events_file(tmp_path))]) == 0
    assert '"system": "club"' in capsys.readouterr().out


# -- what the log holds is never held to the bounds ----------------------------------------------


async def test_a_stored_parameter_outside_its_bounds_still_rates_as_before(
    tmp_path: Path,
) -> None:
    path = tmp_path / "club.db"
    async with open_club(path) as chat:
        for name in ("alice", "bob", "carol"):
            await chat.as_(name, "/register")
        await chat.as_("alice", "/report @bob win")
        await chat.as_("bob", "/confirm")
        await chat.as_("carol", "/report @bob draw")
        await chat.as_("bob", "/confirm")
    # An older bot took k=1e6 (and a ladder created with it): its log holds them as typed.
    later = START + timedelta(hours=1)
    repository = await open_repository(path)
    try:
        club_id = await repository.club_id("console", "local", later)
        last = (await repository.events(club_id))[-1].id
        async with repository.transaction(club_id, last) as tx:
            await tx.append([
                ev.new_event(ev.SettingsChanged("main", {"system": "elo",
                                                         "params": {"k": "1e6"}}), "mod", later),
                ev.new_event(ev.LadderCreated("old", "elo", {"k": "1e6", "floor": "-50"}),
                             "mod", later),
            ])
        state = ClubState.build(await repository.events(club_id))
    finally:
        await repository.close()

    derived = LadderRatings()
    derived.sync(state, state.ladders["main"])
    expected = replay(ClassicElo(EloParams(k=1e6)), derived.steps).final
    names = {key: state.member(member_of_key(key)).name for key in expected.players}
    async with open_club(path, start=later + timedelta(minutes=1)) as chat:
        board = await chat.service.leaderboard(MOD)
        assert {row.name: row.rating for row in board.rows} == {
            names[key]: player.rating for key, player in expected.players.items()}
        assert {row.name: row.rating for row in board.rows}["alice"] == 1600 + 1e6 / 2
        assert "k=1000000.0" in await chat.as_("mod!", "/settings")
        assert "floor=-50.0" in await chat.as_("mod!", "/settings old")
        # typed today, the same value is refused; the stored one stays
        assert await chat.as_("mod!", "/system elo k=1e6") == (
            "k is a number from 1 to 400 (not 1e6).")
        assert await chat.service.leaderboard(MOD) == board
