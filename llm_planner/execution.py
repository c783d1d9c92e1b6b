"""The closed loop that runs a planner on a world, step by step (no ROS here).

The executor node runs it against the robot (skill service + perception topic); benchmarks run it
against the symbolic model or the PyBullet world directly. One loop, so a planner behaves the same
everywhere: ask for the next action, do it, take the observation after it, let the planner update
its belief, stop when the goal holds, the planner gives up, the step limit or the deadline is hit.

Success is judged by the world (like VirtualHome's own goal check in the LLM-MCTS seed), never by
the planner's belief.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

from llm_planner.planners.base import Planner, PlannerStats, Task
from llm_planner.world.symbolic import Action, Goal, Household, Observation, State


@dataclass(frozen=True)
class SkillOutcome:
    success: bool
    reason: str = ""


class World(Protocol):
    """What the loop needs from a world: do an action, observe, and judge the goal."""

    def execute(self, action: Action) -> SkillOutcome: ...

    def observe(self) -> Observation: ...

    def full_state(self) -> State: ...

    def goal_reached(self, goal: Goal) -> bool: ...


@dataclass(frozen=True)
class StepRecord:
    step: int
    action: Action
    success: bool
    reason: str
    observation: Observation

    def describe(self) -> str:
        outcome = "ok" if self.success else f"failed: {self.reason}"
        return f"{self.action} -> {outcome}; observed: {describe_observation(self.observation)}"


@dataclass
class EpisodeResult:
    success: bool
    message: str
    steps: list[StepRecord] = field(default_factory=list)
    stats: PlannerStats = field(default_factory=PlannerStats)

    @property
    def plan(self) -> list[str]:
        return [str(s.action) for s in self.steps]


StepCallback = Callable[[StepRecord], None]


def run_episode(planner: Planner, task: Task, world: World, *, on_step: StepCallback | None = None,
                deadline: float | None = None) -> EpisodeResult:
    """Run ``planner`` on ``world`` until the goal holds, it gives up, or the limits are reached."""
    steps: list[StepRecord] = []
    observation = world.observe()
    if world.goal_reached(task.goal):
        return EpisodeResult(True, "the goal already holds; nothing to do", steps, planner.stats)
    full = world.full_state() if planner.needs_full_state else None
    planner.start(task, observation, full)
    for step in range(1, task.max_steps + 1):
        if deadline is not None and time.monotonic() > deadline:
            return EpisodeResult(False, f"time limit reached after {step - 1} steps", steps, planner.stats)
        decision = planner.decide(observation, world.full_state() if planner.needs_full_state else None)
        if decision.action is None:
            return EpisodeResult(False, decision.message or "the planner gave up", steps, planner.stats)
        outcome = world.execute(decision.action)
        observation = world.observe()
        record = StepRecord(step, decision.action, outcome.success, outcome.reason, observation)
        steps.append(record)
        if on_step:
            on_step(record)
        planner.record(decision.action, outcome.success, outcome.reason, observation)
        if world.goal_reached(task.goal):
            return EpisodeResult(True, f"goal reached in {step} steps", steps, planner.stats)
    return EpisodeResult(False, f"goal not reached within {task.max_steps} steps", steps, planner.stats)


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


def describe_observation(observation: Observation, limit: int = 12) -> str:
    """A short human-readable summary of an observation (for status messages and the demo)."""
    parts = [f"in {observation.room}"]
    if observation.near:
        parts.append(f"near {observation.near}")
    parts.append(f"holding {observation.holding}" if observation.holding else "hand empty")
    if observation.open_containers:
        parts.append("open: " + ", ".join(sorted(observation.open_containers)))
    relations = sorted(observation.relations, key=lambda r: (r[2], r[1]))
    shown = [f"{o} {rel} {f}" for rel, o, f in relations[:limit]]
    if len(relations) > limit:
        shown.append(f"... {len(relations) - limit} more")
    if shown:
        parts.append("sees " + ", ".join(shown))
    return "; ".join(parts)
