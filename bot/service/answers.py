"""Whether a member's answer to a problem is one of its accepted answers, under the ladder's
``normalise`` rule (``/set normalise exact|case|san``).

Both sides go through the same rule before they are compared:

- ``exact``: as typed, only the spaces at either end and runs of spaces inside ignored;
- ``case`` (the default): as ``exact``, and letter case ignored (``Paris`` = ``paris``);
- ``san``: chess moves in standard algebraic notation. Case counts (``Bc4`` is a bishop's move,
  ``bc4`` a pawn's), and the variants people write for one move are one: the check, mate and
  comment marks ``+ # ! ?`` are dropped, castling with zeros is castling with O's (``0-0`` =
  ``O-O``), a promotion's ``=`` is optional (``e8=Q`` = ``e8Q``), and move numbers before a
  line of moves are ignored (``1. e4 e5`` = ``e4 e5``).
"""

from __future__ import annotations

import re
import unicodedata

#: a move number in a line of moves: ``1.``, ``12...``
_MOVE_NUMBER = re.compile(r"^[0-9]+\.+")
_MARKS = str.maketrans("", "", "+#!?")


def normalised(text: str, rule: str) -> str:
    """``text`` as the rule ``rule`` (exact, case or san) compares it."""
    words = unicodedata.normalize("NFC", text).split()
    if rule == "san":
        return " ".join(m for m in (_move(w) for w in words) if m)
    joined = " ".join(words)
    return joined.casefold() if rule == "case" else joined


def _move(word: str) -> str:
    move = _MOVE_NUMBER.sub("", word).translate(_MARKS)
    move = move.replace("0-0-0", "O-O-O").replace("0-0", "O-O")
    # a promotion's piece may follow its square with or without "=": e8=Q is e8Q
    return re.sub(r"([a-h][18])=([QRBNqrbn])", r"\1\2", move)


def accepted(answer: str, answers: tuple[str, ...], rule: str) -> bool:
    """Whether ``answer`` is one of ``answers`` once both are normalised by ``rule``; an
    answer that normalises to nothing is never accepted."""
    given = normalised(answer, rule)
    return bool(given) and any(given == normalised(a, rule) for a in answers)
