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
from collections.abc import Callable
from typing import Any

from llm_planner_eval.stand_in.kinds import Sample, get

STYLES = ("plain", "chatty", "markdown", "json", "thinking", "mixed")
_CONCRETE = STYLES[:-1]


def render(sample: Sample, style: str, rng: random.Random) -> str:
    """The text of one sample in ``style``: plain, thinking and json are the same for every question;
    chatty and markdown are written per question (its :class:`~llm_planner_eval.stand_in.kinds.ServedKind`)."""
    if style == "mixed":
        style = rng.choice(_CONCRETE)
    if sample.kind == "unknown":
        return str(sample.data.get("text", ""))
    served = get(sample.kind)
    d = sample.data
    if style == "plain":
        return served.plain(d)
    if style == "thinking":
        return f"<think>\n{reasoning(sample)}\n</think>\n\n{served.plain(d)}"
    if style == "json":
        data = structured(sample)
        text = json.dumps(data, indent=2 if rng.random() < 0.5 else None)
        return f"```json\n{text}\n```" if rng.random() < 0.7 else text
    return (served.chatty if style == "chatty" else served.markdown)(d, rng)


def structured(sample: Sample) -> dict[str, Any] | None:
    """The answer as the JSON object of its schema (``llm_planner.llm.answers.SCHEMAS``); None for
    a question without one."""
    if sample.kind == "unknown":
        return None
    served = get(sample.kind)
    return served.structured(sample.data) if served.structured is not None else None


def reasoning(sample: Sample) -> str:
    """A short chain of thought for the thinking style (and ``reasoning_content`` of structured answers)."""
    served = None if sample.kind == "unknown" else get(sample.kind)
    if served is not None and served.reasoning is not None:
        return served.reasoning(sample.data)
    return "I will answer in the requested format."


# ------------------------------------------------------------------------------ the built-in questions
def _positions_json(d: dict[str, Any]) -> dict[str, Any]:
    return {"positions": [{"relation": rel, "place": place} for rel, place in d["positions"]]}


def _positions_reasoning(d: dict[str, Any]) -> str:
    places = " or ".join(f"{rel} the {place}" for rel, place in d["positions"]) or "nowhere I can tell"
    return (f"The user asks where a {d['object']} is usually kept. Thinking about a typical home, "
            f"a {d['object']} is most often found {places}. I should answer in the requested format.")


def _actions_json(d: dict[str, Any]) -> dict[str, Any]:
    return {"next_actions": list(d["next_actions"])}


def _actions_reasoning(d: dict[str, Any]) -> str:
    return (f"Goal: {d['goal']}. {d['situation']} The next step should be: {d['next_actions'][0]}. "
            "I will answer with the action only, in the format of the examples.")


def _goal_json(d: dict[str, Any]) -> dict[str, Any]:
    return {"goal": [{"relation": r, "object": o, "destination": t, "count": c} for r, o, t, c in d["goal"]],
            "problem": d["problem"]}


def _goal_reasoning(d: dict[str, Any]) -> str:
    if d["problem"]:
        return f"The request is '{d['directive']}'. I cannot map it: {d['problem']}."
    return (f"The request is '{d['directive']}'. I need a tuple per object kind with the relation, the "
            f"destination from the lists and the count. That gives {_formal(d['goal'])}.")


def _title(text: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in text.split())


# ------------------------------------------------------------------------------ world model
def _positions_plain(d: dict[str, Any]) -> str:
    pos = d["positions"]
    return ", ".join(f"{rel.capitalize()} {place}" for rel, place in pos) + "." if pos else "I do not know."


def _positions_markdown(d: dict[str, Any], rng: random.Random) -> str:
    items = "\n".join(f"- **{rel.capitalize()}** the {place}" for rel, place in d["positions"]) or "- no usual place"
    return f"**Possible positions of {d['object']}:**\n\n{items}"


def _positions_chatty(d: dict[str, Any], rng: random.Random) -> str:
    lines = "\n".join(f"{k}. {rel.capitalize()} the {_title(place)}"
                      for k, (rel, place) in enumerate(d["positions"], 1))
    return (f"Sure! A {d['object']} is usually found in these places:\n\n{lines or '1. I am not sure'}\n\n"
            "These are the most common spots in a typical home, but every household is a little different.")


# ------------------------------------------------------------------------------ policy
def _actions_plain(d: dict[str, Any]) -> str:
    return ", ".join(d["next_actions"]) + "."


def _actions_markdown(d: dict[str, Any], rng: random.Random) -> str:
    if d["next_actions"] == ["done"]:
        return "**Next actions:** done \u2705"
    return "**Next actions:**\n" + "\n".join(f"{k}. `{a}`" for k, a in enumerate(d["next_actions"], 1))


def _actions_chatty(d: dict[str, Any], rng: random.Random) -> str:
    if d["next_actions"] == ["done"]:
        return rng.choice(["The task is already complete, so: done.", "Done! The goal has been achieved."])
    first = d["next_actions"][0]
    opener = rng.choice(["Sure! ", "Okay! ", "Of course. ", ""])
    if rng.random() < 0.5:
        return (f"{opener}Here are the next actions:\n\n1. {first[:1].upper() + first[1:]}\n\n"
                "After that, I will continue toward the goal step by step.")
    return f"{opener}The next action is to {first}. This brings the robot closer to finishing the task."


# ------------------------------------------------------------------------------ translation
def _formal(goal: list) -> str:
    return "-".join(f"({r}, {o}, {t}, {c})" for r, o, t, c in goal)


def _refusal(d: dict[str, Any]) -> str:
    return f"I cannot turn this request into a formal goal: {d['problem']}"


def _goal_plain(d: dict[str, Any]) -> str:
    return _refusal(d) if d["problem"] else _formal(d["goal"])


def _goal_markdown(d: dict[str, Any], rng: random.Random) -> str:
    if d["problem"]:
        return _refusal(d)
    return "### Formal goal\n\n" + "\n".join(f"- `({r}, {o}, {t}, {c})`" for r, o, t, c in d["goal"])


def _goal_chatty(d: dict[str, Any], rng: random.Random) -> str:
    if d["problem"]:
        return _refusal(d)
    tuples = "-".join(f"({r}, {_title(o.replace('_', ' ')) if rng.random() < 0.5 else o}, {t}, {c})"
                      for r, o, t, c in d["goal"])
    return (f"Sure! Here is the formal goal:\n\n{tuples}\n\n"
            "Each tuple gives the relation, the object, where it goes and how many.")


_Writer = Callable[[dict[str, Any], random.Random], str]
#: The served stand-in's own questions (:mod:`.own_kinds` registers them): per kind
#: (plain text, chatty, markdown, JSON of its schema, reasoning).
WRITERS: dict[str, tuple[Callable[[dict[str, Any]], str], _Writer, _Writer, Callable[[dict[str, Any]], dict[str, Any]],
                         Callable[[dict[str, Any]], str] | None]] = {
    "world_model": (_positions_plain, _positions_chatty, _positions_markdown, _positions_json, _positions_reasoning),
    "policy": (_actions_plain, _actions_chatty, _actions_markdown, _actions_json, _actions_reasoning),
    "translate": (_goal_plain, _goal_chatty, _goal_markdown, _goal_json, _goal_reasoning),
    "random": (lambda d: str(d["number"]), lambda d, rng: f"Sure! Here is a random number: {d['number']}.",
               lambda d, rng: f"**{d['number']}**", lambda d: {"number": d["number"]}, None),
}
