"""The quick-start demo as a newcomer runs it (`llm-planner demo`, what scripts/demo.sh calls): LLM-MCTS
executes the default directive through execute_directive, every step shows the LLM requests of its
decision and the belief about the goal's objects, the report is written, and nothing it or its nodes
print looks like a fault."""
from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llm_planner_ros.environment import random_domain_id, ros_environment

pytestmark = [pytest.mark.ros, pytest.mark.slow]
FAULT_LOOKING = re.compile(r"warn|error|traceback|exception|never retrieved|build time|leaked", re.IGNORECASE)


def test_the_demo_runs_llm_mcts_shows_belief_and_llm_requests_and_prints_no_warnings(ros_env, tmp_path):
    env = ros_environment({k: v for k, v in ros_env.items() if k != "ROS_DOMAIN_ID"},
                          domain_id=random_domain_id(random.SystemRandom()))  # a graph of its own
    proc = subprocess.run([str(Path(sys.executable).parent / "llm-planner"), "demo", "--logs", str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "with llm_mcts" in out and "result: SUCCESS" in out
    steps = re.findall(r"^\[\w+\] step (\d+): (.+) -> ok$", out, re.M)
    assert steps and [int(n) for n, _ in steps] == list(range(1, len(steps) + 1))
    decisions = [int(n) for n in re.findall(r"^    decision: (\d+) LLM request\(s\)", out, re.M)]
    beliefs = re.findall(r"^    belief: +(cutlery_fork_1: .*)$", out, re.M)
    assert len(decisions) == len(beliefs) == len(steps) and sum(decisions) > 0
    assert re.match(r"cutlery_fork_1: kitchen_cabinet 0\.\d\d, dishwasher 0\.\d\d", beliefs[0])  # not seen yet
    assert beliefs[-1] == "cutlery_fork_1: dishwasher 1.00"
    (run,) = tmp_path.iterdir()
    report = run / "report"
    assert {p.name for p in report.iterdir()} == {"before.png", "after.png", "strip.png", "strip.gif", "report.md"}
    assert f"| 1 | `{steps[0][1]}` | ok | {decisions[0]} (" in (report / "report.md").read_text()
    assert proc.stderr == "", proc.stderr
    printed = out.splitlines() + [line for log in run.glob("*.log") for line in log.read_text().splitlines()
                                  if not line.startswith("[INFO]")]
    assert not [line for line in printed if FAULT_LOOKING.search(line)]
