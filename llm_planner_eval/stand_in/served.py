"""The model behind ``llm-planner serve``: it reads the chat messages a real model would receive,
recognises which of the project's questions they ask, and answers with the offline components.

It is honest in the way a served model is: it sees nothing but the prompt text. The scene it
reasons about is rebuilt from the names the prompt lists (rooms, furniture with kind and room,
object types and counts), the robot's situation from the prompt's completed actions and current
observation; it never reads a scene file, the simulator or any hidden state.

=============  =========================================  ====================================
question       recognised by (prompt of)                  answered with
=============  =========================================  ====================================
world_model    "what are the possible positions of X?"    ``object_positions`` (offline)
               (``world_model.txt``)
policy         "Goal / Completed actions / Current        ``next_actions`` (offline; the
               observation / Next action(s):"             retrieval policy; it is also SayCanPay's
               (``policy.txt``), or "Goal /               Say question), asked ``from_initial`` in
               Initial observation / Planned actions so   the plan form, as the offline backend is
               far / Next action:" (``plan.txt``)         asked by SayCanPay's paper decoder
translate      "... Formal goal:" (``translate.txt``)      the offline goal parser
random         "a random whole number between A and B"    a number drawn with the request's seed
               (the client's first-contact probe,         (the same one when the server is greedy)
               ``llm/server_profile.py``)
unknown        anything else                              a polite "I do not understand"
=============  =========================================  ====================================

Every other question is a kind registered with its recogniser and served answer
(:class:`.kinds.ServedKind`: STaLM's ``task_plans``, Levy-Karpas' ``nl2pddl``, ...);
:func:`classify` tries the registered recognisers in their order. :mod:`.own_kinds` registers the
kinds above.

Each answer is a list of samples in a neutral form (:class:`.kinds.Sample`: the question kind and
its content as data); :mod:`.styles` writes them as text in an answer style.

The plan form (SayCanPay's offline planning, seed 004 §4) is the same question asked from o_0: the
served model reads o_0 (every object and container of the house) and the planned actions, and the
offline backend follows the plan in its own belief (``retrieval_policy.imagined_observation``), as
it does for the decoder's ``PolicyQuery.from_initial``; it answers "done task" where the policy
says "done". Its wrong answers (``--error-rate``) are the policy's, drawn in that believed situation.

Past observations are not in the policy prompt (the seed's listing 1 shows the completed actions
and the current observation), so the served policy knows of the robot's past only what the
completed actions say: the rooms it walked through (their surfaces were seen) and the containers
it opened; what it saw there and no longer sees is forgotten. It is weaker than the embedded
offline backend, which is given the past observations, as a real model is.
"""
from __future__ import annotations

import random as _random
import re
import threading
from collections.abc import Sequence
from typing import Any

from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.prompts import DONE_TASK
from llm_planner.domains.household.language.questions import next_actions, object_positions, translate
from llm_planner.domains.household.language.retrieval_policy import imagined_observation
from llm_planner.domains.household.language.text import WorldInfo, text_to_name
from llm_planner.domains.household.world.symbolic import INSIDE, ON, Action, Observation
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import GoalError, LlmPlannerError
from llm_planner.llm.factory import make_backend
from llm_planner_eval.stand_in.kinds import AnswerErrors, Sample, get, served_kinds

#: The served stand-in's own question kinds (methods register others). A :class:`Sample`'s ``data`` by kind:
#:
#: * world_model: ``{"object": str, "positions": [["inside"|"on", place text], ...]}``
#: * policy: ``{"goal": str, "next_actions": [action text, ..., "done"], "situation": str}``
#: * translate: ``{"directive": str, "goal": [[REL, object, destination, count], ...], "problem": str}``
#: * random: ``{"number": int}``
#: * unknown: ``{"text": str}``
KINDS = ("world_model", "policy", "translate", "random", "unknown")
__all__ = ["KINDS", "Sample", "ServedModel", "UnreadablePrompt", "classify", "plan_question", "policy_question",
           "policy_world", "read_initial_observation",
           "prompt_line", "prompt_names", "read_actions", "read_observation", "translate_question",
           "world_model_question"]


class UnreadablePrompt(LlmPlannerError):
    """The prompt looks like one of the project's questions but misses a part the answer needs."""


