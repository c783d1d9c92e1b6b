"""STaLM's question to a language model (seed 003 §3.3, QueryLLM): ``task_plans``, N whole task
plans for one prompt (:mod:`.prompt`), in one request where the server allows it.

Registered with the LLM layer's question registry (:mod:`llm_planner.llm.questions`) at import:

=========  ==========================================================================================
backend    how it answers
=========  ==========================================================================================
offline    :func:`.offline_plans.plans_from_prompt`, a classical planner on the predicate abstraction
           of the prompt (no language model)
openai     the prompt as it is, ``n`` samples, sampling and answer budget of the ``task_plans``
           section of ``config/llm.yaml``; an answer with no plan text is asked again
=========  ==========================================================================================

    plans = backend.answer("task_plans", prompt, n=5, seed=0).plans
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llm_planner.errors import LLMError, UnusableAnswer
from llm_planner.llm.answers import object_schema
from llm_planner.llm.base import AnswerInfo, LanguageModel
from llm_planner.llm.questions import QuestionKind, register

KIND = "task_plans"


@dataclass(frozen=True)
class TaskPlans:
    """N task plans (the model's text, one per sample) for one STaLM prompt."""

    plans: tuple[str, ...]
    info: AnswerInfo


def _samples(backend: LanguageModel, n: int | None) -> int:
    return int(n or backend.config.get("task_plans.samples"))


def offline_task_plans(backend: LanguageModel, prompt: str, n: int | None = None, seed: int | None = None) -> TaskPlans:
    """The offline answer: plans of the classical planner over the prompt's abstraction."""
    from llm_planner.methods.stalm.offline_plans import plans_from_prompt

    with backend.counting():
        plans = plans_from_prompt(prompt, _samples(backend, n), 0 if seed is None else seed)
    if not plans:
        raise LLMError("the offline task planner found no plan for the prompt")
    return TaskPlans(tuple(plans), backend.answer_info())


def openai_task_plans(backend: Any, prompt: str, n: int | None = None, seed: int | None = None) -> TaskPlans:
    """The model's answer: ``n`` plan texts for the prompt (``OpenAIBackend.ask``)."""

    def parse(texts: list[str]) -> list[str]:
        plans = [t for t in texts if t.strip()]
        if not plans:
            raise UnusableAnswer("returned only empty task plans")
        return plans

    with backend.counting():
        plans, reply = backend.ask(KIND, prompt, _samples(backend, n), backend.budget(KIND), parse,
                                   {"seed": 0 if seed is None else seed})
    return TaskPlans(tuple(plans), backend.answer_info(reply.cached, reply.requests))


QUESTION = register(QuestionKind(
    KIND, {"offline": offline_task_plans, "openai": openai_task_plans},
    source="STaLM §3.3 (seed 003)",
    schema=("task_plan", object_schema({"challenges": {"type": "array", "items": {"type": "string"}},
                                        "plan": {"type": "array",
                                                 "items": {"type": "array", "items": {"type": "string"}}}}))))
