"""Conversions for the G-TAMP nodes: a JSON codec of the G-TAMP dataclasses, and messages.

The codec is generic over a fixed registry of types (``ConcreteAction``, ``TaskAction``,
``Kappa``, ``Grasp``, ``ObjPose``, ``Pose2D``, ``GState``, ``GoalAtom``): an instance becomes
``{"__type__": NAME, field: value, ...}``, tuples become lists and back. Decoding only builds
types of the registry from plain JSON (``json.loads``; nothing is ever evaluated), and a
malformed text raises :class:`GTampCodecError` saying what was wrong.

    text = encode(concrete_action)          # RobotSkill args[0]
    action = decode(text, ConcreteAction)   # the same action, field by field
"""
from __future__ import annotations

import dataclasses
import json
import math
from typing import Any, Iterable, Sequence, TypeVar

from geometry_msgs.msg import Pose
from llm_planner_interfaces.msg import ObjectPose, PerceivedState, Predicate

from llm_planner.errors import LlmPlannerError
from llm_planner.ros.conversions import make_pose, make_vector
from llm_planner.gtamp.domain import (ConcreteAction, GoalAtom, Grasp, GState, Kappa, ObjPose, Pose2D,
                                      ProblemSpec, TaskAction)

T = TypeVar("T")
ROBOT = "robot"
#: the predicate perception uses to report the grasp of the held object (pitch, yaw, tool->object transform)
GRASP_PREDICATE = "HeldGrasp"
#: the robot's proprioceptive joints on /sim/geometry (the gripper orientation of the current grasp)
GRASP_JOINTS = ("grasp_pitch", "grasp_yaw")

_TYPES: dict[str, type] = {t.__name__: t for t in
                           (ConcreteAction, TaskAction, Kappa, Grasp, ObjPose, Pose2D, GState, GoalAtom)}


class GTampCodecError(LlmPlannerError):
    """A G-TAMP JSON text or message that cannot be decoded."""


# ------------------------------------------------------------------------------ codec
def to_jsonable(value: Any) -> Any:
    """Plain JSON data for a registered dataclass / NamedTuple (recursively), tuple, number or string."""
    name = type(value).__name__
    if name in _TYPES and isinstance(value, _TYPES[name]):
        fields = value._asdict() if isinstance(value, tuple) else {
            f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
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
        names = cls._fields if issubclass(cls, tuple) else tuple(f.name for f in dataclasses.fields(cls))
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


# ------------------------------------------------------------------------- messages
def yaw_of(pose: Pose) -> float:
    """Yaw of a message pose (rotation about z)."""
    o = pose.orientation
    return math.atan2(2.0 * (o.w * o.z + o.x * o.y), 1.0 - 2.0 * (o.y * o.y + o.z * o.z))


def _floats(args: Sequence[str], where: str) -> tuple[float, ...]:
    try:
        return tuple(float(a) for a in args)
    except ValueError:
        raise GTampCodecError(f"{where}: expected numbers, got {list(args)!r}") from None


def grasp_predicate(obj: str, grasp: Grasp) -> Predicate:
    """The held object's grasp as a predicate (floats as ``repr`` text: exact round trip)."""
    values = (grasp.pitch, grasp.yaw, *grasp.tool_pos, *grasp.tool_orn)
    return Predicate(name=GRASP_PREDICATE, args=[obj, *(repr(float(v)) for v in values)])


def predicates_to_msgs(facts: Iterable[Sequence[str]]) -> list[Predicate]:
    """``('AtPosition', 'salter', 'on', 'counter2')`` -> Predicate(name, args)."""
    return [Predicate(name=f[0], args=[str(a) for a in f[1:]]) for f in facts]


def facts_of(msg: PerceivedState) -> set[tuple[str, ...]]:
    """The predicates of a perception message as tuples."""
    return {(p.name, *p.args) for p in msg.predicates}


def goal_holds(msg: PerceivedState, goal: Iterable[GoalAtom]) -> bool:
    """Whether every goal atom is among the perceived AtPosition predicates."""
    facts = facts_of(msg)
    return all(("AtPosition", a.obj, a.direction, a.ref) in facts for a in goal)


def state_from_perceived(msg: PerceivedState, problem: ProblemSpec) -> GState:
    """The perceived GState of a /perception/state message: object poses (regions from
    ``AtPosition .. on``), the robot's base, closed doors (``IsClosed``), the held object and its grasp."""
    facts = facts_of(msg)
    bodies = {o.name: o for o in msg.objects}
    if ROBOT not in bodies:
        raise GTampCodecError("perception message without the robot's pose")
    on = {f[1]: f[3] for f in facts if f[0] == "AtPosition" and len(f) == 4 and f[2] == "on"}
    held_name = next((f[1] for f in facts if f[0] == "RobotHolding" and len(f) == 2), None)
    poses: list[ObjPose | None] = []
    for name in problem.object_names:
        if name == held_name:
            poses.append(None)
            continue
        if name not in bodies:
            raise GTampCodecError(f"perception message without the pose of {name!r}")
        b = bodies[name].pose
        poses.append(ObjPose(b.position.x, b.position.y, b.position.z, yaw_of(b), on.get(name, "")))
    r = bodies[ROBOT].pose
    base = Pose2D(r.position.x, r.position.y, yaw_of(r))
    closed = {f[1] for f in facts if f[0] == "IsClosed" and len(f) == 2}
    doors = tuple(d not in closed for d in problem.door_names)
    held = problem.obj_index(held_name) if held_name else None
    grasp = None
    if held_name:
        g = next((f for f in facts if f[0] == GRASP_PREDICATE and len(f) == 11 and f[1] == held_name), None)
        if g is None:
            raise GTampCodecError(f"the robot holds {held_name!r} but perception reports no grasp")
        v = _floats(g[2:], GRASP_PREDICATE)
        grasp = Grasp(v[0], v[1], v[2:5], v[5:9])
    return GState(base, tuple(poses), held, grasp, doors)


def object_pose_msg(name: str, type_: str, pose: Pose, aabb: tuple[Sequence[float], Sequence[float]]) -> ObjectPose:
    msg = ObjectPose(name=name, type=type_, pose=pose)
    msg.aabb_min, msg.aabb_max = make_vector(aabb[0]), make_vector(aabb[1])
    return msg


def goal_to_json(goal: Iterable[GoalAtom]) -> str:
    """The ExecuteTask/PlanTask goal field of a G-TAMP goal: ``[["AtPosition", obj, dir, ref], ...]``."""
    return json.dumps([["AtPosition", a.obj, a.direction, a.ref] for a in goal])


def goal_from_json(text: str, problem: ProblemSpec) -> tuple[GoalAtom, ...]:
    """The goal atoms of :func:`goal_to_json`'s text, checked against the problem's names."""
    from llm_planner.gtamp.problems import parse_goal

    try:
        items = json.loads(text)
    except (json.JSONDecodeError, TypeError) as exc:
        raise GTampCodecError(f"goal is not JSON: {exc}") from None
    if not isinstance(items, list):
        raise GTampCodecError("the goal must be a JSON list of [\"AtPosition\", object, direction, reference]")
    atoms = []
    for item in items:
        if not (isinstance(item, list) and len(item) == 4 and item[0] == "AtPosition"):
            raise GTampCodecError(f"goal atom {item!r} must be [\"AtPosition\", object, direction, reference]")
        atoms.append(item[1:])
    return parse_goal(problem, atoms, where="goal")
