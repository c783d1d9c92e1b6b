"""Where STaLM's task plans come from: the project's LLM layer (``llm_planner.llm``), asked
the question kind ``task_plans`` (:mod:`.questions`) -- one request for N plans (seed §3.3, QueryLLM).

:class:`PlanSource` adds the accounting the G-TAMP benchmark reports (requests, seconds, each
question's batch and time) and a per-call seed, so an episode is reproducible and two calls with the
same prompt may differ. It also sizes a question to its bound (:meth:`PlanSource.batch`): where the
server answers each plan as a request of its own (it ignores ``n``, so every plan reads the prompt
again), the seed's N_batch plans are asked only as far as they fit in the bound at the measured time
per plan and prompt character (:meth:`llm_planner.llm.waits.AnswerTimes.seconds_per_sample_char`).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from llm_planner.errors import LLMError
from llm_planner.llm.factory import make_backend
from llm_planner.methods.stalm.questions import KIND, PlansQuestion


@dataclass(frozen=True)
class QuestionRecord:
    """One question: the plans asked (its batch), the seconds it took, whether plans came back."""

    plans: int
    seconds: float
    answered: bool


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
    questions: list[QuestionRecord] = field(default_factory=list)  # every question, in the order they ended

    @property
    def name(self) -> str:
        return str(getattr(self.backend, "name", "unknown"))

    def describe(self) -> dict[str, Any]:
        describe = getattr(self.backend, "describe", None)
        return describe() if callable(describe) else {"backend": self.name}

    def batch(self, prompt: str, n: int, bound_s: float = math.inf) -> int:
        """How many of ``n`` plans one question asks for: ``n`` where the backend gives them for about
        the price of one (in-process, or a server that honours ``n``); else the plans that fit in
        ``bound_s`` at the server's measured seconds per plan and prompt character, at least one, and
        one before anything is measured (the least a question can ask measures the time per plan)."""
        if n <= 1 or math.isinf(bound_s) or self.backend.samples_in_one_request():
            return n
        times = self.backend.answer_times(KIND)
        rate = times.seconds_per_sample_char() if times is not None else None
        if rate is None:
            return 1
        return max(1, min(n, int(bound_s / (rate * max(1, len(prompt))))))

    def task_plans(self, prompt: str, n: int, bound_s: float = math.inf, max_tokens: int | None = None) -> list[str]:
        """Up to ``n`` plan texts for one prompt, as many as fit in ``bound_s`` (:meth:`batch`), each
        asked for at most ``max_tokens`` tokens; an LLM failure is recorded and gives no plans."""
        started = time.perf_counter()
        self.requests += 1
        asked, texts = n, []
        try:
            asked = self.batch(prompt, n, bound_s)
            answer = self.backend.answer(KIND, PlansQuestion(prompt, max_tokens), n=asked,
                                         seed=self.seed * 100003 + self.requests)
            texts = [str(t) for t in answer.plans]
            return texts
        except LLMError as exc:
            self.failures += 1
            self.errors.append(str(exc))
            return []
        finally:
            seconds = time.perf_counter() - started
            self.seconds += seconds
            self.questions.append(QuestionRecord(asked, seconds, bool(texts)))


def make_plan_source(backend: str = "offline", seed: int = 0, llm_config: Any = None) -> PlanSource:
    """A plan source on the LLM layer's ``backend`` (offline | openai)."""

    return PlanSource(make_backend(llm_config, backend=backend), seed)
