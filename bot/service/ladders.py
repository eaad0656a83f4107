"""Ladders: their standings, creating one, its rating system and settings, its events (games
rated together), and which system would have predicted it best.

Each use case is a decision over the club's state (:mod:`bot.service.session`).
"""

from __future__ import annotations

import dataclasses
import json
import re
import zlib
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from bot.storage.repository import JsonValue
from ratings_core.model import Step
from ratings_core.parameters import describe
from ratings_core.systems import EDITION, PAST_EDITIONS, preset_params

from . import bands, evaluating, heavy, ladder_settings, linking, moderation, public, timeline, view
from . import events as ev
from . import parsing as parse
from .errors import Refusal
from .identity import Caller
from .parsing import MAX_NAME
from .ratings import player_key, system_of
from .reasons import automatic
from .results import Evaluation, Leaderboard, Notice, Preview
from .session import SYSTEM_ACTOR, Decision
from .state import DEFAULT_LADDER, Ladder, LadderSettings
from .view import Club

#: ladders one club may have (the main one included): every ladder is replayed, charted and
#: posted on its own, so their number bounds the work one club can make
MAX_LADDERS = 20
_EVENT_NAME = re.compile(r"^[\w-]{1,32}$")


def leaderboard(club: Club, ladder: str | None) -> Leaderboard:
    """The ladder's ranking; retired players left out, provisional ones marked; each member's
    band (issue 38)."""
    lad = view.ladder(club, ladder)
    return bands.banded(club, lad, view.board(club, lad))


def leaderboard_at(
    club: Club, now: datetime, when: datetime | timedelta, ladder: str | None
) -> Callable[[heavy.Deadline], Leaderboard]:
    """The ladder's ranking as it stood at ``when`` (a moment, or how long before now), to be
    worked out in a worker thread from a frozen copy of the ladder's ratings."""
    lad = view.ladder(club, ladder)
    moment = now - when if isinstance(when, timedelta) else when
    view.ratings(club, lad)
    frozen = timeline.freeze(club.ratings[lad.name], club.state)
    names = {player_key(m): view.person_named(club.state, player_key(m))
             for m in club.state.members}
    name, hide = lad.name, lad.settings.hide_provisional

    def board(deadline: heavy.Deadline) -> Leaderboard:
        final = timeline.frozen_state_at(frozen, moment)
        return view.standings(name, final, frozen.system, names.__getitem__, hide)

    return board


def create_ladder(
    club: Club, now: datetime, caller: Caller, name: str, system: str,
    params: dict[str, str] | None,
) -> Decision[Notice]:
    """A new ladder of the club with its own rating system."""
    view.require_moderator(club, caller)
    key = name.strip().casefold()
    if not ladder_settings.LADDER_NAME.match(key):
        raise Refusal("bad_ladder_name", limit=MAX_NAME)
    if key in club.state.ladders:
        raise Refusal("ladder_exists", ladder=key)
    if len(club.state.ladders) >= MAX_LADDERS:
        raise Refusal("too_many_ladders", limit=MAX_LADDERS)
    checked = parse.system_params(system, params or {})
    event = ev.new_event(ev.LadderCreated(key, system, dict(checked), EDITION), caller.user, now)
    if checked:  # echo what was set (issue 31: k=24 went unmentioned)
        return [event], lambda: Notice("ladder_created_params", {
            "ladder": key, "system": system,
            "params": ", ".join(f"{k}={v}" for k, v in checked)})
    return [event], lambda: Notice("ladder_created", {"ladder": key, "system": system})


