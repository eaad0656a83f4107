"""Names people cannot tell apart share a skeleton (UTS #39 with NFKC and case folding, on
Unicode's confusables table as the confusable-homoglyphs package ships it)."""

from __future__ import annotations

import pytest

from bot.service.lookalike import look_alike, skeletons

ALIKE = [
    ("alice", "\u0430lice"),  # Cyrillic а
    ("alice", "\uff41\uff4c\uff49\uff43\uff45"),  # fullwidth
    ("alice", "ALICE"),  # case
    ("alice", "AL\u0406CE"),  # a Cyrillic І among capitals
    ("Bill", "BiII"),  # capital i for l
    ("bob", "b0b"),  # zero for o
    ("bob", "b\u03bfb"),  # Greek omicron
    ("alice1", "alicel"),  # one for l
    ("mam", "marn"),  # m and r n
    ("Anna", "\u0410nna"),  # Cyrillic capital А
    ("bob", "\U0001d41b\U0001d428\U0001d41b"),  # mathematical bold
    ("Олег", "Oлег"),  # Cyrillic with a Latin O
]
APART = [
    ("alice", "alicé"),  # an accent is seen
    ("alice", "alicia"),
    ("ivan", "lvan"),  # small i has a dot
    ("José", "Jose"),
    ("Боб", "bob"),
    ("ab", "a b"),
    ("山田", "山口"),
]


@pytest.mark.parametrize(("name", "other"), ALIKE)
def test_look_alikes_share_a_skeleton(name: str, other: str) -> None:
    assert look_alike(name, other) and look_alike(other, name)


@pytest.mark.parametrize(("name", "other"), APART)
def test_names_that_differ_to_the_eye_do_not(name: str, other: str) -> None:
    assert not look_alike(name, other)


def test_a_skeleton_is_plain_text_of_the_prototypes() -> None:
    assert skeletons("\u0430lice") == {"alice"}
    assert skeletons("  a\u3000lice ") == skeletons("a lice")  # spaces as display names have
