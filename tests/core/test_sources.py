"""Every public rating rule cites its source, and every preset's defaults are pinned."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
from pathlib import Path

import pytest

import ratings_core
from ratings_core.parameters import describe
from ratings_core.systems import PRESETS, make_system

# Modules that hold machinery rather than rating rules.
MACHINERY = {"model", "table", "parameters", "replay", "system", "systems", "rounding"}
SOURCES = Path(ratings_core.__file__).parent
# by their source files: a module compiled by mypyc (inlined) keeps no docstrings
RULE_MODULES = sorted(path.stem for path in SOURCES.glob("*.py")
                      if path.stem not in MACHINERY and path.stem != "__init__")


@pytest.mark.parametrize("module_name", RULE_MODULES)
def test_public_rules_cite_their_source(module_name: str) -> None:
    tree = ast.parse((SOURCES / f"{module_name}.py").read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree) or ""
    assert "Source" in doc or "seed" in doc
    missing = [node.name for node in tree.body
               if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
               and "Source:" not in (ast.get_docstring(node) or "")]
    module = importlib.import_module(f"ratings_core.{module_name}")
    for name, obj in vars(module).items():
        is_system = inspect.isclass(obj) and issubclass(obj, ratings_core.system.RatingSystem)
        if is_system and obj.__module__ == module.__name__ and "Source:" not in (obj.__doc__
                                                                                 or ""):
            missing.append(name)
    assert missing == []


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_parameter_is_documented(name: str) -> None:
    params = make_system(name).params
    assert dataclasses.is_dataclass(params)
    for field, (_, doc) in describe(params).items():
        assert len(doc) > 10, f"{name}.{field} needs a doc line"
