"""Run the package's launch files where the ``ros2`` tool does not exist.

``launch/*.launch.py`` is the one description of the node graph. With a real ROS 2 install,
``ros2 launch llm_planner llm_planner.launch.py`` runs it. Here (ROS 2 from PyPI wheels, no
``launch``/``launch_ros`` packages) this module runs the same file: it evaluates
``generate_launch_description()`` against a small stand-in for the handful of launch classes the
file uses (LaunchDescription, DeclareLaunchArgument, LaunchConfiguration, Node), then starts each
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

When the real ``launch_ros`` is importable it is used instead (``use_real_launch``).
"""
from __future__ import annotations

import ctypes
import importlib.util
import os
import queue
import runpy
import shutil
import signal
import subprocess
import sys
import threading
import time
import types
from concurrent.futures import Future
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Mapping, Sequence

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir, launch_dir
from llm_planner.ros.environment import ros_environment


# ----------------------------------------------------------------- the stand-in launch API
class LaunchConfiguration:
    """Stand-in for launch.substitutions.LaunchConfiguration: resolved from the launch arguments."""

    def __init__(self, variable_name: str, default: Any = None) -> None:
        self.variable_name = variable_name
        self.default = default


class DeclareLaunchArgument:
    def __init__(self, name: str, default_value: Any = None, description: str = "", **_: Any) -> None:
        self.name = name
        self.default_value = default_value
        self.description = description


class LaunchDescription:
    def __init__(self, initial_entities: Iterable[Any] | None = None) -> None:
        self.entities = list(initial_entities or [])

    def add_action(self, action: Any) -> None:
        self.entities.append(action)


class Node:
    """Stand-in for launch_ros.actions.Node (the keyword arguments the package's files use)."""

    def __init__(self, *, package: str, executable: str, name: str | None = None, namespace: str | None = None,
                 parameters: Sequence[Any] | None = None, remappings: Sequence[tuple[Any, Any]] | None = None,
                 arguments: Sequence[Any] | None = None, output: str = "screen", **_: Any) -> None:
        self.package = package
        self.executable = executable
        self.name = name
        self.namespace = namespace
        self.parameters = list(parameters or [])
        self.remappings = list(remappings or [])
        self.arguments = list(arguments or [])
        self.output = output


def _stand_in_modules() -> dict[str, types.ModuleType]:
    modules = {name: types.ModuleType(name) for name in
               ("launch", "launch.actions", "launch.substitutions", "launch_ros", "launch_ros.actions")}
    modules["launch"].LaunchDescription = LaunchDescription
    modules["launch"].actions = modules["launch.actions"]
    modules["launch"].substitutions = modules["launch.substitutions"]
    modules["launch.actions"].DeclareLaunchArgument = DeclareLaunchArgument
    modules["launch.substitutions"].LaunchConfiguration = LaunchConfiguration
    modules["launch_ros"].actions = modules["launch_ros.actions"]
    modules["launch_ros.actions"].Node = Node
    return modules


def use_real_launch() -> bool:
    """True where the real ROS 2 launch system is installed (a real ``launch_ros``)."""
    return importlib.util.find_spec("launch_ros") is not None


# ------------------------------------------------------------------------ node commands
@dataclass
class NodeCommand:
    name: str
    argv: list[str]
    namespace: str = ""  # "" or an absolute namespace such as "/robot1"


def resolve_launch_file(name: str | None) -> Path:
    """``None`` -> the default graph; a bare name -> ``launch/<name>.launch.py``; or a path."""
    if name is None:
        name = "llm_planner"
    path = Path(name)
    if path.is_file():
        return path
    candidate = launch_dir() / (name if name.endswith(".launch.py") else f"{name}.launch.py")
    if candidate.is_file():
        return candidate
    known = sorted(p.name.removesuffix(".launch.py") for p in launch_dir().glob("*.launch.py"))
    raise ConfigError(f"no launch file '{name}' (known: {', '.join(known)})")


def find_executable(package: str, executable: str, env: Mapping[str, str]) -> Path:
    """``<prefix>/lib/<package>/<executable>`` for the first prefix of AMENT_PREFIX_PATH that has it."""
    for prefix in env.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        candidate = Path(prefix) / "lib" / package / executable
        if prefix and candidate.exists():
            return candidate
    found = shutil.which(executable, path=env.get("PATH"))
    if found:
        return Path(found)
    raise ConfigError(f"executable '{executable}' of package '{package}' not found under AMENT_PREFIX_PATH "
                      f"({env.get('AMENT_PREFIX_PATH', '')}); run scripts/setup.sh")


def _resolve(value: Any, arguments: Mapping[str, str]) -> Any:
    if isinstance(value, LaunchConfiguration):
        if value.variable_name in arguments:
            return arguments[value.variable_name]
        if value.default is not None:
            return value.default
        raise ConfigError(f"launch argument '{value.variable_name}' has no value")
    if isinstance(value, (list, tuple)):
        return "".join(str(_resolve(v, arguments)) for v in value)
    return value


def _evaluate(launch_file: Path) -> LaunchDescription:
    """``generate_launch_description()`` of a launch file, evaluated with the stand-in API."""
    saved = {name: sys.modules.get(name) for name in _stand_in_modules()}
    sys.modules.update(_stand_in_modules())
    try:
        namespace = runpy.run_path(str(launch_file))
        return namespace["generate_launch_description"]()
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def declared_arguments(launch_file: Path) -> list[DeclareLaunchArgument]:
    """The launch arguments a launch file declares (``ros2 launch --show-args``)."""
    return [e for e in _evaluate(launch_file).entities if isinstance(e, DeclareLaunchArgument)]


