"""Every use case of the club, typed through the console as members and moderators type it.

Each test reads as a chat: ``chat.as_("alice", "/report @bob win")`` is alice typing the line,
and the assertion is what the bot answers. Ratings are checked exactly: either with numbers the
rules give by hand (a new club's ladder rates by deviation, edition 3 of issue 19: two 1500
newcomers of deviation 150, first win: K 115.7 x w 0.924 x 1/2 = 53.5, so 1553.5 and 1446.5) or
against ``ratings_core.replay`` of the same games built independently of the service.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.chat.presenter import render
from bot.service.club import Caller
from bot.service.results import Leaderboard, Profile
from ratings_core.glickman import Q, attenuation
from ratings_core.model import Game, Join, RatingPeriod, Retire, Step
from ratings_core.replay import replay
from ratings_core.systems import make_system
from tests.chat import START, Transcript, open_club

#: the console's moderator, asking the service directly (for exact, unrounded numbers)
MOD = Caller("console", "local", "mod", "mod", moderator=True)
#: the deviation at which K is 32: sqrt(32 / q) = 74.56 (docs/rating-systems.md, "club")
_ESTABLISHED = math.sqrt(32 / Q)
#: the share of Glicko's information a game gives (edition 3's ``information``)
_INFORMATION = 0.75
#: two 1500 newcomers of deviation 150 (fewer than two have played: no league spread yet, and
#: neither has played, so no first opponents' level), one wins: each weighs the other by
#: w = g(sqrt(150^2 - 74.56^2)) = 0.924; 3/4 of the game's information shrinks 150 to 141.8,
#: so K = q 141.8^2 = 115.7
_W = attenuation(math.sqrt(150.0**2 - _ESTABLISHED**2))
_DEVIATION = 1.0 / math.sqrt(1.0 / 150.0**2 + _INFORMATION * (Q * Q * (_W * _W * 0.25)))
_K = Q * _DEVIATION * _DEVIATION
FIRST_WIN = 1500.0 + _K * (_W * (1.0 - 0.5))  # 1553.5, shown 1553?
FIRST_LOSS = 1500.0 + _K * (_W * (0.0 - 0.5))  # 1446.5, shown 1447?


@pytest.fixture
async def chat(database: Path | str) -> AsyncIterator[Transcript]:
    """A fresh club, on each backend in turn (the ``database`` fixture, conftest.py)."""
    async with open_club(database) as transcript:
        yield transcript


async def ratings(chat: Transcript, ladder: str | None = None) -> dict[str, float]:
    """The leaderboard's exact ratings by display name."""
    board = await chat.service.leaderboard(MOD, ladder)
    assert isinstance(board, Leaderboard)
    return {row.name: row.rating for row in board.rows}


async def rating_of(chat: Transcript, name: str, ladder: str | None = None) -> float:
    profile = await chat.service.profile(MOD, name, ladder)
    assert isinstance(profile, Profile) and profile.rating is not None
    return profile.rating


async def log_of(chat: Transcript) -> str:
    """The club's whole audit log as text: equal before and after means nothing was written."""
    return render(await chat.service.audit(MOD, 100))


async def register(chat: Transcript, *names: str) -> None:
    for name in names:
        assert await chat.as_(name, "/register") == text("registered", name=name, ladder="main")


def joins(*names: str) -> list[Step]:
    return [Join(name, START) for name in names]


def rated(steps: Sequence[Step], system: str = "club", **params: str) -> dict[str, float]:
    """Ratings of a history built by hand, replayed from scratch by the engine."""
    result = replay(make_system(system, params), steps)
    return {name: state.rating for name, state in result.players.items()}


def shown(steps: Sequence[Step]) -> dict[str, str]:
    """The ratings of a history built by hand as the bot shows them on a new club's ladder:
    rounded, with ``?`` while provisional. A newcomer who joins a league of near equals starts
    established (edition 3: their deviation is the league's spread, at least 74.56), so the
    mark is the system's to say, not always there."""
    system = make_system("club")
    result = replay(system, steps)
    return {name: f"{state.rating:.0f}{'?' if system.is_provisional(state) else ''}"
            for name, state in result.players.items()}


def win(a: str, b: str, score: float = 1.0, when: datetime = START) -> Game:
    return Game(a, b, score, when)


# -- members ------------------------------------------------------------------------------------


async def test_register_under_own_name_another_name_and_with_a_birth_date(
    chat: Transcript,
) -> None:
    assert await chat.as_("alice", "/register") == "Welcome, alice! You are on the main ladder."
    assert await chat.as_("bob", '/register "Bobby Fischer"') == (
        "Welcome, Bobby Fischer! You are on the main ladder."
    )
    assert await chat.as_("kid", "/register birth=2015-05-01") == (
        "Welcome, kid! You are on the main ladder."
    )
    assert await chat.say("/rating") == (
        "kid (main): 1500?, no games yet."
    )
    # Members are found by display name or by their chat user name.
    assert await chat.say('/rating "@Bobby Fischer"') == (
        "Bobby Fischer (main): 1500?, no games yet."
    )
    assert await chat.say("/rating @bob") == await chat.say('/rating "@Bobby Fischer"')
    # The birth date counts where the system uses it: elo starts an under-14 at 1200. The
    # switch moves the starts, so it is previewed first (issue 19), then applied.
    starts = ["alice: 1500? -> 1600", "Bobby Fischer: 1500? -> 1600", "kid: 1500? -> 1200"]
    assert await chat.as_("mod!", "/system elo") == "\n".join([
        "Setting ladder main to elo (defaults) re-rates every game and would change:", *starts,
        text("apply_hint_system"),
    ])
    assert await chat.say("/apply") == "\n".join([
        "Ladder main now uses elo (defaults); every game was re-rated. Ratings changed:", *starts,
    ])
    assert await chat.say("/top") == "\n".join([
        "main ladder",
        "  1. alice               1600  0 games",
        "  2. Bobby Fischer       1600  0 games",
        "  3. kid                 1200  0 games",
    ])


