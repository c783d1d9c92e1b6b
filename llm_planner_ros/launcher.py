"""Run the package's launch files where the ``ros2`` tool does not exist.

``launch/*.launch.py`` is the one description of the node graph. With a real ROS 2 install,
``ros2 launch llm_planner llm_planner.launch.py`` runs it. Here (ROS 2 from PyPI wheels, no
``launch``/``launch_ros`` packages) the same file runs here: :mod:`.launch_files` evaluates
``generate_launch_description()`` against a small stand-in for the handful of launch classes the
file uses (LaunchDescription, DeclareLaunchArgument, LaunchConfiguration, OpaqueFunction, Node); this module starts each
node as its own process (and process group) with the usual ``--ros-args`` (node name, namespace,
parameter files, parameters, remappings) and prefixes its output.

Every node ends with the graph, however the graph ends:
- stopping it (Ctrl-C, SIGTERM, SIGHUP, or a node's death with ``on_exit: shutdown``) sends SIGINT
  to every node's process group, then SIGTERM after ``sigterm_timeout``, then SIGKILL after
  ``sigkill_timeout`` (``config/launch.yaml``), like ``ros2 launch``;
- the launcher installs its own SIGINT handler, so a launcher started as a background job (which
  inherits SIGINT as ignored) still stops on SIGINT, and the nodes get SIGINT back as default;
- if the launcher itself dies (SIGKILL, a crash), the kernel sends each node SIGTERM (a
  parent-death signal, ``prctl(PR_SET_PDEATHSIG)``), and a small reaper process
  (``node_reaper.py``) stops what is left of each node's process group (its children, or a node
  that ignores the signal).

When the real ``launch_ros`` is importable it is used instead (``use_real_launch``). Watching the
running graph and ending it is :mod:`.supervision`.
"""
from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import IO, Any

import yaml

from llm_planner.child_process import die_with_parent
from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir
from llm_planner_ros.environment import ros_environment
from llm_planner_ros.launch_files import NodeCommand, describe

# ----------------------------------------------------------------------- the settings
ON_EXIT_CHOICES = ("shutdown", "continue")


@dataclass(frozen=True)
class LaunchSettings:
    """How the launcher reacts to a node's death and stops the graph (``config/launch.yaml``)."""

    on_exit: str             # shutdown | continue
    exit_grace_s: float      # shutdown mode: time a running task gets to fail, naming the dead node
    result_delivery_s: float  # shutdown mode: after the last task ended, time for its result to reach the caller
    sigterm_timeout: float   # seconds between SIGINT and SIGTERM when stopping a node
    sigkill_timeout: float   # seconds between SIGTERM and SIGKILL


def default_launch_settings_file() -> Path:
    return config_dir() / "launch.yaml"


def load_launch_settings(path: str | Path | None = None, **overrides: Any) -> LaunchSettings:
    """The settings of ``path`` (default ``config/launch.yaml``), with the overrides that are not None."""
    path = Path(path) if path else default_launch_settings_file()
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the launcher settings: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of launcher settings")
    data.update({k: v for k, v in overrides.items() if v is not None})
    names = [f.name for f in fields(LaunchSettings)]
    unknown = sorted(set(data) - set(names))
    missing = [n for n in names if n not in data]
    if unknown or missing:
        raise ConfigError(f"{path}: launcher settings: unknown {unknown or 'none'}, missing {missing or 'none'} "
                          f"(expected: {', '.join(names)})")
    if data["on_exit"] not in ON_EXIT_CHOICES:
        raise ConfigError(f"on_exit = {data['on_exit']!r} is invalid: expected one of {', '.join(ON_EXIT_CHOICES)}")
    for name in names[1:]:
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(f"{name} = {value!r} is invalid: expected a number of seconds >= 0")
        data[name] = float(value)
    return LaunchSettings(**data)


# ------------------------------------------------------------------ node process lifetime
#: What the kernel sends a node when the launcher dies (rclpy shuts down cleanly on it).
PARENT_DEATH_SIGNAL = signal.SIGTERM
#: A node still alive at SIGKILL first gets SIGUSR1 (its threads' stacks into its log) and this long to write them.
STACK_DUMP_S = 0.5
REAPER_PROGRAM = Path(__file__).with_name("node_reaper.py")


def _node_preexec(launcher_pid: int) -> Callable[[], None]:
    """What a node's process does between fork and exec (``llm_planner.child_process``): SIGINT back to
    default and the parent-death signal."""
    return die_with_parent(launcher_pid, PARENT_DEATH_SIGNAL)


class _SpawnThread:
    """Starts the node processes from one thread that lives as long as the runner.

    The kernel sends the parent-death signal when the *thread* that forked a child ends, not when
    its process does; spawning from a short-lived thread would stop the nodes with that thread.
    """

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[Callable[[], Any], Future] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, name="launcher-spawn", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            fn, future = job
            try:
                future.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)

    def call(self, fn: Callable[[], Any]) -> Any:
        future: Future = Future()
        self._jobs.put((fn, future))
        return future.result()

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=2.0)


