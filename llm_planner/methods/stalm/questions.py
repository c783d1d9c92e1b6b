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
served     ``llm-planner serve`` recognises the PDDL prompt and answers with the offline planner,
           written as a model writes plans (challenges first, ``plan = [...]``) in every style
=========  ==========================================================================================

    plans = backend.answer("task_plans", prompt, n=5, seed=0).plans
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from llm_planner.errors import LLMError, UnusableAnswer
from llm_planner.llm.answers import object_schema
from llm_planner.llm.base import AnswerInfo, LanguageModel
from llm_planner.llm.questions import QuestionKind, Sample, ServedKind, register
from llm_planner_eval.stand_in.stalm_wrong_plans import WRONG

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


# ------------------------------------------------------------------------------ served stand-in
def recognise(prompt: str) -> bool:
    """STaLM's PDDL prompt (its domain description or objects, and a goal)."""
    text = prompt.rstrip()
    return "(:goal" in text and ("Domain Description" in text or "(:objects" in text)


def served_answer(model: Any, prompt: str, n: int, seed: int) -> list[Sample]:
    """``n`` plans of the offline planner as samples (text, challenges, steps, a note)."""
    from llm_planner.methods.stalm.plan_parser import plan_section, scan_tuples

    texts = model.backend.answer(KIND, prompt, n=n, seed=seed).plans
    samples = []
    for text in texts:
        challenges = re.findall(r"^\d+\.\s*(.+)$", text.split("## Plan ##")[0], re.MULTILINE)
        section, _ = plan_section(text)
        steps = [list(t) for t in scan_tuples(section) if isinstance(t, list)]
        note = " ".join(re.findall(r"^#\s*(.+)$", text.split("## Plan ##")[-1], re.MULTILINE))
        samples.append(Sample(KIND, {"text": text, "challenges": challenges, "plan": steps, "note": note}))
    return samples


def _plan_list(d: dict[str, Any]) -> str:
    steps = "plan = [" + ",\n        ".join("(" + ", ".join(repr(x) for x in s) + ")" for s in d["plan"]) + "]"
    return f"# {d['note']}\n{steps}" if d["note"] else steps


def _plan_markdown(d: dict[str, Any], rng: random.Random) -> str:
    challenges = "\n".join(f"- {c}" for c in d["challenges"]) or "- none"
    return f"### Possible challenges\n\n{challenges}\n\n### Plan\n\n```python\n{_plan_list(d)}\n```"


def _plan_chatty(d: dict[str, Any], rng: random.Random) -> str:
    challenges = " ".join(d["challenges"]) or "Nothing seems to be in the way."
    return (f"Sure! Let's think about this step by step.\n\n{challenges}\n\nHere's the plan:\n\n```python\n"
            f"{_plan_list(d)}\n```\n\nThis plan clears what is in the way first and then achieves every goal.")


def _structured(d: dict[str, Any]) -> dict[str, Any]:
    return {"challenges": list(d["challenges"]), "plan": [list(s) for s in d["plan"]]}


def _reasoning(d: dict[str, Any]) -> str:
    return ("Let me look at the initial state and the occlusions first. " + " ".join(d["challenges"][:3])
            + " Then I write the plan in the requested tuple format.")


QUESTION = register(QuestionKind(
    KIND, {"offline": offline_task_plans, "openai": openai_task_plans},
    ServedKind(recognise, served_answer, lambda d: d["text"], _plan_chatty, _plan_markdown, _structured, _reasoning,
               order=0, wrong=WRONG),  # wrong plans: wrong_plans.py (llm-planner serve --error-rate)
    source="STaLM §3.3 (seed 003)",
    schema=("task_plan", object_schema({"challenges": {"type": "array", "items": {"type": "string"}},
                                        "plan": {"type": "array",
                                                 "items": {"type": "array", "items": {"type": "string"}}}}))))
