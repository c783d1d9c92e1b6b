"""Wrong STaLM plans, the way language models write them (``llm-planner serve --error-rate P``).

Registered with the stand-in's ``task_plans`` kind (:mod:`.stalm_served`, ``ServedKind.wrong``); the
error model (:mod:`llm_planner_eval.stand_in.wrong_answers`) decides which samples are wrong.

=====================  ========================================================================================
error kind             the wrong plan, and the failure of seed 003 it imitates
=====================  ========================================================================================
``ignores_occlusion``  the steps that clear an occluder the prompt names (PickOccludedBy / PlaceOccludedBy:
                       pick it and place it away, open it when it is a door) left out, and the challenges that
                       name it dropped. §3.2: "without this, we have observed that LLMs often fail to respect
                       an action's preconditions (e.g. pick the goal object despite being occluded by other
                       objects)"
``misordered``         two neighbouring blocks of the plan (a pick with its place; an open) swapped, so the goal
                       object is moved before what blocks it is cleared; a one-block plan places before it picks.
                       §1, §3.3: the LLM's plans are "prone to mistakes" (incorrect reasoning), which the
                       warm-started UCT must repair
=====================  ========================================================================================

Both read only the prompt's initial state and the right plan; the text is rewritten in the offline
planner's format (challenges, then ``plan = [...]``) so every style writes and every reader reads it.
"""
from __future__ import annotations

import random
import re
from typing import Any

from llm_planner_eval.stand_in.kinds import Sample

_PICK_OCCLUDED = re.compile(r"\(PickOccludedBy,\s*([\w.-]+),\s*([\w.-]+)\)")
_PLACE_OCCLUDED = re.compile(r"\(PlaceOccludedBy,\s*[\w.-]+,\s*[\w.-]+,\s*[\w.-]+,\s*([\w.-]+)\)")
_HEADER = "## Possible challenges for unachieved goals based on current state ##"


def occluders(prompt: str) -> set[str]:
    """The objects and doors the prompt's initial state says occlude a pick or a place."""
    return {m.group(2) for m in _PICK_OCCLUDED.finditer(prompt)} | {m.group(1)
                                                                    for m in _PLACE_OCCLUDED.finditer(prompt)}


def _rewritten(sample: Sample, plan: list[list[str]], challenges: list[str]) -> Sample:
    """The sample with this plan and these challenges, its text in the offline planner's format."""
    parts = []
    if _HEADER in sample.data.get("text", ""):
        items = challenges or ["No occlusion blocks the goal objects."]
        parts.append(_HEADER + "\n" + "\n".join(f"{k}. {c}" for k, c in enumerate(items, 1)))
    steps = ",\n        ".join("(" + ", ".join(repr(x) for x in step) + ")" for step in plan)
    parts.append("## Plan ##\nplan = [" + steps + "]")
    return Sample(sample.kind, {**sample.data, "text": "\n\n".join(parts), "challenges": challenges,
                                "plan": plan, "note": ""})


def ignores_occlusion(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``ignores_occlusion``: the plan without the steps that clear the prompt's occluders."""
    blocking = occluders(prompt)
    plan = [list(step) for step in sample.data.get("plan", [])]
    if not blocking or not plan:
        return None
    kept, carrying = [], set()
    for step in plan:
        verb, what = (step[0], step[1]) if len(step) > 1 else (step[0], "")
        if verb == "pick" and what in blocking:
            carrying.add(what)
        elif verb == "place" and what in carrying:
            carrying.discard(what)
        elif verb == "open" and what in blocking:
            pass
        else:
            kept.append(step)
    if kept == plan or not kept:
        return None
    challenges = [c for c in sample.data.get("challenges", []) if not any(f"`{o}`" in c for o in blocking)]
    return _rewritten(sample, kept, challenges)


def misordered(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``misordered``: two neighbouring blocks swapped (a one-block plan: its place before its pick)."""
    plan = [list(step) for step in sample.data.get("plan", [])]
    blocks: list[list[list[str]]] = []
    for step in plan:
        if step[0] == "place" and blocks and blocks[-1][-1][0] == "pick":
            blocks[-1].append(step)
        else:
            blocks.append([step])
    if len(blocks) >= 2:
        i = rng.randrange(len(blocks) - 1)
        blocks[i], blocks[i + 1] = blocks[i + 1], blocks[i]
        wrong = [step for block in blocks for step in block]
    elif len(plan) >= 2:
        wrong = plan[1:] + plan[:1]
    else:
        return None
    return _rewritten(sample, wrong, list(sample.data.get("challenges", [])))


WRONG = {"ignores_occlusion": ignores_occlusion, "misordered": misordered}
