"""The own launcher: launch files evaluate to node commands with the usual --ros-args; the running
launcher (real processes: ``llm-planner launch`` on stand-in node programs, ``stub_node.py``) stops
on SIGINT even as a background job, leaves no node or node child behind when killed, and does
what ``--on-exit`` says when a node dies."""
from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from llm_planner_ros.commands.launch import parse_launch_arguments
from llm_planner.errors import ConfigError
from llm_planner_ros.environment import ros_environment
from llm_planner_ros.launch_files import describe, resolve_launch_file, use_real_launch
from llm_planner_ros.launcher import describe_exit, load_launch_settings
from llm_planner_ros.node_reaper import read_groups

VENV_BIN = Path(sys.executable).parent
STUB = Path(__file__).with_name("stub_node.py")


# ------------------------------------------------------------------ launch description
def test_default_launch_file_describes_four_nodes_and_their_lifecycle_manager():
    commands = describe(resolve_launch_file(None), {}, ros_environment())
    names = [c.name for c in commands]
    assert names == ["simulator", "perception", "executor", "planner", "lifecycle_manager"]
    for command in commands:
        assert "--ros-args" in command.argv
        assert f"__node:={command.name}" in command.argv
        params_file = command.argv[command.argv.index("--params-file") + 1]
        assert params_file.endswith("config/llm_planner.yaml")


def test_launch_argument_overrides_params_file(tmp_path):
    custom = tmp_path / "p.yaml"
    custom.write_text("/**:\n  ros__parameters:\n    seed: 3\n")
    commands = describe(resolve_launch_file("llm_planner"), {"params_file": str(custom)}, ros_environment())
    assert all(str(custom) in c.argv for c in commands)


def test_unknown_launch_file_and_argument_are_clear_errors():
    with pytest.raises(ConfigError, match=r"known: (.*, )?llm_planner"):
        resolve_launch_file("nonexistent_graph")
    with pytest.raises(ConfigError, match="unknown launch argument"):
        describe(resolve_launch_file(None), {"bogus": "1"}, ros_environment())


def test_real_launch_is_not_faked_here():
    # the stand-in modules must not leak into sys.modules after describe()
    describe(resolve_launch_file(None), {}, ros_environment())
    assert use_real_launch() is False


def test_launch_arguments_are_read_as_ros2_launch_writes_them():
    assert parse_launch_arguments("gtamp", ["params_file:=a.yaml"], ["seed=3"]) == (
        "gtamp", {"params_file": "a.yaml", "seed": "3"})
    assert parse_launch_arguments("params_file:=a.yaml", [], []) == (None, {"params_file": "a.yaml"})
    with pytest.raises(ConfigError, match="KEY:=VALUE"):
        parse_launch_arguments(None, ["params_file=a.yaml"], [])


def test_launcher_settings_come_from_config_and_bad_values_are_refused(tmp_path):
    settings = load_launch_settings()
    assert settings.on_exit == "shutdown" and settings.sigterm_timeout > 0
    assert load_launch_settings(on_exit="continue", exit_grace_s=2).exit_grace_s == 2.0
    with pytest.raises(ConfigError, match="on_exit = 'restart' is invalid"):
        load_launch_settings(on_exit="restart")
    with pytest.raises(ConfigError, match="sigkill_timeout = -1 is invalid"):
        load_launch_settings(sigkill_timeout=-1)
    partial = tmp_path / "launch.yaml"
    partial.write_text("on_exit: continue\n")
    with pytest.raises(ConfigError, match="missing"):
        load_launch_settings(partial)


def test_reaper_protocol_and_exit_descriptions():
    assert read_groups(["+10", "+11", "-10", "junk"]) == ({11}, False)
    assert read_groups(["+10", "stop", "+12"]) == ({10}, True)
    assert describe_exit(3) == "exited with code 3" and describe_exit(-9) == "was killed by SIGKILL"


# ------------------------------------------------------------------ the running launcher
def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2:][:1] not in (b"Z", b"X")


