"""The lifecycle state of the graph's nodes as another node asks it (``<node>/get_state``), and the
fix that works from each state.

One client serves the lifecycle manager (which brings the nodes up) and the executor (which asks
the simulator and perception before a skill and when perception is silent), so both see a node
the same way. A state is one of the primary states of the ROS 2 lifecycle (unconfigured, inactive,
active, finalized), a transition under way (configuring, activating, ...), or one of two
conditions of the process: ``not running`` (no lifecycle service in the graph) and
``not answering`` (the service is there, the call is not answered in time: the process died a
moment ago and DDS has not noticed yet, or it hangs).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lifecycle_msgs.msg import State
from lifecycle_msgs.srv import GetState
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.client import Client
from rclpy.node import Node

from llm_planner_ros.graph import is_alive
from llm_planner_ros.node_utils import wait_future

ACTIVE, INACTIVE, UNCONFIGURED, FINALIZED = "active", "inactive", "unconfigured", "finalized"
NOT_RUNNING, NOT_ANSWERING = "not running", "not answering"
LABELS = {State.PRIMARY_STATE_UNCONFIGURED: UNCONFIGURED, State.PRIMARY_STATE_INACTIVE: INACTIVE,
          State.PRIMARY_STATE_ACTIVE: ACTIVE, State.PRIMARY_STATE_FINALIZED: FINALIZED}


def fix(name: str, state: str) -> str:
    """The command that brings the node ``name`` (fully qualified) from ``state`` back to active."""
    if state == INACTIVE:
        return f"activate it with `ros2 lifecycle set {name} activate`"
    if state == UNCONFIGURED:
        return (f"bring it up with `ros2 lifecycle set {name} configure` then `ros2 lifecycle set {name} activate` "
                "(the lifecycle manager does both at launch)")
    if state == FINALIZED:
        return ("no lifecycle transition leaves finalized: relaunch the graph (stop the launch with Ctrl-C and start "
                "it again), or end this node's process and start it again (the lifecycle manager brings a restarted "
                "node to active)")
    if state in (NOT_RUNNING, NOT_ANSWERING):
        return ("restart it (relaunch the graph, or start the node again: the lifecycle manager brings a restarted "
                "node to active) and send the task again")
    return f"it is {state}: send the task again once it is active (`ros2 lifecycle get {name}`)"


@dataclass(frozen=True)
class NodeState:
    """What a ``get_state`` call found out about one node."""

    role: str   # the node's role (simulator, perception, ...)
    name: str   # its fully qualified name
    state: str  # a label of LABELS, a transition's label, NOT_RUNNING or NOT_ANSWERING
    id: int | None = None  # lifecycle_msgs/State id, None when the node did not answer

    @property
    def active(self) -> bool:
        return self.state == ACTIVE

    def problem(self, waited_s: float) -> str:
        """Why this node cannot serve a task, and the fix; "" when it is active."""
        who = f"the {self.role} node '{self.name}'"
        if self.state == ACTIVE:
            return ""
        if self.state == NOT_RUNNING:
            return (f"{who} is not running (no {self.name}/get_state service in the ROS graph); "
                    f"{fix(self.name, self.state)}")
        if self.state == NOT_ANSWERING:
            return (f"{who} does not answer {self.name}/get_state within {waited_s:g} s (parameter lifecycle_wait_s): "
                    f"it died a moment ago or hangs; {fix(self.name, self.state)}")
        return f"{who} is {self.state}; {fix(self.name, self.state)}"


class LifecycleStates:
    """``get_state`` clients of the nodes ``roles`` (relative names: the caller's namespace)."""

    def __init__(self, node: Node, roles: Iterable[str]) -> None:
        self.node = node
        group = ReentrantCallbackGroup()
        self.clients_: dict[str, Client[Any, Any]] = {
            role: node.create_client(GetState, f"{role}/get_state", callback_group=group) for role in roles}

    def name(self, role: str) -> str:
        """The fully qualified name of the node of ``role``."""
        return self.node.resolve_service_name(f"{role}/get_state").removesuffix("/get_state")

    def query(self, role: str, timeout_s: float, discover_s: float = 0.0) -> NodeState:
        """The state of the node of ``role``, waiting at most ``timeout_s`` for its answer, and first at
        most ``discover_s`` for DDS to show its service (a node restarted a moment ago is seen by each
        other node on its own time)."""
        client, name = self.clients_[role], self.name(role)
        if not client.service_is_ready() and not (discover_s > 0 and client.wait_for_service(timeout_sec=discover_s)):
            return NodeState(role, name, NOT_RUNNING)
        future = client.call_async(GetState.Request())
        response = wait_future(future, timeout_s)
        if response is None:
            client.remove_pending_request(future)
            state = NOT_ANSWERING if is_alive(self.node, name) or client.service_is_ready() else NOT_RUNNING
            return NodeState(role, name, state)
        current = response.current_state
        return NodeState(role, name, LABELS.get(current.id, current.label or f"state {current.id}"), current.id)

    def first_problem(self, roles: Iterable[str], timeout_s: float) -> str:
        """The problem of the first node of ``roles`` (in that order) that is not active, or "": each
        node's service is looked for, and its answer waited for, ``timeout_s`` at most."""
        for role in roles:
            problem = self.query(role, timeout_s, discover_s=timeout_s).problem(timeout_s)
            if problem:
                return problem
        return ""
