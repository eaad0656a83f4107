"""/merge is previewed like a correction (issue 15): the games between the two records, which
stop counting once they are one person's, and every rating that would change; nothing is
written until the moderator applies it (/apply or the Apply button), and /cancel drops it.

bob plays from a second account too, as bob2; moderators record every game, so each counts at
once. Game #1 bob beat bob2, #2 bob beat carol, #3 bob2 drew with bob, #4 bob2 beat dan, #5
carol beat dan.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat import actions
from bot.chat.messages import text
from bot.chat.presenter import render
from bot.service.club import Caller
from bot.service.errors import Refusal
from bot.service.results import Leaderboard, Notice, Preview, RatingChange, decode, encode
from ratings_core.model import Game, Join, Step
from ratings_core.replay import replay
from ratings_core.systems import make_system
from tests.chat import START, Transcript, open_club

#: the console's moderator, asking the service directly
MOD = Caller("console", "local", "mod", "mod", moderator=True)
GAMES = ["/report @bob @bob2 win", "/report @bob @carol win", "/report @bob2 @bob draw",
         "/report @bob2 @dan win", "/report @carol @dan win"]
#: the preview's first line when games #1 and #3 are dropped
DROPS = ("Merging bob2 into bob would drop games #1, #3 (played between the two records) and "
         "change:")


@pytest.fixture
async def chat(database: Path | str) -> AsyncIterator[Transcript]:
    """bob, carol, dan and bob's second account bob2, with games #1 to #5 recorded."""
    async with open_club(database) as transcript:
        for user, name in (("bob", "bob"), ("carol", "carol"), ("dan", "dan"),
                           ("bob_alt", "bob2")):
            assert await transcript.as_(user, f"/register {name}") == text(
                "registered", name=name, ladder="main")
        await transcript.as_("mod!", *GAMES)
        yield transcript


async def ratings(chat: Transcript, ladder: str | None = None) -> dict[str, float]:
    board = await chat.service.leaderboard(MOD, ladder)
    assert isinstance(board, Leaderboard)
    return {row.name: row.rating for row in board.rows}


async def log_of(chat: Transcript) -> str:
    """The club's whole audit log: equal before and after means nothing was written."""
    return render(await chat.service.audit(MOD, 100))


def moves(before: dict[str, float], after: dict[str, float], provisional: set[str]) -> list[str]:
    """The lines of the ratings that move, in the members' order of registration, ``?`` after
    the ``provisional`` ones; a record merged away has none after."""
    return [f"{name}: {before[name]:.0f} -> "
            + (f"{after[name]:.0f}{'?' if name in provisional else ''}" if name in after else "-")
            for name in ("bob", "carol", "dan", "bob2")
            if name in before and before[name] != after.get(name)]


#: the history had bob never had a second record: games #2, #4 (as bob's) and #5
WITHOUT_BOB2: list[Step] = [*(Join(name, START) for name in ("bob", "carol", "dan")),
                            Game("bob", "carol", 1.0, START), Game("bob", "dan", 1.0, START),
                            Game("carol", "dan", 1.0, START)]


def without_bob2() -> dict[str, float]:
    """The ratings of :data:`WITHOUT_BOB2`, replayed by the engine from scratch."""
    return {name: state.rating
            for name, state in replay(make_system("club", {}), WITHOUT_BOB2).players.items()}


def provisional_without_bob2() -> set[str]:
    """Who is provisional after :data:`WITHOUT_BOB2`: not everyone, since a newcomer who joins
    a league of near equals starts established (edition 3: the league's spread, at least
    74.56)."""
    system = make_system("club", {})
    return {name for name, state in replay(system, WITHOUT_BOB2).players.items()
            if system.is_provisional(state)}


