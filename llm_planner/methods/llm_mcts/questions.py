"""LLM-MCTS's questions to a language model (seed 000, §2.2 and §2.3, App. F listings 1-3), the
household's ``object_positions``, ``next_actions`` and ``translate``
(:mod:`llm_planner.domains.household.language.questions`), registered with the LLM layer's question
registry (:mod:`llm_planner.llm.questions`) at import:

=========  ==========================================================================================
backend    how it answers
=========  ==========================================================================================
offline    :mod:`.offline_answers`: the commonsense file, the retrieval policy over D, the directive
           reader (no language model)
openai     :mod:`.openai_answers`: the household's prompts, sampling and answer budget of the
           ``world_model``, ``policy`` and ``translate`` sections of ``config/llm.yaml``
=========  ==========================================================================================

    positions = object_positions(backend, world, "apple", m=5)    # domains/household/language/questions.py

``backend.prepare()`` loads the expert data set D (and, offline, the retrieval policy's expert steps).
"""
from __future__ import annotations

from typing import Any

from llm_planner.domains.household.language.model_resources import has_expert
from llm_planner.domains.household.language.questions import NEXT_ACTIONS, OBJECT_POSITIONS, TRANSLATE
from llm_planner.llm.questions import QuestionKind, register
from llm_planner.methods.llm_mcts import offline_answers, openai_answers


def _load_expert(backend: Any) -> None:
    has_expert(backend.resources)


#: what a backend loads before its first question (``LanguageModel.prepare``)
PREPARERS = {"offline": offline_answers.prepare, "openai": _load_expert}

POSITIONS = register(QuestionKind(
    OBJECT_POSITIONS, {"offline": offline_answers.object_positions, "openai": openai_answers.object_positions},
    source="LLM-MCTS §2.2, App. F listing 2 (seed 000)", preparers=PREPARERS))
ACTIONS = register(QuestionKind(
    NEXT_ACTIONS, {"offline": offline_answers.next_actions, "openai": openai_answers.next_actions},
    source="LLM-MCTS §2.3, App. F listing 1 (seed 000)", preparers=PREPARERS))
GOAL = register(QuestionKind(
    TRANSLATE, {"offline": offline_answers.translate, "openai": openai_answers.translate},
    source="LLM-MCTS §2.2 \"Goal\", App. F listing 3 (seed 000)", preparers=PREPARERS))
