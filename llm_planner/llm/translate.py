"""Goal translation with grounding (LLM-MCTS seed 000, §2.2 "Goal"; App. F listing 3): a directive
becomes formal goal tuples (REL, object type, destination, count) that name only the scene's
admissible object types and furniture, validated with :meth:`Household.check_goal`. A goal a
model wrote is first checked against the directive (``llm_planner.llm.goal_support``): an atom the
directive does not ask for (a sub-goal copied from the prompt's example), a dropped one, a wrong
count or a swapped object is refused with a message naming it, before anything runs.

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

from dataclasses import dataclass
from typing import Any

from llm_planner.domains.household.world.symbolic import INSIDE, ON, Goal, GoalItem, Household, goal_to_lists
from llm_planner.errors import GoalError
from llm_planner.llm.base import AnswerInfo, LanguageModel
from llm_planner.llm.goal_support import check_model_goal
from llm_planner.llm.grounding import Grounder, kind_duplicates, same_kind
from llm_planner.llm.text import WorldInfo, goal_to_text


@dataclass(frozen=True)
class TranslationResult:
    """A grounded, validated goal; ``pddl`` is its PDDL goal (existential, one variable per object)."""

    goal: Goal
    pddl: str
    message: str
    info: AnswerInfo

    def to_json(self) -> dict[str, Any]:
        """The ``llm-planner translate --json`` object (DESIGN.md)."""
        return {"goal": goal_to_lists(self.goal), "pddl": self.pddl, "message": self.message}


def ground_goal(items: tuple[tuple[str, str, str, int], ...], world: WorldInfo, grounder: Grounder,
                min_score: float) -> Goal:
    """Map (rel, object words, destination words, count) onto scene names. An item named twice is an
    error: two tuples may mean two objects or one said twice, and a count is never guessed."""
    merged: dict[tuple[str, str, str], int] = {}
    types = list(world.object_types)
    furniture = list(world.furniture)
    for rel, obj, dest, count in items:
        obj_type = _ground(obj, types, grounder, min_score, "object")
        destination = _ground(dest, furniture, grounder, min_score, "container or surface", world)
        rel = rel.lower()
        if rel not in (INSIDE, ON):
            rel = world.relation(destination)
        if count < 1:
            raise GoalError(f"the count of {obj_type} must be at least 1, got {count}")
        key = (rel, obj_type, destination)
        if key in merged:
            raise GoalError(f"the goal names {obj_type} {rel} the {destination} twice; give it once with its count, "
                            f"e.g. ({rel.upper()}, {obj_type}, {destination}, {merged[key] + int(count)})")
        merged[key] = int(count)
    return tuple(GoalItem(r, o, d, c) for (r, o, d), c in merged.items())


def _ground(text: str, names: list[str], grounder: Grounder, min_score: float, what: str,
            world: WorldInfo | None = None) -> str:
    """A name of the scene for a model's words: never another kind of thing (issue 27: a "remote
    control" is not the game controller), never one of several of a kind without saying which."""
    if text in names:
        return text
    ranked = grounder.rank_names(text, names)
    closest = ", ".join(m.name for m in ranked[:3])
    if not ranked or ranked[0].score < min_score:
        raise GoalError(f"this apartment has no {what} '{text}'; the closest known names are {closest}")
    if what == "object" and not same_kind(text, ranked[0].name):
        raise GoalError(f"this apartment has no {what} '{text}'; the closest known names are {closest}, which are "
                        "other things: name one of them")
    several = kind_duplicates(text, world) if world is not None else []
    if several and world is not None:
        listed = " or ".join(f"{f} ({world.furniture_room.get(f, '?')})" for f in several)
        raise GoalError(f"which {text}: {listed}? say which one")
    return ranked[0].name


def goal_pddl_text(goal: Goal) -> str:
    """The PDDL goal of ``llm_planner.domains.household.world.pddl`` (existentially quantified, Levy-Karpas §3)."""
    from llm_planner.domains.household.world.pddl import goal_pddl

    return goal_pddl(goal)


def ask_before_guessing(directive: str, world: WorldInfo, resources: Any) -> None:
    """NeedsAnswer when the offline reader would ask about the directive (which table, how many,
    where in a room: issue 23): a model's goal for it is a guess, so the person is asked instead.
    A directive the reader cannot read at all (another language, a phrasing it lacks) is left to
    the model and the check of its goal."""
    from llm_planner.clarification import NeedsAnswer
    from llm_planner.llm.offline.directive_reading import directive_reader

    try:
        directive_reader(resources, world).parser.parse(directive)
    except NeedsAnswer:
        raise
    except GoalError:
        pass


def translate_directive(directive: str, household: Household, backend: LanguageModel) -> TranslationResult:
    """Translate, ground and validate one directive; GoalError says what is unknown or impossible."""
    directive = " ".join(str(directive).split())
    if not directive:
        raise GoalError("the directive is empty; say what to move where, e.g. 'put one apple inside the fridge'")
    world = WorldInfo.from_household(household)
    if getattr(backend, "name", "") != "offline":  # the offline backend's parser asks by itself
        ask_before_guessing(directive, world, backend.resources)
    answer = backend.translate(world, directive)
    goal = ground_goal(answer.items, world, backend.resources.grounder,
                       float(backend.config.get("grounding.min_name_score")))
    if answer.info.backend != "offline":  # the offline backend's answer is the goal parser's own reading
        check_model_goal(directive, goal, world, backend.resources)
    household.check_goal(goal)
    message = f"goal: {goal_to_text(goal)}"
    if answer.info.fallback:
        message += f" (answered by the {answer.info.backend} backend: {answer.info.fallback})"
    return TranslationResult(goal, goal_pddl_text(goal), message, answer.info)
