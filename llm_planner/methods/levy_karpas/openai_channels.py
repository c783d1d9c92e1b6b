"""Phase I of Levy & Karpas (seed 001) with the ``openai`` backend: the language model itself
translates a directive (optionally with the state as text, the seed's "A on B" facts) into a goal
and a plan template, from K training examples of the directive data set (most similar directives
first, Sentence-BERT). The seed takes the next predictions from the model's beam search; a chat
API has no beam output, so ``n`` samples are asked in one request and their distinct answers,
most frequent first, are the ranked predictions.

A thin adapter over the LLM layer: it uses :meth:`OpenAIBackend.ask` (requests, retries, the
answer cache and usage accounting stay there) with its own prompt, and the LLM layer's grounding
of goal tuples (:func:`llm_planner.reading.ground_goal`). Nothing the model writes is
evaluated: answers in any style are read by :func:`read_goal_template` (labelled
lines in any markdown, or the JSON of structured output), goals by ``read_goal_tuples``, templates
by :func:`parse_template`, and every name is grounded onto the scene or the answer is dropped. A
goal the directive does not support (an atom it does not ask for, a wrong count; the check of
``llm_planner.reading.goal_support``) is dropped too, and said in the channel's error when no goal is left;
a category word of the data set ("the reading material") supports each of its types.

State items (issue 44): a directive with state clauses (``offline_channels.state_clauses``: "turn
on the tv", "close it" after a placement) gets one more prompt line, the state tuples and the things
that switch (other prompts do not have it); the model's ``(CLOSED, fridge)``, ``(ON, tv)`` are read by
exact name only (a thing that cannot be so drops the answer), and a goal that leaves out a state
the directive asks is dropped, never taken for the whole goal.

The prompt tells the model what the offline channels are given (:mod:`.prompt_scene`): the rooms,
the containers and surfaces with their rooms, the object types with their counts, and for D+S the
state; :mod:`.prompt_scene` reads them back.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from llm_planner.domains.household.language.model_resources import grounder_of
from llm_planner.domains.household.language.text import WorldInfo, goal_to_formal, text_to_name
from llm_planner.domains.household.world.symbolic import (
    INSIDE,
    OFF,
    ON,
    SWITCHED_ON,
    Goal,
    GoalItem,
    Household,
    State,
    state_goal,
)
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import GoalError, LLMError, PlanningError
from llm_planner.llm.answers import Unparsable, first_key, json_payload, plain_lines, read_goal_tuples, strings
from llm_planner.llm.base import LanguageModel
from llm_planner.methods.levy_karpas.channels import ChannelOutput
from llm_planner.methods.levy_karpas.clauses import split_clauses
from llm_planner.methods.levy_karpas.dataset import DirectiveSample, build_splits
from llm_planner.methods.levy_karpas.prompt_scene import scene_lines, state_text
from llm_planner.methods.levy_karpas.template import PlanTemplate, check_template, parse_template
from llm_planner.reading import UnsupportedGoal, check_model_goal, ground_goal

INSTRUCTIONS = """Translate a household robot's directive into a goal and a plan template.
Goal: the final state asked for, as tuples (REL, object type, destination, count) joined by "-",
REL is INSIDE for containers and ON for surfaces; write "Goal: none" when the directive only lists steps.
Template: the steps the directive spells out, as verb(kind, ...) joined by ", " with verbs
walk(room|furniture|object type), grab(object type), open(container), close(container),
putin(object type, container), puton(object type, surface); start it with "partial:" when the
directive also states a goal so that other steps may come in between; write "Template: none" when
the directive states only a goal.
Containers and surfaces are listed with their room, object types with how many the house has.
Rooms: {rooms}
Containers: {containers}
Surfaces: {surfaces}
Object types: {types}
"""
STATES_LINE = """States: a goal may also ask how a thing is left, as (OPEN, container), (CLOSED, container),
(ON, thing) or (OFF, thing) joined to the other tuples by "-"; things that switch on and off: {switchables}
"""
#: a state tuple of an answer: (OPEN|CLOSED|ON|OFF, thing)
_STATE_TUPLE = re.compile(r"\(\s*(open|closed|on|off)\s*,\s*([a-z][a-z_ ]*?)\s*\)", re.IGNORECASE)
_STEP_VERB = re.compile(r"^(?:go|walk|grab|pick|take|get|fetch|carry|bring|head|move)\b")


def asked_states(directive: str) -> int:
    """How many state clauses a directive has (``offline_channels.state_clauses``, the clause labels
    guessed from the first word: a directive with a walk or grab step keeps its open/close as steps)."""
    from llm_planner.methods.levy_karpas.offline_channels import OfflineChannels  # noqa: PLC0415 - the offline channels load the clause classifier's module

    clauses = split_clauses(directive)
    top = ["walk" if _STEP_VERB.match(c) else "" for c in clauses]
    return len(OfflineChannels.state_clauses(clauses, top))


def read_goal_template(text: str) -> tuple[list[str], list[str]]:
    """The "Goal:" and "Template:" values of an answer (JSON or labelled lines, in any markdown),
    each a list in the answer's order ("none" values included)."""
    data = json_payload(text)
    if isinstance(data, dict):
        return strings(first_key(data, ("goal",))), strings(first_key(data, ("template", "plan_template")))
    goals, templates = [], []
    for line in plain_lines(text):
        key, sep, value = line.partition(":")
        key = key.strip().lower()
        if not sep:
            continue
        if key in ("goal", "formal goal"):
            goals.append(value.strip())
        elif key in ("template", "plan template"):
            templates.append(value.strip())
    return goals, templates


