"""Run the package's launch files where the ``ros2`` tool does not exist.

``launch/*.launch.py`` is the one description of the node graph. With a real ROS 2 install,
``ros2 launch llm_planner llm_planner.launch.py`` runs it. Here (ROS 2 from PyPI wheels, no
``launch``/``launch_ros`` packages) this module runs the same file: it evaluates
``generate_launch_description()`` against a small stand-in for the handful of launch classes the
file uses (LaunchDescription, DeclareLaunchArgument, LaunchConfiguration, Node), then starts each
node as its own process with the usual ``--ros-args`` (node name, parameter files, parameters,
remappings), prefixes its output, and shuts the whole graph down cleanly: SIGINT to every process
group, then SIGTERM, then SIGKILL, so no process is left behind.

When the real ``launch_ros`` is importable it is used instead (``use_real_launch``).
"""
from __future__ import annotations

import importlib.util
import os
import runpy
import shutil
import signal
import subprocess
import sys
import threading
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Mapping, Sequence

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import launch_dir
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


def describe(launch_file: Path, arguments: Mapping[str, str], env: Mapping[str, str]) -> list[NodeCommand]:
    """Evaluate a launch file with the stand-in API and return each node's command line."""
    saved = {name: sys.modules.get(name) for name in _stand_in_modules()}
    sys.modules.update(_stand_in_modules())
    try:
        namespace = runpy.run_path(str(launch_file))
        description = namespace["generate_launch_description"]()
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
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
    return NodeCommand(name=name, argv=argv)


# ------------------------------------------------------------------------- the runner
@dataclass
class GraphRunner:
    """Starts a launch file's nodes as processes and stops them all; use as a context manager."""

    launch_file: Path
    arguments: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] | None = None
    log_dir: Path | None = None  # None: node output goes to this process's stdout, prefixed
    processes: dict[str, subprocess.Popen] = field(default_factory=dict, init=False)
    _threads: list[threading.Thread] = field(default_factory=list, init=False)

    def start(self) -> "GraphRunner":
        env = dict(self.env) if self.env is not None else ros_environment()
        commands = describe(self.launch_file, self.arguments, env)
        if self.log_dir:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        for command in commands:
            self._spawn(command, env)
        return self

    def _spawn(self, command: NodeCommand, env: Mapping[str, str]) -> None:
        out: IO | int
        if self.log_dir:
            out = open(self.log_dir / f"{command.name}.log", "wb")  # noqa: SIM115 - closed with the process
        else:
            out = subprocess.PIPE
        process = subprocess.Popen(command.argv, env=dict(env), stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        self.processes[command.name] = process
        if out is subprocess.PIPE:
            thread = threading.Thread(target=_prefix_output, args=(command.name, process), daemon=True)
            thread.start()
            self._threads.append(thread)

    def failed(self) -> dict[str, int]:
        """Nodes that have exited, with their exit codes."""
        return {name: p.returncode for name, p in self.processes.items() if p.poll() is not None}

    def stop(self, timeout_s: float = 8.0) -> dict[str, int]:
        """SIGINT each process group, then SIGTERM, then SIGKILL; return the exit codes."""
        for sig, wait_s in ((signal.SIGINT, timeout_s), (signal.SIGTERM, 3.0), (signal.SIGKILL, 3.0)):
            alive = [p for p in self.processes.values() if p.poll() is None]
            if not alive:
                break
            for p in alive:
                _signal_group(p, sig)
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline and any(p.poll() is None for p in alive):
                time.sleep(0.05)
        # a node's own children (e.g. a planner subprocess) share its group: make sure they are gone
        for p in self.processes.values():
            _signal_group(p, signal.SIGKILL)
        for thread in self._threads:
            thread.join(timeout=2.0)
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


def run_launch_file(name: str | None, arguments: Mapping[str, str]) -> int:
    """Run a launch file in the foreground until Ctrl-C (or until a node dies); return an exit code."""
    launch_file = resolve_launch_file(name)
    if use_real_launch():
        from launch import LaunchService  # type: ignore[import-not-found]  # real ROS 2 install
        from launch.actions import IncludeLaunchDescription  # type: ignore[import-not-found]
        from launch.launch_description_sources import PythonLaunchDescriptionSource  # type: ignore[import-not-found]

        service = LaunchService()
        service.include_launch_description(IncludeLaunchDescription(
            PythonLaunchDescriptionSource(str(launch_file)), launch_arguments=list(arguments.items())))
        return service.run()
    runner = GraphRunner(launch_file, arguments)
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    runner.start()
    print(f"[launch] {launch_file.name}: started {', '.join(runner.processes)}; Ctrl-C stops the graph", flush=True)
    try:
        while not stop.is_set() and not runner.failed():
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        died = runner.failed()
        codes = runner.stop()
        signal.signal(signal.SIGTERM, previous)
    if died:
        print(f"[launch] node(s) exited early: {died}", file=sys.stderr)
        return 1
    print(f"[launch] stopped: {codes}", flush=True)
    return 0
