"""Simulator node: the only owner of the simulated world (PyBullet) of the configured domain, and the
reference robot of the robot contract (docs/guides/robot.md).

- serves ``navigate_to_pose`` (nav2_msgs/action/NavigateToPose, household): the base drives the
  planned path (checked against walls and furniture before it moves) at ``drive_speed_mps`` and
  ``turn_speed_rps``, with feedback on its pose and the distance remaining at ``motion_feedback_hz``;
  a cancel stops it where it is. A goal in another frame than ``map`` or to where the robot cannot
  stand is aborted with the reason in ``error_msg``;
- serves ``robot/skill`` (llm_planner_interfaces/action/RobotSkill): household grab, open, close,
  putin, puton, switchon, switchoff; G-TAMP pick, place, open with the JSON of the concrete action.
  A skill that cannot be done ends aborted with the reason and changes nothing; its result carries
  the stamp of the geometry published right after it, so a client knows which perception message
  shows its outcome.
  One goal runs at a time: another one is rejected while the robot moves;
- serves ``sim/render`` (RenderSnapshot): a headless PNG of the world (household);
- publishes ``sim/geometry`` (GeometrySnapshot): what the robot's sensors report, after every skill,
  at ``geometry_rate_hz`` when idle and at ``motion_feedback_hz`` while the base moves (and for a
  second after);
- publishes ``markers`` (visualization_msgs/MarkerArray, latched): the world for RViz in the
  ``map`` frame (walls, furniture or regions named, containers and doors open or closed, objects
  named, the robot and its heading), at start and after every goal.
"""
from __future__ import annotations

import math
import threading
import time
from collections import deque
from itertools import pairwise
from typing import TYPE_CHECKING, Any, cast

from builtin_interfaces.msg import Duration, Time
from llm_planner_interfaces.action import RobotSkill
from llm_planner_interfaces.msg import GeometrySnapshot
from llm_planner_interfaces.srv import RenderSnapshot
from nav2_msgs.action import NavigateToPose
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from visualization_msgs.msg import MarkerArray

from llm_planner.domains.shapes import wrap_angle
from llm_planner.domains.skill import Pose2D
from llm_planner_ros.conversions import geometry_to_msg, markers_to_msg, pose_from_stamped, pose_stamped
from llm_planner_ros.managed_node import OK, ManagedNode
from llm_planner_ros.node_utils import ACTION_QOS, GEOMETRY_QOS, SERVICE_QOS, run_node

if TYPE_CHECKING:
    from llm_planner.adapters.base import MobileBase, Simulator

MAP_FRAME = "map"
#: How long after the base stopped the geometry keeps coming at the motion rate (perception catches up).
AFTER_MOTION_S = 1.0


def timeline(poses: list[Pose2D], speed: float, turn: float) -> tuple[list[float], list[float]]:
    """When the base reaches each pose of a drive (s from the start) and the path length left there
    (m): each stretch takes as long as its distance at ``speed`` or its turn at ``turn``, the longer."""
    times, left = [0.0], [0.0]
    for a, b in pairwise(poses):
        step = max(math.dist(a[:2], b[:2]) / speed, abs(wrap_angle(b[2] - a[2])) / turn)
        times.append(times[-1] + step)
        left.append(left[-1] + math.dist(a[:2], b[:2]))
    total = left[-1]
    return times, [total - d for d in left]


def to_duration(seconds: float) -> Duration:
    whole = int(seconds)
    return Duration(sec=whole, nanosec=int((seconds - whole) * 1e9))