def example_block(sample: DirectiveSample, text: str) -> str:
    goal = goal_to_formal(sample.goal) if sample.goal and text == sample.goal_directive else "none"
    template = str(sample.template) if not sample.template.empty and text == sample.step_directive else "none"
    return f"Directive: {text}\nGoal: {goal}\nTemplate: {template}"


class OpenAIChannels:
    """Both channels answered by the openai backend (see the module docstring)."""

    def __init__(self, household: Household, backend: LanguageModel, train: Sequence[DirectiveSample],
                 options: Mapping[str, Any], max_predictions: int = 5, asker: Any = None,
                 categories: Mapping[str, Sequence[str]] | None = None) -> None:
        self.h = household
        self.world = WorldInfo.from_household(household)
        self.backend = backend
        self.asker = asker or getattr(backend, "primary", backend)
        if not hasattr(self.asker, "ask"):
            raise LLMError(f"the {backend.name} backend cannot be asked free prompts (needs OpenAIBackend.ask)")
        self.opts = dict(options)
        self.n = max_predictions
        self.categories = {str(word): tuple(types) for word, types in (categories or {}).items()}
        self.examples = [(s, t) for s in train for t in dict.fromkeys((s.goal_directive, s.step_directive)) if t]
        self._matrix = grounder_of(backend.resources).matrix([t for _s, t in self.examples]) if self.examples else None

    def prompt(self, directive: str, state: State | None) -> str:
        head = INSTRUCTIONS.format(**scene_lines(self.h))
        if self.h.switchables and asked_states(directive):
            head += STATES_LINE.format(switchables=", ".join(self.h.switchables))
        shots = []
        if self._matrix is not None and int(self.opts["shots"]) > 0:
            sims = self._matrix @ self.backend.resources.embedder.encode_one(directive)
            for i in np.argsort(-sims)[: int(self.opts["shots"])]:
                shots.append(example_block(*self.examples[int(i)]))
        query = f"Directive: {directive}"
        if state is not None:
            query = f"State: {state_text(self.h, state)}\n{query}"
        return head + "\n" + "\n\n".join(shots) + "\n\n" + query + "\n"

    def _parse(self, texts: list[str], directive: str = "") -> tuple[list[Goal], list[PlanTemplate], list[str]]:
        """Ranked goals and templates of the answers, and why goals were refused: a goal the
        directive does not support (``llm_planner.reading.goal_support``; objects the directive only
        names as steps may be left out) is dropped like an unreadable one."""
        goals: Counter = Counter()
        templates: Counter = Counter()
        refused: list[str] = []
        reading = None
        min_score = float(self.backend.config.get("grounding.min_name_score"))
        asked = asked_states(directive) if directive else 0
        for text in texts:
            goal_values, template_values = read_goal_template(text)
            for value in goal_values:
                if value.lower().strip(" .") == "none":
                    continue
                if asked or _STATE_TUPLE.search(value):
                    reading = self._read_state_goal(value, directive, asked, goals, refused, reading, min_score)
                    continue
                try:
                    items = read_goal_tuples(value)
                    if any(rel not in (INSIDE, ON) for rel, *_ in items):
                        continue  # a relation the domain does not have: not this goal
                    goal = ground_goal(tuple(items), self.world, grounder_of(self.backend.resources), min_score)
                    if goal and directive:
                        reading = self._check_goal(reading or directive, directive, goal)
                    if goal:
                        goals[self.h.check_goal(goal)] += 1
                except UnsupportedGoal as exc:
                    reading = exc.reading
                    refused.append("; ".join(exc.differences))
                except (GoalError, Unparsable):
                    continue
            for value in template_values:
                if value.lower().strip(" .") == "none":
                    continue
                try:
                    templates[check_template(self.h, parse_template(value.strip("`")))] += 1
                except PlanningError:
                    continue
        ranked_goals = [g for g, _ in goals.most_common(self.n)]
        return ranked_goals, [t for t, _ in templates.most_common(self.n)], list(dict.fromkeys(refused))

    def _read_state_goal(self, value: str, directive: str, asked: int, goals: Counter, refused: list[str],
                         reading: Any, min_score: float) -> Any:
        """One goal answer of a directive with state clauses (or with state tuples): its placements
        as any goal's, its state tuples by exact name; counted in ``goals`` when it asks a state for
        every state clause. Returns the directive's reading (as :meth:`_check_goal`)."""
        states: list[GoalItem] = []
        for rel, thing in _STATE_TUPLE.findall(value):
            name, rel = text_to_name(thing), rel.lower()
            fits = name in self.h.switch_at if rel in (SWITCHED_ON, OFF) else self.h.is_container.get(name, False)
            if not fits:
                return reading  # a thing that cannot be so: not this goal
            states.append(state_goal(rel, name))
        rest = _STATE_TUPLE.sub(" ", value).strip(" -.,;")
        try:
            items = read_goal_tuples(rest) if rest else []
            if any(r not in (INSIDE, ON) for r, *_ in items):
                return reading
            placed = ground_goal(tuple(items), self.world, grounder_of(self.backend.resources), min_score) if items \
                else ()
            if placed and directive:
                reading = self._check_goal(reading or directive, directive, placed)
            if len(states) < asked:
                refused.append(f"the goal {goal_to_formal(tuple(placed) + tuple(states)) or 'none'} leaves out a "
                               f"state the directive asks ({asked} asked)")
                return reading
            if placed or states:
                goals[self.h.check_goal(tuple(placed) + tuple(states))] += 1
        except UnsupportedGoal as exc:
            refused.append("; ".join(exc.differences))
            return exc.reading
        except (GoalError, Unparsable):
            pass
        return reading

    def _check_goal(self, reading: Any, directive: str, goal: Goal) -> Any:
        """The directive's reading when it supports ``goal`` (``check_model_goal``), else
        UnsupportedGoal. A category word of the data set ("the reading material", "the cup";
        ``dataset.categories`` of ``config/nl2pddl.yaml``) stands for any of its types: a goal
        refused only because it names one of them is checked against the directive with that
        type's name in the word's place (seed 001 §Predicting Goals: people rarely name the object)."""
        try:
            return check_model_goal(reading, goal, self.world, self.backend.resources, complete=False)
        except UnsupportedGoal as exc:
            named = self._named(directive, goal)
            if named == directive:
                raise
            try:
                check_model_goal(named, goal, self.world, self.backend.resources, complete=False)
            except UnsupportedGoal:
                raise exc from None
            return exc.reading

    def _named(self, directive: str, goal: Goal) -> str:
        """``directive`` with each category word replaced by the goal's object type of that category
        (words inside an object type's own name, "dish" of "dish bowl", are left alone)."""
        text = directive.lower()
        inside = [m.span() for t in self.world.object_types
                  for m in re.finditer(rf"\b{re.escape(name_to_text(t))}", text)]
        for word, types in self.categories.items():
            chosen = next((i.obj_type for i in goal if i.obj_type in types), None)
            if chosen is None:
                continue
            spans = [m.span() for m in re.finditer(rf"\b{re.escape(word)}s?\b", text)
                     if not any(a <= m.start() < b for a, b in inside)]
            for a, b in reversed(spans):
                text = text[:a] + name_to_text(chosen) + text[b:]
        return text

    def _ask(self, directive: str, state: State | None) -> tuple[list[Goal], list[PlanTemplate], list[str]]:
        params = {"temperature": float(self.opts["temperature"]), "max_tokens": int(self.opts["max_tokens"])}
        texts, _reply = self.asker.ask("nl2pddl", self.prompt(directive, state), int(self.opts["samples"]), params,
                                       lambda t: t)
        return self._parse(list(texts), directive)

    def predict(self, goal_directive: str, step_directive: str, state: State | None) -> ChannelOutput:
        before = self.backend.usage.requests
        goals, templates, refused = self._ask(goal_directive, state) if goal_directive else ([], [], [])
        if step_directive and step_directive != goal_directive:
            _g, templates, _r = self._ask(step_directive, state)
        error = "" if goals or templates else "the model's answers held no usable goal or plan template"
        if refused and not goals:
            error = ("the model's goals were refused, the directive does not ask for them: " + " | ".join(refused) +
                     "; say the goal plainly, e.g. '... and bring the book to the sofa'")
        return ChannelOutput(goals, templates, error, "", self.backend.usage.requests - before)


def make_channels(household: Household, backend: LanguageModel, config: Mapping[str, Any],
                  tries: int) -> OpenAIChannels:
    """The model's channels for one scene, with K-shot examples from the data set's train split."""
    return OpenAIChannels(household, backend, build_splits(config["dataset"])["train"], config["openai"], tries,
                          categories=config["dataset"].get("categories"))
