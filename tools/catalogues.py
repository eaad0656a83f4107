"""Keep the languages' catalogues in step with the English one: ``python tools/catalogues.py``;
``python tools/catalogues.py check [LANG ...]`` lists what keeps them from being complete.

Writes ``bot/chat/locales/clubrating.pot`` from :data:`bot.chat.messages.MESSAGES` (an entry per
message key, ``msgctxt`` the key and ``msgid`` the English sentence; an entry per count phrase,
``msgctxt`` ``KEY:FIELD``, with its English singular and plural), then updates each language's
``.po`` from it: a new message arrives untranslated, a changed English sentence loses its
translation (no fuzzy guessing: a translator words it again), a message gone is dropped. The
completeness test (tests/chat/test_languages.py) fails until every entry is translated.
"""

from __future__ import annotations

import string
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.chat.language import DOMAIN, LOCALES  # noqa: E402
from bot.chat.messages import MESSAGES, template  # noqa: E402

#: the catalogues kept here: the seeds' clubs' languages (English is the source itself)
TRANSLATED = ("he", "ru", "ja", "fr")


def template_catalogue() -> Catalog:
    """Every message and count phrase the bot says, in English."""
    catalogue = Catalog(project="clubrating", domain=DOMAIN, fuzzy=False,
                        copyright_holder="the clubrating authors")
    for key in MESSAGES:
        shape = template(key)
        catalogue.add(shape.sentence, context=key)
        for field, one, other in shape.counts:
            catalogue.add((one, other), context=shape.count_key(key, field))
    return catalogue


def po_path(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def update(language: str, source: Catalog) -> Catalog:
    """``language``'s catalogue brought in step with ``source``."""
    path = po_path(language)
    if path.exists():
        with path.open("rb") as file:
            catalogue = read_po(file, locale=language, domain=DOMAIN)
    else:
        catalogue = Catalog(locale=language, domain=DOMAIN, project="clubrating", fuzzy=False,
                            copyright_holder="the clubrating authors")
    catalogue.update(source, no_fuzzy_matching=True, update_header_comment=False)
    catalogue.obsolete.clear()
    return catalogue


def fields(text: str) -> set[str]:
    """The names of a text's fields (``{name}``, ``{rating:.0f}``: name and rating)."""
    return {name.split(".")[0].split("[")[0]
            for _, name, _, _ in string.Formatter().parse(text) if name}


def problems(language: str) -> list[str]:
    """What keeps ``language``'s catalogue from being complete, a line each: an entry missing,
    untranslated or fuzzy, a translation whose fields differ from the English (a plural's
    singular may leave its count out: Hebrew says "one game" in words), a plural with the
    wrong number of forms, a text that does not format."""
    path = po_path(language)
    if not path.exists():
        return [f"{path} is missing"]
    with path.open("rb") as file:
        catalogue = read_po(file, locale=language, domain=DOMAIN)
    found = []
    forms = catalogue.num_plurals
    for wanted in template_catalogue():
        if not wanted.id:
            continue
        where = f"{language} {wanted.context}"
        message = catalogue.get(wanted.id, wanted.context)
        if message is None:
            found.append(f"{where}: missing (run tools/catalogues.py)")
            continue
        if message.fuzzy:
            found.append(f"{where}: fuzzy")
        english = wanted.id if isinstance(wanted.id, str) else wanted.id[1]
        if isinstance(wanted.id, tuple):
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            if len(strings) != forms:
                found.append(f"{where}: {len(strings)} plural forms, not {forms}")
        else:
            strings = (message.string,)
        for index, translated in enumerate(strings):
            if not translated:
                found.append(f"{where}: not translated")
                continue
            try:
                have = fields(translated)
            except ValueError as error:
                found.append(f"{where}: {error} in {translated!r}")
                continue
            need = fields(english)
            optional = need if isinstance(wanted.id, tuple) and index == 0 else set()
            if not (need - optional <= have <= need):
                found.append(f"{where}: fields {sorted(have)} where English has {sorted(need)}")
    return found


def main() -> None:
    if sys.argv[1:2] == ["check"]:
        languages = sys.argv[2:] or list(TRANSLATED)
        found = [line for language in languages for line in problems(language)]
        print("\n".join(found) or f"complete: {', '.join(languages)}")
        sys.exit(1 if found else 0)
    source = template_catalogue()
    LOCALES.mkdir(exist_ok=True)
    with (LOCALES / f"{DOMAIN}.pot").open("wb") as file:
        write_po(file, source, width=100, omit_header=False)
    for language in TRANSLATED:
        catalogue = update(language, source)
        path = po_path(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as file:
            write_po(file, catalogue, width=100)
        missing = sum(1 for message in catalogue if message.id and not message.string
                      or isinstance(message.string, tuple) and not all(message.string))
        print(f"{language}: {len(catalogue)} entries, {missing} to translate")


if __name__ == "__main__":
    main()