# ------------------------------------------------------------------------------ recognising
_WORLD_MODEL = re.compile(r"Question:\s*what are the possible positions of (?P<object>[^?\n]+)\?\s*Answer:\s*$",
                          re.IGNORECASE)
_POLICY = re.compile(r"Goal:\s*(?P<goal>[^\n]*)\nCompleted actions:\s*(?P<completed>[^\n]*)\n"
                     r"Current observation:\s*(?P<observation>[^\n]*)\nNext actions?:\s*$", re.IGNORECASE)
_PLAN = re.compile(r"Goal:\s*(?P<goal>[^\n]*)\nInitial observation:\s*(?P<observation>[^\n]*)\n"
                   r"Planned actions so far:\s*(?P<planned>[^\n]*)\nNext action:\s*$", re.IGNORECASE)
_TRANSLATE = re.compile(r"Goal:\s*(?P<directive>[^\n]*)\nFormal goal:\s*$", re.IGNORECASE)
_RANDOM = re.compile(r"random whole number between (?P<low>\d+) and (?P<high>\d+)", re.IGNORECASE)
#: the recognisers of the stand-in's own kinds (:data:`KINDS` but ``unknown``), in the order they are tried
RECOGNISERS = {
    "world_model": lambda p: bool(_WORLD_MODEL.search(p.rstrip())),
    "policy": lambda p: bool(_POLICY.search(p.rstrip()) or _PLAN.search(p.rstrip())),
    "translate": lambda p: bool(_TRANSLATE.search(p.rstrip())),
    "random": lambda p: bool(_RANDOM.search(p.rstrip())) and len(p.rstrip()) < 200,
}


def prompt_of(messages: Sequence[Any]) -> str:
    """The text of the last user message (string content or a list of text parts)."""
    for message in reversed(list(messages)):
        if not isinstance(message, dict) or message.get("role", "user") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def classify(prompt: str) -> str:
    """Which question a prompt asks: the first registered kind whose recogniser takes it (a method's
    kinds and :data:`KINDS`), else ``unknown``."""
    for kind in served_kinds():
        if kind.recognise(prompt):
            return kind.name
    return "unknown"


def prompt_line(prompt: str, label: str) -> str:
    """The value of the first ``label: value.`` line (for the served answers of registered kinds)."""
    return _line(prompt, label)


def prompt_names(value: str) -> list[str]:
    """``fridge, kitchen table`` -> ``["fridge", "kitchen_table"]``."""
    return _names(value)


def _line(prompt: str, label: str) -> str:
    """The value of the first ``label: value.`` line."""
    match = re.search(rf"^{re.escape(label)}:\s*(.*?)\.?\s*$", prompt, re.MULTILINE)
    if match is None:
        raise UnreadablePrompt(f"the prompt has no '{label}:' line")
    return match.group(1)


def _names(value: str) -> list[str]:
    return [text_to_name(v) for v in value.split(",") if v.strip()]


_FURNITURE = re.compile(r"([^,()]+?)\s*\((container|surface) in the ([^()]+?)\)")
_COUNTED = re.compile(r"([^,()]+?)\s*\((\d+)\)")


def _counted_types(value: str) -> dict[str, str]:
    """``apple (2), bread slice (1)`` -> instance -> type (``apple_1``, ``apple_2``, ``bread_slice_1``)."""
    out: dict[str, str] = {}
    for name, count in _COUNTED.findall(value):
        obj_type = text_to_name(name)
        for i in range(1, int(count) + 1):
            out[f"{obj_type}_{i}"] = obj_type
    return out


def policy_world(prompt: str) -> WorldInfo:
    """The apartment as the policy prompt names it (rooms, furniture with kind and room, objects)."""
    rooms = _names(_line(prompt, "Rooms in the house"))
    containers: list[str] = []
    surfaces: list[str] = []
    room_of: dict[str, str] = {}
    for name, kind, room in _FURNITURE.findall(_line(prompt, "Furniture in the house")):
        furniture = text_to_name(name)
        (containers if kind == "container" else surfaces).append(furniture)
        room_of[furniture] = text_to_name(room)
    objects = _counted_types(_line(prompt, "Objects in the house"))
    if not rooms or not room_of or not objects:
        raise UnreadablePrompt("the policy prompt lists no rooms, furniture or objects")
    return WorldInfo(tuple(rooms), tuple(containers), tuple(surfaces), room_of, objects)


