"""Wrong answers that do not read as a usable answer: the errors a small real model makes
(``llm-planner serve --error-profile smollm2``; the shares in ``config/serve_errors.yaml``).

The ``admissible`` profile's wrong answers (:mod:`llm_planner_eval.stand_in.wrong_answers`) are all
readable: an admissible action that does not help, a plausible place of another home. A small
model's are mostly not. ``llm-planner bench answers`` recorded SmolLM2-135M-Instruct's raw answers to
the planner's own prompts and sorted them into the kinds below (``llm_planner_eval.bench.answers``
classifies them, and classifies the stand-in's answers the same way in the tests):

==================  ===============================================================================
error kind          what the wrong sample says (question kinds it fits)
==================  ===============================================================================
``unreadable``      a question back or a sentence about answering: no action, place, goal or plan
                    (every question kind, the methods' too)
``echoed_prompt``   the prompt written back: a policy prompt's observation, else its question block
                    (every question kind)
``cut_off``         a first line that rambles on past any answer budget and is cut there (every kind)
``not_in_view``     an action on an object of the house that the current observation does not show
                    ("grab the toothbrush" before it was found; policy)
``not_in_house``    a place the apartment does not have (world model), a goal with an object the
                    house does not have (translation); the policy's is ``absent_object``
==================  ===============================================================================

Like every wrong answer of the stand-in they come from the prompt alone (and the commonsense file
for names the house lacks): never a scene file, the simulator or its hidden truth. A sample of
these kinds is written as the raw text a model would send (:class:`Sample` of kind ``unknown``), the
same in every answer style.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from llm_planner.domains.household.language.text import text_to_name
from llm_planner.domains.household.world.commonsense import load_commonsense
from llm_planner.domains.household.world.words import name_to_text
from llm_planner_eval.stand_in.kinds import Sample
from llm_planner_eval.stand_in.served import policy_question, translate_question, world_model_question
from llm_planner_eval.stand_in.wrong_answers import named_in

#: Words per rambling line: more than any answer budget of config/llm.yaml (at most 512 tokens) cuts.
RAMBLE_WORDS = 600


def _raw(text: str) -> Sample:
    """A sample written as the model's raw text, in every style."""
    return Sample("unknown", {"text": text})


# ------------------------------------------------------------------------------ every question kind
#: Sentences SmolLM2 wrote instead of an answer (recorded; ``{goal}`` is the prompt's request):
#: questions back, an answer label alone, a plan to answer.
_UNREADABLE = (
    "What is the next action?",
    "What action is this?",
    "What's next?",
    "What can you do?\n\nThis is the next action of the next task.",
    "Next action:",
    "To complete the task, I'll provide a detailed example of the next action.",
)


def unreadable(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``unreadable``: a question back or a sentence about answering, which states no action, place
    or goal tuple."""
    return _raw(rng.choice(_UNREADABLE))


def echoed_prompt(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``echoed_prompt``: the prompt written back. A policy prompt's current observation as the
    robot's situation ("You are in the kitchen, your hand is empty, ...": what SmolLM2 writes back
    most), else the prompt's question block (from its last ``Goal:`` or ``Question:`` line)."""
    lines = [line for line in prompt.splitlines() if line.strip()]
    observations = [line.split(":", 1)[1].strip() for line in lines if line.startswith("Current observation:")]
    if observations:
        text = observations[-1]
        return _raw(text[:1].upper() + text[1:])
    starts = [i for i, line in enumerate(lines) if line.lower().startswith(("goal:", "question:"))]
    start = starts[-1] if starts else max(0, len(lines) - 3)  # a method's prompt: its last lines
    return _raw("\n".join(lines[start:start + 3])) if lines else None


def cut_off(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``cut_off``: one line that goes on about the task, naming no action, place or goal, past any
    answer budget (the server cuts it: ``finish_reason`` length)."""
    words: list[str] = []
    while len(words) < RAMBLE_WORDS:
        words += _RAMBLE.split()
    return _raw(" ".join(words[:RAMBLE_WORDS]))


_RAMBLE = ("In this task the robot is a household robot and it has to think about where everything is and then it "
           "has to think again about the room and about what it has seen so far and then")


# ------------------------------------------------------------------------------ policy
def policy_not_in_view(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``not_in_view``: grab (or put) an object of the house the observation does not show, a goal
    object first."""
    world, goal, observation, _history = policy_question(prompt)
    seen = {obj for _rel, obj, _place in observation.relations} | {observation.holding}
    seen_types = {world.object_type.get(o) for o in seen if o}
    goal_types = set(named_in(goal, world.object_types))
    unseen = [o for o, t in sorted(world.object_type.items()) if t not in seen_types]
    candidates = [o for o in unseen if world.object_type[o] in goal_types] or unseen
    if not candidates:
        return None
    obj = rng.choice(candidates)
    phrase = name_to_text(world.object_type[obj]) if rng.random() < 0.5 else name_to_text(obj)
    return Sample(sample.kind, {**sample.data, "next_actions": [f"grab the {phrase}"]})


# ------------------------------------------------------------------------------ world model and translation
def _absent_places(world_furniture: Sequence[str], kind: str) -> list[str]:
    """General places of the commonsense file of ``kind`` (container/surface) the apartment lacks."""
    have = {name_to_text(f) for f in world_furniture}
    return sorted(p.replace("_", " ") for p, (k, _room) in load_commonsense().places.items()
                  if k == kind and p.replace("_", " ") not in have)


def world_model_not_in_house(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``not_in_house``: as many places as the right sample, each one the apartment does not have."""
    world, _obj = world_model_question(prompt)
    relations = [str(rel) for rel, _place in sample.data.get("positions", [])] or ["inside"]
    chosen: list[list[str]] = []
    for rel in relations:
        pool = [p for p in _absent_places(world.furniture, "container" if rel == "inside" else "surface")
                if p not in {c[1] for c in chosen}]
        if pool:
            chosen.append([rel, rng.choice(pool)])
    return Sample(sample.kind, {**sample.data, "positions": chosen}) if chosen else None


def translate_not_in_house(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``not_in_house``: one goal item's object swapped for an object type the house does not have."""
    goal = [list(item) for item in sample.data.get("goal", [])]
    if not goal:
        return None
    world, _directive = translate_question(prompt)
    present = set(world.object_types)
    absent = sorted({text_to_name(t) for t in load_commonsense().objects} - present)
    if not absent:
        return None
    goal[rng.randrange(len(goal))][1] = rng.choice(absent)
    return Sample(sample.kind, {**sample.data, "goal": goal})


#: The error kinds that fit every question kind, the methods' too (``ErrorModel(any_kind=...)``).
ANY_KIND = {"unreadable": unreadable, "echoed_prompt": echoed_prompt, "cut_off": cut_off}
#: The error kinds of one question kind (``served.py`` registers them with the others).
INADMISSIBLE: dict[str, dict[str, Any]] = {
    "world_model": {"not_in_house": world_model_not_in_house},
    "policy": {"not_in_view": policy_not_in_view},
    "translate": {"not_in_house": translate_not_in_house},
}