async def test_rating_top_history_h2h_and_pending_on_a_club_night(chat: Transcript) -> None:
    await register(chat, "alice", "bob", "carol")
    assert await chat.as_("alice", "/rating") == (
        "alice (main): 1500?, no games yet."
    )
    assert await chat.say("/history") == "alice has no games on main yet."
    assert await chat.say("/pending") == "Nothing waiting for you."

    assert await chat.say("/report @bob win") == (
        "Game #1: alice beat bob. bob, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "alice: +53 / 0 / -53 (win 50%)\nbob: +53 / 0 / -53 (win 50%)"
    )
    assert await chat.say("/pending") == (
        "Your reports waiting: #1 Mar 1, 2024 alice beat bob [pending]"
    )
    assert await chat.as_("bob", "/pending") == (
        "To confirm or dispute: #1 Mar 1, 2024 alice beat bob [pending]"
    )
    assert await chat.say("/confirm") == "\n".join([
        "Game #1 confirmed: alice beat bob.",
        "alice: 1500 -> 1553?",
        "bob: 1500 -> 1447?",
    ])
    assert await chat.say("/pending") == "Nothing waiting for you."

    # carol (1500, no games) holds alice (1553.5, deviation 141.8) to a draw. Two have played,
    # 1553.5 and 1446.5: 1.25 x their spread 53.5 = 66.8 is below the established 74.56, so
    # carol starts established (K 32; marked ? all the same for her first 24 games), and half
    # way to her first opponent: 1526.7. Her expected score is 0.462 and alice's doubt weighs
    # the game g(sqrt(141.8^2 - 74.56^2)) = 0.934: 1526.7 + 32 x 0.934 x (0.5 - 0.462) =
    # 1527.9; carol weighs 1 for alice, whose deviation shrinks to 133.7 (K 102.9):
    # 1553.5 - 102.9 x (0.538 - 0.5) = 1549.5.
    assert await chat.as_("carol", "/report @alice draw") == (
        "Game #2: carol drew with alice. alice, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "carol: +43 / +28 / +13 (win 43%)\nalice: +48 / -3 / -55 (win 57%)"
    )
    assert await chat.as_("alice", "/confirm 2") == "\n".join([
        "Game #2 confirmed: carol drew with alice.",
        "carol: 1500 -> 1528?",
        "alice: 1553 -> 1550?",
    ])
    night = rated([*joins("alice", "bob", "carol"), win("alice", "bob"),
                   win("carol", "alice", 0.5)])
    assert await ratings(chat) == night
    assert night["bob"] == FIRST_LOSS
    assert (round(night["alice"], 1), round(night["carol"], 1)) == (1549.5, 1527.9)

    assert await chat.say("/top") == "\n".join([
        "main ladder",
        "  1. alice      1550?  2 games",
        "  2. carol      1528?  1 game",
        "  3. bob        1447?  1 game",
    ])
    assert await chat.say("/rating") == (
        "alice (main): 1550?, rank 1, 2 games (1W 1D 0L), no peak yet, recent D W"
    )
    assert await chat.say("/rating @bob") == (
        "bob (main): 1447?, rank 3, 1 game (0W 0D 1L), no peak yet, recent L"
    )
    assert await chat.say("/history") == "\n".join([
        "alice's games on main:",
        "#2 Mar 1, 2024 carol drew with alice",
        "#1 Mar 1, 2024 alice beat bob",
    ])
    assert await chat.say("/history @carol") == "\n".join([
        "carol's games on main:",
        "#2 Mar 1, 2024 carol drew with alice",
    ])
    assert await chat.say("/h2h @bob") == "\n".join([
        "alice vs bob (main): 1W 0D 0L",
        "#1 Mar 1, 2024 alice beat bob",
    ])
    assert await chat.as_("bob", "/h2h @carol") == "bob vs carol (main): 0W 0D 0L"


# -- challenges ---------------------------------------------------------------------------------


async def test_challenge_accepted(chat: Transcript) -> None:
    await register(chat, "alice", "bob")
    assert await chat.as_("alice", "/challenge @bob") == (
        "alice challenges bob (challenge #1, main). bob: /accept or /decline before "
        "Sun, Mar 3 19:00 UTC.\nalice: +53 / 0 / -53 (win 50%)\nbob: +53 / 0 / -53 (win 50%)"
    )
    assert await chat.as_("bob", "/pending") == (
        "#1: alice challenges bob (main), open until Sun, Mar 3 19:00 UTC."
    )
    assert await chat.say("/accept") == (
        "bob accepts alice's challenge #1. Play, then /report the result."
    )
    assert await chat.say("/pending") == "Nothing waiting for you."
    assert await chat.say("/accept 1") == text(
        "challenge_was_accepted", challenge=1
    )
    assert await chat.say("/report @alice win") == (
        "Game #1: bob beat alice. alice, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "bob: +53 / 0 / -53 (win 50%)\nalice: +53 / 0 / -53 (win 50%)"
    )


async def test_challenge_declined(chat: Transcript) -> None:
    await register(chat, "alice", "bob")
    await chat.as_("alice", "/challenge @bob")
    assert await chat.say("/accept 1") == text("not_your_challenge", challenge=1)
    assert await chat.as_("bob", "/decline") == "bob declines alice's challenge #1."
    assert await chat.say("/accept 1") == text(
        "challenge_was_declined", challenge=1
    )
    assert await chat.as_("alice", "/pending") == "Nothing waiting for you."
    # Declined, the pair may challenge again.
    assert (await chat.as_("bob", "/challenge @alice")).startswith(
        "bob challenges alice (challenge #2, main)."
    )


async def test_challenge_expires_after_challenge_hours(chat: Transcript) -> None:
    await register(chat, "alice", "bob")
    await chat.as_("alice", "/challenge @bob")
    chat.clock.advance(hours=47, minutes=59)
    assert await chat.as_("bob", "/pending") == (
        "#1: alice challenges bob (main), open until Sun, Mar 3 19:00 UTC."
    )
    chat.clock.advance(minutes=1)  # 48 h: the default challenge_hours
    assert await chat.say("/pending") == "Nothing waiting for you."
    assert await chat.say("/accept") == text("challenge_expired", challenge=1)
    assert await chat.say("/accept 1") == text("challenge_expired", challenge=1)
    assert await chat.say("/decline 1") == text("challenge_expired", challenge=1)
    # The expired challenge no longer blocks a new one.
    assert (await chat.as_("alice", "/challenge @bob")).startswith(
        "alice challenges bob (challenge #2, main)."
    )


