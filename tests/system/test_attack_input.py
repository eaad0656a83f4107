"""Hostile input at the doors of the product as a club runs it: ``clubrating import`` and
``clubrating run`` started as processes, with only environment variables and files as input.

A file with one value out of bounds (a handicap of 1e308, a game in year 1 or 9999, a negative
solving time) is refused whole, naming the file, the row and the column, with a non-zero exit,
and the club's history is exactly as before. Names that only look like a member's (a Cyrillic а,
fullwidth letters) are refused at /register, and a club's ladders stop at 20.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.chat.messages import text
from tests.fake_telegram import TOKEN, FakeTelegram

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
