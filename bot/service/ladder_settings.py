"""A ladder's settings, in one table: what /set accepts, how a value is read and shown.

Each setting a moderator may change with /set has one :class:`Setting` row in :data:`SETTINGS`:
its name, its type, its bounds, its default (read from :class:`LadderSettings`, so the two never
disagree) and the message key of its help text. Parsing (/set), the list of names (Discord's
choices, the unknown-setting refusal, /help) and the /settings view all follow from the table,
so a new setting is one row here and one field of :class:`LadderSettings`.

The rating system and its parameters are ladder settings too, but /system sets them: they are
not in the table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.pairing import tiebreaks
from bot.storage.repository import JsonValue
from ratings_core.systems import DEFAULT_SYSTEM as DEFAULT_SYSTEM  # re-exported

from .errors import Refusal

#: the zone of a ladder whose timezone setting is off (``bot.service.state.DEFAULT_TIMEZONE``
#: is the same value; it cannot be imported from there, ``state`` imports this module)
DEFAULT_TIMEZONE = "UTC"
#: an unknown setting's name is cut to a name's length (``parsing.MAX_NAME``) in the refusal
_NAME_SHOWN = 32
#: the edition of the defaults of a ladder whose log names none: set up before editions existed
PAST_EDITION = 1
_OFF = ("off", "none", "never")
#: the most reports a member may have waiting on a ladder, whatever its moderators set: of any
#: number of reports one member files, at most this many ever count by themselves
MAX_OPEN_REPORTS = 20
_YES = ("yes", "true", "on")
#: the languages a club may speak (``/set language``): English and the seeds' clubs'; each has
#: its catalogue in ``bot/chat/locales`` (the chat layer words every answer in them)
LANGUAGES = ("en", "he", "ru", "ja", "fr")
_NO = ("no", "false", "off")
#: how a ``tactics`` ladder compares an answer with the accepted ones (``bot.service.answers``)
NORMALISE_RULES = ("exact", "case", "san")
#: the system whose ladders have problems to answer
PUZZLE_SYSTEM = "tactics"
#: a ladder's name, and a public ladder's web address (/l/SLUG), which defaults to its name:
#: lower-case letters, digits, _ and -, starting with a letter or digit
LADDER_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


@dataclass(frozen=True, slots=True)
class LadderSettings:
    system: str = DEFAULT_SYSTEM
    params: tuple[tuple[str, str], ...] = ()
    #: the edition of the system's defaults the ladder was set up with (``ratings_core.systems``
    #: ``PAST_EDITIONS``): it keeps them until a moderator sets its system again
    edition: int = PAST_EDITION
    #: hours after which an unanswered report counts as confirmed
    auto_confirm_hours: float = 24.0
    #: hours a challenge stays open
    challenge_hours: float = 48.0
    #: days without a game after which a player is retired; None: never
    inactivity_days: float | None = None
    #: leaderboards leave provisional players out instead of marking them
    hide_provisional: bool = False
    #: the platform's id of a role whose holders moderate the club (Discord); read from the
    #: main ladder, like the club's other club-wide choices
    moderator_role: str | None = None
    #: the club's language (club-wide, on the main ladder): what is posted in its chat is
    #: written in it; None: English
    language: str | None = None
    #: results on the ladder are announced (new personal bests, upsets)
    announce: bool = False
    #: the IANA time zone of the ladder's posting schedule when the schedule names none
    timezone: str | None = None
    #: a member's own reports on the ladder that may wait at once (pending or disputed): beyond
    #: it a report is refused, so that no member buries another in reports that count by
    #: themselves (issue 30)
    open_reports: int = 5
    #: of those, how many may be against one opponent: a second report of a pair while the
    #: first waits is most often the same game twice (issue 31); never more than open_reports
    open_reports_per_opponent: int = 1
    #: a puzzle ladder's rule for comparing answers (one of NORMALISE_RULES)
    normalise: str = "case"
    #: the ladder's board is on the public web leaderboard (issue 35)
    public: bool = False
    #: its address there, /l/SLUG (None: the ladder's name)
    public_slug: str | None = None
    #: what a pairing bye scores in the ladder's club nights (issue 36): 1, 0.5 or 0
    night_bye_points: str = "1"
    #: the tie-breaks of the ladder's club nights, in order, comma-separated (None: each
    #: mode's own, ``bot.pairing.tiebreaks.TIEBREAKS``)
    night_tiebreaks: str | None = None
    #: where the ladder's team games are rated (issue 37): on its companion ``NAME-teams``
    #: ("companion") or on the ladder itself ("shared"); this and the team settings below are
    #: the parent ladder's and govern its companion
    team_ladder: str = "companion"
    #: sides of different sizes (2 v 3) may play
    uneven_teams: bool = False
    #: rating points per missing member the smaller side plays above its mean
    team_size_handicap: float = 0.0
    #: the most members a side may have
    max_side: int = 5
    #: reports and challenges show the points at stake for each member (issue 38)
    show_stake: bool = True
    #: rating points a member's rating may fall below their band's minimum before they lose
    #: the band (issue 38, :mod:`bot.service.bands`)
    band_hysteresis: float = 25.0
    #: seasons (issue 38): the games a member needs in a season to be in its table
    season_min_games: int = 5
    #: what a season's close does to ratings: none, soft (toward the base) or hard (restart)
    season_reset: str = "none"
    #: a soft reset keeps this share of each rating's distance from the base
    season_soft_factor: float = 0.5
    #: seasons close by hand (manual), or on the first of each month or quarter
    season_schedule: str = "manual"


#: what a club night's pairing bye may score (issue 36)
NIGHT_BYE_POINTS = ("1", "0.5", "0")
#: where a ladder's team games are rated (issue 37)
TEAM_LADDERS = ("companion", "shared")
#: the settings of a ladder's team games: set on the parent ladder, they govern its companion
TEAM_SETTINGS = ("team_ladder", "uneven_teams", "team_size_handicap", "max_side")
#: the most members a side may ever have (``max_side``'s limit)
MAX_SIDE = 50
#: the largest team_size_handicap, in rating points per missing member
MAX_SIZE_HANDICAP = 400.0
#: the largest band_hysteresis, in rating points (issue 38)
MAX_BAND_HYSTERESIS = 1000.0
#: the tie-breaks a ladder's club nights may be set to (``bot.pairing.tiebreaks``)
ALL_TIEBREAKS = tiebreaks.ALL
#: what a season's close does to ratings (issue 38): ``ratings_core.model.SEASON_RESETS`` or none
SEASON_RESETS = ("none", "soft", "hard")
#: when seasons close by themselves (issue 38)
SEASON_SCHEDULES = ("manual", "monthly", "quarterly")
#: the most games season_min_games may ask for
MAX_SEASON_GAMES = 999


class Type(StrEnum):
    """What a setting's value is, which decides how it is read from a moderator's text."""

    #: a number of hours above 0 and at most the setting's limit
    HOURS = "hours"
    #: a number of days above 0 and at most the setting's limit, or off (None)
    DAYS_OR_OFF = "days-or-off"
    #: yes or no (True, False)
    YES_NO = "yes/no"
    #: a platform's role id, or its mention <@&id>; or off (None)
    ROLE = "role id"
    #: an IANA time zone name
    ZONE = "IANA zone"
    #: a whole number from 1 to the setting's limit
    COUNT = "count"
    #: one of :data:`LANGUAGES`
    LANGUAGE = "language"
    #: one of the setting's ``choices``
    CHOICE = "choice"
    #: a web address's last part: lower-case letters, digits, _ and -
    SLUG = "slug"
    #: some of the setting's ``choices``, comma-separated, in order, each once; or off (None)
    CHOICES = "choices"
    #: rating points from 0 to the setting's limit
    POINTS = "points"
    #: a number from 0 to 1
    FRACTION = "fraction"


@dataclass(frozen=True, slots=True)
class Setting:
    """One row of the table: a setting /set may change."""

    name: str
    type: Type
    #: the message key of what the setting does (``bot.chat.messages``)
    help: str
    #: the largest value a number may have (numbers are always above 0)
    limit: float | None = None
    #: the only platform that offers the setting (None: every platform)
    platform: str | None = None
    #: what /settings shows when the value is None (None: "off")
    fallback: str | None = None
    #: another setting this one may never exceed (its value bounds this one's)
    at_most: str | None = None
    #: the club's, not a ladder's: kept on the main ladder, whichever ladder /set names
    club_wide: bool = False
    #: the values a choice takes
    choices: tuple[str, ...] = ()
    #: the only rating system whose ladders have the setting (None: every ladder)
    system: str | None = None

    @property
    def default(self) -> JsonValue:
        """The value of a ladder on which nobody set it."""
        value: JsonValue = getattr(_DEFAULTS, self.name)
        return value


_DEFAULTS = LadderSettings()

#: every setting /set changes, in the order /help and the refusals list them
SETTINGS: tuple[Setting, ...] = (
    Setting("auto_confirm_hours", Type.HOURS, "about_auto_confirm_hours", limit=24.0 * 365),
    Setting("challenge_hours", Type.HOURS, "about_challenge_hours", limit=24.0 * 365),
    Setting("inactivity_days", Type.DAYS_OR_OFF, "about_inactivity_days", limit=3650.0),
    Setting("hide_provisional", Type.YES_NO, "about_hide_provisional"),
    Setting("announce", Type.YES_NO, "about_announce"),
    Setting("timezone", Type.ZONE, "about_timezone", fallback=DEFAULT_TIMEZONE),
    Setting("open_reports", Type.COUNT, "about_open_reports", limit=MAX_OPEN_REPORTS),
    Setting("open_reports_per_opponent", Type.COUNT, "about_open_reports_per_opponent",
            limit=MAX_OPEN_REPORTS, at_most="open_reports"),
    Setting("language", Type.LANGUAGE, "about_language", fallback="en", club_wide=True),
    Setting("normalise", Type.CHOICE, "about_normalise", choices=NORMALISE_RULES,
            system=PUZZLE_SYSTEM),
    Setting("public", Type.YES_NO, "about_public"),
    Setting("public_slug", Type.SLUG, "about_public_slug"),
    Setting("night_bye_points", Type.CHOICE, "about_night_bye_points",
            choices=NIGHT_BYE_POINTS),
    Setting("night_tiebreaks", Type.CHOICES, "about_night_tiebreaks", choices=ALL_TIEBREAKS),
    Setting("team_ladder", Type.CHOICE, "about_team_ladder", choices=TEAM_LADDERS),
    Setting("uneven_teams", Type.YES_NO, "about_uneven_teams"),
    Setting("team_size_handicap", Type.POINTS, "about_team_size_handicap",
            limit=MAX_SIZE_HANDICAP),
    Setting("max_side", Type.COUNT, "about_max_side", limit=MAX_SIDE),
    Setting("show_stake", Type.YES_NO, "about_show_stake"),
    Setting("band_hysteresis", Type.POINTS, "about_band_hysteresis",
            limit=MAX_BAND_HYSTERESIS),
    Setting("season_min_games", Type.COUNT, "about_season_min_games", limit=MAX_SEASON_GAMES),
    Setting("season_reset", Type.CHOICE, "about_season_reset", choices=SEASON_RESETS),
    Setting("season_soft_factor", Type.FRACTION, "about_season_soft_factor", limit=1.0),
    Setting("season_schedule", Type.CHOICE, "about_season_schedule", choices=SEASON_SCHEDULES),
    # club-wide (read from the main ladder) and only Discord has roles: Discord's /set offers
    # it by name, the other platforms' lists leave it out
    Setting("moderator_role", Type.ROLE, "about_moderator_role", platform="discord",
            club_wide=True),
)
_BY_NAME: Mapping[str, Setting] = {s.name: s for s in SETTINGS}
#: the settings a chat that joined a club of several chats has of its own (issue 35, ERRATA:
#: "a linked chat may set its own timezone and language for its own posts"): /set there sets
#: the chat's, for every ladder, and "off" gives it the club's again
CHAT_SETTINGS = ("timezone", "language")


def club_wide(name: str) -> bool:
    """Whether ``name`` is a setting of the club rather than of one ladder."""
    setting = _BY_NAME.get(name)
    return setting is not None and setting.club_wide


def club_view(main: LadderSettings) -> dict[str, str]:
    """The club's settings every platform offers, as /settings shows them: its main
    ladder's."""
    return _viewed(main, club_wide=True)


