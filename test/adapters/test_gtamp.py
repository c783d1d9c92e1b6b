"""The G-TAMP adapter: sensors -> perception -> the planner's state gives back the simulator's state,
the goal's JSON form round-trips, skill requests are checked, and the step text names things."""
from __future__ import annotations

import json

import pytest

from llm_planner.config import load_params_file
from llm_planner.errors import ConfigError
from llm_planner.adapters.gtamp import GTampDomain, GTampText
from llm_planner.domains.gtamp.perception import GeometryPerceiver
from llm_planner.domains.gtamp.sim import GTampSimulator
from llm_planner.domains.gtamp.codec import encode
from llm_planner.domains.gtamp.domain import TaskAction
from llm_planner.domains.gtamp.operators import GTampModel
from llm_planner.paths import config_dir

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def domain():
    return GTampDomain(load_params_file(config_dir() / "gtamp_nodes.yaml"))


@pytest.fixture(scope="module")
def robot(domain):
    sim, perceiver = GTampSimulator(domain.problem), GeometryPerceiver(domain.problem)
    yield sim, perceiver
    sim.close()
    perceiver.close()


def test_the_perceived_state_is_the_simulated_state_while_holding_an_object(domain, robot):
    sim, perceiver = robot
    model = GTampModel(domain.problem, seed=0)
    try:
        s0 = domain.problem.initial
        pick = next(c for c in (model.sample(s0, TaskAction.of("pick", "bottle3")) for _ in range(20)) if c.feasible)
    finally:
        model.world.close()
    assert sim.execute_skill("pick", [encode(pick)]) == (True, "")
    percepts = perceiver.perceive(sim.geometry())
    got, truth = domain.observation(percepts), sim.sim.observe()
    assert got.held == truth.held and got.doors_open == truth.doors_open
    assert got.grasp.pitch == pytest.approx(truth.grasp.pitch) and got.grasp.yaw == pytest.approx(truth.grasp.yaw)
    assert [(round(p.x, 6), p.region) if p else None for p in got.poses] == [
        (round(p.x, 6), p.region) if p else None for p in truth.poses]
    assert ("RobotHolding", "bottle3") in percepts["state"].facts()
    assert GTampText(domain.problem).summarize(got).startswith("holding bottle3; salter on ")


def test_skill_requests_are_checked_before_the_simulator_moves(robot):
    sim, _ = robot
    assert sim.execute_skill("pick", ["{oops"])[1].startswith("bad skill request: not JSON")
    assert "unknown G-TAMP skill 'fly'" in sim.execute_skill("fly", ["{}"])[1]
    assert "unknown or missing __type__" in sim.execute_skill("pick", ['{"__type__": "Popen"}'])[1]


def test_goal_lists_round_trip_and_unknown_names(domain):
    goal = domain.problem.goal
    assert domain.goal_from_lists(json.loads(json.dumps(domain.goal_lists(goal)))) == goal
    with pytest.raises(Exception, match="unknown object 'spoon'"):
        domain.goal_from_lists([["AtPosition", "spoon", "on", "table2"]])
    with pytest.raises(Exception, match="must be"):
        domain.goal_from_lists([["ON", "salter", "table2"]])
    assert domain.ground("put the salter on table 2", "stalm").message.startswith("goal: the directive read as")


def test_the_llm_backend_parameter_reaches_the_plan_source_of_the_llm_methods():
    domain = GTampDomain({**load_params_file(config_dir() / "gtamp_nodes.yaml"), "llm_backend": "openai"})
    stalm = domain.make_planner("stalm")
    assert stalm._plan_source.backend is domain.language_model() and domain.language_model().name == "openai"
    assert domain.make_planner(domain.resolve_planner("uct"))._plan_source is None  # no language model in plain UCT
    with pytest.raises(ConfigError, match="resolved by resolve_planner first"):
        domain.make_planner("uct")  # a request's name is resolved once, where it comes in