class _ReaperLink:
    """The pipe to ``node_reaper.py``, which stops the node groups if this process dies."""

    def __init__(self, settings: LaunchSettings) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-S", str(REAPER_PROGRAM), str(settings.sigterm_timeout), str(settings.sigkill_timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, start_new_session=True)

    def send(self, line: str) -> None:
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the reaper is gone: the parent-death signal still covers the nodes

    def close(self) -> None:
        self.send("stop")
        try:
            assert self.process.stdin is not None
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# ------------------------------------------------------------------------- the runner
@dataclass
class GraphRunner:
    """Starts a launch file's nodes as processes and stops them all; use as a context manager."""

    launch_file: Path
    arguments: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] | None = None
    log_dir: Path | None = None  # None: node output goes to this process's stdout, prefixed
    settings: LaunchSettings = field(default_factory=load_launch_settings)
    commands: list[NodeCommand] = field(default_factory=list, init=False)
    processes: dict[str, subprocess.Popen] = field(default_factory=dict, init=False)
    #: node -> the signal that finally stopped it when SIGINT was not enough (filled by stop())
    escalated: dict[str, str] = field(default_factory=dict, init=False)
    _released: set[str] = field(default_factory=set, init=False)
    _threads: list[threading.Thread] = field(default_factory=list, init=False)
    _spawner: _SpawnThread | None = field(default=None, init=False)
    _reaper: _ReaperLink | None = field(default=None, init=False)

    def start(self) -> GraphRunner:
        env = dict(self.env) if self.env is not None else ros_environment()
        self.commands = describe(self.launch_file, self.arguments, env)
        if self.log_dir:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        self._reaper = _ReaperLink(self.settings)
        self._spawner = _SpawnThread()
        for command in self.commands:
            self._spawn(command, env)
        return self

    def _spawn(self, command: NodeCommand, env: Mapping[str, str]) -> None:
        assert self._spawner is not None and self._reaper is not None
        out: IO | int
        if self.log_dir:
            out = open(self.log_dir / f"{command.name}.log", "wb")  # noqa: SIM115 - closed with the process
        else:
            out = subprocess.PIPE
        preexec = _node_preexec(os.getpid())
        process = self._spawner.call(lambda: subprocess.Popen(
            command.argv, env=dict(env), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, preexec_fn=preexec))
        self._reaper.send(f"+{process.pid}")
        self.processes[command.name] = process
        if isinstance(out, int):  # subprocess.PIPE
            thread = threading.Thread(target=_prefix_output, args=(command.name, process), daemon=True)
            thread.start()
            self._threads.append(thread)
        else:
            out.close()  # the child has its own copy

    def failed(self) -> dict[str, int]:
        """Nodes that have exited, with their exit codes (negative: the signal that ended them)."""
        return {name: p.returncode for name, p in self.processes.items() if p.poll() is not None}

    def release(self, name: str) -> None:
        """After a node exited: SIGKILL what is left of its process group (its children) and forget it."""
        process = self.processes[name]
        if process.poll() is None or name in self._released:
            return
        _signal_group(process, signal.SIGKILL)
        self._released.add(name)
        if self._reaper is not None:
            self._reaper.send(f"-{process.pid}")

    def stop(self) -> dict[str, int]:
        """SIGINT each process group, then SIGTERM, then SIGKILL (after SIGUSR1: where it hangs, into its
        log); return the exit codes."""
        phases = ((signal.SIGINT, self.settings.sigterm_timeout), (signal.SIGTERM, self.settings.sigkill_timeout),
                  (signal.SIGKILL, self.settings.sigkill_timeout))
        for sig, wait_s in phases:
            alive = {name: p for name, p in self.processes.items() if p.poll() is None}
            if not alive:
                break
            if sig == signal.SIGKILL:  # first, where each hangs into its log (faulthandler, run_node)
                for p in alive.values():
                    _signal_group(p, signal.SIGUSR1)
                time.sleep(STACK_DUMP_S)
            for name, p in alive.items():
                _signal_group(p, sig)
                if sig != signal.SIGINT:
                    self.escalated[name] = sig.name
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline and any(p.poll() is None for p in alive.values()):
                time.sleep(0.05)
        # a node's own children (e.g. a planner subprocess) share its group: make sure they are gone
        for name in list(self.processes):
            self.release(name)
        for thread in self._threads:
            thread.join(timeout=2.0)
        if self._reaper is not None:
            self._reaper.close()
        if self._spawner is not None:
            self._spawner.close()
        return {name: p.returncode for name, p in self.processes.items()}

    def __enter__(self) -> GraphRunner:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _prefix_output(name: str, process: subprocess.Popen) -> None:
    assert process.stdout is not None
    for raw in iter(process.stdout.readline, b""):
        sys.stdout.write(f"[{name}] {raw.decode(errors='replace')}")
        sys.stdout.flush()
    process.stdout.close()


def describe_exit(code: int | None) -> str:
    """``exited with code 1`` / ``was killed by SIGKILL``."""
    if code is None:
        return "is running"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


