"""Occlusion predicates from swept volumes (seed §3.2) and their caches (Appendix A)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from llm_planner.domains.gtamp.domain import ObjPose
from llm_planner.domains.gtamp.operators import GTampModel
from llm_planner.domains.gtamp.predicates import PredicateComputer


def _away(model: GTampModel, state, name: str, region: str = "counter1"):
    """``state`` with object ``name`` hand-placed at the back of ``region``."""
    i = model.index[name]
    r = model.regions[region]
    x, y = r.to_world(0.1, 0.0)
    h = model.problem.objects[i].shape.height
    return state.with_pose(i, ObjPose(x, y, r.height + h / 2 + 0.002, r.heading, region))


def test_hand_placed_occluders_are_detected_and_removed_ones_are_not(model_p2, p2):
    pc = PredicateComputer(model_p2)
    lits = pc.literals(p2.initial)
    assert lits.pick_occluders("salter") == {"bottle2", "bottle3"}
    assert ("salter", "behind_of", "bottle2") in lits.at_position
    without3 = pc.literals(_away(model_p2, p2.initial, "bottle3"))
    assert without3.pick_occluders("salter") == {"bottle2"}
    cleared = pc.literals(_away(model_p2, _away(model_p2, p2.initial, "bottle3"), "bottle2", "sink"))
    assert cleared.pick_occluders("salter") == set()
    # hand-place bottle3 right in front of bottle1 on table2: it now occludes picking bottle1
    i1 = model_p2.index["bottle1"]
    b1 = p2.initial.poses[i1]
    table2 = model_p2.regions["table2"]
    u, v = table2.to_local(b1.x, b1.y)
    x, y = table2.to_world(u - 0.08, v)
    blocked = p2.initial.with_pose(model_p2.index["bottle3"], ObjPose(x, y, b1.z, b1.yaw, "table2"))
    assert "bottle3" in pc.literals(blocked).pick_occluders("bottle1")
    assert "bottle3" not in lits.pick_occluders("bottle1")


@pytest.fixture(scope="module")
def pc_p1(model_p1, p1):
    """P1's predicate computer with the initial literals computed (shared: they take a second)."""
    pc = PredicateComputer(model_p1)
    pc.literals(p1.initial)
    return pc


def test_the_closed_door_occludes_motions_between_rooms_until_opened(pc_p1, p1):
    pc = pc_p1
    closed = pc.literals(p1.initial)
    assert closed.closed_doors == ("kitchen_door",)
    assert closed.pick_occluders("bottle2") == {"kitchen_door"}          # robot in the hall, bottle2 in the kitchen
    assert closed.pick_occluders("bottle1") == set()                      # bottle1 in the hall
    assert "kitchen_door" in closed.place_occluders("bottle1", "on", "counter2")
    opened = pc.literals(replace(p1.initial, doors_open=(True,)))
    assert opened.pick_occluders("bottle2") == set()
    assert not any(occ == "kitchen_door" for *_, occ in opened.place_occluded)


def test_literals_and_collision_checks_are_cached(model_p2, p2):
    pc = PredicateComputer(model_p2)
    pc.literals(p2.initial)
    first = pc.hit_queries
    assert pc.literals(p2.initial) is pc.literals(p2.initial) and pc.computed == 1
    # moving bottle1 within the hall: the paths in the kitchen keep their cached collisions
    moved = _away(model_p2, p2.initial, "bottle1", "side_table")
    pc.literals(moved)
    assert pc.computed == 2
    assert 0 < pc.hit_queries - first < first / 2


def test_predicates_draw_from_their_own_stream_not_the_models(model_p2, p2):
    """Computing a prompt's predicates must not shift the samples the search then draws."""
    before = model_p2.rng.getstate()
    pc = PredicateComputer(model_p2, seed=7)
    pc.literals(p2.initial)
    assert model_p2.rng.getstate() == before
    assert pc.rng.getstate() != PredicateComputer(model_p2, seed=7).rng.getstate()
