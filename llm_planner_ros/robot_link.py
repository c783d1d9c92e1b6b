"""The executor's link to the robot over ROS (a :class:`llm_planner.execution.RobotLink`): one
``robot/skill`` call at a time and the latest message of each perception topic.

Before a skill, and while the observation after it is late, the simulator and perception are
asked their lifecycle state (:class:`~llm_planner_ros.node_states.LifecycleStates`, bounded by
``lifecycle_wait_s``): a node that is not active fails the task at once, named first with its state
and the fix. Every wait is bounded by a parameter (``node_timeout_s`` for a skill,
``perception_wait_s`` for the observation after it), and a node that stops answering is named from
the ROS graph: the node that served the skill or published the latest message, and whether it has
left the graph.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from llm_planner_interfaces.msg import PerceivedState
from llm_planner_interfaces.srv import RobotSkill
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.client import Client
from rclpy.node import Node

from llm_planner.adapters.base import Domain
from llm_planner.domains.percept import Percept
from llm_planner.errors import LlmPlannerError
from llm_planner_ros.conversions import percept_from_msg, time_to_ns
from llm_planner_ros.graph import is_alive, presence, publisher_of, server_of
from llm_planner_ros.node_states import LifecycleStates
from llm_planner_ros.node_utils import GEOMETRY_QOS, SERVICE_QOS

#: How often a wait on a node checks whether it is still in the ROS graph.
GRAPH_POLL_S = 0.5


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
    """The latest message of each perception topic of a domain, the node that published it, and a
    bounded wait for one computed at or after a given time that gives up early when ``check`` (asked
    every ``GRAPH_POLL_S``) names a node that is down."""

    def __init__(self, node: Node, domain: Domain) -> None:
        self.node = node
        self.params = domain.params
        self.topics = {t: node.resolve_topic_name(f"perception/{t}") for t in domain.perception_topics}
        self.latest = {t: LatestMessage() for t in domain.perception_topics}
        self.publishers: dict[str, str | None] = {}  # topic -> the node that published its latest message
        group = MutuallyExclusiveCallbackGroup()
        for topic in domain.perception_topics:
            node.create_subscription(PerceivedState, f"perception/{topic}",
                                     lambda m, info, t=topic: self._store(t, m, info), GEOMETRY_QOS,
                                     callback_group=group)

    def _store(self, topic: str, msg: PerceivedState, info: Any = None) -> None:
        gid = info.get("publisher_gid") if isinstance(info, dict) else None
        self.publishers[topic] = publisher_of(self.node, self.topics[topic], gid) or self.publishers.get(topic)
        self.latest[topic].store(msg)

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
        """The latest percept of every topic (waiting for the first ones)."""
        return {t: self.percept(t) for t in self.topics}


#: The nodes the executor's robot depends on, in the order a fault is blamed (perception is silent
#: when the simulator that feeds it is down).
ROBOT_NODES = ("simulator", "perception")


class RosRobotLink:
    def __init__(self, node: Node, domain: Domain) -> None:
        self.node = node
        self.params = domain.params
        self.skill_client: Client[Any, Any] = node.create_client(RobotSkill, "robot/skill", qos_profile=SERVICE_QOS,
                                               callback_group=ReentrantCallbackGroup())
        self.skill_service = node.resolve_service_name("robot/skill")
        self.simulator: str | None = None  # the node seen serving robot/skill
        self.perception = PerceptionCache(node, domain)
        self.states = LifecycleStates(node, ROBOT_NODES)
        self.last_path: list[tuple[float, float]] = []  # the base path the last skill drove
        self.last_stamp_ns = 0  # the stamp of the geometry published after the last skill

    def problem(self) -> str:
        """The first node the robot depends on (simulator, then perception) that is not active, its
        state and the fix; "" when both are active. Bounded by ``lifecycle_wait_s`` per node."""
        return self.states.first_problem(ROBOT_NODES, self.params["lifecycle_wait_s"])

    def percept(self, topic: str, after_ns: int) -> Percept:
        """The latest percept of ``topic`` stamped at or after ``after_ns`` (see :class:`PerceptionCache`);
        while it is late, the simulator and perception are asked their state."""
        return self.perception.percept(topic, after_ns, self.problem)

    # ------------------------------------------------------------------ skills
    def skill(self, name: str, args: list[str]) -> tuple[bool, str, int]:
        """One skill call: (success, reason, stamp of the geometry published after it); LlmPlannerError
        naming the simulator when it does not answer within ``node_timeout_s``."""
        problem = self.problem()
        if problem:
            raise LlmPlannerError(f"{problem} (no skill was sent: {name})")
        timeout = self.params["node_timeout_s"]
        service = self.skill_service
        if not self.skill_client.wait_for_service(timeout_sec=timeout):
            raise LlmPlannerError(f"{self._who()} does not serve {service} (waited "
                                  f"{timeout:g} s, parameter node_timeout_s); {presence(self.node, self.simulator)}")
        self.simulator = server_of(self.node, service) or self.simulator
        future = self.skill_client.call_async(RobotSkill.Request(action=name, args=args))
        answered = threading.Event()
        future.add_done_callback(lambda _: answered.set())
        deadline = time.monotonic() + timeout
        while not answered.wait(GRAPH_POLL_S) and not future.done():
            gone = self.simulator is not None and not is_alive(self.node, self.simulator)
            if gone or time.monotonic() > deadline:
                self.skill_client.remove_pending_request(future)
                shown = " ".join(args) if len(" ".join(args)) < 80 else f"{len(args)} argument(s)"
                raise LlmPlannerError(f"{self._who()} did not answer the skill {name} {shown} "
                                      f"{'and' if gone else f'within {timeout:g} s (parameter node_timeout_s);'} "
                                      f"{presence(self.node, self.simulator)}")
        response = future.result()
        assert response is not None  # the call is done (a failed call raised)
        self.last_path, self.last_stamp_ns = [(p.x, p.y) for p in response.path], time_to_ns(response.stamp)
        return bool(response.success), response.reason, self.last_stamp_ns

    def _who(self) -> str:
        return f"the simulator node '{self.simulator}'" if self.simulator else "the simulator node"
