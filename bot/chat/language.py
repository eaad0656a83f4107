"""The languages the bot speaks, their message catalogues, and the language of the text being
written now.

The English sentences are the catalogue in :mod:`bot.chat.messages`; every other language is a
gettext catalogue of its own, ``locales/LANG/LC_MESSAGES/clubrating.po`` beside this module,
written by hand and compiled to ``.mo`` when the package is built (setup.py), loaded with
Babel's :class:`babel.support.Translations`. An entry's context (``msgctxt``) is its message
key and its ``msgid`` the English sentence, so a changed English sentence has no translation
until a translator looks at it again (``tools/catalogues.py`` updates the files). A count with
a noun (``{games:game|games}`` in English) is an entry of its own with the language's plural
forms (CLDR's, as gettext numbers them: Russian three, Japanese one).

Which language a text is written in is the reader's: a club's language for what is posted in
its chat, a member's own for what they alone see. The one way in (:mod:`bot.chat.intake`) and
the scheduler choose it before anything is rendered, for the task at hand
(:func:`writing_in`); :func:`bot.chat.messages.text` reads it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from functools import cache
from gettext import NullTranslations
from pathlib import Path

from babel.support import Translations

from bot.service.ladder_settings import (
    LANGUAGES as LANGUAGES,  # re-exported: the chat layer names them
)

DEFAULT_LANGUAGE = "en"
#: the gettext domain, and the folder of the catalogues
DOMAIN = "clubrating"
LOCALES = Path(__file__).parent / "locales"

#: the languages written right to left
RIGHT_TO_LEFT = frozenset({"he"})
#: Unicode's directional isolates (UAX #9): FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE
FSI, PDI = "\u2068", "\u2069"

_writing: ContextVar[str] = ContextVar("writing", default=DEFAULT_LANGUAGE)


class MissingCatalogue(RuntimeError):
    """A language without its compiled catalogue: an incomplete installation."""


def current() -> str:
    """The language of the text being written now."""
    return _writing.get()


def _spoken(language: str | None) -> str:
    """``language`` when the bot speaks it, else English."""
    return language if language in LANGUAGES else DEFAULT_LANGUAGE


def choose(language: str | None) -> None:
    """Write in ``language`` (English for None) for the rest of the current task: the one way
    in chooses the reader's language for everything the update's handler then renders."""
    _writing.set(_spoken(language))


@contextlib.contextmanager
def writing_in(language: str | None) -> Iterator[None]:
    """Write in ``language`` (English for None) inside the block (in the current task and those it
    starts)."""
    token = _writing.set(_spoken(language))
    try:
        yield
    finally:
        _writing.reset(token)


def supported(code: str | None) -> str | None:
    """One of :data:`LANGUAGES` for a platform's language tag (Telegram's ``language_code``
    ``pt-br``, Discord's locale ``en-US``, ``ja``), or None when the bot does not speak it."""
    if not code:
        return None
    base = code.replace("_", "-").split("-", 1)[0].lower()
    return base if base in LANGUAGES else None


@cache
def catalogue(language: str) -> NullTranslations:
    """``language``'s compiled catalogue; English is the source itself. A language the bot
    offers without its catalogue is an incomplete installation, said at once, never English
    in its place."""
    if language == DEFAULT_LANGUAGE:
        return NullTranslations()
    compiled = LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not compiled.is_file():
        raise MissingCatalogue(f"no compiled catalogue {compiled}: the installation is "
                               "incomplete (setup.py compiles the .po files)")
    return Translations.load(str(LOCALES), [language], DOMAIN)


def _hebrew(char: str) -> bool:
    return "\u0590" <= char <= "\u05ff" or "\ufb1d" <= char <= "\ufb4f"


def _leads_left_to_right(line: str) -> bool:
    """Whether the line's first strong letter outside isolates is not Hebrew (UAX #9, P2)."""
    depth = 0
    for char in line:
        if char in "\u2066\u2067\u2068":
            depth += 1
        elif char == PDI:
            depth = max(depth - 1, 0)
        elif depth == 0 and char.isalpha():  # digits are weak: they decide nothing
            return not _hebrew(char)
    return False


def _isolated_start(line: str) -> str:
    """The line with its leading words that hold no Hebrew but a letter or a digit wrapped in
    one isolate; a number directly before a Hebrew word stays with it ("1 במרץ", "2 משחקים")."""
    words = line.split(" ")
    end = 0  # words[:end] lead
    for index, word in enumerate(words):
        if any(_hebrew(char) for char in word):
            break
        following = next((w for w in words[index + 1:] if w), "")
        if word.strip("?.,:;()").isdigit() and any(_hebrew(char) for char in following):
            break
        if word:
            end = index + 1
    lead = " ".join(words[:end])
    stripped = lead.lstrip(" ")
    if not any(char.isalnum() for char in stripped):
        return line
    indent = lead[:len(lead) - len(stripped)]
    return f"{indent}{FSI}{stripped}{PDI}{line[len(lead):]}"


def right_to_left(text: str) -> str:
    """``text`` as a right-to-left reader sees it in any chat: a chat lays each line out in the
    direction of its first strong letter (UAX #9, rule P2), so a Hebrew line that begins with a
    Latin name or a number would be laid out left to right, its words in the wrong order. The
    Latin or numeric start of such a line is wrapped in a first-strong isolate (FSI ... PDI),
    which P2 skips: the line reads from the right, and the name inside still reads as written.
    Lines without Hebrew, and lines that already lead from the right, are left as they are."""
    return "\n".join(
        _isolated_start(line) if any(_hebrew(c) for c in line) and _leads_left_to_right(line)
        else line
        for line in text.split("\n"))
