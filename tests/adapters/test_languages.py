"""The bot in its five languages (issue 33): every catalogue complete, every message rendered in
every language, counts in each language's plural forms, dates as its readers write them, and
the reader's language chosen for each answer."""

from __future__ import annotations

import ast
import importlib.util
import re
import string
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest
from babel.dates import format_date

from bot.chat.language import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    catalogue,
    right_to_left,
    supported,
    writing_in,
)
from bot.chat.messages import MESSAGES, template, text
from bot.service import events as ev
from bot.service.session import SYSTEM_ACTOR
from tests.chat import Transcript, open_club

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [language for language in LANGUAGES if language != DEFAULT_LANGUAGE]


def _tools() -> ModuleType:
    spec = importlib.util.spec_from_file_location("catalogues", ROOT / "tools" / "catalogues.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_catalogue_is_complete(language: str) -> None:
    """Every message and count phrase translated, none fuzzy, the English fields kept, the
    language's number of plural forms: a missing translation fails here, never shows English."""
    assert _tools().problems(language) == []
    assert catalogue(language).info()["language"] == language  # compiled and installed


def sample(key: str) -> dict[str, object]:
    """Values for every field of ``key``: a count for a count, a number for a number's format,
    a word for the rest."""
    values: dict[str, object] = {}
    for _, field, spec, _ in string.Formatter().parse(MESSAGES[key]):
        if field is None:
            continue
        counted = any(field == name for name, _, _ in template(key).counts)
        values[field] = 21 if counted else 0.25 if spec and spec[-1] in "f%" else "X"
    return values


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_renders_in_every_language(language: str) -> None:
    """Every message formats with its fields in every language, and each comes from the
    language's compiled catalogue: gettext hands back the very English text it was given when
    an entry is missing, which would be English shown in its place."""
    books = catalogue(language)
    with writing_in(language):
        for key in MESSAGES:
            assert text(key, sample(key))
            if language == DEFAULT_LANGUAGE:
                continue
            shape = template(key)
            assert books.pgettext(key, shape.sentence) is not shape.sentence, key
            for field, one, other in shape.counts:
                for count in (1, 2, 5, 21):
                    found = books.npgettext(shape.count_key(key, field), one, other, count)
                    assert found is not one and found is not other, (key, field, count)


@pytest.fixture
async def chat(tmp_path: Path) -> Iterator[Transcript]:
    async with open_club(tmp_path / "club.db") as transcript:
        yield transcript


#: /rating's count of games in each language, for 1, 2, 5 and 21 games (CLDR's plural forms;
#: Hebrew may say one game in words)
GAMES = {
    "ru": ["1 партия", "2 партии", "5 партий", "21 партия"],
    "fr": ["1 partie", "2 parties", "5 parties", "21 parties"],
    "ja": ["1局", "2局", "5局", "21局"],
    "he": [("משחק אחד", "1 משחק"), "2 משחקים", "5 משחקים", "21 משחקים"],
    "en": ["1 game", "2 games", "5 games", "21 games"],
}


@pytest.mark.parametrize("language", LANGUAGES)
async def test_rating_counts_games_in_the_language_s_plural_forms(
        chat: Transcript, language: str) -> None:
    await chat.as_("ann", "/register")
    await chat.as_("ben", "/register")
    assert "language" in await chat.as_("mod!", f"/set language {language}")
    played = 0
    for count, expected in zip((1, 2, 5, 21), GAMES[language], strict=True):
        while played < count:
            await chat.say("/report @ann @ben win")
            played += 1
        shown = await chat.say("/rating @ann")
        forms = expected if isinstance(expected, tuple) else (expected,)
        assert any(form in shown for form in forms), (count, shown)
        assert f"{played} :" not in shown and f"{played}:" not in shown  # never "label: number"


@pytest.mark.parametrize("language", LANGUAGES)
async def test_history_dates_are_written_as_the_language_writes_them(
        chat: Transcript, language: str) -> None:
    await chat.as_("ann", "/register")
    await chat.as_("ben", "/register")
    await chat.as_("mod!", f"/set language {language}", "/report @ann @ben win")
    history = await chat.say("/history @ann")
    assert format_date(date(2024, 3, 1), "medium", locale=language) in history
    assert "2024-03-01" not in history


async def test_a_refusal_and_a_report_are_in_the_club_s_language(chat: Transcript) -> None:
    await chat.as_("ann", "/register")
    await chat.as_("ben", "/register")
    assert await chat.as_("mod!", "/set language ru") == text(
        "club_setting_set", setting="language", value="ru", ladder="main").replace(
        "The club's language is now ru.", "language клуба теперь ru.")
    assert await chat.as_("ann", "/report @ann win") == "В партии должны быть два разных игрока."
    assert (await chat.say("/report @ben win")).startswith("Партия #1: ")
    assert await chat.as_("mod!", "/set language xx") == (
        "Бот говорит на языках: en, he, ru, ja, fr (а не xx).")
    # and back: the answer to the change is in the language it changed to
    assert await chat.say("/set language en") == "The club's language is now en."


@pytest.mark.parametrize(("tag", "language"), [
    ("ru", "ru"), ("ru-RU", "ru"), ("pt-br", None), ("en-US", "en"), ("en_GB", "en"),
    ("ja", "ja"), ("he", "he"), ("iw", None), ("fr-CA", "fr"), ("", None), (None, None)])
def test_a_platform_s_language_tag_is_one_of_the_bot_s_or_none(
        tag: str | None, language: str | None) -> None:
    assert supported(tag) == language


def first_strong_outside_isolates(line: str) -> str | None:
    """UAX #9 rule P2: the first strong letter of a paragraph, skipping isolates: "R" or "L"."""
    depth = 0
    for char in line:
        if char in "\u2066\u2067\u2068":
            depth += 1
        elif char == "\u2069":
            depth = max(depth - 1, 0)
        elif depth == 0 and char.isalpha():
            return "R" if "\u0590" <= char <= "\u08ff" else "L"
    return None


@pytest.mark.parametrize("line", [
    "משה כהן beat alice 1536?", "alice 1536? ניצח את משה כהן", "1536? alice משחק אחד",
    "#1 alice – bob ½:½"])
def test_a_hebrew_line_reads_right_to_left_with_its_latin_start_isolated(line: str) -> None:
    shown = right_to_left(line)
    hebrew = any("\u0590" <= char <= "\u05ff" for char in line)
    assert first_strong_outside_isolates(shown) == ("R" if hebrew else "L")
    assert shown.replace("\u2068", "").replace("\u2069", "") == line
    assert shown.count("\u2068") == shown.count("\u2069") <= 1  # closed within the line


async def test_hebrew_answers_read_right_to_left(chat: Transcript) -> None:
    await chat.as_("ann", "/register")
    await chat.as_("ben", "/register")
    await chat.as_("mod!", "/set language he", "/report @ann @ben win")
    for command in ("/rating @ann", "/top", "/history @ann"):
        for line in (await chat.say(command)).split("\n"):
            if any("\u0590" <= char <= "\u05ff" for char in line):
                assert first_strong_outside_isolates(line) == "R", (command, line)


async def test_the_audit_of_a_russian_club_is_in_russian_and_older_entries_read_as_they_did(
        chat: Transcript) -> None:
    """A correction, an automatic confirmation and a retirement for inactivity, said in the
    club's language; a reason the bot stored in English words before (an earlier build) is
    shown as it was written."""
    await chat.as_("ann", "/register")
    await chat.as_("ben", "/register")
    await chat.as_("mod!", "/set language ru", "/set inactivity_days 30",
                   "/report @ann @ben win", "/correct 1 draw", "/apply")
    await chat.as_("ann", "/report @ben win")  # nobody answers it
    chat.clock.advance(hours=25)
    await chat.say("/top")  # what time made due is applied
    chat.clock.advance(days=31)
    await chat.say("/top")
    audit = await chat.as_("mod!", "/audit 20")
    assert "без ответа 24 ч" in audit, audit  # the automatic confirmation's reason
    assert "нет партий 30 дн." in audit, audit  # the retirement's
    assert "исправил(а) партию #1" in audit, audit  # the correction
    assert not any(word in audit for word in ("unanswered", "no game for", "corrected")), audit

    # an entry an earlier build wrote, its reason in English words, reads as it did
    repository = chat.service._repository
    club_id = await repository.club_id("console", "local", chat.clock.now())
    stored = await repository.events(club_id)
    game = next(e.id for e in stored if e.kind == ev.Kind.GAME_REPORTED)
    async with repository.transaction(club_id, stored[-1].id) as written:
        await written.append([ev.new_event(ev.GameAutoConfirmed(game), SYSTEM_ACTOR,
                                           chat.clock.now(), "unanswered for 48 h")])
    assert "unanswered for 48 h" in await chat.say("/audit 1")


@pytest.mark.parametrize(("language", "november"), [
    ("en", "Nov"), ("ru", "нояб."), ("ja", "11月"), ("fr", "nov."), ("he", "בנוב׳")])
def test_a_chart_s_time_axis_is_in_the_reader_s_language(language: str, november: str) -> None:
    """matplotlib writes English month names whatever the locale; the chart's axis is the
    reader's (a history of a few weeks by day, one of more than a year by month and year)."""
    from bot.charts.chart import chart_figure
    from bot.charts.data import ChartPoint, Series
    from bot.chat.pictures import chart_words

    def labels(days: int) -> list[str]:
        start = datetime(2026, 11, 28) - timedelta(days=days)
        points = tuple(ChartPoint(start + timedelta(days=days * n / 9), 1500 + n, False, None)
                       for n in range(10))
        with writing_in(language):  # drawn in the reader's language, as a picture is
            figure = chart_figure([Series("ann", "main", points)], "ann", words=chart_words())
            return [tick.get_text() for tick in figure.axes[0].get_xticklabels()]

    in_november = labels(20)
    assert in_november and all(november in label for label in in_november), in_november
    over_two_years = labels(800)
    assert all(any(year in label for year in ("2024", "2025", "2026"))
               for label in over_two_years), over_two_years


#: where members' text is made: every sentence there comes from the catalogues (the shell's
#: operator messages, the logs and the storage's errors stay English, and are not scanned)
SCANNED = ("adapters", "chat", "charts", "scheduling", "service")
#: phrases of two words or more that are no member's text, each with why
NOT_SENTENCES = {
    "chat not found|not enough rights|have no rights|chat_write_forbidden|need administrator "
    "rights|chat was deactivated": "Telegram's own error texts, matched",
    "query is too old": "Telegram's own error text, matched",
    "not modified": "Telegram's own error text, matched",
    "message to edit not found": "Telegram's own error text, matched",
    "console-input": "a thread's name",
    "User-Agent": "an HTTP header", "X-Telegram-Bot-Api-Secret-Token": "an HTTP header",
    " and DISCORD_API_BASE, DISCORD_GATEWAY_URL": "the operator's start-up error",
    " (or TELEGRAM_BASE_URL)": "the operator's start-up error",
    " (check TELEGRAM_WEBHOOK_URL)": "the operator's start-up error",
    "upper left": "matplotlib's legend position",
    "offset points": "matplotlib's unit",
    "legend-deviation": "a drawing's id", "legend-provisional": "a drawing's id",
    "peak-label-": "a drawing's id",
    "DejaVu Sans": "a font", "Noto Sans CJK JP": "a font", "VL Gothic": "a font",
    "Droid Sans Fallback": "a font", "WenQuanYi Micro Hei": "a font",
    "fonts-ipafont-gothic": "a Debian package",
    "no compiled catalogue ": "an incomplete installation's error",
    ": the installation is incomplete (setup.py compiles the .po files)": "the same",
    "withdraw challenge": "a command as members type it",
    "days-or-off": "a setting type's name", "role id": "a setting type's name",
    "IANA zone": "a setting type's name",
    "sync the ladder's ratings first": "a programming error",
    "retry after ": "PostDelayed's text, for the logs",
    "telegram-receiver:": "a role's name",
    "clubrating rate budget ": "a hash's input (the budget's lock namespace), never shown",
    "{share} requests a second each": "the rate budget's log line",
    "{share} a minute in each group": "the rate budget's log line",
    "Telegram updates older than ": "names rows in a log line (bot.service.tidying)",
    "answers older than ": "names rows in a log line (bot.service.tidying)",
    "outbox rows that ended more than ": "names rows in a log line (bot.service.tidying)",
}
_PHRASE = re.compile(r"[A-Za-z]{2,}(?:[ '-][A-Za-z]{2,})+")
_RAISED_OR_LOGGED = re.compile(r"^(debug|info|warning|error|exception|critical|\w+Error)$")


def english_outside_the_catalogues() -> list[str]:
    found = []
    for folder in SCANNED:
        for path in sorted((ROOT / "bot" / folder).rglob("*.py")):
            if path.name == "messages.py":
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            skipped: set[int] = set()
            for node in ast.walk(tree):
                body = getattr(node, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                        and isinstance(body[0].value, ast.Constant):
                    skipped.add(id(body[0].value))  # a docstring
                if isinstance(node, ast.Call):
                    called = node.func
                    name = called.attr if isinstance(called, ast.Attribute) else \
                        called.id if isinstance(called, ast.Name) else ""
                    if _RAISED_OR_LOGGED.match(name):
                        skipped.update(id(sub) for sub in ast.walk(node))
            for node in ast.walk(tree):
                if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                        and id(node) not in skipped and _PHRASE.search(node.value)
                        and node.value not in NOT_SENTENCES):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    return found


def test_no_english_sentence_is_made_outside_the_catalogues() -> None:
    assert english_outside_the_catalogues() == []


def test_a_hebrew_card_is_laid_out_from_the_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its headers in Hebrew, and its columns mirrored: the rank at the right edge, the name
    beside it aligned to the right, the games at the left edge."""
    from bot.charts import card as card_module
    from bot.charts.card import leaderboard_card
    from bot.charts.data import CardRow
    from bot.chat.pictures import card_words

    caught = []
    monkeypatch.setattr(card_module, "png_bytes",
                        lambda figure, dpi, background: caught.append(figure) or b"")
    rows = [CardRow(1, "שרה", 1540.0, False, None, 12.0, 3), CardRow(2, "bob", 1460, False,
                                                                   None, -12.0, 3)]
    for language in ("en", "he"):
        with writing_in(language):
            leaderboard_card(rows, "main", words=card_words())
    english, hebrew = ({t.get_text(): t for t in figure.texts} for figure in caught)
    with writing_in("he"):
        player = hebrew[text("card_player")]
    assert "Player" in english and "Player" not in hebrew
    assert english["#"].get_position()[0] < 0.2 and hebrew["#"].get_position()[0] > 0.8
    assert english["#"].get_horizontalalignment() == "right"
    assert hebrew["#"].get_horizontalalignment() == "left"
    assert english["Player"].get_position()[0] < 0.5 < player.get_position()[0]
    assert player.get_horizontalalignment() == "right"
    [bob] = [t for t in hebrew.values() if "bob" in t.get_text()]
    assert bob.get_position()[0] > 0.5 and bob.get_horizontalalignment() == "right"


@pytest.mark.parametrize(("language", "games", "logloss"), [
    ("en", "6,000", "0.693"), ("fr", "6\u202f000", "0,693"), ("ru", "6\u00a0000", "0,693"),
    ("ja", "6,000", "0.693")])
def test_numbers_are_written_as_the_language_writes_them(language: str, games: str,
                                                         logloss: str) -> None:
    """Counts and decimals by Babel (CLDR): ratings and a game's number stay plain."""
    from babel.numbers import format_decimal
    with writing_in(language):
        imported = text("imported", games=6000, steps=1, ladder="main")
        line = text("evaluation_line", rank=1, system="club", logloss=0.69312, brier=0.25,
                    current="")
    assert format_decimal(6000, locale=language) in imported
    assert logloss in line
    assert games.replace("\u202f", "").replace("\u00a0", "") == format_decimal(
        6000, locale=language).replace("\u202f", "").replace("\u00a0", "")


async def test_the_digest_is_in_the_club_s_language(chat: Transcript) -> None:
    """The weekly post's text (/digest shows it): its title with the day as Russian writes it,
    its lines, the board and its counts."""
    await chat.as_("ann", "/register")
    await chat.as_("ben", "/register")
    await chat.as_("mod!", "/set language ru", "/report @ann @ben win",
                   "/report @ann @ben win")
    digest = await chat.say("/digest")
    with writing_in("ru"):
        began = text("digest_title_began", ladder="main", began="X").split("X")[0]
        played = text("digest_games", games=2)
    assert digest.startswith(began), digest
    assert played in digest and "2 партии" in digest, digest
    assert "пт, 1 мар." in digest or "1 мар." in digest, digest  # the day in Russian
    assert not any(word in digest for word in ("ladder", "Games played", "changes since"))
