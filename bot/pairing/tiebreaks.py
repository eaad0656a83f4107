"""The standings of a night: points, then each mode's tie-breaks (issue 36).

Tie-break ids (stable; the chat translates them), and what each is, in our words:

- ``buchholz``: the sum of the opponents' scores (FIDE C.07, 2023, Article 8.1).
- ``buchholz_cut1``: the same without the least significant value (Article 14.1, Cut-1);
  a voluntarily unplayed round's value is the first cut (Article 16, as below).
- ``sonneborn_berger``: the sum, over the rounds, of the points the player scored times the
  opponent's score (Article 9.1).
- ``direct_encounter``: among players equal on points and on every tie-break before this one,
  the points each scored against the others, when all of them met each other (Article 6.1;
  when they did not all meet, it separates nobody: Article 6.2's partial case is left out).
  Forfeits count: the two were paired.
- ``wins``: the rounds in which the player got as many points as a win, with or without
  playing (Article 7.1, WIN): forfeit wins, and a pairing bye worth a win, count.
- ``sos``, ``sosos`` (McMahon, go): the sum of the opponents' McMahon scores, and the sum of
  the opponents' ``sos`` (the EGF's SOS and SOSOS).

Unplayed rounds (FIDE C.07, 2023, Article 16; the reading of ``FIDE_2023`` in
marceljuenemann/tiebreak, ``src/tiebreak.ts``), in our words:

- a round without a game (a pairing bye, a half bye, an absence, a forfeit, either side)
  counts for the player's own tie-breaks as a game against a *dummy opponent* whose score is
  the player's own score; the player's points for that round are their result against it
  (16.2). So a bye adds the player's own score to their Buchholz, and the bye's points times
  their own score to their Sonneborn-Berger;
- an opponent's score is their points, except that the rounds after an opponent's last round
  that was not voluntarily unplayed (they withdrew, or pause still) count as draws (16.3);
- a round is *voluntarily unplayed* when the player chose it: a half bye, an absence, a
  forfeit loss; a pairing bye and a forfeit win are not (16.1); Cut-1 removes a voluntarily
  unplayed round's value before any other (16.4).

The same dummy opponent stands in for a McMahon player's unplayed rounds (their own McMahon
score, their own ``sos``), without the withdrawal rule (go's rules have none: our choice).

A board whose result is not in yet counts as a game: its opponent's score counts, and the
player's points from it are 0 until the result is in.

Places: by points (McMahon score in the ``mcmahon`` mode), then the tie-breaks in order, then
the pairing number; players equal on points and every tie-break share the place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from .mcmahon import mcmahon_scores
from .model import Absence, Mode, Night, Standing, scores

BUCHHOLZ_CUT1 = "buchholz_cut1"
BUCHHOLZ = "buchholz"
SONNEBORN_BERGER = "sonneborn_berger"
DIRECT_ENCOUNTER = "direct_encounter"
WINS = "wins"
SOS = "sos"
SOSOS = "sosos"

#: every tie-break a night may be set to break ties by (a ladder's ``night_tiebreaks``); SOS
#: and SOSOS sum the opponents' McMahon scores in a McMahon night, their points elsewhere
ALL = (BUCHHOLZ_CUT1, BUCHHOLZ, SONNEBORN_BERGER, DIRECT_ENCOUNTER, WINS, SOS, SOSOS)

#: each mode's tie-breaks, in the order they break ties
TIEBREAKS: dict[Mode, tuple[str, ...]] = {
    Mode.SWISS: (BUCHHOLZ_CUT1, BUCHHOLZ, SONNEBORN_BERGER, DIRECT_ENCOUNTER),
    Mode.FIDE_DUTCH: (BUCHHOLZ_CUT1, BUCHHOLZ, SONNEBORN_BERGER, DIRECT_ENCOUNTER),
    Mode.NEAREST: (BUCHHOLZ_CUT1, BUCHHOLZ, SONNEBORN_BERGER, DIRECT_ENCOUNTER),
    Mode.ROUNDROBIN: (SONNEBORN_BERGER, DIRECT_ENCOUNTER, WINS),
    Mode.MCMAHON: (SOS, SOSOS),
}

#: tie-break values are rounded to this many decimals, so that sums of odd bye points that
#: differ only by floating-point noise still tie
DECIMALS = 9


@dataclass(frozen=True, slots=True)
class Entry:
    """One published round of one player as the tie-breaks read it: the opponent (None: no
    game, a dummy opponent stands in), the points it gave, whether the player chose not to play
    it (voluntarily unplayed), and whether it was worth a win."""

    opponent: str | None
    points: float
    voluntary: bool
    win: bool


def record(night: Night) -> dict[str, list[Entry]]:
    """Every player's entries, one a published round."""
    bye_points = night.settings.bye_points
    entries: dict[str, list[Entry]] = {p.key: [] for p in night.players}
    for round_ in night.rounds:
        seen = set()
        for board in round_.boards:
            seen |= {board.first, board.second}
            if board.result is None:
                entries[board.first].append(Entry(board.second, 0.0, False, False))
                entries[board.second].append(Entry(board.first, 0.0, False, False))
                continue
            first = board.result.first_score
            for key, other, got in ((board.first, board.second, first),
                                    (board.second, board.first, 1.0 - first)):
                if board.result.forfeit:  # unplayed: the loser chose it
                    entries[key].append(Entry(None, got, got < 1.0, got >= 1.0))
                else:
                    entries[key].append(Entry(other, got, False, got >= 1.0))
        for key in entries.keys() - seen:
            absence = round_.absent.get(key, Absence.ZERO)
            if absence is Absence.PAIRING_BYE:
                entries[key].append(Entry(None, bye_points, False, bye_points >= 1.0))
            elif absence is Absence.HALF_BYE:
                entries[key].append(Entry(None, 0.5, True, False))
            else:
                entries[key].append(Entry(None, 0.0, True, False))
    return entries


