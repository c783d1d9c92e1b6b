"""Question kinds: what a method asks a language model, registered by the method that asks it.

The language-model layer knows no method. A method registers each kind of question it asks with
:func:`register` (at import of its ``questions`` module): how each backend answers it
(``answerers``: backend name -> ``answerer(backend, question, n, seed)``; the ``offline`` one is
the method's LLM-free answer, the ``openai`` one builds the prompt, asks the model through
:meth:`OpenAIBackend.ask <llm_planner.llm.openai_backend.OpenAIBackend.ask>` and reads the
answer; ``preparers``: what a backend loads before the first question).

    backend.answer("task_plans", prompt, n=5, seed=0)   # any backend, FallbackBackend included

looks the kind up here (:meth:`LanguageModel.answer <llm_planner.llm.base.LanguageModel.answer>`).

Which modules register kinds is configuration, not code: ``question_modules`` in
``config/methods.yaml``, plus the modules named in ``$LLM_PLANNER_METHODS`` (a method outside the
package); :func:`load_registered` imports them (``llm_planner.plugins``).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from llm_planner.errors import LLMError
from llm_planner.plugins import load_group

#: ``answerer(backend, question, n, seed) -> answer``: one backend's answer to one question.
Answerer = Callable[[Any, Any, "int | None", "int | None"], Any]


@dataclass(frozen=True)
class QuestionKind:
    """One kind of question (see the module docstring)."""

    name: str
    answerers: Mapping[str, Answerer] = field(default_factory=dict)
    #: the paper section the question comes from, for messages and listings
    source: str = ""
    #: (name, JSON schema) of the answer the openai backend asks for as structured output, if any
    schema: tuple[str, Mapping[str, Any]] | None = None
    #: backend name -> ``preparer(backend)``: what the backend loads before its first question of the
    #: kind (:meth:`LanguageModel.prepare <llm_planner.llm.base.LanguageModel.prepare>`)
    preparers: Mapping[str, Callable[[Any], None]] = field(default_factory=dict)

    def answerer(self, backend: str) -> Answerer:
        """The answerer for a backend by name; LLMError naming the backends that can answer."""
        if backend not in self.answerers:
            raise LLMError(f"the {backend} backend cannot answer '{self.name}' questions "
                           f"({self.source or 'no source'}); "
                           f"backends that can: {', '.join(sorted(self.answerers)) or 'none'}")
        return self.answerers[backend]


_KINDS: dict[str, QuestionKind] = {}
_LOCK = threading.Lock()


def register(kind: QuestionKind) -> QuestionKind:
    """Register (or replace) a question kind; returns it."""
    with _LOCK:
        _KINDS[kind.name] = kind
    return kind


def get(name: str) -> QuestionKind:
    """A registered kind; LLMError naming the registered ones and how to register one."""
    kind = _KINDS.get(name)
    if kind is None:
        load_registered()
        kind = _KINDS.get(name)
    if kind is None:
        raise LLMError(f"no method registered the question kind '{name}' (registered: "
                       f"{', '.join(sorted(_KINDS)) or 'none'}); "
                       "import the method's questions module, list it under question_modules in config/methods.yaml "
                       "or name it in $LLM_PLANNER_METHODS")
    return kind


def registered() -> list[QuestionKind]:
    """Every registered kind, in the order of registration."""
    with _LOCK:
        return list(_KINDS.values())


def load_registered() -> None:
    """Import the modules that register question kinds (``config/methods.yaml`` and
    ``$LLM_PLANNER_METHODS``), once per process."""
    load_group("question_modules")
