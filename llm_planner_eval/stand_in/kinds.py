"""The question kinds ``llm-planner serve`` answers, and how: its own registry, filled from this side.

A module registers a kind with :func:`register` at import: how the stand-in recognises the kind's
prompt, answers it from the prompt alone with the offline backend, writes a sample in each answer
style (:mod:`.styles`), and answers it wrongly when asked to (``--error-rate``,
:mod:`.wrong_answers`). Which modules register kinds is configuration: ``served_modules`` in
``config/methods.yaml`` (the stand-in's own kinds, then each method's), plus the modules named in
``$LLM_PLANNER_METHODS``; :func:`served_kinds` imports them (:func:`llm_planner.plugins.load_group`).

The core's question registry (:mod:`llm_planner.llm.questions`) knows none of this: a kind there
says how each backend answers it; a kind here says how the stand-in imitates a model answering it.
"""
from __future__ import annotations

import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from llm_planner.errors import LlmPlannerError
from llm_planner.plugins import load_group


@dataclass(frozen=True)
class Sample:
    """One sampled answer as data: the question kind and its content (the fields its writers read)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)


#: ``wrong(served_model, prompt, right_sample, rng)`` -> a wrong sample that still parses, or None
#: where that error does not fit the question
WrongAnswer = Callable[[Any, str, Sample, random.Random], "Sample | None"]


@dataclass(frozen=True)
class ServedKind:
    """How the stand-in handles one kind: it recognises the prompt, answers it from the prompt alone
    (``answer(served_model, prompt, n, seed)`` -> ``n`` samples), and writes a sample as plain text,
    chatty, markdown, the JSON of the question's schema and a thinking preamble."""

    name: str
    recognise: Callable[[str], bool]
    answer: Callable[[Any, str, int, int], list[Sample]]
    plain: Callable[[dict[str, Any]], str]
    chatty: Callable[[dict[str, Any], random.Random], str]
    markdown: Callable[[dict[str, Any], random.Random], str]
    structured: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    reasoning: Callable[[dict[str, Any]], str] | None = None
    #: recognisers are tried lowest first (a specific prompt before a general one)
    order: int = 100
    #: error kind -> how the stand-in answers this kind wrongly (``llm-planner serve --error-rate P``)
    wrong: Mapping[str, WrongAnswer] = field(default_factory=dict)


class AnswerErrors(Protocol):
    """What makes some of the stand-in's samples wrong (:class:`.wrong_answers.ErrorModel`)."""

    def apply(self, model: Any, kind: str, prompt: str, samples: Sequence[Sample]) -> list[Sample]:
        """The samples, some replaced by wrong ones."""
        ...


_KINDS: dict[str, ServedKind] = {}
_LOCK = threading.Lock()


def register(kind: ServedKind) -> ServedKind:
    """Register (or replace) the stand-in's handling of a question kind; returns it."""
    with _LOCK:
        _KINDS[kind.name] = kind
    return kind


def served_kinds() -> list[ServedKind]:
    """Every kind the stand-in answers, in the order their recognisers are tried."""
    load_group("served_modules")
    with _LOCK:
        return sorted(_KINDS.values(), key=lambda k: k.order)


def get(name: str) -> ServedKind:
    """The stand-in's handling of one kind; LlmPlannerError naming the kinds it answers."""
    kinds = {k.name: k for k in served_kinds()}
    if name not in kinds:
        raise LlmPlannerError(f"llm-planner serve answers no '{name}' question (it answers: {', '.join(kinds)}); "
                              "list the module that registers it under served_modules in config/methods.yaml")
    return kinds[name]