def names(*, everywhere: bool = False) -> tuple[str, ...]:
    """The settings /set accepts (Discord's choices); ``everywhere``: only those every platform
    offers (what /help and the unknown-setting refusal list)."""
    return tuple(s.name for s in SETTINGS if not (everywhere and s.platform))


def check_timezone(text: str) -> str:
    """An IANA time zone name (Europe/Berlin, UTC), or a refusal naming it."""
    name = text.strip()
    try:
        if not name or len(name) > 64:
            raise ValueError(name)
        ZoneInfo(name)
    except (ValueError, ZoneInfoNotFoundError):
        raise Refusal("bad_timezone", text=name[:64]) from None
    return name


def parse(name: str, text: str) -> JsonValue:
    """A ladder setting's value from what a moderator typed, or a refusal saying why not."""
    setting = _BY_NAME.get(name)
    if setting is None:
        raise Refusal("unknown_setting", setting=name[:_NAME_SHOWN])
    value = text.strip().casefold()
    bad = Refusal("bad_setting", setting=name, text=text[:20])
    match setting.type:
        case Type.HOURS | Type.DAYS_OR_OFF:
            return _number(setting, value, text)
        case Type.POINTS:
            return _points(setting, value, text)
        case Type.FRACTION:
            try:
                return _points(setting, value, text)
            except Refusal:
                raise Refusal("bad_setting_fraction", setting=name, text=text[:20]) from None
        case Type.COUNT:
            return _count(setting, value, text)
        case Type.YES_NO:
            if value in _YES:
                return True
            if value in _NO:
                return False
            # name the values it takes (issue 31: "not a valid value" left one guessing)
            raise Refusal("bad_setting_yes_no", setting=name, text=text[:20])
        case Type.ZONE:
            return check_timezone(text)
        case Type.SLUG:
            if value in _OFF[:2]:  # back to the ladder's name
                return None
            if not LADDER_NAME.fullmatch(value):
                raise Refusal("bad_public_slug", text=text[:40])
            return value
        case Type.CHOICE:
            if value not in setting.choices:
                raise Refusal("bad_setting_choice", setting=name, text=text[:20],
                              choices=", ".join(setting.choices))
            return value
        case Type.CHOICES:
            if value in _OFF[:2]:
                return None
            chosen = [part.strip() for part in value.split(",")]
            if not chosen or any(c not in setting.choices for c in chosen) \
                    or len(set(chosen)) < len(chosen):
                raise Refusal("bad_setting_choices", setting=name, text=text[:60],
                              choices=", ".join(setting.choices))
            return ",".join(chosen)
        case Type.LANGUAGE:
            if value not in LANGUAGES:
                raise Refusal("bad_language", text=text[:20], languages=", ".join(LANGUAGES))
            return value
        case Type.ROLE:
            if value in _OFF[:2]:
                return None
            # a role's id, or its mention as Discord writes one into a command's text (<@&id>)
            role = value.removeprefix("<@&").removesuffix(">")
            if not (role.isascii() and role.isdigit() and len(role) <= 20):
                raise bad
            return role


