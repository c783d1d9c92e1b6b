"""All conversions between the core's plain data and llm_planner_interfaces messages, for every
domain: geometry, RViz markers, percepts, task results, feedback with the planner's belief, and
task records. The domains speak only plain data (:mod:`llm_planner.adapters.base`); this is the one
place that knows the message types."""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose, PoseStamped, Vector3
from llm_planner_interfaces.msg import GeometrySnapshot, ObjectPose, PerceivedState, Predicate
from llm_planner_interfaces.msg import ObjectBelief as ObjectBeliefMsg
from std_msgs.msg import ColorRGBA, Header
from visualization_msgs.msg import Marker, MarkerArray

from llm_planner.adapters.base import Domain
from llm_planner.domains.geometry import BodyGeometry, JointGeometry
from llm_planner.domains.geometry import GeometrySnapshot as CoreGeometry
from llm_planner.domains.percept import Percept
from llm_planner.errors import GoalError
from llm_planner.execution import StepRecord
from llm_planner.planners.base import ObjectBelief
from llm_planner.service import PlanTaskResult
from llm_planner.task_states import EXECUTING
from llm_planner.viz.markers import MarkerSpec
from llm_planner.viz.report import RecordedStep, TaskRecord
from llm_planner_ros.task_results import ExecutionResult, Feedback, PlanResult, TaskResult


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


def pose_stamped(pose: Sequence[float], frame: str, stamp: Time) -> PoseStamped:
    """A planar pose (x, y, yaw) as a PoseStamped in ``frame`` (the yaw about z as a quaternion)."""
    x, y, yaw = pose
    msg = PoseStamped(pose=make_pose((x, y, 0.0), (0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))))
    msg.header.frame_id, msg.header.stamp = frame, stamp
    return msg


def pose_from_stamped(msg: PoseStamped) -> tuple[float, float, float]:
    """(x, y, yaw) of a PoseStamped (the yaw of its orientation about z)."""
    q = msg.pose.orientation
    yaw = math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))
    return (msg.pose.position.x, msg.pose.position.y, yaw)


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
              for n, q, t in zip(msg.joint_names, msg.joint_positions, msg.joint_open_thresholds, strict=False)]
    return CoreGeometry(scene=msg.scene, robot_position=(p.x, p.y, p.z), robot_orientation=(o.x, o.y, o.z, o.w),
                        held_object=msg.held_object or None, bodies=[body_from_msg(b) for b in msg.bodies],
                        joints=joints)


# ---------------------------------------------------------------------------- markers
def markers_to_msg(specs: Sequence[MarkerSpec], stamp: Time) -> MarkerArray:
    """RViz markers (:mod:`llm_planner.viz.markers`) as a MarkerArray, every marker an ADD stamped ``stamp``."""
    array = MarkerArray()
    for spec in specs:
        marker = Marker(ns=spec.ns, id=spec.id, type=getattr(Marker, spec.type), action=Marker.ADD, text=spec.text,
                        pose=make_pose(spec.position, spec.orientation), scale=make_vector(spec.scale),
                        color=ColorRGBA(r=float(spec.color[0]), g=float(spec.color[1]), b=float(spec.color[2]),
                                        a=float(spec.color[3])))
        marker.header.stamp = stamp
        marker.header.frame_id = spec.frame_id
        array.markers.append(marker)
    return array


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
def goal_to_json(domain: Domain, goal: Any) -> str:
    """The domain's goal as its JSON on the wire (ExecuteTask's ``goal``): the goal lists of
    /plan_task's response (:meth:`~llm_planner.adapters.base.Domain.goal_lists`)."""
    return json.dumps(domain.goal_lists(goal))


def goal_from_json(domain: Domain, text: str) -> Any:
    """The domain's goal from its JSON on the wire (ExecuteTask's ``goal``), checked against the
    world's names; GoalError saying what is wrong."""
    try:
        items = json.loads(text)
    except ValueError as exc:
        raise GoalError(f"the goal is not JSON ({exc}); send the goal lists of /plan_task's response") from None
    try:
        return domain.goal_from_lists(items)
    except (TypeError, ValueError) as exc:
        raise GoalError(f"the goal {text[:120]!r} is malformed ({exc})") from None


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
    if hasattr(msg, "question"):  # appended fields: the question a refusal leaves open
        msg.question = result.question
        msg.options = list(result.options)
    return msg


