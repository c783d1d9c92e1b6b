"""The ``offline`` backend's answers to the household's questions
(:mod:`llm_planner.domains.household.language.questions`), without a generative model,
deterministically for a seed, from what a language model would be told and nothing else:

================  ===========================================================================
question          how it is answered
================  ===========================================================================
object_positions  M sampled answers from the curated commonsense file (domains/household/world/data/commonsense.yaml),
                  its general place names matched to the scene's furniture by Sentence-BERT;
                  each answer lists one to three places drawn by plausibility.
next_actions      the retrieval policy over the expert data set D (household language): top similar
                  instructions, nearest matching expert situations, adapted to the current
                  objects; M samples drawn among the candidate places where one must search.
translate         the directive reader (``llm_planner.reading.read_directive``).
================  ===========================================================================

SayCanPay's ``candidate_actions`` grounds :func:`propose`'s proposals
(:mod:`llm_planner.methods.saycanpay.questions`).

It never reads a scene's ``places`` distributions or a placement: it sees rooms, furniture and
object names (WorldInfo), the directive, the robot's observations and actions, and D. It is
imperfect where its heuristics are: common sense that differs from a home, a goal phrased beyond
the parser's grammar, a situation D never shows.
"""
from __future__ import annotations

import random

from llm_planner.domains.household.language.commonsense import scene_knowledge
from llm_planner.domains.household.language.model_resources import has_expert
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.questions import (
    ActionSamples,
    ActionsQuestion,
    DirectiveQuestion,
    GoalTuples,
    PositionSamples,
    PositionsQuestion,
)
from llm_planner.domains.household.language.retrieval_policy import retrieval_policy
from llm_planner.domains.household.world.symbolic import INSIDE, Goal
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import GoalError, LLMError
from llm_planner.llm.base import LanguageModel
from llm_planner.reading import read_directive


def prepare(backend: LanguageModel) -> None:
    """D and the retrieval policy's abstracted expert steps."""
    if has_expert(backend.resources):
        retrieval_policy(backend.resources)


# ---------------------------------------------------------------- world model
def object_positions(backend: LanguageModel, question: PositionsQuestion, m: int | None = None,
                     seed: int | None = None) -> PositionSamples:
    world, obj_type = question.world, question.obj_type
    opts = backend.config.section("world_model")
    m = int(m or opts["samples"])
    seed = int(opts["seed"] if seed is None else seed)
    with backend.counting():
        weights = scene_knowledge(backend.resources, world).place_weights(obj_type)
        rng = random.Random(f"positions|{seed}|{obj_type}")
        samples, raw = [], []
        for _ in range(m):
            answer = _draw_places(weights, rng)
            samples.append(tuple((world.relation(p), p) for p in answer))
            raw.append(", ".join(f"{'Inside' if world.relation(p) == INSIDE else 'On'} {name_to_text(p)}"
                                 for p in answer) or "I do not know")
    return PositionSamples(obj_type, tuple(s for s in samples if s), tuple(raw), backend.answer_info())


# --------------------------------------------------------------------- policy
def _goal(backend: LanguageModel, query: PolicyQuery) -> Goal:
    if query.goal:
        return query.goal
    try:
        return read_directive(query.instruction, query.world, backend.resources)
    except GoalError as exc:
        raise LLMError(f"offline policy: cannot read the goal of '{query.instruction}': {exc}") from None


def next_actions(backend: LanguageModel, question: ActionsQuestion, m: int | None = None,
                 seed: int | None = None) -> ActionSamples:
    opts = backend.config.section("policy")
    m = int(m or opts["samples"])
    seed = int(opts["seed"] if seed is None else seed)
    with backend.counting():
        texts, done = propose(backend, question.query, m, seed)
    return ActionSamples(tuple(texts), done, tuple(texts) + ("done",) * done, backend.answer_info())


def propose(backend: LanguageModel, query: PolicyQuery, m: int, seed: int) -> tuple[list[str], int]:
    """M next-action texts of the retrieval policy and how many of them say the task is done."""
    return retrieval_policy(backend.resources).propose(query, _goal(backend, query),
                                                       scene_knowledge(backend.resources, query.world), m, seed)


# ------------------------------------------------------------------ translate
def translate(backend: LanguageModel, question: DirectiveQuestion, n: int | None = None,
              seed: int | None = None) -> GoalTuples:
    with backend.counting():
        goal = read_directive(question.directive, question.world, backend.resources)
    tuples = tuple((i.rel, i.obj_type, i.destination, i.count) for i in goal)
    raw = "-".join(f"({r.upper()}, {o}, {d}, {c})" for r, o, d, c in tuples)
    return GoalTuples(tuples, raw, backend.answer_info())


def _draw_places(weights: dict[str, float], rng: random.Random) -> list[str]:
    """One answer: one to three places, drawn without replacement in proportion to plausibility."""
    if not weights:
        return []
    places = list(weights)
    w = [weights[p] for p in places]
    size = min(len(places), rng.choices((1, 2, 3), (0.3, 0.4, 0.3))[0])
    out: list[str] = []
    for _ in range(size):
        pick = rng.choices(range(len(places)), w)[0]
        out.append(places.pop(pick))
        w.pop(pick)
    return out