# ------------------------------------------------------------------------------ observations
_FURNITURE_SEEN = re.compile(r"^an? (?P<f>.+?) is inside the (?P<room>.+?)(?: and the .+? is (?P<state>open|closed))?$")
_RELATION_SEEN = re.compile(r"^an? (?P<o>.+?) is (?P<rel>inside|on) the (?P<f>.+)$")


_STATE_SEEN = re.compile(r"^(?:the|an?) (?P<c>.+?) is (?P<state>open|closed)$")


def read_observation(text: str, world: WorldInfo, initial: bool = False) -> Observation:
    """Inverse of ``observation_to_text`` over the prompt's names; unknown phrases are ignored. With
    ``initial``, of ``prompts.initial_observation_to_text``: o_0 shows every object and container of
    the house, so every furniture counts as seen (the paper decoder's o_0, ``full_observation``)."""
    rooms = set(world.rooms)
    furniture = set(world.furniture)
    containers = set(world.containers)
    objects = set(world.objects)
    room, near, holding = "", None, None
    relations: set[tuple[str, str, str]] = set()
    open_here: set[str] = set()
    closed_here: set[str] = set()
    for part in text.strip().rstrip(".").split(", "):
        part = part.strip()
        if part.startswith("you are in the "):
            room = text_to_name(part[len("you are in the "):])
        elif part.startswith("you are close to the "):
            near = text_to_name(part[len("you are close to the "):])
        elif part.startswith("you are holding the "):
            holding = text_to_name(part[len("you are holding the "):])
        elif (m := _FURNITURE_SEEN.match(part)) and text_to_name(m.group("room")) in rooms:
            f = text_to_name(m.group("f"))
            if m.group("state") == "open":
                open_here.add(f)
            elif m.group("state") == "closed" or f in containers:
                closed_here.add(f)
        elif initial and (m := _STATE_SEEN.match(part)) and text_to_name(m.group("c")) in containers:
            (open_here if m.group("state") == "open" else closed_here).add(text_to_name(m.group("c")))
        elif (m := _RELATION_SEEN.match(part)):
            obj, place = text_to_name(m.group("o")), text_to_name(m.group("f"))
            if obj in objects and place in furniture:
                relations.add((INSIDE if m.group("rel") == "inside" else ON, obj, place))
    if room not in rooms:
        raise UnreadablePrompt(f"the {'initial' if initial else 'current'} observation names no room of the house: "
                               f"{text[:120]!r}")
    seen = set(world.furniture) if initial else \
        {f for f in world.surfaces if world.furniture_room.get(f) == room} | open_here
    return Observation(room, near, holding, frozenset(relations), frozenset(open_here),
                       frozenset(closed_here - open_here), frozenset(seen))


def read_initial_observation(text: str, world: WorldInfo) -> Observation:
    """o_0 of the plan prompt (``read_observation`` with ``initial``)."""
    return read_observation(text, world, initial=True)


_ACTION_PATTERNS = (
    ("walk", re.compile(r"^walk to (?:the )?(.+)$")), ("grab", re.compile(r"^grab (?:the )?(.+)$")),
    ("open", re.compile(r"^open (?:the )?(.+)$")), ("close", re.compile(r"^close (?:the )?(.+)$")),
    ("putin", re.compile(r"^put (?:the )?(.+?) inside (?:the )?(.+)$")),
    ("puton", re.compile(r"^put (?:the )?(.+?) on (?:the )?(.+)$")),
)


def read_actions(text: str) -> tuple[Action, ...]:
    """``walk to the kitchen, grab the apple 1`` -> actions (``none`` -> no action)."""
    out = []
    for part in text.strip().rstrip(".").split(","):
        part = " ".join(part.lower().split())
        for verb, pattern in _ACTION_PATTERNS:
            m = pattern.match(part)
            if m:
                out.append(Action(verb, tuple(text_to_name(g) for g in m.groups())))
                break
    return tuple(out)


