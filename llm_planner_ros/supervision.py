"""Watching a running node graph: the task states the executors publish on ``task_status``
(:class:`GraphMonitor`), and the loop that ends the graph when it is told to or a node dies,
reporting on running tasks first (:func:`supervise`, :func:`run_launch_file`)."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from llm_planner_interfaces.msg import TaskStatus

from llm_planner.task_states import FAILED, FINAL_STATES
from llm_planner_ros.environment import apply_ros_environment
from llm_planner_ros.launch_files import resolve_launch_file, use_real_launch
from llm_planner_ros.launcher import GraphRunner, LaunchSettings, describe_exit, load_launch_settings

# ------------------------------------------------------------- reporting on task_status
#: task_status states after which a task runs no more (a plan-only task ends planned, a busy robot
#: refuses a task at once: neither keeps the graph up)
TERMINAL_STATES = FINAL_STATES


class GraphMonitor:
    """The launcher's own small ROS node: it reports a node's exit on ``task_status`` (one
    TaskStatus with an empty task id, state ``failed`` and a message naming the node) and follows
    ``task_status`` to know which tasks are running. Started in the background; if ROS cannot be
    started here, the launcher only prints (``error`` says why)."""

    def __init__(self, namespaces: Iterable[str]) -> None:
        self.namespaces = sorted(set(namespaces)) or [""]
        self.ready = threading.Event()
        self.error = ""
        self._running: dict[str, str] = {}  # task id -> last state
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name="launcher-monitor", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            import rclpy  # noqa: PLC0415 - rclpy loads in the launcher's monitor thread only
            from rclpy.executors import SingleThreadedExecutor  # noqa: PLC0415 - rclpy loads in the launcher's monitor thread only
            from rclpy.signals import SignalHandlerOptions  # noqa: PLC0415 - rclpy loads in the launcher's monitor thread only

            apply_ros_environment()
            self._context = rclpy.Context()
            # args: the launcher's own command line holds the launch arguments (KEY:=VALUE), which rcl
            # would read as remap rules of this node (and warn that the syntax is deprecated)
            rclpy.init(args=[], context=self._context, signal_handler_options=SignalHandlerOptions.NO)
            node = rclpy.create_node(f"llm_planner_launcher_{os.getpid()}", context=self._context,
                                     start_parameter_services=False)
            self._node, self._msg_type = node, TaskStatus
            self._publishers = {ns: node.create_publisher(TaskStatus, f"{ns}/task_status", 20)
                                for ns in self.namespaces}
            for ns in self.namespaces:
                node.create_subscription(TaskStatus, f"{ns}/task_status", self._on_status, 50)
            executor = SingleThreadedExecutor(context=self._context)
            executor.add_node(node)
        except Exception as exc:  # noqa: BLE001 - reporting is optional; the launcher still prints
            self.error = f"{type(exc).__name__}: {exc}"
            self.ready.set()
            return
        self.ready.set()
        try:
            while not self._closing.is_set() and self._context.ok():
                executor.spin_once(timeout_sec=0.1)
        finally:
            executor.shutdown(timeout_sec=1.0)
            node.destroy_node()
            if self._context.ok():
                rclpy.shutdown(context=self._context)

    def _on_status(self, msg: Any) -> None:
        if not msg.task_id:
            return  # a graph event (such as our own report), not a task
        with self._lock:
            if msg.state in TERMINAL_STATES:
                self._running.pop(msg.task_id, None)
            else:
                self._running[msg.task_id] = msg.state

    def running_tasks(self) -> dict[str, str]:
        with self._lock:
            return dict(self._running)

    def report(self, namespace: str, message: str) -> bool:
        """Publish a node's exit on ``<namespace>/task_status``; False if ROS is not available here."""
        if not self.ready.is_set() or self.error:
            return False
        publisher = self._publishers.get(namespace) or self._publishers[self.namespaces[0]]
        status = self._msg_type(task_id="", directive="", state=FAILED, step=0, action="",
                                result="node exited", message=message)
        status.header.stamp = self._node.get_clock().now().to_msg()
        publisher.publish(status)
        return True

    def close(self) -> None:
        self._closing.set()
        self._thread.join(timeout=3.0)


