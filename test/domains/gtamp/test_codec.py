"""The G-TAMP JSON codec carries concrete actions and states without loss, and refuses hostile text."""
from __future__ import annotations

import pytest

from llm_planner.domains.gtamp.codec import GTampCodecError, decode, encode
from llm_planner.domains.gtamp.domain import ConcreteAction, GState, Grasp, TaskAction
from llm_planner.domains.gtamp.operators import GTampModel
from llm_planner.domains.gtamp.problems import load_problem

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model():
    m = GTampModel(load_problem("P2"), seed=0)
    yield m
    m.world.close()


def _feasible(model: GTampModel, state: GState, action: TaskAction) -> ConcreteAction:
    for _ in range(20):
        ca = model.sample(state, action)
        if ca.feasible:
            return ca
    raise AssertionError(f"no feasible sample of {action}")


def _same_action(a: ConcreteAction, b: ConcreteAction) -> None:
    assert b.action == a.action and b.reason == a.reason
    assert b.kappa.base_path == a.kappa.base_path and b.kappa.arm_path == a.kappa.arm_path
    assert b.kappa.grasp == a.kappa.grasp and b.kappa.place_pose == a.kappa.place_pose


def test_a_concretized_pick_and_place_round_trip(model):
    s0 = model.problem.initial
    pick = _feasible(model, s0, TaskAction.of("pick", "bottle3"))
    assert pick.kappa.base_path and pick.kappa.arm_path and isinstance(pick.kappa.grasp, Grasp)
    back = decode(encode(pick), ConcreteAction)
    _same_action(pick, back)
    assert model.verify(s0, back) == ""                       # the decoded action still executes
    s1 = model.apply(s0, back)
    place = _feasible(model, s1, TaskAction.of("place", "bottle3", "on", "counter1"))
    back = decode(encode(place), ConcreteAction)
    _same_action(place, back)
    assert model.apply(s1, back) == model.apply(s1, place)


def test_states_and_infeasible_actions_round_trip(model):
    s0 = model.problem.initial
    assert decode(encode(s0), GState) == s0
    bad = ConcreteAction(TaskAction.of("pick", "salter"), None, "occluded")
    back = decode(encode(bad), ConcreteAction)
    assert back.action == bad.action and back.kappa is None and back.reason == "occluded"


@pytest.mark.parametrize("text, match", [
    ("{not json", "not JSON"),
    ('{"__type__": "os.system", "x": 1}', "unknown or missing __type__"),
    ('{"action": 1}', "unknown or missing __type__"),
    ('{"__type__": "TaskAction", "op": "pick", "args": ["a"], "evil": 1}', "unknown field"),
    ('{"__type__": "TaskAction", "op": "pick"}', "TaskAction"),
    ('{"__type__": "TaskAction", "op": "pick", "args": ["a"]}', "expected a ConcreteAction"),
    ('{"__type__": "Pose2D", "x": NaN, "y": 0, "theta": 0}', "non-finite number NaN"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
], ids=["not-json", "foreign-type", "untagged", "unknown-field", "missing-field", "wrong-type", "nan", "deep"])
def test_hostile_or_malformed_text_is_refused_clearly(text, match):
    with pytest.raises(GTampCodecError, match=match):
        decode(text, ConcreteAction)
