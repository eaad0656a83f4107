"""Names people cannot tell apart: "alice", "аlice" (a Cyrillic а) and "ａｌｉｃｅ" (fullwidth)
read the same, so only the first of them may join a club.

Two names look alike when they share a skeleton in the sense of Unicode's UTS #39 (section 4,
"Confusable Detection"): NFKC (fullwidth and other compatibility forms become the plain letter),
then every character replaced by the prototype Unicode's confusables table gives it (Cyrillic а
becomes Latin a, digit 1 and capital I become l, m becomes rn), then case folding. The table
comes from the ``confusable-homoglyphs`` package, which ships Unicode's confusables.txt as JSON:
each pair (character, prototype) of the table stored both ways, right-to-left characters wrapped
in U+200E marks as in the table's comments. Only the pairs are used here: in the table no
prototype is itself mapped, so the pairs form stars around their prototypes, and the character
with the most pairs in each group stands for it.

Each name has two skeletons: one with the table applied before case folding (so "BiII", with
capital i's, looks like "Bill") and one after it (so "ALІCE", with a Cyrillic І, looks like
"alice"); two names look alike when they share one. Default-ignorable code points are dropped
before the skeleton, as UTS #39 (section 4) does: "alice" with a COMBINING GRAPHEME JOINER
looks like "alice".

Letters nobody can see (:func:`unseen`, issue 30) are refused in a new name outright.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from importlib.resources import files
from itertools import chain

#: the left-to-right marks the package's data wraps right-to-left characters in
_MARK = "\u200e"


@cache
def _table() -> dict[str, str]:
    """Character -> the text that stands for every character that looks like it."""
    data = json.loads(files("confusable_homoglyphs").joinpath("confusables.json")
                      .read_text(encoding="utf-8"))
    pairs: set[tuple[str, str]] = set()
    for key, entries in data.items():
        for entry in entries:
            one, other = key.replace(_MARK, ""), str(entry["c"]).replace(_MARK, "")
            if one and other and one != other:
                pairs.add((one, other) if len(one) <= len(other) else (other, one))
    # Single characters that look alike form groups; a character that looks like a sequence
    # (m and rn) maps to the sequence.
    parent: dict[str, str] = {}

    def root(ch: str) -> str:
        while parent.setdefault(ch, ch) != ch:
            parent[ch] = parent[parent[ch]]
            ch = parent[ch]
        return ch

    degree: dict[str, int] = {}
    sequences: dict[str, str] = {}
    for one, other in sorted(pairs):
        if len(other) > 1:
            if len(one) == 1:
                sequences[one] = other
            continue
        degree[one] = degree.get(one, 0) + 1
        degree[other] = degree.get(other, 0) + 1
        parent[root(one)] = root(other)
    groups: dict[str, list[str]] = {}
    for ch in parent:
        groups.setdefault(root(ch), []).append(ch)
    table: dict[str, str] = {}
    for members in groups.values():
        prototype = min(members, key=lambda ch: (-degree.get(ch, 0), ord(ch)))
        table.update((ch, prototype) for ch in members if ch != prototype)
    for ch, sequence in sequences.items():
        table.setdefault(ch, "".join(table.get(c, c) for c in sequence))
    return table


#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 14 to 16), as
#: inclusive ranges: characters a renderer shows as nothing (the standard library lacks the
#: property). The Hangul fillers U+115F, U+1160, U+3164 and U+FFA0 are among them.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
#: Unicode's Soft_Dotted letters (PropList.txt, Unicode 15 to 16): their dot gives way to a
#: mark above, so a COMBINING DOT ABOVE on one of them draws the letter as it was ("ali̇ce")
_SOFT_DOTTED = frozenset(chain(
    (0x0069, 0x006A, 0x012F, 0x0249, 0x0268, 0x029D, 0x02B2, 0x03F3, 0x0456, 0x0458, 0x1D62,
     0x1D96, 0x1DA4, 0x1DA8, 0x1E2D, 0x1ECB, 0x2071, 0x2148, 0x2149, 0x2C7C, 0x1DF1A,
     0x1E04C, 0x1E04D, 0x1E068),
    # the mathematical bold, italic, script ... small i and j, a pair in each alphabet
    (start + n for start in range(0x1D422, 0x1D694, 0x34) for n in (0, 1)),
))
_DOT_ABOVE = "\u0307"


#: any default-ignorable code point
_IGNORABLE = re.compile("[" + "".join(f"{chr(low)}-{chr(high)}"
                                      for low, high in _DEFAULT_IGNORABLE) + "]")


def unseen(name: str) -> str | None:
    """The first character of ``name`` that changes nothing anyone sees, or
    None: a default-ignorable code point (a Hangul filler included), a COMBINING DOT ABOVE on a
    soft-dotted letter, or a combining mark a letter already carries. Issue 30's rule, after
    UTS #39 (a name's invisible characters make it look like another); every other mark NFC
    leaves in place is a letter of a real name (Yoruba "Ẹ́mẹ́", Vietnamese "Nguyễn") and stays."""
    base = ""
    marks: set[str] = set()
    # Each letter with its marks apart (NFD), so that a mark NFC composed into a letter ("é"
    # and another U+0301) counts as one the letter carries.
    for ch in unicodedata.normalize("NFD", name):
        if _IGNORABLE.match(ch):
            return ch
        if not unicodedata.category(ch).startswith("M"):
            base, marks = ch, set()
            continue
        if ch in marks or (ch == _DOT_ABOVE and base and ord(base) in _SOFT_DOTTED):
            return ch
        marks.add(ch)
    return None


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _mapped(text: str) -> str:
    table = _table()
    return "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text))


def skeletons(name: str) -> frozenset[str]:
    """The name's skeletons: equal for names that look alike (see the module's doc)."""
    plain = _IGNORABLE.sub("", unicodedata.normalize("NFKC", " ".join(name.split())))
    early = _fold(_mapped(_fold(_mapped(plain))))
    late = _fold(_mapped(_fold(_mapped(_fold(plain)))))
    return frozenset((early, late))


def look_alike(name: str, other: str) -> bool:
    return not skeletons(name).isdisjoint(skeletons(other))
