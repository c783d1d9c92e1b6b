"""Expert trajectories of D replay on the PyBullet robot ("for a sample, in PyBullet")."""
from __future__ import annotations

import dataclasses

import pytest

from llm_planner.domains.household.sim.replay import replay_in_pybullet
from llm_planner.domains.household.world.expert import dataset_tasks, solve_task
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Action, Household


@pytest.mark.parametrize("apartment", ["apartment_seen", "apartment_unseen"])
def test_sample_of_expert_trajectories_replays_on_the_robot(apartment):
    scene = load_scene(apartment)
    household = Household(scene)
    trajectories = [solve_task(household, task) for task in dataset_tasks(apartment, 8, seed=3, suites=("simple", "comp"))]
    outcomes = replay_in_pybullet(scene, trajectories)
    assert [o.reason for o in outcomes if not o.success] == []
    assert len(outcomes) == 8


def test_a_corrupted_trajectory_is_caught():
    scene = load_scene("apartment_seen")
    household = Household(scene)
    good = solve_task(household, dataset_tasks("apartment_seen", 1, seed=5, suites=("simple",))[0])
    bad = dataclasses.replace(good, actions=good.actions[:-1] + (Action("walk", ("bathroom",)),))
    outcome = replay_in_pybullet(scene, [bad])[0]
    assert not outcome.success and "differs" in outcome.reason
