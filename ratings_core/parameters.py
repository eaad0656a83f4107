"""Preset parameters: frozen dataclasses whose fields carry a doc string, a source and bounds.

``with_overrides`` turns ``--set key=value`` strings into a new parameter set, refusing unknown
names and values of the wrong type with a message that names the parameter.

Every numeric parameter has bounds (:class:`Bounds`, kept in the field's metadata and named in
its doc): the values a person may type for it. :func:`out_of_bounds` finds a typed value outside
them. Only what people type is held to the bounds: ``with_overrides`` never checks them, so a
parameter stored before (a club's log) loads and rates exactly as it did.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar


class ParameterSet(Protocol):
    """A system's parameters: a frozen dataclass of :func:`param` fields (what the type checker
    needs to know to read and replace its fields)."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]


P = TypeVar("P", bound=ParameterSet)


#: the largest first-move advantage either way, in rating points: the chat's handicap rule (the
#: largest handicap, ``bot.service.parsing.MAX_HANDICAP``), as the advantage is a handicap
FIRST_MOVE_LIMIT = 1000.0


@dataclass(frozen=True, slots=True)
class Bounds:
    """The values a person may type for a numeric parameter: from ``low`` to ``high``, both
    included; ``whole``: whole numbers only (an ``int`` parameter); ``optional``: or none."""

    name: str
    low: float
    high: float
    whole: bool = False
    optional: bool = False

    def holds(self, value: object) -> bool:
        if value is None:
            return self.optional
        return isinstance(value, int | float) and self.low <= value <= self.high


def param(default: Any, doc: str, *, low: float | None = None,
          high: float | None = None) -> Any:
    """A parameter field with its default, a one-line reason/source and, for a number, the
    bounds of what people may type (named at the end of its doc)."""
    metadata: dict[str, Any] = {"doc": doc}
    if low is not None and high is not None:
        if not low <= high:
            raise ValueError(f"bounds {low:g}..{high:g} are empty")
        metadata.update(doc=f"{doc}; from {low:g} to {high:g}", low=low, high=high)
    elif low is not None or high is not None:
        raise ValueError("a parameter's bounds need both low and high")
    return dataclasses.field(default=default, metadata=metadata)


def first_move_param(default: float = 0.0) -> Any:
    """The first-move (home) advantage in rating points: see ``RatingSystem.handicap_of``."""
    return param(default, "points the side with the first move (White; the home side) plays "
                          "above its rating (issue 7; fitted values in docs/accuracy.md)",
                 low=-FIRST_MOVE_LIMIT, high=FIRST_MOVE_LIMIT)


def describe(params: ParameterSet) -> dict[str, tuple[object, str]]:
    """Each parameter's current value and its documentation line."""
    return {
        f.name: (getattr(params, f.name), str(f.metadata.get("doc", "")))
        for f in dataclasses.fields(params)
    }


def bounds(params: ParameterSet | type[ParameterSet]) -> dict[str, Bounds]:
    """Each numeric parameter's bounds, by name (a parameter of choices, e.g. a ``Literal``, has
    its choices instead)."""
    hints = typing.get_type_hints(params if isinstance(params, type) else type(params))
    found = {}
    for f in dataclasses.fields(params):
        if "low" not in f.metadata:
            continue
        kinds = typing.get_args(hints[f.name]) or (hints[f.name],)
        found[f.name] = Bounds(f.name, f.metadata["low"], f.metadata["high"],
                               whole=int in kinds, optional=type(None) in kinds)
    return found


def out_of_bounds(params: ParameterSet, overrides: Mapping[str, str]) -> tuple[Bounds, str] | None:
    """The first typed value outside its parameter's bounds, as the bounds it violates and the
    text typed; None when every value lies within. For what people type (chat, command line),
    never for stored parameters. Unknown names and values of the wrong type raise
    ``ValueError`` as in :func:`with_overrides`."""
    limits = bounds(params)
    for name, value in _converted(params, overrides).items():
        limit = limits.get(name)
        if limit is not None and not limit.holds(value):
            return limit, overrides[name]
    return None


class ParameterError(ValueError):
    """A parameter typed wrong, said in English (``str``) and as data for whoever words it
    otherwise: ``problem`` is ``unknown`` (no such parameter; ``expected`` the known ones),
    ``choice`` (``expected`` the choices), ``boolean``, ``whole`` or ``number`` (the value is
    not one), with the parameter's ``name`` and the ``text`` typed."""

    def __init__(self, message: str, problem: str, name: str, text: str,
                 expected: str = "") -> None:
        super().__init__(message)
        self.problem, self.name, self.text, self.expected = problem, name, text, expected


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
            raise ParameterError(f"parameter {name!r} must be one of {options}, not {text!r}",
                                 "choice", name, text, options)
        return text
    if kind is bool:
        lowered = text.strip().lower()
        if lowered in ("true", "yes", "1", "on"):
            return True
        if lowered in ("false", "no", "0", "off"):
            return False
        raise ParameterError(f"parameter {name!r} must be true or false, not {text!r}",
                             "boolean", name, text)
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise ParameterError(f"parameter {name!r} must be a whole number, not {text!r}",
                                 "whole", name, text) from None
    if kind is float:
        try:
            value = float(text)
        except ValueError:
            raise ParameterError(f"parameter {name!r} must be a number, not {text!r}",
                                 "number", name, text) from None
        if not math.isfinite(value):
            raise ParameterError(f"parameter {name!r} must be a finite number, not {text!r}",
                                 "number", name, text)
        return value
    if kind is str:
        return text
    raise TypeError(f"parameter {name!r} has an unsupported type {kind!r}")


def _converted(params: ParameterSet, overrides: Mapping[str, str]) -> dict[str, object]:
    """The named fields' values parsed from text, refusing unknown names and wrong types."""
    hints = typing.get_type_hints(type(params))
    known = {f.name for f in dataclasses.fields(params)}
    changes: dict[str, object] = {}
    for name, text in overrides.items():
        if name not in known:
            names = ", ".join(sorted(known))
            raise ParameterError(f"unknown parameter {name!r}; known parameters: {names}",
                                 "unknown", name, text, names)
        changes[name] = _convert(name, text, hints[name])
    return changes


def with_overrides(params: P, overrides: Mapping[str, str]) -> P:
    """A copy of ``params`` with the named fields parsed from text; validation runs again.

    The bounds are not checked here (see :func:`out_of_bounds`): stored parameters load as
    they were."""
    return dataclasses.replace(params, **_converted(params, overrides))


def require(condition: bool, name: str, rule: str) -> None:
    """Raise ``ValueError`` naming the parameter when ``condition`` is false."""
    if not condition:
        raise ValueError(f"parameter {name!r} {rule}")