def parse_own(name: str, text: str) -> str | None:
    """A chat's own value of ``name`` (one of :data:`CHAT_SETTINGS`) from what a moderator
    typed, read as the club's is (:func:`parse`); "off" (or "none"): the club's again (None)."""
    if text.strip().casefold() in _OFF[:2]:
        return None
    return str(parse(name, text))


def _number(setting: Setting, value: str, text: str) -> float | None:
    """A number above 0 and at most the setting's limit; off for days-or-off."""
    off = setting.type is Type.DAYS_OR_OFF
    if off and value in _OFF:
        return None
    assert setting.limit is not None
    out_of_range = Refusal("bad_setting_number_or_off" if off else "bad_setting_number",
                           setting=setting.name, text=text[:20], limit=f"{setting.limit:g}")
    try:
        number = float(value)
    except ValueError:
        raise out_of_range from None
    if not (math.isfinite(number) and 0 < number <= setting.limit):
        raise out_of_range
    return number


def _points(setting: Setting, value: str, text: str) -> float:
    """Rating points from 0 to the setting's limit."""
    assert setting.limit is not None
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and 0 <= number <= setting.limit):
        raise Refusal("bad_setting_points", setting=setting.name, text=text[:20],
                      limit=f"{setting.limit:g}")
    return number