def _wait(predicate, timeout_s: float, poll_s: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(poll_s)
    return predicate()


class Graph:
    """``llm-planner launch`` on a launch file of stand-in nodes, run as a test would from a script."""

    def __init__(self, tmp_path: Path, env: dict[str, str], nodes: dict[str, list[str]], *options: str,
                 sigint_ignored: bool = False, declared: tuple[str, ...] = ()) -> None:
        self.marks = tmp_path / "marks"
        self.marks.mkdir()
        prefix = tmp_path / "prefix"
        (prefix / "lib" / "stubpkg").mkdir(parents=True)
        program = prefix / "lib" / "stubpkg" / "stub_node"
        program.write_text(f"#!{sys.executable}\n" + STUB.read_text())
        program.chmod(0o755)
        launch_file = tmp_path / "stubs.launch.py"
        # ``declared``: launch arguments the file declares and hands every node as parameters
        parameters = "{" + ", ".join(f"{k!r}: LaunchConfiguration({k!r})" for k in declared) + "}"
        entries = ",\n        ".join(
            [f"DeclareLaunchArgument({k!r}, default_value='')" for k in declared]
            + [f"Node(package='stubpkg', executable='stub_node', name={name!r}, "
               f"arguments={['--marks', str(self.marks), *args]!r}, parameters=[{parameters}])"
               for name, args in nodes.items()])
        launch_file.write_text("from launch import LaunchDescription\nfrom launch.actions import DeclareLaunchArgument\n"
                               "from launch.substitutions import LaunchConfiguration\n"
                               "from launch_ros.actions import Node\n\n\n"
                               f"def generate_launch_description():\n    return LaunchDescription([\n        {entries}])\n")
        self.names = list(nodes)
        env = dict(env, AMENT_PREFIX_PATH=os.pathsep.join([str(prefix), env.get("AMENT_PREFIX_PATH", "")]))
        ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
        self.process = subprocess.Popen([str(VENV_BIN / "llm-planner"), "launch", str(launch_file), *options],
                                        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        preexec_fn=ignore)
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for_line(self, pattern: str, timeout_s: float) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            self.output.append(line)
            if re.search(pattern, line):
                return line
        raise AssertionError(f"no line matching {pattern!r} in {timeout_s} s; output so far:\n{''.join(self.output)}")

    def wait_until_up(self, timeout_s: float = 60.0) -> dict[str, list[int]]:
        """Every node's pid and its child's; waits for each stand-in node to have started."""
        self.wait_for_line(r"\[launch\] .*started", timeout_s)
        files = [self.marks / f"{name}.pids" for name in self.names]
        assert _wait(lambda: all(f.exists() for f in files), timeout_s), f"nodes did not start: {self.output}"
        return {name: [int(p) for p in f.read_text().split()] for name, f in zip(self.names, files)}

    def marked(self, name: str, signal_name: str) -> bool:
        return (self.marks / f"{name}.{signal_name}").exists()

    def finish(self, timeout_s: float = 60.0) -> int:
        code = self.process.wait(timeout=timeout_s)
        while not self.lines.empty():
            self.output.append(self.lines.get())
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def graphs():
    started: list[Graph] = []
    yield started
    for graph in started:
        graph.kill()


def _all_pids(pids: dict[str, list[int]]) -> list[int]:
    return [pid for group in pids.values() for pid in group]


@pytest.mark.slow
def test_background_launcher_stops_every_node_on_sigint(tmp_path, ros_env, graphs):
    graph = Graph(tmp_path, ros_env, {"alpha": ["--child"], "beta": []}, sigint_ignored=True)
    graphs.append(graph)
    pids = graph.wait_until_up()
    graph.process.send_signal(signal.SIGINT)
    assert graph.finish() == 0, graph.output
    assert graph.marked("alpha", "SIGINT") and graph.marked("beta", "SIGINT"), \
        "the nodes must get SIGINT, not inherit the launcher's ignored SIGINT"
    assert not [pid for pid in _all_pids(pids) if _alive(pid)], "a node or its child outlived the launcher"
    assert any("SIGINT received" in line for line in graph.output), graph.output


@pytest.mark.slow
def test_killed_launcher_leaves_no_node_alive(tmp_path, ros_env, graphs):
    graph = Graph(tmp_path, ros_env, {"plain": ["--child"], "stubborn": ["--child", "--ignore-term"]},
                  "--sigterm-timeout", "1", "--sigkill-timeout", "2")
    graphs.append(graph)
    pids = graph.wait_until_up()
    graph.process.kill()
    graph.process.wait()
    everyone = _all_pids(pids)
    assert _wait(lambda: not any(_alive(pid) for pid in everyone), 20.0), \
        f"still alive after the launcher was killed: {[pid for pid in everyone if _alive(pid)]}"
    assert graph.marked("plain", "SIGTERM"), "the kernel's parent-death signal must reach the node"


class StatusPeer:
    """A ROS node of the test that publishes and receives TaskStatus on /task_status."""

    def __init__(self) -> None:
        import rclpy
        from rclpy.signals import SignalHandlerOptions

        from llm_planner_interfaces.msg import TaskStatus

        self.TaskStatus = TaskStatus
        self.context = rclpy.Context()
        rclpy.init(context=self.context, signal_handler_options=SignalHandlerOptions.NO)
        self.node = rclpy.create_node("test_launcher_status_peer", context=self.context)
        self.received: list = []
        self.node.create_subscription(TaskStatus, "/task_status", self.received.append, 50)
        self.publisher = self.node.create_publisher(TaskStatus, "/task_status", 20)
        from rclpy.executors import SingleThreadedExecutor

        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def spin_until(self, predicate, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not predicate():
            self.executor.spin_once(timeout_sec=0.1)
        return predicate()

    def publish(self, task_id: str, state: str) -> None:
        self.publisher.publish(self.TaskStatus(task_id=task_id, directive="test", state=state, message="test"))
        self.executor.spin_once(timeout_sec=0.1)

    def close(self) -> None:
        import rclpy

        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)


@pytest.fixture
def status_peer(ros_env):
    peer = StatusPeer()
    yield peer
    peer.close()


def _reports_of(peer: StatusPeer, node: str) -> list:
    return [m for m in peer.received if not m.task_id and f"node '{node}'" in m.message]


@pytest.mark.slow
@pytest.mark.ros
def test_on_exit_shutdown_waits_for_the_running_task_then_stops_the_graph(tmp_path, ros_env, graphs, status_peer):
    quit_file = tmp_path / "quit"
    graph = Graph(tmp_path, ros_env, {"quitter": ["--exit-when", str(quit_file), "--code", "3"], "survivor": []},
                  "--on-exit", "shutdown", "--exit-grace", "120")
    graphs.append(graph)
    pids = graph.wait_until_up()
    assert status_peer.spin_until(lambda: status_peer.node.count_publishers("/task_status") >= 2, 60.0), \
        "the launcher's task_status reporter never appeared"
    status_peer.publish("task-1", "executing")  # a task is running when the node dies
    status_peer.spin_until(lambda: False, 1.0)
    quit_file.touch()
    graph.wait_for_line(r"node 'quitter' \(pid \d+\) exited with code 3; the graph stops", 30.0)
    assert status_peer.spin_until(lambda: _reports_of(status_peer, "quitter"), 30.0), "no report on task_status"
    time.sleep(2.0)
    assert _alive(pids["survivor"][0]) and graph.process.poll() is None, \
        "the graph must stay up while the task that saw the node die is still running"
    status_peer.publish("task-1", "failed")  # the task ended, naming the dead node: now the graph stops
    assert graph.finish(timeout_s=60.0) == 1, graph.output
    assert graph.marked("survivor", "SIGINT") and not _alive(pids["survivor"][0])


@pytest.mark.slow
@pytest.mark.ros
def test_on_exit_continue_reports_the_death_and_keeps_the_others(tmp_path, ros_env, graphs, status_peer):
    quit_file = tmp_path / "quit"
    graph = Graph(tmp_path, ros_env, {"quitter": ["--exit-when", str(quit_file), "--code", "3"], "survivor": []},
                  "--on-exit", "continue")
    graphs.append(graph)
    pids = graph.wait_until_up()
    assert status_peer.spin_until(lambda: status_peer.node.count_publishers("/task_status") >= 2, 60.0), \
        "the launcher's task_status reporter never appeared"
    quit_file.touch()
    graph.wait_for_line(r"node 'quitter' \(pid \d+\) exited with code 3; the other nodes keep running", 30.0)
    assert status_peer.spin_until(lambda: _reports_of(status_peer, "quitter"), 30.0), "no report on task_status"
    report = _reports_of(status_peer, "quitter")[0]
    assert report.state == "failed" and "exited with code 3" in report.message
    time.sleep(2.0)
    assert _alive(pids["survivor"][0]) and graph.process.poll() is None, "continue must keep the other nodes"
    graph.process.send_signal(signal.SIGTERM)
    assert graph.finish() == 1, graph.output  # a node died during the run
    assert graph.marked("survivor", "SIGINT") and not _alive(pids["survivor"][0])


@pytest.mark.slow
@pytest.mark.ros
def test_launch_arguments_reach_the_nodes_as_parameters_without_rcls_remap_warning(tmp_path, ros_env, graphs,
                                                                                   status_peer):
    """``llm-planner launch FILE llm_backend:=openai``: each node gets ``-p llm_backend:=openai`` after
    ``--ros-args``, and the launcher's own ROS node (its task_status reporter, up before the check)
    does not read its command line's KEY:=VALUE as remap rules (rcl: "This syntax is deprecated")."""
    graph = Graph(tmp_path, ros_env, {"alpha": [], "beta": []}, "llm_backend:=openai", declared=("llm_backend",))
    graphs.append(graph)
    pids = graph.wait_until_up()
    assert status_peer.spin_until(lambda: status_peer.node.count_publishers("/task_status") >= 1, 60.0), \
        "the launcher's task_status reporter never appeared"
    for name in ("alpha", "beta"):
        argv = Path(f"/proc/{pids[name][0]}/cmdline").read_bytes().decode().split("\0")
        assert argv[argv.index("--ros-args"):].count("llm_backend:=openai") == 1, argv
        assert argv[argv.index("llm_backend:=openai") - 1] == "-p", argv
    graph.process.send_signal(signal.SIGTERM)
    assert graph.finish() == 0, graph.output
    assert not [line for line in graph.output if "deprecated" in line], graph.output
