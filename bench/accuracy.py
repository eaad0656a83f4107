"""Which rating system predicts real games best: our presets side by side with the rating
libraries a club would pick instead, in one process and one protocol (issue 7).

    .venv/bin/python bench/accuracy.py                                  # both datasets, all
    .venv/bin/python bench/accuracy.py --datasets chess --systems club,elo-k40,whr
    .venv/bin/python bench/accuracy.py --systems peers --output /tmp/accuracy.md

Datasets: ``chess`` and ``football`` are converted by ``bench/convert.py`` from ../shared/data
into a temporary EVENTS.csv (nothing is copied into the repository); any other value is read as
the path of an EVENTS.csv. ``--systems`` takes names, ``ours`` (every preset but ``tactics``),
``peers`` or ``all`` (the default).

Protocol, the same as ``ratings_core/evaluation.py``: the steps are folded in order; each game
of a step is predicted from the state left by the earlier steps, then the step is rated as one
rating period; the games of the steps in the last ``--test-fraction`` (0.3) of the history's
time span are scored; every system keeps rating through that window. Log-loss in nats with a
draw scoring 1/2 and p kept within (1e-6, 1 - 1e-6), Brier, accuracy on decisive games: the
functions of ``ratings_core.evaluation``. Our presets run through ``evaluate`` itself; every
peer runs through :func:`run_peer`, the same loop written against the tiny :class:`Peer`
interface (``predict(a, b)``, then ``rate(games of the period)``). The peers ignore handicaps
and who moved first or played at home (as the libraries are used out of the box).

Peers (their settings are the ``settings`` strings printed under each table):
- ``elo-k40``: plain Elo, K = 40, 1500 start, logistic with 400 points per factor 10, every game
  of a period rated from the ratings held before it (Elo, "The Rating of Chessplayers", 1978);
  ``elo-k40-online`` rates them one after another in file order instead.
- ``constant``: predicts player_a's mean score over every game rated so far (1/2 before any).
- ``glicko2-pkg``: the ``glicko2`` package 2.1.0 (``Player.update_player`` per period,
  ``did_not_compete`` for everyone who sat it out, as Glickman's step 6 says, where a period is
  a calendar period: on chess, not on football's match dates). Note: that
  package's volatility function f(x) uses the player's rating mu where Glickman's paper
  ("Example of the Glicko-2 system", step 5.1) has the deviation phi; we call it as published.
  It has no prediction function: we use Glickman's predictive probability with the combined
  deviation, E = 1 / (1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b))).
- ``trueskill``: the ``trueskill`` package 0.4.5, ``rate_1vs1`` (``drawn`` for draws), the
  games of a period rated one after another (TrueSkill has no rating period); the expected
  score is P(win) + P(draw) / 2 from the draw margin eps = Phi^-1((p_draw + 1) / 2) sqrt(2) beta:
  P(win) = Phi((dmu - eps) / c), P(loss) = Phi((-dmu - eps) / c),
  c = sqrt(2 beta^2 + sigma_a^2 + sigma_b^2) (Herbrich, Minka, Graepel, "TrueSkill", NIPS 2006).
- ``openskill``: the ``openskill`` package 6.2.0, the default ``PlackettLuce`` model,
  ``rate`` with ranks (tied ranks for a draw), games of a period one after another; the
  expected score is ``predict_win``, Phi(dmu / sqrt(2 beta^2 + sigma_a^2 + sigma_b^2)), which
  is symmetric and so already scores a draw as half a win.
- ``whr``: the ``whr`` package 2.2.0 (Coulom, "Whole-History Rating", 2008): every period's
  games are added at their time step (a month on both datasets, w2 = 300 Elo^2 per month),
  then, before the next prediction, a bounded number of Newton iterations over the whole
  history (see :class:`WholeHistoryPackage`; ``--whr-refit-days`` trades exactness for speed);
  a player's prediction is the rating of their latest day, P = 1 / (1 + 10^(-d/400)).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib.util
import math
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from bot.history import read_events
from ratings_core.evaluation import Scores, evaluate, score_predictions, scoring_start
from ratings_core.model import Game, RatingPeriod, Step, events_of, games_of
from ratings_core.systems import GAME_SYSTEMS, PAST_EDITIONS, make_system

#: datasets ``bench/convert.py`` knows
CONVERTED = ("chess", "football", "tennis")
#: a dataset's variant without its ``colour`` column: what most club reports are like (issue 19)
NO_COLOUR = "nocolour"
DATASETS = ("chess", f"chess:{NO_COLOUR}", "football", f"football:{NO_COLOUR}", "tennis")
#: our presets compared (not ``tactics``: it rates puzzles, not games between players)
#: our presets, then the past editions of those whose defaults changed (``club@2``: ``club`` with
#: edition 2's defaults, which ladders set up with them keep)
OURS = [*GAME_SYSTEMS, *(f"{name}@{edition}" for edition in sorted(PAST_EDITIONS, reverse=True)
                         for name in PAST_EDITIONS[edition])]

# -- the peers ----------------------------------------------------------------------------------


class Peer(Protocol):
    """A rating system outside ours, seen through the two calls the protocol needs."""

    name: str
    settings: str

    def predict(self, a: str, b: str) -> float:
        """a's expected score against b (a draw counts 1/2) from the ratings held now."""
        ...

    def rate(self, games: Sequence[Game]) -> None:
        """Rate one period's games (every one of them predicted before this call)."""
        ...


