"""A node the robot depends on that is down is named first, with its state and a fix that works:
the simulator and perception deactivated, SIGKILLed and shut down (finalized), each against the
launched graph (every node its own process); the lifecycle transitions and ``/diagnostics`` come
from a separate ROS process (``ros_probe.py``), the execute calls from this test's client.

Each failing execute call must end within ``FAST_S`` (the executor asks the nodes' lifecycle state
before a task, a skill and while perception is late, instead of waiting out ``perception_wait_s``);
after each fix the graph executes a task again. One graph for the module; the tests run in file
order.
"""
from __future__ import annotations

import re
import time

import pytest

from llm_planner_ros.task_results import ExecutionResult, TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]
FAST_S = 2.0
DIRECTIVE = "put one apple inside the fridge"


@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("faults_graph")) as g:
        yield g


def _first_node(message: str) -> str:
    found = re.search(r"'(/[a-z_/]+)'", message)
    return found.group(1) if found else ""


def _fails_fast(graph, down: str, *expected: str) -> ExecutionResult:
    """Execute a task while ``down`` is down: it fails within FAST_S, naming ``down`` first and saying ``expected``."""
    started = time.monotonic()
    result = graph.client.run(DIRECTIVE, planner="classical")
    took = time.monotonic() - started
    print(f"{down} down: the task ended in {took:.2f} s: {result.message}")
    assert not result.success and result.status is TaskResult.FAILED, result
    assert _first_node(result.message) == down, result.message
    for text in expected:
        assert text in result.message, (text, result.message)
    assert not result.executed, result  # no skill ran
    assert took < FAST_S, f"{took:.2f} s: {result.message}"
    return result


def _executes(graph) -> None:
    result = graph.client.run(DIRECTIVE, planner="classical")
    assert result.success and result.status is TaskResult.SUCCEEDED, result


def _wait_active(graph, probe, name: str, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while probe(graph, ["state", name])["state"][name] != "active":
        assert time.monotonic() < deadline, f"{name} not active again within {timeout_s:g} s"
        time.sleep(1.0)


def test_an_inactive_simulator_or_perception_is_named_at_once_and_activate_brings_it_back(graph, probe):
    probe(graph, ["transition", "simulator", "deactivate"])
    _fails_fast(graph, "/simulator", "is inactive", "`ros2 lifecycle set /simulator activate`")
    probe(graph, ["transition", "simulator", "activate"], ["transition", "perception", "deactivate"])
    _fails_fast(graph, "/perception", "is inactive", "`ros2 lifecycle set /perception activate`")
    probe(graph, ["transition", "perception", "activate"])
    _executes(graph)


def test_a_killed_perception_or_simulator_is_named_at_once_and_a_restart_brings_it_back(graph, probe):
    graph.kill("perception")
    _fails_fast(graph, "/perception", "restart it")
    graph.kill("simulator")  # both down: the simulator, which feeds perception, is named first
    _fails_fast(graph, "/simulator", "restart it")
    for name in ("simulator", "perception"):
        graph.wait_gone(name)
        graph.restart(name)  # the lifecycle manager brings a restarted node to active
    for name in ("simulator", "perception"):
        _wait_active(graph, probe, name)
    _executes(graph)


def test_a_finalized_perception_says_to_restart_it_and_a_restart_brings_it_back(graph, probe):
    probe(graph, ["transition", "perception", "shutdown"])
    seen = probe(graph, ["diagnostics", 3.0])["diagnostics"]
    level, message, values = seen["/perception"]
    assert values["lifecycle state"] == "finalized" and "relaunch" in message, (level, message)
    assert "configure" not in message, message  # no transition leaves finalized
    _fails_fast(graph, "/perception", "is finalized", "relaunch")
    graph.kill("perception")  # the advice: end its process and start it again (or relaunch the graph)
    graph.wait_gone("perception")
    graph.restart("perception")
    _wait_active(graph, probe, "perception")
    _executes(graph)
