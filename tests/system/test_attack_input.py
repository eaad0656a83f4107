"""Hostile input at the doors of the product as a club runs it: ``clubrating import`` and
``clubrating run`` started as processes, with only environment variables and files as input.

A file with one value out of bounds (a handicap of 1e308, a game in year 1 or 9999, a negative
solving time) is refused whole, naming the file, the row and the column, with a non-zero exit,
and the club's history is exactly as before. Names that only look like a member's (a Cyrillic а,
fullwidth letters) are refused at /register, and a club's ladders stop at 20. Names are data
(issue 30): a name with a character nobody sees is refused at /register and import, a name a
spreadsheet would run is exported as text and read back as it was, and a name with dollars is
drawn as written.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat.messages import text
from tests.fake_telegram import TOKEN, FakeTelegram, User

from .clubs import GROUP, TelegramChat
from .process import clubrating, environment

CHAT = "console:local"
HEADER = "played_at,event,player_a,player_b,score_a,handicap,kind,seconds"
HISTORY = f"""{HEADER}
2026-01-10T19:00:00,,ann,bob,1,,,
2026-01-17T19:00:00,,bob,carl,0.5,,,
2026-01-24T19:00:00,,carl,ann,0,50,,
"""
#: (case, the bad row, the column it must name)
BAD_ROWS = [
    ("handicap 1e308", "2026-02-01T19:00:00,,ann,bob,1,1e308,,", "handicap"),
    ("date 0001-01-01", "0001-01-01,,ann,bob,1,,,", "played_at"),
    ("date 9999-12-31", "9999-12-31,,ann,bob,1,,,", "played_at"),
    ("seconds -1", "2026-02-01T19:00:00,,ann,bob,1,,,-1", "seconds"),
]


@pytest.mark.parametrize(("case", "row", "column"), BAD_ROWS, ids=[b[0] for b in BAD_ROWS])
def test_an_import_with_one_value_out_of_bounds_is_refused_whole(
        tmp_path: Path, case: str, row: str, column: str) -> None:
    env = environment(tmp_path, None)
    history = tmp_path / "HISTORY.csv"
    history.write_text(HISTORY, encoding="utf-8")
    done = clubrating(env, "import", "--chat", CHAT, str(history))
    assert done.returncode == 0, done.stderr
    before = clubrating(env, "export", "--chat", CHAT)
    assert before.returncode == 0 and before.stdout.count("\n") == 4, before.stderr

    # The bad row between two good ones: nothing of the file may be written.
    attack = tmp_path / "ATTACK.csv"
    attack.write_text(f"{HEADER}\n2026-02-01T18:00:00,,bob,ann,1,,,\n{row}\n"
                      "2026-02-02T19:00:00,,dora,ann,1,,,\n", encoding="utf-8")
    done = clubrating(env, "import", "--chat", CHAT, str(attack))
    assert done.returncode != 0 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("clubrating: ATTACK.csv") and column in line, line
    assert "row 2" in line or "Row 2 of the file" in line, line
    assert "Traceback" not in done.stderr

    after = clubrating(env, "export", "--chat", CHAT)
    assert after.returncode == 0 and after.stdout == before.stdout


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[TelegramChat]:
    async with FakeTelegram(token=TOKEN) as tg:
        yield TelegramChat.founded(tg, tmp_path, tg.user(1, "Ada", "ada"))


async def test_look_alike_names_are_refused_at_registration(club: TelegramChat) -> None:
    alice = club.tg.user(2, "Alice", "alice")
    # No username: Telegram shows her full name, a Cyrillic а first.
    mallory = club.tg.user(3, "\u0430lice")
    trudy = club.tg.user(4, "Trudy", "trudy")
    bot = await club.bot().start()
    try:
        assert (await club.say(alice, "/register")).plain.startswith("Welcome, alice!")
        refused = await club.say(mallory, "/register")
        assert refused.plain == text("name_like", name="\u0430lice", member="alice")
        for name in ("\uff41\uff4c\uff49\uff43\uff45", "\u0430lice", "ALICE"):
            answer = await club.say(trudy, f"/register {name}")
            assert answer.plain in (text("name_like", name=name, member="alice"),
                                    text("name_taken", name=name)), answer.plain
        board = await club.say(trudy, "/top")
        assert "\u0430lice" not in board.plain and "\uff41" not in board.plain
        assert (await club.say(trudy, "/register")).plain.startswith("Welcome, trudy!")
    finally:
        assert await bot.stop() == 0
    assert "\u0430lice" not in club.shell("export", "--chat", f"telegram:{GROUP}")


async def test_a_twenty_first_ladder_is_refused_with_the_limit(club: TelegramChat) -> None:
    bot = await club.bot().start()
    try:
        for n in range(2, 21):
            answer = await club.say(club.ada, f"/ladder create l{n}")
            assert answer.plain == text("ladder_created", ladder=f"l{n}", system="club")
        refused = await club.say(club.ada, "/ladder create l21")
        assert refused.plain == text("too_many_ladders", limit=20)
        assert "20" in refused.plain
        settings = await club.say(club.ada, "/settings")
        assert "l21" not in settings.plain and "l20" in settings.plain
    finally:
        assert await bot.stop() == 0


# -- issue 30: names are data ------------------------------------------------------------------

#: (name, the character nobody sees, as the refusal names it): issue 30's names
INVISIBLE = [("alice\u034f", "U+034F"), ("alice\ufe0f", "U+FE0F"), ("al\u034fice", "U+034F"),
             ("ali\u0307ce", "U+0307"), ("\u3164", "U+3164")]
#: names a spreadsheet would run as a formula, and one starting with the quote that marks text
FORMULAS = ['=HYPERLINK("http://e.x","y")', "+x1", "-x", "'x"]


async def test_names_with_letters_nobody_sees_are_refused_at_registration(
        club: TelegramChat) -> None:
    alice = club.tg.user(2, "Alice", "alice")
    bot = await club.bot().start()
    try:
        await club.register(alice)
        for n, (name, char) in enumerate(INVISIBLE):
            typed = club.tg.user(10 + n, "Mallory", f"mallory{n}")
            answer = await club.say(typed, f"/register {name}")
            assert answer.plain == text("name_invisible", char=char), answer.plain
            # Nor as a Telegram name: without a username the bot takes the full name.
            shown = club.tg.user(20 + n, name)
            answer = await club.say(shown, "/register")
            assert answer.plain == text("name_invisible", char=char), answer.plain
        for n, name in enumerate(("Adéwálé", "Ẹ́mẹ́", "Nguyễn")):
            answer = await club.say(club.tg.user(30 + n, name), "/register")
            assert answer.plain.startswith(f"Welcome, {name}!"), answer.plain
        board = (await club.say(alice, "/top")).plain
        assert not any(name in board for name, _ in INVISIBLE[:4]) and "\u3164" not in board
    finally:
        assert await bot.stop() == 0


@pytest.mark.parametrize(("name", "char"), INVISIBLE, ids=[c for _, c in INVISIBLE])
def test_an_import_with_a_name_nobody_sees_is_refused_whole(
        tmp_path: Path, name: str, char: str) -> None:
    env = environment(tmp_path, None)
    first = tmp_path / "FIRST.csv"
    first.write_text(f"{HEADER}\n2026-01-10T19:00:00,,alice,bob,1,,,\n", encoding="utf-8")
    assert clubrating(env, "import", "--chat", CHAT, str(first)).returncode == 0
    before = clubrating(env, "export", "--chat", CHAT).stdout
    attack = tmp_path / "ATTACK.csv"
    attack.write_text(f"{HEADER}\n2026-02-01T18:00:00,,bob,alice,1,,,\n"
                      f"2026-02-02T19:00:00,,{name},bob,1,,,\n", encoding="utf-8")
    done = clubrating(env, "import", "--chat", CHAT, str(attack))
    assert done.returncode == 2 and done.stdout == "", done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("clubrating: ATTACK.csv row 2, column player_a:"), line
    assert char in line, line
    assert clubrating(env, "export", "--chat", CHAT).stdout == before


def _games(exported: str) -> list[tuple[str, str]]:
    """Who played whom, as ``clubrating export`` writes it (the cells as they are)."""
    return [(row["player_a"], row["player_b"]) for row in csv.DictReader(io.StringIO(exported))
            if row["kind"] == "game"]


async def test_names_a_spreadsheet_would_run_are_exported_as_text_and_read_back(
        club: TelegramChat) -> None:
    bob = club.tg.user(2, "Bob", "bob")
    players = [club.tg.user(40 + n, name) for n, name in enumerate(FORMULAS)]
    bot = await club.bot().start()
    try:
        await club.register(bob)
        for player in players:
            welcome = await club.say(player, "/register")
            assert welcome.plain.startswith(f"Welcome, {player.first_name}!"), welcome.plain
            report = await club.say(player, "/report @bob win")
            number = re.match(r"Game #(\d+)", report.plain)
            assert number is not None, report.plain
            confirmed = await club.say(bob, f"/confirm {number.group(1)}")
            assert "confirmed" in confirmed.plain, confirmed.plain
    finally:
        assert await bot.stop() == 0
    exported = club.shell("export", "--chat", f"telegram:{GROUP}")
    assert _games(exported) == [("'" + name, "bob") for name in FORMULAS]
    # The same file into a fresh club: the same names, written alike.
    path = club.folder / "EXPORT.csv"
    path.write_text(exported, encoding="utf-8")
    club.shell("import", "--chat", "console:fresh", str(path))
    again = club.shell("export", "--chat", "console:fresh")
    assert _games(again) == _games(exported)
    standings = club.shell("replay", str(path))
    assert all(f'"{name}"' in standings.replace('\\"', '"') for name in FORMULAS), standings


async def _card(club: TelegramChat, group: int, user: User) -> bytes:
    """``user`` registers in ``group`` and asks for its /card: the picture's bytes."""
    await club.tg.send(group, user, "/register")
    welcome = await club.tg.reply(group, 10.0)
    assert welcome.plain.startswith(f"Welcome, {user.first_name}!"), welcome.plain
    await club.tg.send(group, user, "/card")
    card = await club.tg.reply(group, 30.0)
    assert card.kind == "photo", card.plain
    message = club.tg.message(group, card.message_id)
    assert message is not None
    return club.tg.files[message["photo"][0]["file_id"]]