# -- results ------------------------------------------------------------------------------------


async def test_report_then_confirm_rates_two_newcomers_1553_and_1447(chat: Transcript) -> None:
    await register(chat, "alice", "bob")
    assert await chat.as_("alice", "/report @bob win") == (
        "Game #1: alice beat bob. bob, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "alice: +53 / 0 / -53 (win 50%)\nbob: +53 / 0 / -53 (win 50%)"
    )
    assert await ratings(chat) == {"alice": 1500.0, "bob": 1500.0}  # nothing counts yet
    assert await chat.as_("bob", "/confirm") == "\n".join([
        "Game #1 confirmed: alice beat bob.",
        "alice: 1500 -> 1553?",
        "bob: 1500 -> 1447?",
    ])
    # 1500 +- K 115.7 x w 0.924 x 1/2: the first game of two newcomers of deviation 150
    assert await ratings(chat) == {"alice": FIRST_WIN, "bob": FIRST_LOSS}
    assert await chat.say("/top") == "\n".join([
        "main ladder",
        "  1. alice      1553?  1 game",
        "  2. bob        1447?  1 game",
    ])
    assert await chat.say("/confirm 1") == text("already_confirmed", game=1)


async def test_report_disputed_then_settled_by_a_moderator(chat: Transcript) -> None:
    await register(chat, "alice", "bob")
    await chat.as_("alice", "/report @bob win")
    assert await chat.as_("bob", "/dispute I won on time") == (
        "Game #1 is disputed: alice beat bob. A moderator will settle it; it waits in "
        "their /pending."
    )
    assert await chat.say("/confirm") == text("nothing_pending")
    assert await chat.say("/confirm 1") == text("game_disputed", game=1)
    assert await chat.as_("alice", "/pending") == (
        "Your reports waiting: #1 Mar 1, 2024 alice beat bob [disputed]"
    )
    chat.clock.advance(hours=25)  # a disputed report never confirms itself
    assert await ratings(chat) == {"alice": 1500.0, "bob": 1500.0}

    assert await chat.as_("mod!", "/correct 1 loss") == "\n".join([
        "Correcting game #1 would change:",
        "Result: alice beat bob -> bob beat alice",
        "alice: 1500 -> 1447?",
        "bob: 1500 -> 1553?",
        "Send /apply to make this correction, or /cancel.",
    ])
    assert await chat.say("/apply") == "\n".join([
        "Game #1 corrected. Ratings changed:",
        "Result: alice beat bob -> bob beat alice",
        "alice: 1500 -> 1447?",
        "bob: 1500 -> 1553?",
    ])
    assert await ratings(chat) == {"bob": FIRST_WIN, "alice": FIRST_LOSS}
    assert await chat.as_("alice", "/history") == "\n".join([
        "alice's games on main:",
        "#1 Mar 1, 2024 bob beat alice",
    ])
    audit = (await chat.as_("mod!", "/audit 2")).splitlines()
    assert audit == [
        "#6 Sat, Mar 2 20:00 UTC mod corrected game #1: alice beat bob -> bob beat alice",
        "#5 Fri, Mar 1 19:00 UTC bob disputed game #1, because: I won on time",
    ]


async def test_withdraw_own_report(chat: Transcript) -> None:
    await register(chat, "alice", "bob")
    await chat.as_("alice", "/report @bob win")
    assert await chat.as_("bob", "/withdraw 1") == text("not_your_report", game=1)
    assert await chat.as_("alice", "/withdraw") == "Game #1 withdrawn: alice beat bob."
    assert await chat.say("/pending") == "Nothing waiting for you."
    assert await chat.as_("bob", "/confirm") == text("nothing_pending")
    assert await chat.say("/confirm 1") == text("game_withdrawn", game=1)
    assert await chat.as_("mod!", "/correct 1 win") == text("game_withdrawn", game=1)
    chat.clock.advance(hours=25)  # a withdrawn report never confirms itself either
    assert await ratings(chat) == {"alice": 1500.0, "bob": 1500.0}


async def test_unanswered_report_confirms_itself_after_24_hours(chat: Transcript) -> None:
    await register(chat, "alice", "bob")
    await chat.as_("alice", "/report @bob win")
    chat.clock.advance(hours=23)
    assert await chat.say("/pending") == (
        "Your reports waiting: #1 Mar 1, 2024 alice beat bob [pending]"
    )
    chat.clock.advance(hours=2)
    assert await chat.say("/pending") == "Nothing waiting for you."
    assert await chat.say("/history") == "\n".join([
        "alice's games on main:",
        "#1 Mar 1, 2024 alice beat bob",
    ])
    assert await ratings(chat) == {"alice": FIRST_WIN, "bob": FIRST_LOSS}
    assert await chat.as_("bob", "/confirm 1") == text("already_confirmed", game=1)
    assert await chat.as_("mod!", "/audit 1") == (
        "#5 Sat, Mar 2 20:00 UTC game #1 counted by itself, because: unanswered for 24 h"
    )


async def test_a_report_that_confirms_itself_late_retires_idle_players_at_once(
        chat: Transcript) -> None:
    """What time made due is applied until nothing more is: the game confirmed after 24 hours
    is already two days old, so on the same read both players are retired for inactivity,
    as a service reading the log afresh would say."""
    await register(chat, "alice", "bob")
    await chat.as_("mod!", "/set inactivity_days 2")
    await chat.as_("alice", "/report @bob win")
    chat.clock.advance(hours=49)
    assert await chat.say("/top") == "Nobody is rated on main yet."
    audit = (await chat.as_("mod!", "/audit 3")).splitlines()
    assert [line.split(" UTC ", 1)[1] for line in audit] == [
        "system retired bob from the main ladder, because: no game for 2 days",
        "system retired alice from the main ladder, because: no game for 2 days",
        "game #1 counted by itself, because: unanswered for 24 h",
    ]


