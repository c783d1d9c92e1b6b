"""Configuration of the language-model layer, loaded from ``config/llm.yaml``.

Configuration is data: every hyper-parameter of the papers (M samples, lambda, K shots,
temperatures, timeouts, retries) has its default in the YAML file, and callers override keys
with a nested mapping (``{"policy": {"samples": 10}}``) or dotted strings (``policy.samples=10``).
Unknown keys are errors, so a typo never silently keeps a default.
"""
from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from llm_planner.errors import ConfigError
from llm_planner.llm.waits import WaitSettings
from llm_planner.paths import config_dir, read_yaml_mapping

BACKENDS = ("offline", "openai")


def default_config_path() -> Path:
    return config_dir() / "llm.yaml"


def default_cache_dir() -> Path:
    """``$LLM_PLANNER_CACHE`` if set, else ``~/.cache/llm_planner``."""
    env = os.environ.get("LLM_PLANNER_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "llm_planner"


@dataclass(frozen=True)
class LLMConfig:
    """The parsed ``llm.yaml``: one mapping per section, validated against the shipped defaults."""

    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def backend(self) -> str:
        return str(self.data["backend"])

    @property
    def fallback_to_offline(self) -> bool:
        return bool(self.data["fallback_to_offline"])

    def section(self, name: str) -> dict[str, Any]:
        """A copy of one section (``openai``, ``policy``, ...)."""
        return dict(self.data[name])

    def get(self, dotted: str) -> Any:
        node: Any = self.data
        for part in dotted.split("."):
            node = node[part]
        return node

    @property
    def cache_dir(self) -> Path:
        value = self.data["cache"].get("dir")
        return Path(value).expanduser() if value else default_cache_dir()

    @property
    def embeddings_dir(self) -> Path:
        """Where the sentence embeddings are kept (``embeddings.dir``, else :attr:`cache_dir`)."""
        value = self.data["embeddings"].get("dir")
        return Path(value).expanduser() if value else self.cache_dir

    def with_overrides(self, overrides: Mapping[str, Any] | None = None, **dotted: Any) -> LLMConfig:
        """A new config with nested ``overrides`` and ``dotted`` keys (``policy__samples`` or via mapping)."""
        data = copy.deepcopy(dict(self.data))
        if overrides:
            _merge(data, overrides, "")
        for key, value in dotted.items():
            _set_dotted(data, key.replace("__", "."), value)
        return LLMConfig(_validate(data))

    def as_dict(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.data))


def _merge(base: dict, update: Mapping[str, Any], where: str) -> None:
    for key, value in update.items():
        path = f"{where}{key}"
        if key not in base:
            raise ConfigError(f"unknown LLM configuration key '{path}' (known: {', '.join(sorted(base))})")
        if isinstance(base[key], dict):
            if not isinstance(value, Mapping):
                raise ConfigError(f"LLM configuration '{path}' must be a mapping, got {value!r}")
            _merge(base[key], value, path + ".")
        else:
            base[key] = value


