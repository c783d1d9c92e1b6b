"""An invalid parameter stops a node at start with a message naming the parameter (both worlds,
the same four programs)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.ros
BIN = Path(sys.executable).parent


@pytest.mark.parametrize("executable, assignments, name", [
    ("planner_node", ["planner:=teleport"], "planner"),
    ("planner_node", ["domain:=gtamp", "planner:=classical"], "planner"),
    ("perception_node", ["scene:=no_such_apartment"], "no_such_apartment"),
    ("executor_node", ["max_steps:=0"], "max_steps"),
    ("simulator_node", ["domain:=gtamp", "problem:=P9"], "problem"),
    ("simulator_node", ["domain:=mars"], "domain"),
])
def test_invalid_parameter_stops_the_node_with_its_name(ros_env, executable, assignments, name):
    args = [a for assignment in assignments for a in ("-p", assignment)]
    proc = subprocess.run([str(BIN / executable), "--ros-args", *args], env=ros_env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0
    assert name in proc.stderr, proc.stderr