def logistic(difference: float, scale: float = 400.0) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -difference / scale))


def normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


class EloK40:
    """Plain Elo with one K for everyone. Period-batch (the default): a period's games are all
    rated from the ratings held before it; ``online``: one game after another in file order.
    Source: A. Elo, "The Rating of Chessplayers, Past and Present" (1978)."""

    def __init__(self, k: float = 40.0, start: float = 1500.0, online: bool = False) -> None:
        self.name = "elo-k40-online" if online else "elo-k40"
        self.k = k
        self.start = start
        self.online = online
        self.ratings: dict[str, float] = {}
        self.settings = (f"K {k:g}, start {start:g}, 400 points per factor 10, "
                         + ("games of a period rated one after another" if online
                            else "a period's games rated from the ratings held before it"))

    def predict(self, a: str, b: str) -> float:
        return logistic(self.ratings.get(a, self.start) - self.ratings.get(b, self.start))

    def rate(self, games: Sequence[Game]) -> None:
        change: dict[str, float] = defaultdict(float)
        for g in games:
            delta = self.k * (g.score_a - self.predict(g.player_a, g.player_b))
            if self.online:
                self._move(g.player_a, delta)
                self._move(g.player_b, -delta)
            else:
                change[g.player_a] += delta
                change[g.player_b] -= delta
        for player, delta in change.items():
            self._move(player, delta)

    def _move(self, player: str, delta: float) -> None:
        self.ratings[player] = self.ratings.get(player, self.start) + delta


class Constant:
    """player_a's mean score over the games rated so far: what a rating adds is measured
    against it (for chess it is White's mean score)."""

    name = "constant"
    settings = "mean score of player_a over the games rated so far, 1/2 before any"

    def __init__(self) -> None:
        self.total = 0.0
        self.games = 0

    def predict(self, a: str, b: str) -> float:
        return self.total / self.games if self.games else 0.5

    def rate(self, games: Sequence[Game]) -> None:
        self.total += sum(g.score_a for g in games)
        self.games += len(games)


#: Glicko-2 rating points per internal unit (Glickman's 400 / ln 10 as the package rounds it)
GLICKO2_SCALE = 173.7178


