"""``llm-planner check-robot``: a running robot checked against the robot contract
(docs/guides/robot.md), in the spirit of ``ros2 doctor``: one table of checks, a fix per failure.

What is checked, in order (each names the interface in the robot's namespace):

1. ``robot/skill`` is served with the type llm_planner_interfaces/action/RobotSkill;
2. ``navigate_to_pose`` is served with the type nav2_msgs/action/NavigateToPose, and with the type
   hash of this install's definition (navigation2 1.4.2, Kilted: a newer nav2_msgs adds feedback
   fields, and a robot built against it does not talk to this planner);
3. ``perception/state`` is published (llm_planner_interfaces/msg/PerceivedState) and messages come,
   at a measured rate;
4. what it says fits the scene: the robot's room (IN_ROOM) and every name it reports are the scene's,
   each object is in one place, and the robot's own pose is among ``objects`` (name ``robot``);
5. every room and furniture of the scene has a pose to go to (the scene's ``approach`` or the
   layout's);
6. probes that move nothing: a navigation goal to where the robot stands succeeds, and a skill the
   contract does not have (``check_robot_probe``) is refused with a reason;
7. whether ``perception/full_state`` is published (optional: which planners can then run).

A check that cannot run because an earlier one failed is skipped, saying which.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import rclpy
from action_msgs.msg import GoalStatus
from llm_planner_interfaces.action import RobotSkill
from llm_planner_interfaces.msg import PerceivedState
from nav2_msgs.action import NavigateToPose
from rclpy.action import ActionClient
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node

from llm_planner.adapters.base import Domain
from llm_planner.planners.base import observing
from llm_planner_ros.conversions import percept_from_msg, pose_stamped
from llm_planner_ros.environment import apply_ros_environment
from llm_planner_ros.graph import UNKNOWN_NODE, qualified
from llm_planner_ros.node_utils import ACTION_QOS, GEOMETRY_QOS

OK, FAIL, WARN, SKIP, INFO = "ok", "FAIL", "warn", "skip", "info"
GUIDE = "docs/guides/robot.md"
SKILL_TYPE = "llm_planner_interfaces/action/RobotSkill"
NAVIGATE_TYPE = "nav2_msgs/action/NavigateToPose"
PERCEPTION_TYPE = "llm_planner_interfaces/msg/PerceivedState"
#: The skill name of the harmless skill probe: no robot of the contract has it.
PROBE_SKILL = "check_robot_probe"
#: How far (m, rad) the robot may end from where it stood after the navigation probe.
PROBE_TOLERANCE = 0.05


@dataclass(frozen=True)
class Check:
    """One row of the table: what was checked, the result, what was found, and the fix."""

    name: str
    result: str
    detail: str
    fix: str = ""


@dataclass
class Report:
    checks: list[Check] = field(default_factory=list)

    def add(self, name: str, result: str, detail: str, fix: str = "") -> Check:
        check = Check(name, result, detail, fix)
        self.checks.append(check)
        return check

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.result == FAIL]

    def table(self) -> str:
        """The checks as a table, then one fix per failure."""
        width = max(len(c.name) for c in self.checks) if self.checks else 5
        lines = [f"{'check':<{width}}  result  detail", f"{'-' * width}  ------  ------"]
        lines += [f"{c.name:<{width}}  {c.result:<6}  {c.detail}" for c in self.checks]
        failed = self.failed
        if failed:
            lines += ["", f"{len(failed)} of {len(self.checks)} checks failed; to fix:"]
            lines += [f"- {c.name}: {c.fix}" for c in failed]
        else:
            lines += ["", f"all {len(self.checks)} checks passed" +
                      (f" ({sum(c.result == WARN for c in self.checks)} warning(s))"
                       if any(c.result == WARN for c in self.checks) else "")]
        return "\n".join(lines)


class RobotChecker:
    """The checks of the module docstring against the robot in ``namespace``, for ``domain``'s world."""

    def __init__(self, domain: Domain, namespace: str = "", wait_s: float = 10.0, probe_s: float = 60.0) -> None:
        apply_ros_environment()
        self.domain = domain
        self.wait_s = wait_s
        self.probe_s = probe_s
        self.context = rclpy.Context()
        # args=[]: this process's command line (namespace:=NS) is no ROS remapping
        rclpy.init(args=[], context=self.context, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
        self.node = Node("llm_planner_check_robot", namespace=namespace.strip("/"), context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.messages: list[tuple[float, PerceivedState]] = []
        self.node.create_subscription(PerceivedState, "perception/state",
                                      lambda m: self.messages.append((time.monotonic(), m)), GEOMETRY_QOS)
        self.report = Report()

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        if self.context.ok():
            rclpy.shutdown(context=self.context)

    def __enter__(self) -> RobotChecker:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ helpers
    def name(self, relative: str) -> str:
        return self.node.resolve_topic_name(relative)

    def spin_until(self, done: Callable[[], bool], timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while not done() and time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.05)
        return done()

    def action_types(self, relative: str) -> list[str]:
        """The types of the action servers of ``relative`` (empty: nobody serves it; clients of the
        action, such as the executor's, do not count): the feedback topic only servers publish."""
        infos = self.node.get_publishers_info_by_topic(f"{self.name(relative)}/_action/feedback")
        return sorted({i.topic_type.removesuffix("_FeedbackMessage") for i in infos})

    def server_of(self, relative: str) -> str:
        """The node serving the action ``relative`` (for the table), or "" when DDS has not named it."""
        for info in self.node.get_publishers_info_by_topic(f"{self.name(relative)}/_action/feedback"):
            if info.node_name != UNKNOWN_NODE:
                return qualified(info.node_name, info.node_namespace)
        return ""

    # ------------------------------------------------------------------ the checks
    def run(self) -> Report:
        skill = self.check_action("robot/skill", SKILL_TYPE, "#skills")
        navigate = self.check_navigate() if self.domain.navigates else False
        percept = self.check_perception()
        if percept is not None:
            self.check_content(percept)
        else:
            self.report.add("perception content", SKIP, "no perception/state message to read")
        self.check_poses()
        if navigate and percept is not None:
            self.probe_navigation(percept)
        elif self.domain.navigates:
            self.report.add("navigation probe", SKIP, "needs navigate_to_pose and perception/state")
        if skill:
            self.probe_skill()
        else:
            self.report.add("skill probe", SKIP, "needs robot/skill")
        self.check_full_state()
        return self.report

    def check_action(self, relative: str, wanted: str, anchor: str) -> bool:
        name = self.name(relative)
        self.spin_until(lambda: bool(self.action_types(relative)), self.wait_s)
        types = self.action_types(relative)
        if not types:
            self.report.add(relative, FAIL, f"no action server {name} (waited {self.wait_s:g} s)",
                            f"serve {wanted} on {name} ({GUIDE}{anchor}); is the robot running, in this namespace "
                            "and ROS_DOMAIN_ID?")
            return False
        if wanted not in types:
            self.report.add(relative, FAIL, f"{name} has the type {', '.join(types)}",
                            f"serve {wanted} there ({GUIDE}{anchor})")
            return False
        self.spin_until(lambda: bool(self.server_of(relative)), self.wait_s)  # endpoints come after the name
        server = self.server_of(relative)
        self.report.add(relative, OK, f"{wanted}" + (f", served by {server}" if server else ""))
        return True

    def check_navigate(self) -> bool:
        if not self.check_action("navigate_to_pose", NAVIGATE_TYPE, "#going-places"):
            return False
        theirs = self.feedback_hash()
        ours = self.local_feedback_hash()
        if theirs and ours and theirs != ours:
            self.report.add("NavigateToPose type hash", FAIL,
                            f"the robot's feedback type hash {theirs[:18]}... differs from this install's "
                            f"{ours[:18]}...",
                            "the robot's nav2_msgs is another release: build it against Nav2 Kilted (navigation2 "
                            f"1.4.x), whose NavigateToPose this planner speaks ({GUIDE}#going-places)")
            return False
        if theirs:
            self.report.add("NavigateToPose type hash", OK, f"{theirs[:22]}... (navigation2 1.4.2, Kilted)")
        else:
            self.report.add("NavigateToPose type hash", WARN,
                            "the robot's feedback publisher was not seen: not compared")
        return True

    def feedback_hash(self) -> str:
        infos = self.node.get_publishers_info_by_topic(f"{self.name('navigate_to_pose')}/_action/feedback")
        return str(infos[0].topic_type_hash) if infos else ""

    def local_feedback_hash(self) -> str:
        """The type hash of this install's NavigateToPose feedback message (as the graph reports it)."""
        topic = "check_robot_probe_feedback_type"
        pub = self.node.create_publisher(NavigateToPose.Impl.FeedbackMessage, topic, 1)
        try:
            infos = self.node.get_publishers_info_by_topic(self.name(topic))
            return str(infos[0].topic_type_hash) if infos else ""
        finally:
            self.node.destroy_publisher(pub)

    def check_perception(self) -> PerceivedState | None:
        name = self.name("perception/state")
        if not self.spin_until(lambda: bool(self.messages), self.wait_s):
            publishers = self.node.get_publishers_info_by_topic(name)
            if not publishers:
                self.report.add("perception/state", FAIL, f"nobody publishes {name} (waited {self.wait_s:g} s)",
                                f"publish {PERCEPTION_TYPE} on {name} ({GUIDE}#perception)")
            else:
                types = {p.topic_type for p in publishers}
                self.report.add("perception/state", FAIL, f"{name} is published ({', '.join(types)}) but no message "
                                f"came in {self.wait_s:g} s", "publish at a steady rate (a few Hz) with reliable QoS "
                                f"({GUIDE}#perception)")
            return None
        window = min(self.wait_s, 3.0)
        first = len(self.messages)
        self.spin_until(lambda: False, window)
        rate = (len(self.messages) - first) / window
        latest = self.messages[-1][1]
        if rate <= 0:
            self.report.add("perception/state", WARN, f"one message, then none in {window:g} s",
                            f"publish at a steady rate ({GUIDE}#perception)")
        else:
            self.report.add("perception/state", OK, f"{PERCEPTION_TYPE} at {rate:.1f} Hz")
        return latest

    def check_content(self, msg: PerceivedState) -> None:
        percept = percept_from_msg(msg)
        problems, warnings = self.domain.percept_problems(percept)
        if problems:
            self.report.add("perception content", FAIL, "; ".join(problems[:3]),
                            f"report the scene's names ({GUIDE}#perception): fix the robot's names, or the scene file")
        elif warnings:
            self.report.add("perception content", WARN, "; ".join(warnings[:3]), f"see {GUIDE}#perception")
        else:
            self.report.add("perception content", OK, f"in {percept.room}; {len(percept.predicates)} predicate(s), "
                            "every name the scene's")

    def check_poses(self) -> None:
        coverage = self.domain.place_coverage()
        if coverage is None:
            return
        if coverage.missing:
            name, why = next(iter(coverage.missing.items()))
            self.report.add("place poses", FAIL, f"{len(coverage.missing)} place(s) without a pose: {name}: {why}",
                            f"give approach: [x, y, yaw] for {', '.join(sorted(coverage.missing)[:5])} in the scene "
                            f"file ({GUIDE}#the-map)")
            return
        self.report.add("place poses", OK, f"{coverage.posed} rooms and furniture: {coverage.from_scene} from the "
                        f"scene file, {coverage.posed - coverage.from_scene} derived from the layout")

    def probe_navigation(self, msg: PerceivedState) -> None:
        robot = next((b for b in percept_from_msg(msg).bodies if b.name == "robot"), None)
        if robot is None:
            self.report.add("navigation probe", SKIP, "the robot reports no pose of its own (objects: robot)")
            return
        here = (robot.position[0], robot.position[1], robot.yaw)
        client: ActionClient[Any, Any, Any] = ActionClient(self.node, NavigateToPose, "navigate_to_pose", **ACTION_QOS)
        try:
            goal = NavigateToPose.Goal(pose=pose_stamped(here, "map", self.node.get_clock().now().to_msg()))
            status, result, detail = self.send(client, goal)
        finally:
            client.destroy()
        where = f"({here[0]:.2f}, {here[1]:.2f}, yaw {here[2]:.2f})"
        if status != GoalStatus.STATUS_SUCCEEDED:
            self.report.add("navigation probe", FAIL, f"a goal to where the robot stands {where}: {detail}",
                            "a NavigateToPose goal to the robot's own pose must succeed at once without moving it "
                            f"({GUIDE}#going-places)")
            return
        after = self.latest_robot_pose()
        if after is not None and (math.dist(after[:2], here[:2]) > PROBE_TOLERANCE):
            self.report.add("navigation probe", WARN, f"succeeded, but the robot now reports "
                            f"({after[0]:.2f}, {after[1]:.2f})", "a goal to where it stands should not move it")
            return
        self.report.add("navigation probe", OK, f"a goal to where the robot stands {where} succeeded")

    def latest_robot_pose(self) -> tuple[float, float, float] | None:
        count = len(self.messages)
        self.spin_until(lambda: len(self.messages) > count, min(self.wait_s, 2.0))
        robot = next((b for b in percept_from_msg(self.messages[-1][1]).bodies if b.name == "robot"), None)
        return (robot.position[0], robot.position[1], robot.yaw) if robot else None

    def probe_skill(self) -> None:
        client: ActionClient[Any, Any, Any] = ActionClient(self.node, RobotSkill, "robot/skill", **ACTION_QOS)
        try:
            status, result, detail = self.send(client, RobotSkill.Goal(skill=PROBE_SKILL, args=[]))
        finally:
            client.destroy()
        if result is None:
            self.report.add("skill probe", FAIL, f"a skill it does not have ({PROBE_SKILL}): {detail}",
                            f"answer every skill goal, refusing one you do not have with a reason ({GUIDE}#skills)")
        elif result.success:
            self.report.add("skill probe", FAIL, f"the robot said it did the skill {PROBE_SKILL}, which no robot has",
                            f"refuse a skill you do not have: success false and a reason ({GUIDE}#skills)")
        elif not result.reason.strip():
            self.report.add("skill probe", WARN, f"{PROBE_SKILL} refused without a reason",
                            f"say why a skill fails in reason ({GUIDE}#skills)")
        else:
            self.report.add("skill probe", OK, f"{PROBE_SKILL} refused: {result.reason[:80]}")

    def send(self, client: ActionClient, goal: Any) -> tuple[int, Any, str]:
        """Send one goal: (final status, result or None, what happened in words)."""
        if not client.wait_for_server(timeout_sec=self.wait_s):
            return GoalStatus.STATUS_UNKNOWN, None, f"the server did not appear within {self.wait_s:g} s"
        sent = client.send_goal_async(goal)
        if not self.spin_until(sent.done, self.wait_s):
            return GoalStatus.STATUS_UNKNOWN, None, f"the goal was not answered within {self.wait_s:g} s"
        handle = sent.result()
        if handle is None or not handle.accepted:
            return GoalStatus.STATUS_UNKNOWN, None, "the goal was rejected"
        done = handle.get_result_async()
        if not self.spin_until(done.done, self.probe_s):
            handle.cancel_goal_async()
            return GoalStatus.STATUS_UNKNOWN, None, f"no result within {self.probe_s:g} s (the goal was canceled)"
        response = done.result()
        if response is None:
            return GoalStatus.STATUS_UNKNOWN, None, "the result could not be read"
        status, result = response.status, response.result
        names = {GoalStatus.STATUS_SUCCEEDED: "succeeded", GoalStatus.STATUS_ABORTED: "aborted",
                 GoalStatus.STATUS_CANCELED: "canceled"}
        said = getattr(result, "error_msg", "") or getattr(result, "reason", "")
        return status, result, names.get(status, f"status {status}") + (f": {said}" if said else "")

    def check_full_state(self) -> None:
        if not self.domain.privileged_topics:
            return
        topics = [self.name(f"perception/{t}") for t in self.domain.privileged_topics]
        published = all(self.node.count_publishers(t) > 0 for t in topics)
        can = ", ".join(observing(self.domain.name))
        if published:
            self.report.add("full state (optional)", INFO, f"{', '.join(topics)} is published: every planner can run")
        else:
            self.report.add("full state (optional)", INFO, f"{', '.join(topics)} is not published (a real robot has "
                            f"no such view): the planners that need it refuse; these run: {can}")