# ------------------------------------------------------------------------ supervision
def supervise(runner: GraphRunner, stop: threading.Event, monitor: GraphMonitor | None = None,
              poll_s: float = 0.2) -> dict[str, int]:
    """Watch the nodes until ``stop`` is set or, with ``on_exit: shutdown``, a node dies (after the
    grace period); with ``continue``, until every node has exited. Returns the nodes that died."""
    died: dict[str, int] = {}
    while not stop.wait(poll_s):
        new = {name: code for name, code in runner.failed().items() if name not in died}
        for name, code in new.items():
            died[name] = code
            _report_exit(runner, name, code, monitor)
        if new and runner.settings.on_exit == "shutdown":
            _grace_period(runner.settings, stop, monitor)
            break
        for name in new:
            runner.release(name)
        if len(died) == len(runner.processes):
            print("[launch] every node has exited", file=sys.stderr, flush=True)
            break
    return died


def _report_exit(runner: GraphRunner, name: str, code: int, monitor: GraphMonitor | None) -> None:
    process = runner.processes[name]
    then = ("the graph stops" if runner.settings.on_exit == "shutdown"
            else "the other nodes keep running")
    message = f"node '{name}' (pid {process.pid}) {describe_exit(code)}; {then} (on_exit: {runner.settings.on_exit})"
    print(f"[launch] {message}", file=sys.stderr, flush=True)
    if monitor is not None:
        namespace = next((c.namespace for c in runner.commands if c.name == name), "")
        monitor.report(namespace, message)


def _grace_period(settings: LaunchSettings, stop: threading.Event, monitor: GraphMonitor | None) -> None:
    """Keep the graph up until the running tasks have ended and their results had
    ``result_delivery_s`` to reach their callers (so they hear which node died), at most
    ``exit_grace_s`` seconds; without a monitor, the whole grace period."""
    deadline = time.monotonic() + settings.exit_grace_s
    ended_at: float | None = None
    while not stop.is_set() and time.monotonic() < deadline:
        if monitor is not None and monitor.ready.is_set() and not monitor.error and not monitor.running_tasks():
            ended_at = ended_at or time.monotonic()
            if time.monotonic() - ended_at >= settings.result_delivery_s:
                return
        else:
            ended_at = None
        stop.wait(0.1)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run_launch_file(name: str | None, arguments: Mapping[str, str], settings: LaunchSettings | None = None) -> int:
    """Run a launch file in the foreground until SIGINT/SIGTERM/SIGHUP (or a node's death, with
    ``on_exit: shutdown``); return 0, or 1 when a node died."""
    launch_file = resolve_launch_file(name)
    settings = settings or load_launch_settings()
    if use_real_launch():
        return _run_real_launch(launch_file, arguments)
    stop = threading.Event()
    received: list[str] = []

    def on_signal(signum: int, _frame: Any) -> None:
        received.append(signal.Signals(signum).name)
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in STOP_SIGNALS}
    runner = GraphRunner(launch_file, arguments, settings=settings)
    monitor: GraphMonitor | None = None
    died: dict[str, int] = {}
    try:
        runner.start()
        started = ", ".join(f"{n} (pid {p.pid})" for n, p in runner.processes.items())
        print(f"[launch] {launch_file.name}: started {started}; on a node's exit: {settings.on_exit}; "
              "Ctrl-C stops the graph", flush=True)
        monitor = GraphMonitor(c.namespace for c in runner.commands)
        died = supervise(runner, stop, monitor)
    finally:
        if received:
            print(f"[launch] {received[0]} received: stopping the graph", flush=True)
        codes = runner.stop()
        if monitor is not None:
            monitor.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    summary = ", ".join(f"{n} {describe_exit(c)}" for n, c in codes.items())
    escalated = f"; needed {runner.escalated}" if runner.escalated else ""
    print(f"[launch] stopped: {summary}{escalated}", flush=True)
    if monitor is not None and monitor.error:
        print(f"[launch] (node exits were not reported on task_status: {monitor.error})", file=sys.stderr)
    return 1 if died else 0


def _run_real_launch(launch_file: Path, arguments: Mapping[str, str]) -> int:
    from launch import LaunchService  # noqa: PLC0415 - ROS launch only when the graph is launched; real ROS 2 install
    from launch.actions import IncludeLaunchDescription  # noqa: PLC0415 - ROS launch only when the graph is launched
    from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: PLC0415 - ROS launch only when the graph is launched

    service = LaunchService()
    service.include_launch_description(IncludeLaunchDescription(
        PythonLaunchDescriptionSource(str(launch_file)), launch_arguments=list(arguments.items())))
    return service.run()
