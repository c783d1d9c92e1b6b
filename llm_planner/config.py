"""Node and CLI parameters: one schema, the defaults in ``config/llm_planner.yaml``, validated.

An invalid value stops a node at start with a message naming the parameter and what it accepts.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir

PLANNER_NAMES = ("classical", "llm_mcts", "stalm", "pddl", "saycanpay")
BACKENDS = ("offline", "openai")


@dataclass(frozen=True)
class Param:
    name: str
    kind: type
    check: Callable[[Any], bool]
    accepts: str  # what a valid value looks like, for the error message


def _positive(v: Any) -> bool:
    return v > 0


PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("scene", str, lambda v: bool(v.strip()), "a scene name under config/scenes/ or a YAML path"),
    Param("seed", int, lambda v: v >= 0, "an integer >= 0"),
    Param("planner", str, lambda v: v in PLANNER_NAMES, f"one of {', '.join(PLANNER_NAMES)}"),
    Param("llm_backend", str, lambda v: v in BACKENDS, f"one of {', '.join(BACKENDS)}"),
    Param("max_steps", int, _positive, "an integer > 0"),
    Param("plan_timeout_s", float, _positive, "a number of seconds > 0"),
    Param("max_directive_chars", int, _positive, "an integer > 0"),
    Param("geometry_rate_hz", float, _positive, "a rate in Hz > 0"),
    Param("perception_wait_s", float, _positive, "a number of seconds > 0"),
)}


def default_params_file() -> Path:
    return config_dir() / "llm_planner.yaml"


def load_params_file(path: str | Path | None = None) -> dict[str, Any]:
    """The ``ros__parameters`` of a ROS 2 parameter file (wildcard section), validated."""
    path = Path(path) if path else default_params_file()
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read parameters: {exc}") from None
    section = (data or {}).get("/**", {}).get("ros__parameters") if isinstance(data, dict) else None
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: expected a '/**: ros__parameters:' mapping")
    return validate_params(section, source=str(path))


def validate_params(values: Mapping[str, Any], source: str = "parameters") -> dict[str, Any]:
    """Check every known parameter; unknown keys are kept (nodes ignore keys they do not declare)."""
    checked = dict(values)
    for name, value in values.items():
        if name in PARAMS:
            checked[name] = validate_param(name, value, source)
    return checked


def validate_param(name: str, value: Any, source: str = "parameters") -> Any:
    param = PARAMS[name]
    if param.kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, param.kind) or isinstance(value, bool) and param.kind is not bool:
        raise ConfigError(f"{source}: parameter '{name}' = {value!r} is invalid: expected {param.accepts}")
    if not param.check(value):
        raise ConfigError(f"{source}: parameter '{name}' = {value!r} is invalid: expected {param.accepts}")
    return value
