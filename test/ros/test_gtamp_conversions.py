"""The G-TAMP JSON codec and perception messages carry actions and states without loss."""
from __future__ import annotations

import json

import pytest

from llm_planner.gtamp.domain import ConcreteAction, GState, Grasp, TaskAction
from llm_planner.gtamp.operators import GTampModel
from llm_planner.gtamp.problems import load_problem
from llm_planner.ros.gtamp_conversions import (GTampCodecError, decode, encode, goal_from_json, goal_to_json,
                                               grasp_predicate, make_pose, predicates_to_msgs, state_from_perceived)
from llm_planner_interfaces.msg import ObjectPose, PerceivedState

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


def test_perceived_state_message_gives_back_the_state(model):
    problem = model.problem
    s0 = problem.initial
    pick = _feasible(model, s0, TaskAction.of("pick", "bottle3"))
    held = model.apply(s0, pick)
    objects = [ObjectPose(name="robot", type="robot", pose=make_pose((held.base.x, held.base.y, 0.0),
                                                                    (0.0, 0.0, 0.0, 1.0)))]
    facts = [("RobotHolding", "bottle3")]
    for name, pose in zip(problem.object_names, held.poses):
        if pose is not None:
            objects.append(ObjectPose(name=name, type="object", pose=make_pose((pose.x, pose.y, pose.z),
                                                                               (0.0, 0.0, 0.0, 1.0))))
            facts.append(("AtPosition", name, "on", pose.region))
    msg = PerceivedState(objects=objects, predicates=predicates_to_msgs(facts) + [grasp_predicate("bottle3", held.grasp)])
    got = state_from_perceived(msg, problem)
    assert got.held == held.held and got.grasp == held.grasp and got.doors_open == held.doors_open
    assert [(p.x, p.y, p.region) if p else None for p in got.poses] == [
        (p.x, p.y, p.region) if p else None for p in held.poses]


def test_goal_json_round_trip_and_unknown_names():
    problem = load_problem("P2")
    assert goal_from_json(goal_to_json(problem.goal), problem) == problem.goal
    with pytest.raises(Exception, match="unknown object 'spoon'"):
        goal_from_json(json.dumps([["AtPosition", "spoon", "on", "table2"]]), problem)
