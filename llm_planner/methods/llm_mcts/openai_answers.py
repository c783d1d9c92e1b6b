"""The ``openai`` backend's answers to the household's questions
(:mod:`llm_planner.domains.household.language.questions`): each builds the household's prompt
(:mod:`llm_planner.domains.household.language.prompts`), asks it through
:meth:`OpenAIBackend.ask <llm_planner.llm.openai_backend.OpenAIBackend.ask>` (the answer kinds
``world_model``, ``policy``, ``candidates`` and ``translate``: their sections of config/llm.yaml
give sampling and answer budget, and their schemas, ``llm_planner.llm.answers.SCHEMAS``, the
structured output) and reads the answer with the style-proof readers of ``llm_planner.llm.answers``.

An action is kept when it states an admissible action (verb and names, :meth:`Grounder.names_action`);
one that states none is read as its most similar admissible action above a cosine floor
(``policy.inadmissible: nearest``, LLM-MCTS §2.3) or left out (``drop``), and the answer says which
samples were read so (:class:`~llm_planner.domains.household.language.questions.ActionSamples`).
Answers whose names ground to nothing in the scene raise :class:`~llm_planner.errors.UnusableAnswer`,
so the backend asks again (``openai.parse_retries``).

A policy question asked ``from_initial`` (SayCanPay's offline planning, seed 004 §4) is asked with
the plan prompt (``domains/household/language/prompts/plan.txt``: goal, initial observation,
planned actions so far, next action or "done task"), not as a robot's current situation.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llm_planner.domains.household.language.model_resources import (
    grounder_of,
    policy_examples,
    translation_examples,
)
from llm_planner.domains.household.language.policy_query import PolicyQuery, goal_switches
from llm_planner.domains.household.language.prompts import (
    plan_prompt,
    policy_prompt,
    translate_prompt,
    world_model_prompt,
)
from llm_planner.domains.household.language.questions import (
    ActionSamples,
    ActionsQuestion,
    DirectiveQuestion,
    GoalTuples,
    PositionSamples,
    PositionsQuestion,
)
from llm_planner.domains.household.language.text import WorldInfo, action_to_text
from llm_planner.domains.household.world.symbolic import INSIDE, ON, STATE_RELATIONS, Action
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import UnusableAnswer
from llm_planner.llm.answers import Unparsable, first_action, looks_like_refusal, read_goal_tuples, read_positions
from llm_planner.llm.openai_http import preview

_INSIDE_WORDS = ("inside", "in", "into", "inside of", "within")


# ---------------------------------------------------------------- world model
def object_positions(backend: Any, question: PositionsQuestion, m: int | None = None,
                     seed: int | None = None) -> PositionSamples:
    world, obj_type = question.world, question.obj_type
    opts = backend.config.section("world_model")
    m = int(m or opts["samples"])
    prompt = world_model_prompt(world, obj_type)
    min_score = float(backend.config.get("grounding.min_name_score"))

    def parse(texts: list[str]) -> list[tuple[tuple[str, str], ...]]:
        samples = [parse_positions(backend, t, world, min_score) for t in texts]
        if not any(samples):
            raise UnusableAnswer(f"named no container or surface of the scene for '{obj_type}': "
                                 f"{preview(texts)}")
        return [s for s in samples if s]

    with backend.counting():
        samples, reply = backend.ask("world_model", prompt, m, backend.budget("world_model"), parse,
                                     {"seed": opts["seed"] if seed is None else seed})
    return PositionSamples(obj_type, tuple(samples), tuple(reply.texts),
                           backend.answer_info(reply.cached, reply.requests))


def parse_positions(backend: Any, text: str, world: WorldInfo, min_score: float) -> tuple[tuple[str, str], ...]:
    """``Inside fridge, On kitchen table.`` (or a list, JSON, prose) -> ((inside, fridge), (on,
    kitchen_table)), grounded. A phrase without a relation takes the relation of the furniture it
    grounds to; rooms and names that ground to nothing are left out."""
    out: list[tuple[str, str]] = []
    grounder = grounder_of(backend.resources)
    rooms = {name_to_text(r) for r in world.rooms}
    for rel_word, place in read_positions(text):
        if not place or place in rooms:
            continue
        wanted = world.containers if rel_word in _INSIDE_WORDS else \
            world.surfaces if rel_word.startswith("on") else world.furniture
        hit = (grounder.ground_name(place, wanted, min_score)
               or grounder.ground_name(place, world.furniture, min_score))
        if hit is None:
            continue
        entry = (world.relation(hit.name), hit.name)
        if entry not in out:
            out.append(entry)
    return tuple(out)


# --------------------------------------------------------------------- policy
def next_actions(backend: Any, question: ActionsQuestion, m: int | None = None,
                 seed: int | None = None) -> ActionSamples:
    opts = backend.config.section("policy")
    m = int(m or opts["samples"])
    k = int(opts["shots"] if question.k is None else question.k)
    with backend.counting():
        (texts, done, mapped), reply = policy_samples(backend, question.query, m, k, "policy",
                                                      opts["seed"] if seed is None else seed)
    return ActionSamples(tuple(texts), done, tuple(reply.texts), backend.answer_info(reply.cached, reply.requests),
                         tuple(mapped))


def policy_samples(backend: Any, query: PolicyQuery, n: int, k: int, section: str,
                   seed: int) -> tuple[tuple[list[str], int, list[float]], Any]:
    """``n`` sampled next actions of the policy prompt with ``k`` examples, asked as the answer kind
    ``section`` (``policy``, or SayCanPay's ``candidates``): (texts, how many said done, the cosine of
    each sample read as its nearest admissible action), and the backend's reply."""
    # from_initial: SayCanPay's offline plan (seed 004 §4-5): o_0 and the plan so far, "done task"
    examples = policy_examples(backend.resources, query, k)
    if query.from_initial:
        prompt = plan_prompt(query.world, query.instruction, query.observation, query.history, examples)
    else:
        prompt = policy_prompt(query.world, query.instruction, query.observation, query.history, examples,
                               goal_switches(query))
    admissible = list(query.admissible)

    floor = nearest_floor(backend)

    def parse(texts: list[str]) -> tuple[list[str], int, list[float]]:
        firsts = [first_action(t) for t in texts]
        done = sum(1 for f in firsts if f == "done")
        actions = [f for f in firsts if f and f != "done"]
        mapped: list[float] = []
        if not actions:
            if done:
                return [], done, mapped
            raise UnusableAnswer(f"gave no next action: {preview(texts)}")
        if admissible:
            actions, mapped = read_actions(backend, actions, query.world, admissible, floor)
            if not actions:
                raise UnusableAnswer(f"proposed actions that name no admissible action: "
                                     f"{preview([f for f in firsts if f])}")
        return actions, done, mapped

    params = backend.budget(section)
    if query.from_initial and backend.config.section(section).get("plan_stop"):
        params["stop"] = list(backend.config.section(section)["plan_stop"])  # the plan prompt's next block
    return backend.ask(section, prompt, n, params, parse, {"seed": seed})


