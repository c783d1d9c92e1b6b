"""The executor's link to the robot over ROS (a :class:`llm_planner.execution.RobotLink`): the robot
contract of docs/guides/robot.md, and nothing private to our simulator.

- Going places: ``navigate_to_pose`` (nav2_msgs/action/NavigateToPose), the goal pose in ``map``.
- Every other action: ``robot/skill`` (llm_planner_interfaces/action/RobotSkill), with the poses the
  scene gives for its arguments.
- Perception: the latest ``perception/state`` (and, for planners that need it, the optional
  ``perception/full_state`` that only the simulator's perception publishes).

A goal under way is canceled as soon as the task is (the base stops), and every wait is bounded by a
parameter: ``node_timeout_s`` for a server to appear and accept a goal and for a goal to end after its
cancel, ``skill_timeout_s`` for a goal to end, ``server_absent_s`` for a server gone from the graph,
``perception_wait_s`` for the observation after a goal. With ``robot: simulated`` the simulator and
perception nodes are also asked their lifecycle state (:class:`~llm_planner_ros.node_states.
LifecycleStates`, ``lifecycle_wait_s``) before each goal and while perception is late: a node that
is not active fails the task at once, named with its state and the fix. A node that stops answering
is named from the ROS graph.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from action_msgs.msg import GoalStatus
from geometry_msgs.msg import PoseStamped
from llm_planner_interfaces.action import RobotSkill
from llm_planner_interfaces.msg import PerceivedState
from nav2_msgs.action import NavigateToPose
from rclpy.action import ActionClient
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node

from llm_planner.adapters.base import Domain
from llm_planner.config import SIMULATED_ROBOT
from llm_planner.domains.percept import Percept
from llm_planner.domains.skill import Navigate, Pose2D, SkillOutcome, SkillRequest
from llm_planner.errors import LlmPlannerError
from llm_planner_ros.conversions import percept_from_msg, pose_stamped, time_to_ns
from llm_planner_ros.goals import follow_goal, send_goal
from llm_planner_ros.graph import presence, publisher_of, server_of
from llm_planner_ros.node_states import LifecycleStates
from llm_planner_ros.node_utils import ACTION_QOS, GEOMETRY_QOS

#: How often a wait on a node checks whether it is still in the ROS graph.
GRAPH_POLL_S = 0.5
#: The robot contract's interfaces (relative names) and their types.
NAVIGATE, SKILL = "navigate_to_pose", "robot/skill"
MAP_FRAME = "map"


class LatestMessage:
    """The latest message of a topic (with a ``header``), and a bounded wait for one stamped at or
    after a given time. ``store`` is the subscription callback."""

    def __init__(self) -> None:
        self.msg: Any = None
        self.changed = threading.Condition()

    def store(self, msg: Any) -> None:
        with self.changed:
            self.msg = msg
            self.changed.notify_all()

    def wait(self, after_ns: int, timeout_s: float) -> Any:
        """The latest message stamped at or after ``after_ns``, or None after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        with self.changed:
            while True:
                if self.msg is not None and time_to_ns(self.msg.header.stamp) >= after_ns:
                    return self.msg
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.changed.wait(remaining)