def remembered_views(world: WorldInfo, history: Sequence[Action]) -> tuple[Observation, ...]:
    """What the completed actions say the robot has seen: per walk, the surfaces of the room it was
    in; per opened container, its inside. Contents are not in the prompt, so the views carry none
    (see the module docstring)."""
    views = []
    room = None
    for action in history:
        target = action.args[-1] if action.verb in ("putin", "puton") else action.args[0]
        if action.verb == "walk":
            room = target if target in world.rooms else world.furniture_room.get(target, room)
            if room:
                seen = frozenset(f for f in world.surfaces if world.furniture_room.get(f) == room)
                views.append(Observation(room, None, None, frozenset(), frozenset(), frozenset(), seen))
        elif action.verb == "open" and room:
            views.append(Observation(room, target, None, frozenset(), frozenset({target}), frozenset(),
                                     frozenset({target})))
    return tuple(views)


# ------------------------------------------------------------------------------ the questions, read back
def world_model_question(prompt: str) -> tuple[WorldInfo, str]:
    """(the apartment's furniture and rooms as the world-model prompt lists them, the object type asked about)."""
    containers = _names(_line(prompt, "Containers in the apartment"))
    surfaces = _names(_line(prompt, "Surfaces in the apartment"))
    rooms = _names(_line(prompt, "Rooms in the apartment"))
    world = WorldInfo(tuple(rooms), tuple(containers), tuple(surfaces), {f: "" for f in containers + surfaces}, {})
    match = _WORLD_MODEL.search(prompt.rstrip())
    if match is None:
        raise UnreadablePrompt("the prompt asks for no object's positions")
    return world, text_to_name(match.group("object"))


def plan_question(prompt: str) -> tuple[WorldInfo, str, Observation, tuple[Action, ...]] | None:
    """(apartment, goal text, o_0, planned actions) of a prompt in the plan form (SayCanPay's offline
    Say, seed 004 §4), None for any other prompt."""
    tail = _PLAN.search(prompt.rstrip())
    if tail is None:
        return None
    world = policy_world(prompt)
    return (world, tail.group("goal").strip(), read_initial_observation(tail.group("observation"), world),
            read_actions(tail.group("planned")))


def policy_question(prompt: str) -> tuple[WorldInfo, str, Observation, tuple[Action, ...]]:
    """(apartment, goal text, current observation, completed actions) of a policy (or Say) prompt; of
    a plan prompt, the observation the plan leads to in the model's belief (o_0 followed along the
    planned actions, ``retrieval_policy.imagined_observation``) and the planned actions."""
    plan = plan_question(prompt)
    if plan is not None:
        world, goal, first, planned = plan
        return world, goal, imagined_observation(world, first, planned), planned
    world = policy_world(prompt)
    tail = _POLICY.search(prompt.rstrip())
    if tail is None:
        raise UnreadablePrompt("the prompt ends with no 'Goal / Completed actions / Current observation' block")
    return (world, tail.group("goal").strip(), read_observation(tail.group("observation"), world),
            read_actions(tail.group("completed")))


def translate_question(prompt: str) -> tuple[WorldInfo, str]:
    """(apartment with its object counts, directive) of a translation prompt."""
    containers = _names(_line(prompt, "Containers"))
    surfaces = _names(_line(prompt, "Surfaces"))
    rooms = _names(_line(prompt, "Rooms (not destinations)"))
    objects = _counted_types(_line(prompt, "Objects (how many the house has)"))
    world = WorldInfo(tuple(rooms), tuple(containers), tuple(surfaces),
                      {f: "" for f in containers + surfaces}, objects)
    match = _TRANSLATE.search(prompt.rstrip())
    if match is None:
        raise UnreadablePrompt("the prompt ends with no 'Goal: ... Formal goal:' lines")
    return world, match.group("directive").strip()


