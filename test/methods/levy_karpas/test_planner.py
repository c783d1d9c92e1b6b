"""The planner ``pddl`` (Levy-Karpas) in the closed loop, created as the executor creates it."""
from __future__ import annotations

from llm_planner.domains.household.world.episode import SymbolicWorld, Task
from llm_planner.adapters.household import HouseholdDomain
from llm_planner.execution import run_episode
from llm_planner.planners.base import create
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import GoalItem, Household


def test_mixed_directive_is_planned_validated_and_executed():
    household = Household(load_scene("apartment_seen"))
    state = household.sample_initial_state(3)
    goal = (GoalItem("on", "book", "sofa", 1),)
    planner = create("pddl")
    assert planner.needs_full_state and "clairvoyant" in planner.describe()
    world = SymbolicWorld(household, state)
    task = Task("go to the bedroom through the kitchen and bring the book to the sofa", goal, household)
    result = run_episode(HouseholdDomain, planner, task, world)
    assert result.success, result.message
    assert result.plan[:1] == ["walk(kitchen)"] and "walk(bedroom)" in result.plan
    assert planner.stats.planning_time_s > 0


def test_unknown_actions_and_missing_state_end_the_episode_with_the_reason():
    household = Household(load_scene("apartment_seen"))
    state = household.sample_initial_state(0)
    goal = (GoalItem("inside", "apple", "fridge", 1),)
    planner = create("pddl")
    result = run_episode(HouseholdDomain, planner, Task("go to the kitchen, slice the tomato", goal, household),
                         SymbolicWorld(household, state))
    assert not result.success and not result.steps
    assert "'slice the tomato' names no action of the household domain" in result.message
    planner.start(Task("put an apple in the fridge", goal, household), household.observe(state), None)
    assert "needs the full state" in planner.decide(household.observe(state)).message


def test_a_failed_step_is_replanned_for_the_chosen_goal():
    from llm_planner.execution import SkillOutcome

    class Slippery(SymbolicWorld):
        failed = False

        def execute(self, action):
            if action.verb == "grab" and not self.failed:
                self.failed = True
                return SkillOutcome(False, "the book slipped")
            return super().execute(action)

    household = Household(load_scene("apartment_seen"))
    goal = (GoalItem("on", "book", "sofa", 1),)
    world = Slippery(household, household.sample_initial_state(3))
    result = run_episode(HouseholdDomain, create("pddl"), Task("put one book on the sofa", goal, household), world)
    assert world.failed and result.success, result.message
    assert [s.success for s in result.steps].count(False) == 1