def plan_result_from_msg(msg: Any) -> PlanResult:
    """A /plan_task response (or an execute_directive result message) as a :class:`PlanResult`."""
    try:
        goal = json.loads(msg.goal) if msg.goal else []
    except json.JSONDecodeError:
        goal = []
    items = tuple(tuple(item) if isinstance(item, list) else (item,) for item in goal)
    return PlanResult(bool(msg.success), msg.message, items, tuple(msg.plan), msg.task_id, int(msg.llm_requests),
                      float(msg.planning_time_s), tuple(msg.executed), getattr(msg, "question", ""),
                      tuple(getattr(msg, "options", ())))


def execution_result_from_msg(msg: Any, status: TaskResult) -> ExecutionResult:
    """An execute_directive result message, the goal having ended with ``status``."""
    return ExecutionResult(**_fields_of(plan_result_from_msg(msg)), status=status)


def _fields_of(result: PlanResult) -> dict[str, Any]:
    """The fields of a result by name, their values as they are (not copied)."""
    return {f.name: getattr(result, f.name) for f in fields(result)}


# ------------------------------------------------------------------- beliefs and feedback
def belief_to_msg(beliefs: Sequence[ObjectBelief]) -> list[ObjectBeliefMsg]:
    return [ObjectBeliefMsg(object=b.obj, places=[p for p, _ in b.places],
                            probabilities=[float(q) for _, q in b.places]) for b in beliefs]


def belief_from_msg(msgs: Sequence[ObjectBeliefMsg]) -> tuple[ObjectBelief, ...]:
    return tuple(ObjectBelief(m.object, tuple(zip(m.places, (float(q) for q in m.probabilities), strict=False)))
                 for m in msgs)


FEEDBACK_FIELDS = ("task_id", "state", "step", "action", "outcome", "observation", "llm_requests",
                   "decision_llm_requests", "belief")


def step_fields(task_id: str, record: StepRecord) -> dict[str, Any]:
    """The feedback fields of one executed step of the closed loop (``belief`` as plain data)."""
    return {"task_id": task_id, "state": EXECUTING, "step": record.step, "action": record.action_text,
            "outcome": record.outcome, "observation": record.observed, "llm_requests": record.llm_requests,
            "decision_llm_requests": record.decision_llm_requests, "belief": tuple(record.belief)}


def feedback_to_dict(msg: Any) -> dict[str, Any]:
    """The fields of an ExecuteTask or ExecuteDirective feedback message (they are the same), the
    belief as :class:`~llm_planner.planners.base.ObjectBelief` s."""
    fields = {name: getattr(msg, name) for name in FEEDBACK_FIELDS}
    fields["belief"] = belief_from_msg(msg.belief)
    fields["question"], fields["options"] = getattr(msg, "question", ""), list(getattr(msg, "options", ()))
    return fields


def feedback_from_msg(msg: Any) -> Feedback:
    """An ExecuteDirective feedback message as the client's :class:`Feedback`."""
    return Feedback(**feedback_to_dict(msg) | {"options": tuple(getattr(msg, "options", ()))})


def feedback_from_dict(cls: Any, fields: dict[str, Any]) -> Any:
    """An ExecuteTask or ExecuteDirective feedback message (``cls``) from :func:`feedback_to_dict` fields."""
    known = cls.get_fields_and_field_types()  # ExecuteTask's feedback has no question (asked by the planner)
    return cls(**{k: v for k, v in {**fields, "belief": belief_to_msg(fields.get("belief", ()))}.items() if k in known})


# ------------------------------------------------------------------------ task records
def task_record_from_msg(msg: Any) -> TaskRecord:
    """A TaskRecord service response as the plain :class:`~llm_planner.viz.report.TaskRecord`."""
    try:
        goal = json.loads(msg.goal) if msg.goal else []
    except json.JSONDecodeError:
        goal = []
    steps = tuple(RecordedStep(s.step, s.action, s.success, s.reason, s.observation, s.llm_requests,
                               s.decision_llm_requests, belief_from_msg(s.belief), tuple((p.x, p.y) for p in s.path),
                               geometry_from_msg(s.geometry)) for s in msg.steps)
    return TaskRecord(msg.task_id, msg.directive, msg.planner, goal, msg.domain, msg.world, msg.state,
                      msg.result_message, geometry_from_msg(msg.start), steps)
