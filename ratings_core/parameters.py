"""Preset parameters: frozen dataclasses whose fields carry a doc string and a source.

``with_overrides`` turns ``--set key=value`` strings into a new parameter set, refusing unknown
names and values of the wrong type with a message that names the parameter.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, TypeVar


class ParameterSet(Protocol):
    """A system's parameters: a frozen dataclass of :func:`param` fields (what the type checker
    needs to know to read and replace its fields)."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]


P = TypeVar("P", bound=ParameterSet)


def param(default: Any, doc: str) -> Any:
    """A parameter field with its default and a one-line reason/source."""
    return dataclasses.field(default=default, metadata={"doc": doc})


def first_move_param(default: float = 0.0) -> Any:
    """The first-move (home) advantage in rating points: see ``RatingSystem.handicap_of``."""
    return param(default, "points the side with the first move (White; the home side) plays "
                          "above its rating (issue 7; fitted values in docs/accuracy.md)")


def describe(params: ParameterSet) -> dict[str, tuple[object, str]]:
    """Each parameter's current value and its documentation line."""
    return {
        f.name: (getattr(params, f.name), str(f.metadata.get("doc", "")))
        for f in dataclasses.fields(params)
    }


def _convert(name: str, text: str, kind: Any) -> object:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        members = [k for k in typing.get_args(kind) if k is not type(None)]
        if text.strip().lower() in ("none", "null", ""):
            return None
        return _convert(name, text, members[0])
    if origin is typing.Literal:
        choices = typing.get_args(kind)
        if text not in choices:
            options = ", ".join(choices)
            raise ValueError(f"parameter {name!r} must be one of {options}, not {text!r}")
        return text
    if kind is bool:
        lowered = text.strip().lower()
        if lowered in ("true", "yes", "1", "on"):
            return True
        if lowered in ("false", "no", "0", "off"):
            return False
        raise ValueError(f"parameter {name!r} must be true or false, not {text!r}")
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"parameter {name!r} must be a whole number, not {text!r}") from None
    if kind is float:
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"parameter {name!r} must be a number, not {text!r}") from None
        if not math.isfinite(value):
            raise ValueError(f"parameter {name!r} must be a finite number, not {text!r}")
        return value
    if kind is str:
        return text
    raise TypeError(f"parameter {name!r} has an unsupported type {kind!r}")


def with_overrides(params: P, overrides: Mapping[str, str]) -> P:
    """A copy of ``params`` with the named fields parsed from text; validation runs again."""
    hints = typing.get_type_hints(type(params))
    known = {f.name for f in dataclasses.fields(params)}
    changes: dict[str, object] = {}
    for name, text in overrides.items():
        if name not in known:
            raise ValueError(
                f"unknown parameter {name!r}; known parameters: {', '.join(sorted(known))}"
            )
        changes[name] = _convert(name, text, hints[name])
    return dataclasses.replace(params, **changes)


def require(condition: bool, name: str, rule: str) -> None:
    """Raise ``ValueError`` naming the parameter when ``condition`` is false."""
    if not condition:
        raise ValueError(f"parameter {name!r} {rule}")