# ------------------------------------------------------------------------------ answering
class ServedModel:
    """Answers the project's questions from their prompts with an offline backend (thread-safe)."""

    def __init__(self, backend: Any = None) -> None:
        if backend is None:
            backend = make_backend(backend="offline")
        self.backend = backend
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        """Load the sentence embedder and the expert data set now, not on the first request."""
        with self._lock:
            self.backend.resources.embedder.encode(["warm up"])
            self.backend.prepare()

    def answer(self, prompt: str, n: int, seed: int = 0,
               errors: AnswerErrors | None = None) -> tuple[str, list[Sample]]:
        """(question kind, n samples). A prompt that cannot be read is answered as a model would:
        with a sentence saying what it misses. With ``errors`` (``--error-rate``), each sample is
        replaced by a wrong one with the error model's probability (:mod:`.wrong_answers`)."""
        kind = classify(prompt)
        try:
            with self._lock:
                if kind == "unknown":
                    samples = self._unknown(prompt, n, seed)
                else:
                    samples = get(kind).answer(self, prompt, n, seed)
                    if errors is not None:
                        samples = errors.apply(self, kind, prompt, samples)
        except UnreadablePrompt as exc:
            samples = [Sample("unknown", {"text": f"I cannot answer this: {exc}."})] * n
        except LlmPlannerError as exc:  # the offline components have no answer
            samples = [Sample("unknown", {"text": f"I do not know how to answer this ({exc})."})] * n
        return kind, samples

    # -- world model (LLM-MCTS §2.2)
    def _world_model(self, prompt: str, n: int, seed: int) -> list[Sample]:
        world, obj_type = world_model_question(prompt)
        answer = object_positions(self.backend, world, obj_type, m=n, seed=seed)
        samples = [Sample("world_model", {"object": name_to_text(obj_type), "positions": [
            ["inside" if rel == INSIDE else "on", name_to_text(place)] for rel, place in sample]})
            for sample in answer.samples]
        while len(samples) < n:  # common sense had no place for it
            samples.append(Sample("world_model", {"object": name_to_text(obj_type), "positions": []}))
        return samples

    # -- heuristic policy (LLM-MCTS §2.3) and SayCanPay's Say
    def _policy(self, prompt: str, n: int, seed: int) -> list[Sample]:
        plan = plan_question(prompt)
        if plan is not None:  # SayCanPay's offline Say: asked from o_0, as the paper decoder asks the offline backend
            world, goal, first, planned = plan
            query = PolicyQuery(world, goal, first, planned, (), None, (), from_initial=True)
            observation, done = imagined_observation(world, first, planned), DONE_TASK  # where the plan leads
        else:
            world, goal, observation, history = policy_question(prompt)
            query = PolicyQuery(world, goal, observation, history, (), None, remembered_views(world, history))
            done = "done"
        answer = next_actions(self.backend, query, m=n, seed=seed)
        situation = _situation(observation)
        samples = [Sample("policy", {"goal": query.instruction, "next_actions": [t], "situation": situation})
                   for t in answer.texts]
        samples += [Sample("policy", {"goal": query.instruction, "next_actions": [done], "situation": situation})
                    for _ in range(answer.done)]
        return samples[:n] or [Sample("unknown", {"text": "I am not sure what the robot should do next."})] * n

    # -- goal translation (LLM-MCTS §2.2 "Goal")
    def _translate(self, prompt: str, n: int, seed: int) -> list[Sample]:
        world, directive = translate_question(prompt)
        try:
            items = translate(self.backend, world, directive).items
        except GoalError as exc:
            return [Sample("translate", {"directive": directive, "goal": [], "problem": str(exc)})] * n
        goal = [[rel.upper(), obj, dest, count] for rel, obj, dest, count in items]
        return [Sample("translate", {"directive": directive, "goal": goal, "problem": ""})] * n

    # -- a number at random (what a sampling model varies and a greedy one repeats)
    def _random(self, prompt: str, n: int, seed: int) -> list[Sample]:
        match = _RANDOM.search(prompt)
        assert match is not None
        rng = _random.Random(seed)
        low, high = int(match.group("low")), int(match.group("high"))
        return [Sample("random", {"number": rng.randint(min(low, high), max(low, high))}) for _ in range(n)]

    def _unknown(self, prompt: str, n: int, seed: int) -> list[Sample]:
        return [Sample("unknown", {"text": "I am not sure what you are asking. Could you rephrase the question?"})] * n


def _situation(observation: Observation) -> str:
    """A sentence about the robot's situation (what a thinking model would note first)."""
    where = f"The robot is in the {name_to_text(observation.room)}"
    if observation.near:
        where += f", close to the {name_to_text(observation.near)}"
    where += f", holding the {name_to_text(observation.holding)}." if observation.holding else ", with an empty hand."
    seen = sorted(name_to_text(o) for _r, o, _f in observation.relations)
    return where + (f" It sees the {', the '.join(seen[:4])}." if seen else " It sees no object it needs yet.")
