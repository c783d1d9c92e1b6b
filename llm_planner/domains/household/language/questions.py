"""The household's questions to a language model, asked of any backend through its question-kind
registry (:mod:`llm_planner.llm.questions`, ``backend.answer(kind, question, n, seed)``):

=================  =================================================================  ==============
question           what it answers                                                     used by
=================  =================================================================  ==============
object_positions   M sampled answers "where is a <type> usually?" (world-model prior)  LLM-MCTS §2.2
next_actions       M sampled next actions given goal, observation, history, K shots    LLM-MCTS §2.3
translate          directive -> formal goal tuples (REL, object, destination, count)   LLM-MCTS §2.2,
                                                                                       Levy-Karpas
candidate_actions  top-m next actions with probabilities ("Say")                        SayCanPay §5
=================  =================================================================  ==============

The functions of this module ask them; the answerers are registered by the methods that ask them
(``config/methods.yaml`` ``question_modules``): LLM-MCTS the first three
(:mod:`llm_planner.methods.llm_mcts.questions`), SayCanPay the last
(:mod:`llm_planner.methods.saycanpay.questions`).

    positions = object_positions(backend, world, "apple", m=5)
    actions = next_actions(backend, PolicyQuery(world, instruction, observation, history, admissible))
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.symbolic import Action
from llm_planner.llm.base import AnswerInfo

if TYPE_CHECKING:
    from llm_planner.llm.base import LanguageModel

#: the registered kinds (:mod:`llm_planner.llm.questions`)
OBJECT_POSITIONS, NEXT_ACTIONS, TRANSLATE, CANDIDATE_ACTIONS = (
    "object_positions", "next_actions", "translate", "candidate_actions")


@dataclass(frozen=True)
class PositionSamples:
    """M answers for one object type; each answer lists (relation, furniture) grounded to the scene."""

    obj_type: str
    samples: tuple[tuple[tuple[str, str], ...], ...]
    raw: tuple[str, ...]
    info: AnswerInfo


@dataclass(frozen=True)
class ActionSamples:
    """M sampled first actions alpha_i as free text (ground them with the policy), and how many
    of the M answers said the task is done. ``raw`` holds every answer as the model wrote it, so
    ``len(texts) + done`` of ``len(raw)`` samples read; ``mapped`` gives the cosine of each text that
    named no admissible action and was read as its most similar one (``policy.inadmissible:
    nearest``), those texts being among ``texts``."""

    texts: tuple[str, ...]
    done: int
    raw: tuple[str, ...]
    info: AnswerInfo
    mapped: tuple[float, ...] = ()


@dataclass(frozen=True)
class GoalTuples:
    """A directive as (relation, object, destination, count) tuples in the model's own words;
    ``llm_planner.translation.translate`` grounds them onto the scene's names and validates them."""

    items: tuple[tuple[str, str, str, int], ...]
    raw: str
    info: AnswerInfo


@dataclass(frozen=True)
class Candidates:
    """Top-m admissible actions with probabilities summing to at most 1, best first (SayCanPay Say)."""

    actions: tuple[tuple[Action, float], ...]
    info: AnswerInfo


@dataclass(frozen=True)
class PositionsQuestion:
    """An ``object_positions`` question: where is an object of ``obj_type`` in ``world``."""

    world: WorldInfo
    obj_type: str


@dataclass(frozen=True)
class ActionsQuestion:
    """A ``next_actions`` question: the policy query with ``k`` retrieved examples (None: ``policy.shots``)."""

    query: PolicyQuery
    k: int | None = None


@dataclass(frozen=True)
class DirectiveQuestion:
    """A ``translate`` question: the directive to read as a goal in ``world``."""

    world: WorldInfo
    directive: str


def object_positions(backend: LanguageModel, world: WorldInfo, obj_type: str, m: int | None = None,
                     seed: int | None = None) -> PositionSamples:
    """M sampled answers for the possible positions of ``obj_type`` (LLM-MCTS §2.2, App. F listing 2);
    ``m`` and ``seed`` default to the ``world_model`` section of config/llm.yaml."""
    answer: PositionSamples = backend.answer(OBJECT_POSITIONS, PositionsQuestion(world, obj_type), m, seed)
    return answer


def next_actions(backend: LanguageModel, query: PolicyQuery, m: int | None = None, k: int | None = None,
                 seed: int | None = None) -> ActionSamples:
    """M sampled next actions with K retrieved expert examples (LLM-MCTS §2.3, App. F listing 1);
    ``m``, ``k`` and ``seed`` default to the ``policy`` section of config/llm.yaml."""
    answer: ActionSamples = backend.answer(NEXT_ACTIONS, ActionsQuestion(query, k), m, seed)
    return answer


def translate(backend: LanguageModel, world: WorldInfo, directive: str) -> GoalTuples:
    """The directive as formal goal tuples (LLM-MCTS §2.2 "Goal", App. F listing 3)."""
    answer: GoalTuples = backend.answer(TRANSLATE, DirectiveQuestion(world, directive))
    return answer


def candidate_actions(backend: LanguageModel, query: PolicyQuery, m: int | None = None) -> Candidates:
    """Top-m admissible next actions with probabilities (SayCanPay §5, "Say"); ``m`` defaults to
    ``candidates.m`` of config/llm.yaml."""
    answer: Candidates = backend.answer(CANDIDATE_ACTIONS, query, m)
    return answer
