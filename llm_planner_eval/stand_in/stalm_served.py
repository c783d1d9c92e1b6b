"""STaLM's ``task_plans`` question as ``llm-planner serve`` answers it (seed 003 §3.3): it recognises
the PDDL prompt (:mod:`llm_planner.methods.stalm.prompt`) and answers with the offline planner
(:mod:`llm_planner.methods.stalm.offline_plans`, through the backend), written as a model writes
plans (challenges first, ``plan = [...]``) in every style; wrong plans: :mod:`.stalm_wrong_plans`.
Registered with :mod:`.kinds` at import (``served_modules`` of ``config/methods.yaml``)."""
from __future__ import annotations

import random
import re
from typing import Any

from llm_planner.methods.stalm.plan_parser import plan_section, scan_tuples
from llm_planner.methods.stalm.questions import KIND
from llm_planner_eval.stand_in.kinds import Sample, ServedKind, register
from llm_planner_eval.stand_in.stalm_wrong_plans import WRONG


def recognise(prompt: str) -> bool:
    """STaLM's PDDL prompt (its domain description or objects, and a goal)."""
    text = prompt.rstrip()
    return "(:goal" in text and ("Domain Description" in text or "(:objects" in text)


def served_answer(model: Any, prompt: str, n: int, seed: int) -> list[Sample]:
    """``n`` plans of the offline planner as samples (text, challenges, steps, a note)."""
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


KIND_SERVED = register(ServedKind(KIND, recognise, served_answer, lambda d: d["text"], _plan_chatty, _plan_markdown,
                                  _structured, _reasoning, order=0, wrong=WRONG))