# -- a season -----------------------------------------------------------------------------------


async def test_a_full_season_with_a_retirement_feeding_newcomers_starts(chat: Transcript) -> None:
    await register(chat, "ann", "bob", "cat", "dan")
    # A club night: a challenge, reports confirmed by the opponent, one left to confirm itself.
    await chat.as_("ann", "/challenge @dan")
    assert await chat.as_("dan", "/accept") == (
        "dan accepts ann's challenge #1. Play, then /report the result."
    )
    assert await chat.as_("ann", "/report @dan win") == (
        "Game #1: ann beat dan. dan, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "ann: +53 / 0 / -53 (win 50%)\ndan: +53 / 0 / -53 (win 50%)"
    )
    assert (await chat.as_("dan", "/confirm")).startswith("Game #1 confirmed: ann beat dan.")
    await chat.as_("bob", "/report @dan win")
    await chat.as_("dan", "/confirm")
    await chat.as_("cat", "/report @dan win")
    chat.clock.advance(hours=25)  # dan never answers: it counts from the next command on
    await chat.as_("dan", "/report @ann loss")
    await chat.as_("ann", "/confirm")
    await chat.as_("ann", "/report @cat draw")
    await chat.as_("cat", "/confirm")
    await chat.as_("bob", "/report @dan win")
    await chat.as_("dan", "/confirm")
    # Three more rounds, reported by the moderator: dan loses to everyone. His K shrinks with
    # his deviation (142 after one game, 98 after 14): he passes 200 below 1500 at his 6th loss.
    for _ in range(3):
        for winner in ("cat", "ann", "bob"):
            await chat.as_("mod!", f"/report @{winner} @dan win")

    # Played the next day, 25 hours on: the deviations grew a little in between.
    later = START + timedelta(hours=25)
    season = [
        *joins("ann", "bob", "cat", "dan"),
        win("ann", "dan"), win("bob", "dan"), win("cat", "dan"), win("ann", "dan", when=later),
        win("ann", "cat", 0.5, later), win("bob", "dan", when=later),
        *(win(winner, "dan", when=later) for _ in range(3) for winner in ("cat", "ann", "bob")),
    ]
    assert await ratings(chat) == rated(season)
    dan = await rating_of(chat, "dan")
    assert dan < 1300  # deep enough below the base that the pool will exceed the cap
    assert await chat.as_("dan", "/rating") == (
        f"dan (main): {dan:.0f}?, rank 4, 14 games (0W 0D 14L), no peak yet, recent L L L L L"
    )

    # The moderator retires dan: he leaves the leaderboard, his deficit goes to the pool.
    assert await chat.as_("mod!", "/retire @dan") == "dan is retired from main."
    assert "dan" not in await chat.say("/top")
    assert await chat.say("/rating @dan") == (
        f"dan (main): {dan:.0f}?, rank -, 14 games (0W 0D 14L), no peak yet, recent L L L L L"
        " (retired)"
    )
    pool = 1500 - dan
    assert pool > 200

    # Newcomers share the pool, each taking at most the cap of 200 points.
    await register(chat, "eve")
    assert await chat.say("/rating") == (
        "eve (main): 1300?, no games yet."
    )
    await register(chat, "fay", "gus")
    assert await rating_of(chat, "eve") == 1500 - 200
    assert await rating_of(chat, "fay") == 1500 - (pool - 200)  # what the cap left
    assert await rating_of(chat, "gus") == 1500  # the pool is empty
    season += [Retire("dan", START), *joins("eve", "fay", "gus")]
    assert await ratings(chat) == {k: v for k, v in rated(season).items() if k != "dan"}

    # The newcomers play; then dan comes back with the rating he left with.
    await chat.as_("eve", "/report @fay win")
    await chat.as_("fay", "/confirm")
    assert await chat.as_("mod!", "/return @dan") == "dan is back on main."
    assert await rating_of(chat, "dan") == dan
    season += [win("eve", "fay")]
    assert await ratings(chat) == rated(season)
    assert (await chat.say("/top")).splitlines()[-1] == f"  7. dan      {dan:.0f}?  14 games"


# -- moderators ---------------------------------------------------------------------------------


async def test_moderator_reports_a_game_for_two_members_and_it_counts_at_once(
    chat: Transcript,
) -> None:
    await register(chat, "alice", "bob")
    assert await chat.as_("mod!", "/report @alice @bob win") == "\n".join([
        "Game #1 recorded: alice beat bob.",
        "alice: 1500 -> 1553?",
        "bob: 1500 -> 1447?",
    ])
    assert await ratings(chat) == {"alice": FIRST_WIN, "bob": FIRST_LOSS}
    assert await chat.as_("bob", "/pending") == "Nothing waiting for you."
    assert await chat.say("/confirm 1") == text("already_confirmed", game=1)


def _change_lines(before: Sequence[Step], after: Sequence[Step]) -> list[str]:
    """The preview's lines for every rating that moves from history ``before`` to ``after``."""
    old, new, marked = rated(before), rated(after), shown(after)
    return [f"{name}: {old[name]:.0f} -> {marked[name]}" for name in old if old[name] != new[name]]


