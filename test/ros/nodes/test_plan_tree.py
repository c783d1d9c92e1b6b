"""``llm-planner plan --bt FILE`` against the launched household graph: the tree of a classical
plan, read from the planner's answer and the graph's perception/full_state, loads in
BehaviorTree.CPP; a first step of LLM-MCTS and the combination with --execute are refused."""
from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET

import pytest

from llm_planner.adapters.household import HouseholdDomain
from llm_planner.bt_export import pose_text, tree_problems
from llm_planner.config import load_params_file
from test.ros.nodes.conftest import VENV_BIN
from test.test_bt_export import ticked_in_behaviortreepy, walk_target

pytestmark = [pytest.mark.ros, pytest.mark.slow]


@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("bt_graph")) as g:
        yield g


def test_plan_bt_writes_the_classical_plan_as_a_tree_behaviortree_cpp_loads(graph, tmp_path):
    path = tmp_path / "apple.xml"
    proc = graph.cli("plan", "put one apple inside the fridge", "--planner", "classical", "--bt", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["success"] and result["bt"] == str(path)
    text = path.read_text()
    assert tree_problems(text) == []
    assert [name.split(" at ")[0] for name in ticked_in_behaviortreepy(text)] == result["plan"]
    walk = ET.fromstring(text).find("BehaviorTree/Sequence/NavigateToPose")
    place = HouseholdDomain(load_params_file()).place_pose(walk_target(walk.get("name")))
    assert walk.get("goal") == pose_text((place.x, place.y, place.yaw))


def test_a_first_step_of_llm_mcts_is_refused_naming_classical(graph, tmp_path):
    path = tmp_path / "first.xml"
    proc = graph.cli("plan", "put one apple inside the fridge", "--planner", "llm_mcts", "--bt", str(path))
    assert proc.returncode == 1 and not path.exists()
    assert "planner llm_mcts answered 1 step(s), which do not reach the goal" in proc.stderr
    assert "use --planner classical" in proc.stderr


def test_bt_with_execute_is_refused_before_anything_runs(tmp_path):
    proc = subprocess.run([str(VENV_BIN / "llm-planner"), "plan", "put one apple inside the fridge", "--execute",
                           "--bt", str(tmp_path / "x.xml")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "--bt writes a plan for your own BehaviorTree.CPP executor" in proc.stderr