def set_system(
    club: Club, now: datetime, caller: Caller, system: str, params: dict[str, str] | None,
    ladder: str | None, *, apply: bool = False,
) -> Decision[Preview]:
    """Change a ladder's rating system or parameters (to today's edition of the defaults); the
    whole ladder is re-rated. Without ``apply`` a switch that would move any rating or
    provisional mark is not written: the answer previews every rating and mark it would
    change, numbered :func:`system_key`; one that moves none is made at once (decided here,
    under the club's lock, so that no game reported meanwhile can slip a switch past its
    preview)."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    checked = parse.system_params(system, params or {})
    changed: dict[str, JsonValue] = {"system": system, "params": dict(checked), "edition": EDITION}
    setting = ev.SettingsChanged(lad.name, changed)
    what = Notice("system_set", {
        "ladder": lad.name, "system": system,
        "params": ", ".join(f"{k}={v}" for k, v in checked) or "defaults",
    })
    key = system_key(club, changed, lad.name)
    before, was = moderation.everyone(club), moderation.systems(club)
    if not apply:
        after = moderation.supposing(club, setting, caller.user, now)
        changes = moderation.moved(after, before, was=was)
        if changes:
            return [], lambda: Preview(key, changes, applied=False, system=what)
    event = ev.new_event(setting, caller.user, now)
    return [event], lambda: Preview(key, moderation.moved(club, before, was=was), applied=True,
                                    system=what)


def system_key(club: Club, changed: dict[str, JsonValue], ladder: str) -> int:
    """What names a previewed /system (its buttons' number; kept under minus it,
    ``corrections``): the id its change would have, were it written now, and six digits of the
    switch itself, so that the Apply of an earlier preview of another switch made at the same
    point of the log applies nothing."""
    what = json.dumps([ladder, changed], sort_keys=True).encode()
    return (club.state.last_id + 1) * 1_000_000 + zlib.crc32(what) % 1_000_000


def set_setting(
    club: Club, now: datetime, caller: Caller, setting: str, value: str, ladder: str | None,
    taken: frozenset[str] = frozenset(),
) -> Decision[Notice]:
    """Change one of a ladder's settings (auto-confirm hours, challenge hours, ...). ``taken``:
    the web addresses (slugs) other ladders hold, in this club or any other; a ladder made
    public, or given a slug, must not take one of them. In a chat that joined the club, its
    time zone and language are the chat's own (:func:`_own_setting`)."""
    view.require_moderator(club, caller)
    if (setting in ladder_settings.CHAT_SETTINGS
            and club.state.joined(caller.platform, caller.chat_id)):
        return _own_setting(now, caller, setting, value)
    if setting == "moderator_role":
        # Its holders are moderators: a moderator the platform did not make makes no more.
        view.require_platform_moderator(caller)
    club_wide = ladder_settings.club_wide(setting)
    # the club's own settings live on its main ladder, whichever ladder the command names
    lad = view.ladder(club, None if club_wide else ladder)
    parsed = ladder_settings.parse(setting, value)
    if setting in ladder_settings.TEAM_SETTINGS and lad.parent is not None:
        # a companion's team games follow its parent's settings (issue 37)
        raise Refusal("team_setting_on_parent", setting=setting, ladder=lad.parent)
    ladder_settings.check_system(lad.settings, setting)
    ladder_settings.check_against(lad.settings, setting, parsed)
    event = ev.new_event(ev.SettingsChanged(lad.name, {setting: parsed}), caller.user, now)
    if setting in ("public", "public_slug"):
        return [event], _public_answer(lad, setting, parsed, taken)
    return [event], lambda: Notice("club_setting_set" if club_wide else "setting_set", {
        "ladder": lad.name, "setting": setting, "value": ladder_settings.shown(parsed)})


def _own_setting(now: datetime, caller: Caller, setting: str, value: str) -> Decision[Notice]:
    """``/set timezone|language VALUE`` in a chat that joined the club (issue 35: "each chat's
    posting schedule is its own"): the chat's own value, for its posts and what is said there,
    "off" for the club's again. It is the chat's for every ladder, whichever ladder the command
    names, as the club's own settings are the club's; the club's own chat sets the ladders'
    as ever, and club-wide times (a season's close) keep the ladders' zones."""
    parsed = ladder_settings.parse_own(setting, value)
    event = ev.new_event(ev.ChatSettingSet(linking.chat_of(caller), setting, parsed),
                         caller.user, now)
    if parsed is None:
        return [event], lambda: Notice("chat_setting_off", {"setting": setting})
    return [event], lambda: Notice(f"chat_{setting}_set", {"value": parsed})


def _public_answer(ladder: Ladder, setting: str, value: JsonValue, taken: frozenset[str]
                   ) -> Callable[[], Notice]:
    """What ``/set public on|off`` and ``/set public_slug NAME`` answer: the ladder's web
    address (``/l/SLUG``), once it is free (issue 35: slugs are unique across the bot)."""
    change: dict[str, Any] = {setting: value}  # the setting's reader checked the value
    after: LadderSettings = dataclasses.replace(ladder.settings, **change)
    shown = public.slug_of(ladder.name, after)
    if setting == "public_slug" and shown in taken:
        raise Refusal("public_slug_taken", slug=shown)
    if setting == "public" and after.public and shown in taken:
        raise Refusal("public_name_taken", ladder=ladder.name, slug=shown)
    if not after.public:
        key = "public_slug_set_private" if setting == "public_slug" else "public_off"
        return lambda: Notice(key, {"ladder": ladder.name, "path": f"/l/{shown}"})
    return lambda: Notice("public_on", {"ladder": ladder.name, "path": f"/l/{shown}"})


