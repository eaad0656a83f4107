"""The table of ladder settings: every setting reads back what /settings shows, the bounds are
refused as before, and the table, ``LadderSettings`` and the old hand-written reader agree."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.chat.commands import COMMANDS
from bot.chat.help import command_help
from bot.chat.messages import text
from bot.service import ladder_settings, parsing, state
from bot.service.errors import Refusal
from bot.service.ladder_settings import (
    SETTINGS,
    LadderSettings,
    names,
    parse,
    shown,
    view,
)
from bot.storage.repository import JsonValue

#: set by /system, not /set
SET_ELSEWHERE = {"system", "params", "edition"}


def refusal_text(name: str, value: str) -> str:
    with pytest.raises(Refusal) as refused:
        parse(name, value)
    return text(refused.value.key, refused.value.params)


def test_the_table_names_every_changeable_field_of_a_ladder() -> None:
    fields = [f.name for f in dataclasses.fields(LadderSettings)]
    assert set(names()) == set(fields) - SET_ELSEWHERE
    assert len(names()) == len(SETTINGS)
    # the order every platform's lists had before the table
    assert names(everywhere=True) == ("auto_confirm_hours", "challenge_hours", "inactivity_days",
                                      "hide_provisional", "announce", "timezone",
                                      "open_reports", "open_reports_per_opponent", "language",
                                      "normalise", "public", "public_slug", "night_bye_points",
                                      "night_tiebreaks", "team_ladder", "uneven_teams",
                                      "team_size_handicap", "max_side", "show_stake",
                                      # rating bands (issue 38)
                                      "band_hysteresis",
                                      # seasons (issue 38)
                                      "season_min_games", "season_reset",
                                      "season_soft_factor", "season_schedule")
    assert names() == (*names(everywhere=True), "moderator_role")
    assert names(everywhere=True) == parsing.SETTINGS


def test_defaults_come_from_ladder_settings() -> None:
    assert [s.default for s in SETTINGS] == [
        24.0, 48.0, None, False, False, None, 5, 1, None, "case", False, None, "1", None,
        "companion", False, 0.0, 5, True, 25.0, 5, "none", 0.5, "manual", None]
    assert ladder_settings._NAME_SHOWN == parsing.MAX_NAME


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_every_setting_reads_back_its_default_as_shown(setting: ladder_settings.Setting) -> None:
    views = {**view(LadderSettings()), **ladder_settings.club_view(LadderSettings())}
    shown_default = views.get(setting.name, shown(setting.default))
    # a zone left off reads as the default zone, which /settings shows
    expected = setting.fallback if setting.default is None and setting.fallback else setting.default
    assert parse(setting.name, shown_default) == expected


def test_the_view_is_what_settings_showed() -> None:
    for s in (LadderSettings(), LadderSettings(auto_confirm_hours=1.5, challenge_hours=72.0,
                                               inactivity_days=30.0, hide_provisional=True,
                                               moderator_role="123", announce=True,
                                               timezone="Europe/Berlin", open_reports=20,
                                               open_reports_per_opponent=3)):
        assert view(s) == {
            "auto_confirm_hours": old_shown(s.auto_confirm_hours),
            "challenge_hours": old_shown(s.challenge_hours),
            "inactivity_days": old_shown(s.inactivity_days),
            "hide_provisional": old_shown(s.hide_provisional),
            "announce": old_shown(s.announce),
            "timezone": s.timezone or state.DEFAULT_TIMEZONE,
            "open_reports": str(s.open_reports),
            "open_reports_per_opponent": str(s.open_reports_per_opponent),
            # the web leaderboard's (issue 35)
            "public": "no", "public_slug": "off",
            # a club night's bye (issue 36)
            "night_bye_points": "1", "night_tiebreaks": "off", "team_ladder": "companion",
            "uneven_teams": "no", "team_size_handicap": "0", "max_side": "5",
            # the points at stake on reports and challenges (issue 38)
            "show_stake": "yes",
            # rating bands (issue 38)
            "band_hysteresis": "25",
            # seasons (issue 38)
            "season_min_games": "5", "season_reset": "none", "season_soft_factor": "0.5",
            "season_schedule": "manual",
        }
    assert [*view(LadderSettings()), *ladder_settings.club_view(LadderSettings())] == [
        name for name in names(everywhere=True) if name not in ("normalise", "language")
    ] + ["language"]
    # a puzzle ladder's own setting shows on puzzle ladders alone (issue 34)
    assert view(LadderSettings(system="tactics"))["normalise"] == "case"
    assert ladder_settings.club_view(LadderSettings(language="ru")) == {"language": "ru"}


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("auto_confirm_hours", "0", "auto_confirm_hours takes a number above 0 and at most 8760 "
                                "(not 0)."),
    ("auto_confirm_hours", "8761", "auto_confirm_hours takes a number above 0 and at most 8760 "
                                   "(not 8761)."),
    ("challenge_hours", "-1", "challenge_hours takes a number above 0 and at most 8760 (not -1)."),
    ("season_soft_factor", "1.5", "season_soft_factor takes a number from 0 to 1 (not 1.5)."),
    ("season_reset", "soft!", "season_reset takes none, soft, hard (not soft!)."),
    ("challenge_hours", "nan", "challenge_hours takes a number above 0 and at most 8760 "
                               "(not nan)."),
    ("challenge_hours", "off", "challenge_hours takes a number above 0 and at most 8760 "
                               "(not off)."),
    ("inactivity_days", "3651", "inactivity_days takes a number above 0 and at most 3650, "
                                "or off (not 3651)."),
    ("inactivity_days", "inf", "inactivity_days takes a number above 0 and at most 3650, "
                               "or off (not inf)."),
    # issue 31: a yes/no setting names its values
    ("hide_provisional", "maybe", "hide_provisional takes yes or no (not maybe)."),
    ("announce", "2", "announce takes yes or no (not 2)."),
    ("moderator_role", "never", "That is not a valid value for moderator_role: never."),
    ("moderator_role", "1" * 21, f"That is not a valid value for moderator_role: {'1' * 20}."),
    ("timezone", "Mars/Olympus", "There is no time zone Mars/Olympus. Use an IANA name, e.g. "
                                 "Europe/Berlin or UTC."),
    # issue 37: /help set names them, each with what it does (the list outgrew a refusal)
    ("colour", "red", "There is no setting colour: /help set names each one."),
    ("x" * 40, "1", f"There is no setting {'x' * 32}: /help set names each one."),
    # issue 30: the caps on a member's waiting reports are whole numbers from 1 to 20
    ("open_reports", "0", "open_reports takes a whole number from 1 to 20 (not 0)."),
    ("open_reports", "21", "open_reports takes a whole number from 1 to 20 (not 21)."),
    ("open_reports", "2.5", "open_reports takes a whole number from 1 to 20 (not 2.5)."),
    ("open_reports", "off", "open_reports takes a whole number from 1 to 20 (not off)."),
    ("open_reports_per_opponent", "-1", "open_reports_per_opponent takes a whole number from 1 "
                                        "to 20 (not -1)."),
    ("open_reports_per_opponent", "\u0662", "open_reports_per_opponent takes a whole number "
                                            "from 1 to 20 (not \u0662)."),
])
def test_bounds_and_bad_values_are_refused_as_before(name: str, value: str,
                                                     expected: str) -> None:
    assert refusal_text(name, value) == expected


def test_a_nights_tie_breaks_are_some_of_the_known_ones_in_order() -> None:
    assert parse("night_tiebreaks", "Wins, buchholz") == "wins,buchholz"
    assert parse("night_tiebreaks", "off") is None
    for bad in ("wins,wins", "golf", "wins,,buchholz"):
        assert refusal_text("night_tiebreaks", bad).startswith(
            "night_tiebreaks takes some of buchholz_cut1, buchholz, sonneborn_berger, "
            "direct_encounter, wins, sos, sosos, comma-separated, each once")


def test_values_at_the_bounds_are_taken() -> None:
    assert parse("auto_confirm_hours", " 8760 ") == 8760.0
    assert parse("inactivity_days", "NEVER") is None
    assert parse("moderator_role", "<@&123>") == "123"
    assert parse("moderator_role", "None") is None
    assert parse("announce", "On") is True
    assert parse("open_reports", " 20 ") == 20
    assert parse("open_reports_per_opponent", "01") == 1


def test_the_cap_per_opponent_is_never_above_the_cap_per_member() -> None:
    """Issue 30: /set open_reports_per_opponent above open_reports is refused; open_reports
    lowered below it since bounds it all the same."""
    settings = LadderSettings(open_reports=3)
    ladder_settings.check_against(settings, "open_reports_per_opponent", 3)
    with pytest.raises(Refusal) as refused:
        ladder_settings.check_against(settings, "open_reports_per_opponent", 4)
    assert text(refused.value.key, refused.value.params) == (
        "open_reports_per_opponent may not be above open_reports, which is 3 (not 4).")
    ladder_settings.check_against(settings, "open_reports", 1)  # lowering the bound is fine
    lowered = LadderSettings(open_reports=2, open_reports_per_opponent=4)
    assert ladder_settings.open_reports_per_opponent(lowered) == 2
    assert ladder_settings.open_reports_per_opponent(LadderSettings()) == 1


def test_set_help_lists_the_settings_of_every_platform() -> None:
    assert text("help_set") == (
        "/set SETTING VALUE [ladder=NAME] - change a setting (/help set names them)")
    for platform in ("console", "telegram", "discord"):
        shown = command_help("set", platform, COMMANDS).splitlines()
        listed = [line.split()[0] for line in shown if line.startswith("  ")]
        assert listed == [s.name for s in SETTINGS if s.platform in (None, platform)]
    for setting in SETTINGS:
        assert len(text(setting.help)) <= 100


# -- the hand-written reader and view the table replaced, frozen for comparison ---------------

OLD_SETTINGS = ("auto_confirm_hours", "challenge_hours", "inactivity_days", "hide_provisional",
                "announce", "timezone")
OLD_LIMITS = {"auto_confirm_hours": 24.0 * 365, "challenge_hours": 24.0 * 365,
              "inactivity_days": 3650.0}


def old_setting(name: str, text: str) -> JsonValue:
    value = text.strip().casefold()
    bad = Refusal("bad_setting", setting=name, text=text[:20])
    if name == "inactivity_days" and value in ("off", "none", "never"):
        return None
    if name in OLD_LIMITS:
        # issue 15 changed the wording (not the rule): "3650, or off" as parameters' "or none";
        # issue 33 made the ", or off" a sentence of its own, for the catalogues
        out_of_range = Refusal("bad_setting_number_or_off" if name == "inactivity_days"
                               else "bad_setting_number", setting=name, text=text[:20],
                               limit=f"{OLD_LIMITS[name]:g}")
        try:
            number = float(value)
        except ValueError:
            raise out_of_range from None
        if not (math.isfinite(number) and 0 < number <= OLD_LIMITS[name]):
            raise out_of_range
        return number
    if name == "timezone":
        return ladder_settings.check_timezone(text)
    if name in ("hide_provisional", "announce"):
        if value in ("yes", "true", "on"):
            return True
        if value in ("no", "false", "off"):
            return False
        # issue 31 changed the wording (not the rule): the refusal names yes and no
        raise Refusal("bad_setting_yes_no", setting=name, text=text[:20])
    if name == "moderator_role":
        if value in ("off", "none"):
            return None
        role = value.removeprefix("<@&").removesuffix(">")
        if not (role.isascii() and role.isdigit() and len(role) <= 20):
            raise bad
        return role
    # (since issue 37 the refusal names no settings: /help set does, each with what it does)
    raise Refusal("unknown_setting", setting=name[:32])


def old_shown(value: JsonValue) -> str:
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def outcome(read: object, name: str, value: str) -> tuple[str, object]:
    try:
        return "value", read(name, value)  # type: ignore[operator]
    except Refusal as refusal:
        return refusal.key, refusal.params


VALUES = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["off", "None", " never ", "yes", "TRUE", "on", "no", "false", "0", "24",
                     "8760", "8760.0001", "3650", "1e3", "-0", "inf", "nan", "<@&42>", "42",
                     "UTC", "Europe/Berlin", " America/New_York ", "", " "]),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.integers(-10, 10**22).map(str),
)


@given(name=st.one_of(st.sampled_from([*OLD_SETTINGS, "moderator_role", "colour", "system"]),
                      st.text(max_size=40).filter(lambda n: n not in names())),
       value=VALUES)
def test_the_table_reads_every_text_as_the_old_reader_did(name: str, value: str) -> None:
    assert outcome(parse, name, value) == outcome(old_setting, name, value)


@given(st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False), st.text(max_size=10),
                 st.integers()))
def test_values_are_shown_as_before(value: JsonValue) -> None:
    assert shown(value) == old_shown(value)
