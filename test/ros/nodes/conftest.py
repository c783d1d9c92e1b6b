"""Fixtures of the system tests: a node graph launched from a launch file (every node its own
process, Fast DDS on loopback, the session's random ROS_DOMAIN_ID) with a parameter file of the
schema plus overrides, a client in this process, and a way to kill and restart one node."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from llm_planner.config import read_params_file
from llm_planner.paths import config_dir
from llm_planner_ros.launch_files import describe, resolve_launch_file
from llm_planner_ros.launcher import GraphRunner

VENV_BIN = Path(sys.executable).parent
PROBE = Path(__file__).with_name("ros_probe.py")
PARAMS_FILES = {"llm_planner": "llm_planner.yaml", "gtamp": "gtamp_nodes.yaml"}


@dataclass(eq=False)
class Graph:
    runner: GraphRunner
    client: Any  # llm_planner_ros.client.PlannerClient in the graph's namespace
    namespace: str
    log_dir: Path

    def kill(self, name: str) -> None:
        """SIGKILL one node's process group (no clean shutdown: a crash)."""
        os.killpg(self.runner.processes[name].pid, signal.SIGKILL)
        self.runner.processes[name].wait(timeout=10)

    def restart(self, name: str) -> None:
        """Start one node again with its launch command (the runner stops it with the rest)."""
        command = next(c for c in describe(self.runner.launch_file, self.runner.arguments, self.runner.env)
                       if c.name == name)
        out = open(self.log_dir / f"{name}.restarted.log", "wb")  # noqa: SIM115 - closed with the process
        self.runner.processes[name] = subprocess.Popen(command.argv, env=dict(self.runner.env), stdout=out,
                                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                       start_new_session=True)

    def wait_gone(self, name: str, timeout_s: float = 30.0) -> None:
        """Wait until the node ``name`` (in the graph's namespace) has left the ROS graph (DDS noticed its death)."""
        from llm_planner_ros.graph import is_alive, qualified

        node = self.client.node
        deadline = time.monotonic() + timeout_s
        while is_alive(node, qualified(name, f"/{self.namespace}" if self.namespace else "/")):
            assert time.monotonic() < deadline, f"{name} is still in the ROS graph after {timeout_s:g} s"
            self.client.executor.spin_once(timeout_sec=0.2)

    def full_state(self, after_ns: int = 0) -> list[tuple[str, tuple[str, ...]]]:
        """The predicates of the latest perception/full_state message stamped at or after ``after_ns``."""
        return self.perceived("full_state", after_ns)

    def perceived(self, topic: str, after_ns: int = 0, wait_s: float = 60.0) -> list[tuple[str, tuple[str, ...]]]:
        """The predicates of the latest perception/<topic> message stamped at or after ``after_ns``."""
        from llm_planner_ros.conversions import time_to_ns
        from llm_planner_ros.node_utils import GEOMETRY_QOS
        from llm_planner_interfaces.msg import PerceivedState

        got: list = []
        client = self.client
        sub = client.node.create_subscription(PerceivedState, f"perception/{topic}", got.append, GEOMETRY_QOS)
        deadline = time.monotonic() + wait_s
        while not any(time_to_ns(m.header.stamp) >= after_ns for m in got) and time.monotonic() < deadline:
            client.executor.spin_once(timeout_sec=0.1)
        client.node.destroy_subscription(sub)
        assert got and time_to_ns(got[-1].header.stamp) >= after_ns, f"no fresh perception/{topic} message"
        return [(p.name, tuple(p.args)) for p in got[-1].predicates]

    def set_parameter(self, name: str, value: Any, node: str = "planner") -> None:
        """``ros2 param set /NODE name value`` through the node's parameter service; the node must take it."""
        from rcl_interfaces.srv import SetParameters
        from rclpy.parameter import Parameter

        client = self.client.node.create_client(SetParameters, f"{node}/set_parameters")
        try:
            assert client.wait_for_service(timeout_sec=30.0)
            future = client.call_async(SetParameters.Request(parameters=[Parameter(name, value=value).to_parameter_msg()]))
            assert self.client.spin_until(future, 30.0)
            assert future.result().results[0].successful, future.result().results[0].reason
        finally:
            self.client.node.destroy_client(client)

    def cli(self, *args: str, timeout: float = 300.0) -> subprocess.CompletedProcess:
        namespace = ["--namespace", self.namespace] if self.namespace and args[0] in ("plan", "say", "cancel", "snapshot") else []
        return subprocess.run([str(VENV_BIN / "llm-planner"), *args, *namespace], env=self.runner.env,
                              capture_output=True, text=True, timeout=timeout)


def ros_probe(graph: Graph, *ops: list) -> dict:
    """Run ``ops`` (test/nodes/ros_probe.py) in a separate ROS process against ``graph``: what it found."""
    proc = subprocess.run([sys.executable, str(PROBE), json.dumps(list(ops))], env=graph.runner.env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@contextmanager
def running_graph(ros_env: dict[str, str], log_dir: Path, launch: str = "llm_planner", namespace: str = "",
                  wait_s: float = 180.0, env: dict[str, str] | None = None, arguments: dict[str, str] | None = None,
                  **overrides: Any) -> Iterator[Graph]:
    """Launch a graph with the launch file's parameter file plus ``overrides`` and the launch
    ``arguments`` (and ``env`` added to the nodes' environment); stop it afterwards and check that
    every process exited cleanly."""
    from llm_planner_ros.client import PlannerClient

    params = {**read_params_file(config_dir() / PARAMS_FILES[launch]), **overrides}
    params_file = log_dir / "params.yaml"
    params_file.write_text(yaml.safe_dump({"/**": {"ros__parameters": params}}))
    arguments = {"params_file": str(params_file), **({"namespace": namespace} if namespace else {}),
                 **(arguments or {})}
    runner = GraphRunner(resolve_launch_file(launch), arguments, env={**ros_env, **(env or {})}, log_dir=log_dir)
    runner.start()
    client = PlannerClient(f"test_client_{namespace or 'root'}_{os.getpid()}", namespace)
    started = time.monotonic()
    try:
        assert client.wait_for_planner(wait_s), f"plan_task never appeared; exited: {runner.failed()}; logs {log_dir}"
        graph = Graph(runner, client, namespace, log_dir)
        graph.perceived("state", wait_s=wait_s)  # the simulator and perception are up too
        print(f"[{launch}{'/' + namespace if namespace else ''}] graph up in {time.monotonic() - started:.1f} s")
        yield graph
    finally:
        client.close()
        codes = runner.stop()
        assert all(p.poll() is not None for p in runner.processes.values()), "a node survived shutdown"
        assert not any(code not in (0, -2) for code in codes.values()), f"unclean exits: {codes}; logs {log_dir}"


@pytest.fixture(scope="session")
def launch_graph(ros_env):
    """``with launch_graph(log_dir, launch="llm_planner", namespace="", **overrides) as graph:``"""
    return lambda log_dir, **kwargs: running_graph(ros_env, log_dir, **kwargs)


@pytest.fixture(scope="session")
def probe():
    """``probe(graph, *ops)``: :func:`ros_probe`, a separate ROS process calling the graph as ``ros2`` would."""
    return ros_probe