class Glicko2Package:
    """The ``glicko2`` 2.1.0 package: ``update_player`` for each player of a period from the
    opponents' ratings held before it, ``did_not_compete`` for every other player (Glickman's
    step 6). Source: Glickman, "Example of the Glicko-2 system" (2013); the package by
    R. Kirkman, whose step 5 uses the rating where the paper has phi (we keep it as published).
    """

    name = "glicko2-pkg"

    def __init__(self, tau: float = 0.5, rating: float = 1500.0, rd: float = 350.0,
                 volatility: float = 0.06, idle_widening: bool = True) -> None:
        import glicko2

        self._player_class = glicko2.Player
        self.tau, self.rating, self.rd, self.volatility = tau, rating, rd, volatility
        self.idle_widening = idle_widening
        self.players: dict[str, Any] = {}
        self.settings = (
            f"start {rating:g}/RD {rd:g}/volatility {volatility:g}, tau {tau:g}, "
            f"{'RD widened for idle players each period' if idle_widening else 'no idle step'}; "
            "prediction with sqrt(phi_a^2 + phi_b^2); package step 5 uses mu where the paper "
            "has phi"
        )

    def _player(self, name: str) -> Any:
        player = self.players.get(name)
        if player is None:
            player = self._player_class(self.rating, self.rd, self.volatility)
            player._tau = self.tau  # the package keeps tau as a class attribute
            self.players[name] = player
        return player

    def _mu_phi(self, name: str) -> tuple[float, float]:
        player = self.players.get(name)
        if player is None:
            return (self.rating - 1500.0) / GLICKO2_SCALE, self.rd / GLICKO2_SCALE
        return (player.rating - 1500.0) / GLICKO2_SCALE, player.rd / GLICKO2_SCALE

    def predict(self, a: str, b: str) -> float:
        """Source: Glickman, "Parameter estimation in large dynamic paired comparison
        experiments" (1999), the predictive probability with the combined deviation."""
        mu_a, phi_a = self._mu_phi(a)
        mu_b, phi_b = self._mu_phi(b)
        g = 1.0 / math.sqrt(1.0 + 3.0 * (phi_a**2 + phi_b**2) / math.pi**2)
        return 1.0 / (1.0 + math.exp(-g * (mu_a - mu_b)))

    def rate(self, games: Sequence[Game]) -> None:
        results: dict[str, tuple[list[float], list[float], list[float]]] = defaultdict(
            lambda: ([], [], [])
        )
        before: dict[str, tuple[float, float]] = {}
        for g in games:
            for name in (g.player_a, g.player_b):
                if name not in before:
                    player = self._player(name)
                    before[name] = (player.rating, player.rd)
        for g in games:
            for me, other, score in ((g.player_a, g.player_b, g.score_a),
                                     (g.player_b, g.player_a, 1.0 - g.score_a)):
                ratings, rds, outcomes = results[me]
                ratings.append(before[other][0])
                rds.append(before[other][1])
                outcomes.append(score)
        for name, (ratings, rds, outcomes) in results.items():
            self.players[name].update_player(ratings, rds, outcomes)
        if self.idle_widening:
            for name, player in self.players.items():
                if name not in results:
                    player.did_not_compete()


class TrueSkillPackage:
    """The ``trueskill`` 0.4.5 package, ``rate_1vs1`` game by game. Source: Herbrich, Minka,
    Graepel, "TrueSkill: a Bayesian skill rating system" (NIPS 2006), the draw margin."""

    name = "trueskill"

    def __init__(self, draw_probability: float = 0.10) -> None:
        import trueskill

        self._trueskill = trueskill
        self.env = trueskill.TrueSkill(draw_probability=draw_probability)
        self.margin = trueskill.calc_draw_margin(draw_probability, 2, env=self.env)
        self.ratings: dict[str, Any] = {}
        self.settings = (
            f"mu 25, sigma 25/3, beta 25/6, tau 25/300, draw probability {draw_probability:g} "
            f"(margin {self.margin:.3f}); expected score P(win) + P(draw)/2; games of a "
            "period rated one after another"
        )

    def _rating(self, name: str) -> Any:
        rating = self.ratings.get(name)
        return rating if rating is not None else self.env.create_rating()

    def predict(self, a: str, b: str) -> float:
        ra, rb = self._rating(a), self._rating(b)
        c = math.sqrt(2.0 * self.env.beta**2 + ra.sigma**2 + rb.sigma**2)
        difference = ra.mu - rb.mu
        win = normal_cdf((difference - self.margin) / c)
        loss = normal_cdf((-difference - self.margin) / c)
        return win + (1.0 - win - loss) / 2.0

    def rate(self, games: Sequence[Game]) -> None:
        for g in games:
            ra, rb = self._rating(g.player_a), self._rating(g.player_b)
            if g.score_a == 0.0:
                rb, ra = self._trueskill.rate_1vs1(rb, ra, env=self.env)
            else:
                ra, rb = self._trueskill.rate_1vs1(ra, rb, drawn=g.score_a == 0.5, env=self.env)
            self.ratings[g.player_a], self.ratings[g.player_b] = ra, rb


