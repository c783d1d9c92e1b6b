"""``config/nl2pddl.yaml``: the Levy-Karpas system's parameters as data (B, time limit, input
modality, channel and data-set settings). Unknown keys are errors naming the known ones."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Mapping

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir

CONFIG_FILE = "nl2pddl.yaml"
INPUTS = ("directive", "directive+state")


def default_config_path() -> Path:
    return config_dir() / CONFIG_FILE


def _merge(base: dict, update: Mapping[str, Any], where: str) -> None:
    for key, value in update.items():
        if key not in base:
            raise ConfigError(f"{CONFIG_FILE}: unknown key '{where}{key}' (known: {', '.join(sorted(base))})")
        if isinstance(base[key], dict) and isinstance(value, Mapping) and key != "splits" and key != "categories":
            _merge(base[key], value, f"{where}{key}.")
        else:
            base[key] = copy.deepcopy(value)


def load_config(source: Mapping[str, Any] | str | Path | None = None, **overrides: Any) -> dict[str, Any]:
    """The shipped file merged with ``source`` (a mapping or a YAML path) and top-level ``overrides``."""
    path = default_config_path()
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the nl2pddl configuration: {exc}") from None
    if isinstance(source, (str, Path)):
        try:
            source = yaml.safe_load(Path(source).read_text()) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"{source}: cannot read the nl2pddl configuration: {exc}") from None
    for layer in (source or {}, overrides):
        _merge(data, layer, "")
    if data["input"] not in INPUTS:
        raise ConfigError(f"{CONFIG_FILE}: input must be one of {', '.join(INPUTS)}, got {data['input']!r}")
    if int(data["consistency"]["tries"]) < 1:
        raise ConfigError(f"{CONFIG_FILE}: consistency.tries (B) must be >= 1")
    if float(data["consistency"]["planner_timeout_s"]) <= 0:
        raise ConfigError(f"{CONFIG_FILE}: consistency.planner_timeout_s must be > 0")
    return data
