"""Read the package's launch files without ``ros2 launch``: ``generate_launch_description()`` is
evaluated against a small stand-in for the launch classes the files use (LaunchDescription,
DeclareLaunchArgument, LaunchConfiguration, OpaqueFunction, Node), or against the real ``launch_ros`` when it is
importable (``use_real_launch``), and each Node becomes the command line that starts it with the
usual ``--ros-args`` (node name, namespace, parameter files, parameters, remappings)."""
from __future__ import annotations

import importlib.util
import os
import runpy
import shutil
import sys
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import launch_dir


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


class OpaqueFunction:
    """Stand-in for launch.actions.OpaqueFunction: ``function(context)`` returns the actions to run."""

    def __init__(self, *, function: Callable[..., Any], args: Sequence[Any] = (),
                 kwargs: Mapping[str, Any] | None = None) -> None:
        self.function = function
        self.args = list(args)
        self.kwargs = dict(kwargs or {})


@dataclass
class LaunchContext:
    """Stand-in for launch.LaunchContext: what an OpaqueFunction reads (the launch arguments' values)."""

    launch_configurations: dict[str, str]


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
    vars(modules["launch"]).update(LaunchDescription=LaunchDescription, actions=modules["launch.actions"],
                                   substitutions=modules["launch.substitutions"])
    vars(modules["launch.actions"]).update(DeclareLaunchArgument=DeclareLaunchArgument, OpaqueFunction=OpaqueFunction)
    vars(modules["launch.substitutions"]).update(LaunchConfiguration=LaunchConfiguration)
    vars(modules["launch_ros"]).update(actions=modules["launch_ros.actions"])
    vars(modules["launch_ros.actions"]).update(Node=Node)
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
    return [_node_command(e, values, env) for e in _actions(description.entities, values) if isinstance(e, Node)]


def _actions(entities: Iterable[Any], values: Mapping[str, str]) -> list[Any]:
    """The entities with each OpaqueFunction replaced by what it returns for these argument values."""
    actions: list[Any] = []
    for entity in entities:
        if isinstance(entity, OpaqueFunction):
            made = entity.function(LaunchContext(dict(values)), *entity.args, **entity.kwargs) or []
            actions += _actions(made, values)
        else:
            actions.append(entity)
    return actions


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