async def test_correction_previews_every_changed_rating_then_cancel_or_apply(
    chat: Transcript,
) -> None:
    await register(chat, "alice", "bob", "carol", "dave", "erin")
    await chat.as_("mod!", "/report @alice @bob win", "/report @bob @carol win",
                   "/report @carol @dave win")
    players = joins("alice", "bob", "carol", "dave", "erin")
    history = [*players, win("alice", "bob"), win("bob", "carol"), win("carol", "dave")]
    fixed = [*players, win("bob", "alice"), win("bob", "carol"), win("carol", "dave")]
    before, after = rated(history), rated(fixed)
    assert await ratings(chat) == before
    # Game #1 was alice's win over bob. Making it bob's win moves bob before he meets carol,
    # so carol's game and then dave's move too; erin played nobody and stays.
    lines = _change_lines(history, fixed)
    assert [line.split(":")[0] for line in lines] == ["alice", "bob", "carol", "dave"]
    log = await log_of(chat)

    assert await chat.say("/correct 1 loss") == "\n".join([
        "Correcting game #1 would change:", "Result: alice beat bob -> bob beat alice", *lines,
        "Send /apply to make this correction, or /cancel.",
    ])
    assert await chat.say("/cancel") == "Correction of game #1 cancelled; nothing changed."
    assert await chat.say("/apply") == text("no_preview")
    assert await ratings(chat) == before
    assert await log_of(chat) == log

    await chat.say("/correct 1 loss")
    assert await chat.say("/apply") == "\n".join(["Game #1 corrected. Ratings changed:",
                                                  "Result: alice beat bob -> bob beat alice",
                                                  *lines])
    assert await ratings(chat) == after
    assert await chat.as_("alice", "/history") == "\n".join([
        "alice's games on main:",
        "#1 Mar 1, 2024 bob beat alice",
    ])


async def test_void_and_restore(chat: Transcript) -> None:
    await register(chat, "alice", "bob", "carol")
    await chat.as_("mod!", "/report @alice @bob win", "/report @bob @carol win")
    history = [*joins("alice", "bob", "carol"), win("alice", "bob"), win("bob", "carol")]
    voided = [*joins("alice", "bob", "carol"), win("bob", "carol")]
    played, without = rated(history), rated(voided)
    assert await chat.say("/void 1 wrong pairing") == "\n".join([
        "Game #1 is now void: alice beat bob.",
        *_change_lines(history, voided),
    ])
    assert await ratings(chat) == without
    assert await chat.say("/history @alice") == "alice has no games on main yet."
    assert await chat.say("/void 1") == text("game_voided", game=1)
    assert await chat.say("/restore 1") == "\n".join([
        "Game #1 counts again: alice beat bob.",
        *_change_lines(voided, history),
    ])
    assert await ratings(chat) == played
    assert await chat.say("/restore 1") == text("game_not_voided", game=1)


async def test_merge_makes_the_duplicates_games_the_kept_members(chat: Transcript) -> None:
    await register(chat, "alice", "bob", "carol")
    # alice registers a second time from another account, under another name.
    assert await chat.as_("alice_phone", '/register "Alice P"') == (
        "Welcome, Alice P! You are on the main ladder."
    )
    await chat.as_("alice", "/report @bob win")
    await chat.as_("bob", "/confirm")
    await chat.as_("alice_phone", "/report @carol win")
    await chat.as_("carol", "/confirm")
    assert set(await ratings(chat)) == {"alice", "Alice P", "bob", "carol"}

    before = await ratings(chat)
    history = [*joins("alice", "bob", "carol"), win("alice", "bob"), win("alice", "carol")]
    merged, marked = rated(history), shown(history)
    # Previewed first (they never played each other: no game is dropped), applied with /apply.
    assert await chat.as_("mod!", "/merge @alice_phone @alice") == "\n".join([
        "Merging Alice P into alice drops no game and would change:",
        f"alice: {before['alice']:.0f} -> {marked['alice']}",
        f"carol: {before['carol']:.0f} -> {marked['carol']}",
        f"Alice P: {before['Alice P']:.0f} -> -",
        text("apply_hint_merge"),
    ])
    assert await ratings(chat) == before
    assert await chat.say("/apply") == "\n".join([
        "Alice P is merged into alice: their games are alice's now. Ratings changed:",
        f"alice: {before['alice']:.0f} -> {marked['alice']}",
        f"carol: {before['carol']:.0f} -> {marked['carol']}",
        f"Alice P: {before['Alice P']:.0f} -> -",
    ])
    assert await ratings(chat) == merged
    assert await chat.say("/history @alice") == "\n".join([
        "alice's games on main:",
        "#2 Mar 1, 2024 alice beat carol",
        "#1 Mar 1, 2024 alice beat bob",
    ])
    # The old account now speaks as alice.
    assert await chat.as_("alice_phone", "/rating") == (
        f"alice (main): {marked['alice']}, rank 1, 2 games (2W 0D 0L), "
        "no peak yet, recent W W"
    )
    assert (await chat.as_("mod!", "/undo")).startswith(
        "Undoing #10 (mod merged the duplicate record Alice P into alice) would change:\n"
    )
    assert (await chat.say("/apply")).startswith(
        "Undone #10: mod merged the duplicate record Alice P into alice. Ratings changed:\n"
    )
    assert set(await ratings(chat)) == {"alice", "Alice P", "bob", "carol"}


async def test_games_of_an_event_are_rated_together_when_it_closes(chat: Transcript) -> None:
    await register(chat, "alice", "bob", "carol", "dave")
    await chat.as_("alice", "/report @dave win")
    await chat.as_("dave", "/confirm")
    before = await ratings(chat)

    assert await chat.as_("mod!", "/event open spring") == (
        "Event spring is open: report its games with event=spring."
    )
    await chat.as_("alice", "/report @bob win event=spring")
    held = "It counts when event spring closes: its games are rated together."
    assert await chat.as_("bob", "/confirm") == f"Game #2 confirmed: alice beat bob.\n{held}"
    assert await chat.as_("mod!", "/report @carol @dave draw event=spring") == (
        f"Game #3 recorded: carol drew with dave.\n{held}"
    )
    await chat.as_("carol", "/report @alice win event=spring")
    await chat.as_("alice", "/confirm")
    assert await ratings(chat) == before  # nothing of the event counts before it closes

    assert await chat.as_("mod!", "/event close spring") == (
        "Event spring is closed; its 3 games are rated together."
    )
    players = joins("alice", "bob", "carol", "dave")
    event = (win("alice", "bob"), win("carol", "dave", 0.5), win("carol", "alice"))
    assert await ratings(chat) == rated([*players, win("alice", "dave"), RatingPeriod(event)])
    # ... which is not what rating them one by one gives.
    assert await ratings(chat) != rated([*players, win("alice", "dave"), *event])
    assert await chat.say("/report @alice @bob win event=spring") == text(
        "no_open_event", event="spring"
    )
    assert await chat.as_("alice", "/history") == "\n".join([
        "alice's games on main:",
        "#4 Mar 1, 2024 carol beat alice, spring",
        "#2 Mar 1, 2024 alice beat bob, spring",
        "#1 Mar 1, 2024 alice beat dave",
    ])


