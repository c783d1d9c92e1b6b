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
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from llm_planner_interfaces.msg import GeometrySnapshot
from llm_planner_interfaces.srv import RenderSnapshot, RobotSkill
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from visualization_msgs.msg import MarkerArray

from llm_planner_ros.conversions import geometry_to_msg, markers_to_msg
from llm_planner_ros.managed_node import OK, ManagedNode
from llm_planner_ros.node_utils import GEOMETRY_QOS, SERVICE_QOS, run_node

if TYPE_CHECKING:
    from llm_planner.adapters.base import Simulator


class SimulatorNode(ManagedNode):
    """Lifecycle: configure builds the world (PyBullet), activate publishes and serves skills,
    deactivate refuses skills (naming the command that activates it), cleanup closes the world."""

    def __init__(self) -> None:
        super().__init__("simulator")
        self.sim: Simulator | None = None
        self.lock = threading.Lock()  # PyBullet is not thread-safe: one skill or snapshot at a time
        self.group = MutuallyExclusiveCallbackGroup()
        self.skills: deque[float] = deque(maxlen=1000)  # monotonic times of the last skills (step rate)
        self.published: deque[float] = deque(maxlen=1000)
        self.skill_count = 0
        self.geometry_pub = self.create_publisher(GeometrySnapshot, "sim/geometry", GEOMETRY_QOS)
        self.markers_pub = self.create_publisher(MarkerArray, "markers", GEOMETRY_QOS)
        self.create_service(RobotSkill, "robot/skill", self.on_skill, qos_profile=SERVICE_QOS,
                            callback_group=self.group)
        self.create_service(RenderSnapshot, "sim/render", self.on_render, qos_profile=SERVICE_QOS,
                            callback_group=self.group)
        self.timer = self.create_timer(1.0 / self.params["geometry_rate_hz"], self.on_timer, callback_group=self.group)

    def configure(self) -> None:
        with self.lock:
            if self.sim is None:
                self.sim = self.domain.make_simulator()
        self.get_logger().info(f"{self.domain.world_name} loaded (seed {self.params['seed']})")

    def activate(self) -> None:
        self.publish_geometry(with_markers=True)
        self.get_logger().info(f"{self.domain.world_name}: serving robot/skill")

    def release(self) -> None:
        with self.lock:
            if self.sim is not None:
                self.sim.close()
                self.sim = None

    def on_parameter(self, name: str, value: Any) -> None:
        if name == "geometry_rate_hz":
            self.destroy_timer(self.timer)
            self.timer = self.create_timer(1.0 / value, self.on_timer, callback_group=self.group)

    def on_timer(self) -> None:
        if self.active:
            self.publish_geometry()

    def publish_geometry(self, with_markers: bool = False) -> Time:
        """Publish the geometry (and, at start and after a skill, the markers); the geometry's stamp."""
        with self.lock:
            stamp = self.get_clock().now().to_msg()
            assert self.sim is not None  # configured before it publishes
            geometry = self.sim.geometry()
            self.geometry_pub.publish(geometry_to_msg(geometry, stamp))
        self.published.append(time.monotonic())
        if with_markers:
            self.markers_pub.publish(markers_to_msg(self.domain.markers(geometry), stamp))
        return stamp

    def on_skill(self, request: RobotSkill.Request, response: RobotSkill.Response) -> RobotSkill.Response:
        if not self.active:
            response.success, response.reason = False, self.inactive_message()
            return response
        with self.lock:
            assert self.sim is not None  # active, so configured
            response.success, response.reason = self.sim.execute_skill(request.action, list(request.args))
            response.path = [Point(x=float(x), y=float(y)) for x, y in self.sim.last_path]
        self.skills.append(time.monotonic())
        self.skill_count += 1
        response.stamp = self.publish_geometry(with_markers=True)
        if response.success:  # one severity per call site (rclpy)
            self.get_logger().info(f"{request.action}: ok")
        else:
            self.get_logger().warning(f"{request.action}: {response.reason}")
        return response

    def on_render(self, request: RenderSnapshot.Request, response: RenderSnapshot.Response) -> RenderSnapshot.Response:
        view = request.view or "top"
        render = getattr(self.sim, "render_png", None)  # a world that can be drawn (the household)
        if not self.active:
            response.success, response.message = False, self.inactive_message()
        elif render is None:
            response.success, response.message = False, "this world cannot be rendered"
        elif view not in ("top", "perspective") or not request.path:
            response.success, response.message = False, "give a PNG path and a view of top or perspective"
        else:
            try:
                with self.lock:
                    response.success, response.message = True, render(request.path, view)
            except (OSError, ValueError) as exc:
                response.success, response.message = False, f"could not render: {exc}"
        return response

    def diagnose(self) -> tuple[bytes, str, dict[str, Any], list]:
        window = 10.0 / self.params["diagnostics_rate_hz"]
        now = time.monotonic()
        steps = sum(1 for t in self.skills if now - t <= window) / window
        rate = sum(1 for t in self.published if now - t <= window) / window
        values = {"skill steps per s": f"{steps:.2f}", "geometry per s": f"{rate:.2f}",
                  "skills served": self.skill_count, "world": self.domain.world_name}
        return OK, f"{self.domain.world_name}: {steps:.2f} skill steps/s, geometry at {rate:.1f} Hz", values, []

    def close(self) -> None:
        self.release()


def main() -> int:
    return run_node(SimulatorNode, threads=2)


if __name__ == "__main__":
    raise SystemExit(main())
