"""Discord's /set offers every setting the service accepts, as choices: a setting added to the
ladder's settings (as the scheduler added ``announce`` and ``timezone``) must appear there too,
or a Discord moderator could never change it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bot.adapters.discord_commands import SETTINGS
from bot.chat.messages import text
from bot.service import parsing
from bot.service.errors import Refusal
from bot.service.state import LadderSettings
from tests.discord_harness import running_bot, say
from tests.fake_discord import MANAGE_GUILD

#: set by /system, not /set
SET_ELSEWHERE = {"system", "params", "edition"}


def test_set_offers_every_setting_of_a_ladder() -> None:
    settings = {f.name for f in dataclasses.fields(LadderSettings)} - SET_ELSEWHERE
    assert {choice.value for choice in SETTINGS} == settings


def test_the_service_knows_every_setting_offered() -> None:
    for name in (choice.value for choice in SETTINGS):
        try:
            parsing.setting(name, "not a value \N{SNOWMAN}")
        except Refusal as refusal:
            assert refusal.key != "unknown_setting", name


async def test_a_moderator_sets_announce_and_timezone_on_discord(tmp_path: Path) -> None:
    async with running_bot(tmp_path / "club.db") as bot:
        dc = bot.dc
        guild = dc.guild(810000000000000001, "Club")
        managers = dc.role(guild, 810000000000000002, "Managers", MANAGE_GUILD)
        ada = dc.member(guild, dc.user(810000000000000011, "ada"), managers)
        await dc.dispatch("GUILD_CREATE", guild.payload())
        choices = [c["value"] for c in dc._synced(guild, "set")["options"][0]["choices"]]
        assert choices == [choice.value for choice in SETTINGS]
        for key, value, shown in [("announce", "yes", "yes"),
                                  ("timezone", "Europe/Berlin", "Europe/Berlin")]:
            answer = await say(bot, guild, ada, "set", key=key, value=value)
            assert answer.plain == text("setting_set", ladder="main", setting=key, value=shown)
        assert dc.errors == []
