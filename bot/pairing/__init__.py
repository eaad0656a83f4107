"""Club nights (issue 36): each mode's pairing of the next round, and the standings with the
mode's tie-breaks, as pure functions of a :class:`~bot.pairing.model.Night`.

Each mode is a module of its own with a ``pair(night) -> Pairing``: ``swiss`` (our engine: one
maximum-weight matching), ``nearest``, ``roundrobin`` (Berger tables), ``mcmahon`` (go) and
``dutch`` (the FIDE Dutch system through py4swiss, the optional extra ``clubrating[fide]``,
imported only when a night asks for it). ``tiebreaks`` makes the standings, ``trf`` writes a
night as FIDE TRF16.
"""

from __future__ import annotations

import importlib

from . import tiebreaks
from .errors import NoPairing
from .model import Mode, Night, Pairing, Standing

__all__ = ["ENGINES", "NoPairing", "pair", "standings"]

#: the module that pairs each mode
ENGINES = {Mode.SWISS: "swiss", Mode.NEAREST: "nearest", Mode.ROUNDROBIN: "roundrobin",
           Mode.MCMAHON: "mcmahon", Mode.FIDE_DUTCH: "dutch"}


def pair(night: Night) -> Pairing:
    """The next round of ``night`` as its mode pairs it (the same night, the same round)."""
    engine = importlib.import_module(f"{__name__}.{ENGINES[night.settings.mode]}")
    pairing: Pairing = engine.pair(night)
    return pairing


def standings(night: Night) -> list[Standing]:
    """The night's standings: points, then the mode's tie-breaks."""
    return tiebreaks.standings(night)
