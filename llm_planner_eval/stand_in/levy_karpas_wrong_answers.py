"""Wrong Phase I answers (goal and plan template), the way language models give them
(``llm-planner serve --error-rate P``).

Registered with the stand-in's ``nl2pddl`` kind (:mod:`.levy_karpas_served`, ``ServedKind.wrong``); the error
model (:mod:`llm_planner_eval.stand_in.wrong_answers`) decides which samples are wrong.

====================  ========================================================================================
error kind            the wrong answer, and the failure of seed 001 it imitates
====================  ========================================================================================
``wrong_count``       one goal fact's count one more, or one less when above one: the goal accuracy of
                      Table 2 (0.85 for T5 D+S) counts a fact with the wrong number as wrong
``neighbour_object``  one goal fact's object (without a goal: one object of the template, every step that
                      names it) swapped for a similar object type of the prompt: Table 3's mistakes ("a
                      baking tool" read as the spatula) and the argument accuracy of Tables 2 and 4
====================  ========================================================================================

The served samples are the offline channels' ranked predictions (:mod:`.levy_karpas_served`), each made wrong
on its own draw. With ``correlation: 0`` (``config/serve_errors.yaml``) a wrong top prediction is
followed by right ones: what the planner validation with B = 5 (§3.3) is there to recover; with the
default 1 a question's samples are wrong together, each in its own way.
"""
from __future__ import annotations

import random
import re
from typing import Any

from llm_planner.methods.levy_karpas.prompt_scene import listed_names
from llm_planner_eval.stand_in.kinds import Sample
from llm_planner_eval.stand_in.served import prompt_line
from llm_planner_eval.stand_in.wrong_answers import neighbour

_FACT = re.compile(r"\((?P<rel>\w+),\s*(?P<obj>[\w]+),\s*(?P<dest>[\w]+),\s*(?P<count>\d+)\)")
_ARGS = re.compile(r"(?P<verb>\w+)\((?P<args>[^()]*)\)")


def _facts(goal: str) -> list[list[str]]:
    return [[m.group("rel"), m.group("obj"), m.group("dest"), m.group("count")] for m in _FACT.finditer(goal)]


def _goal_text(facts: list[list[str]]) -> str:
    return "-".join(f"({r}, {o}, {d}, {c})" for r, o, d, c in facts)


def wrong_count(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``wrong_count``: one goal fact's count one more, or one less when above one."""
    facts = _facts(str(sample.data.get("goal", "")))
    if not facts:
        return None
    fact = rng.choice(facts)
    count = int(fact[3])
    fact[3] = str(count - 1 if count > 1 and rng.random() < 0.5 else count + 1)
    return Sample(sample.kind, {**sample.data, "goal": _goal_text(facts)})


def neighbour_object(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``neighbour_object``: a goal fact's object (else a template object) swapped for a similar type."""
    types = listed_names(prompt_line(prompt, "Object types"))
    facts = _facts(str(sample.data.get("goal", "")))
    if facts:
        fact = rng.choice(facts)
        other = neighbour(fact[1], [t for t in types if t not in {f[1] for f in facts}], rng, model)
        if other is None:
            return None
        fact[1] = other
        return Sample(sample.kind, {**sample.data, "goal": _goal_text(facts)})
    template = str(sample.data.get("template", ""))
    named = sorted({a.strip() for m in _ARGS.finditer(template) for a in m.group("args").split(",")} & set(types))
    if not named:
        return None
    obj = rng.choice(named)
    other = neighbour(obj, [t for t in types if t not in named], rng, model)
    if other is None:
        return None
    swapped = _ARGS.sub(lambda m: f"{m.group('verb')}(" + ", ".join(
        other if a.strip() == obj else a.strip() for a in m.group("args").split(",")) + ")", template)
    return Sample(sample.kind, {**sample.data, "template": swapped})


WRONG = {"wrong_count": wrong_count, "neighbour_object": neighbour_object}