class OpenSkillPackage:
    """The ``openskill`` 6.2.0 package, default ``PlackettLuce`` model, game by game.
    Source: Weng and Lin, "A Bayesian approximation method for online ranking", JMLR 12
    (2011), algorithm 4; ``predict_win`` of the package."""

    name = "openskill"

    def __init__(self) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.ratings: dict[str, Any] = {}
        self.settings = (
            "PlackettLuce defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300); expected score "
            "predict_win; ranks [0, 0] for a draw; games of a period rated one after another"
        )

    def _rating(self, name: str) -> Any:
        rating = self.ratings.get(name)
        return rating if rating is not None else self.model.rating()

    def predict(self, a: str, b: str) -> float:
        return float(self.model.predict_win([[self._rating(a)], [self._rating(b)]])[0])

    def rate(self, games: Sequence[Game]) -> None:
        for g in games:
            ranks = [0.0, 0.0] if g.score_a == 0.5 else [1.0 - g.score_a, g.score_a]
            [ra], [rb] = self.model.rate(
                [[self._rating(g.player_a)], [self._rating(g.player_b)]], ranks=ranks
            )
            self.ratings[g.player_a], self.ratings[g.player_b] = ra, rb


class WholeHistoryPackage:
    """The ``whr`` 2.2.0 package. Source: R. Coulom, "Whole-History Rating: a Bayesian rating
    system for players of time-varying strength" (2008); w2 is the variance of a player's
    rating per time step (a day or a month), in Elo^2.

    WHR re-fits the whole history it has seen, so one Newton iteration costs time in
    proportion to all the games so far (0.3 s on the whole football history, most of it the
    package's uncertainty pass that every ``iterate`` call ends with). The fit is therefore
    made when a prediction needs it: before the first prediction ``first_iterations`` on
    everything so far, then ``iterations`` whenever periods were added, at most once per
    ``refit_days`` (0: before every period, the strict protocol). Predictions only see games of
    earlier periods either way; with ``refit_days`` > 0 a game is predicted from the fit made
    at the start of its ``refit_days`` block.
    """

    name = "whr"

    def __init__(self, w2: float = 300.0, iterations: int = 3, first_iterations: int = 50,
                 refit_days: int = 0, unit: str = "day", virtual_games: int = 2) -> None:
        import whr

        if unit not in ("day", "month"):
            raise ValueError(f"unit must be day or month, not {unit!r}")
        self.base = whr.Base(config={"w2": w2, "virtual_games": virtual_games})
        self.iterations = iterations
        self.first_iterations = first_iterations
        self.refit_days = refit_days
        self.unit = unit
        self.known: set[str] = set()
        self.latest: dict[str, float] = {}
        self.pending = False
        self.last_rated: datetime | None = None
        self.last_fit: datetime | None = None
        self.settings = (
            f"w2 {w2:g} Elo^2 per {unit}, {virtual_games} virtual games; {first_iterations} "
            f"Newton iterations before the first prediction, then {iterations} "
            + ("after every period" if refit_days == 0
               else f"at most once per {refit_days} days (a game is predicted from the fit "
                    f"made at the start of its {refit_days}-day block)")
            + "; prediction from each player's latest day"
        )

    def _time_step(self, when: datetime) -> int:
        if self.unit == "month":
            return when.year * 12 + when.month - 1
        return when.toordinal()

    def predict(self, a: str, b: str) -> float:
        self._fit()
        return logistic(self._elo(a) - self._elo(b))

    def _fit(self) -> None:
        if not self.pending or self.last_rated is None:
            return
        if self.last_fit is not None and self.refit_days and (
            (self.last_rated - self.last_fit).days < self.refit_days
        ):
            return
        self.base.iterate(self.iterations if self.last_fit is not None
                          else self.first_iterations)
        self.latest.clear()
        self.pending = False
        self.last_fit = self.last_rated

    def _elo(self, name: str) -> float:
        if name not in self.known:  # asking the package about a stranger would add them
            return 0.0
        elo = self.latest.get(name)
        if elo is None:
            elo = float(self.base.ratings_for_player(name)[-1][1])
            self.latest[name] = elo
        return elo

    def rate(self, games: Sequence[Game]) -> None:
        for g in games:
            winner = "W" if g.score_a == 1.0 else "B" if g.score_a == 0.0 else "D"
            # the package names player_a "white" and player_b "black"; no handicap
            self.base.create_game(g.player_b, g.player_a, winner, self._time_step(g.played_at))
            self.known.update((g.player_a, g.player_b))
            self.last_rated = max(g.played_at, self.last_rated or g.played_at)
        self.pending = True


