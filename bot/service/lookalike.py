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
"alice"); two names look alike when they share one.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib.resources import files

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


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _mapped(text: str) -> str:
    table = _table()
    return "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text))


def skeletons(name: str) -> frozenset[str]:
    """The name's skeletons: equal for names that look alike (see the module's doc)."""
    plain = unicodedata.normalize("NFKC", " ".join(name.split()))
    early = _fold(_mapped(_fold(_mapped(plain))))
    late = _fold(_mapped(_fold(_mapped(_fold(plain)))))
    return frozenset((early, late))


def look_alike(name: str, other: str) -> bool:
    return not skeletons(name).isdisjoint(skeletons(other))
