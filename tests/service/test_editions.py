"""Editions of the presets' defaults (issue 19): a better default applies to ladders created or
given a system from now on; a ladder whose log names no edition keeps edition 1's defaults, and
so its ratings, until a moderator sets its system again (and an /undo of that takes it back)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.service import events as ev
from bot.service.ladder_settings import PAST_EDITION
from bot.service.state import ClubState
from bot.storage.repository import JsonValue, StoredEvent
from ratings_core.systems import EDITION, PAST_EDITIONS, make_system, preset_params
from tests.chat import open_club

AT = datetime(2024, 3, 1, 19, 0)


def stored(events: list[ev.Event]) -> Iterator[StoredEvent]:
    for number, event in enumerate(events, start=1):
        kind, data = ev.encode(event)
        yield StoredEvent(number, kind.value, "mod", AT + timedelta(minutes=number), data)


def edition_after(*events: ev.Event) -> int:
    return ClubState.build(stored(list(events))).ladders["main"].settings.edition


def test_today_is_the_newest_edition_and_every_past_one_names_presets_that_exist() -> None:
    assert max(PAST_EDITIONS) < EDITION
    assert PAST_EDITION in PAST_EDITIONS
    for overrides in PAST_EDITIONS.values():
        for name, params in overrides.items():
            make_system(name, params)  # the overrides are parameters of today's preset


def test_an_unknown_edition_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown edition 99"):
        make_system("club", edition=99)


def test_a_past_edition_is_its_overrides_under_what_the_ladder_gives() -> None:
    for edition, presets in PAST_EDITIONS.items():
        for name, overrides in presets.items():
            past = preset_params(make_system(name, {"k": "24"}, edition))
            assert past == preset_params(make_system(name, {**overrides, "k": "24"}))


def test_a_ladder_created_before_editions_keeps_the_first_one() -> None:
    assert edition_after(ev.LadderCreated("main", "club")) == PAST_EDITION
    assert edition_after(ev.LadderCreated("main", "club", edition=EDITION)) == EDITION


def test_setting_the_system_moves_to_the_edition_it_was_set_under() -> None:
    created = ev.LadderCreated("main", "club", edition=EDITION)
    settings: dict[str, JsonValue] = {"system": "club", "params": {}}
    assert edition_after(created, ev.SettingsChanged("main", settings)) == PAST_EDITION
    old = ev.LadderCreated("main", "club")
    now = ev.SettingsChanged("main", {**settings, "edition": EDITION})
    assert edition_after(old, now) == EDITION
    # another setting leaves the defaults alone
    assert edition_after(old, ev.SettingsChanged("main", {"auto_confirm_hours": 2.0})) == 1


async def test_an_old_ladder_rates_by_its_edition_until_the_system_is_set_again(
    tmp_path: Path,
) -> None:
    """A database written before editions (its first event rewritten without one): edition 1
    rates newcomers by the provisional weighted mean, today's by their deviation."""
    path = tmp_path / "club.db"
    async with open_club(path) as chat:
        for user in ("mod", "ann", "bob"):
            await chat.as_(user, f"/register {user}")
        await chat.as_("ann", "/report @bob win")
        assert "Game #1" in await chat.as_("bob", "/confirm")
        today = await chat.say("/top")
    with sqlite3.connect(path) as db:
        (data,) = db.execute("SELECT data FROM events WHERE id = 1").fetchone()
        assert json.loads(data).pop("edition") == EDITION
        for (trigger,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            db.execute(f"DROP TRIGGER {trigger}")  # the log is append-only: as written before
        db.execute("UPDATE events SET data = ? WHERE id = 1",
                   (json.dumps({"ladder": "main", "system": "club", "params": {}}),))
    db.close()
    async with open_club(path) as chat:
        before = await chat.as_("mod!", "/top")
        assert before != today
        assert "uncertainty=games," in await chat.say("/settings")
        assert "ann      1536?" in before and "ann      1552?" in today
        assert ("with the defaults it was set up with (edition 1; /system club gives it today's "
                "and re-rates every game)" in await chat.say("/settings"))
        set_today = await chat.say("/system club")
        assert "every game was re-rated" in set_today
        assert await chat.say("/top") == today
        assert "edition" not in await chat.say("/settings")
        assert "Undoing" in await chat.say("/undo")
        await chat.say("/apply")
        assert await chat.say("/top") == before
        assert await chat.say("/system club uncertainty=games") and await chat.say("/top") == before
