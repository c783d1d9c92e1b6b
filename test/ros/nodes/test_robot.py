"""The robot contract (docs/guides/robot.md) against real graphs, every node its own process:

- ``llm-planner check-robot`` passes against ``llm-planner launch`` and, with the simulator node
  killed, fails naming ``navigate_to_pose`` and ``robot/skill`` (exit code 1);
- a task canceled while the base drives stops it within a second (the NavigateToPose goal is
  canceled) and ends CANCELED;
- (a robot that is not ours: test_own_robot.py.)
"""
from __future__ import annotations

import math
import re
import subprocess
import time
from pathlib import Path

import pytest

from llm_planner_ros.task_results import TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[3]
DIRECTIVE = "put one apple inside the fridge"
#: How slowly the simulated base drives in the cancel test (m/s): a walk across the flat takes seconds.
SLOW_DRIVE_MPS = 0.5
#: The bound on stopping the base after a cancel (the issue's "within 1 s").
STOP_WITHIN_S = 1.0


def check_robot(graph, *args: str) -> subprocess.CompletedProcess:
    return graph.cli("check-robot", "--wait", "20", *args, timeout=180)


@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("robot_graph"), drive_speed_mps=SLOW_DRIVE_MPS) as g:
        yield g


def test_check_robot_passes_against_the_simulator(graph):
    proc = check_robot(graph)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"all \d+ checks passed", proc.stdout), proc.stdout
    for name in ("robot/skill", "navigate_to_pose", "NavigateToPose type hash", "perception/state",
                 "navigation probe", "skill probe"):
        assert re.search(rf"^{re.escape(name)}\s+ok\s", proc.stdout, re.MULTILINE), (name, proc.stdout)


def test_a_cancel_during_a_walk_stops_the_base_within_a_second(graph):
    from llm_planner_interfaces.msg import GeometrySnapshot
    from nav2_msgs.action import NavigateToPose

    from llm_planner_ros.node_utils import GEOMETRY_QOS

    client = graph.client
    poses: list[tuple[float, float, float]] = []  # (monotonic time, x, y) of the base, from sim/geometry
    remaining: list[float] = []
    subs = [client.node.create_subscription(
                GeometrySnapshot, "sim/geometry",
                lambda m: poses.append((time.monotonic(), m.robot_pose.position.x, m.robot_pose.position.y)), GEOMETRY_QOS),
            client.node.create_subscription(
                NavigateToPose.Impl.FeedbackMessage, "navigate_to_pose/_action/feedback",
                lambda m: remaining.append(m.feedback.distance_remaining), 10)]
    try:
        client.execute(DIRECTIVE, planner="llm_mcts")
        deadline = time.monotonic() + 120
        # under way: a walk with more than a metre to go, and the base seen moving
        while not (remaining and remaining[-1] > 1.0 and len(poses) >= 2 and
                   math.dist(poses[-1][1:], poses[0][1:]) > 0.3):
            assert not client.is_task_complete(0.05), client.result()
            assert time.monotonic() < deadline, "the robot never walked"
        canceled_at = time.monotonic()
        assert client.cancel()
        result = client.result(timeout_s=60)
        client.spin_for(1.5)  # the geometry after the stop
    finally:
        for sub in subs:
            client.node.destroy_subscription(sub)
    assert result.status is TaskResult.CANCELED, result
    moves = [t for (t, x, y), (_, x0, y0) in zip(poses[1:], poses[:-1], strict=True)
             if math.dist((x, y), (x0, y0)) > 1e-3]
    last_move = max(moves) - canceled_at
    print(f"canceled {remaining[-1]:.2f} m short; the base last moved {last_move:.2f} s after the cancel: "
          f"{result.message}")
    assert last_move >= -0.5  # it was moving when the cancel came
    assert last_move <= STOP_WITHIN_S, last_move
    assert poses[-1][0] - canceled_at > STOP_WITHIN_S + 0.5  # and it stayed put for a while after


def test_check_robot_fails_naming_both_actions_when_the_simulator_is_stopped(graph):
    graph.kill("simulator")
    try:
        graph.wait_gone("simulator")
        proc = check_robot(graph)
        print(proc.stdout)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        for name in ("robot/skill", "navigate_to_pose"):
            assert re.search(rf"^{re.escape(name)}\s+FAIL\s+no action server", proc.stdout, re.MULTILINE), proc.stdout
            assert re.search(rf"^- {re.escape(name)}: serve ", proc.stdout, re.MULTILINE), proc.stdout
    finally:
        restarted = time.time_ns()
        graph.restart("simulator")  # the lifecycle manager brings it back
        graph.perceived("state", after_ns=restarted)  # up and active again: the graph ends cleanly
