"""Where STaLM's task plans come from: the project's LLM layer (``llm_planner.llm``), asked
the question kind ``task_plans`` (:mod:`.questions`) -- one request for N plans (seed §3.3, QueryLLM).

:class:`PlanSource` adds the accounting the G-TAMP benchmark reports (requests, seconds) and a
per-call seed, so an episode is reproducible and two calls with the same prompt may differ.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from llm_planner.errors import LLMError
from llm_planner.methods.stalm.questions import KIND


@dataclass
class PlanSource:
    """``task_plans(prompt, n) -> list[str]`` over a :class:`llm_planner.llm.base.LanguageModel`."""

    backend: Any
    seed: int = 0
    requests: int = 0
    seconds: float = 0.0
    failures: int = 0
    unanswered: int = 0     # questions given up unanswered by the policy that sent them
    errors: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(getattr(self.backend, "name", "unknown"))

    def describe(self) -> dict[str, Any]:
        describe = getattr(self.backend, "describe", None)
        return describe() if callable(describe) else {"backend": self.name}

    def task_plans(self, prompt: str, n: int) -> list[str]:
        """N plan texts for one prompt (one request); an LLM failure is recorded and gives no plans."""
        started = time.perf_counter()
        self.requests += 1
        try:
            answer = self.backend.answer(KIND, prompt, n=n, seed=self.seed * 100003 + self.requests)
            return [str(t) for t in answer.plans]
        except LLMError as exc:
            self.failures += 1
            self.errors.append(str(exc))
            return []
        finally:
            self.seconds += time.perf_counter() - started


def make_plan_source(backend: str = "offline", seed: int = 0, llm_config: Any = None) -> PlanSource:
    """A plan source on the LLM layer's ``backend`` (offline | openai)."""
    from llm_planner.llm.factory import make_backend

    return PlanSource(make_backend(llm_config, backend=backend), seed)
