"""The bounded end of a node's process (llm_planner_ros/node_utils.py): the teardown watchdog ends a
process whose rcl/DDS teardown blocks while holding the GIL, where no Python thread or signal handler
can run, as a Ctrl-C would (exit status -2)."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

HOLDS_THE_GIL = """
import ctypes, sys, time
from llm_planner_ros.node_utils import TeardownWatchdog
watchdog = TeardownWatchdog()
assert watchdog.arm(0.3)
if sys.argv[1] == "disarm":
    watchdog.disarm()
ctypes.PyDLL(None).sleep(60 if sys.argv[1] == "hang" else 1)  # libc sleep with the GIL held: a blocked teardown
print("slept", flush=True)
"""


@pytest.mark.parametrize("mode, code", [("hang", -2), ("disarm", 0)])
def test_the_teardown_watchdog_ends_a_process_that_holds_the_gil(mode, code):
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", HOLDS_THE_GIL, mode], capture_output=True, text=True, timeout=120)
    took = time.monotonic() - started
    assert proc.returncode == code, proc.stdout + proc.stderr
    if mode == "hang":
        assert "slept" not in proc.stdout and took < 50, took  # ended 0.3 s in, not after the 60 s sleep
    else:
        assert "slept" in proc.stdout
