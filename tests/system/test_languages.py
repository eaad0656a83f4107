"""The club in its own language, through ``clubrating run`` against the fake Bot API and the fake
Discord (issue 33): ``/set language``, then the board, a profile with the games counted in the
language's plural forms, a report and its confirmation, and a refusal, all in it; a member's own
language for what they alone see; the menus registered in every language."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fake_discord import TOKEN as DISCORD_TOKEN
from tests.fake_discord import FakeDiscord
from tests.fake_telegram import TOKEN as TELEGRAM_TOKEN
from tests.fake_telegram import FakeTelegram

from .clubs import DiscordClub, TelegramChat, TelegramClub, button

#: the board's count of games after 1, 2, 5 and 21 games, in each language's plural forms
GAMES = {
    "ru": ["1 партия", "2 партии", "5 партий", "21 партия"],
    "fr": ["1 partie", "2 parties", "5 parties", "21 parties"],
    "ja": ["1局", "2局", "5局", "21局"],
    "he": [("משחק אחד", "1 משחק"), "2 משחקים", "5 משחקים", "21 משחקים"],
}
#: a word each language's answers use, that English does not
WELCOME = {"ru": "Добро пожаловать", "fr": "Bienvenue", "ja": "ようこそ", "he": "ברוכים"}


def shows(text: str, expected: str | tuple[str, ...]) -> bool:
    return any(form in text for form in (expected if isinstance(expected, tuple)
                                         else (expected,)))


@pytest.mark.parametrize("language", list(GAMES))
async def test_a_telegram_club_speaks_its_language(telegram: TelegramClub,
                                                   language: str) -> None:
    club = telegram
    bot = await club.bot().start()
    try:
        # every menu: English without a language, each other language with its code
        menus = club.tg.commands
        assert {"default", "default:ru", "default:he", "default:ja", "default:fr"} <= set(menus)
        assert [c["command"] for c in menus[f"default:{language}"]] == [
            c["command"] for c in menus["default"]]
        assert menus[f"default:{language}"] != menus["default"]

        set_ = await club.say(club.ada, f"/set language {language}")
        assert "language" in set_.plain and language in set_.plain
        welcome = await club.say(club.alice, "/register")
        assert WELCOME[language] in welcome.plain, welcome.plain
        await club.say(club.bob, "/register")
        refused = await club.say(club.alice, "/report @alice win")
        assert not refused.plain.startswith("A game needs"), refused.plain

        report = await club.say(club.alice, "/report @bob win")
        assert "#1" in report.plain and not report.plain.startswith("Game"), report.plain
        labels = [label for row in report.buttons for label, _ in row]
        assert "Confirm" not in labels and len(labels) == 2, labels  # the buttons too
        confirmed = await club.press(club.bob, report, button(report, labels[0]))
        assert confirmed.kind == "edit" and "1553?" in confirmed.plain
        assert "confirmed" not in confirmed.plain, confirmed.plain
        played = 1
        for count, expected in zip((1, 2, 5, 21), GAMES[language], strict=True):
            while played < count:
                assert "#" in (await club.say(club.ada, "/report @alice @bob draw")).plain
                played += 1
            board = await club.say(club.carol, "/top")
            assert shows(board.plain, expected), (count, board.plain)
    finally:
        assert await bot.stop() == 0


async def test_a_member_s_private_chat_is_in_their_own_language(
        telegram: TelegramClub) -> None:
    club = telegram
    yuki = club.tg.user(7, "Yuki", "yuki", language_code="ja")
    bot = await club.bot().start()
    try:
        await club.say(yuki, "/register")
        await club.tg.send(club.tg.private(yuki), yuki, "/rating")
        answer = await club.tg.reply(club.tg.private(yuki), 10.0)
        assert "まだ対局なし" in answer.plain, answer.plain  # "no games yet"
        # the group, which chose no language, is answered in English all the while
        assert (await club.say(yuki, "/rating")).plain.startswith("yuki (main): 1500?")
        # /set mylanguage overrides her app's language for what she alone sees
        assert (await club.say(yuki, "/set mylanguage fr")).plain == (
            "You read what only you see in fr now.")
        await club.tg.send(club.tg.private(yuki), yuki, "/rating")
        answer = await club.tg.reply(club.tg.private(yuki), 10.0)
        assert "aucune partie" in answer.plain, answer.plain
        assert (await club.say(yuki, "/set mylanguage off")).plain.endswith(
            "your app's language again.")
    finally:
        assert await bot.stop() == 0


async def test_a_discord_server_speaks_its_language_and_refuses_each_member_in_theirs(
        tmp_path: Path) -> None:
    async with FakeDiscord(token=DISCORD_TOKEN) as dc:
        club = DiscordClub.on(dc, tmp_path)
        yuki = dc.member(club.guild, dc.user(900000000000000399, "yuki", locale="ja"))
        bot = await club.bot().start()
        try:
            # descriptions in the languages Discord has (no Hebrew); names the same everywhere
            [top] = [c for c in dc.commands[club.guild.id] if c["name"] == "top"]
            assert set(top.get("description_localizations") or {}) == {"fr", "ru", "ja"}
            assert top["description_localizations"]["ru"] != top["description"]
            assert not top.get("name_localizations")

            set_ = await club.say(club.ada, "set", key="language", value="fr")
            assert "fr" in set_.plain
            welcome = await club.say(club.alice, "register")
            assert "Bienvenue" in welcome.plain, welcome.plain
            await club.say(club.bob, "register")
            await club.say(yuki, "register")
            recorded = await club.say(club.ada, "report", player=club.alice, opponent=club.bob,
                                      result="win")
            assert "1553?" in recorded.plain and not recorded.ephemeral
            board = await club.say(club.carol, "top")
            assert "1 partie" in board.plain, board.plain
            # yuki's refusal is hers alone, in her app's language
            refused = await club.say(yuki, "challenge", member=yuki)
            assert refused.ephemeral and any("\u3040" <= c <= "\u30ff" for c in refused.plain)
        finally:
            assert await bot.stop() == 0


async def test_a_telegram_group_takes_its_first_administrator_s_language(
        tmp_path: Path) -> None:
    """The Bot API tells no group's language: the club adopts the app language of the first
    administrator it hears, keeps it across a restart, and a moderator's /set changes it."""
    async with FakeTelegram(token=TELEGRAM_TOKEN) as tg:
        ada = tg.user(1, "Ada", "ada", language_code="fr-CA")
        alice = tg.user(2, "Alice", "alice", language_code="ru")
        club = TelegramChat.founded(tg, tmp_path, ada)
        bot = await club.bot().start()
        try:
            # alice is no administrator: her app's language is not the club's
            assert (await club.say(alice, "/register")).plain.startswith("Welcome, alice")
            assert "Bienvenue" in (await club.say(ada, "/register")).plain
            assert "aucune partie" in (await club.say(alice, "/rating")).plain
        finally:
            assert await bot.stop() == 0
        bot = await club.bot().start()
        try:
            assert "aucune partie" in (await club.say(alice, "/rating")).plain  # kept
            assert (await club.say(ada, "/set language en")).plain == (
                "The club's language is now en.")
        finally:
            assert await bot.stop() == 0


async def test_a_discord_server_speaks_its_preferred_locale_until_it_chooses(
        tmp_path: Path) -> None:
    async with FakeDiscord(token=DISCORD_TOKEN) as dc:
        club = DiscordClub.on(dc, tmp_path)
        club.guild.locale = "ru"
        bot = await club.bot().start()
        try:
            assert "Добро пожаловать" in (await club.say(club.alice, "register")).plain
            await club.say(club.ada, "set", key="language", value="ja")
            assert "ようこそ" in (await club.say(club.bob, "register")).plain
        finally:
            assert await bot.stop() == 0
