"""``config/saycanpay.yaml``: SayCanPay's parameters as data (k, m, scores, training settings).
Unknown keys are errors naming the known ones."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from llm_planner.errors import ConfigError
from llm_planner.llm.config import default_cache_dir
from llm_planner.methods.levy_karpas.config import layered_config, merge
from llm_planner.paths import config_dir

CONFIG_FILE = "saycanpay.yaml"
STRATEGIES = ("greedy_action", "beam_action", "greedy_token")
VARIANTS = ("paper", "oracle")
SAY_PROBABILITIES = ("auto", "samples", "token_logprobs")
SCORES = ("say", "saycan", "saycanpay")
CANS = ("learned", "oracle")
SAY_INPUTS = ("full", "observations")


def default_config_path() -> Path:
    return config_dir() / CONFIG_FILE


def load_config(source: Mapping[str, Any] | str | Path | None = None, **decoding: Any) -> dict[str, Any]:
    """The shipped file merged with ``source`` (mapping or YAML path) and ``decoding`` overrides."""
    layer = {"decoding": {k: v for k, v in decoding.items() if v is not None}}
    data = layered_config(CONFIG_FILE, "SayCanPay", source, [layer], opaque=("benchmark.",))
    check(data)
    return data


def apply(data: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` with nested ``overrides`` merged in (unknown keys are errors), checked again."""
    merge(data, overrides, CONFIG_FILE, opaque=("benchmark.",))
    check(data)
    return data


def check(data: Mapping[str, Any]) -> None:
    d = data["decoding"]
    for key, allowed in (("strategy", STRATEGIES), ("score", SCORES), ("can", CANS), ("say_input", SAY_INPUTS),
                         ("variant", VARIANTS), ("say_probabilities", SAY_PROBABILITIES)):
        if d[key] not in allowed:
            raise ConfigError(f"{CONFIG_FILE}: decoding.{key} must be one of {', '.join(allowed)}, got {d[key]!r}")
    k, m = int(d["beam_size"]), int(d["candidates"])
    if not 1 <= k <= m:
        raise ConfigError(f"{CONFIG_FILE}: need 1 <= beam_size (k={k}) <= candidates (m={m}) (§5.2: k <= m)")
    if int(d["max_steps"]) < 1:
        raise ConfigError(f"{CONFIG_FILE}: decoding.max_steps must be >= 1")
    if not 0.0 < float(data["training"]["discount"]) < 1.0:
        raise ConfigError(f"{CONFIG_FILE}: training.discount (delta) must lie in (0, 1)")


def model_dir(data: Mapping[str, Any]) -> Path:
    """Where trained Can/Pay models live (``training.model_dir``, else the LLM cache directory)."""
    value = data["training"].get("model_dir")
    if value:
        return Path(value).expanduser()

    return default_cache_dir() / "saycanpay"
