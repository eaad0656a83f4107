"""Reading what people type into a command: its words and ``key=value`` options, the members
the platform pointed at among them, and the small readers every command uses (a number, one
member, a ladder), which refuse what does not fit.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from bot.service.errors import Refusal
from bot.service.identity import UserRef, Who

#: longer messages are refused before they are parsed
MAX_LINE = 2000
#: double quotes that group words, each opener with the closers it takes (issue 31, ERRATA:
#: "…", “…”, „…“ and «…»; a straight " also closes, as phones mix them). Apostrophes, straight '
#: and typographic ’, are never quotes: "I didn't play" and "O'Brien" are words as written.
QUOTES = {'"': '"', "“": '”"', "„": '“”"', "«": '»"'}


class Unbalanced(ValueError):
    """A double quote opened and never closed."""


def split_words(line: str) -> list[str]:
    """The words of ``line``: split at white space, except inside double quotes (:data:`QUOTES`),
    which group words and are dropped; a quoted part joins the text around it into one word
    (``@"Zoë Smith"`` is the word ``@Zoë Smith``, ``cron="0 9 * * MON"`` one option), and ``""``
    is an empty word. Every other character, apostrophes and backslashes too, is itself.

    Raises :class:`Unbalanced` for a quote left open.
    """
    words: list[str] = []
    word: list[str] | None = None  # the word being read (None: between words)
    closers = ""  # inside a quote: what closes it
    for ch in line:
        if closers:
            if ch in closers:
                closers = ""
            else:
                assert word is not None
                word.append(ch)
        elif ch in QUOTES:
            closers = QUOTES[ch]
            word = [] if word is None else word
        elif ch.isspace():
            if word is not None:
                words.append("".join(word))
                word = None
        else:
            word = [] if word is None else word
            word.append(ch)
    if closers:
        raise Unbalanced(line)
    if word is not None:
        words.append("".join(word))
    return words


@dataclass(slots=True)
class Words:
    """A command's words: positional arguments and key=value options, and the members among
    them that the platform pointed at (a mention, a reply, the member picker), by the index
    of their word in ``args`` or by option key: :meth:`who` gives those as a
    :class:`~bot.service.identity.UserRef`, found by user id whatever their word's text."""

    args: list[str]
    options: dict[str, str]
    members: dict[int | str, UserRef] = field(default_factory=dict)
    #: the options given more than once (their first value is in ``options``), in typed order
    repeated: list[str] = field(default_factory=list)

    def take(self, key: str) -> str | None:
        return self.options.pop(key, None)

    def who(self, index: int) -> Who:
        """The member named by the ``index``-th word."""
        return self.members.get(index) or self.args[index]

    def take_who(self, key: str) -> Who | None:
        """The member named by option ``key``, taken out of the options."""
        text = self.options.pop(key, None)
        return self.members.pop(key, None) or text


class Pointed:
    """Members the platform pointed at in one message's text (a Telegram text mention or
    reply, a Discord ``<@id>``): each is written into the text as a token nobody can type (it
    holds a random number of this message), and :func:`parse` turns the token's word back into
    the member's :class:`~bot.service.identity.UserRef`."""

    def __init__(self) -> None:
        self.refs: dict[str, UserRef] = {}
        self._nonce = secrets.token_hex(8)

    def mark(self, ref: UserRef) -> str:
        token = f"@{self._nonce}.{len(self.refs)}."
        self.refs[token] = ref
        return token

    def unmark(self, word: str) -> str:
        """A word with the tokens in it shown as their members' names (a mention inside
        quoted text is only text)."""
        for token, ref in self.refs.items():
            word = word.replace(token, ref.shown)
        return word


class Usage(Exception):
    """The command's words do not fit its usage line (``args[0]``: its message key)."""


class UnknownOption(Exception):
    """A ``key=value`` the command does not take (``args[0]``: the key); :func:`execute`
    refuses it naming the options the command takes."""


class ExtraWord(Exception):
    """A word past those the command reads (``args[0]``: the first such word); :func:`execute`
    refuses it with the command's usage line."""


def shown_key(key: str) -> str:
    """An option's key as a refusal shows it (a word ``=x`` has no key: it shows as ``=``)."""
    return key[:32] or "="


def at_most(words: Words, count: int) -> None:
    """The command reads ``count`` words at most: the first word past them is refused."""
    if len(words.args) > count:
        raise ExtraWord(words.args[count])


def ladder_word(words: Words) -> str | None:
    """The ladder named by the only word or by ``ladder=``; both at once name it twice."""
    at_most(words, 1)
    ladder = words.take("ladder")
    if not words.args:
        return ladder
    if ladder is not None:
        raise Refusal("option_twice", option="ladder")
    return words.args[0]


def number(word: str) -> int:
    try:
        value = int(word.lstrip("#"))
    except ValueError:
        raise Refusal("bad_number", text=word[:20]) from None
    if value <= 0:
        raise Refusal("bad_number", text=word[:20])
    return value


def optional_number(words: Words) -> int | None:
    at_most(words, 1)
    return number(words.args[0]) if words.args else None


def one(words: Words) -> str:
    if not words.args:
        raise Usage
    at_most(words, 1)
    return words.args[0]


def one_member(words: Words) -> Who:
    if not words.args:
        raise Usage
    at_most(words, 1)
    return words.who(0)


def optional_member(words: Words) -> Who | None:
    at_most(words, 1)
    return words.who(0) if words.args else None
