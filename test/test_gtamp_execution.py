"""The executor's closed loop on G-TAMP (no ROS): STaLM plans on the observed state, a step that fails
in execution makes it replan from the newly observed state, and the goal is reached."""
from __future__ import annotations

import pytest

from llm_planner.gtamp.domain import ConcreteAction
from llm_planner.gtamp.problems import load_problem
from llm_planner.gtamp.sim import GTampSim
from llm_planner.gtamp_execution import run_gtamp
from llm_planner.planners.base import create
from llm_planner.planners.stalm import GTampTask

pytestmark = pytest.mark.slow


class FlakyRobot:
    """GTampSim whose first ``fail_op`` step fails without changing anything (a slipped grasp)."""

    def __init__(self, sim: GTampSim, fail_op: str) -> None:
        self.sim, self.fail_op, self.failed = sim, fail_op, False

    def observe(self):
        return self.sim.observe()

    def is_goal(self) -> bool:
        return self.sim.is_goal()

    def execute(self, action: ConcreteAction) -> tuple[bool, str]:
        if action.action.op == self.fail_op and not self.failed:
            self.failed = True
            return False, "injected: the gripper slipped"
        return self.sim.execute(action)


@pytest.mark.parametrize("fail_op", ["pick", "place"])
def test_a_failed_step_is_replanned_from_the_observed_state(fail_op):
    problem = load_problem("P2")
    sim = GTampSim(problem)
    planner = create("stalm", backend="offline", seed=0)
    steps: list[tuple[int, str, bool, str]] = []
    try:
        run = run_gtamp(planner, GTampTask(problem), FlakyRobot(sim, fail_op), max_steps=20,
                        on_step=lambda *s: steps.append(s))
    finally:
        sim.close()
        planner.ctx.model.world.close()
    assert run.success, run
    assert run.failures == 1 and any("failed: injected" in e for e in run.executed)
    assert planner.plans_asked >= 2                      # a new plan after the failure
    assert [s[0] for s in steps] == list(range(1, len(run.executed) + 1))
    assert run.plan[-1].startswith("place(salter, ")


def test_the_step_limit_stops_the_loop():
    problem = load_problem("P2")
    sim = GTampSim(problem)
    planner = create("stalm", backend="offline", seed=0)
    try:
        run = run_gtamp(planner, GTampTask(problem), sim, max_steps=2)
    finally:
        sim.close()
        planner.ctx.model.world.close()
    assert not run.success and len(run.executed) == 2 and "step limit" in run.message