def describe(launch_file: Path, arguments: Mapping[str, str], env: Mapping[str, str]) -> list[NodeCommand]:
    """Evaluate a launch file with the stand-in API and return each node's command line."""
    description = _evaluate(launch_file)
    declared = {e.name: e.default_value for e in description.entities if isinstance(e, DeclareLaunchArgument)}
    unknown = set(arguments) - set(declared)
    if unknown:
        raise ConfigError(f"unknown launch argument(s) {', '.join(sorted(unknown))} "
                          f"(declared: {', '.join(sorted(declared)) or 'none'})")
    values = {k: str(v) for k, v in declared.items() if v is not None}
    values.update(arguments)
    return [_node_command(e, values, env) for e in description.entities if isinstance(e, Node)]


def _node_command(node: Node, arguments: Mapping[str, str], env: Mapping[str, str]) -> NodeCommand:
    exe = find_executable(node.package, node.executable, env)
    argv = [str(exe), *(str(_resolve(a, arguments)) for a in node.arguments), "--ros-args"]
    name = node.name or node.executable
    argv += ["-r", f"__node:={name}"]
    namespace = str(_resolve(node.namespace, arguments) or "").strip("/")
    if namespace:
        argv += ["-r", f"__ns:=/{namespace}"]
    for entry in node.parameters:
        entry = _resolve(entry, arguments)
        if isinstance(entry, Mapping):
            for key, value in entry.items():
                rendered = yaml.safe_dump(_resolve(value, arguments), default_flow_style=True).strip()
                rendered = rendered.removesuffix("\n...").strip()
                argv += ["-p", f"{key}:={rendered}"]
        else:
            argv += ["--params-file", str(entry)]
    for source, target in node.remappings:
        argv += ["-r", f"{_resolve(source, arguments)}:={_resolve(target, arguments)}"]
    return NodeCommand(name=name, argv=argv, namespace=f"/{namespace}" if namespace else "")


# ----------------------------------------------------------------------- the settings
ON_EXIT_CHOICES = ("shutdown", "continue")


@dataclass(frozen=True)
class LaunchSettings:
    """How the launcher reacts to a node's death and stops the graph (``config/launch.yaml``)."""

    on_exit: str             # shutdown | continue
    exit_grace_s: float      # shutdown mode: time a running task gets to fail, naming the dead node
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
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
#: What the kernel sends a node when the launcher dies (rclpy shuts down cleanly on it).
PARENT_DEATH_SIGNAL = signal.SIGTERM
REAPER_PROGRAM = Path(__file__).with_name("node_reaper.py")


def _prctl() -> Callable[..., int] | None:
    """libc's prctl through ctypes (Linux only; None elsewhere)."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


def _node_preexec(launcher_pid: int) -> Callable[[], None]:
    """What a node's process does between fork and exec: SIGINT back to default (a launcher run as a
    background job has it ignored, and exec would pass that on), and a parent-death signal."""
    prctl = _prctl()  # looked up here: the child only calls it

    def setup() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, int(PARENT_DEATH_SIGNAL), 0, 0, 0)
        if os.getppid() != launcher_pid:  # the launcher died before the signal was armed
            os.kill(os.getpid(), PARENT_DEATH_SIGNAL)

    return setup


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

    def start(self) -> "GraphRunner":
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
        if out is subprocess.PIPE:
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
        """SIGINT each process group, then SIGTERM, then SIGKILL; return the exit codes."""
        phases = ((signal.SIGINT, self.settings.sigterm_timeout), (signal.SIGTERM, self.settings.sigkill_timeout),
                  (signal.SIGKILL, self.settings.sigkill_timeout))
        for sig, wait_s in phases:
            alive = {name: p for name, p in self.processes.items() if p.poll() is None}
            if not alive:
                break
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

    def __enter__(self) -> "GraphRunner":
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


# ------------------------------------------------------------- reporting on task_status
#: task_status states after which a task runs no more
TERMINAL_STATES = frozenset({"succeeded", "failed", "canceled", "cancelled", "aborted", "rejected"})
#: after the last running task ended, time for its result to reach the caller before the graph stops
RESULT_DELIVERY_S = 1.0


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
            import rclpy
            from rclpy.executors import SingleThreadedExecutor
            from rclpy.signals import SignalHandlerOptions

            from llm_planner.ros.environment import apply_ros_environment
            from llm_planner_interfaces.msg import TaskStatus

            apply_ros_environment()
            self._context = rclpy.Context()
            rclpy.init(context=self._context, signal_handler_options=SignalHandlerOptions.NO)
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
        status = self._msg_type(task_id="", directive="", state="failed", step=0, action="",
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
            _grace_period(runner.settings.exit_grace_s, stop, monitor)
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


def _grace_period(grace_s: float, stop: threading.Event, monitor: GraphMonitor | None) -> None:
    """Keep the graph up until the running tasks have ended (so their callers hear which node died),
    at most ``grace_s`` seconds; without a monitor, the whole grace period."""
    deadline = time.monotonic() + grace_s
    ended_at: float | None = None
    while not stop.is_set() and time.monotonic() < deadline:
        if monitor is not None and monitor.ready.is_set() and not monitor.error and not monitor.running_tasks():
            ended_at = ended_at or time.monotonic()
            if time.monotonic() - ended_at >= RESULT_DELIVERY_S:
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
    from launch import LaunchService  # type: ignore[import-not-found]  # real ROS 2 install
    from launch.actions import IncludeLaunchDescription  # type: ignore[import-not-found]
    from launch.launch_description_sources import PythonLaunchDescriptionSource  # type: ignore[import-not-found]

    service = LaunchService()
    service.include_launch_description(IncludeLaunchDescription(
        PythonLaunchDescriptionSource(str(launch_file)), launch_arguments=list(arguments.items())))
    return service.run()