def adopt_language(club: Club, now: datetime, language: str) -> Decision[str | None]:
    """The club's language from its platform, once: a chat whose platform names no language
    of its own (a Telegram group) takes the language of the first administrator the bot hears
    there, while the club has chosen none; a moderator's ``/set language`` changes it later.
    Kept as a change of the main ladder's settings by the bot itself, so that a restart keeps
    it. Nothing happens before the club has its main ladder, or once it has a language."""
    main = club.state.ladder(DEFAULT_LADDER)
    if main is None or main.settings.language is not None:
        return [], lambda: None if main is None else main.settings.language
    event = ev.new_event(ev.SettingsChanged(main.name, {"language": language}), SYSTEM_ACTOR,
                         now, automatic("reason_first_administrator"))
    return [event], lambda: language


def settings(club: Club, ladder: str | None, caller: Caller) -> Notice:
    """A ladder's rating system, parameters and settings; in a chat that joined a club of
    several chats, its own time zone and language where it set them (issue 35)."""
    lad = view.ladder(club, ladder)
    own = club.state.own_settings(caller.platform, caller.chat_id)
    chats = {name: value for name, value in (("timezone", own.timezone),
                                             ("language", own.language)) if value}
    s = lad.settings
    params = preset_params(system_of(lad))
    described = ", ".join(f"{k}={v}" for k, (v, _) in describe(params).items())
    past = s.edition != EDITION and s.system in PAST_EDITIONS.get(s.edition, {})
    key = ("settings_past_edition" if past
           else "settings_puzzles" if s.system == ladder_settings.PUZZLE_SYSTEM else "settings")
    return Notice(key, {
        "ladder": lad.name, "system": s.system, "params": described, "edition": s.edition,
        **ladder_settings.view(s),
        **ladder_settings.club_view(view.ladder(club, None).settings),
        **chats,
        "ladders": ", ".join(sorted(club.state.ladders)),
    })


def set_event(
    club: Club, now: datetime, caller: Caller, name: str, open_: bool, ladder: str | None
) -> Decision[Notice]:
    """Open an event (its games are rated together) or close it (and rate them)."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    if not _EVENT_NAME.match(name):
        raise Refusal("bad_event_name", limit=MAX_NAME)
    found = lad.tournaments.get(name.casefold())
    if open_ and found is not None:
        raise Refusal("event_exists", event=found.name)
    if not open_ and (found is None or found.closed is not None):
        raise Refusal("no_open_event", event=name)
    if not open_ and found is not None:
        # Issue 31: an event's games are rated together when it closes; one confirmed after
        # would be rated alone. So it closes once its reports are settled (confirmed, by
        # itself too, withdrawn, voided or corrected), never around them.
        waiting = sorted(g.number for g in club.state.open_reports.values()
                         if g.ladder == lad.name and not g.voided
                         and (g.event or "").casefold() == name.casefold())
        if waiting:
            raise Refusal("event_has_pending", event=found.name, count=len(waiting),
                          games=", ".join(f"#{n}" for n in waiting))
    change = ev.EventOpened if open_ else ev.EventClosed
    title = name if found is None else found.name
    event = ev.new_event(change(lad.name, title), caller.user, now)
    key = "event_opened" if open_ else "event_closed"

    def answer() -> Notice:
        games = sum(1 for g in lad.games.values()
                    if g.counts and g.event == title) if not open_ else 0
        return Notice(key, {"event": title, "ladder": lad.name, "games": games})

    return [event], answer


def evaluation(
    club: Club, caller: Caller, ladder: str | None
) -> tuple[str, Callable[[heavy.Deadline], Evaluation]]:
    """Moderators: which rating system would have predicted the ladder's later games best: the
    ladder's name, and the comparison to work out in a worker thread on a copy of its steps."""
    view.require_moderator(club, caller)
    lad = view.ladder(club, ladder)
    view.ratings(club, lad)
    name, current = lad.name, lad.settings.system
    steps: list[Step] = list(club.ratings[lad.name].steps)
    return name, lambda deadline: evaluating.compare(name, current, steps, deadline.check)

