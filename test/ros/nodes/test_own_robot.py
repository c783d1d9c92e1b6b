"""A robot that is not ours, against a real graph (every node its own process): the guide's minimal
robot (docs/guides/robot.md), started from the guide's own text as the guide says, passes
``llm-planner check-robot`` and executes "put one apple inside the fridge" with ``llm_mcts`` on
``llm-planner launch robot:=external``, while ``classical`` is refused at once for want of a full
state; nothing private to our simulator is published or read in that graph. (A module of its own:
its graph must not share the ROS domain with the simulated graph of test_robot.py.)
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llm_planner_ros.task_results import TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[3]
DIRECTIVE = "put one apple inside the fridge"


def check_robot(graph, *args: str) -> subprocess.CompletedProcess:
    return graph.cli("check-robot", "--wait", "20", *args, timeout=180)


def guide_robot(tmp_path: Path) -> Path:
    """The minimal robot of docs/guides/robot.md, saved as the guide says (my_robot.py)."""
    guide = (REPO / "docs" / "guides" / "robot.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", guide, re.DOTALL)
    (code,) = [b for b in blocks if "class MyRobot" in b]
    assert len(code.splitlines()) <= 200
    path = tmp_path / "my_robot.py"
    path.write_text(code)
    return path


@pytest.fixture(scope="module")
def external(launch_graph, ros_env, tmp_path_factory):
    """The guide's robot, started as the guide says, and the graph with ``robot:=external``."""
    folder = tmp_path_factory.mktemp("my_robot")
    robot = subprocess.Popen([sys.executable, str(guide_robot(folder)), "apartment_seen"],
                             env=ros_env, stdout=open(folder / "robot.log", "wb"), stderr=subprocess.STDOUT,
                             start_new_session=True)
    try:
        (folder / "graph").mkdir()
        with launch_graph(folder / "graph", arguments={"robot": "external"}) as g:
            yield g
    finally:
        os.killpg(robot.pid, signal.SIGINT)
        try:
            code = robot.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(robot.pid, signal.SIGKILL)
            raise
        assert code == 0, (folder / "robot.log").read_text()[-3000:]


def test_the_guides_robot_passes_check_robot(external):
    proc = check_robot(external)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "served by /my_robot" in proc.stdout
    assert re.search(r"^full state \(optional\)\s+info\s+\S+ is not published", proc.stdout, re.MULTILINE)


def test_the_guides_robot_executes_with_llm_mcts_and_classical_says_what_it_needs(external):
    node = external.client.node
    assert node.count_publishers("/perception/state") == 1
    for private in ("/perception/full_state", "/sim/geometry", "/markers"):  # our simulator's own topics
        assert node.count_publishers(private) == 0, private
    assert node.count_subscribers("/sim/geometry") == 0  # the executor's records do not wait for it
    assert {n for n, _ in external.client.node.get_node_names_and_namespaces()} & {"simulator", "perception"} == set()
    result = external.client.run(DIRECTIVE, planner="llm_mcts")
    print(result.message, result.plan)
    assert result.success and result.status is TaskResult.SUCCEEDED, result
    assert result.plan[-1].startswith("putin(apple_") and result.plan[-1].endswith(", fridge)"), result
    started = time.monotonic()
    refused = external.client.run(DIRECTIVE, planner="classical")
    took = time.monotonic() - started
    assert not refused.success and not refused.executed, refused
    assert "planner classical plans on the full state of the world (perception/full_state)" in refused.message
    assert "llm_mcts" in refused.message and took < 5.0, (took, refused.message)
