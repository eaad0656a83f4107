"""Reading what people type: names, dates, results, handicaps, colours, systems, settings.

Each reader returns the value or raises a :class:`Refusal` that says what is wrong.
"""

from __future__ import annotations

import math
import unicodedata
from datetime import date, datetime

from ratings_core.parameters import ParameterError, out_of_bounds, with_overrides
from ratings_core.systems import make_system, preset_params, system_names

from .errors import Refusal
from .ladder_settings import names, parse
from .lookalike import unseen

MAX_NAME = 32
#: the largest handicap, either way, in the ladder system's unit (stones for rs-go, rating
#: points otherwise), from every door: chat, `clubrating import`, `clubrating replay`
MAX_HANDICAP = 1000.0
#: the first day a game or a birth may have (every door); the last is tomorrow in the ladder's
#: time zone for games, yesterday for births
EARLIEST = date(1900, 1, 1)
#: a puzzle's solving time (tactics) is above 0 and at most a day
MAX_SECONDS = 86400.0
#: what joins the members of a side (``alice & bob``, issue 37): no new name holds it
AMPERSAND = "&"
RESULTS = {"win": 1.0, "won": 1.0, "loss": 0.0, "lost": 0.0, "lose": 0.0, "draw": 0.5}


def result_word(score: float) -> str:
    """A score as /report and /correct type it (win, draw, loss), else the number."""
    return {1.0: "win", 0.5: "draw", 0.0: "loss"}.get(score, f"{score:g}")


def display_name(text: str) -> str:
    """A member's name, in NFC: printable, with a letter (a name of digits would read as a
    platform's user id where members are named by id), not starting with @, at most 32
    characters, without a character nobody sees (:func:`~bot.service.lookalike.unseen`,
    issue 30: "alice" with an invisible joiner would pass for alice), and without ``&``, which
    joins the members of a side (``alice & bob``, issue 37).

    A new name's rule only (/register, a new player of `clubrating import`): the names members
    already have are never read through here again, so a member registered with ``&`` before
    keeps the name."""
    name = unicodedata.normalize("NFC", " ".join(text.split()))
    hidden = unseen(name)
    if hidden is not None:
        raise Refusal("name_invisible", char=f"U+{ord(hidden):04X}")
    if AMPERSAND in name:
        raise Refusal("name_ampersand")
    if (not name or name.startswith("@") or not name.isprintable()
            or not any(ch.isalpha() for ch in name)):
        raise Refusal("bad_name", limit=MAX_NAME)
    if len(name) > MAX_NAME:
        raise Refusal("name_too_long", limit=MAX_NAME)
    return name


def birth_date(text: str, now: datetime) -> date:
    try:
        born = date.fromisoformat(text.strip())
    except ValueError:
        raise Refusal("bad_date", text=text[:20]) from None
    if born >= now.date():
        raise Refusal("birth_date_future", text=text[:20])
    if born < EARLIEST:
        raise Refusal("bad_date", text=text[:20])
    return born


def score(text: str) -> float:
    score = RESULTS.get(text.strip().casefold())
    if score is None:
        raise Refusal("bad_result", text=text[:20])
    return score


def handicap(text: str | None) -> float:
    if text is None or not text.strip():
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise Refusal("bad_handicap", text=text[:20], limit=f"{MAX_HANDICAP:g}") from None
    if not math.isfinite(value) or abs(value) > MAX_HANDICAP:
        raise Refusal("bad_handicap", text=text[:20], limit=f"{MAX_HANDICAP:g}")
    return value


def colour(text: str | None) -> str | None:
    if text is None:
        return None
    colour = text.strip().casefold()
    if colour not in ("white", "black"):
        raise Refusal("bad_colour", text=text[:20])
    return colour


def system_params(name: str, params: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The parameters a person typed for the system ``name`` (/system, /ladder create, the
    command line's --set), each within its bounds (``ratings_core``'s, stated in the refusal).
    Only what is typed is checked: a ladder's stored parameters load as they are."""
    if name not in system_names():
        raise Refusal("unknown_system", system=name[:MAX_NAME], systems=", ".join(system_names()))
    preset = preset_params(make_system(name))
    try:
        violated = out_of_bounds(preset, params)
        if violated is None:
            with_overrides(preset, params)
    except ParameterError as error:
        raise Refusal(f"parameter_{error.problem}", parameter=error.name[:MAX_NAME],
                      text=error.text[:20], expected=error.expected) from None
    except ValueError as error:  # a rule between parameters (ratings_core's own words)
        raise Refusal("bad_parameter", problem=str(error)) from None
    if violated is not None:
        bounds, text = violated
        key = {(False, False): "parameter_out_of_range",
               (True, False): "parameter_out_of_range_whole",
               (False, True): "parameter_out_of_range_or_none",
               (True, True): "parameter_out_of_range_whole_or_none"}[bounds.whole, bounds.optional]
        raise Refusal(key, parameter=bounds.name, low=f"{bounds.low:g}", high=f"{bounds.high:g}",
                      text=text[:20])
    return tuple(sorted(params.items()))


#: the settings every platform's /set offers (``ladder_settings.names`` has Discord's too)
SETTINGS = names(everywhere=True)
#: a ladder setting's value from what a moderator typed (the table's reader)
setting = parse
