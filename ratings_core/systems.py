"""The named presets: ``make_system("club", {"k": "24"})`` and the list of names."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from .elo import AsymmetricElo, ClassicElo, ClubElo
from .fqe import QuebecSystem
from .glicko import Glicko
from .glicko2 import Glicko2
from .linear import LinearElo, TaisenElo
from .parameters import with_overrides
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


def system_names() -> list[str]:
    return list(PRESETS)


def make_system(name: str, overrides: Mapping[str, str] | None = None) -> RatingSystem:
    """The preset ``name`` with ``overrides`` (parameter name -> text) applied.

    Raises ``ValueError`` for an unknown system, an unknown parameter or a bad value.
    """
    cls = PRESETS.get(name)
    if cls is None:
        raise ValueError(f"unknown rating system {name!r}; choose one of {', '.join(PRESETS)}")
    preset = cls()
    params = preset_params(preset)
    if overrides:
        params = with_overrides(params, overrides)
    return cls(params)  # type: ignore[call-arg]


def preset_params(system: RatingSystem) -> object:
    """The parameter dataclass of a system instance."""
    params = getattr(system, "params", None)
    if params is None or not dataclasses.is_dataclass(params):
        raise TypeError(f"system {system.name!r} has no parameter dataclass")
    return params
