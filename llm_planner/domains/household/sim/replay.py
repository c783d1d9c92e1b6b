"""Replay expert trajectories (LLM-MCTS seed, Appendix B) on the PyBullet robot.

Each action of a recorded trajectory is executed by the robot's skills from the task's initial
placement (and what is switched on in that episode); after every action, perception (from geometry
only) must show exactly the partial observation the symbolic model recorded, and at the end the
goal must hold in the perceived full state. This is what tells that the data set D describes things
the simulated robot can really do.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from llm_planner.domains.household.sim.perception import perceive, perceive_full
from llm_planner.domains.household.sim.world import HouseholdSim
from llm_planner.domains.household.world.expert import Trajectory
from llm_planner.domains.household.world.scene import Scene
from llm_planner.domains.household.world.symbolic import Household


@dataclass(frozen=True)
class ReplayOutcome:
    task_id: str
    success: bool
    reason: str = ""


def replay_trajectory(sim: HouseholdSim, household: Household, trajectory: Trajectory) -> ReplayOutcome:
    """Run one trajectory on ``sim`` (reset to the task's placement and what is on); say where it
    diverged, if it did."""
    scene: Scene = household.scene
    task = trajectory.task
    sim.reset(scene.sample_placement(task.placement_seed), seed=task.placement_seed,
              switched_on=scene.sample_switched_on(task.placement_seed))
    if perceive(scene, sim.geometry()) != trajectory.observations[0]:
        return ReplayOutcome(task.task_id, False, "the initial observation differs from the recorded one")
    for step, (action, expected) in enumerate(zip(trajectory.actions, trajectory.observations[1:], strict=True), 1):
        result = sim.execute(action)
        if not result.success:
            return ReplayOutcome(task.task_id, False, f"step {step} {action} failed: {result.reason}")
        if perceive(scene, sim.geometry()) != expected:
            return ReplayOutcome(task.task_id, False, f"after step {step} {action} perception differs from the record")
    if not household.satisfied(perceive_full(scene, sim.geometry(), household), task.goal):
        return ReplayOutcome(task.task_id, False, "all steps done but the goal does not hold in the perceived state")
    return ReplayOutcome(task.task_id, True)


def replay_in_pybullet(scene: Scene, trajectories: Iterable[Trajectory]) -> list[ReplayOutcome]:
    """Replay trajectories of one scene in one PyBullet world (reset between them)."""
    household = Household(scene)
    trajectories = list(trajectories)
    if not trajectories:
        return []
    first = trajectories[0].task
    with HouseholdSim(scene, scene.sample_placement(first.placement_seed), seed=first.placement_seed) as sim:
        return [replay_trajectory(sim, household, t) for t in trajectories]