async def test_names_with_dollars_are_drawn_as_written(club: TelegramChat) -> None:
    texy = club.tg.user(2, "$\\q$")
    bob = club.tg.user(3, "Bob", "bob")
    for chat_id in (-1002, -1003):
        club.tg.group(chat_id, f"Club {chat_id}", admins=[club.ada], creator=club.ada)
    bot = await club.bot().start()
    try:
        await club.register(bob)
        assert (await club.say(texy, "/register")).plain.startswith("Welcome, $\\q$!")
        report = await club.say(texy, "/report @bob win")
        assert report.plain.startswith("Game #1"), report.plain
        assert "confirmed" in (await club.say(bob, "/confirm 1")).plain
        for line in ("/card", "/chart", "/chart @bob"):
            picture = await club.say(texy, line, timeout=30.0)
            assert picture.kind == "photo", (line, picture.plain)
        # The same card but for the name: as math text, "$ab$" and "$a b$" would both draw an
        # italic "ab".
        close = await _card(club, -1002, club.tg.user(4, "$ab$"))
        spaced = await _card(club, -1003, club.tg.user(5, "$a b$"))
        assert close.startswith(b"\x89PNG") and spaced.startswith(b"\x89PNG")
        assert close != spaced
    finally:
        assert await bot.stop() == 0
