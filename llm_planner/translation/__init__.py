"""Directive -> grounded goal for the household domain (:class:`Translator`). The backend is built
on first use (the embedding model loads once per process).

Most planners take the goal translation of :mod:`.translate` (LLM-MCTS §2.2 "Goal": the directive
reader's goal, or a model's goal checked by the reader). The ``pddl`` planner
(Levy-Karpas) reads directives its own way: its goal channel also understands step-by-step and
mixed instructions ("go to the bedroom, pick up the book and bring it to the sofa"), so its goal
comes from that channel (the top-ranked goal; the planner then checks goal and plan template
together with Fast Downward).
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from llm_planner.domains.household.language.text import WorldInfo, goal_to_text
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.domains.percept import Translation
from llm_planner.errors import GoalError
from llm_planner.llm import make_backend
from llm_planner.reading import check_model_goal, compare
from llm_planner.reading import read_answer as reader_answer
from llm_planner.translation.translate import reader_goal, translate_directive

if TYPE_CHECKING:
    from llm_planner.clarification import Option, Question
    from llm_planner.llm.base import LanguageModel


#: Planners whose goal comes from their own channel rather than the LLM layer's translation.
OWN_GOAL_CHANNEL = ("pddl",)


Translator = Callable[[str, str], Translation]


def make_translator(household: Household, backend: str | Callable[[], Any]) -> Translator:
    """A translator on an LLM backend: a name (``offline`` or ``openai``, config/llm.yaml) or a
    function returning the process's LanguageModel (the one its planners use)."""
    lock = threading.Lock()  # translations one at a time: the backend's embedding caches are not thread-safe
    state: dict = {}

    def language_model() -> Any:
        if "backend" not in state:
            if callable(backend):
                state["backend"] = backend()
            else:
                state["backend"] = make_backend(backend=backend)
        return state["backend"]

    def translate(directive: str, planner: str = "") -> Translation:
        with lock:
            if planner in OWN_GOAL_CHANNEL:
                return _levy_karpas_goal(directive, household, language_model(), state)

            result = translate_directive(directive, household, language_model())
        return Translation(goal=result.goal, message=result.message, llm_requests=result.info.requests)

    return translate


def _levy_karpas_goal(directive: str, household: Household, backend: str | LanguageModel | None,
                      state: dict) -> Translation:
    """The Levy-Karpas goal channel's goal, held to the directive reader: what the reader refuses or
    asks is refused or asked here too; where it reads the directive the channel's goal must be the
    reader's (else refused, naming both: the planner plans for the channel's goal); elsewhere the
    channel's goal must be supported by the directive's words (``goal_support``, steps allowed)."""
    from llm_planner.methods.levy_karpas.system import LevyKarpasSystem  # noqa: PLC0415 - CLI start-up: the Levy & Karpas system (7 modules) only when it reads a directive

    if "nl2pddl" not in state:
        state["nl2pddl"] = LevyKarpasSystem.create(backend)
    system = state["nl2pddl"]
    world = WorldInfo.from_household(household)
    read = reader_goal(directive, world, system.backend.resources)  # NeedsAnswer, DirectiveRefused: as everywhere
    output = system.translate(household, directive)
    if not output.goals:
        raise GoalError(output.goal_error or "the directive states no goal the goal channel could read; /plan_task "
                        "needs to know what should end up where (e.g. '... and bring the book to the sofa'), "
                        "purely step-by-step instructions are not accepted yet")
    goal = output.goals[0]
    if read is None:
        check_model_goal(directive, goal, world, system.backend.resources, complete=False)
    elif compare(goal, read):
        raise GoalError(f"the Levy-Karpas goal channel reads '{directive}' as {goal_to_text(goal)}, the directive "
                        f"reader as {goal_to_text(read)} ({'; '.join(compare(goal, read))}); say it more plainly, "
                        "one object and one place per clause, or use another planner")
    return Translation(goal=goal, message=f"goal (Levy-Karpas goal channel): {goal_to_text(goal)}",
                       llm_requests=output.requests)


def read_answer(household: Household, backend: Any, question: Question, answer: str) -> Option | None:
    """The option of ``question`` an answer picks, read by the scene's directive reader:
    names, rooms, ordinals, counts, yes/no, and the reader's grounding ("the dining table"). None
    when the answer names no option."""

    return reader_answer(question, answer, WorldInfo.from_household(household), backend.resources)
