"""Simulator node: the only owner of the PyBullet world.

- serves ``/robot/skill`` (llm_planner_interfaces/RobotSkill): walk, grab, open, close, putin, puton;
  a skill that cannot be done answers success=false with the reason and changes nothing;
- serves ``/sim/render`` (RenderSnapshot): a headless PNG of the world (for reports);
- publishes ``/sim/geometry`` (GeometrySnapshot): what the robot's sensors report (body poses and
  AABBs, door joint angles, the gripper's attachment), after every skill and at ``geometry_rate_hz``.
  The response of a skill carries the stamp of the geometry published right after it, so a client
  knows which perception message reflects the skill's outcome.
"""
from __future__ import annotations

import threading

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node

from llm_planner_interfaces.msg import GeometrySnapshot
from llm_planner_interfaces.srv import RenderSnapshot, RobotSkill
from llm_planner.ros.conversions import action_from_request, geometry_to_msg
from llm_planner.ros.node_utils import GEOMETRY_QOS, declare_params, run_node
from llm_planner.world.scene import load_scene



class SimulatorNode(Node):
    def __init__(self) -> None:
        super().__init__("simulator")
        params = declare_params(self, ("scene", "seed", "geometry_rate_hz"))
        from llm_planner.sim.world import HouseholdSim  # pybullet import only in this process

        self.scene = load_scene(params["scene"])
        placement = self.scene.sample_placement(params["seed"])
        self.sim = HouseholdSim(self.scene, placement, seed=params["seed"])
        self.lock = threading.Lock()  # PyBullet is not thread-safe: one skill or snapshot at a time
        group = MutuallyExclusiveCallbackGroup()
        self.geometry_pub = self.create_publisher(GeometrySnapshot, "/sim/geometry", GEOMETRY_QOS)
        self.create_service(RobotSkill, "/robot/skill", self.on_skill, callback_group=group)
        self.create_service(RenderSnapshot, "/sim/render", self.on_render, callback_group=group)
        self.create_timer(1.0 / params["geometry_rate_hz"], self.publish_geometry, callback_group=group)
        self.publish_geometry()
        self.get_logger().info(f"scene '{self.scene.name}' (seed {params['seed']}) loaded; serving /robot/skill")

    def publish_geometry(self):
        with self.lock:
            stamp = self.get_clock().now().to_msg()
            self.geometry_pub.publish(geometry_to_msg(self.sim.geometry(), stamp))
        return stamp

    def on_skill(self, request: RobotSkill.Request, response: RobotSkill.Response) -> RobotSkill.Response:
        action = action_from_request(request.action, request.args)
        with self.lock:
            result = self.sim.execute(action)
        response.success = bool(result.success)
        response.reason = result.reason
        response.stamp = self.publish_geometry()
        level = self.get_logger().info if result.success else self.get_logger().warning
        level(f"{action}: {'ok' if result.success else result.reason}")
        return response

    def on_render(self, request: RenderSnapshot.Request, response: RenderSnapshot.Response) -> RenderSnapshot.Response:
        view = request.view or "top"
        if view not in ("top", "perspective") or not request.path:
            response.success, response.message = False, "give a PNG path and a view of top or perspective"
            return response
        try:
            with self.lock:
                path = self.sim.render_png(request.path, view=view)
        except (OSError, ValueError) as exc:
            response.success, response.message = False, f"could not render: {exc}"
            return response
        response.success, response.message = True, str(path)
        return response

    def close(self) -> None:
        self.sim.close()


def main() -> int:
    return run_node(SimulatorNode, threads=2)


if __name__ == "__main__":
    raise SystemExit(main())
