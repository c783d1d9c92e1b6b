"""Hyper-parameters of STaLM and its baselines, loaded from ``config/gtamp/stalm.yaml``.

Unknown keys are errors, so a typo never silently keeps a default."""
from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir


@dataclass(frozen=True)
class SearchParams:
    """Seed Appendix C and §4.1."""

    n_batch: int = 5
    n_budget: int = 30
    c: float = 50.0
    pw_k: float = 1.5
    pw_alpha: float = 0.15
    gamma: float = 0.99
    horizon: int = 20
    reward_goal: float = 3.0
    reward_infeasible: float = -6.0
    rollout_depth: int = 3
    question_share: float = 1.0      # (ours) STaLM's question is given up after this share of the budget left
    question_patience_s: float = 2.0  # (ours) wait this long for the answer before searching beside it
    n_budget_without_plans: int = 35  # (ours) simulations of a decision that got no plans: the UCT baseline's
    question_bound_s: float = 60.0    # (ours) a question takes at most this long: sized to it, given up after it

    def __post_init__(self) -> None:
        if not 0.0 < self.question_share <= 1.0:
            raise ConfigError(f"search.question_share must be in (0, 1], got {self.question_share} "
                              "(the share of the time budget left that STaLM's question may take)")
        if self.question_patience_s < 0.0:
            raise ConfigError(f"search.question_patience_s must be at least 0, got {self.question_patience_s}")
        if self.n_budget_without_plans < 0:
            raise ConfigError(f"search.n_budget_without_plans must be at least 0, got {self.n_budget_without_plans}")
        if not self.question_bound_s > 0.0:
            raise ConfigError(f"search.question_bound_s must be a number of seconds > 0, got {self.question_bound_s}")


@dataclass(frozen=True)
class OperatorParams:
    max_samples: int = 10
    placement_draws: int = 200
    predicate_samples: int = 2


@dataclass(frozen=True)
class PromptParams:
    occlusion_info: bool = True
    ask_challenges: bool = True
    tokens_per_action: int = 24     # (ours) answer budget of one plan step; with challenge_tokens, what a plan needs
    challenge_tokens: int = 160     # (ours) answer budget of the challenges (asked for before the plan)

    def __post_init__(self) -> None:
        if self.tokens_per_action < 1 or self.challenge_tokens < 0:
            raise ConfigError(f"prompt.tokens_per_action must be at least 1 and prompt.challenge_tokens at least 0, "
                              f"got {self.tokens_per_action} and {self.challenge_tokens}")


@dataclass(frozen=True)
class GTampConfig:
    search: SearchParams = SearchParams()
    operators: OperatorParams = OperatorParams()
    prompt: PromptParams = PromptParams()
    baselines: Mapping[str, Mapping[str, Any]] | None = None

    def baseline(self, name: str) -> dict[str, Any]:
        return dict((self.baselines or {}).get(name, {}))


def default_path() -> Path:
    return config_dir() / "gtamp" / "stalm.yaml"


def _section(cls: type, data: Mapping[str, Any] | None, where: str) -> Any:
    known = {f.name: f for f in fields(cls)}
    data = dict(data or {})
    for key in data:
        if key not in known:
            raise ConfigError(f"{where}: unknown key '{key}' (known: {', '.join(known)})")
    out = {}
    for key, value in data.items():
        kind = type(getattr(cls(), key))
        try:
            out[key] = kind(value) if kind is not bool else _bool(value, f"{where}.{key}")
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{where}.{key}: expected {kind.__name__}, got {value!r}") from exc
    return cls(**out)


def _bool(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ConfigError(f"{where}: expected true or false, got {value!r}")


def load_config(path: str | Path | None = None,
                overrides: Mapping[str, Mapping[str, Any]] | None = None) -> GTampConfig:
    """Read ``stalm.yaml`` (or ``path``) and apply ``overrides`` (``{"search": {"n_budget": 10}}``)."""
    p = Path(path) if path else default_path()
    try:
        data = yaml.safe_load(p.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read G-TAMP configuration {p}: {exc}") from exc
    data = copy.deepcopy(data)
    for section, values in (overrides or {}).items():
        data.setdefault(section, {}).update(values)
    unknown = set(data) - {"search", "operators", "prompt", "baselines"}
    if unknown:
        raise ConfigError(f"{p}: unknown sections {sorted(unknown)} (known: search, operators, prompt, baselines)")
    return GTampConfig(_section(SearchParams, data.get("search"), f"{p}: search"),
                       _section(OperatorParams, data.get("operators"), f"{p}: operators"),
                       _section(PromptParams, data.get("prompt"), f"{p}: prompt"),
                       dict(data.get("baselines") or {}))


def with_search(config: GTampConfig, **changes: Any) -> GTampConfig:
    return replace(config, search=replace(config.search, **changes))
