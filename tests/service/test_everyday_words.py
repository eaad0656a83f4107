"""Everyday words in commands (issue 31): apostrophes, straight ' and typographic ’, are letters;
only double quotes, straight or typographic, group words; a reason is taken as written."""

from __future__ import annotations

import pytest

from bot.chat.commands import parse
from bot.chat.words import MAX_LINE, split_words
from bot.service.errors import Refusal
from bot.service.state import folded_name


@pytest.mark.parametrize(("line", "words"), [
    ("/register O'Brien", ["/register", "O'Brien"]),
    ("/register O’Brien", ["/register", "O’Brien"]),
    ("/rating 'quoted words'", ["/rating", "'quoted", "words'"]),
    ('/rating @"Zoë Smith" ladder=blitz', ["/rating", "@Zoë Smith", "ladder=blitz"]),
    ("/rating @“Zoë Smith”", ["/rating", "@Zoë Smith"]),
    ("/rating @„Zoë Smith“", ["/rating", "@Zoë Smith"]),
    ("/rating @«Zoë Smith»", ["/rating", "@Zoë Smith"]),
    ('/rating @“Zoë Smith"', ["/rating", "@Zoë Smith"]),  # a phone's mix
    ('/schedule cron="0 9 * * MON" tz=UTC', ["/schedule", "cron=0 9 * * MON", "tz=UTC"]),
    ('/x "" a\\b', ["/x", "", "a\\b"]),
    ("  /x\ta  b ", ["/x", "a", "b"]),
])
def test_only_double_quotes_group_words(line: str, words: list[str]) -> None:
    assert split_words(line) == words


@pytest.mark.parametrize("line", ['/rating @"Zoë Smith', "/rating @“Zoë Smith", "/x «a"])
def test_a_double_quote_left_open_is_refused(line: str) -> None:
    with pytest.raises(Refusal) as refused:
        parse(line)
    assert refused.value.key == "usage"


@pytest.mark.parametrize(("line", "args"), [
    ("/dispute 4 I didn't play this game", ["4", "I", "didn't", "play", "this", "game"]),
    ("/dispute 4 I didn’t play", ["4", "I", "didn’t", "play"]),
    ("/void 5 reporter's mistake", ["5", "reporter's", "mistake"]),
    # a reason is as written: its quotes, even one left open, are its own
    ('/void 5 he said "no" on a 12" board', ["5", "he", "said", '"no"', "on", "a", '12"',
                                              "board"]),
    ("/dispute 4 a=b", ["4", "a=b"]),
])
def test_a_reason_is_taken_as_written(line: str, args: list[str]) -> None:
    command, words = parse(line)
    assert command == line.split()[0][1:] and words.args == args and words.options == {}


def test_other_readings_stay() -> None:
    command, words = parse("/report@clubbot @bob win handicap=2 ladder=blitz ladder=x")
    assert (command, words.args, words.options, words.repeated) == (
        "report", ["@bob", "win"], {"handicap": "2", "ladder": "blitz"}, ["ladder"])
    with pytest.raises(Refusal) as refused:
        parse("/dispute " + "x" * MAX_LINE)
    assert refused.value.key == "input_too_long"
    with pytest.raises(Refusal) as refused:
        parse("hello there")
    assert refused.value.key == "bad_command"


def test_apostrophes_are_one_letter_in_names() -> None:
    assert folded_name("O’Brien") == folded_name("o'brien") == folded_name("Oʼbrien")
    assert folded_name("OBrien") != folded_name("O'Brien")
