"""Every parameter of every rating system has bounds for what people type (issue 15).

The bounds are data in each field's metadata and are named in its doc. A typed value outside
them is found by ``out_of_bounds``; stored parameters are never held to them (``make_system``
and ``with_overrides`` load what a club's log holds, as before).
"""

from __future__ import annotations

import dataclasses
import math
import typing
from datetime import datetime

import pytest

from ratings_core.elo import ClassicElo, EloParams
from ratings_core.model import Game, RatingPeriod
from ratings_core.parameters import (
    FIRST_MOVE_LIMIT,
    Bounds,
    ParameterSet,
    bounds,
    describe,
    out_of_bounds,
    with_overrides,
)
from ratings_core.replay import replay
from ratings_core.systems import MAIN_PARAMETERS, PRESETS, make_system, preset_params

DAY0 = datetime(2024, 1, 1, 19, 0)
FIELDS = [(name, f.name) for name, cls in PRESETS.items()
          for f in dataclasses.fields(preset_params(cls()))]


def params_of(system: str) -> ParameterSet:
    return preset_params(make_system(system))


def bound(system: str, name: str) -> Bounds:
    return bounds(params_of(system))[name]


def text_of(value: float, whole: bool) -> str:
    return str(int(value)) if whole else repr(float(value))


@pytest.mark.parametrize(("system", "name"), FIELDS, ids=[f"{s}.{n}" for s, n in FIELDS])
def test_every_parameter_has_bounds_or_choices(system: str, name: str) -> None:
    params = params_of(system)
    kind = typing.get_type_hints(type(params))[name]
    if typing.get_origin(kind) is typing.Literal:  # its choices are its bounds
        assert name not in bounds(params)
        return
    limit = bounds(params)[name]
    assert math.isfinite(limit.low) and math.isfinite(limit.high) and limit.low < limit.high
    assert limit.whole == (int in (typing.get_args(kind) or (kind,)))
    doc = describe(params)[name][1]
    assert doc.endswith(f"; from {limit.low:g} to {limit.high:g}")


@pytest.mark.parametrize(("system", "name"), FIELDS, ids=[f"{s}.{n}" for s, n in FIELDS])
def test_the_presets_default_lies_within_its_bounds(system: str, name: str) -> None:
    params = params_of(system)
    limit = bounds(params).get(name)
    if limit is not None:
        assert limit.holds(getattr(params, name))


@pytest.mark.parametrize(("system", "name"), FIELDS, ids=[f"{s}.{n}" for s, n in FIELDS])
def test_just_outside_is_refused_and_just_inside_taken(system: str, name: str) -> None:
    params = params_of(system)
    limit = bounds(params).get(name)
    if limit is None:
        return
    if limit.whole:
        outside = [limit.low - 1, limit.high + 1]
    else:
        outside = [math.nextafter(limit.low, -math.inf), math.nextafter(limit.high, math.inf)]
    for value in outside:
        text = text_of(value, limit.whole)
        assert out_of_bounds(params, {name: text}) == (limit, text)
    for value in (limit.low, limit.high):
        assert out_of_bounds(params, {name: text_of(value, limit.whole)}) is None


def test_the_examples_of_issue_15() -> None:
    assert bound("club", "k") == Bounds("k", 1, 400)
    assert bound("club", "base") == Bounds("base", 0, 4000)
    assert bound("club", "provisional_games") == Bounds("provisional_games", 0, 100, whole=True)
    assert bound("elo", "floor") == Bounds("floor", 0, 4000, optional=True)
    assert bound("elo", "veteran_games") == Bounds("veteran_games", 0, 1000, whole=True,
                                                   optional=True)
    for system in ("club", "elo", "asymmetric", "glicko", "glicko2"):
        assert bound(system, "first_move_advantage") == Bounds(
            "first_move_advantage", -FIRST_MOVE_LIMIT, FIRST_MOVE_LIMIT)
    club = params_of("club")
    assert out_of_bounds(club, {"k": "1e308"}) == (bound("club", "k"), "1e308")
    assert out_of_bounds(club, {"base": "1500", "k": "0"}) == (bound("club", "k"), "0")
    assert out_of_bounds(club, {"k": "24", "base": "2000"}) is None
    assert out_of_bounds(params_of("elo"), {"floor": "none", "veteran_games": "None"}) is None
    assert out_of_bounds(params_of("elo"), {"curve": "normal"}) is None


def test_unknown_names_and_wrong_types_are_refused_as_before() -> None:
    club = params_of("club")
    with pytest.raises(ValueError, match="unknown parameter 'kk'"):
        out_of_bounds(club, {"kk": "3"})
    with pytest.raises(ValueError, match="parameter 'k' must be a number, not 'abc'"):
        out_of_bounds(club, {"k": "abc"})
    with pytest.raises(ValueError, match="must be a finite number"):
        out_of_bounds(club, {"k": "inf"})
    with pytest.raises(ValueError, match="must be a whole number"):
        out_of_bounds(club, {"provisional_games": "2.5"})


@pytest.mark.parametrize("system", sorted(MAIN_PARAMETERS))
def test_every_value_the_tuner_tries_lies_within_the_bounds(system: str) -> None:
    parameter, candidates = MAIN_PARAMETERS[system]
    for value in candidates:
        assert bound(system, parameter).holds(value)


def test_stored_parameters_are_never_held_to_the_bounds() -> None:
    # A ladder created before the bounds (k=1e6 in its log) loads and rates as it always did.
    stored = {"k": "1e6", "veteran_games": "5000", "floor": "-50"}
    system = make_system("elo", stored)
    expected = ClassicElo(EloParams(k=1e6, veteran_games=5000, floor=-50.0))
    assert system.params == expected.params
    assert with_overrides(EloParams(), stored) == expected.params
    steps = [RatingPeriod((Game("a", "b", 1.0, DAY0), Game("c", "b", 0.5, DAY0)))]
    assert replay(system, steps).final == replay(expected, steps).final
    assert replay(system, steps).final.players["a"].rating == 1600 + 1e6 / 2
    assert out_of_bounds(EloParams(), stored) == (bound("elo", "k"), "1e6")
