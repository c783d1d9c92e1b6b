"""An invalid parameter stops a node at start with a message naming the parameter."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.ros
BIN = Path(sys.executable).parent


@pytest.mark.parametrize("executable, assignment, name", [
    ("planner_node", "planner:=teleport", "planner"),
    ("perception_node", "scene:=no_such_apartment", "no_such_apartment"),
    ("executor_node", "max_steps:=0", "max_steps"),
])
def test_invalid_parameter_stops_the_node_with_its_name(ros_env, executable, assignment, name):
    proc = subprocess.run([str(BIN / executable), "--ros-args", "-p", assignment], env=ros_env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert name in proc.stderr, proc.stderr
