"""Types of the G-TAMP domain (seed 003, §3.1 and §4.1).

A problem has movable objects O, regions R and doors D. A state is
``s = (P_o1..P_on, U_d1..U_dn, c)``: the stable poses of the movable objects (SE(2) on a region,
plus the support height), whether each door is open, and the robot configuration (the SE(2)
base pose; the arm rests in its home configuration between actions). While the robot holds an
object, that object has no stable pose and the state carries the grasp instead.

A *task action* ``a(delta)`` is an operator name with its discrete parameters (seed Table 1);
a *concrete action* ``a(delta, kappa)`` adds the sampled continuous parameters ``kappa``
(base trajectory, gripper orientation, arm trajectory, placement).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from llm_planner.domains.shapes import Rect

DIRECTIONS: tuple[str, ...] = ("on", "left_of", "right_of", "front_of", "behind_of")
#: operator -> kinds of its discrete parameters (seed Table 1)
OPERATORS: dict[str, tuple[str, ...]] = {
    "pick": ("object",),
    "place": ("object", "direction", "ref"),
    "open": ("door",),
}


class Pose2D(NamedTuple):
    """A robot base pose ``(x, y, theta)`` in the world frame (metres, radians)."""

    x: float
    y: float
    theta: float


@dataclass(frozen=True)
class Shape:
    """``box`` with full sizes ``(sx, sy, sz)`` or ``cylinder`` with ``(radius, height)``."""

    kind: str
    size: tuple[float, ...]

    @property
    def height(self) -> float:
        return self.size[2] if self.kind == "box" else self.size[1]

    @property
    def radius(self) -> float:
        """Radius of the bounding circle of the footprint."""
        if self.kind == "box":
            return 0.5 * math.hypot(self.size[0], self.size[1])
        return self.size[0]


@dataclass(frozen=True)
class RegionSpec:
    """A surface objects stand on, with its predefined robot base pose (seed assumption 2).

    The region frame: ``u`` points away from the robot standing at the base pose (``heading``),
    ``v`` to the robot's left. ``depth`` runs along ``u``, ``width`` along ``v``.
    """

    name: str
    room: str
    center: tuple[float, float]
    heading: float
    depth: float
    width: float
    height: float
    standoff: float = 0.4
    color: tuple[float, float, float, float] = (0.6, 0.45, 0.3, 1.0)

    @property
    def base_pose(self) -> Pose2D:
        d = 0.5 * self.depth + self.standoff
        return Pose2D(self.center[0] - d * math.cos(self.heading),
                      self.center[1] - d * math.sin(self.heading), self.heading)

    def to_local(self, x: float, y: float) -> tuple[float, float]:
        dx, dy = x - self.center[0], y - self.center[1]
        c, s = math.cos(self.heading), math.sin(self.heading)
        return c * dx + s * dy, -s * dx + c * dy

    def to_world(self, u: float, v: float) -> tuple[float, float]:
        c, s = math.cos(self.heading), math.sin(self.heading)
        return self.center[0] + c * u - s * v, self.center[1] + s * u + c * v

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        """Whether ``(x, y)`` lies on the surface, ``margin`` metres inside its edges."""
        u, v = self.to_local(x, y)
        return abs(u) <= 0.5 * self.depth - margin and abs(v) <= 0.5 * self.width - margin


@dataclass(frozen=True)
class DoorSide:
    """Where the robot stands to open a door from one room, and the handle it grasps there."""

    room: str
    base_pose: Pose2D
    handle: tuple[float, float, float]


@dataclass(frozen=True)
class DoorSpec:
    """A sliding door: a panel at ``closed_center`` (blocks the doorway) or ``open_center``."""

    name: str
    size: tuple[float, float, float]
    closed_center: tuple[float, float, float]
    open_center: tuple[float, float, float]
    sides: tuple[DoorSide, ...]

    def side(self, room: str) -> DoorSide | None:
        return next((s for s in self.sides if s.room == room), None)

    def is_open_at(self, position: Sequence[float]) -> bool:
        """Whether a panel at ``position`` is nearer its open place than its closed one."""
        return math.dist(position, self.open_center) < math.dist(position, self.closed_center)


@dataclass(frozen=True)
class RoomSpec:
    name: str
    xmin: float
    ymin: float
    xmax: float
    ymax: float

    def contains(self, x: float, y: float) -> bool:
        return self.xmin <= x <= self.xmax and self.ymin <= y <= self.ymax


@dataclass(frozen=True)
class WallSpec:
    center: tuple[float, float]
    size: tuple[float, float]
    height: float


@dataclass(frozen=True)
class RobotSpec:
    """A holonomic disc base with a torso and one 7-joint arm (the seed's robot uses one arm)."""

    base_radius: float = 0.3
    base_height: float = 0.3
    torso_size: tuple[float, float, float] = (0.24, 0.3, 0.9)
    shoulder: tuple[float, float, float] = (0.05, -0.2, 1.1)
    upper_arm: float = 0.45
    forearm: float = 0.4
    tool: float = 0.12
    home: tuple[float, ...] = (0.0, -1.75, 0.0, 3.0, 0.0, -1.25, 0.0)
    pitch_range: tuple[float, float] = (0.0, math.radians(45.0))
    yaw_range: tuple[float, float] = (math.radians(-60.0), math.radians(60.0))


@dataclass(frozen=True)
class LayoutSpec:
    """The static part of a scene: rooms, walls, regions, doors and the robot model."""

    name: str
    rooms: tuple[RoomSpec, ...]
    walls: tuple[WallSpec, ...]
    regions: tuple[RegionSpec, ...]
    doors: tuple[DoorSpec, ...]
    robot: RobotSpec = field(default_factory=RobotSpec)
    waypoints: tuple[tuple[float, float], ...] = ()

    def region(self, name: str) -> RegionSpec:
        for r in self.regions:
            if r.name == name:
                return r
        raise KeyError(name)

    def room_of(self, x: float, y: float) -> str:
        for room in self.rooms:
            if room.contains(x, y):
                return room.name
        return ""


@dataclass(frozen=True)
class ObjectSpec:
    """A movable object and its predefined grasp point (seed assumption 3), in its own frame."""

    name: str
    shape: Shape
    color: tuple[float, float, float, float] = (0.8, 0.2, 0.2, 1.0)
    grasp_offset: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class ObjPose:
    """Stable pose of a movable object: centre ``(x, y, z)``, ``yaw``, and the supporting region."""

    x: float
    y: float
    z: float
    yaw: float
    region: str


@dataclass(frozen=True, slots=True)
class Grasp:
    """How a held object sits in the gripper: sampled pitch/yaw and the tool-to-object transform."""

    pitch: float
    yaw: float
    tool_pos: tuple[float, float, float]
    tool_orn: tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class GState:
    """A geometric state (seed §3.1). Immutable and hashable: the search trees and caches key on it."""

    base: Pose2D
    poses: tuple[ObjPose | None, ...]
    held: int | None = None
    grasp: Grasp | None = None
    doors_open: tuple[bool, ...] = ()

    def with_pose(self, index: int, pose: ObjPose | None) -> GState:
        poses = list(self.poses)
        poses[index] = pose
        return replace(self, poses=tuple(poses))


@dataclass(frozen=True)
class GoalAtom:
    """``(AtPosition, obj, direction, ref)``; ``ref`` is a region when ``direction == 'on'``."""

    obj: str
    direction: str
    ref: str

    def __str__(self) -> str:
        return f"(AtPosition, {self.obj}, {self.direction}, {self.ref})"


class TaskAction(NamedTuple):
    """A discrete action ``a(delta)``, e.g. ``TaskAction('place', ('salter', 'on', 'counter2'))``."""

    op: str
    args: tuple[str, ...]

    @classmethod
    def of(cls, op: str, *args: str) -> TaskAction:
        """``TaskAction.of('place', 'salter', 'on', 'counter2')``."""
        return cls(op, tuple(args))

    def __str__(self) -> str:
        """``place(salter, on, counter2)``: the step format of every graph, message and report."""
        return f"{self.op}({', '.join(self.args)})"

    def literal(self) -> str:
        """The step as the seed's prompts write plans, a tuple literal: ``('pick', 'bottle3')``
        (seed 003, §4.1 and the prompt examples); only prompts use it."""
        return "(" + ", ".join(repr(x) for x in (self.op, *self.args)) + ")"


@dataclass(frozen=True, eq=False)
class Kappa:
    """Continuous parameters of one sampled action (seed Table 1).

    ``base_path``: the base trajectory tau_nav; ``arm_path``: the arm trajectory tau_g (home to
    the IK solution, linearly interpolated); ``grasp``: sampled gripper orientation (PICK) or the
    kept one (PLACE); ``place_pose``: the sampled placement (PLACE). Compared by identity: two
    samples are two different children of a continuous node.
    """

    base_path: tuple[Pose2D, ...]
    arm_path: tuple[tuple[float, ...], ...]
    grasp: Grasp | None = None
    place_pose: ObjPose | None = None


@dataclass(frozen=True, eq=False)
class ConcreteAction:
    """``a(delta, kappa)``: a task action with sampled continuous parameters (None: infeasible)."""

    action: TaskAction
    kappa: Kappa | None
    reason: str = ""

    @property
    def feasible(self) -> bool:
        return self.kappa is not None

    def __str__(self) -> str:
        return str(self.action) if self.feasible else f"{self.action} [infeasible: {self.reason}]"


@dataclass(frozen=True)
class ProblemSpec:
    """One G-TAMP problem instance (O, R, D, s0, G, h) with its time budget."""

    name: str
    layout: LayoutSpec
    objects: tuple[ObjectSpec, ...]
    initial: GState
    goal: tuple[GoalAtom, ...]
    description: str = ""
    challenge: str = ""
    time_budget_s: float = 300.0

    def obj_index(self, name: str) -> int:
        for i, o in enumerate(self.objects):
            if o.name == name:
                return i
        raise KeyError(name)

    @property
    def object_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.objects)

    @property
    def region_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.layout.regions)

    @property
    def door_names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.layout.doors)

    def with_goal(self, goal: tuple[GoalAtom, ...]) -> ProblemSpec:
        return replace(self, goal=goal)

    def with_initial(self, state: GState) -> ProblemSpec:
        return replace(self, initial=state)


def region_rect(region: RegionSpec) -> Rect:
    """The footprint of a region in the plane."""
    return Rect(region.center[0], region.center[1], region.heading, region.depth / 2.0, region.width / 2.0)


def object_rect(shape: Shape, pose: ObjPose) -> Rect:
    """The footprint of an object (a box, or the square around a cylinder) at a pose."""
    if shape.kind == "box":
        return Rect(pose.x, pose.y, pose.yaw, shape.size[0] / 2.0, shape.size[1] / 2.0)
    return Rect(pose.x, pose.y, 0.0, shape.size[0], shape.size[0])
