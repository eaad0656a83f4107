"""The named presets: ``make_system("club", {"k": "24"})`` and the list of names."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from .club import ClubElo
from .elo import AsymmetricElo, ClassicElo
from .fqe import QuebecSystem
from .glicko import Glicko
from .glicko2 import Glicko2
from .linear import LinearElo, TaisenElo
from .parameters import ParameterSet, with_overrides
from .rsgo import RussianGo
from .system import RatingSystem
from .tactics import Tactics

#: every preset by the name users type; ``club`` is the product default
PRESETS: dict[str, type[RatingSystem]] = {
    cls.name: cls
    for cls in (
        ClubElo,
        ClassicElo,
        LinearElo,
        TaisenElo,
        AsymmetricElo,
        QuebecSystem,
        Glicko,
        Glicko2,
        RussianGo,
        Tactics,
    )
}

DEFAULT_SYSTEM = "club"

#: the edition of the presets' defaults that a ladder gets when it is created or switched now
EDITION = 4
#: the editions before it, for the presets whose defaults changed since: the overrides that turn
#: today's preset into that edition's. A ladder keeps the edition it was set up with, so a better
#: default never moves an existing club's ratings (README, "Rating systems").
#: Edition 1: every ladder set up before issue 19 (no edition in its log): provisional games.
#: Edition 2: a K that follows each player's deviation, every newcomer's starting at 150.
#: Edition 3: a newcomer's deviation from the league's spread, and their first opponents.
#: Edition 4 (issue 31): ``?`` only 50 points of deviation above an established player's.
_EDITION_2_CLUB = {"newcomer_spread": "0", "information": "1", "first_opponents": "0"}
_EDITION_3_CLUB = {"provisional_margin": "0"}  # edition 1 marks by games: no margin to undo
PAST_EDITIONS: dict[int, dict[str, dict[str, str]]] = {
    1: {"club": {"uncertainty": "games", **_EDITION_2_CLUB}},
    2: {"club": {**_EDITION_2_CLUB, **_EDITION_3_CLUB}},
    3: {"club": _EDITION_3_CLUB},
}

#: the presets that rate games between two players (``tactics`` rates puzzles)
GAME_SYSTEMS = [name for name, cls in PRESETS.items() if not cls.uses_seconds]

_K_VALUES = (8.0, 12.0, 16.0, 20.0, 24.0, 32.0, 40.0, 48.0, 64.0)
#: each preset's main parameter and the values ``clubrating evaluate --tune`` tries: K for the
#: Elo family (seed 000: 16..32; FIDE uses 10..40), Glicko's c (Glickman: the RD growth per
#: period), Glicko-2's tau (Glickman 2013: "between 0.3 and 1.2"), rs-go's curve width ratio
MAIN_PARAMETERS: dict[str, tuple[str, tuple[float, ...]]] = {
    "club": ("k", _K_VALUES),
    "elo": ("k", _K_VALUES),
    "shogi24": ("k", _K_VALUES),
    "taisen": ("k", _K_VALUES),
    "asymmetric": ("k", _K_VALUES),
    "fqe": ("k", _K_VALUES),
    "glicko": ("c", (10.0, 20.0, 30.0, 45.0, 63.2, 80.0, 100.0)),
    "glicko2": ("tau", (0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.2)),
    "rs-go": ("scale_ratio", (5.0, 7.0, 9.0, 11.0, 13.0, 16.0)),
    "tactics": ("doubling_points", (75.0, 100.0, 125.0, 150.0, 200.0)),
}


def system_names() -> list[str]:
    return list(PRESETS)


def make_system(name: str, overrides: Mapping[str, str] | None = None,
                edition: int = EDITION) -> RatingSystem:
    """The preset ``name`` with ``overrides`` (parameter name -> text) applied, over the
    defaults of ``edition`` (:data:`PAST_EDITIONS`; today's unless an older one is named).

    Raises ``ValueError`` for an unknown system, an unknown parameter or a bad value. The
    parameters' bounds are not checked: a ladder's stored parameters (its log) load and rate as
    they always did, whatever was accepted when they were typed. What people type now is held to
    the bounds first (:func:`ratings_core.parameters.out_of_bounds`).
    """
    cls = PRESETS.get(name)
    if cls is None:
        raise ValueError(f"unknown rating system {name!r}; choose one of {', '.join(PRESETS)}")
    if edition != EDITION and edition not in PAST_EDITIONS:
        raise ValueError(f"unknown edition {edition} of the presets' defaults")
    preset = cls()
    given = {**PAST_EDITIONS.get(edition, {}).get(name, {}), **(overrides or {})}
    params = preset_params(preset)
    if given:
        params = with_overrides(params, given)
    return cls(params)  # type: ignore[call-arg]


def preset_params(system: RatingSystem) -> ParameterSet:
    """The parameter dataclass of a system instance."""
    params = getattr(system, "params", None)
    if params is None or not dataclasses.is_dataclass(params) or isinstance(params, type):
        raise TypeError(f"system {system.name!r} has no parameter dataclass")
    return params
