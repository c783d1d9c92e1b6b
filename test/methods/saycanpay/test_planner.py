"""The planner ``saycanpay`` in the closed loop, created as the executor creates it."""
from __future__ import annotations

from llm_planner.domains.household.world.episode import SymbolicWorld, Task
from llm_planner.adapters.household import HouseholdDomain
from llm_planner.execution import run_episode
from llm_planner.planners.base import create
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import GoalItem, Household


def test_missing_models_name_the_training_command(tmp_path):
    household = Household(load_scene("apartment_seen"))
    state = household.sample_initial_state(0)
    planner = create("saycanpay", config={"training": {"model_dir": str(tmp_path)}})
    assert planner.needs_full_state and "full initial state" in planner.describe()
    goal = (GoalItem("inside", "apple", "fridge", 1),)
    result = run_episode(HouseholdDomain, planner, Task("put one apple inside the fridge", goal, household),
                         SymbolicWorld(household, state))
    assert not result.success and "llm-planner train saycanpay" in result.message


def test_saycan_with_the_oracle_can_plans_offline_and_executes():
    household = Household(load_scene("apartment_seen"))
    state = household.sample_initial_state(3)
    goal = (GoalItem("on", "book", "sofa", 1),)
    for name in ("saycanpay", "saycanpay_oracle"):  # the paper's decoder (offline Say, no transition model), the oracle one
        planner = create(name, strategy="greedy_action", score="saycan", can="oracle")
        assert ("ended by 'done task'" in planner.describe()) == (name == "saycanpay")
        result = run_episode(HouseholdDomain, planner, Task("put one book on the sofa", goal, household),
                             SymbolicWorld(household, state))
        assert result.success, result.message
        assert all(step.success for step in result.steps) and len(result.steps) <= 6
