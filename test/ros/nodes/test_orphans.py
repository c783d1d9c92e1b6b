"""No orphans under any launcher: the real node graph, its launcher killed with SIGKILL
while a task runs, leaves no node running 5 s later. Two launchers: ours (``llm-planner launch``,
whose nodes get a parent-death signal) and a stand-in for ``ros2 launch`` that starts the same
command lines with nothing of the kind (each node notices the death of the process that started it,
``stop_with_parent``, and ends within ``shutdown_timeout_s`` even while busy)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from llm_planner_ros.environment import install_prefix

pytestmark = [pytest.mark.ros, pytest.mark.slow]
GONE_WITHIN_S = 5.0
PROGRAMS = ("simulator_node", "perception_node", "executor_node", "planner_node", "lifecycle_manager_node")

# Starts the launch file's command lines as plain children (as ros2 launch does: no parent-death
# signal, each in its own session so no process-group signal reaches them), prints their pids, waits.
FOREIGN_LAUNCHER = textwrap.dedent('''
    import json, os, subprocess, sys, time
    from llm_planner_ros.launch_files import describe, resolve_launch_file
    env = dict(os.environ)
    commands = describe(resolve_launch_file(None), {}, env)
    pids = [subprocess.Popen(c.argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True).pid for c in commands]
    print(json.dumps(pids), flush=True)
    time.sleep(3600)
''')


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2:][:1] not in (b"Z", b"X")


def _node_pids(parent: int) -> list[int]:
    """The node processes whose parent is ``parent``."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_bytes()
            cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[stat.rindex(b")") + 2:].split()[1]) == parent and any(p.encode() in cmdline for p in PROGRAMS):
            found.append(int(entry.name))
    return found


def _start_a_task(env: dict[str, str], graph_up: Callable[[], bool], log: Callable[[], str]):
    """A task under way on the graph; fails at once, with the launch log, when the graph ends first."""
    from llm_planner_ros.client import PlannerClient

    client = PlannerClient(f"orphans_client_{os.getpid()}")
    deadline = time.monotonic() + 180.0
    while not client.wait_for_planner(5.0):
        assert graph_up() and time.monotonic() < deadline, f"the planner never became active:\n{log()}"
    client.execute("put one book on the coffee table and a mug inside the fridge", planner="llm_mcts")
    deadline = time.monotonic() + 120.0
    while not client.feedback() and time.monotonic() < deadline:  # the task is under way
        client.is_task_complete()
    return client


def _gone_after_kill(launcher: subprocess.Popen, pids: list[int]) -> tuple[float, list[int]]:
    launcher.send_signal(signal.SIGKILL)
    launcher.wait()
    killed = time.monotonic()
    ended: dict[int, float] = {}
    while len(ended) < len(pids) and time.monotonic() - killed < 30.0:
        ended.update({p: time.monotonic() - killed for p in pids if p not in ended and not _alive(p)})
        time.sleep(0.05)
    print(f"each node ended after (s): {sorted(round(t, 2) for t in ended.values())}")
    return time.monotonic() - killed, [p for p in pids if _alive(p)]


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_our_launcher_killed_during_a_task_leaves_no_node(ros_env, tmp_path):
    launcher = subprocess.Popen([str(install_prefix() / "bin" / "llm-planner"), "launch"], env=ros_env,
                                stdout=open(tmp_path / "launch.log", "w"), stderr=subprocess.STDOUT)
    client = None
    pids: list[int] = []
    try:
        client = _start_a_task(ros_env, lambda: launcher.poll() is None,
                               lambda: (tmp_path / "launch.log").read_text()[-2000:])
        pids = _node_pids(launcher.pid)
        assert len(pids) == len(PROGRAMS), (pids, (tmp_path / "launch.log").read_text()[-2000:])
        took, left = _gone_after_kill(launcher, pids)
    finally:
        if client is not None:
            client.close()
        launcher.kill()
        _kill_all(pids)
    print(f"our launcher SIGKILLed during a task: every node gone after {took:.2f} s")
    assert not left and took <= GONE_WITHIN_S, f"{left} still running {took:.1f} s after the launcher died"


def test_a_launcher_without_parent_death_signals_killed_during_a_task_leaves_no_node(ros_env, tmp_path):
    launcher = subprocess.Popen([sys.executable, "-c", FOREIGN_LAUNCHER], env=ros_env, stdout=subprocess.PIPE,
                                stderr=open(tmp_path / "launcher.err", "w"), text=True)
    pids: list[int] = []
    client = None
    try:
        assert launcher.stdout is not None
        pids = json.loads(launcher.stdout.readline())
        assert len(pids) == len(PROGRAMS), (tmp_path / "launcher.err").read_text()
        client = _start_a_task(ros_env, lambda: all(_alive(pid) for pid in pids),
                               lambda: (tmp_path / "launcher.err").read_text()[-2000:])
        took, left = _gone_after_kill(launcher, pids)
    finally:
        if client is not None:
            client.close()
        launcher.kill()
        _kill_all(pids)
    print(f"a ros2-launch-like parent SIGKILLed during a task: every node gone after {took:.2f} s")
    assert not left and took <= GONE_WITHIN_S, f"{left} still running {took:.1f} s after the launcher died"