def merge_overrides(base: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """Two nested override mappings as one (``update`` wins key by key); checked when applied
    (:meth:`LLMConfig.with_overrides`)."""
    out = copy.deepcopy(dict(base))
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge_overrides(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _set_dotted(data: dict, dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    update: Any = value
    for part in reversed(parts):
        update = {part: update}
    _merge(data, update, "")


def parse_dotted(assignments: list[str] | None) -> dict[str, Any]:
    """``["policy.samples=10", "openai.model=x"]`` -> nested mapping; values are parsed as YAML scalars."""
    out: dict[str, Any] = {}
    for item in assignments or []:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"expected KEY=VALUE, got {item!r}")
        node = out
        parts = key.strip().split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = yaml.safe_load(raw)
    return out


#: How a sampled action that names no admissible action is read: left out, or read as its most
#: similar admissible action (``policy.inadmissible``; llm/openai_backend.py).
INADMISSIBLE_MODES = ("drop", "nearest")


def _validate(data: dict[str, Any]) -> dict[str, Any]:
    if data.get("backend") not in BACKENDS:
        raise ConfigError(f"LLM backend must be one of {', '.join(BACKENDS)}, got {data.get('backend')!r}")
    checks = {
        "world_model.samples": int, "policy.samples": int, "policy.shots": int, "task_plans.samples": int,
        "candidates.m": int, "candidates.samples": int, "openai.max_retries": int,
    }
    for dotted, kind in checks.items():
        section, key = dotted.split(".")
        value = data[section][key]
        if not isinstance(value, kind) or isinstance(value, bool) or value < (0 if key == "max_retries" else 1):
            raise ConfigError(f"LLM configuration '{dotted}' must be a positive integer, got {value!r}")
    lam = data["policy"]["lambda"]
    if not isinstance(lam, (int, float)) or not 0.0 <= lam <= 1.0:
        raise ConfigError(f"LLM configuration 'policy.lambda' must be in [0, 1], got {lam!r}")
    mode = data["policy"].get("inadmissible", "drop")
    if mode not in INADMISSIBLE_MODES:
        raise ConfigError(f"LLM configuration 'policy.inadmissible' must be one of {', '.join(INADMISSIBLE_MODES)}, "
                          f"got {mode!r}")
    floor = data["policy"].get("inadmissible_floor", 0.0)
    if not isinstance(floor, (int, float)) or isinstance(floor, bool) or not -1.0 <= floor <= 1.0:
        raise ConfigError(f"LLM configuration 'policy.inadmissible_floor' must be a cosine in [-1, 1], got {floor!r}")
    floor = data["world_model"]["floor"]
    if not isinstance(floor, (int, float)) or not 0.0 < floor < 1.0:
        raise ConfigError(f"LLM configuration 'world_model.floor' must be in (0, 1), got {floor!r}")
    mode = data["openai"].get("structured_output", "auto")
    if mode not in ("auto", "json_schema", "off"):
        raise ConfigError("LLM configuration 'openai.structured_output' must be auto, json_schema "
                          f"or off, got {mode!r}")
    for key in ("timeout_s", "question_timeout_s", "backoff_initial_s", "backoff_max_s", "queue_timeout_s",
                "alive_timeout_s",
                "probe.timeout_s", "probe.retry_after_s"):
        value = _dotted(data["openai"], key)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
            raise ConfigError(f"LLM configuration 'openai.{key}' must be a positive number, got {value!r}")
    for key in ("max_in_flight", "in_flight.initial", "probe.samples", "probe.max_tokens"):
        value = _dotted(data["openai"], key)
        if not isinstance(value, int) or isinstance(value, bool) or value < (2 if key == "probe.samples" else 1):
            raise ConfigError(f"LLM configuration 'openai.{key}' must be an integer of at least "
                              f"{2 if key == 'probe.samples' else 1}, got {value!r}")
    low, high = data["openai"]["in_flight"]["queue_low"], data["openai"]["in_flight"]["queue_high"]
    if not (isinstance(low, (int, float)) and isinstance(high, (int, float)) and 0 <= low < high):
        raise ConfigError("LLM configuration 'openai.in_flight': need 0 <= queue_low < queue_high, "
                          f"got {low!r}, {high!r}")
    WaitSettings.from_config(data["waits"])  # raises naming the key
    ask_model = data["translate"].get("ask_model", "unread")
    if ask_model not in ("unread", "always"):
        raise ConfigError(f"LLM configuration 'translate.ask_model' must be unread or always, got {ask_model!r}")
    for section in ("world_model", "policy", "translate", "task_plans", "candidates"):
        budget = data[section].get("max_tokens")
        stop = data[section].get("stop", [])
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
            raise ConfigError(f"LLM configuration '{section}.max_tokens' must be a positive integer, got {budget!r}")
        if not isinstance(stop, list) or len(stop) > 4 or not all(isinstance(x, str) and x for x in stop):
            raise ConfigError(f"LLM configuration '{section}.stop' must be a list of at most 4 non-empty strings "
                              f"(the OpenAI API's limit), got {stop!r}")
    return data


def _dotted(data: Mapping[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        data = data[part]
    return data


#: A YAML file merged over ``config/llm.yaml`` in every process that does not name one (the nodes of
#: a launched graph inherit it), e.g. written by ``llm-planner serve`` for the server it started.
CONFIG_ENV = "LLM_PLANNER_LLM_CONFIG"


def load_llm_config(path: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> LLMConfig:
    """Load ``config/llm.yaml`` (or ``path``, else ``$LLM_PLANNER_LLM_CONFIG``, merged over the shipped
    defaults) and apply ``overrides``."""
    if path is None and os.environ.get(CONFIG_ENV):
        path = os.environ[CONFIG_ENV]
    defaults_path = default_config_path()
    try:
        data = yaml.safe_load(defaults_path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{defaults_path}: cannot read the LLM configuration: {exc}") from None
    config = LLMConfig(_validate(data))
    if path is not None and Path(path).resolve() != defaults_path.resolve():
        config = config.with_overrides(read_yaml_mapping(path, "an LLM configuration"))
    return config.with_overrides(overrides) if overrides else config
