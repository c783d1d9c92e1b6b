"""What the G-TAMP nodes share: their parameter schema (defaults in ``config/gtamp_nodes.yaml``).

The household nodes' schema (:mod:`llm_planner.config`) does not know ``problem`` or the G-TAMP
planner names, so these nodes declare and validate their own parameters the same way.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import yaml
from rclpy.node import Node

from llm_planner.config import BACKENDS, Param
from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir

if TYPE_CHECKING:
    from llm_planner.gtamp.domain import ProblemSpec


def _planner_names() -> tuple[str, ...]:
    from llm_planner.planners.stalm import PLANNERS, registry_name

    return tuple(registry_name(m) for m in PLANNERS)


def _positive(v: Any) -> bool:
    return v > 0


GTAMP_PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("problem", str, lambda v: bool(v.strip()), "a G-TAMP problem name (P1..P6) or a problem YAML path"),
    Param("planner", str, lambda v: v in _planner_names(), "a G-TAMP planner (stalm, stalm_no_uct, gtamp_uct, ...)"),
    Param("llm_backend", str, lambda v: v in BACKENDS, f"one of {', '.join(BACKENDS)}"),
    Param("seed", int, lambda v: v >= 0, "an integer >= 0"),
    Param("max_steps", int, _positive, "an integer > 0"),
    Param("plan_timeout_s", float, _positive, "a number of seconds > 0"),
    Param("max_directive_chars", int, _positive, "an integer > 0"),
    Param("geometry_rate_hz", float, _positive, "a rate in Hz > 0"),
    Param("perception_wait_s", float, _positive, "a number of seconds > 0"),
)}


def gtamp_params_file() -> Path:
    return config_dir() / "gtamp_nodes.yaml"


def load_defaults(path: Path | None = None) -> dict[str, Any]:
    """The ``ros__parameters`` of the G-TAMP parameter file."""
    path = path or gtamp_params_file()
    try:
        data = yaml.safe_load(path.read_text())
        section = data["/**"]["ros__parameters"]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as exc:
        raise ConfigError(f"{path}: cannot read the '/**: ros__parameters:' section: {exc}") from None
    return dict(section)


def check_param(name: str, value: Any, source: str) -> Any:
    """The value, converted int -> float where a float is expected; ConfigError naming the parameter."""
    param = GTAMP_PARAMS[name]
    if param.kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, param.kind) or not param.check(value):
        raise ConfigError(f"{source}: parameter '{name}' = {value!r} is invalid: expected {param.accepts}")
    return value


def declare_gtamp_params(node: Node, names: Iterable[str]) -> dict[str, Any]:
    """Declare the named parameters with the defaults of config/gtamp_nodes.yaml and validate them."""
    defaults = load_defaults()
    return {name: check_param(name, node.declare_parameter(name, defaults[name]).value, f"node '{node.get_name()}'")
            for name in names}


def load_gtamp_problem(name: str) -> "ProblemSpec":
    """The problem spec; ConfigError (stops the node at start) when it cannot be loaded."""
    from llm_planner.errors import LlmPlannerError
    from llm_planner.gtamp.problems import load_problem

    try:
        return load_problem(name)
    except (LlmPlannerError, OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"parameter 'problem' = {name!r}: {exc}") from None


def resolve_gtamp_planner(name: str) -> str:
    """Registry name of a G-TAMP planner given by registry name (``gtamp_uct``) or method (``uct``)."""
    from llm_planner.planners.stalm import PLANNERS, registry_name

    registry = {registry_name(m) for m in PLANNERS}
    if name in registry:
        return name
    if name in PLANNERS:
        return registry_name(name)
    raise ConfigError(f"unknown G-TAMP planner '{name}' (available: {', '.join(sorted(registry))})")