class SimulatorNode(ManagedNode):
    """Lifecycle: configure builds the world (PyBullet), activate publishes and serves goals,
    deactivate refuses them (naming the command that activates it) and stops the base, cleanup
    closes the world."""

    def __init__(self) -> None:
        super().__init__("simulator")
        self.sim: Simulator | None = None
        self.lock = threading.Lock()  # PyBullet is not thread-safe: one skill, step or snapshot at a time
        self.busy = threading.Lock()  # one goal at a time (navigation or skill)
        self.group = MutuallyExclusiveCallbackGroup()
        goals = ReentrantCallbackGroup()
        self.skills: deque[float] = deque(maxlen=1000)  # monotonic times of the last goals (step rate)
        self.published: deque[float] = deque(maxlen=1000)
        self.skill_count = 0
        self.moved_at = 0.0  # monotonic time the base last moved
        self.last_publish = 0.0
        self.geometry_pub = self.create_publisher(GeometrySnapshot, "sim/geometry", GEOMETRY_QOS)
        self.markers_pub = self.create_publisher(MarkerArray, "markers", GEOMETRY_QOS)
        ActionServer(self, RobotSkill, "robot/skill", self.on_skill, goal_callback=self.on_goal,
                     cancel_callback=lambda _: CancelResponse.ACCEPT, callback_group=goals, **ACTION_QOS)
        if self.domain.navigates:
            ActionServer(self, NavigateToPose, "navigate_to_pose", self.on_navigate, goal_callback=self.on_goal,
                         cancel_callback=lambda _: CancelResponse.ACCEPT, callback_group=goals, **ACTION_QOS)
        self.create_service(RenderSnapshot, "sim/render", self.on_render, qos_profile=SERVICE_QOS,
                            callback_group=self.group)
        self.timer = self.create_timer(1.0 / self.params["motion_feedback_hz"], self.on_timer,
                                       callback_group=MutuallyExclusiveCallbackGroup())

    def configure(self) -> None:
        with self.lock:
            if self.sim is None:
                self.sim = self.domain.make_simulator()
        self.get_logger().info(f"{self.domain.world_name} loaded (seed {self.params['seed']})")

    def activate(self) -> None:
        self.publish_geometry(with_markers=True)
        served = "navigate_to_pose and robot/skill" if self.domain.navigates else "robot/skill"
        self.get_logger().info(f"{self.domain.world_name}: serving {served}")

    def release(self) -> None:
        with self.lock:
            if self.sim is not None:
                self.sim.close()
                self.sim = None

    def on_parameter(self, name: str, value: Any) -> None:
        if name == "motion_feedback_hz":
            self.destroy_timer(self.timer)
            self.timer = self.create_timer(1.0 / value, self.on_timer, callback_group=MutuallyExclusiveCallbackGroup())

    def on_timer(self) -> None:
        """Geometry at ``motion_feedback_hz`` while (and just after) the base moves, else at ``geometry_rate_hz``."""
        if not self.active:
            return
        now = time.monotonic()
        moving = self.busy.locked() or now - self.moved_at < AFTER_MOTION_S
        if moving or now - self.last_publish >= 1.0 / self.params["geometry_rate_hz"]:
            self.publish_geometry()

    def publish_geometry(self, with_markers: bool = False) -> Time:
        """Publish the geometry (and, at start and after a goal, the markers); the geometry's stamp."""
        with self.lock:
            stamp = self.get_clock().now().to_msg()
            assert self.sim is not None  # configured before it publishes
            geometry = self.sim.geometry()
            self.geometry_pub.publish(geometry_to_msg(geometry, stamp))
        self.last_publish = time.monotonic()
        self.published.append(self.last_publish)
        if with_markers:
            self.markers_pub.publish(markers_to_msg(self.domain.markers(geometry), stamp))
        return stamp

    # ------------------------------------------------------------------ goals
    def on_goal(self, request: Any) -> GoalResponse:
        """Reject a goal while another one runs (one robot, one motion at a time)."""
        if self.busy.locked():
            self.get_logger().warning("goal rejected: the robot is busy with another goal")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def on_skill(self, goal_handle: ServerGoalHandle[Any, Any, Any]) -> RobotSkill.Result:
        request = goal_handle.request
        if not self.busy.acquire(blocking=False):
            goal_handle.abort()
            return RobotSkill.Result(success=False, reason="the robot is busy with another goal")
        try:
            if not self.active:
                goal_handle.abort()
                return RobotSkill.Result(success=False, reason=self.inactive_message())
            if goal_handle.is_cancel_requested:
                goal_handle.canceled()
                return RobotSkill.Result(success=False, reason="canceled before it started")
            goal_handle.publish_feedback(RobotSkill.Feedback(phase=request.skill, progress=0.0))
            with self.lock:
                assert self.sim is not None  # active, so configured
                success, reason = self.sim.execute_skill(request.skill, list(request.args))
            self.skills.append(time.monotonic())
            self.skill_count += 1
        finally:
            self.busy.release()
        stamp = self.publish_geometry(with_markers=True)
        if success:  # one severity per call site (rclpy)
            self.get_logger().info(f"{request.skill}: ok")
            goal_handle.succeed()
        else:
            self.get_logger().warning(f"{request.skill}: {reason}")
            goal_handle.abort()
        return RobotSkill.Result(success=success, reason=reason, stamp=stamp)

    def on_navigate(self, goal_handle: ServerGoalHandle[Any, Any, Any]) -> NavigateToPose.Result:
        if not self.busy.acquire(blocking=False):
            return self._nav_end(goal_handle, "the robot is busy with another goal")
        try:
            return self._navigate(goal_handle)
        finally:
            self.moved_at = time.monotonic()
            self.busy.release()

    def _navigate(self, goal_handle: ServerGoalHandle[Any, Any, Any]) -> NavigateToPose.Result:
        started = time.monotonic()
        pose = goal_handle.request.pose
        frame = pose.header.frame_id or MAP_FRAME
        if not self.active:
            return self._nav_end(goal_handle, self.inactive_message())
        if frame != MAP_FRAME:
            return self._nav_end(goal_handle, f"the goal is in frame '{frame}'; this robot navigates in '{MAP_FRAME}'")
        target = pose_from_stamped(pose)
        sim = cast("MobileBase", self.sim)  # the domain navigates, so its simulator has a mobile base
        assert sim is not None  # active, so configured
        with self.lock:
            poses, reason = sim.plan_navigation(target)
        if reason:
            return self._nav_end(goal_handle, reason)
        times, left = timeline(poses or [target], self.params["drive_speed_mps"], self.params["turn_speed_rps"])
        period = 1.0 / self.params["motion_feedback_hz"]
        k = 0
        while True:
            if goal_handle.is_cancel_requested:
                goal_handle.canceled()
                self.get_logger().info(f"navigation canceled, stopped {left[k]:.2f} m short")
                return NavigateToPose.Result(error_msg="canceled")
            if not self.active:
                return self._nav_end(goal_handle, f"stopped: {self.inactive_message()}")
            elapsed = time.monotonic() - started
            while k + 1 < len(times) and times[k + 1] <= elapsed:
                k += 1
            if poses:
                with self.lock:
                    sim.move_base(poses[k])
            stamp = self.get_clock().now().to_msg()
            goal_handle.publish_feedback(NavigateToPose.Feedback(
                current_pose=pose_stamped(poses[k] if poses else target, MAP_FRAME, stamp),
                navigation_time=to_duration(elapsed),
                estimated_time_remaining=to_duration(max(0.0, times[-1] - elapsed)),
                distance_remaining=float(left[k])))
            if k + 1 >= len(times):
                break
            time.sleep(min(period, max(0.0, times[k + 1] - elapsed)))
        self.skills.append(time.monotonic())
        self.skill_count += 1
        self.publish_geometry(with_markers=True)
        goal_handle.succeed()
        self.get_logger().info(f"navigated to ({target[0]:.2f}, {target[1]:.2f}): ok")
        return NavigateToPose.Result(error_code=NavigateToPose.Result.NONE)

    def _nav_end(self, goal_handle: ServerGoalHandle[Any, Any, Any], reason: str) -> NavigateToPose.Result:
        """Abort a navigation goal with the reason (Nav2's UNKNOWN error code)."""
        self.get_logger().warning(f"navigation: {reason}")
        goal_handle.abort()
        return NavigateToPose.Result(error_code=NavigateToPose.Result.UNKNOWN, error_msg=reason)

    # ------------------------------------------------------------------ other services
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
                  "skills served": self.skill_count, "world": self.domain.world_name,
                  "moving": self.busy.locked()}
        return OK, f"{self.domain.world_name}: {steps:.2f} skill steps/s, geometry at {rate:.1f} Hz", values, []

    def close(self) -> None:
        self.release()


def main() -> int:
    return run_node(SimulatorNode, threads=4)


if __name__ == "__main__":
    raise SystemExit(main())
