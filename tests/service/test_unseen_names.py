"""Issue 30, "Invisible letters": a new name (at /register and in ``clubrating import``) holds no
character nobody sees, after NFC: no default-ignorable code point (a Hangul filler included), no
COMBINING DOT ABOVE on a soft-dotted letter, no mark twice on one letter. The marks of real names
(Yoruba, Vietnamese) stay valid, and so does ``$``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

from bot.chat.messages import text
from bot.chat.presenter import render
from bot.history import read_events
from bot.service.clock import FakeClock
from bot.service.club import ClubService
from bot.service.errors import Refusal
from bot.service.lookalike import look_alike, unseen
from bot.service.parsing import MAX_NAME, display_name
from bot.storage.backends import open_repository
from tests.chat import Transcript, open_club

#: (name, the character refused): issue 30's names, and the other shapes of the rule
UNSEEN = [
    ("alice\u034f", "U+034F"),  # COMBINING GRAPHEME JOINER
    ("alice\ufe0f", "U+FE0F"),  # VARIATION SELECTOR-16
    ("al\u034fice", "U+034F"),
    ("ali\u0307ce", "U+0307"),  # a dot above the dot of i
    ("\u3164", "U+3164"),  # HANGUL FILLER, alone
    ("bob\uffa0", "U+FFA0"),  # HALFWIDTH HANGUL FILLER
    ("\u115fbob", "U+115F"),
    ("al\u200bice", "U+200B"),  # ZERO WIDTH SPACE
    ("ali\u00adce", "U+00AD"),  # SOFT HYPHEN
    ("ali\u2060ce", "U+2060"),  # WORD JOINER
    ("alice\U000e0100", "U+E0100"),  # VARIATION SELECTOR-17
    ("jo\u0301\u0301", "U+0301"),  # an acute twice on one o
    ("e\u0301\u0301va", "U+0301"),  # twice, the first composed by NFC into é
    ("\u0458\u0307ohn", "U+0307"),  # Cyrillic je, soft-dotted too
]
#: names whose marks change their letters: they stay valid
SEEN = ["Adéwálé", "Ẹ́mẹ́", unicodedata.normalize("NFD", "Ẹ́mẹ́"), "Nguyễn", "İlkay", "q\u0307a",
        "$ab$", "$\\q$", "Zoë"]


@pytest.mark.parametrize(("name", "char"), UNSEEN, ids=[c for _, c in UNSEEN])
def test_a_name_with_a_character_nobody_sees_is_refused(name: str, char: str) -> None:
    assert unseen(name) == chr(int(char[2:], 16))
    with pytest.raises(Refusal) as refused:
        display_name(name)
    assert refused.value.key == "name_invisible" and refused.value.params == {"char": char}


@pytest.mark.parametrize("name", SEEN)
def test_marks_that_change_a_letter_and_dollars_stay_valid(name: str) -> None:
    assert unseen(name) is None
    assert display_name(name) == unicodedata.normalize("NFC", name)


def test_invisible_characters_are_dropped_before_the_skeleton() -> None:
    # A member named so before issue 30 still keeps the plain name from being taken.
    assert look_alike("alice\u034f", "alice") and look_alike("al\u200bice", "alice")
    assert look_alike("alice\ufe0f", "alice")


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Transcript]:
    async with open_club(tmp_path / "club.db") as opened:
        await opened.as_("alice", "/register")
        yield opened


@pytest.mark.parametrize(("name", "char"), UNSEEN[:5], ids=[c for _, c in UNSEEN[:5]])
async def test_register_refuses_an_invisible_letter_beside_alice(
        chat: Transcript, name: str, char: str) -> None:
    assert await chat.as_("dave", f"/register {name}") == text("name_invisible", char=char)
    board = await chat.as_("alice", "/top")
    assert name not in board
    assert (await chat.as_("dave", "/register Ẹ́mẹ́")).startswith("Welcome, Ẹ́mẹ́!")


async def test_a_name_is_kept_in_nfc(chat: Transcript) -> None:
    typed = unicodedata.normalize("NFD", "Nguyễn")
    assert (await chat.as_("dave", f"/register {typed}")).startswith("Welcome, Nguyễn!")
    assert "Nguyễn" in await chat.as_("alice", "/top")


# -- clubrating import --------------------------------------------------------------------------

HEADER = "played_at,event,player_a,player_b,score_a,handicap,kind"


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[ClubService]:
    repository = await open_repository(tmp_path / "club.db")
    try:
        club = ClubService(repository, FakeClock(datetime(2024, 3, 1, 19)))
        await club.export_history("console", "rules")  # the club and its ladder exist
        yield club
    finally:
        await repository.close()


@pytest.mark.parametrize(("name", "char"), UNSEEN, ids=[c for _, c in UNSEEN])
async def test_import_refuses_an_invisible_letter_naming_row_and_column(
        service: ClubService, tmp_path: Path, name: str, char: str) -> None:
    path = tmp_path / "EVENTS.csv"
    path.write_text(f"{HEADER}\n2024-01-06,,alice,bob,1,,\n2024-01-07,,bob,{name},0,,\n",
                    encoding="utf-8")
    history = read_events(path)
    with pytest.raises(Refusal) as refused:
        await service.import_history("console", "rules", history, history.labels, None)
    assert render(refused.value) == text(
        "import_name_invisible", file="EVENTS.csv", row=2, column="player_b", name=name,
        char=char, limit=MAX_NAME)
    steps, names, _ = await service.export_history("console", "rules")
    assert steps == [] and name not in names.values()  # nothing was imported
