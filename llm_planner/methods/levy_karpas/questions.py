"""Levy & Karpas' question to a language model (seed 001, Phase I): ``nl2pddl``, a directive
(optionally with the state) as a goal and a plan template, asked by the openai channels
(:mod:`.openai_channels`, prompt ``INSTRUCTIONS``).

Registered with the LLM layer's question registry (:mod:`llm_planner.llm.questions`) at import:

=========  ==========================================================================================
backend    how it answers a :class:`~.channels.Phase1Question` (``backend.answer("nl2pddl", question)``)
=========  ==========================================================================================
offline    the offline channels (:mod:`.offline_channels`: rules + the trained clause classifier)
openai     the model's channels (:mod:`.openai_channels`: K-shot prompt, n samples, ranked answers)
served     ``llm-planner serve`` recognises the openai channels' prompt and answers from it alone
           with the offline goal parser (the goal) and :func:`read_steps` (the steps the directive
           spells out, the template), written as ``Goal: ...`` / ``Template: ...`` in every style
=========  ==========================================================================================

The channels of a scene are built once per backend and scene (the classifier trained, the K-shot
examples embedded) and kept while the backend lives.
"""
from __future__ import annotations

import random
import re
import threading
import weakref
from collections.abc import Callable
from typing import Any

from llm_planner.llm.answers import object_schema
from llm_planner.llm.offline.served import prompt_line, prompt_names
from llm_planner.llm.questions import QuestionKind, Sample, ServedKind, register
from llm_planner.llm.text import WorldInfo, name_to_text
from llm_planner.methods.levy_karpas.clauses import split_clauses
from llm_planner.methods.levy_karpas.wrong_answers import WRONG

KIND = "nl2pddl"
_NL2PDDL = re.compile(r"(?:State:\s*(?P<state>[^\n]*)\n)?Directive:\s*(?P<directive>[^\n]*)\s*$", re.IGNORECASE)


_CHANNELS: weakref.WeakKeyDictionary[Any, dict[tuple, Any]] = weakref.WeakKeyDictionary()
_CHANNELS_LOCK = threading.Lock()


def _predict(backend: Any, question: Any, make: Callable[..., Any]) -> Any:
    """Phase I by the channels ``make`` builds for the question's scene (once per backend and scene)."""
    key = (question.household.scene.name, id(question.household), id(question.config), question.tries)
    with _CHANNELS_LOCK:
        per_backend = _CHANNELS.setdefault(backend, {})
        if key not in per_backend:
            per_backend[key] = make(question.household, backend, question.config, question.tries)
        channels = per_backend[key]
    return channels.predict(question.goal_directive, question.step_directive, question.state)


def offline_phase1(backend: Any, question: Any, n: int | None = None, seed: int | None = None) -> Any:
    """Phase I by the offline channels (a :class:`~.channels.ChannelOutput`)."""
    from llm_planner.methods.levy_karpas.offline_channels import make_channels

    return _predict(backend, question, make_channels)


def openai_phase1(backend: Any, question: Any, n: int | None = None, seed: int | None = None) -> Any:
    """Phase I by the model (a :class:`~.channels.ChannelOutput`)."""
    from llm_planner.methods.levy_karpas.openai_channels import make_channels

    return _predict(backend, question, make_channels)


def recognise(prompt: str) -> bool:
    """The openai channels' prompt (``openai_channels.INSTRUCTIONS``, then ``Directive: ...``)."""
    text = prompt.rstrip()
    return text.startswith("Translate a household robot's directive") and bool(_NL2PDDL.search(text))


def served_answer(model: Any, prompt: str, n: int, seed: int) -> list[Sample]:
    """The goal (the offline goal parser on the directive's goal clauses) and the template (the
    steps it spells out), ``n`` times the same."""
    from llm_planner.errors import GoalError
    from llm_planner.llm.offline.directive_reading import goal_parser

    rooms = prompt_names(prompt_line(prompt, "Rooms"))
    containers = prompt_names(prompt_line(prompt, "Containers"))
    surfaces = prompt_names(prompt_line(prompt, "Surfaces"))
    types = prompt_names(prompt_line(prompt, "Object types"))
    world = WorldInfo(tuple(rooms), tuple(containers), tuple(surfaces), {f: "" for f in containers + surfaces},
                      {f"{t}_1": t for t in types})
    found = _NL2PDDL.search(prompt.rstrip())
    assert found is not None  # the prompt was recognised by this pattern
    directive = found.group("directive").strip()
    steps, goal_text, stepwise = read_steps(directive, world)
    goal = "none"
    if goal_text:
        try:  # the prompt names object types, not how many there are: counts are read as said (Phase II
            # validates them against the problem), never asked back
            items = goal_parser(model.backend.resources, world).parse(goal_text, ask=False)
            goal = "-".join(f"({i.rel.upper()}, {i.obj_type}, {i.destination}, {i.count})" for i in items)
        except GoalError:
            goal = "none"
    template = "none" if not steps else ("" if stepwise else "partial: ") + ", ".join(steps)
    return [Sample(KIND, {"goal": goal, "template": template})] * n


_WALK = re.compile(r"^(?:start\s+by\s+)?(?:go(?:ing)?|walk(?:ing)?|head(?:ing)?|proceed(?:ing)?|move|make\s+your\s+way|"
                   r"approach|return|come)(?:\s+(?:over|back))?(?:\s+(?:to|into|towards?))?\s+(?:the\s+)?(?P<x>.+)$")
