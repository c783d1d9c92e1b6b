"""All conversions between the core's plain data and llm_planner_interfaces messages, in one place."""
from __future__ import annotations

import json
from typing import Iterable, Mapping, Sequence

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Pose, Vector3
from llm_planner_interfaces.msg import GeometrySnapshot, ObjectPose, PerceivedState, Predicate

from llm_planner.sim.geometry import BodyGeometry, GeometrySnapshot as CoreGeometry, JointGeometry
from llm_planner.world.symbolic import Action, Goal, Household, Observation, State, goal_from_lists, goal_to_lists

ROBOT = "robot"


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


# ------------------------------------------------------------------------ predicates
def predicates_to_msgs(predicates: Iterable[tuple[str, tuple[str, ...]]]) -> list[Predicate]:
    return [Predicate(name=name, args=list(args)) for name, args in predicates]


def state_predicates(household: Household, state: State) -> list[tuple[str, tuple[str, ...]]]:
    """The full state as predicates (the privileged topic): every relation and container state."""
    preds: list[tuple[str, tuple[str, ...]]] = [("IN_ROOM", (ROBOT, state.room))]
    if state.near:
        preds.append(("CLOSE", (ROBOT, state.near)))
    if state.holding:
        preds.append(("HOLDING", (ROBOT, state.holding)))
    for c in household.furniture:
        if household.is_container[c]:
            preds.append(("OPEN" if c in state.opened else "CLOSED", (c,)))
    preds += [(rel.upper(), (o, f)) for rel, o, f in sorted(household.facts(state))]
    return preds


def _split(predicates: Iterable[Predicate], furniture: Mapping[str, str]) -> tuple[str, str | None, str | None, set, set, set]:
    """Robot room, the furniture it is near (CLOSE also names objects there), holding, relations, open, closed."""
    room, near, holding = "", None, None
    relations: set[tuple[str, str, str]] = set()
    opened: set[str] = set()
    closed: set[str] = set()
    for p in predicates:
        args = list(p.args)
        if p.name == "IN_ROOM" and args[:1] == [ROBOT]:
            room = args[1]
        elif p.name == "CLOSE" and args[:1] == [ROBOT] and args[1] in furniture:
            near = args[1]
        elif p.name == "HOLDING":
            holding = args[-1]
        elif p.name in ("INSIDE", "ON") and len(args) == 2:
            relations.add((p.name.lower(), args[0], args[1]))
        elif p.name == "OPEN":
            opened.add(args[0])
        elif p.name == "CLOSED":
            closed.add(args[0])
    return room, near, holding, relations, opened, closed


def observation_from_msg(msg: PerceivedState, household: Household) -> Observation:
    room, near, holding, relations, opened, closed = _split(msg.predicates, household.furniture_room)
    room = room or msg.robot_room
    seen = household.room_surfaces.get(room, frozenset()) | frozenset(opened)
    return Observation(room=room, near=near, holding=holding,
                       relations=frozenset(relations), open_containers=frozenset(opened),
                       closed_containers=frozenset(closed), seen_places=seen)


def state_from_msg(msg: PerceivedState, household: Household) -> State:
    """The full state from the privileged full-observation topic."""
    room, near, holding, relations, opened, _ = _split(msg.predicates, household.furniture_room)
    where = {o: f for _, o, f in relations}
    placement = tuple(where.get(o) for o in household.objects)
    return State(room=room or msg.robot_room, near=near, holding=holding, placement=placement,
                 opened=frozenset(opened))


# ---------------------------------------------------------------------------- goals
def goal_to_json(goal: Goal) -> str:
    return json.dumps(goal_to_lists(goal))


def goal_from_json(text: str) -> Goal:
    return goal_from_lists(json.loads(text))


def action_from_request(action: str, args: Sequence[str]) -> Action:
    return Action(action.strip().lower(), tuple(a.strip() for a in args))
