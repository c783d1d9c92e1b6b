"""The closed loop that runs a G-TAMP planner on a robot, free of ROS (the executor node's core).

``world`` is anything with ``observe() -> GState``, ``execute(ConcreteAction) -> (ok, reason)``
and ``is_goal() -> bool``: :class:`llm_planner.gtamp.sim.GTampSim` in tests, the robot behind
``/robot/skill`` and ``/perception/state`` in the executor node. A failed step is recorded with
the newly observed state, which drops the planner's plan: the next decision replans from there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

from llm_planner.gtamp.domain import ConcreteAction, GState
from llm_planner.planners.stalm import GTampPlanner, GTampTask


class GTampWorld(Protocol):
    def observe(self) -> GState: ...

    def execute(self, action: ConcreteAction) -> tuple[bool, str]: ...

    def is_goal(self) -> bool: ...


@dataclass
class GTampRun:
    """What happened: success, a message, the task actions tried and each step's outcome."""

    success: bool = False
    message: str = ""
    plan: list[str] = field(default_factory=list)
    executed: list[str] = field(default_factory=list)
    failures: int = 0


StepCallback = Callable[[int, str, bool, str], None]


def run_gtamp(planner: GTampPlanner, task: GTampTask, world: GTampWorld, max_steps: int,
              on_step: StepCallback | None = None) -> GTampRun:
    """Plan on the observed state, execute step by step, replan after failures, until the goal holds,
    the planner gives up or ``max_steps`` steps were executed."""
    run = GTampRun()
    planner.start(task, world.observe())
    while len(run.executed) < max_steps:
        if world.is_goal():
            break
        decision = planner.decide(world.observe())
        if decision.action is None:
            run.message = f"the planner stopped: {decision.message}"
            return run
        ok, reason = world.execute(decision.action)
        planner.record(decision.action, ok, reason, world.observe())
        text = str(decision.action.action)
        run.plan.append(text)
        run.executed.append(f"{text} -> {'ok' if ok else 'failed: ' + reason}")
        run.failures += not ok
        if on_step is not None:
            on_step(len(run.executed), text, ok, reason)
    run.success = world.is_goal()
    steps = f"{len(run.executed)} step(s), {run.failures} failed and replanned"
    run.message = f"goal reached in {steps}" if run.success else f"step limit reached ({steps}) before the goal held"
    return run