#: every peer by the name ``--systems`` takes
PEERS: dict[str, Callable[..., Peer]] = {
    "elo-k40": EloK40,
    "elo-k40-online": lambda **settings: EloK40(online=True, **settings),
    "constant": Constant,
    "glicko2-pkg": Glicko2Package,
    "trueskill": TrueSkillPackage,
    "openskill": OpenSkillPackage,
    "whr": WholeHistoryPackage,
}

#: settings that depend on what a dataset's rating period is; other peers and any other
#: EVENTS.csv get the defaults above (docs/accuracy.md says how these were chosen)
PER_DATASET: dict[str, dict[str, dict[str, Any]]] = {
    # a period is a month, so w2 is per month (300 Elo^2 per day, 9,000 a month, diverges)
    "chess": {"whr": {"unit": "month"}},
    # a period is one match date, not a calendar period: widening every idle team's RD on
    # each of some 16,000 match dates would hold every deviation near its maximum; the
    # whole-history fit runs before each of 12,000 test dates, so one iteration each
    "football": {"glicko2-pkg": {"idle_widening": False},
                 "whr": {"unit": "month", "iterations": 1}},
}


def make_peer(name: str, dataset: str, **overrides: Any) -> Peer:
    settings = {**PER_DATASET.get(dataset.partition(":")[0], {}).get(name, {}), **overrides}
    return PEERS[name](**settings)


# -- the protocol -------------------------------------------------------------------------------


def _moment(step: Step) -> datetime | None:
    """When a step happens: its latest event, as in ``ratings_core.evaluation``."""
    moments = [e.played_at for e in events_of(step)]
    return max(moments) if moments else None


def run_peer(peer: Peer, steps: Sequence[Step], test_fraction: float = 0.3) -> Scores:
    """``ratings_core.evaluation.evaluate`` for a peer: every game of a step predicted from
    the earlier steps, then the step rated; the test window's games scored."""
    start = scoring_start(steps, test_fraction)
    pairs: list[tuple[float, float]] = []
    for step in steps:
        games = games_of(step)
        if not games:
            continue
        moment = _moment(step)
        if start is not None and moment is not None and moment >= start:
            pairs.extend((peer.predict(g.player_a, g.player_b), g.score_a) for g in games)
        peer.rate(games)
    return score_predictions(pairs)


# -- running and reporting ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    system: str
    scores: Scores
    games_per_second: float
    settings: str = ""


@dataclass
class Report:
    dataset: str
    games: int
    rows: list[Row] = field(default_factory=list)


def _convert() -> ModuleType:
    """bench/convert.py, loaded by path (bench/ is scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(
        "clubrating_bench_convert", Path(__file__).with_name("convert.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(dataset: str) -> list[Step]:
    """The steps of a dataset converted to a temporary EVENTS.csv, or of an EVENTS.csv path;
    ``NAME:nocolour`` is the same history with every game's colour (home side) left out."""
    dataset, _, variant = dataset.partition(":")
    if variant not in ("", NO_COLOUR):
        raise SystemExit(f"unknown variant {variant!r}; the one variant is {NO_COLOUR}")
    steps = _load(dataset)
    return [_without_colours(step) for step in steps] if variant else steps


def _without_colours(step: Step) -> Step:
    if isinstance(step, Game):
        return dataclasses.replace(step, first_move=0)
    if isinstance(step, RatingPeriod):
        return RatingPeriod(tuple(dataclasses.replace(e, first_move=0) if isinstance(e, Game)
                                  else e for e in step.events))
    return step


def _load(dataset: str) -> list[Step]:
    if dataset not in CONVERTED:
        return read_events(Path(dataset)).steps
    convert = _convert()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{dataset}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            out = csv.writer(handle, lineterminator="\n")
            out.writerow(convert.HEADER)
            getattr(convert, dataset)(out)
        return read_events(path).steps


def measure(name: str, dataset: str, steps: Sequence[Step], test_fraction: float,
            whr_refit_days: int | None = None) -> Row:
    games = sum(len(games_of(step)) for step in steps)
    began = time.perf_counter()
    if name in PEERS:
        overrides = {"refit_days": whr_refit_days} if name == "whr" and whr_refit_days else {}
        peer = make_peer(name, dataset, **overrides)
        scores = run_peer(peer, steps, test_fraction)
        settings = peer.settings
    else:
        preset, _, edition = name.partition("@")
        system = make_system(preset, edition=int(edition)) if edition else make_system(preset)
        scores = evaluate(system, steps, test_fraction)
        settings = "preset defaults"
    elapsed = time.perf_counter() - began
    return Row(name, scores, games / elapsed if elapsed > 0 else math.inf, settings)


