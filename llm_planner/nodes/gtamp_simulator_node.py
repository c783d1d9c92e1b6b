"""G-TAMP simulator node: the only owner of the G-TAMP PyBullet world (:class:`GTampSim`).

- serves ``/robot/skill`` (RobotSkill): ``action`` is the task action's operator (pick, place,
  open) and ``args[0]`` the JSON of the :class:`ConcreteAction` with its continuous parameters
  (base path, arm path, grasp, placement pose; :mod:`llm_planner.ros.gtamp_conversions`). The
  simulator re-checks the motion against its own geometry; a step that cannot be done answers
  success=false with the reason and changes nothing. Bad requests get a clear reason too.
- publishes ``/sim/geometry`` (GeometrySnapshot): what the robot's sensors report: the poses and
  AABBs of the movable objects, door panels and the robot, what the gripper holds, and as robot
  joints the gripper orientation of the current grasp (``grasp_pitch``, ``grasp_yaw``). Published
  after every skill and at ``geometry_rate_hz``; a skill's response stamp is the stamp of the
  geometry published right after it.
"""
from __future__ import annotations

import threading

from builtin_interfaces.msg import Time
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node

from llm_planner_interfaces.msg import GeometrySnapshot
from llm_planner_interfaces.srv import RobotSkill
from llm_planner.gtamp.domain import OPERATORS, ConcreteAction
from llm_planner.nodes.gtamp_common import declare_gtamp_params, load_gtamp_problem
from llm_planner.ros.node_utils import GEOMETRY_QOS
from llm_planner.ros.gtamp_conversions import GRASP_JOINTS, GTampCodecError, decode, make_pose, object_pose_msg
from llm_planner.ros.node_utils import run_node


class GTampSimulatorNode(Node):
    def __init__(self) -> None:
        super().__init__("simulator")
        params = declare_gtamp_params(self, ("problem", "geometry_rate_hz"))
        from llm_planner.gtamp.sim import GTampSim  # pybullet only in this process

        self.problem = load_gtamp_problem(params["problem"])
        self.sim = GTampSim(self.problem)
        self.lock = threading.Lock()  # PyBullet is not thread-safe: one skill or snapshot at a time
        group = MutuallyExclusiveCallbackGroup()
        self.geometry_pub = self.create_publisher(GeometrySnapshot, "/sim/geometry", GEOMETRY_QOS)
        self.create_service(RobotSkill, "/robot/skill", self.on_skill, callback_group=group)
        self.create_timer(1.0 / params["geometry_rate_hz"], self.publish_geometry, callback_group=group)
        self.publish_geometry()
        self.get_logger().info(f"G-TAMP problem '{self.problem.name}' loaded; serving /robot/skill")

    # ------------------------------------------------------------------ sensors
    def snapshot(self) -> GeometrySnapshot:
        """The sensors' report of the world as it is now (call with the lock held)."""
        import pybullet as p

        w = self.sim.world
        observed = self.sim.observe()  # syncs the bodies; only held/grasp (gripper sensors) are read from it
        c = w.client
        msg = GeometrySnapshot(scene=self.problem.name)
        msg.header.frame_id = "map"
        bodies = [(name, "object", w.objects[i]) for i, name in enumerate(self.problem.object_names)]
        bodies += [(name, "door", body) for name, body in w.doors.items()]
        bodies.append(("robot", "robot", w.robot))
        for name, kind, body in bodies:
            pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=c)
            aabb = p.getAABB(body, physicsClientId=c)
            msg.bodies.append(object_pose_msg(name, kind, make_pose(pos, orn), aabb))
        pos, orn = p.getBasePositionAndOrientation(w.robot, physicsClientId=c)
        msg.robot_pose = make_pose(pos, orn)
        if observed.held is not None and observed.grasp is not None:
            msg.held_object = self.problem.object_names[observed.held]
            msg.joint_names = list(GRASP_JOINTS)
            msg.joint_positions = [float(observed.grasp.pitch), float(observed.grasp.yaw)]
            msg.joint_open_thresholds = [0.0, 0.0]
        return msg

    def publish_geometry(self) -> Time:
        with self.lock:
            msg = self.snapshot()
            msg.header.stamp = self.get_clock().now().to_msg()
            self.geometry_pub.publish(msg)
        return msg.header.stamp

    # ------------------------------------------------------------------ skills
    def on_skill(self, request: RobotSkill.Request, response: RobotSkill.Response) -> RobotSkill.Response:
        try:
            action = self.parse(request)
        except GTampCodecError as exc:
            response.success, response.reason = False, f"bad skill request: {exc}"
            response.stamp = self.publish_geometry()
            self.get_logger().warning(response.reason)
            return response
        with self.lock:
            try:
                ok, reason = self.sim.execute(action)
            except (KeyError, IndexError, TypeError, ValueError) as exc:  # names or values the problem lacks
                ok, reason = False, f"bad skill request: {type(exc).__name__}: {exc}"
        response.success, response.reason = bool(ok), reason
        response.stamp = self.publish_geometry()
        if ok:
            self.get_logger().info(f"{action.action}: ok")
        else:
            self.get_logger().warning(f"{action.action}: {reason}")
        return response

    @staticmethod
    def parse(request: RobotSkill.Request) -> ConcreteAction:
        """The concrete action of a skill request; GTampCodecError saying what is wrong."""
        if request.action not in OPERATORS:
            raise GTampCodecError(f"unknown G-TAMP skill {request.action!r} (known: {', '.join(OPERATORS)})")
        if len(request.args) != 1:
            raise GTampCodecError("args must hold exactly one element: the JSON of the concrete action")
        action = decode(request.args[0], ConcreteAction)
        if action.action.op != request.action:
            raise GTampCodecError(f"skill {request.action!r} does not match the action's operator "
                                  f"{action.action.op!r}")
        return action

    def close(self) -> None:
        self.sim.close()


def main() -> int:
    return run_node(GTampSimulatorNode, threads=2)


if __name__ == "__main__":
    raise SystemExit(main())