async def test_a_second_ladder_with_its_own_system(chat: Transcript) -> None:
    await register(chat, "alice", "bob")
    assert await chat.as_("mod!", "/ladder create blitz elo") == (
        "Ladder blitz created with the elo system."
    )
    assert await chat.as_("alice", "/report @bob win ladder=blitz") == (
        "Game #1: alice beat bob. bob, please /confirm or /dispute.\n"
        "Ladder blitz, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "alice: +16 / 0 / -16 (win 50%)\nbob: +16 / 0 / -16 (win 50%)"
    )
    assert await chat.as_("bob", "/confirm") == "\n".join([
        "Game #1 confirmed: alice beat bob.",
        "alice: - -> 1616",
        "bob: - -> 1584",
    ])
    assert await chat.say("/top blitz") == "\n".join([
        "blitz ladder",
        "  1. alice       1616  1 game",
        "  2. bob         1584  1 game",
    ])
    assert await chat.say("/rating ladder=blitz") == (
        "bob (blitz): 1584, rank 2, 1 game (0W 0D 1L), peak 1584, recent L"
    )
    assert await ratings(chat) == {"alice": 1500.0, "bob": 1500.0}  # main is untouched
    assert await chat.say("/history") == "bob has no games on main yet."


async def test_changing_the_system_rerates_the_whole_ladder(chat: Transcript) -> None:
    await register(chat, "alice", "bob", "carol")
    await chat.as_("mod!", "/report @alice @bob win", "/report @bob @carol draw",
                   "/report @carol @alice win")
    games = [*joins("alice", "bob", "carol"), win("alice", "bob"), win("bob", "carol", 0.5),
             win("carol", "alice")]
    club = rated(games)
    assert await ratings(chat) == club
    # Each switch is previewed (every rating it moves), then applied (issue 19).
    to_elo = _switch_lines(games, "club", "elo")
    assert await chat.say("/system elo") == "\n".join([
        "Setting ladder main to elo (defaults) re-rates every game and would change:", *to_elo,
        text("apply_hint_system"),
    ])
    assert await ratings(chat) == club
    assert await chat.say("/apply") == "\n".join([
        "Ladder main now uses elo (defaults); every game was re-rated. Ratings changed:", *to_elo,
    ])
    assert await ratings(chat) == rated(games, "elo")
    to_club = _switch_lines(games, "elo", "club", k="16", provisional_games="0")
    assert await chat.say("/system club k=16 provisional_games=0") == "\n".join([
        "Setting ladder main to club (k=16, provisional_games=0) re-rates every game and would "
        "change:", *to_club, text("apply_hint_system"),
    ])
    assert await chat.say("/apply") == "\n".join([
        "Ladder main now uses club (k=16, provisional_games=0); every game was re-rated. "
        "Ratings changed:", *to_club,
    ])
    assert await ratings(chat) == rated(games, "club", k="16", provisional_games="0")
    for _ in range(2):
        assert (await chat.say("/undo")).startswith("Undoing #")
        assert " changed the main ladder's rating system to " in await chat.say("/apply")
    assert await ratings(chat) == club


def _switch_lines(steps: Sequence[Step], was: str, system: str, **params: str) -> list[str]:
    """A /system preview's lines: every rating (or provisional mark) of the history ``steps``
    replayed by the default ``was`` that ``system`` moves, each side marked ``?`` while its
    system calls it provisional."""
    old_system, target = make_system(was), make_system(system, params)
    before, after = replay(old_system, steps).players, replay(target, steps).players

    def mark(provisional: bool) -> str:
        return "?" if provisional else ""

    return [f"{name}: {before[name].rating:.0f}{mark(old_system.is_provisional(before[name]))}"
            f" -> {state.rating:.0f}{mark(target.is_provisional(state))}"
            for name, state in after.items()
            if state.rating != before[name].rating
            or target.is_provisional(state) != old_system.is_provisional(before[name])]


async def test_a_system_switch_is_previewed_then_cancelled_or_applied(chat: Transcript) -> None:
    """Issue 19: /system on a ladder with games shows every rating it would move and changes
    nothing until the moderator who asked sends /apply; /cancel drops it."""
    await register(chat, "alice", "bob", "carol")
    await chat.as_("mod!", "/report @alice @bob win", "/report @bob @carol draw")
    games = [*joins("alice", "bob", "carol"), win("alice", "bob"), win("bob", "carol", 0.5)]
    club, elo = rated(games), rated(games, "elo")
    lines = _switch_lines(games, "club", "elo")
    assert [line.split(":")[0] for line in lines] == ["alice", "bob", "carol"]
    settings, log = await chat.say("/settings"), await log_of(chat)
    preview = "\n".join([
        "Setting ladder main to elo (defaults) re-rates every game and would change:", *lines,
        text("apply_hint_system"),
    ])

    assert await chat.say("/system elo") == preview
    assert await ratings(chat) == club
    assert await chat.say("/cancel") == "Switching the system to elo cancelled; nothing changed."
    assert await chat.say("/apply") == text("no_preview")
    assert await chat.say("/cancel") == text("no_preview_to_cancel")
    assert await ratings(chat) == club
    assert await chat.say("/settings") == settings
    assert await log_of(chat) == log

    # A member may not switch, nor apply the moderator's kept preview.
    assert await chat.say("/system elo") == preview
    assert await chat.as_("alice", "/system club k=16") == text("moderators_only")
    assert await chat.say("/apply") == text("no_preview")
    assert await log_of(chat) == log
    assert await chat.as_("mod!", "/apply") == "\n".join([
        "Ladder main now uses elo (defaults); every game was re-rated. Ratings changed:", *lines,
    ])
    assert await ratings(chat) == elo
    assert (await chat.say("/settings")).startswith("Ladder main: system elo (curve=logistic, ")
    assert await chat.say("/apply") == text("no_preview")
    assert await ratings(chat) == elo
    assert (await chat.say("/audit 1")).endswith(
        "mod changed the main ladder's rating system to elo (defaults); every game was re-rated")


