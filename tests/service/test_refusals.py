"""Every refusal answers with its catalogue text and changes nothing.

Each case starts from the same small club (alice, bob and carol; game #1 alice beat bob,
confirmed; game #2 bob beat carol, waiting for carol), types one line as someone, expects the
catalogue's text, and checks that the club's log and leaderboard are exactly as before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.chat.presenter import render
from bot.service.club import Caller
from bot.service.errors import Refusal
from bot.service.results import GameResult
from tests.chat import Transcript, open_club

MOD = Caller("console", "local", "mod", "mod", moderator=True)
LONG_NAME = "n" * 500


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db") as chat:
        for name in ("alice", "bob", "carol"):
            await chat.as_(name, "/register")
        await chat.as_("alice", "/report @bob win")  # game #1
        await chat.as_("bob", "/confirm")
        await chat.as_("bob", "/report @carol win")  # game #2, waiting for carol
        yield chat


async def snapshot(chat: Transcript) -> tuple[str, str]:
    """The whole log and the leaderboard, as a moderator sees them."""
    return (render(await chat.service.audit(MOD, 100)),
            render(await chat.service.leaderboard(MOD)))


def refused(key: str, **params: str | int) -> str:
    return text(key, params)


CASES = [
    # who, what they type, the answer
    ("alice", "/report @alice win", refused("not_yourself")),
    ("mod!", "/report @bob @bob draw", refused("not_yourself")),
    ("alice", "/challenge @alice", refused("challenge_yourself")),
    ("alice", "/h2h @alice", refused("h2h_yourself")),
    ("zed", "/report @bob win", refused("not_registered")),
    ("zed", "/confirm 2", refused("not_registered")),
    ("zed", "/challenge @bob", refused("not_registered")),
    ("zed", "/rating", refused("not_registered")),
    ("alice", "/report @zed win", refused("unknown_member", name="zed")),
    ("alice", "/challenge @zed", refused("unknown_member", name="zed")),
    ("alice", "/rating @zed", refused("unknown_member", name="zed")),
    ("mod!", "/merge @zed @alice", refused("unknown_member", name="zed")),
    ("alice", "/void 1", refused("moderators_only")),
    ("alice", "/restore 1", refused("moderators_only")),
    ("alice", "/correct 1 loss", refused("moderators_only")),
    ("alice", "/merge @bob @carol", refused("moderators_only")),
    ("alice", "/retire @bob", refused("moderators_only")),
    ("alice", "/return @bob", refused("moderators_only")),
    ("alice", "/undo", refused("moderators_only")),
    ("alice", "/audit", refused("moderators_only")),
    ("alice", "/system elo", refused("moderators_only")),
    ("alice", "/set hide_provisional yes", refused("moderators_only")),
    ("alice", "/ladder create blitz elo", refused("moderators_only")),
    ("alice", "/event open spring", refused("moderators_only")),
    ("alice", "/report @bob @carol win", refused("moderators_only")),
    ("alice", "/report @bob 2-0", refused("bad_result", text="2-0")),
    ("alice", "/report @bob won-ish", refused("bad_result", text="won-ish")),
    ("mod!", "/correct 1 2-0", refused("bad_result", text="2-0")),
    ("carol", "/confirm abc", refused("bad_number", text="abc")),
    ("mod!", "/void -3", refused("bad_number", text="-3")),
    ("mod!", "/void 0", refused("bad_number", text="0")),
    ("alice", "/accept 1.5", refused("bad_number", text="1.5")),
    ("alice", "/report @bob win handicap=nan", refused("bad_handicap", text="nan", limit="1000")),
    ("alice", "/report @bob win handicap=1e9", refused("bad_handicap", text="1e9", limit="1000")),
    ("alice", "/report @bob win handicap=-inf",
     refused("bad_handicap", text="-inf", limit="1000")),
    ("mod!", "/correct 1 handicap=lots", refused("bad_handicap", text="lots", limit="1000")),
    ("alice", "/report @bob win colour=green", refused("bad_colour", text="green")),
    ("alice", "/x" + "a" * 4998, refused("input_too_long", limit=2000)),
    ("dave", "/register " + LONG_NAME, refused("name_too_long", limit=32)),
    ("dave", "/register @dave", refused("bad_name", limit=32)),
    ("dave", "/register birth=1990-13-45", refused("bad_date", text="1990-13-45")),
    ("dave", "/register birth=2030-01-01", refused("birth_date_future", text="2030-01-01")),
    ("dave", "/register birth=0001-01-01", refused("bad_date", text="0001-01-01")),
    ("dave", "/register birth=1899-12-31", refused("bad_date", text="1899-12-31")),
    ("dave", "/register birth=9999-12-31", refused("birth_date_future", text="9999-12-31")),
    ("dave", "/register Alice", refused("name_taken", name="Alice")),
    # Names that only look like a member's: a Cyrillic а, fullwidth letters, capital I for l,
    # digit zero for o, a Greek omicron.
    ("dave", "/register \u0430lice", refused("name_like", name="\u0430lice", member="alice")),
    ("dave", "/register \uff41\uff4c\uff49\uff43\uff45",
     refused("name_like", name="\uff41\uff4c\uff49\uff43\uff45", member="alice")),
    ("dave", "/register AIice", refused("name_like", name="AIice", member="alice")),
    ("dave", "/register b0b", refused("name_like", name="b0b", member="bob")),
    ("dave", "/register b\u03bfb", refused("name_like", name="b\u03bfb", member="bob")),
    ("dave", "/register CAROL", refused("name_taken", name="CAROL")),
    ("alice", "/register", refused("already_registered", name="alice")),
    ("alice", "/rating @" + LONG_NAME, refused("unknown_member", name="n" * 32 + "…")),
    ("carol", "/dispute 2 " + "x" * 300, refused("too_long", limit=200)),
    ("alice", "/confirm 2", refused("not_your_game", game=2)),
    ("alice", "/dispute 2", refused("not_your_game", game=2)),
    # the reporter's own: carol answers it (issue 31)
    ("bob", "/confirm 2", refused("own_report", game=2, opponent="carol")),
    ("bob", "/dispute 2", refused("own_report", game=2, opponent="carol")),
    ("bob", "/confirm", refused("own_report", game=2, opponent="carol")),
    ("carol", "/withdraw 2", refused("not_your_report", game=2)),
    ("bob", "/confirm 1", refused("already_confirmed", game=1)),
    ("alice", "/confirm 1", refused("not_yours_to_answer", game=1)),
    ("alice", "/withdraw 1", refused("already_confirmed", game=1)),
    ("carol", "/confirm 99", refused("unknown_game", game=99)),
    ("alice", "/accept", refused("no_challenge")),
    ("alice", "/decline 2", refused("unknown_challenge", challenge=2)),
    ("mod!", "/void 99", refused("unknown_game", game=99)),
    ("mod!", "/correct 1", refused("nothing_to_correct")),
    ("mod!", "/merge @alice @alice", refused("same_member", name="alice")),
    ("mod!", "/restore 1", refused("game_not_voided", game=1)),
    ("mod!", "/return @bob", refused("not_retired", name="bob")),
    ("alice", "/frobnicate", refused("bad_command", command="/frobnicate")),
    ("alice", "hello", refused("bad_command", command="hello")),
    ("alice", "/report", refused("usage", usage=text("help_report"))),
    ("alice", "/top nope", refused("unknown_ladder", ladder="nope", ladders="main")),
    ("alice", "/report @bob win ladder=nope",
     refused("unknown_ladder", ladder="nope", ladders="main")),
    ("mod!", "/settings nope", refused("unknown_ladder", ladder="nope", ladders="main")),
    ("alice", "/report @bob win event=spring", refused("no_open_event", event="spring")),
    ("mod!", "/event close spring", refused("no_open_event", event="spring")),
    ("mod!", "/ladder create Main!", refused("bad_ladder_name", limit=32)),
    ("mod!", "/ladder create main", refused("ladder_exists", ladder="main")),
    ("mod!", "/system nope", refused("unknown_system", system="nope",
                                     systems="club, elo, shogi24, taisen, asymmetric, fqe, "
                                             "glicko, glicko2, rs-go, tactics")),
    ("mod!", "/ladder create blitz nope", refused("unknown_system", system="nope",
                                                  systems="club, elo, shogi24, taisen, "
                                                          "asymmetric, fqe, glicko, glicko2, "
                                                          "rs-go, tactics")),
    ("mod!", "/system club k=abc",
     refused("parameter_number", parameter="k", text="abc", expected="")),
    ("mod!", "/set auto_confirm_hours -1",
     refused("bad_setting_number", setting="auto_confirm_hours", text="-1", limit="8760")),
    ("mod!", "/set auto_confirm_hours nan",
     refused("bad_setting_number", setting="auto_confirm_hours", text="nan", limit="8760")),
    ("mod!", "/set auto_confirm_hours 1e308",
     refused("bad_setting_number", setting="auto_confirm_hours", text="1e308", limit="8760")),
    ("mod!", "/set challenge_hours soon", refused(
        "bad_setting_number", setting="challenge_hours", text="soon", limit="8760")),
    ("mod!", "/set challenge_hours 8761", refused(
        "bad_setting_number", setting="challenge_hours", text="8761", limit="8760")),
    ("mod!", "/set inactivity_days 0", refused(
        "bad_setting_number_or_off", setting="inactivity_days", text="0", limit="3650")),
    ("mod!", "/set inactivity_days 3651", refused(
        "bad_setting_number_or_off", setting="inactivity_days", text="3651", limit="3650")),
    ("mod!", "/set timezone Mars/Olympus", refused("bad_timezone", text="Mars/Olympus")),
    ("mod!", "/system club k=1e308", refused(
        "parameter_out_of_range", parameter="k", low="1", high="400", text="1e308")),
    ("mod!", "/ladder create blitz elo k=-1e9", refused(
        "parameter_out_of_range", parameter="k", low="1", high="400", text="-1e9")),
    ("mod!", "/set hide_provisional maybe",
     refused("bad_setting_yes_no", setting="hide_provisional", text="maybe")),
    ("mod!", "/set colour red", refused("unknown_setting", setting="colour")),
    ("mod!", "/set open_reports 0", refused(
        "bad_setting_count", setting="open_reports", limit="20", text="0")),
    ("mod!", "/set open_reports_per_opponent 6", refused(
        "setting_above", setting="open_reports_per_opponent", text="6", bound="open_reports",
        limit="5")),
    ("mod!", "/undo", refused("nothing_to_undo")),
    ("mod!", "/apply", refused("no_preview")),
]


@pytest.mark.parametrize(("who", "line", "answer"), CASES,
                         ids=[f"{who} {line[:40]}" for who, line, _ in CASES])
async def test_refusal_answers_its_catalogue_text_and_changes_nothing(
    club: Transcript, who: str, line: str, answer: str
) -> None:
    before = await snapshot(club)
    assert await club.as_(who, line) == answer
    assert await snapshot(club) == before


async def test_a_member_cannot_apply_a_moderators_preview(club: Transcript) -> None:
    before = await snapshot(club)
    assert (await club.as_("mod!", "/correct 1 loss")).startswith("Correcting game #1")
    # Previews belong to the moderator who made them: alice has none to apply.
    assert await club.as_("alice", "/apply") == text("no_preview")
    assert await snapshot(club) == before


async def test_nobody_acts_in_another_clubs_data(club: Transcript) -> None:
    before = await snapshot(club)
    elsewhere = Caller("console", "other", "alice", "alice")
    moderator_elsewhere = Caller("console", "other", "mod", "mod", moderator=True)
    with pytest.raises(Refusal) as refusal:
        await club.service.confirm(elsewhere, 2)
    assert render(refusal.value) == text("not_registered")
    with pytest.raises(Refusal) as refusal:
        await club.service.void(moderator_elsewhere, 1)
    assert render(refusal.value) == text("unknown_game", game=1)
    assert await snapshot(club) == before


async def test_a_replayed_request_id_returns_the_first_answer_and_adds_nothing(
    club: Transcript,
) -> None:
    service = club.service
    carol = Caller("console", "local", "carol", "carol", request_id="upd-1")
    first = await service.report(carol, "alice", "win")
    assert isinstance(first, GameResult)
    assert render(first) == (
        "Game #3: carol beat alice. alice, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "carol: +43 / +28 / +13 (win 43%)\nalice: +48 / -3 / -55 (win 57%)")
    after_first = await snapshot(club)
    # The platform delivers the same update again (even with other words): same answer.
    assert await service.report(carol, "alice", "win") == first
    assert await service.report(carol, "alice", "loss") == first
    assert await snapshot(club) == after_first


async def test_a_replayed_refused_request_is_decided_again_and_stored_nothing(
    club: Transcript,
) -> None:
    """Issue 30: a refusal stores no answer (a stranger's refused requests never grow the
    database), so a redelivered refused update is simply decided again: refused alike while
    nothing changed, done once the club changed (dave registered meanwhile)."""
    service = club.service
    dave = Caller("console", "local", "dave", "dave", request_id="upd-2")
    with pytest.raises(Refusal) as refusal:
        await service.report(dave, "alice", "win")
    assert render(refusal.value) == text("not_registered")
    assert await answer_of(club, "upd-2") is None
    with pytest.raises(Refusal) as refusal:
        await service.report(dave, "alice", "win")
    assert render(refusal.value) == text("not_registered")
    assert await club.as_("dave", "/register") == "Welcome, dave! You are on the main ladder."
    answer = await service.report(dave, "alice", "win")
    assert render(answer) == (
        "Game #3: dave beat alice. alice, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "dave: +43 / +28 / +13 (win 43%)\nalice: +48 / -3 / -55 (win 57%)")
    # Now a write, its answer is kept: the same update again gets it, and adds nothing.
    after = await snapshot(club)
    assert await service.report(dave, "alice", "win") == answer
    assert await snapshot(club) == after


async def test_a_replayed_write_refused_now_gets_its_first_answer(club: Transcript) -> None:
    """A redelivered /confirm that counted the first time would be refused now (already
    confirmed): the answer kept for its request id is given instead."""
    await club.as_("carol", "/report @alice win")
    alice = Caller("console", "local", "alice", "alice", request_id="upd-9")
    first = await club.service.confirm(alice, 3)
    assert isinstance(first, GameResult) and render(first).startswith("Game #3 confirmed")
    assert await club.service.confirm(alice, 3) == first


async def answer_of(club: Transcript, request_id: str) -> str | None:
    repository = club.service._repository
    club_id = await repository.club_id("console", "local", club.clock.now())
    return await repository.answer(club_id, request_id)


async def test_a_look_alike_of_a_handle_is_refused_and_other_names_are_welcome(
    club: Transcript,
) -> None:
    # zed registers as Zorro: the platform's name for him, zed, finds him too.
    assert await club.as_("zed", "/register Zorro") == text("registered", name="Zorro",
                                                            ladder="main")
    before = await snapshot(club)
    assert await club.as_("dave", "/register z\u0435d") == refused(
        "name_like", name="z\u0435d", member="Zorro")  # a Cyrillic е
    assert await club.as_("dave", "/register Z0rr0") == refused(
        "name_like", name="Z0rr0", member="Zorro")
    assert await snapshot(club) == before
    # Names that differ to the eye are not look-alikes: an accent, another letter, a script.
    for who, name in (("dave", "Alicé"), ("erin", "Alicia"), ("fay", "Боб")):
        assert await club.as_(who, f"/register {name}") == text("registered", name=name,
                                                                 ladder="main")


async def test_a_club_has_at_most_twenty_ladders(club: Transcript) -> None:
    for n in range(2, 21):
        assert (await club.as_("mod!", f"/ladder create l{n}")).startswith("Ladder l")
    before = await snapshot(club)
    assert await club.as_("mod!", "/ladder create l21") == refused("too_many_ladders",
                                                                     limit=20)
    assert await snapshot(club) == before
    # An undone creation frees its place.
    assert (await club.as_("mod!", "/undo")).startswith("Undone")
    assert (await club.as_("mod!", "/ladder create l21")).startswith("Ladder l21")
