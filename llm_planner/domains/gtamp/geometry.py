"""Small rigid-body helpers shared by the loader, the operators and the simulator (pure math:
PyBullet's transform functions need no physics client)."""
from __future__ import annotations

import math
from collections.abc import Sequence

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.gtamp.domain import (
    GoalAtom,
    Grasp,
    GState,
    ObjectSpec,
    ObjPose,
    ProblemSpec,
    RegionSpec,
    Shape,
)

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


def gripper_orn(heading: float, pitch: float, yaw: float) -> Quat:
    """Gripper orientation: approach axis (tool x) yawed ``heading + yaw``, tilted down by ``pitch``."""
    return tuple(p.getQuaternionFromEuler([0.0, pitch, heading + yaw]))


def grasp_point(spec: ObjectSpec, pose: ObjPose) -> Vec3:
    """World position of the object's predefined grasp point (seed assumption 3)."""
    ox, oy, oz = spec.grasp_offset
    c, s = math.cos(pose.yaw), math.sin(pose.yaw)
    return (pose.x + c * ox - s * oy, pose.y + s * ox + c * oy, pose.z + oz)


def make_grasp(spec: ObjectSpec, pose: ObjPose, heading: float, pitch: float, yaw: float) -> tuple[Grasp, Vec3, Quat]:
    """The grasp of an upright object at ``pose`` with a gripper at (pitch, yaw) relative to the base
    heading; returns the grasp and the world tool pose (position, orientation)."""
    tool_pos = grasp_point(spec, pose)
    tool_orn = gripper_orn(heading, pitch, yaw)
    inv_pos, inv_orn = p.invertTransform(tool_pos, tool_orn)
    rel_pos, rel_orn = p.multiplyTransforms(inv_pos, inv_orn, (pose.x, pose.y, pose.z),
                                            p.getQuaternionFromEuler([0.0, 0.0, pose.yaw]))
    return Grasp(pitch, yaw, tuple(rel_pos), tuple(rel_orn)), tool_pos, tool_orn


def tool_for_object(grasp: Grasp, pose: ObjPose) -> tuple[Vec3, Quat]:
    """Tool pose that puts the held object at ``pose`` (the inverse of the grasp transform)."""
    inv_pos, inv_orn = p.invertTransform(grasp.tool_pos, grasp.tool_orn)
    pos, orn = p.multiplyTransforms((pose.x, pose.y, pose.z), p.getQuaternionFromEuler([0.0, 0.0, pose.yaw]),
                                    inv_pos, inv_orn)
    return tuple(pos), tuple(orn)


def footprint_half(shape: Shape, yaw_in_region: float) -> tuple[float, float]:
    """Half extents of an upright object's footprint along the region's (u, v) axes."""
    if shape.kind != "box":
        return shape.size[0], shape.size[0]
    hx, hy = 0.5 * shape.size[0], 0.5 * shape.size[1]
    c, s = abs(math.cos(yaw_in_region)), abs(math.sin(yaw_in_region))
    return c * hx + s * hy, s * hx + c * hy


def wrap(angle: float) -> float:
    return math.remainder(angle, 2 * math.pi)


def interpolate(a: Sequence[float], b: Sequence[float], max_step: float) -> list[tuple[float, ...]]:
    """Configurations from ``a`` to ``b`` (both included), no coordinate moving more than ``max_step``."""
    n = max(1, math.ceil(max(abs(y - x) for x, y in zip(a, b, strict=True)) / max_step)) if len(a) else 1
    return [tuple(x + (y - x) * k / n for x, y in zip(a, b, strict=True)) for k in range(n + 1)]


#: how far (beyond touching) an object may be from its reference and still be "left of" it, etc.
NEAR_GAP = 0.25
#: tolerance on the height of an object resting on a surface
SUPPORT_TOL = 0.03


def supported_by(region: RegionSpec, pose: ObjPose, height: float) -> bool:
    """Whether an upright object at ``pose`` rests on ``region`` (centre over the surface, bottom on it)."""
    return region.contains(pose.x, pose.y) and abs(pose.z - 0.5 * height - region.height) < SUPPORT_TOL


def relation_holds(region: RegionSpec, pos: tuple[float, float], radius: float, ref: tuple[float, float],
                   ref_radius: float, direction: str) -> bool:
    """``(AtPosition o dir ref)`` for two objects on ``region``, in the region frame: front is
    towards the robot's base pose, left is the robot's left; the dominant axis decides, and the
    objects must be within NEAR_GAP of touching."""
    uo, vo = region.to_local(*pos)
    ur, vr = region.to_local(*ref)
    du, dv = uo - ur, vo - vr
    if math.hypot(du, dv) > radius + ref_radius + NEAR_GAP:
        return False
    if direction == "left_of":
        return dv > abs(du)
    if direction == "right_of":
        return -dv > abs(du)
    if direction == "behind_of":
        return du > abs(dv)
    if direction == "front_of":
        return -du > abs(dv)
    return False


def support_region(problem: ProblemSpec, state: GState, i: int) -> RegionSpec | None:
    """The region object i rests on, decided from its pose (the stored name is only a hint)."""
    pose = state.poses[i]
    return None if pose is None else region_under(problem, i, pose)


def region_under(problem: ProblemSpec, i: int, pose: ObjPose) -> RegionSpec | None:
    """The region an upright object i at ``pose`` rests on, if any."""
    h = problem.objects[i].shape.height
    regions = problem.layout.regions
    hinted = next((r for r in regions if r.name == pose.region), None)
    if hinted is not None and supported_by(hinted, pose, h):
        return hinted
    return next((r for r in regions if supported_by(r, pose, h)), None)


def atom_holds(problem: ProblemSpec, state: GState, atom: GoalAtom) -> bool:
    """``(AtPosition obj dir ref)`` evaluated on the poses of ``state``."""
    names = problem.object_names
    i = names.index(atom.obj)
    region = support_region(problem, state, i)
    if region is None:
        return False
    if atom.direction == "on":
        return region.name == atom.ref
    j = names.index(atom.ref)
    if support_region(problem, state, j) is not region:
        return False
    a, b = state.poses[i], state.poses[j]
    assert a is not None and b is not None  # both rest on the region
    return relation_holds(region, (a.x, a.y), problem.objects[i].shape.radius, (b.x, b.y),
                          problem.objects[j].shape.radius, atom.direction)
