"""What the simulator's sensors report, as plain data (no PyBullet): body poses and axis-aligned
bounding boxes, door joint angles, and what the gripper is attached to.

This is the only input of perception (:mod:`llm_planner.domains.household.sim.perception`) and what the simulator
node publishes (``msg/GeometrySnapshot.msg``). It carries no symbolic bookkeeping: which object
is in which container is for perception to work out from the boxes.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # x, y, z, w


def vec3(values: Iterable[float]) -> Vec3:
    """Three numbers as a :data:`Vec3` (PyBullet and numpy answer lists and arrays; fewer or more
    than three values raise ``ValueError``)."""
    x, y, z = values
    return (x, y, z)


def aabb(corners: Iterable[Iterable[float]]) -> tuple[Vec3, Vec3]:
    """An axis-aligned box (lowest corner, highest corner) as two :data:`Vec3` (e.g. from ``p.getAABB``)."""
    lo, hi = corners
    return vec3(lo), vec3(hi)


def quat(values: Iterable[float]) -> Quat:
    """Four numbers (x, y, z, w) as a :data:`Quat`; fewer or more raise ``ValueError``."""
    x, y, z, w = values
    return (x, y, z, w)

#: Body types of a snapshot (objects carry their object type, e.g. ``apple``, in ``type``).
WALL = "wall"
ROBOT = "robot"


@dataclass(frozen=True)
class BodyGeometry:
    """One body in the map frame. ``type`` is ``container``/``surface`` for furniture, the object
    type (``apple``) for movable objects, ``wall`` for walls."""

    name: str
    type: str
    position: Vec3
    orientation: Quat
    aabb_min: Vec3
    aabb_max: Vec3

    @property
    def yaw(self) -> float:
        return yaw_of(self.orientation)

    @property
    def aabb_center(self) -> Vec3:
        return vec3((lo + hi) / 2.0 for lo, hi in zip(self.aabb_min, self.aabb_max, strict=True))


@dataclass(frozen=True)
class JointGeometry:
    """A joint the sensors report. Household: a container's door, ``name`` ``<container>/<joint>``
    (e.g. ``fridge/door``), ``position`` in metres for the sliding doors, 0 = closed; past
    ``open_threshold`` the container is open. G-TAMP: ``grasp_pitch`` and ``grasp_yaw``, the
    gripper orientation of the current grasp in radians (threshold 0, not a door)."""

    name: str
    position: float
    open_threshold: float

    @property
    def body(self) -> str:
        """The furniture the joint belongs to (the part of the name before ``/``)."""
        return self.name.split("/", 1)[0]

    @property
    def is_open(self) -> bool:
        return self.position > self.open_threshold


@dataclass(frozen=True)
class GeometrySnapshot:
    scene: str
    robot_position: Vec3
    robot_orientation: Quat
    held_object: str | None
    bodies: list[BodyGeometry] = field(default_factory=list)
    joints: list[JointGeometry] = field(default_factory=list)

    @property
    def robot_yaw(self) -> float:
        return yaw_of(self.robot_orientation)

    def body(self, name: str) -> BodyGeometry:
        for b in self.bodies:
            if b.name == name:
                return b
        raise KeyError(name)


def yaw_of(q: Quat) -> float:
    """Rotation about z of an xyzw quaternion."""
    x, y, z, w = q
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def quat_from_yaw(yaw: float) -> Quat:
    return (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))