async def test_merge_previews_the_dropped_games_and_ratings_then_apply_merges(
    chat: Transcript,
) -> None:
    before, top, log = await ratings(chat), await chat.as_("mod!", "/top"), await log_of(chat)
    after = without_bob2()
    changes = moves(before, after, provisional_without_bob2())
    assert changes[-1] == f"bob2: {before['bob2']:.0f} -> -"
    assert len(changes) == 4  # bob, carol and dan move; bob2's record goes

    assert await chat.say("/merge @bob2 @bob") == "\n".join(
        [DROPS, *changes, text("apply_hint_merge")])
    # Nothing changed: the same leaderboard, no new entry in the log.
    assert await chat.say("/top") == top
    assert await ratings(chat) == before
    assert await log_of(chat) == log

    assert await chat.say("/apply") == "\n".join([
        "bob2 is merged into bob: their games are bob's now. Games #1, #3 between them no "
        "longer count. Ratings changed:", *changes])
    assert await ratings(chat) == after
    # The dropped games no longer count: bob's games are #2 and bob2's #4.
    assert await chat.say("/history @bob") == "\n".join([
        "bob's games on main:", "#4 Mar 1, 2024 bob beat dan", "#2 Mar 1, 2024 bob beat carol"])
    assert await chat.say("/audit 1") == (
        "#11 Fri, Mar 1 19:00 UTC mod merged the duplicate record bob2 into bob")
    assert await chat.say("/apply") == text("no_preview")  # applied once


async def test_only_the_games_that_count_are_dropped(chat: Transcript) -> None:
    # Game #1 is void already, and bob2's report #6 against bob waits for bob: neither counts,
    # so neither is dropped.
    await chat.as_("mod!", "/void 1 wrong pairing")
    await chat.as_("bob_alt", "/report @bob loss")
    preview = await chat.as_("mod!", "/merge @bob2 @bob")
    assert preview.splitlines()[0] == (
        "Merging bob2 into bob would drop game #3 (played between the two records) and change:")
    applied = await chat.say("/apply")
    assert applied.splitlines()[0] == (
        "bob2 is merged into bob: their games are bob's now. Game #3 between them no longer "
        "counts. Ratings changed:")
    assert applied.splitlines()[1:] == preview.splitlines()[1:-1]  # the preview's lines
    assert await ratings(chat) == without_bob2()


async def test_a_merge_of_records_that_never_played_each_other_drops_no_game(
    chat: Transcript,
) -> None:
    # carol played bob and dan, bob2 played bob and dan: never each other.
    before = await ratings(chat)
    preview = await chat.as_("mod!", "/merge @carol @bob2")
    assert preview.splitlines()[0] == "Merging carol into bob2 drops no game and would change:"
    assert f"carol: {before['carol']:.0f} -> -" in preview.splitlines()
    applied = await chat.say("/apply")
    assert applied.splitlines()[0] == (
        "carol is merged into bob2: their games are bob2's now. Ratings changed:")
    assert applied.splitlines()[1:] == preview.splitlines()[1:-1]
    assert set(await ratings(chat)) == {"bob", "bob2", "dan"}
    # bob2 has carol's games too: #2 and #5 (newest first: W W D L L)
    assert (await chat.say("/rating @bob2")).endswith(" 5 games (2W 1D 2L), no peak yet, "
                                                     "recent W W D L L")


async def test_cancel_drops_the_preview_and_changes_nothing(chat: Transcript) -> None:
    before, log = await ratings(chat), await log_of(chat)
    await chat.as_("mod!", "/merge @bob2 @bob")
    assert await chat.say("/cancel") == "Merge of bob2 into bob cancelled; nothing changed."
    assert await chat.say("/apply") == text("no_preview")
    assert await chat.say("/cancel") == text("no_preview_to_cancel")
    assert await ratings(chat) == before
    assert await log_of(chat) == log