def admissible_texts(backend: Any, texts: Sequence[str], world: WorldInfo, admissible: Sequence[Action]) -> list[str]:
    """Sampled actions as the policy compares them (§2.3, CosineSim to the admissible actions): a
    text whose most similar admissible action is one it names stays; one whose similarity prefers
    another becomes the sentence of an admissible action it names; one that names none is
    dropped (a sample never votes for an action it did not state)."""
    return read_actions(backend, texts, world, admissible, None)[0]


def read_actions(backend: Any, texts: Sequence[str], world: WorldInfo, admissible: Sequence[Action],
                 floor: float | None) -> tuple[list[str], list[float]]:
    """:func:`admissible_texts`, and with ``floor`` a text that names no admissible action
    becomes the sentence of its most similar admissible action when their cosine is at least the
    floor (LLM-MCTS §2.3 and its limitations: "the action will be translated to other admissible
    actions"; Huang et al. 2022 map each generated step to the nearest admissible one by
    Sentence-BERT cosine). Returns the texts kept, in sample order, and the cosine of each mapped
    sample (one entry per mapped sample, so the caller can count them and their similarity)."""
    grounder = grounder_of(backend.resources)
    min_name = float(backend.config.get("grounding.min_name_score"))
    min_action = float(backend.config.get("grounding.min_action_score"))
    unique = list(dict.fromkeys(texts))
    sims = grounder.action_similarities(unique, list(admissible))
    kept: dict[str, tuple[str, float | None] | None] = {}
    for text, row in zip(unique, sims, strict=True):
        best = admissible[int(row.argmax())]
        if float(row.max()) >= min_action and grounder.names_action(text, best, world, min_name):
            kept[text] = (text, None)
            continue
        named = next((a for a in admissible if grounder.names_action(text, a, world, min_name)), None)
        if named is not None:
            kept[text] = (action_to_text(named), None)
        elif floor is not None and float(row.max()) >= floor:
            kept[text] = (action_to_text(best), float(row.max()))
        else:
            kept[text] = None
    read = [k for k in (kept[t] for t in texts) if k]
    return [text for text, _ in read], [sim for _, sim in read if sim is not None]


def nearest_floor(backend: Any) -> float | None:
    """The cosine floor of ``policy.inadmissible: nearest``; None when such samples are dropped."""
    if str(backend.config.get("policy.inadmissible")) != "nearest":
        return None
    return float(backend.config.get("policy.inadmissible_floor"))


# ------------------------------------------------------------------ translate
def translate(backend: Any, question: DirectiveQuestion, n: int | None = None,
              seed: int | None = None) -> GoalTuples:
    world, directive = question.world, question.directive
    prompt = translate_prompt(world, directive, translation_examples(backend.resources, directive, world))

    def parse(texts: list[str]) -> list[tuple[str, str, str, int]]:
        return goal_items(texts[0] if texts else "")

    with backend.counting():
        items, reply = backend.ask("translate", prompt, 1, backend.budget("translate"), parse)
    return GoalTuples(tuple(items), reply.texts[0] if reply.texts else "",
                      backend.answer_info(reply.cached, reply.requests))


def goal_items(text: str) -> list[tuple[str, str, str, int]]:
    """The goal tuples of a translation answer (``answers.read_goal_tuples``); UnusableAnswer says why
    an answer states no whole goal (declined, unreadable, no tuple, a relation other than INSIDE/ON)."""
    try:
        items = read_goal_tuples(text)
    except Unparsable as exc:
        raise UnusableAnswer(f"gave an unreadable formal goal ({exc}): {preview([text])}") from None
    if not items:
        what = "declined" if looks_like_refusal(text) else "gave no formal goal tuple (REL, object, destination, count)"
        raise UnusableAnswer(f"{what}: {preview([text])}")
    others = sorted({rel for rel, _obj, dest, _n in items if rel not in (INSIDE, ON)
                     and not (not dest and rel in STATE_RELATIONS)})
    if others:
        raise UnusableAnswer(f"used relation(s) {', '.join(others)}; only INSIDE and ON exist (and the states "
                             f"{', '.join(STATE_RELATIONS)} of a thing, with no destination): {preview([text])}")
    return items