def adjusted_scores(entries: Mapping[str, Sequence[Entry]]) -> dict[str, float]:
    """Each player's score as an opponent (C.07 16.3, as read above): their points, the
    rounds after their last round not voluntarily unplayed counted as draws."""
    adjusted = {}
    for key, rounds in entries.items():
        last = max((i for i, e in enumerate(rounds) if not e.voluntary), default=-1)
        adjusted[key] = (sum(e.points for e in rounds[:last + 1])
                         + 0.5 * (len(rounds) - last - 1))
    return adjusted


def _opponent_values(entries: Sequence[Entry], own: float,
                     of: Mapping[str, float]) -> list[tuple[bool, float]]:
    """Per round: (voluntarily unplayed, the opponent's value), the dummy's being ``own``."""
    return [(e.voluntary, own if e.opponent is None else of[e.opponent]) for e in entries]


def buchholz(entries: Sequence[Entry], own: float, adjusted: Mapping[str, float]) -> float:
    """Article 8.1: the opponents' scores, a dummy opponent's being the player's own."""
    return sum(v for _, v in _opponent_values(entries, own, adjusted))


def buchholz_cut1(entries: Sequence[Entry], own: float, adjusted: Mapping[str, float]) -> float:
    """Article 14.1 with 16.4: Buchholz less its least significant value, a voluntarily
    unplayed round's first."""
    values = _opponent_values(entries, own, adjusted)
    if not values:
        return 0.0
    # voluntarily unplayed rounds sort first, then the lowest value
    least = min(values, key=lambda vv: (not vv[0], vv[1]))
    return sum(v for _, v in values) - least[1]


def sonneborn_berger(entries: Sequence[Entry], own: float,
                     adjusted: Mapping[str, float]) -> float:
    """Article 9.1: each round's points times the opponent's score (a dummy's: own score)."""
    return sum(e.points * (own if e.opponent is None else adjusted[e.opponent])
               for e in entries)


def wins(entries: Sequence[Entry]) -> int:
    """Article 7.1 (WIN): the rounds worth a win, played or not."""
    return sum(1 for e in entries if e.win)


def direct_encounter(night: Night, group: Sequence[str]) -> dict[str, float]:
    """Article 6.1: within ``group`` (tied so far), the points each scored against the others
    when every two of them met; otherwise 0 for all (no separation)."""
    inside = set(group)
    against: dict[str, float] = dict.fromkeys(group, 0.0)
    pairs = set()
    for round_ in night.rounds:
        for b in round_.boards:
            if b.first in inside and b.second in inside:
                pairs.add(frozenset((b.first, b.second)))
                if b.result is not None:
                    against[b.first] += b.result.first_score
                    against[b.second] += 1.0 - b.result.first_score
    if len(group) < 2 or any(frozenset(p) not in pairs for p in combinations(group, 2)):
        return dict.fromkeys(group, 0.0)
    return against


def standings(night: Night) -> list[Standing]:
    """The night's standings (see the module): every player of the night, best first."""
    mode = night.settings.mode
    names = night.settings.tiebreaks or TIEBREAKS[mode]
    entries = record(night)
    points: Mapping[str, float] = (mcmahon_scores(night) if mode is Mode.MCMAHON
                                   else scores(night))
    adjusted = adjusted_scores(entries)
    per_player: dict[str, Callable[[str], float]] = {
        BUCHHOLZ: lambda k: buchholz(entries[k], points[k], adjusted),
        BUCHHOLZ_CUT1: lambda k: buchholz_cut1(entries[k], points[k], adjusted),
        SONNEBORN_BERGER: lambda k: sonneborn_berger(entries[k], points[k], adjusted),
        WINS: lambda k: float(wins(entries[k])),
    }
    sos = {k: buchholz(entries[k], points[k], points) for k in entries}
    per_player[SOS] = sos.__getitem__
    per_player[SOSOS] = lambda k: buchholz(entries[k], sos[k], sos)
    keys = [p.key for p in night.players]
    values: dict[str, list[float]] = {k: [] for k in keys}
    for name in names:
        if name == DIRECT_ENCOUNTER:
            # tied: equal points and every tie-break so far
            groups: dict[tuple[float, ...], list[str]] = {}
            for k in keys:
                groups.setdefault((round(points[k], DECIMALS), *values[k]), []).append(k)
            found: dict[str, float] = {}
            for group in groups.values():
                found.update(direct_encounter(night, group))
            for k in keys:
                values[k].append(round(found[k], DECIMALS))
        else:
            for k in keys:
                values[k].append(round(per_player[name](k), DECIMALS))
    number = {p.key: p.number for p in night.players}

    def merit(k: str) -> tuple[float, ...]:
        return (-round(points[k], DECIMALS), *(-v for v in values[k]))

    ordered = sorted(keys, key=lambda k: (merit(k), number[k]))
    table: list[Standing] = []
    for i, k in enumerate(ordered):
        place = table[-1].place if i and merit(ordered[i - 1]) == merit(k) else i + 1
        table.append(Standing(place, k, points[k], tuple(values[k])))
    return table
