"""A household episode as the domain-neutral spine takes it (:mod:`llm_planner.spine`): the
:class:`Task`, the symbolic model as a world of the closed loop (:class:`SymbolicWorld`), the
household planners' type (:data:`HouseholdPlanner`) and the belief summary of a goal's objects.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from llm_planner.domains.household.world.symbolic import Action, Goal, Household, Observation, State
from llm_planner.domains.skill import SkillOutcome
from llm_planner.planners.base import BELIEF_MIN_PROBABILITY, BELIEF_PLACES, HELD, ObjectBelief, Planner


@dataclass(frozen=True)
class Task:
    """One episode: what to achieve, in which world model, within how many steps."""

    directive: str
    goal: Goal
    household: Household
    max_steps: int = 30


#: A planner of the household world.
HouseholdPlanner = Planner[Task, Observation, Action, State]


def goal_object_beliefs(household: Household, goal: Goal, top: Callable[[str, int], Sequence[tuple[str, float]]],
                        holding: str | None, k: int = BELIEF_PLACES) -> tuple[ObjectBelief, ...]:
    """The belief summary of every instance of the goal's object types: ``top(obj, k)`` gives an
    object's ``k`` most likely places (those below
    :data:`~llm_planner.planners.base.BELIEF_MIN_PROBABILITY` are left out); the held object is at
    :data:`~llm_planner.planners.base.HELD`."""
    types = {item.obj_type for item in goal}
    return tuple(ObjectBelief(o, ((HELD, 1.0),) if o == holding else
                              tuple((f, float(p)) for f, p in top(o, k) if p >= BELIEF_MIN_PROBABILITY))
                 for o in household.objects if household.object_type[o] in types)


def unrelated_move(task: Task, action: object) -> bool:
    """A grab of an object whose type ``task``'s goal does not name (the closed loop counts it)."""
    return (isinstance(action, Action) and action.verb == "grab"
            and task.household.object_type.get(action.args[0]) not in {item.obj_type for item in task.goal})


class SymbolicWorld:
    """The symbolic model as a world (benchmarks, tests): deterministic, instantaneous."""

    def __init__(self, household: Household, state: State) -> None:
        self.household = household
        self.state = state

    def execute(self, action: Action) -> SkillOutcome:
        reason = self.household.why_not(self.state, action)
        if reason is not None:
            return SkillOutcome(False, reason)
        self.state = self.household.transition(self.state, action)
        return SkillOutcome(True)

    def observe(self) -> Observation:
        return self.household.observe(self.state)

    def full_state(self) -> State:
        return self.state

    def goal_reached(self, goal: Goal) -> bool:
        return self.household.satisfied(self.state, goal)

    def loop_state(self) -> State:
        return self.state