def table(report: Report) -> str:
    lines = [
        f"### {report.dataset} ({report.games:,} games)",
        "",
        "| system | log-loss | Brier | accuracy | test games | games/s |",
        "|---|---|---|---|---|---|",
    ]
    best = min((r.scores.logloss for r in report.rows if r.scores.games), default=math.nan)
    for r in report.rows:
        s = r.scores
        logloss = f"{s.logloss:.4f}"
        if s.logloss == best:
            logloss = f"**{logloss}**"
        lines.append(f"| `{r.system}` | {logloss} | {s.brier:.4f} | {s.accuracy:.3f} | "
                     f"{s.games:,} | {r.games_per_second:,.0f} |")
    lines.append("")
    for r in report.rows:
        if r.system in PEERS:
            lines.append(f"- `{r.system}`: {r.settings}")
    return "\n".join(lines) + "\n"


def summary(reports: Sequence[Report]) -> str:
    """Every system's log-loss on every dataset, side by side (the best of each in bold)."""
    names = list(dict.fromkeys(r.system for report in reports for r in report.rows))
    lines = ["| system | " + " | ".join(report.dataset for report in reports) + " |",
             "|---|" + "---|" * len(reports)]
    for name in names:
        cells = []
        for report in reports:
            rows = {r.system: r.scores for r in report.rows if r.scores.games}
            best = min((scores.logloss for scores in rows.values()), default=math.nan)
            scores = rows.get(name)
            cell = "" if scores is None else f"{scores.logloss:.4f}"
            cells.append(f"**{cell}**" if scores is not None and scores.logloss == best else cell)
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "### Log-loss, side by side\n\n" + "\n".join(lines) + "\n"


def systems_named(text: str) -> list[str]:
    names: list[str] = []
    for item in (n.strip() for n in text.split(",")):
        group = {"ours": OURS, "peers": list(PEERS), "all": [*OURS, *PEERS]}.get(item)
        for name in group if group is not None else [item] if item else []:
            if name not in OURS and name not in PEERS:
                raise SystemExit(f"unknown system {name!r}; choose from "
                                 f"{', '.join([*OURS, *PEERS])}, ours, peers, all")
            if name not in names:
                names.append(name)
    if not names:
        raise SystemExit("--systems names no system")
    return names


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS),
                        help="chess, football, tennis (each also as NAME:nocolour) or EVENTS.csv "
                             "paths, comma-separated")
    parser.add_argument("--systems", default="all",
                        help="our presets and peers by name, or ours, peers, all")
    parser.add_argument("--test-fraction", type=float, default=0.3)
    parser.add_argument("--output", type=Path, help="also write the markdown to this file")
    parser.add_argument("--whr-refit-days", type=int, default=None, metavar="DAYS",
                        help="re-fit WHR at most once per DAYS days (faster; default: before "
                             "every period, the strict protocol)")
    args = parser.parse_args(argv)
    if not 0 < args.test_fraction <= 1:
        parser.error(f"--test-fraction must be in (0, 1], not {args.test_fraction}")
    names = systems_named(args.systems)
    parts = []
    reports: list[Report] = []
    for dataset in (d.strip() for d in args.datasets.split(",") if d.strip()):
        steps = load(dataset)
        report = Report(dataset, sum(len(games_of(s)) for s in steps))
        for name in names:
            try:
                row = measure(name, dataset, steps, args.test_fraction, args.whr_refit_days)
            except (ArithmeticError, ValueError) as error:  # a peer library's own failure
                print(f"{dataset} {name}: failed ({type(error).__name__}: {error})",
                      file=sys.stderr, flush=True)
                continue
            report.rows.append(row)
            print(f"{dataset} {name}: log-loss {row.scores.logloss:.4f} "
                  f"({row.games_per_second:,.0f} games/s)", file=sys.stderr, flush=True)
        parts.append(table(report))
        reports.append(report)
    if len(reports) > 1:
        parts.insert(0, summary(reports))
    markdown = "\n".join(parts)
    sys.stdout.write(markdown)
    if args.output is not None:
        args.output.write_text(markdown, encoding="utf-8")


if __name__ == "__main__":
    main()