class PerceptionCache:
    """The latest message of each perception topic of a domain (its ``perception_topics`` and the
    optional ``privileged_topics``), the node that published it, and a bounded wait for one computed
    at or after a given time that gives up early when ``check`` (asked every ``GRAPH_POLL_S``) names
    a node that is down."""

    def __init__(self, node: Node, domain: Domain) -> None:
        self.node = node
        self.domain = domain
        self.params = domain.params
        names = domain.perception_topics + domain.privileged_topics
        self.topics = {t: node.resolve_topic_name(f"perception/{t}") for t in names}
        self.latest = {t: LatestMessage() for t in names}
        self.publishers: dict[str, str | None] = {}  # topic -> the node that published its latest message
        group = MutuallyExclusiveCallbackGroup()
        for topic in names:
            node.create_subscription(PerceivedState, f"perception/{topic}",
                                     lambda m, info, t=topic: self._store(t, m, info), GEOMETRY_QOS,
                                     callback_group=group)

    def _store(self, topic: str, msg: PerceivedState, info: Any = None) -> None:
        gid = info.get("publisher_gid") if isinstance(info, dict) else None
        self.publishers[topic] = publisher_of(self.node, self.topics[topic], gid) or self.publishers.get(topic)
        self.latest[topic].store(msg)

    def publishes(self, topic: str) -> bool:
        """Whether some node publishes ``perception/<topic>`` now."""
        return self.node.count_publishers(self.topics[topic]) > 0

    def percept(self, topic: str, after_ns: int = 0, check: Callable[[], str] = lambda: "") -> Percept:
        """The latest percept of ``topic`` stamped at or after ``after_ns``. LlmPlannerError with what
        ``check`` says as soon as it says something (a node of the graph is down), or naming the
        silent node after ``perception_wait_s``."""
        wait_s = self.params["perception_wait_s"]
        deadline = time.monotonic() + wait_s
        while True:
            remaining = deadline - time.monotonic()
            msg = self.latest[topic].wait(after_ns, max(0.0, min(GRAPH_POLL_S, remaining)))
            if msg is not None:
                return percept_from_msg(msg)
            problem = check()
            if problem:
                raise LlmPlannerError(problem)
            if remaining <= 0:
                break
        name, owner = self.topics[topic], self.publishers.get(topic)
        who = f"the perception node '{owner}'" if owner else "the perception node (its name is unknown)"
        what = "after the last skill" if after_ns else "yet"
        raise LlmPlannerError(f"{who} is active but published no {name} {what} (waited {wait_s:g} s, parameter "
                              f"perception_wait_s); {presence(self.node, owner, 'publishing it')}")

    def percepts(self) -> dict[str, Percept]:
        """The latest percept of every perception topic (waiting for the first ones), and of each
        privileged topic that some node publishes."""
        names = self.domain.perception_topics + tuple(t for t in self.domain.privileged_topics if self.publishes(t))
        return {t: self.percept(t) for t in names}


#: The nodes of the simulated robot, in the order a fault is blamed (perception is silent when the
#: simulator that feeds it is down). An external robot's nodes are not asked their lifecycle state.
ROBOT_NODES = SIMULATED_ROBOT


