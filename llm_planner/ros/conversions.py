"""All conversions between the core's plain data and llm_planner_interfaces messages, for every
domain: geometry, percepts, task results and feedback. The domains speak only plain data
(:mod:`llm_planner.domains.base`); this is the one place that knows the message types."""
from __future__ import annotations

import json
from typing import Any, Sequence

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose, Vector3
from std_msgs.msg import Header

from llm_planner.domains.base import Percept
from llm_planner.service import PlanTaskResult
from llm_planner.sim.geometry import BodyGeometry, GeometrySnapshot as CoreGeometry, JointGeometry
from llm_planner_interfaces.msg import GeometrySnapshot, ObjectPose, PerceivedState, Predicate


# ------------------------------------------------------------------------------ time
def time_to_ns(stamp: Time) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


# -------------------------------------------------------------------------- geometry
def make_pose(position: Sequence[float], orientation: Sequence[float]) -> Pose:
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in position)
    o = pose.orientation
    o.x, o.y, o.z, o.w = (float(v) for v in orientation)
    return pose


def make_vector(values: Sequence[float]) -> Vector3:
    return Vector3(x=float(values[0]), y=float(values[1]), z=float(values[2]))


def body_to_msg(body: BodyGeometry) -> ObjectPose:
    return ObjectPose(name=body.name, type=body.type, pose=make_pose(body.position, body.orientation),
                      aabb_min=make_vector(body.aabb_min), aabb_max=make_vector(body.aabb_max))


def body_from_msg(msg: ObjectPose) -> BodyGeometry:
    p, o = msg.pose.position, msg.pose.orientation
    return BodyGeometry(name=msg.name, type=msg.type, position=(p.x, p.y, p.z), orientation=(o.x, o.y, o.z, o.w),
                        aabb_min=(msg.aabb_min.x, msg.aabb_min.y, msg.aabb_min.z),
                        aabb_max=(msg.aabb_max.x, msg.aabb_max.y, msg.aabb_max.z))


def geometry_to_msg(geometry: CoreGeometry, stamp: Time) -> GeometrySnapshot:
    msg = GeometrySnapshot()
    msg.header.stamp = stamp
    msg.header.frame_id = "map"
    msg.scene = geometry.scene
    msg.robot_pose = make_pose(geometry.robot_position, geometry.robot_orientation)
    msg.held_object = geometry.held_object or ""
    msg.bodies = [body_to_msg(b) for b in geometry.bodies]
    msg.joint_names = [j.name for j in geometry.joints]
    msg.joint_positions = [float(j.position) for j in geometry.joints]
    msg.joint_open_thresholds = [float(j.open_threshold) for j in geometry.joints]
    return msg


def geometry_from_msg(msg: GeometrySnapshot) -> CoreGeometry:
    p, o = msg.robot_pose.position, msg.robot_pose.orientation
    joints = [JointGeometry(name=n, position=q, open_threshold=t)
              for n, q, t in zip(msg.joint_names, msg.joint_positions, msg.joint_open_thresholds)]
    return CoreGeometry(scene=msg.scene, robot_position=(p.x, p.y, p.z), robot_orientation=(o.x, o.y, o.z, o.w),
                        held_object=msg.held_object or None, bodies=[body_from_msg(b) for b in msg.bodies],
                        joints=joints)


# --------------------------------------------------------------------------- percepts
def percept_to_msg(percept: Percept, header: Header) -> PerceivedState:
    return PerceivedState(header=header, scene=percept.scene, robot_room=percept.room,
                          full_observation=percept.full_observation,
                          predicates=[Predicate(name=name, args=list(args)) for name, args in percept.predicates],
                          objects=[body_to_msg(b) for b in percept.bodies])


def percept_from_msg(msg: PerceivedState) -> Percept:
    return Percept(scene=msg.scene, room=msg.robot_room,
                   predicates=tuple((p.name, tuple(p.args)) for p in msg.predicates),
                   bodies=tuple(body_from_msg(b) for b in msg.objects), full_observation=msg.full_observation,
                   stamp_ns=time_to_ns(msg.header.stamp))


# ------------------------------------------------------------------------ task results
def fill_result(msg: Any, result: PlanTaskResult) -> Any:
    """Set the /plan_task response fields of ``msg`` (PlanTask.Response or ExecuteDirective.Result)."""
    msg.success = bool(result.success)
    msg.message = result.message
    msg.goal = json.dumps(result.goal)
    msg.plan = list(result.plan)
    msg.task_id = result.task_id
    msg.llm_requests = int(result.llm_requests)
    msg.planning_time_s = float(result.planning_time_s)
    msg.executed = list(result.executed)
    return msg


def result_to_dict(msg: Any) -> dict[str, Any]:
    """The /plan_task response fields of a message as the ``--json`` dict (``executed`` when any)."""
    try:
        goal = json.loads(msg.goal) if msg.goal else []
    except json.JSONDecodeError:
        goal = msg.goal
    out = {"success": bool(msg.success), "message": msg.message, "goal": goal, "plan": list(msg.plan),
           "task_id": msg.task_id, "llm_requests": int(msg.llm_requests),
           "planning_time_s": float(msg.planning_time_s)}
    if msg.executed:
        out["executed"] = list(msg.executed)
    return out


FEEDBACK_FIELDS = ("task_id", "state", "step", "action", "outcome", "observation", "llm_requests")


def feedback_to_dict(msg: Any) -> dict[str, Any]:
    """The fields of an ExecuteTask or ExecuteDirective feedback message (they are the same)."""
    return {name: getattr(msg, name) for name in FEEDBACK_FIELDS}
