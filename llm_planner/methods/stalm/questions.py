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
    plans = backend.answer("task_plans", PlansQuestion(prompt, max_tokens=300), n=2, seed=0).plans

A :class:`PlansQuestion` carries the answer budget one plan needs (``max_tokens``, at most
``task_plans.max_tokens``); a bare prompt is asked with ``task_plans.max_tokens``.
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


@dataclass(frozen=True)
class PlansQuestion:
    """A STaLM prompt and the answer budget its plans need (None: ``task_plans.max_tokens``)."""

    prompt: str
    max_tokens: int | None = None


def _samples(backend: LanguageModel, n: int | None) -> int:
    return int(n or backend.config.get("task_plans.samples"))


def _question(question: str | PlansQuestion) -> PlansQuestion:
    return question if isinstance(question, PlansQuestion) else PlansQuestion(str(question))


def offline_task_plans(backend: LanguageModel, question: str | PlansQuestion, n: int | None = None,
                       seed: int | None = None) -> TaskPlans:
    """The offline answer: plans of the classical planner over the prompt's abstraction."""
    from llm_planner.methods.stalm.offline_plans import plans_from_prompt  # noqa: PLC0415 - CLI start-up: the offline plan proposer only when the offline backend answers

    with backend.counting():
        plans = plans_from_prompt(_question(question).prompt, _samples(backend, n), 0 if seed is None else seed)
    if not plans:
        raise LLMError("the offline task planner found no plan for the prompt")
    return TaskPlans(tuple(plans), backend.answer_info())


def openai_task_plans(backend: Any, question: str | PlansQuestion, n: int | None = None,
                      seed: int | None = None) -> TaskPlans:
    """The model's answer: ``n`` plan texts for the prompt (``OpenAIBackend.ask``), each asked for no
    more tokens than the question's budget."""
    asked = _question(question)
    budget = backend.budget(KIND)
    if asked.max_tokens is not None:
        budget["max_tokens"] = max(1, min(int(budget["max_tokens"]), int(asked.max_tokens)))

    def parse(texts: list[str]) -> list[str]:
        plans = [t for t in texts if t.strip()]
        if not plans:
            raise UnusableAnswer("returned only empty task plans")
        return plans

    with backend.counting():
        plans, reply = backend.ask(KIND, asked.prompt, _samples(backend, n), budget, parse,
                                   {"seed": 0 if seed is None else seed})
    return TaskPlans(tuple(plans), backend.answer_info(reply.cached, reply.requests))


QUESTION = register(QuestionKind(
    KIND, {"offline": offline_task_plans, "openai": openai_task_plans},
    source="STaLM §3.3 (seed 003)",
    schema=("task_plan", object_schema({"challenges": {"type": "array", "items": {"type": "string"}},
                                        "plan": {"type": "array",
                                                 "items": {"type": "array", "items": {"type": "string"}}}}))))
