"""Answer styles of ``llm-planner serve``: the same answer written as different chat models write it.

=========  ===================================================================================
style      what the text looks like
=========  ===================================================================================
plain      exactly the format the prompt asks for ("Inside fridge, On kitchen table.")
chatty     "Sure! Here are ..." around the answer, names in title case or plural, a numbered
           list, and a trailing explanation
markdown   headers, **bold**, bulleted lists, `code`, plans in a ```python fence
json       a JSON object (in a ```json fence or bare) with the fields of the question's schema
thinking   a ``<think>...</think>`` reasoning preamble (as thinking models), then the plain answer
mixed      one of the above, drawn per sample
=========  ===================================================================================

A request with ``response_format`` (structured output) is answered with the bare JSON of
:func:`structured` whatever the style, as a server constraining its decoding to the schema does.
"""
from __future__ import annotations

import json
import random
from typing import Any, Callable

from llm_planner.llm.served import Sample

STYLES = ("plain", "chatty", "markdown", "json", "thinking", "mixed")
_CONCRETE = STYLES[:-1]


def render(sample: Sample, style: str, rng: random.Random) -> str:
    """The text of one sample in ``style``."""
    if style == "mixed":
        style = rng.choice(_CONCRETE)
    if sample.kind == "unknown":
        return str(sample.data.get("text", ""))
    writer = _WRITERS[sample.kind]
    return writer(sample.data, style, rng)


def structured(sample: Sample) -> dict[str, Any] | None:
    """The answer as the JSON object of its schema (``llm_planner.llm.answers.SCHEMAS``); None for
    a question without one."""
    d = sample.data
    if sample.kind == "world_model":
        return {"positions": [{"relation": rel, "place": place} for rel, place in d["positions"]]}
    if sample.kind == "policy":
        return {"next_actions": list(d["next_actions"])}
    if sample.kind == "translate":
        return {"goal": [{"relation": r, "object": o, "destination": t, "count": c} for r, o, t, c in d["goal"]],
                "problem": d["problem"]}
    if sample.kind == "task_plans":
        return {"challenges": list(d["challenges"]), "plan": [list(s) for s in d["plan"]]}
    if sample.kind == "nl2pddl":
        return {"goal": d["goal"], "template": d["template"]}
    return None


def reasoning(sample: Sample) -> str:
    """A short chain of thought for the thinking style (and ``reasoning_content`` of structured answers)."""
    d = sample.data
    if sample.kind == "world_model":
        places = " or ".join(f"{rel} the {place}" for rel, place in d["positions"]) or "nowhere I can tell"
        return (f"The user asks where a {d['object']} is usually kept. Thinking about a typical home, "
                f"a {d['object']} is most often found {places}. I should answer in the requested format.")
    if sample.kind == "policy":
        return (f"Goal: {d['goal']}. {d['situation']} The next step should be: {d['next_actions'][0]}. "
                "I will answer with the action only, in the format of the examples.")
    if sample.kind == "translate":
        if d["problem"]:
            return f"The request is '{d['directive']}'. I cannot map it: {d['problem']}."
        return (f"The request is '{d['directive']}'. I need a tuple per object kind with the relation, the "
                f"destination from the lists and the count. That gives {_formal(d['goal'])}.")
    if sample.kind == "task_plans":
        return ("Let me look at the initial state and the occlusions first. " + " ".join(d["challenges"][:3])
                + " Then I write the plan in the requested tuple format.")
    return "I will answer in the requested format."


def _think(sample: Sample, body: str) -> str:
    return f"<think>\n{reasoning(sample)}\n</think>\n\n{body}"


def _fence(obj: Any, rng: random.Random) -> str:
    text = json.dumps(obj, indent=2 if rng.random() < 0.5 else None)
    return f"```json\n{text}\n```" if rng.random() < 0.7 else text


def _title(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split())


# ------------------------------------------------------------------------------ world model
def _positions(d: dict[str, Any], style: str, rng: random.Random) -> str:
    pos = d["positions"]
    plain = ", ".join(f"{rel.capitalize()} {place}" for rel, place in pos) + "." if pos else "I do not know."
    if style == "plain":
        return plain
    if style == "thinking":
        return _think(Sample("world_model", d), plain)
    if style == "json":
        return _fence(structured(Sample("world_model", d)), rng)
    obj = d["object"]
    if style == "markdown":
        items = "\n".join(f"- **{rel.capitalize()}** the {place}" for rel, place in pos) or "- no usual place"
        return f"**Possible positions of {obj}:**\n\n{items}"
    lines = "\n".join(f"{k}. {rel.capitalize()} the {_title(place)}" for k, (rel, place) in enumerate(pos, 1))
    return (f"Sure! A {obj} is usually found in these places:\n\n{lines or '1. I am not sure'}\n\n"
            "These are the most common spots in a typical home, but every household is a little different.")


