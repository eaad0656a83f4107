"""Every use case of the club and every family of refusal, through Telegram: the real
python-telegram-bot Application long-polling the fake Bot API server.

Each test reads as a group chat: ``say(bot, group, alice, "/report @bob win")`` is alice typing
the line and the assertion is what the bot answers there; ``press(...)`` is a member pressing an
inline button, answered with a short alert (answerCallbackQuery) when they may not press it, or
by an edit of the message that carries the button. These tests check what travels through
Telegram and how it is shown; where a number is checked it is one the rules give by hand (a new
club's ladder rates by deviation, issue 19: two 1500 newcomers of deviation 150, first win:
1500 +- K 115.7 x w 0.924 x 1/2 = 1553.5 and 1446.5) or the engine's replay of the same games.
The rating maths of every use case is checked in tests/service/test_transcripts.py.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.service.club import Caller
from bot.service.parsing import SETTINGS
from bot.service.results import Leaderboard
from ratings_core.glickman import Q, attenuation
from ratings_core.model import Game, RatingPeriod
from ratings_core.replay import replay
from ratings_core.systems import make_system
from tests.chat import START
from tests.fake_telegram import Chat, Output, User
from tests.telegram_harness import Running, club_state, edit, press, quiet, running_bot, say

GROUP = -1001


def first_game(k: float = 32.0) -> tuple[float, float]:
    """Two 1500 newcomers of deviation 150, one wins (club's K ``k``): each weighs the other by
    w = g(sqrt(150^2 - RD_est^2)), RD_est = sqrt(k / q) the established deviation; the game's
    information (3/4 of Glicko's) shrinks 150 to RD', K = q RD'^2; the winner gains K w / 2 and
    the loser loses it."""
    w = attenuation(math.sqrt(150.0**2 - math.sqrt(k / Q) ** 2))
    deviation = 1.0 / math.sqrt(1.0 / 150.0**2 + Q * Q * (0.75 * (w * w * 0.25)))
    gain = Q * deviation * deviation
    return 1500.0 + gain * (w * (1.0 - 0.5)), 1500.0 + gain * (w * (0.0 - 0.5))


#: w 0.924, RD' 141.8, K 115.7: 1553.5 (shown 1553?) and 1446.5 (shown 1447?)
FIRST_WIN, FIRST_LOSS = first_game()
SYSTEMS = "club, elo, shogi24, taisen, asymmetric, fqe, glicko, glicko2, rs-go, tactics"


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[Running]:
    async with running_bot(tmp_path / "club.db") as running:
        yield running


@dataclass
class Club:
    """The chess club's group: ada administers it; zed is in the group but never registers."""

    group: Chat
    ada: User
    alice: User
    bob: User
    carol: User
    zed: User


def club(bot: Running) -> Club:
    tg = bot.tg
    ada = tg.user(1, "Ada", "ada")
    users = [tg.user(n, name.title(), name) for n, name in
             ((2, "alice"), (3, "bob"), (4, "carol"), (99, "zed"))]
    return Club(tg.group(GROUP, "Chess club", admins=[ada]), ada, *users)


async def join(bot: Running, club: Club, *users: User) -> None:
    for user in users:
        answer = await say(bot, club.group, user, "/register")
        assert answer.plain == text("registered", name=user.username, ladder="main")


async def ratings(bot: Running, ladder: str | None = None) -> dict[str, float]:
    """The ladder's exact ratings by display name (the leaderboard shows them rounded)."""
    moderator = Caller("telegram", str(GROUP), "0", "test", moderator=True)
    board = await bot.service.leaderboard(moderator, ladder)
    assert isinstance(board, Leaderboard)
    return {row.name: row.rating for row in board.rows}


def lines(*rows: str) -> str:
    return "\n".join(rows)


def rated(*steps: Game | RatingPeriod) -> dict[str, float]:
    """The engine's ratings of games between newcomers on the club default, replayed apart
    from the service."""
    return {name: state.rating
            for name, state in replay(make_system("club"), list(steps)).players.items()}


async def refused_press(bot: Running, group: Chat, user: User, message: Output, data: str,
                        expected: str) -> None:
    """A press that may not be made: a short alert with the refusal, the message as it was,
    the club as it was."""
    before = await club_state(bot, group)
    shown = bot.tg.message(group, message.message_id)
    answer = await press(bot, group, user, message, data, strict=False)
    assert (answer["text"], answer["show_alert"]) == (expected, True), data
    assert bot.tg.message(group, message.message_id) == shown
    assert await club_state(bot, group) == before


# -- members ------------------------------------------------------------------------------------


async def test_register_with_a_name_and_a_birth_date(bot: Running) -> None:
    c = club(bot)
    kid = bot.tg.user(7, "Kid", "kid")
    fischer = bot.tg.user(8, "Bob", "bobby_fischer")
    await join(bot, c, c.alice)
    assert (await say(bot, c.group, fischer, '/register "Bobby Fischer"')).plain == (
        "Welcome, Bobby Fischer! You are on the main ladder."
    )
    assert (await say(bot, c.group, kid, "/register birth=2015-05-01")).plain == (
        "Welcome, kid! You are on the main ladder."
    )
    assert (await say(bot, c.group, kid, "/rating")).plain == (
        "kid (main): 1500?, no games yet."
    )
    # A member registered under another name is named by that name or by their @username.
    bobby = "Bobby Fischer (main): 1500?, no games yet."
    assert (await say(bot, c.group, kid, '/rating "@Bobby Fischer"')).plain == bobby
    assert (await say(bot, c.group, kid, "/rating @bobby_fischer")).plain == bobby
    # ... not by their user id typed as text (8), nor by their first name (no handle).
    for typed in ("@8", "@Bob"):
        assert (await say(bot, c.group, kid, f"/rating {typed}")).plain == text(
            "unknown_member", name=typed[1:])
    # The birth date counts where the system uses it: elo starts an under-14 at 1200. The
    # switch moves the starts, so it is previewed first (issue 19), with Apply and Cancel
    # buttons numbered by the id the change would have (event 5); nothing changes until Apply.
    starts = ("alice: 1500? -> 1600", "Bobby Fischer: 1500? -> 1600", "kid: 1500? -> 1200")
    before = await club_state(bot, c.group)
    preview = await say(bot, c.group, c.ada, "/system elo")
    assert preview.plain == lines(
        "Setting ladder main to elo (defaults) re-rates every game and would change:", *starts,
    )
    apply = system_buttons(preview, 5)
    assert await club_state(bot, c.group) == before
    await refused_press(bot, c.group, kid, preview, apply, text("no_preview"))
    await press(bot, c.group, c.ada, preview, apply)
    applied = await bot.tg.reply(c.group)
    assert (applied.kind, applied.message_id) == ("edit", preview.message_id)
    assert applied.plain == lines(
        "Ladder main now uses elo (defaults); every game was re-rated. Ratings changed:", *starts,
    )
    assert applied.buttons == []
    await refused_press(bot, c.group, c.ada, preview, apply, text("no_preview"))
    board = await say(bot, c.group, c.ada, "/top")
    assert board.text == lines(
        "<pre>main ladder",
        "  1. alice               1600  0 games",
        "  2. Bobby Fischer       1600  0 games",
        "  3. kid                 1200  0 games</pre>",
    )
    assert board.buttons == []  # one page: no paging buttons
    assert await ratings(bot) == {"alice": 1600.0, "Bobby Fischer": 1600.0, "kid": 1200.0}


async def test_rating_history_h2h_and_pending_on_a_club_night(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob, c.carol)
    assert (await say(bot, g, c.alice, "/rating")).plain == (
        "alice (main): 1500?, no games yet."
    )
    assert (await say(bot, g, c.alice, "/history")).plain == "alice has no games on main yet."
    assert (await say(bot, g, c.alice, "/pending")).plain == "Nothing waiting for you."

    report = await say(bot, g, c.alice, "/report @bob win")
    assert report.plain == (
        "Game #1: alice beat bob. bob, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "alice: +53 / 0 / -53 (win 50%)\nbob: +53 / 0 / -53 (win 50%)")
    assert (await say(bot, g, c.alice, "/pending")).plain == (
        "Your reports waiting: #1 Mar 1, 2024 alice beat bob [pending]"
    )
    assert (await say(bot, g, c.bob, "/pending")).plain == (
        "To confirm or dispute: #1 Mar 1, 2024 alice beat bob [pending]"
    )
    answer = await press(bot, g, c.bob, report, "g:confirm:#1")
    assert (answer["text"], answer["show_alert"]) == (None, False)  # the spinner just stops
    confirmed = await bot.tg.reply(g)
    assert (confirmed.kind, confirmed.message_id) == ("edit", report.message_id)
    assert confirmed.plain == lines(
        "Game #1 confirmed: alice beat bob.", "alice: 1500 -> 1553?", "bob: 1500 -> 1447?"
    )
    assert confirmed.buttons == []
    assert (await say(bot, g, c.bob, "/pending")).plain == "Nothing waiting for you."

    # carol (1500, no games) holds alice (1553.5, deviation 141.8) to a draw; alice confirms by
    # typing. A newcomer's deviation is now the league's: 1.25 x the spread of alice and bob
    # (53.5) is below an established player's, so 74.56, and carol is established from her
    # first game (K 32, no "?"). Her first opponent has played: she starts half way to alice,
    # at 1526.7, and expects 0.462. She weighs alice's game by g(sqrt(141.8^2 - 74.56^2)) =
    # 0.934: 1526.7 + 32 x 0.934 x (0.5 - 0.462) = 1527.9; carol weighs 1 for alice, whose
    # deviation shrinks to 133.7 (K 102.9): 1553.5 - 102.9 x (0.538 - 0.5) = 1549.5.
    assert (await say(bot, g, c.carol, "/report @alice draw")).plain == (
        "Game #2: carol drew with alice. alice, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "carol: +43 / +28 / +13 (win 43%)\nalice: +48 / -3 / -55 (win 57%)"
    )
    assert (await say(bot, g, c.alice, "/confirm 2")).plain == lines(
        "Game #2 confirmed: carol drew with alice.", "carol: 1500 -> 1528?",
        "alice: 1553 -> 1550?",
    )
    night = rated(Game("alice", "bob", 1.0, START), Game("carol", "alice", 0.5, START))
    assert await ratings(bot) == night
    assert (round(night["alice"], 1), round(night["carol"], 1), night["bob"]) == (
        1549.5, 1527.9, FIRST_LOSS)
    assert (await say(bot, g, c.carol, "/top")).plain == lines(
        "main ladder",
        "  1. alice      1550?  2 games",
        "  2. carol      1528?  1 game",
        "  3. bob        1447?  1 game",
    )
    assert (await say(bot, g, c.alice, "/rating")).plain == (
        "alice (main): 1550?, rank 1, 2 games (1W 1D 0L), no peak yet, recent D W"
    )
    assert (await say(bot, g, c.alice, "/rating @bob")).plain == (
        "bob (main): 1447?, rank 3, 1 game (0W 0D 1L), no peak yet, recent L"
    )
    history = await say(bot, g, c.alice, "/history")
    assert (history.text or "").startswith("<pre>") and history.plain == lines(
        "alice's games on main:",
        "#2 Mar 1, 2024 carol drew with alice",
        "#1 Mar 1, 2024 alice beat bob",
    )
    assert (await say(bot, g, c.bob, "/history @carol")).plain == lines(
        "carol's games on main:", "#2 Mar 1, 2024 carol drew with alice",
    )
    assert (await say(bot, g, c.alice, "/h2h @bob")).plain == lines(
        "alice vs bob (main): 1W 0D 0L", "#1 Mar 1, 2024 alice beat bob",
    )
    # Replying to carol's message names her.
    hello = await bot.tg.send(g, c.carol, "good game, bob!")
    await bot.tg.send(g, c.bob, "/h2h", reply_to=bot.tg.updates[hello]["message"]["message_id"])
    assert (await bot.tg.reply(g)).plain == "bob vs carol (main): 0W 0D 0L"


async def test_top_pages_with_buttons_when_more_than_20_players(bot: Running) -> None:
    c = club(bot)
    g = c.group
    players = [bot.tg.user(100 + n, f"P{n}", f"p{n:02d}") for n in range(25)]
    await join(bot, c, *players)

    def row(n: int) -> str:
        return f"{n + 1:>3}. p{n:02d}      1500?  0 games"

    top = await say(bot, g, c.alice, "/top")
    assert top.plain == lines("main ladder", *(row(n) for n in range(20)))
    assert top.buttons == [[("Next »", "t:main:1")]]
    # Paging is for everyone, a member or not: the message is edited to the next page.
    answer = await press(bot, g, c.zed, top, "t:main:1")
    assert (answer["text"], answer["show_alert"]) == (None, False)
    second = await bot.tg.reply(g)
    assert (second.kind, second.message_id) == ("edit", top.message_id)
    assert second.plain == lines("main ladder", *(row(n) for n in range(20, 25)))
    assert second.buttons == [[("« Previous", "t:main:0")]]
    await press(bot, g, players[3], top, "t:main:0")
    first = await bot.tg.reply(g)
    assert (first.kind, first.plain, first.buttons) == ("edit", top.plain, top.buttons)
    assert len(bot.tg.outputs(g)) == 25 + 3  # no new message: the one board was edited


async def test_two_members_pressing_the_same_page_button(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, *(bot.tg.user(100 + n, f"P{n}", f"p{n:02d}") for n in range(21)))
    top = await say(bot, g, c.alice, "/top")
    await press(bot, g, c.alice, top, "t:main:1")
    second = await bot.tg.reply(g)
    assert second.plain.splitlines()[1:] == [" 21. p20      1500?  0 games"]
    # bob's screen still showed the first page: his Next press finds the page already shown.
    answer = await press(bot, g, c.bob, top, "t:main:1", strict=False)
    assert (answer["text"], answer["show_alert"]) == (None, False)
    await quiet(bot, g, c.bob)  # no "something went wrong" in the chat
    assert bot.tg.errors == [("editMessageText", 400, "Bad Request: message is not modified: "
                              "specified new message content and reply markup are exactly the "
                              "same as a current content and reply markup of the message")]


# -- challenges ---------------------------------------------------------------------------------


async def test_challenge_declined_by_button(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob)
    challenge = await say(bot, g, c.alice, "/challenge @bob")
    assert challenge.plain == (
        "alice challenges bob (challenge #1, main). bob: /accept or /decline before "
        "Sun, Mar 3 19:00 UTC.\nalice: +53 / 0 / -53 (win 50%)\nbob: +53 / 0 / -53 (win 50%)"
    )
    assert challenge.buttons == [[("Accept", "c:accept:#1"), ("Decline", "c:decline:#1")]]
    assert (await say(bot, g, c.bob, "/pending")).plain == (
        "#1: alice challenges bob (main), open until Sun, Mar 3 19:00 UTC."
    )
    await press(bot, g, c.bob, challenge, "c:decline:#1")
    declined = await bot.tg.reply(g)
    assert (declined.kind, declined.message_id) == ("edit", challenge.message_id)
    assert declined.plain == "bob declines alice's challenge #1."
    assert declined.buttons == []
    # A second look at an old copy of the message: the challenge is answered.
    answer = await press(bot, g, c.bob, challenge, "c:accept:#1", strict=False)
    assert answer["text"] == text("challenge_was_declined", challenge=1)
    assert (await say(bot, g, c.alice, "/pending")).plain == "Nothing waiting for you."
    # Declined, the pair may challenge again.
    again = await say(bot, g, c.bob, "/challenge @alice")
    assert again.plain.startswith("bob challenges alice (challenge #2, main).")


async def test_a_challenge_expires_and_its_accept_button_says_so(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob)
    challenge = await say(bot, g, c.alice, "/challenge @bob")
    bot.clock.advance(hours=49)  # challenges are open 48 h
    await refused_press(bot, g, c.bob, challenge, "c:accept:#1",
                        text("challenge_expired", challenge=1))
    assert (await say(bot, g, c.bob, "/pending")).plain == "Nothing waiting for you."
    assert (await say(bot, g, c.bob, "/accept")).plain == text("challenge_expired", challenge=1)
    assert (await say(bot, g, c.alice, "/challenge @bob")).plain.startswith(
        "alice challenges bob (challenge #2, main)."
    )


async def test_challenge_accepted_then_played(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob)
    challenge = await say(bot, g, c.alice, "/challenge @bob")
    await press(bot, g, c.bob, challenge, "c:accept:#1")
    assert (await bot.tg.reply(g)).plain == (
        "bob accepts alice's challenge #1. Play, then /report the result."
    )
    assert (await say(bot, g, c.bob, "/report @alice win")).plain == (
        "Game #1: bob beat alice. alice, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "bob: +53 / 0 / -53 (win 50%)\nalice: +53 / 0 / -53 (win 50%)"
    )


# -- results ------------------------------------------------------------------------------------


async def test_report_with_handicap_colour_and_event_rated_when_the_event_closes(
    bot: Running,
) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob, c.carol)
    assert (await say(bot, g, c.ada, "/event open spring")).plain == (
        "Event spring is open: report its games with event=spring."
    )
    report = await say(bot, g, c.alice, "/report @bob win handicap=100 colour=white event=spring")
    held = "It counts when event spring closes: its games are rated together."
    assert report.plain == (
        "Game #1: alice beat bob. bob, please /confirm or /dispute.\n"
        "Ladder main, handicap 100 given by alice, alice played white, event spring; "
        f"counts on Sat, Mar 2 19:00 UTC unless disputed.\n{held}\n"
        # the points at stake with the handicap and colour (issue 38), an event's estimate
        "alice: +64 / +11 / -43 (win 42%)\nbob: +43 / -11 / -64 (win 58%)\n"
        "An estimate: main rates an event's games together when it closes.")
    await press(bot, g, c.bob, report, "g:confirm:#1")
    # An event's games move no rating before it closes.
    assert (await bot.tg.reply(g)).plain == f"Game #1 confirmed: alice beat bob.\n{held}"
    assert (await say(bot, g, c.ada, "/report @carol @alice draw event=spring")).plain == (
        f"Game #2 recorded: carol drew with alice.\n{held}"
    )
    assert await ratings(bot) == {"alice": 1500.0, "bob": 1500.0, "carol": 1500.0}
    assert (await say(bot, g, c.alice, "/history")).plain == lines(
        "alice's games on main:",
        "#2 Mar 1, 2024 carol drew with alice, spring",
        "#1 Mar 1, 2024 alice beat bob, handicap 100, spring",
    )
    audit = (await say(bot, g, c.ada, "/audit 3")).plain.splitlines()
    assert audit[-1].endswith(
        "alice beat bob, handicap 100 given by alice, alice played white, event spring")

    assert (await say(bot, g, c.ada, "/event close spring")).plain == (
        "Event spring is closed; its 2 games are rated together."
    )
    # Both games from the ratings held before the event, in one period. alice gave 100 points
    # but had White, worth 30 (club's first_move_advantage): a net handicap of 70, so she
    # expected 0.401 against bob; the draw's expectation is 1/2. Each opponent weighs
    # w = 0.924. alice's two games (3/4 of their information) shrink her deviation to 135.0
    # (K 104.9): 1500 + 104.9 x 0.924 x (1 - 0.401) = 1558.1; bob's one to 142.1 (K 116.2):
    # 1500 - 116.2 x 0.924 x 0.599 = 1435.6; carol's draw moves nobody: 1500.
    event = rated(RatingPeriod((Game("alice", "bob", 1.0, START, 100.0, first_move=1),
                                Game("carol", "alice", 0.5, START))))
    assert await ratings(bot) == event
    assert (round(event["alice"], 1), event["carol"], round(event["bob"], 1)) == (
        1558.1, 1500.0, 1435.6)
    assert (await say(bot, g, c.bob, "/top")).plain == lines(
        "main ladder",
        "  1. alice      1558?  2 games",
        "  2. carol      1500?  1 game",
        "  3. bob        1436?  1 game",
    )


async def test_dispute_by_button_and_withdraw(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob, c.carol)
    report = await say(bot, g, c.alice, "/report @bob win")
    await press(bot, g, c.bob, report, "g:dispute:#1")
    disputed = await bot.tg.reply(g)
    assert (disputed.kind, disputed.message_id) == ("edit", report.message_id)
    assert disputed.plain == ("Game #1 is disputed: alice beat bob. A moderator will settle it; "
                              "it waits in their /pending.")
    assert disputed.buttons == []
    assert (await say(bot, g, c.alice, "/pending")).plain == (
        "Your reports waiting: #1 Mar 1, 2024 alice beat bob [disputed]"
    )
    assert (await say(bot, g, c.bob, "/confirm 1")).plain == text("game_disputed", game=1)

    second = await say(bot, g, c.alice, "/report @carol draw")
    assert second.plain == (
        "Game #2: alice drew with carol. carol, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "alice: +53 / 0 / -53 (win 50%)\ncarol: +53 / 0 / -53 (win 50%)")
    assert (await say(bot, g, c.carol, "/withdraw 2")).plain == text("not_your_report", game=2)
    assert (await say(bot, g, c.alice, "/withdraw")).plain == (
        "Several games are waiting (1, 2); say which, e.g. /withdraw 1.")
    assert (await say(bot, g, c.alice, "/withdraw 2")).plain == (
        "Game #2 withdrawn: alice drew with carol."
    )
    # carol's Confirm button is still on the report: it answers that the game was withdrawn.
    await refused_press(bot, g, c.carol, second, "g:confirm:#2", text("game_withdrawn", game=2))
    bot.clock.advance(hours=25)  # neither a disputed nor a withdrawn report confirms itself
    assert await ratings(bot) == {"alice": 1500.0, "bob": 1500.0, "carol": 1500.0}


async def test_an_unanswered_report_confirms_itself_after_24_hours(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob)
    report = await say(bot, g, c.alice, "/report @bob win")
    bot.clock.advance(hours=23)
    assert (await say(bot, g, c.alice, "/pending")).plain == (
        "Your reports waiting: #1 Mar 1, 2024 alice beat bob [pending]"
    )
    bot.clock.advance(hours=2)
    assert (await say(bot, g, c.alice, "/pending")).plain == "Nothing waiting for you."
    assert await ratings(bot) == {"alice": FIRST_WIN, "bob": FIRST_LOSS}
    await refused_press(bot, g, c.bob, report, "g:confirm:#1", text("already_confirmed", game=1))
    assert (await say(bot, g, c.ada, "/audit 1")).plain == (
        "#5 Sat, Mar 2 20:00 UTC game #1 counted by itself, because: unanswered for 24 h"
    )


# -- moderators ---------------------------------------------------------------------------------


async def test_void_restore_merge_retire_and_return(bot: Running) -> None:
    c = club(bot)
    g = c.group
    phone = bot.tg.user(12, "Alice", "alice_phone")  # alice's second account
    await join(bot, c, c.alice, c.bob, c.carol)
    assert (await say(bot, g, phone, '/register "Alice P"')).plain == (
        "Welcome, Alice P! You are on the main ladder."
    )
    assert (await say(bot, g, c.ada, "/report @alice @bob win")).plain == lines(
        "Game #1 recorded: alice beat bob.", "alice: 1500 -> 1553?", "bob: 1500 -> 1447?",
    )
    assert (await say(bot, g, c.ada, "/void 1 wrong pairing")).plain == lines(
        "Game #1 is now void: alice beat bob.", "alice: 1553 -> 1500?", "bob: 1447 -> 1500?",
    )
    assert await ratings(bot) == dict.fromkeys(("alice", "Alice P", "bob", "carol"), 1500.0)
    assert (await say(bot, g, c.ada, "/restore 1")).plain == lines(
        "Game #1 counts again: alice beat bob.", "alice: 1500 -> 1553?", "bob: 1500 -> 1447?",
    )

    report = await say(bot, g, phone, "/report @carol win")
    assert report.plain == (
        "Game #2: Alice P beat carol. carol, please /confirm or /dispute.\n"
        "Ladder main, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "Alice P: +16 / 0 / -16 (win 50%)\ncarol: +16 / 0 / -16 (win 50%)")
    await press(bot, g, c.carol, report, "g:confirm:#2")
    assert (await bot.tg.reply(g)).plain == lines(
        "Game #2 confirmed: Alice P beat carol.", "Alice P: 1500 -> 1516?",
        "carol: 1500 -> 1484?",
    )
    # A merge is previewed first, with Apply and Cancel buttons naming the duplicate by its
    # member id (the id of its registration, event 5); nothing changes until Apply. alice's
    # second win is now over carol from 1553.5: carol starts half way to her first opponent,
    # at 1526.7, with the league's deviation (the floor, 74.56): 1526.7 - 32 x 0.934 x 0.462
    # = 1512.9.
    before = await club_state(bot, g)
    preview = await say(bot, g, c.ada, "/merge @alice_phone @alice")
    assert preview.plain == lines(
        "Merging Alice P into alice drops no game and would change:",
        "alice: 1553 -> 1601?", "carol: 1484 -> 1513?", "Alice P: 1516 -> -",
    )
    assert preview.buttons == [[("Apply", "m:apply:5"), ("Cancel", "m:cancel:5")]]
    assert await club_state(bot, g) == before
    await refused_press(bot, g, c.alice, preview, "m:apply:5", text("no_preview"))
    await press(bot, g, c.ada, preview, "m:apply:5")
    applied = await bot.tg.reply(g)
    assert (applied.kind, applied.message_id) == ("edit", preview.message_id)
    assert applied.plain == lines(
        "Alice P is merged into alice: their games are alice's now. Ratings changed:",
        "alice: 1553 -> 1601?", "carol: 1484 -> 1513?", "Alice P: 1516 -> -",
    )
    assert applied.buttons == []
    await refused_press(bot, g, c.ada, preview, "m:apply:5", text("no_preview"))
    # (the merge's ratings are the service's business: tests/service/test_merge_preview.py)
    merged = await ratings(bot)
    assert merged == rated(Game("alice", "bob", 1.0, START), Game("alice", "carol", 1.0, START))
    # The old account now speaks as alice.
    assert (await say(bot, g, phone, "/rating")).plain == (
        f"alice (main): {merged['alice']:.0f}?, rank 1, 2 games (2W 0D 0L), "
        "no peak yet, recent W W"
    )

    assert (await say(bot, g, c.ada, "/retire @bob")).plain == "bob is retired from main."
    assert "bob" not in (await say(bot, g, c.alice, "/top")).plain
    assert (await say(bot, g, c.alice, "/rating @bob")).plain == (
        "bob (main): 1447?, rank -, 1 game (0W 0D 1L), no peak yet, recent L (retired)"
    )
    # A moderator may name the member by replying to one of their messages.
    bye = await bot.tg.send(g, c.bob, "see you in spring")
    await bot.tg.send(g, c.ada, "/return", reply_to=bot.tg.updates[bye]["message"]["message_id"])
    assert (await bot.tg.reply(g)).plain == "bob is back on main."
    assert await ratings(bot) == merged


async def test_event_ladder_system_set_settings_audit_and_undo(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob)
    assert (await say(bot, g, c.bob, "/settings")).plain == (
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
    assert (await say(bot, g, c.ada, "/ladder create blitz elo")).plain == (
        "Ladder blitz created with the elo system."
    )
    report = await say(bot, g, c.alice, "/report @bob win ladder=blitz")
    assert report.plain == (
        "Game #1: alice beat bob. bob, please /confirm or /dispute.\n"
        "Ladder blitz, no handicap, colours not given, no event; "
        "counts on Sat, Mar 2 19:00 UTC unless disputed.\n"
        "alice: +16 / 0 / -16 (win 50%)\nbob: +16 / 0 / -16 (win 50%)")
    await press(bot, g, c.bob, report, "g:confirm:#1")
    # elo: both join the ladder with this game at 1600; K 32, expected 0.5: +16 and -16.
    assert (await bot.tg.reply(g)).plain == lines(
        "Game #1 confirmed: alice beat bob.", "alice: - -> 1616", "bob: - -> 1584",
    )
    assert await ratings(bot, "blitz") == {"alice": 1616.0, "bob": 1584.0}
    assert await ratings(bot) == {"alice": 1500.0, "bob": 1500.0}  # main is untouched
    assert (await say(bot, g, c.bob, "/top blitz")).plain == lines(
        "blitz ladder", "  1. alice       1616  1 game", "  2. bob         1584  1 game",
    )

    # club from 1500 with deviation 150: K 16 makes the established deviation 52.7, so the
    # opponent weighs g(sqrt(150^2 - 52.7^2)) = 0.913 and K = q 142.0^2 = 116.0: +-53.0.
    # Previewed first (issue 19), with buttons numbered by the id the change would have (7),
    # then applied by typing /apply: the buttons then have nothing left to apply.
    blitz_win, blitz_loss = first_game(16.0)
    switched = ("alice: 1616 -> 1553?", "bob: 1584 -> 1447?")
    preview = await say(bot, g, c.ada, "/system club k=16 ladder=blitz")
    assert preview.plain == lines(
        "Setting ladder blitz to club (k=16) re-rates every game and would change:", *switched,
    )
    apply = system_buttons(preview, 7)
    assert await ratings(bot, "blitz") == {"alice": 1616.0, "bob": 1584.0}
    assert (await say(bot, g, c.ada, "/apply")).plain == lines(
        "Ladder blitz now uses club (k=16); every game was re-rated. Ratings changed:",
        *switched,
    )
    await refused_press(bot, g, c.ada, preview, apply, text("no_preview"))
    assert await ratings(bot, "blitz") == {"alice": blitz_win, "bob": blitz_loss}
    assert (round(blitz_win, 1), round(blitz_loss, 1)) == (1553.0, 1447.0)
    assert (await say(bot, g, c.ada, "/set auto_confirm_hours 2")).plain == (
        "auto_confirm_hours of main is now 2."
    )
    assert (await say(bot, g, c.ada, "/set hide_provisional yes ladder=blitz")).plain == (
        "hide_provisional of blitz is now yes."
    )
    assert (await say(bot, g, c.bob, "/top blitz")).plain == lines(
        "blitz ladder", text("leaderboard_hidden", count=2),
    )
    assert (await say(bot, g, c.bob, "/settings")).plain.endswith(
        "auto-confirm after 2 h; challenges open 48 h; days without a game before "
        "retirement: off; hide provisional: no; announce results: no; "
        "time zone: UTC; reports waiting per member: 5, against one opponent: 1; the club's "
        "language: en. Ladders: blitz, main."
    )
    assert (await say(bot, g, c.ada, "/audit 3")).plain == lines(
        "#9 Fri, Mar 1 19:00 UTC 1 set the blitz ladder's hide_provisional to yes",
        "#8 Fri, Mar 1 19:00 UTC 1 set the main ladder's auto_confirm_hours to 2",
        "#7 Fri, Mar 1 19:00 UTC 1 changed the blitz ladder's rating system to club (k=16); "
        "every game was re-rated",
    )
    # A settings change may move ratings: its undo is previewed, then applied.
    assert (await say(bot, g, c.ada, "/undo")).plain == lines(
        "Undoing #9 (1 set the blitz ladder's hide_provisional to yes) would change:",
        "No rating changes.",
    )
    assert (await say(bot, g, c.ada, "/apply")).plain == lines(
        "Undone #9: 1 set the blitz ladder's hide_provisional to yes. Ratings changed:",
        "No rating changes.",
    )
    assert (await say(bot, g, c.ada, "/undo")).plain.startswith("Undoing #8 (")
    assert (await say(bot, g, c.ada, "/apply")).plain.startswith(
        "Undone #8: 1 set the main ladder's auto_confirm_hours to 2.")
    assert (await say(bot, g, c.bob, "/settings")).plain.endswith(
        "auto-confirm after 24 h; challenges open 48 h; days without a game before "
        "retirement: off; hide provisional: no; announce results: no; "
        "time zone: UTC; reports waiting per member: 5, against one opponent: 1; the club's "
        "language: en. Ladders: blitz, main."
    )
    assert (await say(bot, g, c.bob, "/top blitz")).plain == lines(
        "blitz ladder", "  1. alice      1553?  1 game", "  2. bob        1447?  1 game",
    )
    # A ladder played on cannot be undone away, once the undoable actions after it are gone.
    assert (await say(bot, g, c.ada, "/undo")).plain.startswith("Undoing #7 (")
    assert (await say(bot, g, c.ada, "/apply")).plain.startswith("Undone #7: ")
    assert (await say(bot, g, c.ada, "/undo")).plain == text("ladder_in_use", ladder="blitz")


async def test_correction_previewed_then_cancelled_by_button_then_applied(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob)
    await say(bot, g, c.ada, "/report @alice @bob win")
    preview = await say(bot, g, c.ada, "/correct 1 loss")
    assert preview.plain == lines(
        "Correcting game #1 would change:", "Result: alice beat bob -> bob beat alice",
        "alice: 1553 -> 1447?", "bob: 1447 -> 1553?",
    )
    assert preview.buttons == [[("Apply", "x:apply:#1"), ("Cancel", "x:cancel:#1")]]
    await press(bot, g, c.ada, preview, "x:cancel:#1")
    cancelled = await bot.tg.reply(g)
    assert (cancelled.kind, cancelled.message_id) == ("edit", preview.message_id)
    assert cancelled.plain == "Correction of game #1 cancelled; nothing changed."
    assert cancelled.buttons == []
    await refused_press(bot, g, c.ada, preview, "x:apply:#1", text("no_preview"))
    assert await ratings(bot) == {"alice": FIRST_WIN, "bob": FIRST_LOSS}

    # A second preview, applied by typing; its buttons then have nothing left to apply.
    again = await say(bot, g, c.ada, "/correct 1 draw")
    assert (await say(bot, g, c.ada, "/apply")).plain == lines(
        "Game #1 corrected. Ratings changed:", "Result: alice beat bob -> alice drew with bob",
        "alice: 1553 -> 1500?", "bob: 1447 -> 1500?",
    )
    assert await ratings(bot) == {"alice": 1500.0, "bob": 1500.0}
    await refused_press(bot, g, c.ada, again, "x:apply:#1", text("no_preview"))
    assert (await say(bot, g, c.alice, "/history")).plain == lines(
        "alice's games on main:", "#1 Mar 1, 2024 alice drew with bob",
    )


# -- refusals -----------------------------------------------------------------------------------


async def test_a_button_pressed_by_someone_who_may_not_changes_nothing(bot: Running) -> None:
    c = club(bot)
    g = c.group
    deputy = bot.tg.user(5, "Deputy", "deputy")
    g.admins.append(deputy)
    await join(bot, c, c.alice, c.bob, c.carol)
    await say(bot, g, c.ada, "/report @alice @carol win")  # game #1
    challenge = await say(bot, g, c.alice, "/challenge @bob")  # challenge #1
    report = await say(bot, g, c.alice, "/report @bob win")  # game #2
    preview = await say(bot, g, c.ada, "/correct 1 loss")
    cases = [
        (c.alice, challenge, "c:accept:#1", text("not_your_challenge", challenge=1)),
        (c.alice, challenge, "c:decline:#1", text("not_your_challenge", challenge=1)),
        (c.carol, challenge, "c:accept:#1", text("not_your_challenge", challenge=1)),
        (c.zed, challenge, "c:decline:#1", text("not_registered")),
        (c.alice, report, "g:confirm:#2", text("own_report", game=2, opponent="bob")),
        (c.alice, report, "g:dispute:#2", text("own_report", game=2, opponent="bob")),
        (c.carol, report, "g:confirm:#2", text("not_your_game", game=2)),
        (c.zed, report, "g:dispute:#2", text("not_registered")),
        # A correction is the moderator's who previewed it: a member or another moderator
        # has nothing to apply or cancel.
        (c.carol, preview, "x:apply:#1", text("no_preview")),
        (c.alice, preview, "x:cancel:#1", text("no_preview")),
        (deputy, preview, "x:apply:#1", text("no_preview")),
    ]
    for user, message, data, expected in cases:
        await refused_press(bot, g, user, message, data, expected)
    await quiet(bot, g, c.alice)  # nothing was said in the chat either
    # The right people still can.
    await press(bot, g, c.bob, challenge, "c:accept:#1")
    assert (await bot.tg.reply(g)).plain.startswith("bob accepts alice's challenge #1.")
    await press(bot, g, c.bob, report, "g:confirm:#2")
    assert (await bot.tg.reply(g)).plain.startswith("Game #2 confirmed: alice beat bob.")
    await press(bot, g, c.ada, preview, "x:apply:#1")
    # the log moved since the preview (game #2 confirmed): its Apply applies nothing and shows
    # the new preview, whose own Apply does (issue 31)
    fresh = await bot.tg.reply(g)
    assert fresh.plain.startswith(text("correction_outdated", game=1))
    assert fresh.buttons == [[("Apply", "x:apply:#1"), ("Cancel", "x:cancel:#1")]]
    await press(bot, g, c.ada, fresh, "x:apply:#1")
    assert (await bot.tg.reply(g)).plain.startswith(text("applied", game=1))


async def test_a_forged_button_gets_a_short_answer(bot: Running) -> None:
    # Telegram warns that a callback query's data need not be any button's.
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob)
    report = await say(bot, g, c.alice, "/report @bob win")
    for data in ("g:confirm:x", "g:confirm:", "hello", "z:do:1"):
        await refused_press(bot, g, c.bob, report, data,
                            text("bad_command", command=data))
    await quiet(bot, g, c.bob)


SETUP = "alice, bob and carol; game #1 alice beat bob, confirmed; game #2 bob beat carol, waiting"
GIANT = "/report @bob " + "x" * (5000 - len("/report @bob "))

#: every family of refusal: who types what, and the catalogue's answer
REFUSALS: list[tuple[str, str, str]] = [
    # playing oneself
    ("alice", "/report @alice win", text("not_yourself")),
    ("ada", "/report @bob @bob draw", text("not_yourself")),
    ("alice", "/challenge @alice", text("challenge_yourself")),
    ("alice", "/h2h @alice", text("h2h_yourself")),
    # not a member
    ("zed", "/report @bob win", text("not_registered")),
    ("zed", "/confirm 2", text("not_registered")),
    ("zed", "/challenge @bob", text("not_registered")),
    ("zed", "/rating", text("not_registered")),
    ("zed", "/pending", text("not_registered")),
    ("zed", "/withdraw", text("not_registered")),
    # moderator commands by a member who is no administrator of the group
    *[("alice", line, text("moderators_only")) for line in (
        "/report @bob @carol win", "/correct 1 loss", "/void 1", "/restore 1",
        "/merge @bob @carol", "/retire @bob", "/return @bob", "/event open spring",
        "/event close spring", "/ladder create blitz elo", "/system elo",
        "/set hide_provisional yes", "/audit", "/undo",
    )],
    # unknown players, games, challenges, ladders
    ("alice", "/report @nobody win", text("unknown_member", name="nobody")),
    ("alice", "/challenge @zed", text("unknown_member", name="zed")),
    ("alice", "/rating @nobody", text("unknown_member", name="nobody")),
    ("bob", "/h2h @nobody", text("unknown_member", name="nobody")),
    ("ada", "/merge @nobody @alice", text("unknown_member", name="nobody")),
    ("ada", "/retire @nobody", text("unknown_member", name="nobody")),
    ("carol", "/confirm 99", text("unknown_game", game=99)),
    ("ada", "/void 99", text("unknown_game", game=99)),
    ("alice", "/decline 2", text("unknown_challenge", challenge=2)),
    ("alice", "/top nope", text("unknown_ladder", ladder="nope", ladders="main")),
    ("alice", "/report @bob win ladder=nope",
     text("unknown_ladder", ladder="nope", ladders="main")),
    ("ada", "/system nope", text("unknown_system", system="nope", systems=SYSTEMS)),
    ("ada", "/set colour red", text(
        "unknown_setting", setting="colour",
        settings=", ".join(SETTINGS))),
    # malformed results, numbers and values
    ("alice", "/report @bob 2-0", text("bad_result", text="2-0")),
    ("alice", "/report @bob won-ish", text("bad_result", text="won-ish")),
    ("ada", "/correct 1 2-0", text("bad_result", text="2-0")),
    ("carol", "/confirm abc", text("bad_number", text="abc")),
    ("ada", "/void -3", text("bad_number", text="-3")),
    ("ada", "/void 0", text("bad_number", text="0")),
    ("alice", "/accept 1.5", text("bad_number", text="1.5")),
    ("alice", "/report @bob win handicap=nan", text("bad_handicap", text="nan", limit="1000")),
    ("alice", "/report @bob win handicap=1e9", text("bad_handicap", text="1e9", limit="1000")),
    ("alice", "/report @bob win colour=green", text("bad_colour", text="green")),
    ("alice", "/report @bob win event=spring", text("no_open_event", event="spring")),
    ("dave", "/register birth=1990-13-45", text("bad_date", text="1990-13-45")),
    ("dave", "/register birth=2030-01-01", text("birth_date_future", text="2030-01-01")),
    ("dave", "/register @dave", text("bad_name", limit=32)),
    ("ada", "/set auto_confirm_hours -1",
     text("bad_setting_number", setting="auto_confirm_hours", text="-1", limit="8760")),
    ("ada", "/system club k=abc",
     text("parameter_number", parameter="k", text="abc")),
    ("ada", "/ladder create Main!", text("bad_ladder_name", limit=32)),
    # giant input
    ("alice", GIANT, text("input_too_long", limit=2000)),
    ("dave", "/register " + "n" * 500, text("name_too_long", limit=32)),
    ("alice", "/rating @" + "n" * 500, text("unknown_member", name="n" * 32 + "…")),
    ("carol", "/dispute 2 " + "x" * 300, text("too_long", limit=200)),
    # unknown commands and unusable ones
    ("alice", "/frobnicate", text("bad_command", command="/frobnicate")),
    ("alice", "/frobnicate@clubrating_bot", text("bad_command", command="/frobnicate")),
    # Telegram's command is /top (a name holds no "-"), the word typed is /top-5
    ("alice", "/top-5", text("bad_command", command="/top-5")),
    ("alice", "/report", text("usage", usage=text("help_report"))),
    ("alice", "/h2h", text("usage", usage=text("help_h2h"))),
    ("ada", "/event start spring", text("usage", usage=text("help_event"))),
    # what the state does not allow
    ("alice", "/register", text("already_registered", name="alice")),
    ("dave", "/register Alice", text("name_taken", name="Alice")),
    ("bob", "/confirm", text("own_report", game=2, opponent="carol")),  # issue 31
    ("bob", "/confirm 1", text("already_confirmed", game=1)),
    ("bob", "/confirm 2", text("own_report", game=2, opponent="carol")),
    ("alice", "/confirm 2", text("not_your_game", game=2)),
    ("carol", "/withdraw 2", text("not_your_report", game=2)),
    ("alice", "/accept", text("no_challenge")),
    ("ada", "/restore 1", text("game_not_voided", game=1)),
    ("ada", "/return @bob", text("not_retired", name="bob")),
    ("ada", "/merge @alice @alice", text("same_member", name="alice")),
    ("ada", "/correct 1", text("nothing_to_correct")),
    ("ada", "/undo", text("nothing_to_undo")),
    ("ada", "/apply", text("no_preview")),
]


async def test_every_refusal_answers_its_catalogue_text_and_changes_nothing(
    bot: Running,
) -> None:
    c = club(bot)
    g = c.group
    people = {u.username: u for u in (c.ada, c.alice, c.bob, c.carol, c.zed)}
    people["dave"] = bot.tg.user(6, "Dave", "dave")
    await join(bot, c, c.alice, c.bob, c.carol)
    await say(bot, g, c.alice, "/report @bob win")  # game #1
    await say(bot, g, c.bob, "/confirm")
    await say(bot, g, c.bob, "/report @carol win")  # game #2
    before = await club_state(bot, g)
    for who, line, expected in REFUSALS:
        bot.clock.advance(seconds=3)  # at a person's pace: under the per-member rate limit
        answer = await say(bot, g, people[who], line)
        assert (answer.plain, answer.buttons) == (expected, []), f"{who}: {line[:60]}"
        assert answer.parse_mode == "HTML" and len(answer.text or "") < 300
    assert await club_state(bot, g) == before, SETUP


async def test_playing_oneself_by_replying_to_ones_own_message(bot: Running) -> None:
    c = club(bot)
    await join(bot, c, c.alice, c.bob)
    mine = await bot.tg.send(c.group, c.alice, "who wants a game?")
    await bot.tg.send(c.group, c.alice, "/report win",
                      reply_to=bot.tg.updates[mine]["message"]["message_id"])
    assert (await bot.tg.reply(c.group)).plain == text("not_yourself")


async def test_what_is_not_for_the_bot_gets_no_answer(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob)
    before = await club_state(bot, g)
    await bot.tg.send(g, c.alice, "hello everyone")  # no command
    await bot.tg.send(g, c.alice, "/report@another_bot @bob win")  # another bot's command
    await bot.tg.send(g, c.alice, "/frobnicate@another_bot")  # one the product does not have
    await quiet(bot, g, c.alice)
    assert await club_state(bot, g) == before


async def test_editing_a_command_does_not_run_it_again(bot: Running) -> None:
    c = club(bot)
    g = c.group
    await join(bot, c, c.alice, c.bob)
    sent = await bot.tg.send(g, c.alice, "/report @bob win")
    assert (await bot.tg.reply(g)).plain.startswith("Game #1: alice beat bob.")
    before = await club_state(bot, g)
    await edit(bot, g, sent, "/report @bob loss")
    await quiet(bot, g, c.alice)
    assert await club_state(bot, g) == before
    assert (await say(bot, g, c.bob, "/pending")).plain == (
        "To confirm or dispute: #1 Mar 1, 2024 alice beat bob [pending]"
    )


async def test_a_name_that_is_a_telegram_user_id_cannot_be_taken(bot: Running) -> None:
    # Members named by a reply or a text mention reach the service as @<user id>; a member
    # called "3" would answer for bob (user 3).
    c = club(bot)
    g = c.group
    mallory = bot.tg.user(66, "3")  # a first name of digits, no username
    await join(bot, c, c.alice, c.bob)
    assert (await say(bot, g, mallory, "/register")).plain == text("bad_name", limit=32)
    assert (await say(bot, g, mallory, "/register 3")).plain == text("bad_name", limit=32)
    hello = await bot.tg.send(g, c.bob, "good game")
    await bot.tg.send(g, c.alice, "/report win",
                      reply_to=bot.tg.updates[hello]["message"]["message_id"])
    assert (await bot.tg.reply(g)).plain.startswith("Game #1: alice beat bob.")


def system_buttons(preview: Output, next_event: int) -> str:
    """The Apply and Cancel buttons under a /system preview: their number is the id the switch
    would have (``next_event``) then six digits of the switch itself; the Apply's id."""
    (apply_label, apply), (cancel_label, cancel) = preview.buttons[0]
    assert len(preview.buttons) == 1 and (apply_label, cancel_label) == ("Apply", "Cancel")
    number = int(str(apply).removeprefix("s:apply:"))
    assert number // 1_000_000 == next_event and cancel == f"s:cancel:{number}"
    return str(apply)
