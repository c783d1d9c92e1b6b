"""A JSON codec of the G-TAMP dataclasses (no ROS): how a concrete action travels as text.

The codec is generic over a fixed registry of types (``ConcreteAction``, ``TaskAction``,
``Kappa``, ``Grasp``, ``ObjPose``, ``Pose2D``, ``GState``, ``GoalAtom``): an instance becomes
``{"__type__": NAME, field: value, ...}``, tuples become lists and back. Decoding only builds
types of the registry from plain JSON (``json.loads``; nothing is ever evaluated), and a
malformed text raises :class:`GTampCodecError` saying what was wrong.

    text = encode(concrete_action)          # the robot/skill request's args[0]
    action = decode(text, ConcreteAction)   # the same action, field by field
"""
from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, TypeVar

from llm_planner.domains.gtamp.domain import ConcreteAction, GoalAtom, Grasp, GState, Kappa, ObjPose, Pose2D, TaskAction
from llm_planner.errors import LlmPlannerError

T = TypeVar("T")
_TYPES: dict[str, type[Any]] = {t.__name__: t for t in
                           (ConcreteAction, TaskAction, Kappa, Grasp, ObjPose, Pose2D, GState, GoalAtom)}


class GTampCodecError(LlmPlannerError):
    """A G-TAMP JSON text or message that cannot be decoded."""


# ------------------------------------------------------------------------------ codec
def to_jsonable(value: Any) -> Any:
    """Plain JSON data for a registered dataclass / NamedTuple (recursively), tuple, number or string."""
    name = type(value).__name__
    if name in _TYPES and isinstance(value, _TYPES[name]):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)} \
            if dataclasses.is_dataclass(value) else value._asdict()  # else a NamedTuple
        return {"__type__": name, **{k: to_jsonable(v) for k, v in fields.items()}}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise GTampCodecError(f"cannot encode the non-finite number {value!r}")
        return value
    raise GTampCodecError(f"cannot encode a {type(value).__name__} (known types: {', '.join(_TYPES)})")


def from_jsonable(data: Any) -> Any:
    """The inverse of :func:`to_jsonable`: lists become tuples, tagged objects registered types."""
    if isinstance(data, list):
        return tuple(from_jsonable(v) for v in data)
    if isinstance(data, dict):
        name = data.get("__type__")
        if name not in _TYPES:
            raise GTampCodecError(f"unknown or missing __type__ {name!r} (known: {', '.join(_TYPES)})")
        cls = _TYPES[name]
        names = tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else cls._fields
        extra = set(data) - set(names) - {"__type__"}
        if extra:
            raise GTampCodecError(f"{name}: unknown field(s) {', '.join(sorted(extra))}")
        try:
            return cls(**{k: from_jsonable(v) for k, v in data.items() if k != "__type__"})
        except TypeError as exc:
            raise GTampCodecError(f"{name}: {exc}") from None
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    raise GTampCodecError(f"unexpected JSON value {data!r}")


def encode(value: Any) -> str:
    """JSON text of a G-TAMP value (e.g. a ConcreteAction)."""
    return json.dumps(to_jsonable(value), separators=(",", ":"))


def _refuse_constant(name: str) -> float:
    raise GTampCodecError(f"non-finite number {name} (poses and paths must be finite)")


def decode(text: str, expected: type[T]) -> T:
    """The value of ``expected`` type encoded in ``text``; GTampCodecError when it is not one."""
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
        value = from_jsonable(data)
    except (json.JSONDecodeError, TypeError) as exc:
        raise GTampCodecError(f"not JSON: {exc}") from None
    except RecursionError:
        raise GTampCodecError("the JSON is nested too deeply") from None
    if not isinstance(value, expected):
        raise GTampCodecError(f"expected a {expected.__name__}, got {type(value).__name__}")
    return value