async def test_an_earlier_system_preview_s_button_applies_nothing(chat: Transcript) -> None:
    """Two switches previewed at the same point of the log have their own numbers: the Apply of
    the first (replaced by the second) applies nothing. An old /system button whose number a
    kept preview of another kind came to share leaves that preview where it was."""
    await chat.as_("mod!", "/ladder create blitz elo")
    await register(chat, "alice", "bob")
    await chat.as_("mod!", "/report @alice @bob win", "/report @alice @bob win ladder=blitz")
    service = chat.service
    first = await service.set_system(MOD, "glicko", None, "blitz")
    second = await service.set_system(MOD, "glicko2", None, None)
    assert not first.applied and not second.applied
    assert first.game_id != second.game_id
    assert first.game_id // 1_000_000 == second.game_id // 1_000_000  # the same point of the log
    log = await log_of(chat)
    assert await service.apply_correction(MOD, system=first.game_id) is None
    assert await log_of(chat) == log
    assert await service.cancel_correction(MOD, system=first.game_id) is None
    # the second is still kept: its own button applies it
    applied = await service.apply_correction(MOD, system=second.game_id)
    assert applied is not None and render(applied).startswith("Ladder main now uses glicko2")

    # A kept correction of game #1 is not taken by a /system button that names 1, nor the other
    # way round.
    await chat.as_("mod!", "/correct 1 loss")
    assert await service.apply_correction(MOD, system=1) is None
    assert await service.cancel_correction(MOD, system=1) is None
    assert (await chat.as_("mod!", "/apply")).startswith("Game #1 corrected.")
    third = await service.set_system(MOD, "elo", None, None)
    assert await service.apply_correction(MOD, game=third.game_id) is None
    assert (await chat.as_("mod!", "/cancel")) == (
        "Switching the system to elo cancelled; nothing changed.")


async def test_settings_and_set(chat: Transcript) -> None:
    await register(chat, "alice", "bob", "carol")
    assert await chat.as_("mod!", "/settings") == (
        "Ladder main: system club (base=1500.0, k=32.0, k_master=16.0, master_rating=2400.0, "
        "uncertainty=deviation, initial_deviation=150.0, newcomer_spread=1.25, "
        "max_deviation=350.0, information=0.75, first_opponents=0.5, deviation_growth=10.0, "
        "provisional_games=24, provisional_margin=50.0, prior_games=10.0, "
        "performance_cap=400.0, pool_cap=200.0, first_move_advantage=30.0); "
        "auto-confirm after 24 h; challenges open 48 h; days without a game before "
        "retirement: off; hide provisional: no; announce results: no; "
        "time zone: UTC; reports waiting per member: 5, against one opponent: 1; the club's "
        "language: en. Ladders: main."
    )
    assert await chat.say("/set auto_confirm_hours 2") == "auto_confirm_hours of main is now 2."
    assert await chat.say("/set challenge_hours 1.5") == "challenge_hours of main is now 1.5."
    assert await chat.say("/set inactivity_days 30") == "inactivity_days of main is now 30."
    assert await chat.say("/set hide_provisional yes") == "hide_provisional of main is now yes."
    assert (await chat.say("/settings")).endswith(
        "auto-confirm after 2 h; challenges open 1.5 h; days without a game before "
        "retirement: 30; hide provisional: yes; announce results: no; "
        "time zone: UTC; reports waiting per member: 5, against one opponent: 1; the club's "
        "language: en. Ladders: main."
    )

    # Every newcomer is provisional (deviation 150, above the established 74.6): the leaderboard
    # shows nobody, and says so.
    assert await chat.say("/top") == "main ladder\n" + text("leaderboard_hidden", count=3)
    # Edition 1's rule counts provisional games, so one game can make a player established.
    await chat.say("/system club uncertainty=games provisional_games=1")
    await chat.say("/report @alice @bob win")
    assert await chat.say("/top") == "\n".join([  # (10 x 1500 + 1900 or 1100) / 11
        "main ladder",
        "  1. alice       1536  1 game",
        "  2. bob         1464  1 game",
        text("leaderboard_hidden", count=1),
    ])

    # Reports now confirm themselves after 2 h, challenges lapse after 1.5 h.
    await chat.as_("carol", "/report @bob win", "/challenge @alice")
    chat.clock.advance(hours=2)
    assert await chat.say("/history") == "carol's games on main:\n#2 Mar 1, 2024 carol beat bob"
    assert await chat.as_("alice", "/accept") == text("challenge_expired", challenge=1)

    # After 30 days without a game a player is retired by the bot itself.
    chat.clock.advance(days=30)
    assert await chat.say("/top") == "Nobody is rated on main yet."
    audit = (await chat.as_("mod!", "/audit 3")).splitlines()
    assert [line.split(" UTC ", 1)[1] for line in audit] == [
        "system retired carol from the main ladder, because: no game for 30 days",
        "system retired bob from the main ladder, because: no game for 30 days",
        "system retired alice from the main ladder, because: no game for 30 days",
    ]

    # Announcements and the posting time zone are settings too.
    assert await chat.say("/set announce yes") == "announce of main is now yes."
    assert await chat.say("/set timezone Europe/Berlin") == (
        "timezone of main is now Europe/Berlin.")
    assert (await chat.say("/settings")).endswith(
        "hide provisional: yes; announce results: yes; time zone: Europe/Berlin; reports "
        "waiting per member: 5, against one opponent: 1; the club's language: en. "
        "Ladders: main.")
    # Issue 30: how many reports a member may have waiting, in all and against one opponent.
    assert await chat.say("/set open_reports_per_opponent 6") == (
        "open_reports_per_opponent may not be above open_reports, which is 5 (not 6).")
    assert await chat.say("/set open_reports 20") == "open_reports of main is now 20."
    assert await chat.say("/set open_reports_per_opponent 6") == (
        "open_reports_per_opponent of main is now 6.")
    assert await chat.say("/set open_reports 21") == (
        "open_reports takes a whole number from 1 to 20 (not 21).")
    assert (await chat.say("/settings")).endswith(
        "reports waiting per member: 20, against one opponent: 6; the club's language: en. "
        "Ladders: main.")


