"""Simulator node: the only owner of the simulated world (PyBullet) of the configured domain.

- serves ``robot/skill`` (RobotSkill): household walk, grab, open, close, putin, puton; G-TAMP pick,
  place, open with the JSON of the concrete action. A skill that cannot be done answers
  success=false with the reason and changes nothing; the answer carries the base path it drove;
- serves ``sim/render`` (RenderSnapshot): a headless PNG of the world (household);
- publishes ``sim/geometry`` (GeometrySnapshot): what the robot's sensors report, after every skill
  and at ``geometry_rate_hz``. A skill's response carries the stamp of the geometry published right
  after it, so a client knows which perception message reflects the skill's outcome;
- publishes ``markers`` (visualization_msgs/MarkerArray, latched): the world for RViz in the
  ``map`` frame (walls, furniture or regions named, containers and doors open or closed, objects
  named, the robot and its heading), at start and after every skill.
"""
from __future__ import annotations

import threading

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node

from visualization_msgs.msg import MarkerArray

from llm_planner.ros.conversions import geometry_to_msg, markers_to_msg
from llm_planner.ros.node_utils import GEOMETRY_QOS, SERVICE_QOS, declare_params, make_domain, run_node
from llm_planner_interfaces.msg import GeometrySnapshot
from llm_planner_interfaces.srv import RenderSnapshot, RobotSkill


class SimulatorNode(Node):
    def __init__(self) -> None:
        super().__init__("simulator")
        params = declare_params(self)
        self.domain = make_domain(params)
        self.sim = self.domain.make_simulator()
        self.lock = threading.Lock()  # PyBullet is not thread-safe: one skill or snapshot at a time
        group = MutuallyExclusiveCallbackGroup()
        self.geometry_pub = self.create_publisher(GeometrySnapshot, "sim/geometry", GEOMETRY_QOS)
        self.create_service(RobotSkill, "robot/skill", self.on_skill, qos_profile=SERVICE_QOS, callback_group=group)
        self.create_service(RenderSnapshot, "sim/render", self.on_render, callback_group=group)
        self.markers_pub = self.create_publisher(MarkerArray, "markers", GEOMETRY_QOS)
        self.create_timer(1.0 / params["geometry_rate_hz"], self.publish_geometry, callback_group=group)
        self.publish_geometry(with_markers=True)
        self.get_logger().info(f"{self.domain.world_name} loaded (seed {params['seed']}); serving robot/skill")

    def publish_geometry(self, with_markers: bool = False) -> Time:
        """Publish the geometry (and, at start and after a skill, the markers); the geometry's stamp."""
        with self.lock:
            stamp = self.get_clock().now().to_msg()
            geometry = self.sim.geometry()
            self.geometry_pub.publish(geometry_to_msg(geometry, stamp))
        if with_markers:
            self.markers_pub.publish(markers_to_msg(self.domain.markers(geometry), stamp))
        return stamp

    def on_skill(self, request: RobotSkill.Request, response: RobotSkill.Response) -> RobotSkill.Response:
        with self.lock:
            response.success, response.reason = self.sim.execute_skill(request.action, list(request.args))
            response.path = [Point(x=float(x), y=float(y)) for x, y in self.sim.last_path]
        response.stamp = self.publish_geometry(with_markers=True)
        if response.success:  # one severity per call site (rclpy)
            self.get_logger().info(f"{request.action}: ok")
        else:
            self.get_logger().warning(f"{request.action}: {response.reason}")
        return response

    def on_render(self, request: RenderSnapshot.Request, response: RenderSnapshot.Response) -> RenderSnapshot.Response:
        view = request.view or "top"
        if not hasattr(self.sim, "render_png"):
            response.success, response.message = False, "this world cannot be rendered"
        elif view not in ("top", "perspective") or not request.path:
            response.success, response.message = False, "give a PNG path and a view of top or perspective"
        else:
            try:
                with self.lock:
                    response.success, response.message = True, self.sim.render_png(request.path, view)
            except (OSError, ValueError) as exc:
                response.success, response.message = False, f"could not render: {exc}"
        return response

    def close(self) -> None:
        self.sim.close()


def main() -> int:
    return run_node(SimulatorNode, threads=2)


if __name__ == "__main__":
    raise SystemExit(main())
