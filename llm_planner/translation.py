"""Directive -> grounded goal for the planner node: the LLM layer's translation, behind the
:class:`llm_planner.service.Translator` signature. The backend is built on first use (the
embedding model loads once per process)."""
from __future__ import annotations

import threading

from llm_planner.service import Translation, Translator
from llm_planner.world.symbolic import Household


def make_translator(household: Household, backend_name: str) -> Translator:
    """A translator using the configured LLM backend (``offline`` or ``openai``, config/llm.yaml)."""
    lock = threading.Lock()  # one backend per process; its embedding caches are not shared across threads
    state: dict = {}

    def translate(directive: str) -> Translation:
        from llm_planner.llm.translate import translate_directive

        with lock:
            if "backend" not in state:
                from llm_planner.llm import make_backend

                state["backend"] = make_backend(backend=backend_name)
            result = translate_directive(directive, household, state["backend"])
        return Translation(goal=result.goal, message=result.message, llm_requests=result.info.requests)

    return translate
