"""One vocabulary of task states: llm_planner.task_states spells them, the TaskStatus
message declares the same constants, and the launcher's monitor ends a task on every final state."""
from __future__ import annotations

import time

import pytest

from llm_planner import task_states
from llm_planner.task_states import FINAL_STATES, TASK_STATES, final_state


def test_task_status_constants_are_the_modules_states():
    from llm_planner_interfaces.msg import TaskStatus

    declared = {name.removeprefix("STATE_"): getattr(TaskStatus, name) for name in dir(TaskStatus)
                if name.startswith("STATE_")}
    assert declared == {name: getattr(task_states, name) for name in declared}, declared
    assert sorted(declared.values()) == sorted(TASK_STATES), "TaskStatus.msg and task_states.TASK_STATES differ"


def test_final_states_and_the_last_state_of_an_episode():
    assert FINAL_STATES < set(TASK_STATES) and {"planning", "asking", "executing"}.isdisjoint(FINAL_STATES)
    assert [final_state(o) for o in task_states.EPISODE_OUTCOMES] == ["succeeded", "failed", "canceled", "failed"]


@pytest.mark.ros
def test_launcher_monitor_forgets_planned_and_refused_tasks(ros_env):
    """A plan-only task ends planned and a busy robot's refusal ends refused: neither is still
    running for the launcher (it once kept them, holding the graph up for its whole grace period)."""
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    from llm_planner_ros.supervision import GraphMonitor
    from llm_planner_interfaces.msg import TaskStatus

    monitor = GraphMonitor([""])
    context = rclpy.Context()
    rclpy.init(context=context, signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node("test_task_states_peer", context=context)
    try:
        assert monitor.ready.wait(30.0) and not monitor.error, monitor.error
        publisher = node.create_publisher(TaskStatus, "/task_status", 20)
        deadline = time.monotonic() + 30.0
        while publisher.get_subscription_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        for task_id, state in [("plan-only", "planning"), ("plan-only", "planned"), ("busy", "refused"),
                               ("robot", "planning"), ("robot", "executing")]:
            publisher.publish(TaskStatus(task_id=task_id, directive="test", state=state))
        deadline = time.monotonic() + 15.0
        while monitor.running_tasks() != {"robot": "executing"} and time.monotonic() < deadline:
            time.sleep(0.1)
        assert monitor.running_tasks() == {"robot": "executing"}
    finally:
        node.destroy_node()
        rclpy.shutdown(context=context)
        monitor.close()
