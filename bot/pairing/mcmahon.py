"""The ``mcmahon`` mode (go): players start from a score their strength gives them, and are
paired like the swiss mode on that McMahon score (issue 36).

Starting scores, in our words: a player's *band* is their ladder rating divided by
``Settings.band_width``, rounded down. Everyone in the top ``Settings.bar`` bands starts level
(the *bar*: the strongest play for the night's win on equal terms); below the bar, each band
starts one point lower; the lowest band starts at 0. The bands are counted among the players
who were there for round 1 (so a late joiner does not move everyone's start); a late joiner
below them starts at 0 with the lowest band. The McMahon score is the starting score plus
tonight's points.

Pairing: the swiss mode's matching (:mod:`bot.pairing.swiss`, the same rules: the bye rules,
no rematch, score groups, top half against bottom half, the lot) on McMahon scores, without
colours. On each board the stronger player (higher band, then rating, then pairing number) is
``first`` and takes white; the weaker takes black and plays first, with the handicap: the
band difference less one, at least 0, at most ``Settings.handicap_limit`` stones.

Source: the McMahon system as the European Go Federation's tournament rules describe it
(starting scores from the rank, the bar; pairing within McMahon score groups), and
L. McMahon's original system; go's handicap of one stone a rank, less one (the weaker player
plays black first, worth about one rank: the issue's "band difference minus one").
"""

from __future__ import annotations

import math

from .model import Board, Night, Pairing, Player, scores
from .swiss import Field, match


def band(player: Player, width: float) -> int:
    """The player's rating band: ``floor(rating / width)``."""
    if width <= 0:
        raise ValueError(f"band_width must be above 0, not {width}")
    return math.floor(player.rating / width)


def starting_scores(night: Night) -> dict[str, int]:
    """Each player's McMahon starting score (see the module): the bar's bands level at the
    top, one point less a band below, the lowest band of the round-1 players at 0."""
    width = night.settings.band_width
    if night.settings.bar < 1:
        raise ValueError(f"bar must be 1 or more, not {night.settings.bar}")
    founders = [p for p in night.players if p.joined_round <= 1] or list(night.players)
    bands = [band(p, width) for p in founders]
    if not bands:
        return {}
    bar = max(bands) - night.settings.bar + 1  # the lowest band of the bar
    floor = min(bands)
    return {p.key: max(0, min(band(p, width), bar) - floor) for p in night.players}


def mcmahon_scores(night: Night) -> dict[str, float]:
    """Each player's McMahon score: starting score plus tonight's points (a result not in yet
    counts nothing)."""
    start = starting_scores(night)
    return {key: start[key] + points for key, points in scores(night).items()}


def handicap(stronger: Player, weaker: Player, night: Night) -> int:
    """Stones for ``weaker``: the band difference less one, at least 0, capped by the ladder's
    ``handicap_limit``."""
    width = night.settings.band_width
    gap = abs(band(stronger, width) - band(weaker, width)) - 1
    return min(night.settings.handicap_limit, max(0, gap))


def pair(night: Night) -> Pairing:
    """The next round of a ``mcmahon`` night: see the module."""
    field = Field.of(night, mcmahon_scores(night))
    found = match(night, field, colours=False)
    width = night.settings.band_width
    boards: list[Board] = []
    why: dict[int, str] = {}
    for number, (higher, lower) in enumerate(found.pairs, start=1):
        stronger, weaker = sorted(
            (higher, lower), key=lambda p: (-band(p, width), -p.rating, p.number))
        boards.append(Board(number, stronger.key, weaker.key,
                            handicap=handicap(stronger, weaker, night)))
        reason = field.reason(higher, lower, clashed=False)
        if reason is not None:
            why[number] = reason
    return Pairing(tuple(boards), bye=found.bye, reasons=why)
