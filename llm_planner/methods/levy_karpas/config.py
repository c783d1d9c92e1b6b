"""``config/nl2pddl.yaml``: the Levy-Karpas system's parameters as data (B, time limit, input
modality, channel and data-set settings). Unknown keys are errors naming the known ones.

:func:`layered_config` (the shipped file, then a mapping or YAML file, then overrides) also
serves ``config/saycanpay.yaml``."""
from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir

CONFIG_FILE = "nl2pddl.yaml"
INPUTS = ("directive", "directive+state")
#: Mappings replaced as a whole (their keys are data, not parameters).
_OPAQUE = ("dataset.splits.", "dataset.categories")


def default_config_path() -> Path:
    return config_dir() / CONFIG_FILE


def merge(base: dict, update: Mapping[str, Any], file: str, opaque: Iterable[str] = (), where: str = "") -> None:
    """Merge ``update`` into ``base``; unknown keys raise ConfigError naming ``file`` and the known keys."""
    opaque = tuple(opaque)
    for key, value in update.items():
        path = f"{where}{key}"
        if key not in base:
            raise ConfigError(f"{file}: unknown key '{path}' (known: {', '.join(sorted(base))})")
        if isinstance(base[key], dict) and isinstance(value, Mapping) and not path.startswith(opaque or ("\0",)):
            merge(base[key], value, file, opaque, f"{path}.")
        else:
            base[key] = copy.deepcopy(value)


def _read(path: Path, what: str) -> dict[str, Any]:
    try:
        return yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the {what} configuration: {exc}") from None


def layered_config(file: str, what: str, source: Mapping[str, Any] | str | Path | None,
                   layers: Iterable[Mapping[str, Any]] = (), opaque: Iterable[str] = ()) -> dict[str, Any]:
    """``config/<file>`` merged with ``source`` (a mapping or a YAML path), then each of ``layers``."""
    data = _read(config_dir() / file, what)
    if isinstance(source, (str, Path)):
        source = _read(Path(source), what)
    for layer in (source or {}, *layers):
        merge(data, layer, file, opaque)
    return data


def load_config(source: Mapping[str, Any] | str | Path | None = None, **overrides: Any) -> dict[str, Any]:
    """The shipped file merged with ``source`` (a mapping or a YAML path) and top-level ``overrides``."""
    data = layered_config(CONFIG_FILE, "nl2pddl", source, [overrides], _OPAQUE)
    if data["input"] not in INPUTS:
        raise ConfigError(f"{CONFIG_FILE}: input must be one of {', '.join(INPUTS)}, got {data['input']!r}")
    if int(data["consistency"]["tries"]) < 1:
        raise ConfigError(f"{CONFIG_FILE}: consistency.tries (B) must be >= 1")
    if float(data["consistency"]["planner_timeout_s"]) <= 0:
        raise ConfigError(f"{CONFIG_FILE}: consistency.planner_timeout_s must be > 0")
    return data
