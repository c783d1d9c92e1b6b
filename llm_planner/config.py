"""Node parameters: one schema for every node and both worlds, validated in one place.

The household graph (``config/llm_planner.yaml``) and the G-TAMP graph (``config/gtamp_nodes.yaml``)
are two parameter files of this schema that differ only in values; ``domain`` picks the world.
Every node declares every parameter (each uses the ones it needs). An invalid value stops a node at
start with a message naming the parameter and what it accepts.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir

BACKENDS = ("offline", "openai")


@dataclass(frozen=True)
class Param:
    name: str
    kind: type
    check: Callable[[Any], bool]
    accepts: str  # what a valid value looks like, for the error message


def _positive(v: Any) -> bool:
    return v > 0


def _known_domain(v: str) -> bool:
    from llm_planner.adapters import DOMAINS

    return v in DOMAINS


PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("domain", str, _known_domain, "household or gtamp"),
    Param("scene", str, lambda v: bool(v.strip()), "a scene name under config/scenes/ or a YAML path (household)"),
    Param("problem", str, lambda v: bool(v.strip()), "a G-TAMP problem (P1..P6) or a problem YAML path (gtamp)"),
    Param("seed", int, lambda v: v >= 0, "an integer >= 0"),
    Param("planner", str, lambda v: bool(v.strip()), "a planner of the domain"),
    Param("llm_backend", str, lambda v: v in BACKENDS, f"one of {', '.join(BACKENDS)}"),
    Param("llm_config", str, lambda v: True, "a path to an LLM configuration file, or empty for config/llm.yaml"),
    Param("max_steps", int, _positive, "an integer > 0"),
    Param("plan_timeout_s", float, _positive, "a number of seconds > 0"),
    Param("max_directive_chars", int, _positive, "an integer > 0"),
    Param("geometry_rate_hz", float, _positive, "a rate in Hz > 0"),
    Param("perception_wait_s", float, _positive, "a number of seconds > 0"),
    Param("node_timeout_s", float, _positive, "a number of seconds > 0"),
    Param("server_absent_s", float, _positive, "a number of seconds > 0"),
    Param("discovery_settle_s", float, lambda v: v >= 0, "a number of seconds >= 0"),
    Param("planning_workers", int, _positive, "an integer > 0"),
    Param("task_records", int, _positive, "an integer > 0"),
)}


#: The parameter file with each domain's defaults (what a node uses for a parameter it is not given).
DOMAIN_PARAMS_FILES = {"household": "llm_planner.yaml", "gtamp": "gtamp_nodes.yaml"}


def default_params_file(domain: str = "household") -> Path:
    return config_dir() / DOMAIN_PARAMS_FILES.get(domain, DOMAIN_PARAMS_FILES["household"])


def read_params_file(path: str | Path | None = None) -> dict[str, Any]:
    """The raw ``ros__parameters`` of a ROS 2 parameter file (wildcard section), not yet validated."""
    path = Path(path) if path else default_params_file()
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read parameters: {exc}") from None
    section = (data or {}).get("/**", {}).get("ros__parameters") if isinstance(data, dict) else None
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: expected a '/**: ros__parameters:' mapping")
    return dict(section)


def load_params_file(path: str | Path | None = None) -> dict[str, Any]:
    """The ``ros__parameters`` of a parameter file, validated (unknown keys are kept)."""
    return validate_params(read_params_file(path), source=str(path or default_params_file()))


def validate_params(values: Mapping[str, Any], source: str = "parameters") -> dict[str, Any]:
    """Check every known parameter, and the default planner against the domain's planners (the
    domain from ``values`` or, when absent, the shipped file's); unknown keys are kept."""
    checked = dict(values)
    for name, value in values.items():
        if name in PARAMS:
            checked[name] = validate_param(name, value, source)
    if "planner" in checked:
        from llm_planner.adapters import get_domain

        domain = checked.get("domain") or read_params_file()["domain"]
        try:
            checked["planner"] = get_domain(domain).resolve_planner(checked["planner"])
        except ConfigError as exc:
            raise ConfigError(f"{source}: parameter 'planner' = {checked['planner']!r} is invalid: {exc}") from None
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