def _count(setting: Setting, value: str, text: str) -> int:
    """A whole number from 1 to the setting's limit."""
    assert setting.limit is not None
    if not (value.isascii() and value.isdigit() and len(value) <= 3
            and 1 <= int(value) <= setting.limit):
        raise Refusal("bad_setting_count", setting=setting.name, text=text[:20],
                      limit=f"{setting.limit:g}")
    return int(value)


def check_system(settings: LadderSettings, name: str) -> None:
    """Refuse setting ``name`` on a ladder whose system has no use for it (answers to compare
    on a ladder of games)."""
    setting = _BY_NAME.get(name)
    if setting is not None and setting.system not in (None, settings.system):
        raise Refusal("setting_for_system", setting=name, system=setting.system)


def check_against(settings: LadderSettings, name: str, value: JsonValue) -> None:
    """Refuse ``value`` for setting ``name`` where it would exceed the setting that bounds it
    (open_reports_per_opponent above open_reports). Lowering the bound itself is never refused:
    readers take the smaller of the two (:func:`open_reports_per_opponent`)."""
    setting = _BY_NAME.get(name)
    if setting is None or setting.at_most is None:
        return
    bound = getattr(settings, setting.at_most)
    if isinstance(value, int) and isinstance(bound, int) and value > bound:
        raise Refusal("setting_above", setting=name, text=shown(value), bound=setting.at_most,
                      limit=shown(bound))


def open_reports_per_opponent(settings: LadderSettings) -> int:
    """How many of a member's waiting reports may be against one opponent: the setting, never
    above open_reports (which may have been lowered below it since)."""
    return min(settings.open_reports_per_opponent, settings.open_reports)


def shown(value: JsonValue) -> str:
    """A setting's value as a moderator types it: 24 (not 24.0), yes/no, off."""
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def view(settings: LadderSettings) -> dict[str, str]:
    """A ladder's own settings that every platform offers as /settings shows them, by name
    (the club's settings are its main ladder's: :func:`club_view`)."""
    return _viewed(settings, club_wide=False)


def _viewed(settings: LadderSettings, club_wide: bool) -> dict[str, str]:
    """The settings of one kind (the ladder's own, or the club's) that every platform offers,
    as /settings shows them; one left off shows its fallback (the default zone, English)."""
    fields: dict[str, str] = {}
    for setting in SETTINGS:
        if (setting.platform or setting.club_wide != club_wide
                or setting.system not in (None, settings.system)):
            continue
        value: JsonValue = getattr(settings, setting.name)
        fields[setting.name] = (setting.fallback if setting.fallback is not None and not value
                                else shown(value))
    return fields

