"""A method of ``llm-planner bench household``: a planner, its overrides and the served model it
runs against (the tables of :mod:`llm_planner_eval.bench.household_tables` are keyed by it)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llm_planner.llm.config import parse_dotted

#: A method variant's key for config/llm.yaml instead of the planner's configuration.
LLM_PREFIX = "llm."


@dataclass(frozen=True)
class MethodSpec:
    """A planner name and configuration overrides (``llm_mcts:final_action=visits``), and the
    latency of the served model it runs against (``--latencies``; None: the configured backend), or
    its rate of wrong answers (``--error-rates``)."""

    planner: str
    overrides: tuple[tuple[str, Any], ...] = ()
    latency: float | None = None
    error_rate: float | None = None

    @property
    def planner_overrides(self) -> dict[str, Any]:
        """The keys of config/llm_mcts.yaml (or the planner's own configuration) the variant sets."""
        return {k: v for k, v in self.overrides if not k.startswith(LLM_PREFIX)}

    @property
    def llm_overrides(self) -> dict[str, Any]:
        """The keys of config/llm.yaml the variant sets (``llm.policy.inadmissible=drop``), nested; their
        values are kept as written and read by :func:`~llm_planner.llm.config.parse_dotted` here."""
        return parse_dotted([f"{k.removeprefix(LLM_PREFIX)}={v}" for k, v in self.overrides
                             if k.startswith(LLM_PREFIX)])

    @property
    def served_key(self) -> Any:
        """Which served model of the run this method runs against (a key of ``settings["served"]``)."""
        return self.latency if self.error_rate is None else ("error_rate", self.error_rate)

    @property
    def base_label(self) -> str:
        if not self.overrides:
            return self.planner
        return f"{self.planner}[{','.join(f'{k}={v}' for k, v in self.overrides)}]"

    @property
    def label(self) -> str:
        label = self.base_label if self.latency is None else f"{self.base_label} @{self.latency:g}s"
        return label if self.error_rate is None else f"{label} P={self.error_rate:g}"
