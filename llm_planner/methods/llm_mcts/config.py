"""The hyper-parameters of the LLM-MCTS planners: ``config/llm_mcts.yaml`` (the seed's values, each
with its source) merged with a mapping, a YAML file or keyword overrides; unknown keys are errors."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from llm_planner.errors import ConfigError
from llm_planner.methods.llm_mcts.tree import SearchConfig
from llm_planner.paths import config_dir, read_yaml_mapping

CONFIG_FILE = "llm_mcts.yaml"
_SEARCH_KEYS = ("simulations", "c", "gamma", "epsilon", "max_depth", "goal_reward", "history_key", "root_redraws",
                "final_action", "expand_after", "reuse_tree", "max_in_flight", "max_waves", "rollout_greed",
                "decision_time_s", "anytime", "late_questions", "root_wait_share", "reliability_floor",
                "reliability_samples", "unreliable_every")
_CONFIG_KEYS = (*_SEARCH_KEYS, "seed", "backend", "prior_file", "room_floor_weight", "reliability_mix")


def default_config_path() -> Path:
    return config_dir() / CONFIG_FILE


def load_config(source: Mapping[str, Any] | str | Path | None = None, **overrides: Any) -> dict[str, Any]:
    """``config/llm_mcts.yaml`` merged with ``source`` (a mapping or a YAML path) and ``overrides``.

    Unknown keys are errors naming the known ones, so a typo never silently keeps a default."""
    path = default_config_path()
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the LLM-MCTS configuration: {exc}") from None
    layers: list[tuple[str, Mapping[str, Any]]] = []
    if isinstance(source, (str, Path)):
        layers.append((str(source), read_yaml_mapping(source, "an LLM-MCTS configuration")))
    elif source is not None:
        layers.append(("config", source))
    layers.append(("parameters", overrides))
    for where, layer in layers:
        for key, value in layer.items():
            if key not in _CONFIG_KEYS:
                raise ConfigError(f"{where}: unknown LLM-MCTS configuration key '{key}' "
                                  f"(known: {', '.join(_CONFIG_KEYS)})")
            data[key] = value
    search_config(data)  # validates
    if not isinstance(data.get("reliability_mix", False), bool):
        raise ConfigError(f"invalid LLM-MCTS configuration: reliability_mix must be true or false, "
                          f"got {data.get('reliability_mix')!r}")
    try:
        weight = float(data["room_floor_weight"])
    except (KeyError, TypeError, ValueError):
        weight = -1.0
    if weight < 0.0:
        raise ConfigError(f"invalid LLM-MCTS configuration: room_floor_weight must be a number >= 0 "
                          f"(0 is App. C.2's even floor), got {data.get('room_floor_weight')!r}")
    return data


def search_config(cfg: Mapping[str, Any]) -> SearchConfig:
    try:
        return SearchConfig(simulations=int(cfg["simulations"]), c=float(cfg["c"]), gamma=float(cfg["gamma"]),
                            epsilon=float(cfg["epsilon"]), max_depth=int(cfg["max_depth"]),
                            goal_reward=float(cfg["goal_reward"]), history_key=str(cfg["history_key"]),
                            root_redraws=int(cfg["root_redraws"]), final_action=str(cfg["final_action"]),
                            expand_after=int(cfg["expand_after"]), reuse_tree=cfg["reuse_tree"],
                            max_in_flight=int(cfg["max_in_flight"]), max_waves=int(cfg["max_waves"]),
                            rollout_greed=float(cfg.get("rollout_greed", 0.0)),
                            decision_time_s=float(cfg.get("decision_time_s", 0.0)),
                            anytime=cfg.get("anytime", False), late_questions=int(cfg.get("late_questions", 1)),
                            root_wait_share=float(cfg.get("root_wait_share", 0.5)),
                            reliability_floor=float(cfg.get("reliability_floor", 0.0)),
                            reliability_samples=int(cfg.get("reliability_samples", 50)),
                            unreliable_every=int(cfg.get("unreliable_every", 10)))
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"invalid LLM-MCTS configuration: {exc!r}") from None
