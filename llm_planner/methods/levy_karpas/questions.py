"""Levy & Karpas' question to a language model (seed 001, Phase I): ``nl2pddl``, a directive
(optionally with the state) as a goal and a plan template, asked by the openai channels
(:mod:`.openai_channels`, prompt ``INSTRUCTIONS``).

Registered with the LLM layer's question registry (:mod:`llm_planner.llm.questions`) at import:

=========  ==========================================================================================
backend    how it answers a :class:`~.channels.Phase1Question` (``backend.answer("nl2pddl", question)``)
=========  ==========================================================================================
offline    the offline channels (:mod:`.offline_channels`: rules + the trained clause classifier)
openai     the model's channels (:mod:`.openai_channels`: K-shot prompt, n samples, ranked answers)
=========  ==========================================================================================

The channels of a scene are built once per backend and scene (the classifier trained, the K-shot
examples embedded) and kept while the backend lives.
"""
from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from llm_planner.llm.answers import object_schema
from llm_planner.llm.questions import QuestionKind, register
from llm_planner.methods.levy_karpas import offline_channels, openai_channels
from llm_planner.methods.levy_karpas.channels import KIND

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
    return _predict(backend, question, offline_channels.make_channels)


def openai_phase1(backend: Any, question: Any, n: int | None = None, seed: int | None = None) -> Any:
    """Phase I by the model (a :class:`~.channels.ChannelOutput`)."""
    return _predict(backend, question, openai_channels.make_channels)


QUESTION = register(QuestionKind(
    KIND, {"offline": offline_phase1, "openai": openai_phase1},
    source="Levy & Karpas Phase I (seed 001)",
    schema=("goal_and_template", object_schema({"goal": {"type": "string"}, "template": {"type": "string"}}))))
