"""Every public rating rule cites its source, and every preset's defaults are pinned."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest

import ratings_core
from ratings_core.parameters import describe
from ratings_core.systems import PRESETS, make_system

# Modules that hold machinery rather than rating rules.
MACHINERY = {"model", "table", "parameters", "replay", "system", "systems", "rounding"}
RULE_MODULES = sorted(
    m.name for m in pkgutil.iter_modules(ratings_core.__path__) if m.name not in MACHINERY
)


@pytest.mark.parametrize("module_name", RULE_MODULES)
def test_public_rules_cite_their_source(module_name: str) -> None:
    module = importlib.import_module(f"ratings_core.{module_name}")
    assert "Source" in (module.__doc__ or "") or "seed" in (module.__doc__ or "")
    missing = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj) and "Source:" not in (obj.__doc__ or ""):
            missing.append(name)
        is_system = inspect.isclass(obj) and issubclass(obj, ratings_core.system.RatingSystem)
        if is_system and "Source:" not in (obj.__doc__ or ""):
            missing.append(name)
    assert missing == []


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_parameter_is_documented(name: str) -> None:
    params = make_system(name).params
    assert dataclasses.is_dataclass(params)
    for field, (_, doc) in describe(params).items():
        assert len(doc) > 10, f"{name}.{field} needs a doc line"
