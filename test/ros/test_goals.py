"""Following an action goal (llm_planner_ros/goals.py): a :class:`FeedbackTap` hands over every
feedback message of a goal, even those published just before the result. rclpy's ActionClient
drops a goal's feedback once it has taken the result; with a server that publishes its last
feedback right before it succeeds, a plain ``feedback_callback`` missed the last steps in 15 of 30
goals on this machine."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import rclpy
from llm_planner_interfaces.action import ExecuteTask
from rclpy.action import ActionClient, ActionServer
from rclpy.executors import MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node

from llm_planner_ros import client_settings
from llm_planner_ros.goals import FeedbackTap

STEPS = 10
GOALS = 20


def _execute(handle) -> ExecuteTask.Result:
    """Every step's feedback back to back, then the result at once: the order that loses feedback."""
    for step in range(1, STEPS + 1):
        handle.publish_feedback(ExecuteTask.Feedback(step=step, action=f"step {step}"))
    handle.succeed()
    return ExecuteTask.Result(success=True, executed=[f"step {step}" for step in range(1, STEPS + 1)])


@pytest.fixture
def server() -> Iterator[str]:
    """A real action server in a context and executor of its own."""
    context = rclpy.Context()
    rclpy.init(context=context)
    node = Node("feedback_server", context=context)
    action = f"feedback_race_{id(node)}"
    ActionServer(node, ExecuteTask, action, _execute)
    executor = MultiThreadedExecutor(context=context)
    executor.add_node(node)
    spinning = threading.Thread(target=executor.spin, daemon=True)
    spinning.start()
    yield action
    executor.shutdown(timeout_sec=2.0)
    node.destroy_node()
    rclpy.shutdown(context=context)
    spinning.join(timeout=5.0)


def _spin_until(executor: SingleThreadedExecutor, done, deadline: float) -> bool:
    while not done() and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.05)
    return done()


def test_a_tap_delivers_every_step_of_every_goal_in_order_even_after_the_result(server):
    drain_s = client_settings().feedback_drain_s
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = Node("feedback_client", context=context)
        client = ActionClient(node, ExecuteTask, server)
        tap = FeedbackTap(node, ExecuteTask, server)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        assert client.wait_for_server(timeout_sec=10.0)
        incomplete = []
        for goal in range(GOALS):
            steps: list[int] = []
            goal_id = tap.follow(lambda message, steps=steps: steps.append(message.feedback.step))
            sent = client.send_goal_async(ExecuteTask.Goal(task_id=str(goal)), goal_uuid=goal_id)
            assert _spin_until(executor, sent.done, time.monotonic() + 10.0) and sent.result().accepted
            result = sent.result().get_result_async()
            assert _spin_until(executor, result.done, time.monotonic() + 10.0)
            assert len(result.result().result.executed) == STEPS
            _spin_until(executor, lambda steps=steps: len(steps) >= STEPS, time.monotonic() + drain_s)
            tap.forget(goal_id)
            if steps != list(range(1, STEPS + 1)):
                incomplete.append((goal, steps))
        assert not incomplete, incomplete
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()
    finally:
        rclpy.shutdown(context=context)


def test_a_forgotten_goal_gets_no_more_feedback():
    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = Node("feedback_forget", context=context)
        tap = FeedbackTap(node, ExecuteTask, "feedback_forget")
        got: list[int] = []
        goal_id = tap.follow(lambda message: got.append(message.feedback.step))
        message = ExecuteTask.Impl.FeedbackMessage(goal_id=goal_id, feedback=ExecuteTask.Feedback(step=1))
        tap._deliver(message)
        tap.forget(goal_id)
        tap._deliver(message)
        assert got == [1]
        node.destroy_node()
    finally:
        rclpy.shutdown(context=context)