_GRAB = re.compile(r"^(?:grab|get|take|pick\s+up|pick|fetch)\s+(?:up\s+)?(?:the\s+|a\s+|an\s+|one\s+)?(?P<x>.+?)"
                   r"(?:\s+(?:from|off|out\s+of|on|in)\s+.*)?$")
_VIA = re.compile(r"^(?:go|walk|head|proceed|move)\s+"
                  r"(?:to\s+(?:the\s+)?(?P<to>.+?)\s+(?:through|via)\s+(?:the\s+)?(?P<via>.+)"
                  r"|(?:through|via)\s+(?:the\s+)?(?P<via2>.+?)\s+to\s+(?:the\s+)?(?P<to2>.+))$")
_OPEN_CLOSE = re.compile(r"^(?P<verb>open|close|shut)\s+(?:the\s+)?(?P<x>.+)$")
_PUT = re.compile(r"^(?:put|place|set|drop|leave|stick|store)\s+(?:the\s+|a\s+|an\s+|one\s+)?(?P<x>.+?)\s+"
                  r"(?P<rel>inside|into|in|onto|on\s+top\s+of|on)\s+(?:the\s+)?(?P<y>.+)$")
_BRING = re.compile(r"^(?:bring|carry|take|move|deliver)\s+.+\s+(?:to|into|onto|in|on)\s+.+$")


def read_steps(directive: str, world: WorldInfo) -> tuple[list[str], str, bool]:
    """(template steps, the goal part of the directive, whether it is all steps) of a Levy-Karpas
    directive: clauses that walk, grab, open, close or put become steps over the prompt's kinds
    ("it" is the last object or container named); "bring/carry X to Y" clauses are the goal. A
    directive of goal clauses only has no steps (its goal is the whole directive)."""
    kinds = {name_to_text(k): k for k in (*world.rooms, *world.furniture, *world.object_types)}
    objects = {name_to_text(t): t for t in world.object_types}
    steps: list[str] = []
    goals: list[str] = []
    last_object = last_container = None
    puts = []
    for clause in split_clauses(directive):
        clause = re.sub(r"^(?:then|after that|and|first|finally|next)\s+", "", clause)
        clause = re.sub(r"^(pick|take|get)\s+(it|them)\s+up$", r"\1 \2", clause)
        if (m := _VIA.match(clause)) and kinds.get(m.group("via") or m.group("via2")) and \
                kinds.get(m.group("to") or m.group("to2")):
            steps += [f"walk({kinds[m.group('via') or m.group('via2')]})",
                      f"walk({kinds[m.group('to') or m.group('to2')]})"]
        elif (m := _OPEN_CLOSE.match(clause)):
            target = kinds.get(m.group("x")) or (last_container if m.group("x") == "it" else None)
            if target:
                steps.append(f"{'open' if m.group('verb') == 'open' else 'close'}({target})")
                last_container = target
        elif (m := _PUT.match(clause)):
            obj = objects.get(m.group("x")) or (last_object if m.group("x") in ("it", "them") else None)
            dest = kinds.get(m.group("y"))
            if obj and dest:
                rel = "putin" if dest in world.containers else "puton"
                steps.append(f"{rel}({obj}, {dest})")
                puts.append(clause)
        elif (_BRING.match(clause) and not _GRAB.match(clause.replace("take ", "grab ", 1))
              or clause.startswith(("bring", "carry"))):
            goals.append(clause)
        elif (m := _GRAB.match(clause)):
            obj = objects.get(m.group("x")) or (last_object if m.group("x") == "it" else None)
            if obj:
                steps.append(f"grab({obj})")
                last_object = obj
        elif (m := _WALK.match(clause)):
            target = kinds.get(m.group("x"))
            if target:
                steps.append(f"walk({target})")
                if target in world.containers:
                    last_container = target
                if target in world.object_types:
                    last_object = target
    stepwise = any(s.startswith(("grab(", "open(", "close(")) for s in steps)
    if not stepwise:  # put clauses without grab/open/close state the goal
        steps = [s for s in steps if not s.startswith(("putin(", "puton("))]
        goals += puts
    if not steps:  # a goal only
        return [], directive, False
    return steps, " and ".join(goals), stepwise and not goals



def _plain(d: dict[str, Any]) -> str:
    return f"Goal: {d['goal']}\nTemplate: {d['template']}"


def _markdown(d: dict[str, Any], rng: random.Random) -> str:
    return f"**Goal:** {d['goal']}\n**Template:** {d['template']}"


def _chatty(d: dict[str, Any], rng: random.Random) -> str:
    return f"Sure! Here is the translation:\n\n{_plain(d)}\n\nLet me know if you need anything else."


QUESTION = register(QuestionKind(
    KIND, {"offline": offline_phase1, "openai": openai_phase1},
    ServedKind(recognise, served_answer, _plain, _chatty, _markdown,
                         lambda d: {"goal": d["goal"], "template": d["template"]}, order=40,
                         wrong=WRONG),  # wrong answers: wrong_answers.py (llm-planner serve --error-rate)
    source="Levy & Karpas Phase I (seed 001)",
    schema=("goal_and_template", object_schema({"goal": {"type": "string"}, "template": {"type": "string"}}))))
