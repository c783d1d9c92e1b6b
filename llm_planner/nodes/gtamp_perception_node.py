"""G-TAMP perception node: the perceived state and its geometric predicates, from the geometry.

Subscribes ``/sim/geometry``; rebuilds the perceived :class:`GState` from what the sensors report
(object poses, the region each object rests on decided from its pose, door states from the door
panels' positions, the base pose, the held object and its grasp transform from the gripper and
forward kinematics), never from the simulator's bookkeeping. Then computes the geometric
predicates (HandAvailable / RobotHolding, IsClosed, AtPosition, PickOccludedBy, PlaceOccludedBy)
with the G-TAMP model's :class:`PredicateComputer`, on perception's own collision model built
from the problem file (static geometry and shapes; not the simulator's state).

Publishes ``/perception/state`` (PerceivedState) with the geometry's stamp: the predicates, plus
``HeldGrasp(obj, pitch, yaw, tool->object transform)`` while holding, and the poses of the
objects, doors and robot.
"""
from __future__ import annotations

import math

from rclpy.node import Node

from llm_planner_interfaces.msg import GeometrySnapshot, ObjectPose, PerceivedState
from llm_planner.errors import LlmPlannerError
from llm_planner.gtamp.domain import Grasp, GState, ObjPose, Pose2D, ProblemSpec
from llm_planner.nodes.gtamp_common import declare_gtamp_params, load_gtamp_problem
from llm_planner.ros.node_utils import GEOMETRY_QOS
from llm_planner.ros.gtamp_conversions import (GRASP_JOINTS, GTampCodecError, grasp_predicate, predicates_to_msgs,
                                               yaw_of)
from llm_planner.ros.node_utils import run_node


class GeometryPerceiver:
    """Perceived GState and predicates from a GeometrySnapshot, with perception's own geometric model."""

    def __init__(self, problem: ProblemSpec) -> None:
        from llm_planner.gtamp.operators import GTampModel
        from llm_planner.gtamp.predicates import PredicateComputer

        self.problem = problem
        self.model = GTampModel(problem)
        self.predicates = PredicateComputer(self.model)

    def close(self) -> None:
        self.model.world.close()

    def state(self, msg: GeometrySnapshot) -> GState:
        """The GState the geometry shows; GTampCodecError when a body is missing."""
        from llm_planner.gtamp.geometry import region_under

        bodies = {b.name: b for b in msg.bodies}
        held = self.problem.obj_index(msg.held_object) if msg.held_object else None
        poses: list[ObjPose | None] = []
        for i, name in enumerate(self.problem.object_names):
            if i == held:
                poses.append(None)
                continue
            body = self._body(bodies, name)
            pose = ObjPose(body.pose.position.x, body.pose.position.y, body.pose.position.z, yaw_of(body.pose), "")
            region = region_under(self.problem, i, pose)
            poses.append(ObjPose(pose.x, pose.y, pose.z, pose.yaw, region.name if region else ""))
        doors = []
        for d in self.problem.layout.doors:
            p = self._body(bodies, d.name).pose.position
            doors.append(math.dist((p.x, p.y, p.z), d.open_center) < math.dist((p.x, p.y, p.z), d.closed_center))
        r = msg.robot_pose
        base = Pose2D(r.position.x, r.position.y, yaw_of(r))
        grasp = self._grasp(msg, base, self._body(bodies, msg.held_object)) if held is not None else None
        return GState(base, tuple(poses), held, grasp, tuple(doors))

    @staticmethod
    def _body(bodies: dict[str, ObjectPose], name: str) -> ObjectPose:
        if name not in bodies:
            raise GTampCodecError(f"the geometry has no body {name!r}")
        return bodies[name]

    def _grasp(self, msg: GeometrySnapshot, base: Pose2D, held: ObjectPose) -> Grasp:
        """The held object's transform in the tool frame (tool pose by forward kinematics with the
        arm at home), with the gripper orientation the robot reports as its grasp joints."""
        import pybullet as p

        joints = dict(zip(msg.joint_names, msg.joint_positions))
        if any(j not in joints for j in GRASP_JOINTS):
            raise GTampCodecError("the robot holds an object but reports no grasp joints")
        w = self.model.world
        w.set_base(base)
        w.set_arm(self.problem.layout.robot.home)
        tpos, torn = w.tool_pose()
        w.invalidate()
        inv_pos, inv_orn = p.invertTransform(tpos, torn)
        o = held.pose
        rel_pos, rel_orn = p.multiplyTransforms(inv_pos, inv_orn, (o.position.x, o.position.y, o.position.z),
                                                (o.orientation.x, o.orientation.y, o.orientation.z, o.orientation.w))
        return Grasp(joints[GRASP_JOINTS[0]], joints[GRASP_JOINTS[1]], tuple(rel_pos), tuple(rel_orn))

    def facts(self, state: GState) -> list[tuple[str, ...]]:
        """The geometric predicates of the state (cached per state by the PredicateComputer)."""
        return self.predicates.literals(state).facts()

    def room(self, state: GState) -> str:
        return self.model.room(state)


class GTampPerceptionNode(Node):
    def __init__(self) -> None:
        super().__init__("perception")
        params = declare_gtamp_params(self, ("problem",))
        self.problem = load_gtamp_problem(params["problem"])
        self.perceiver = GeometryPerceiver(self.problem)
        self.state_pub = self.create_publisher(PerceivedState, "/perception/state", GEOMETRY_QOS)
        self.create_subscription(GeometrySnapshot, "/sim/geometry", self.on_geometry, GEOMETRY_QOS)
        self.get_logger().info(f"perceiving G-TAMP problem '{self.problem.name}' from /sim/geometry")

    def on_geometry(self, msg: GeometrySnapshot) -> None:
        try:
            state = self.perceiver.state(msg)
            facts = self.perceiver.facts(state)
        except (LlmPlannerError, KeyError, ValueError) as exc:
            self.get_logger().warning(f"cannot perceive this geometry: {exc}")
            return
        predicates = predicates_to_msgs(facts)
        if state.held is not None and state.grasp is not None:
            predicates.append(grasp_predicate(self.problem.object_names[state.held], state.grasp))
        self.state_pub.publish(PerceivedState(header=msg.header, scene=msg.scene, robot_room=self.perceiver.room(state),
                                              full_observation=True, predicates=predicates, objects=list(msg.bodies)))

    def close(self) -> None:
        self.perceiver.close()


def main() -> int:
    return run_node(GTampPerceptionNode, threads=1)


if __name__ == "__main__":
    raise SystemExit(main())