class RosRobotLink:
    """The robot contract's clients: ``navigate_to_pose`` (when the domain goes places), ``robot/skill``
    and the perception topics."""

    def __init__(self, node: Node, domain: Domain) -> None:
        self.node = node
        self.params = domain.params
        group = ReentrantCallbackGroup()
        self.clients: dict[str, ActionClient] = {
            SKILL: ActionClient(node, RobotSkill, SKILL, callback_group=group, **ACTION_QOS)}
        if domain.navigates:
            self.clients[NAVIGATE] = ActionClient(node, NavigateToPose, NAVIGATE, callback_group=group, **ACTION_QOS)
        self.servers: dict[str, str | None] = {}  # interface -> the node seen serving it
        self.perception = PerceptionCache(node, domain)
        self.simulated = self.params["robot"] == "simulated"
        self.states = LifecycleStates(node, ROBOT_NODES) if self.simulated else None
        self.last_path: list[tuple[float, float]] = []  # the base path the last goal drove (map frame)
        self.last_stamp_ns = 0  # the stamp perception must reach to show the last goal's outcome

    def problem(self) -> str:
        """The first node of the simulated robot (simulator, then perception) that is not active, its
        state and the fix; "" when both are active or the robot is external. Bounded by
        ``lifecycle_wait_s`` per node."""
        if self.states is None:
            return ""
        return self.states.first_problem(ROBOT_NODES, self.params["lifecycle_wait_s"])

    def percept(self, topic: str, after_ns: int) -> Percept:
        """The latest percept of ``topic`` stamped at or after ``after_ns`` (see :class:`PerceptionCache`);
        while it is late, the simulated robot's nodes are asked their state."""
        return self.perception.percept(topic, after_ns, self.problem)

    def publishes(self, topic: str) -> bool:
        return self.perception.publishes(topic)

    # ------------------------------------------------------------------ goals
    def navigate(self, command: Navigate, should_stop: Callable[[], bool]) -> tuple[SkillOutcome, int]:
        """Drive to the pose of ``command.target``: (outcome, the executor's clock when the goal
        ended: perception stamped after it shows where the robot stopped). The path is the poses of
        the feedback (``last_path``)."""
        path: list[tuple[float, float]] = []

        def on_feedback(message: Any) -> None:
            position = message.feedback.current_pose.pose.position
            path.append((position.x, position.y))

        goal = NavigateToPose.Goal(pose=self._pose(command.pose))
        end = self._run(NAVIGATE, goal, on_feedback, should_stop, f"walk to {command.target}")
        self.last_path, self.last_stamp_ns = path, self.node.get_clock().now().nanoseconds
        if end.status == GoalStatus.STATUS_SUCCEEDED:
            return SkillOutcome(True), self.last_stamp_ns
        if end.status == GoalStatus.STATUS_CANCELED:
            return SkillOutcome(False, f"canceled on the way to {command.target}"), self.last_stamp_ns
        why = end.result.error_msg or f"navigation error code {end.result.error_code}"
        return SkillOutcome(False, why), self.last_stamp_ns

    def skill(self, command: SkillRequest, should_stop: Callable[[], bool]) -> tuple[SkillOutcome, int]:
        """One skill: (outcome, the stamp of its end as the robot gives it, else this node's clock)."""
        poses = [self._pose(p) if p is not None else PoseStamped() for p in command.poses]
        goal = RobotSkill.Goal(skill=command.name, args=list(command.args), poses=poses)
        shown = " ".join(command.args) if len(" ".join(command.args)) < 80 else f"{len(command.args)} argument(s)"
        end = self._run(SKILL, goal, None, should_stop, f"skill {command.name} {shown}")
        self.last_path = []
        self.last_stamp_ns = time_to_ns(end.result.stamp) or self.node.get_clock().now().nanoseconds
        if end.status == GoalStatus.STATUS_CANCELED:
            return SkillOutcome(False, f"canceled during {command.name}"), self.last_stamp_ns
        return SkillOutcome(bool(end.result.success), end.result.reason), self.last_stamp_ns

    def _pose(self, pose: Pose2D) -> PoseStamped:
        return pose_stamped(pose, MAP_FRAME, self.node.get_clock().now().to_msg())

    def _run(self, interface: str, goal: Any, feedback: Callable[[Any], None] | None,
             should_stop: Callable[[], bool], what: str) -> Any:
        """Send one goal and follow it to its end (:func:`~llm_planner_ros.goals.follow_goal`)."""
        problem = self.problem()
        if problem:
            raise LlmPlannerError(f"{problem} (no goal was sent: {what})")
        client, wait_s = self.clients[interface], self.params["node_timeout_s"]
        if not client.server_is_ready() and not client.wait_for_server(timeout_sec=wait_s):
            raise LlmPlannerError(f"{self._who(interface)} does not serve {self._name(interface)} (waited "
                                  f"{wait_s:g} s, parameter node_timeout_s); "
                                  f"{presence(self.node, self.servers.get(interface))}")
        def gone() -> str:
            return (f"{self._who(interface)} left the ROS graph during the {what} (it died or was stopped); "
                    "restart it and send the task again")

        handle = send_goal(client, goal, feedback, wait_s,
                           lambda: f"{self._who(interface)} did not accept the {what} within {wait_s:g} s",
                           gone, self.params["server_absent_s"])
        self.servers[interface] = server_of(self.node, f"{self._name(interface)}/_action/send_goal") \
            or self.servers.get(interface)
        limit = self.params["skill_timeout_s"]
        return follow_goal(
            client, handle, should_cancel=should_stop, limit_s=limit, absent_s=self.params["server_absent_s"],
            cancel_wait_s=wait_s,
            gone=gone,
            overrun=lambda s: (f"{self._who(interface)} did not end the {what} within {s:.0f} s (parameters "
                               "skill_timeout_s, and node_timeout_s after a cancel); it was asked to cancel"))

    def _name(self, interface: str) -> str:
        return self.node.resolve_topic_name(interface)

    def _who(self, interface: str) -> str:
        owner = self.servers.get(interface)
        role = "the simulator node" if self.simulated else "the robot's node"
        return f"{role} '{owner}'" if owner else f"{role} serving {self._name(interface)}"