async def test_audit_shows_actor_and_reason_and_undo_takes_back_the_last_action(
    chat: Transcript,
) -> None:
    await register(chat, "alice", "bob")
    assert await chat.as_("mod!", "/undo") == text("nothing_to_undo")
    await chat.say("/report @alice @bob win")
    await chat.say("/void 1 they played a friendly")
    assert await chat.say("/audit 2") == "\n".join([
        "#5 Fri, Mar 1 19:00 UTC mod voided game #1, because: they played a friendly",
        "#4 Fri, Mar 1 19:00 UTC mod recorded game #1 on main: alice beat bob",
    ])
    assert await ratings(chat) == {"alice": 1500.0, "bob": 1500.0}

    # An undo that moves ratings shows them first, and waits for /apply.
    assert (await chat.say("/undo")).startswith("Undoing #5 (mod voided game #1) would change:")
    assert await ratings(chat) == {"alice": 1500.0, "bob": 1500.0}
    assert (await chat.say("/apply")).startswith("Undone #5: mod voided game #1. Ratings changed:")
    assert await ratings(chat) == {"alice": FIRST_WIN, "bob": FIRST_LOSS}
    assert (await chat.say("/undo")).startswith(
        "Undoing #4 (mod recorded game #1 on main: alice beat bob) would change:")
    assert (await chat.say("/apply")).startswith("Undone #4: mod recorded game #1 on main: ")
    assert await ratings(chat) == {"alice": 1500.0, "bob": 1500.0}
    # The main ladder was made by the bot, members' own reports are theirs: nothing is left.
    await chat.as_("alice", "/report @bob win")
    assert await chat.as_("mod!", "/undo") == text("nothing_to_undo")
    assert await chat.say("/audit 4") == "\n".join([
        "#8 Fri, Mar 1 19:00 UTC alice reported game #2 on main: alice beat bob",
        "#7 Fri, Mar 1 19:00 UTC mod undid #4",
        "#6 Fri, Mar 1 19:00 UTC mod undid #5",
        "#5 Fri, Mar 1 19:00 UTC mod voided game #1, because: they played a friendly (undone)",
    ])
    # A ladder that has been played on cannot be undone away.
    await chat.say("/ladder create blitz")
    await chat.as_("alice", "/report @bob draw ladder=blitz")
    assert await chat.as_("mod!", "/undo") == text("ladder_in_use", ladder="blitz")


# -- a correction of an early game --------------------------------------------------------------


async def test_correcting_an_early_game_rerates_everything_after_it_like_a_fresh_replay(
    chat: Transcript,
) -> None:
    names = ["ann", "bob", "cat", "dan", "eve", "fay"]
    await register(chat, *names)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]  # 15 pairings
    words = {1.0: "win", 0.0: "loss", 0.5: "draw"}
    played: list[Game] = []
    for n, (a, b) in enumerate(pairs * 2):  # 30 games: the members' own, or the moderator's
        score = (1.0, 0.0, 0.5, 1.0, 1.0, 0.0, 0.5)[n % 7]
        if n % 2 == 0:
            await chat.as_(a, f"/report @{b} {words[score]}")
            assert (await chat.as_(b, "/confirm")).startswith("Game #")
        else:
            assert (await chat.as_("mod!", f"/report @{a} @{b} {words[score]}")).startswith(
                "Game #"
            )
        played.append(win(a, b, score))
    history = [*joins(*names), *played]
    before = await ratings(chat)
    assert before == rated(history)

    # The first game (#1, ann beat bob) was in fact a loss.
    corrected = [*joins(*names), win("ann", "bob", 0.0), *played[1:]]
    after = rated(corrected)
    moved = [name for name in names if before[name] != after[name]]
    assert moved == names  # every player's later games are re-rated
    preview = await chat.as_("mod!", "/correct 1 loss")
    assert preview.splitlines()[1] == "Result: ann beat bob -> bob beat ann"
    assert preview.splitlines()[2:-1] == _change_lines(history, corrected)
    assert (await chat.say("/apply")).splitlines()[1:] == preview.splitlines()[1:-1]

    # Exactly what a fresh replay of the corrected history gives, built by hand ...
    assert await ratings(chat) == after
    # ... and what `clubrating replay` gives for the exported history.
    steps, display, _ = await chat.service.export_history("console", "local")
    exported = replay(make_system("club"), steps)
    assert {display[key]: state.rating for key, state in exported.players.items()} == after
    # The leaderboard shows them rounded, best first.
    board = (await chat.say("/top")).splitlines()[1:]
    best_first = sorted(after.items(), key=lambda item: -item[1])
    marked = shown(corrected)
    assert [line.split()[1:3] for line in board] == [[name, marked[name]] for name, _ in best_first]


async def test_a_junior_starts_at_1200_on_any_elo_ladder(database: Path | str) -> None:
    # Seed 000: under 14 starts at 1200, also on a ladder the member joins by playing there.
    async with open_club(database) as chat:
        await chat.as_("admin!", "/ladder create blitz elo")
        await chat.as_("kid", "/register birth=2015-05-01")
        await chat.as_("ann", "/register")
        await chat.as_("kid", "/report @ann draw ladder=blitz")
        await chat.as_("ann", "/confirm")
        rating = await chat.say("/rating @kid ladder=blitz")
        # A draw against a 1600: 1200 + 32 * (0.5 - 1 / 11).
        assert rating.startswith(f"kid (blitz): {1200 + 32 * (0.5 - 1 / 11):.0f}")
