"""Goal translation with grounding (LLM-MCTS seed 000, §2.2 "Goal"; App. F listing 3): a directive
becomes formal goal tuples (REL, object type, destination, count) that name only the scene's
admissible object types and furniture, validated with :meth:`Household.check_goal`. Where the
directive reader (:func:`llm_planner.reading.read_directive`) reads a directive, its reading is the
goal, and a model is asked only for the directives it does not read: a model is a suggestion, never
below the reader. A goal a model wrote is grounded onto the scene's names and checked against the
directive (:func:`llm_planner.reading.ground_goal`, :func:`llm_planner.reading.check_model_goal`):
an atom the directive does not ask for (a sub-goal copied from the prompt's example), a dropped
one, a wrong count or a swapped object is refused with a message naming it, before anything runs.

The backend answers in its own words (the openai backend may write "kitchentable"); every name
is grounded onto the scene by Sentence-BERT cosine ("we precisely map the LLM-generated goal into
the admissible expressions"). A name below the grounding threshold, or an impossible goal, raises
GoalError naming the closest known names; a goal the directive does not support raises
UnsupportedGoal (a GoalError) naming the difference.

    >>> result = translate_directive("could you put two apples in the refrigerator", household, backend)
    >>> result.goal
    (GoalItem(rel='inside', obj_type='apple', destination='fridge', count=2),)
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from llm_planner.clarification import NeedsAnswer
from llm_planner.domains.household.language.model_resources import grounder_of
from llm_planner.domains.household.language.questions import translate
from llm_planner.domains.household.language.text import WorldInfo, goal_to_text
from llm_planner.domains.household.world.pddl import goal_pddl
from llm_planner.domains.household.world.symbolic import Goal, Household, goal_to_lists
from llm_planner.errors import DirectiveRefused, GoalError, UnusableAnswer
from llm_planner.llm.base import AnswerInfo, LanguageModel
from llm_planner.reading import check_model_goal, compare, ground_goal, read_directive

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class TranslationResult:
    """A grounded, validated goal; ``pddl`` is its PDDL goal (existential, one variable per object)."""

    goal: Goal
    pddl: str
    message: str
    info: AnswerInfo
    read_by_reader: bool = False  # a model backend's goal read by the directive reader (the model not trusted)
    disagreement: str = ""        # where the model, asked too, read the directive otherwise

    def to_json(self) -> dict[str, Any]:
        """The ``llm-planner translate --json`` object (DESIGN.md)."""
        return {"goal": goal_to_lists(self.goal), "pddl": self.pddl, "message": self.message}


def goal_pddl_text(goal: Goal) -> str:
    """The PDDL goal of ``llm_planner.domains.household.world.pddl`` (existentially quantified, Levy-Karpas §3)."""

    return goal_pddl(goal)


def reader_goal(directive: str, world: WorldInfo, resources: Any) -> Goal | None:
    """The directive reader's goal where it reads the directive (LLM-MCTS §2.2's goal, read with no
    model), None where it does not (another language, a phrasing it lacks: left to the model and
    the check of its goal). NeedsAnswer (which table, how many) and DirectiveRefused (a count that
    is no positive whole number, a negation) are raised as the reader raises them, so a model path
    asks and refuses exactly as the offline one."""
    try:
        return read_directive(directive, world, resources)
    except (NeedsAnswer, DirectiveRefused):
        raise
    except GoalError:
        return None


def translate_directive(directive: str, household: Household, backend: LanguageModel) -> TranslationResult:
    """Translate, ground and validate one directive; GoalError says what is unknown or impossible.
    With a model backend the directive reader's goal is the goal where it reads the directive; the
    model is asked only for the others (``translate.ask_model: always`` asks it for every directive
    and logs and counts where it disagrees with the reader, whose goal stands)."""
    directive = " ".join(str(directive).split())
    if not directive:
        raise GoalError("the directive is empty; say what to move where, e.g. 'put one apple inside the fridge'")
    world = WorldInfo.from_household(household)
    if getattr(backend, "name", "") != "offline":  # the offline backend's answer is the reader's own reading
        read = reader_goal(directive, world, backend.resources)
        if read is not None:
            return _reader_result(directive, read, household, backend)
    answer = translate(backend, world, directive)
    goal = ground_goal(answer.items, world, grounder_of(backend.resources),
                       float(backend.config.get("grounding.min_name_score")))
    if answer.info.backend != "offline":
        check_model_goal(directive, goal, world, backend.resources)
    household.check_goal(goal)
    message = f"goal: {goal_to_text(goal)}"
    if answer.info.fallback:
        message += f" (answered by the {answer.info.backend} backend: {answer.info.fallback})"
    return TranslationResult(goal, goal_pddl_text(goal), message, answer.info)


def _reader_result(directive: str, goal: Goal, household: Household, backend: LanguageModel) -> TranslationResult:
    """The reader's goal for a model backend; with ``translate.ask_model: always`` the model's goal
    too, compared, and a disagreement logged and kept in ``disagreement`` (never refused)."""
    household.check_goal(goal)
    info = AnswerInfo(backend="reader", model="")
    disagreement = ""
    if str(backend.config.get("translate.ask_model")) == "always":
        world = WorldInfo.from_household(household)
        try:
            answer = translate(backend, world, directive)
            info = answer.info
            model_goal = ground_goal(answer.items, world, grounder_of(backend.resources),
                                     float(backend.config.get("grounding.min_name_score")))
            disagreement = "; ".join(compare(model_goal, goal))
        except (UnusableAnswer, GoalError) as exc:  # a server that is down fails as llm_fallback says
            disagreement = f"the model gave no goal: {exc}"
        if disagreement:
            LOG.warning("translation of %r: the model disagrees with the directive reader, whose goal stands: %s",
                        directive, disagreement)
    note = "the model disagreed: " + disagreement if disagreement else (
        "the model agreed" if info.backend != "reader" else "the model was not asked")
    message = f"goal: {goal_to_text(goal)} (read by the directive reader; {note})"
    if info.fallback:
        message += f" (answered by the {info.backend} backend: {info.fallback})"
    return TranslationResult(goal, goal_pddl_text(goal), message, info, read_by_reader=True,
                             disagreement=disagreement)