async def test_the_buttons_of_an_older_preview_apply_nothing(chat: Transcript) -> None:
    older = await chat.service.merge(MOD, "bob2", "bob")
    assert isinstance(older, Preview) and older.merge is not None and not older.applied
    # a merge's buttons name the duplicate by its member id, the id of its registration (5)
    assert older.game_id == 5
    assert [[a.id for a in row] for row in actions.actions_for(older)] == [
        ["m:apply:5", "m:cancel:5"]]
    log = await log_of(chat)
    newer = await chat.as_("mod!", "/merge @carol @dan")  # replaces the older preview
    for pressed in ("m:apply:5", "m:cancel:5"):
        with pytest.raises(Refusal) as refused:
            await actions.press(chat.service, MOD, actions.read(pressed))
        assert refused.value.key == "no_preview"
    assert await log_of(chat) == log
    # The newer one still waits, and its own button applies it.
    answer, _ = await actions.press(chat.service, MOD, actions.read("m:apply:3"))
    assert isinstance(answer, Preview) and answer.applied
    assert render(answer).splitlines()[1:] == newer.splitlines()[1:-1]
    assert "carol" not in await ratings(chat) and "bob2" in await ratings(chat)


async def test_a_merge_applied_after_the_club_changed_is_refused(chat: Transcript) -> None:
    # mod previews bob2 into bob; meanwhile ann, another moderator, merges bob2 into carol.
    await chat.as_("mod!", "/merge @bob2 @bob")
    await chat.as_("ann!", "/merge @bob2 @carol", "/apply")
    log = await log_of(chat)
    assert await chat.as_("mod!", "/apply") == text("unknown_member", name="bob2")
    assert await log_of(chat) == log
    # ... and the record merged into is checked too: dan merged into bob before carol into dan.
    await chat.as_("mod!", "/merge @carol @dan")
    await chat.as_("ann!", "/merge @dan @bob", "/apply")
    log = await log_of(chat)
    assert await chat.as_("mod!", "/apply") == text("unknown_member", name="dan")
    assert await log_of(chat) == log


async def test_a_non_moderator_cannot_apply_a_merge(chat: Transcript) -> None:
    assert await chat.as_("carol", "/merge @bob2 @bob") == text("moderators_only")
    # A moderator who previewed one and lost the role since is refused at Apply.
    await chat.as_("mod!", "/merge @bob2 @bob")
    log = await log_of(chat)
    assert await chat.as_("mod", "/apply") == text("moderators_only")
    assert await log_of(chat) == log


async def test_a_merge_moves_every_ladder(chat: Transcript) -> None:
    await chat.as_("mod!", "/ladder create blitz elo", "/report @bob2 @carol win ladder=blitz")
    blitz = await ratings(chat, "blitz")
    preview = (await chat.as_("mod!", "/merge @bob2 @bob")).splitlines()
    assert f"bob2 (blitz): {blitz['bob2']:.0f} -> -" in preview
    assert any(line.startswith("bob (blitz): - -> ") for line in preview)
    assert any(line.startswith("bob2 (main): ") for line in preview)
    applied = (await chat.say("/apply")).splitlines()
    assert applied[1:] == preview[1:-1]
    assert set(await ratings(chat, "blitz")) == {"bob", "carol"}


def test_the_answers_of_earlier_builds_still_decode() -> None:
    stored = ('{"type": "Preview", "game_id": 3, "changes": [{"type": "RatingChange", '
              '"name": "bob", "before": 1500.0, "after": 1520.0, "provisional": true}], '
              '"applied": true, "undo": null, "rates": true}')
    answer = decode(stored)
    assert answer == Preview(3, [RatingChange("bob", 1500.0, 1520.0, True)], applied=True)
    assert isinstance(answer, Preview) and answer.merge is None
    merged = Preview(5, [], applied=True, merge=Notice(
        "merged", {"from": "bob2", "into": "bob", "games": "#1, #3", "dropped": 2}))
    assert decode(encode(merged)) == merged
    assert json.loads(encode(merged))["merge"]["params"]["games"] == "#1, #3"
