"""The classical strategy: Fast Downward on the full state, executed in the closed loop."""
from __future__ import annotations

from dataclasses import replace

import pytest

from llm_planner.domains.household.world.episode import SymbolicWorld, Task
from llm_planner.adapters.household import HouseholdDomain
from llm_planner.execution import run_episode
from llm_planner.planners.base import create
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Action, GoalItem, Household, state_goal


def _household():
    return Household(load_scene("apartment_seen"))


def test_classical_reaches_a_goal_in_the_symbolic_world():
    household = _household()
    state = household.sample_initial_state(0)
    goal = (GoalItem("inside", "apple", "fridge", 2),)
    world = SymbolicWorld(household, state)
    result = run_episode(HouseholdDomain, create("classical"), Task("put two apples in the fridge", goal, household),
                         world)
    assert result.success, result.message
    assert household.count_satisfied(world.state, goal[0]) >= 2
    assert all(step.success for step in result.steps)


class _FlakyWorld(SymbolicWorld):
    """Fails the first grab once, as a real gripper might; the planner must replan and still succeed."""

    def __init__(self, household, state):
        super().__init__(household, state)
        self.failed_once = False

    def execute(self, action: Action):
        if action.verb == "grab" and not self.failed_once:
            self.failed_once = True
            from llm_planner.execution import SkillOutcome

            return SkillOutcome(False, "the object slipped")
        return super().execute(action)


def test_classical_replans_after_a_failed_step():
    household = _household()
    goal = (GoalItem("on", "book", "coffee_table", 1),)
    world = _FlakyWorld(household, household.sample_initial_state(1))
    result = run_episode(HouseholdDomain, create("classical"), Task("book to coffee table", goal, household), world)
    assert world.failed_once and result.success, result.message
    assert any(not s.success for s in result.steps)


def test_goal_already_holding_needs_no_step():
    household = _household()
    state = household.sample_initial_state(0)
    obj = household.objects[0]
    where = household.location(state, obj)
    goal = (GoalItem(household.relation(where), household.object_type[obj], where, 1),)
    result = run_episode(HouseholdDomain, create("classical"), Task("noop", goal, household),
                         SymbolicWorld(household, state))
    assert result.success and not result.steps


def _run_to_goal(household, state, directive, goal):
    world = SymbolicWorld(household, state)
    result = run_episode(HouseholdDomain, create("classical"), Task(directive, goal, household), world)
    return result, world


@pytest.mark.parametrize("directive, goal, start", [
    ("close the fridge", (state_goal("closed", "fridge"),), {"opened": frozenset({"fridge"})}),
    ("turn on the tv", (state_goal("on", "tv"),), {"switched_on": frozenset()}),
    ("turn on the tv and put the remote on the sofa",
     (state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1)), {"switched_on": frozenset()}),
    ("put two plates in the dishwasher and close it",
     (GoalItem("inside", "plate", "dishwasher", 2), state_goal("closed", "dishwasher")), {}),
])
def test_classical_reaches_state_and_mixed_goals(directive, goal, start):
    household = _household()
    state = replace(household.sample_initial_state(4), **start)
    assert not household.satisfied(state, goal)
    result, world = _run_to_goal(household, state, directive, goal)
    assert result.success, result.message
    assert household.satisfied(world.state, goal) and all(step.success for step in result.steps)
    switched = {a.args[0] for a in (s.action for s in result.steps) if a.verb.startswith("switch")}
    assert switched <= {g.obj_type for g in goal if g.is_state}  # nothing else is switched


def test_a_state_goal_already_true_needs_no_step():
    household = _household()
    state = replace(household.sample_initial_state(4), switched_on=frozenset({"tv"}))
    result, _ = _run_to_goal(household, state, "turn on the tv and keep the fridge closed",
                             (state_goal("on", "tv"), state_goal("closed", "fridge")))
    assert result.success and not result.steps


class _SeenOnlyWorld(SymbolicWorld):
    """Judges the goal on what the robot has seen, as the executor does on a robot (SeenWorld)."""

    def __init__(self, household, state):
        from llm_planner.domains.household.world.seen import SeenWorld

        super().__init__(household, state)
        self.seen = SeenWorld(household)
        self.seen.update(household.observe(state))

    def execute(self, action: Action):
        outcome = super().execute(action)
        self.seen.update(self.household.observe(self.state))
        return outcome

    def goal_reached(self, goal) -> bool:
        return self.seen.goal_reached(goal)


def test_a_goal_that_holds_out_of_sight_is_looked_at_before_it_counts():
    household = _household()
    state = replace(household.sample_initial_state(0), room="kitchen", switched_on=frozenset({"tv"}))
    goal = (state_goal("on", "tv"),)
    world = _SeenOnlyWorld(household, state)
    result = run_episode(HouseholdDomain, create("classical"), Task("turn on the tv", goal, household), world)
    assert result.success, result.message
    assert [str(step.action) for step in result.steps] == ["walk(living_room)"]  # a look, no switch
