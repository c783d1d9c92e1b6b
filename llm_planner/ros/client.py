"""A small facade over the llm_planner ROS interfaces for scripts and the CLI (like
nav2_simple_commander's BasicNavigator): it hides node, executor and future plumbing.

    with PlannerClient() as client:
        result = client.plan_task("put one apple inside the fridge", execute=True)
        print(result["success"], result["plan"])
"""
from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from std_msgs.msg import String

from llm_planner.errors import LlmPlannerError
from llm_planner.ros.environment import apply_ros_environment
from llm_planner_interfaces.msg import TaskStatus
from llm_planner_interfaces.srv import PlanTask, RenderSnapshot


#: Seconds to let DDS discovery complete in both directions after a service appears.
DISCOVERY_SETTLE_S = 0.5
#: A plan-only request is re-sent when its answer is this late (growing per attempt).
PLAN_ONLY_ANSWER_S = 45.0
PLAN_ONLY_ATTEMPTS = 3


class PlannerClient:
    """Client of /plan_task, /directive and /task_status; one rclpy context of its own."""

    def __init__(self, node_name: str = "llm_planner_client") -> None:
        apply_ros_environment()
        self.context = rclpy.Context()
        rclpy.init(context=self.context, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
        self.node = Node(node_name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.plan_client = self.node.create_client(PlanTask, "/plan_task")

    def close(self) -> None:
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        if self.context.ok():
            rclpy.shutdown(context=self.context)

    def __enter__(self) -> "PlannerClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def wait_for_planner(self, timeout_s: float = 30.0) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.plan_client.wait_for_service(timeout_sec=0.5):
                return True
        return False

    def spin_until(self, future: Any, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while not future.done() and time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.1)
        return future.done()

    def plan_task(self, directive: str, planner: str = "", execute: bool = False, timeout_s: float = 0.0,
                  wait_s: float = 30.0) -> dict[str, Any]:
        """Call /plan_task and return the response as a dict (the ``--json`` fields).

        Right after discovery a service's response writer may not yet know this client, and DDS then
        drops the response (a known ROS 2 race). So the client lets discovery settle before the first
        call, and re-sends a plan-only request (it changes nothing) that got no answer in time.
        An executing request is never re-sent: it would run the task twice.
        """
        if not self.wait_for_planner(wait_s):
            raise LlmPlannerError("/plan_task is not available: start the system first (llm-planner launch)")
        self.spin_for(DISCOVERY_SETTLE_S)
        request = PlanTask.Request(directive=directive, planner=planner, execute=execute, timeout_s=float(timeout_s))
        budget = (timeout_s or 600.0) * 2 + 60.0
        attempts = 1 if execute else PLAN_ONLY_ATTEMPTS
        for attempt in range(attempts):
            wait = budget if execute else min(budget, PLAN_ONLY_ANSWER_S * (attempt + 1))
            future = self.plan_client.call_async(request)
            if self.spin_until(future, wait):
                return response_to_dict(future.result())
            self.plan_client.remove_pending_request(future)
        raise LlmPlannerError(f"/plan_task did not answer (waited {budget if execute else wait:.0f} s, "
                              f"{attempts} attempt(s)); is the planner node busy or gone?")

    def render(self, path: str, view: str = "top", wait_s: float = 10.0) -> str | None:
        """Ask the simulator for a PNG of the world; the written path, or None if it could not."""
        client = self.node.create_client(RenderSnapshot, "/sim/render")
        try:
            if not client.wait_for_service(timeout_sec=wait_s):
                return None
            future = client.call_async(RenderSnapshot.Request(path=path, view=view))
            if not self.spin_until(future, 60.0) or not future.result().success:
                return None
            return future.result().message
        finally:
            self.node.destroy_client(client)

    def say(self, directive: str, wait_s: float = 5.0) -> None:
        """Publish a directive on /directive, as a voice frontend does (waits for a subscriber)."""
        pub = self.node.create_publisher(String, "/directive", 10)
        deadline = time.monotonic() + wait_s
        while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.1)
        if pub.get_subscription_count() == 0:
            raise LlmPlannerError("nobody listens on /directive: start the system first (llm-planner launch)")
        pub.publish(String(data=directive))
        self.executor.spin_once(timeout_sec=0.2)

    def watch_status(self, on_status: Callable[[TaskStatus], None]) -> None:
        self.node.create_subscription(TaskStatus, "/task_status", on_status, 50)

    def spin_for(self, seconds: float, stop: threading.Event | None = None) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not (stop and stop.is_set()):
            self.executor.spin_once(timeout_sec=0.1)


def response_to_dict(response: PlanTask.Response) -> dict[str, Any]:
    try:
        goal = json.loads(response.goal) if response.goal else []
    except json.JSONDecodeError:
        goal = response.goal
    out = {"success": bool(response.success), "message": response.message, "goal": goal,
           "plan": list(response.plan), "task_id": response.task_id, "llm_requests": int(response.llm_requests),
           "planning_time_s": float(response.planning_time_s)}
    if response.executed:
        out["executed"] = list(response.executed)
    return out


def format_status(msg: TaskStatus, details: bool = True) -> str:
    """One line per status message; ``details=False`` leaves out the observation of executed steps."""
    head = f"[{msg.task_id or '-'}] {msg.state}"
    if msg.step:
        head += f" step {msg.step}"
    if msg.action:
        head += f": {msg.action} -> {msg.result or 'ok'}"
    if msg.message and (details or not msg.action):
        return f"{head}  {msg.message}"
    return head
