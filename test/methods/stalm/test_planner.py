"""STaLM and the baselines as registered planners with the project's planner interface."""
from __future__ import annotations

from llm_planner.domains.gtamp.sim import GTampSim
from llm_planner.planners.base import available, create
from llm_planner.methods.stalm.planner import POLICIES, GTampTask, registry_name


def test_every_method_is_registered_without_clobbering_household_planners():
    names = available()
    for method in POLICIES:
        assert registry_name(method) in names
    assert registry_name("uct") == "gtamp_uct" and registry_name("stalm_no_uct") == "stalm_no_uct"


def test_closed_loop_with_a_failed_execution_replans_from_the_observed_state(p2, scripted):
    good = ("plan = [('pick', 'bottle3'), ('place', 'bottle3', 'on', 'counter1'), ('pick', 'bottle2'), "
            "('place', 'bottle2', 'on', 'counter1'), ('pick', 'salter'), ('place', 'salter', 'right_of', 'bottle1')]")
    planner = create("stalm", plan_source=scripted([[good]]), seed=0)
    sim = GTampSim(p2)
    try:
        planner.start(GTampTask(p2, time_budget_s=60), sim.observe())
        first = planner.decide(sim.observe())
        assert first.action is not None and len(planner.preview()) == 6
        planner.record(first.action, False, "gripper slipped", sim.observe())   # execution failed
        assert planner.preview() == [] and "gripper slipped" in planner.errors[-1]
        steps = 0
        while not sim.is_goal() and steps < 10:
            decision = planner.decide(sim.observe())
            assert decision.action is not None, decision.message
            ok, reason = sim.execute(decision.action)
            assert ok, reason
            planner.record(decision.action, ok, reason, sim.observe())
            steps += 1
        assert sim.is_goal() and planner.stats.llm_requests == 2 and planner.stats.planning_time_s > 0
    finally:
        sim.close()
        planner.ctx.model.world.close()


def test_spent_budget_makes_the_planner_give_up(p2, scripted):
    planner = create("gtamp_uct", seed=0)
    sim = GTampSim(p2)
    try:
        planner.start(GTampTask(p2, time_budget_s=0.0), sim.observe())
        decision = planner.decide(sim.observe())
        assert decision.action is None and "budget" in decision.message
    finally:
        sim.close()
        planner.ctx.model.world.close()


def test_unknown_clock_is_a_configuration_error():
    import pytest

    from llm_planner.errors import ConfigError
    with pytest.raises(ConfigError, match="sundial"):
        create("stalm", clock="sundial")