# ------------------------------------------------------------------------------ policy
def _actions(d: dict[str, Any], style: str, rng: random.Random) -> str:
    actions = list(d["next_actions"])
    done = actions == ["done"]
    plain = ", ".join(actions) + "."
    if style == "plain":
        return plain
    if style == "thinking":
        return _think(Sample("policy", d), plain)
    if style == "json":
        return _fence(structured(Sample("policy", d)), rng)
    if style == "markdown":
        if done:
            return "**Next actions:** done ✅"
        return "**Next actions:**\n" + "\n".join(f"{k}. `{a}`" for k, a in enumerate(actions, 1))
    if done:
        return rng.choice(["The task is already complete, so: done.", "Done! The goal has been achieved."])
    first = actions[0]
    opener = rng.choice(["Sure! ", "Okay! ", "Of course. ", ""])
    if rng.random() < 0.5:
        return (f"{opener}Here are the next actions:\n\n1. {first[:1].upper() + first[1:]}\n\n"
                "After that, I will continue toward the goal step by step.")
    return f"{opener}The next action is to {first}. This brings the robot closer to finishing the task."


# ------------------------------------------------------------------------------ translation
def _formal(goal: list) -> str:
    return "-".join(f"({r}, {o}, {t}, {c})" for r, o, t, c in goal)


def _goal(d: dict[str, Any], style: str, rng: random.Random) -> str:
    if d["problem"]:
        text = f"I cannot turn this request into a formal goal: {d['problem']}"
        if style == "json":
            return _fence(structured(Sample("translate", d)), rng)
        return _think(Sample("translate", d), text) if style == "thinking" else text
    plain = _formal(d["goal"])
    if style == "plain":
        return plain
    if style == "thinking":
        return _think(Sample("translate", d), plain)
    if style == "json":
        return _fence(structured(Sample("translate", d)), rng)
    if style == "markdown":
        items = "\n".join(f"- `({r}, {o}, {t}, {c})`" for r, o, t, c in d["goal"])
        return f"### Formal goal\n\n{items}"
    tuples = "-".join(f"({r}, {_title(o.replace('_', ' ')) if rng.random() < 0.5 else o}, {t}, {c})"
                      for r, o, t, c in d["goal"])
    return (f"Sure! Here is the formal goal:\n\n{tuples}\n\n"
            "Each tuple gives the relation, the object, where it goes and how many.")


# ------------------------------------------------------------------------------ STaLM plans
def _plan_list(steps: list[list[str]]) -> str:
    return "plan = [" + ",\n        ".join("(" + ", ".join(repr(x) for x in s) + ")" for s in steps) + "]"


def _plan(d: dict[str, Any], style: str, rng: random.Random) -> str:
    if style == "plain":
        return d["text"]
    if style == "thinking":
        return _think(Sample("task_plans", d), d["text"])
    if style == "json":
        return _fence(structured(Sample("task_plans", d)), rng)
    steps = _plan_list(d["plan"])
    if d["note"]:
        steps = f"# {d['note']}\n{steps}"
    if style == "markdown":
        challenges = "\n".join(f"- {c}" for c in d["challenges"]) or "- none"
        return (f"### Possible challenges\n\n{challenges}\n\n### Plan\n\n```python\n{steps}\n```")
    challenges = " ".join(d["challenges"]) or "Nothing seems to be in the way."
    return (f"Sure! Let's think about this step by step.\n\n{challenges}\n\nHere's the plan:\n\n```python\n{steps}\n```\n\n"
            "This plan clears what is in the way first and then achieves every goal.")


# ------------------------------------------------------------------------------ Levy-Karpas
def _goal_template(d: dict[str, Any], style: str, rng: random.Random) -> str:
    plain = f"Goal: {d['goal']}\nTemplate: {d['template']}"
    if style == "plain":
        return plain
    if style == "thinking":
        return _think(Sample("nl2pddl", d), plain)
    if style == "json":
        return _fence(structured(Sample("nl2pddl", d)), rng)
    if style == "markdown":
        return f"**Goal:** {d['goal']}\n**Template:** {d['template']}"
    return f"Sure! Here is the translation:\n\n{plain}\n\nLet me know if you need anything else."


_WRITERS: dict[str, Callable[[dict[str, Any], str, random.Random], str]] = {
    "world_model": _positions, "policy": _actions, "translate": _goal, "task_plans": _plan, "nl2pddl": _goal_template,
}
