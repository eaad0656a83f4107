"""Everyday words break no command (issue 31), through ``clubrating run``: apostrophes,
straight ' and typographic ’, are letters in every command (a reason as written in the
moderators' /pending and in /audit, a name O'Brien found as O’Brien too); a name with a space is
named in double quotes, ``@"Zoë Smith"``, and unquoted it is refused with that quoted form."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Self

import pytest

from tests.fake_telegram import TOKEN, FakeTelegram, User

from .clubs import TelegramChat
from .process import FakeClock, clubrating, environment

START = datetime(2026, 11, 23, 21, 0)
QUOTED = '@"Zoë Smith"'


def console(tmp_path: Path, said: list[tuple[str, str]]) -> list[str]:
    """Each line ``said`` by its speaker (``/as`` them first) into ``clubrating run``'s console;
    the answer to each, in order."""
    lines = [line for who, said_line in said for line in (f"/as {who}", said_line)]
    done = clubrating(environment(tmp_path, FakeClock(tmp_path, START)), "run",
                      input="\n".join([*lines, "/quit"]) + "\n")
    assert done.returncode == 0, done.stderr
    answers: list[str] = []
    for line in done.stdout.splitlines():
        if line.startswith("You are now "):  # the /as before each line said
            answers.append("")
        elif answers:
            answers[-1] = f"{answers[-1]}\n{line}".lstrip("\n")
    assert len(answers) == len(said), done.stdout
    return answers


def members(*pairs: tuple[str, str]) -> list[tuple[str, str]]:
    return [(who, f"/register {name}".rstrip()) for who, name in pairs]


def test_apostrophes_are_letters_in_every_command(tmp_path: Path) -> None:
    said = [
        *members(("obrien", "O'Brien"), ("zoe", "Zoë Smith"), ("bob", ""), ("carl", "")),
        ("bob", "/report @O’Brien win"),  # typographic: the same letter
        ("bob", '/report @"Zoë Smith" win'),
        ("mod!", "/report @bob @carl win"),
        ("obrien", "/dispute 1 I didn't play this game"),
        ("zoe", "/dispute 2 I didn’t play it, bob’s mistake"),
        ("mod!", "/pending"),
        ("mod!", "/void 3 reporter's mistake"),
        ("mod!", "/audit 3"),
        ("dee", "/register O’Brien"),
    ]
    answers = console(tmp_path, said)
    assert answers[0].startswith("Welcome, O'Brien!"), answers[0]
    assert answers[4].startswith("Game #1: bob beat O'Brien."), answers[4]
    assert answers[5].startswith("Game #2: bob beat Zoë Smith."), answers[5]
    disputes = answers[7:9]
    assert not any(a.startswith("Usage") for a in disputes), disputes
    pending = answers[9]
    assert "#1" in pending and "I didn't play this game" in pending, pending
    assert "#2" in pending and "I didn’t play it, bob’s mistake" in pending, pending
    assert "void" in answers[10] and not answers[10].startswith("Usage"), answers[10]
    assert "reporter's mistake" in answers[11], answers[11]
    assert "taken" in answers[12], answers[12]  # O’Brien is O'Brien's name


def test_a_name_with_a_space_is_named_in_double_quotes(tmp_path: Path) -> None:
    unquoted = ["/report @Zoë Smith win", "/rating @Zoë Smith", "/h2h @Zoë Smith",
                "/history @Zoë Smith", "/challenge @Zoë Smith", "/chart @Zoë Smith"]
    quoted = ['/rating @"Zoë Smith"', "/rating @“Zoë Smith”", "/rating @„Zoë Smith“",
              "/rating @«Zoë Smith»"]
    said = [
        *members(("zoe", "Zoë Smith"), ("bob", "")),
        *(("bob", line) for line in unquoted),
        ("mod!", "/retire @Zoë Smith"),
        *(("bob", line) for line in quoted),
        ("bob", '/report @"Zoë Smith" win'),
        ("zoe", "/pending"),
        ("bob", '/rating @"Zoë Smith'),
        ("bob", "/help"),
    ]
    answers = console(tmp_path, said)
    refused = answers[2:2 + len(unquoted) + 1]
    for line, answer in zip([*unquoted, "/retire"], refused, strict=True):
        assert QUOTED in answer, (line, answer)
        assert "Only moderators" not in answer and "Extra word" not in answer, (line, answer)
    shown = answers[3 + len(unquoted):3 + len(unquoted) + len(quoted)]
    for line, answer in zip(quoted, shown, strict=True):
        assert answer.startswith("Zoë Smith (main): 1500"), (line, answer)
    reported, pending, unbalanced, helped = answers[-4:]
    assert reported.startswith("Game #1: bob beat Zoë Smith."), reported
    # the refusals recorded nothing: the one game waiting for zoe is the quoted report's
    assert "#1" in pending and "#2" not in pending, pending
    assert unbalanced.startswith("Usage"), unbalanced
    assert '/rating @"Zoë Smith"' in helped and "O'Brien" in helped, helped


@dataclass
class WordsClub(TelegramChat):
    """ada runs the group; alice has a username, Zoë Smith none (she registers by her name)."""

    alice: User
    zoe: User

    @classmethod
    def on(cls, tg: FakeTelegram, folder: Path) -> Self:
        return cls.founded(tg, folder, tg.user(1, "Ada", "ada"), tg.user(2, "Alice", "alice"),
                           tg.user(3, "Zoë", None, "Smith"))


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[WordsClub]:
    async with FakeTelegram(token=TOKEN) as tg:
        yield WordsClub.on(tg, tmp_path)


async def test_telegram_names_in_quotes_and_reasons_with_apostrophes(club: WordsClub) -> None:
    bot = await club.bot().start()
    try:
        await club.register(club.alice)
        welcome = await club.say(club.zoe, "/register")
        assert welcome.plain.startswith("Welcome, Zoë Smith!"), welcome.plain
        unquoted = await club.say(club.alice, "/report @Zoë Smith win")
        assert QUOTED in unquoted.plain and "Only moderators" not in unquoted.plain
        reported = await club.say(club.alice, '/report @"Zoë Smith" win')
        assert "alice beat Zoë Smith" in reported.plain, reported.plain
        disputed = await club.say(club.zoe, "/dispute 1 I didn't play this game")
        assert not disputed.plain.startswith("Usage"), disputed.plain
        pending = await club.say(club.ada, "/pending")
        assert "#1" in pending.plain and "I didn't play this game" in pending.plain
        rating = await club.say(club.alice, "/rating @“Zoë Smith”")
        assert rating.plain.startswith("Zoë Smith (main)"), rating.plain
    finally:
        assert await bot.stop() == 0
