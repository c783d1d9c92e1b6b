"""The planner node's link to the executor node: its ``execute_task`` action.

:meth:`ExecutorLink.run` (on a worker thread) sends one task, relays its feedback, forwards a
cancel request, and gives up with a message naming the executor when the executor leaves the ROS
graph for ``server_absent_s`` or overruns the task's time limit by more than twice ``node_timeout_s``
(:mod:`llm_planner_ros.goals`).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from llm_planner_interfaces.action import ExecuteTask
from rclpy.action import ActionClient
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from llm_planner.errors import LlmPlannerError
from llm_planner_ros.goals import POLL_S, FeedbackTap, follow_goal, send_goal
from llm_planner_ros.graph import server_of
from llm_planner_ros.node_utils import ACTION_QOS


class ExecutorLink:
    def __init__(self, node: Node, params: Mapping[str, Any]) -> None:
        self.params = params
        self.client: ActionClient[Any, Any, Any] = ActionClient(node, ExecuteTask, "execute_task",
                                                                callback_group=ReentrantCallbackGroup(),
                                   **ACTION_QOS)
        self.feedback = FeedbackTap(node, ExecuteTask, "execute_task")
        self.node = node
        self.action = node.resolve_topic_name("execute_task")
        self.owner: str | None = None  # the executor node, once seen
        self.running: Any = None  # the goal handle of the task under way
        self.relayed_step = 0  # the last step whose feedback was relayed (of the task under way)

    def _executor(self) -> str:
        return f"the executor node '{self.owner}'" if self.owner else f"the executor ({self.action})"

    def run(self, goal: ExecuteTask.Goal, on_feedback: Callable[[Any], None],
            should_cancel: Callable[[], bool]) -> tuple[int, ExecuteTask.Result]:
        """Run one task on the executor: (final GoalStatus, result); LlmPlannerError when the
        executor is absent, refuses to answer, or disappears during the task."""
        wait_s = self.params["node_timeout_s"]
        if not self.client.server_is_ready():
            if not self.client.wait_for_server(timeout_sec=wait_s):
                raise LlmPlannerError(f"the executor ({self.action}) is not available (waited {wait_s:g} s, "
                                      "parameter node_timeout_s); is the executor node running?")
            time.sleep(self.params["discovery_settle_s"])  # a response sent before the server knows this client is lost
        self.relayed_step = 0

        def relay(message: Any) -> None:
            on_feedback(message.feedback)
            self.relayed_step = max(self.relayed_step, message.feedback.step)

        def gone() -> str:
            return (f"{self._executor()} left the ROS graph during the task (it died or was stopped); "
                    "restart it and check the world")

        goal_id = self.feedback.follow(relay)
        try:
            return self._follow(goal, goal_id, wait_s, gone, should_cancel)
        finally:
            self.feedback.forget(goal_id)

    def _follow(self, goal: ExecuteTask.Goal, goal_id: Any, wait_s: float, gone: Callable[[], str],
                should_cancel: Callable[[], bool]) -> tuple[int, ExecuteTask.Result]:
        handle = send_goal(self.client, goal, None, wait_s,
                           lambda: f"{self._executor()} did not accept the task within {wait_s:g} s",
                           gone, self.params["server_absent_s"], goal_id)
        self.owner = server_of(self.node, f"{self.action}/_action/send_goal") or self.owner
        self.running = handle
        try:
            limit = goal.timeout_s if goal.timeout_s > 0 else self.params["plan_timeout_s"]
            end = follow_goal(
                self.client, handle, should_cancel=should_cancel, limit_s=limit + 2 * wait_s,
                absent_s=self.params["server_absent_s"],
                gone=gone,
                overrun=lambda _: (f"{self._executor()} did not finish within the task's time limit of {limit:g} s "
                                   f"plus {2 * wait_s:g} s; it was asked to cancel"))
        finally:
            self.running = None
        self._drain_feedback(len(end.result.executed))
        return end.status, end.result

    def cancel_running(self) -> None:
        """Forward a cancel request to the executor at once (the loop also checks ``should_cancel``)."""
        handle = self.running
        if handle is not None:
            handle.cancel_goal_async()

    def _drain_feedback(self, steps: int) -> None:
        """The result and the feedback travel on different channels, and this node may take the
        result first: wait (``feedback_drain_s``) until the last step's feedback was relayed (the
        :class:`FeedbackTap` still delivers it), so the caller's feedback comes before its result."""
        deadline = time.monotonic() + self.params["feedback_drain_s"]
        while self.relayed_step < steps and time.monotonic() < deadline:
            time.sleep(POLL_S / 5)

