"""PICK / PLACE / OPEN samplers, transition and reward (seed §3.1, §4.1, Table 1)."""
from __future__ import annotations

import random

from llm_planner.domains.gtamp.sim import GTampSim
from llm_planner.domains.gtamp.domain import GoalAtom, TaskAction

act = TaskAction.of


def test_pick_behind_bottles_is_infeasible_and_names_the_occluders(model_p2, p2):
    model_p2.rng = random.Random(0)
    ca = model_p2.sample(p2.initial, act("pick", "salter"))
    assert not ca.feasible and "bottle" in ca.reason and "10 samples" in ca.reason
    assert model_p2.apply(p2.initial, ca) is p2.initial
    assert model_p2.reward(p2.initial, p2.initial, False) == -6.0


def test_pick_then_place_moves_the_object_and_keeps_parameters_in_range(model_p2, p2):
    model_p2.rng = random.Random(1)
    ca, s1, r = model_p2.step(p2.initial, act("pick", "bottle3"))
    assert ca.feasible and r == 0.0 and s1.held == model_p2.index["bottle3"] and s1.poses[2] is None
    g = ca.kappa.grasp
    assert 0.0 <= g.pitch <= 0.7854 + 1e-9 and abs(g.yaw) <= 1.0472 + 1e-9
    assert ca.kappa.base_path[-1] == model_p2.regions["counter2"].base_pose
    assert len(ca.kappa.arm_path) > 2
    ca2, s2, _ = model_p2.step(s1, act("place", "bottle3", "right_of", "bottle1"))
    assert ca2.feasible and s2.held is None
    assert model_p2.support(s2, 2).name == "table2"
    assert model_p2.holds(s2, GoalAtom("bottle3", "right_of", "bottle1"))
    assert not model_p2.holds(s2, GoalAtom("bottle3", "left_of", "bottle1"))
    assert model_p2.holds(s2, GoalAtom("bottle3", "on", "table2"))


def test_reward_counts_goal_atoms_achieved(model_p1, p1):
    model_p1.rng = random.Random(2)
    _, s1, _ = model_p1.step(p1.initial, act("pick", "bottle1"))
    ca, s2, r = model_p1.step(s1, act("place", "bottle1", "on", "table1"))
    assert ca.feasible and r == 3.0 and model_p1.goal_count(s2) == 1
    _, s3, _ = model_p1.step(s2, act("pick", "bottle1"))
    assert model_p1.reward(s2, s3, True) == -3.0                       # taking it away undoes the reward


def test_open_needs_an_empty_hand_and_clears_the_door(model_p1, p1):
    model_p1.rng = random.Random(3)
    _, held, _ = model_p1.step(p1.initial, act("pick", "salter3"))
    ca = model_p1.sample(held, act("open", "kitchen_door"))
    assert not ca.feasible and "hand is not empty" in ca.reason
    ca, opened, _ = model_p1.step(p1.initial, act("open", "kitchen_door"))
    assert ca.feasible and opened.doors_open == (True,)
    assert "already open" in model_p1.sample(opened, act("open", "kitchen_door")).reason


def test_legal_actions_and_validation(model_p2, p2):
    names = p2.object_names
    acts = model_p2.legal_actions(p2.initial)
    assert {a.op for a in acts} == {"pick"} and len(acts) == len(names)   # door already open
    holding = model_p2.step(p2.initial, act("pick", "bottle3"))[1]
    places = model_p2.legal_actions(holding)
    assert len(places) == len(p2.region_names) + 4 * (len(names) - 1)
    assert "unknown action" in model_p2.validate(act("fly", "salter"))
    assert "argument" in model_p2.validate(act("pick", "salter", "bottle1"))
    assert "unknown object" in model_p2.validate(act("pick", "unicorn"))
    assert "unknown region" in model_p2.validate(act("place", "salter", "on", "roof"))
    assert "itself" in model_p2.validate(act("place", "salter", "left_of", "salter"))
    assert not model_p2.sample(p2.initial, act("place", "salter", "sideways", "bottle1")).feasible


def test_simulator_executes_checked_actions_and_refuses_others(model_p2, p2):
    sim = GTampSim(p2)
    try:
        model_p2.rng = random.Random(4)
        ca, expected, _ = model_p2.step(p2.initial, act("pick", "bottle3"))
        assert sim.execute(ca) == (True, "")
        assert sim.observe().held == expected.held
        ok, reason = sim.execute(ca)                                     # again: the hand is full now
        assert not ok and "hand not empty" in reason
        bad = model_p2.sample(p2.initial, act("pick", "salter"))
        ok, reason = sim.execute(bad)
        assert not ok and "infeasible" in reason
        assert not sim.is_goal()
    finally:
        sim.close()
