"""Spot sampling: inside the support, within reach, room for the arm; stacking; overlap rules."""
from __future__ import annotations

import random

import pytest

from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.household.sim.layout import scene_layout
from llm_planner.domains.household.sim.placement import aabbs_overlap, candidate_spots, reachable, stacked_spots
from llm_planner.domains.household.world.scene import load_scene

CFG = load_sim_config()
SCENE = load_scene("apartment_seen")
LAYOUT = scene_layout(SCENE, CFG)


def test_spots_lie_inside_a_container_level_and_within_reach():
    fridge = LAYOUT["fridge"]
    size = (0.07, 0.07, 0.2)
    spots = list(candidate_spots(fridge, size, True, CFG, random.Random(0)))
    assert len(spots) > 50
    for spot in spots[:200]:
        lx, ly = fridge.frame.to_local(spot.center[0], spot.center[1])
        level = fridge.levels[spot.level]
        assert level.x[0] < lx - size[0] / 2 and lx + size[0] / 2 < level.x[1]
        assert level.y[0] < ly - size[1] / 2 and ly + size[1] / 2 < level.y[1]
        assert spot.center[2] - size[2] / 2 == pytest.approx(level.floor)
        assert spot.center[2] + size[2] / 2 < level.ceiling
        assert reachable(fridge, spot, size[2], CFG)


def test_object_taller_than_every_level_gets_no_spot():
    microwave = LAYOUT["microwave"]
    tall = (0.07, 0.07, microwave.size[2])
    assert list(candidate_spots(microwave, tall, True, CFG, random.Random(0))) == []


def test_far_side_of_a_deep_surface_is_out_of_reach():
    bed = LAYOUT["bed"]
    for spot in candidate_spots(bed, (0.1, 0.1, 0.05), False, CFG, random.Random(1)):
        assert reachable(bed, spot, 0.05, CFG)
    far = [s for s in candidate_spots(bed, (0.1, 0.1, 0.05), False, CFG, random.Random(1))]
    mast = bed.approach.to_world(CFG.robot.mast.offset, 0.0)
    assert max(((s.center[0] - mast[0]) ** 2 + (s.center[1] - mast[1]) ** 2) ** 0.5 for s in far) \
        <= CFG.robot.arm.max_length


def test_stacked_spots_sit_on_the_object_below():
    table = LAYOUT["kitchen_table"]
    lo = (table.frame.x - 0.1, table.frame.y - 0.1, table.top)
    hi = (table.frame.x + 0.1, table.frame.y + 0.1, table.top + 0.04)
    spots = list(stacked_spots(table, (0.15, 0.1, 0.03), False, [((lo, hi), 0.0)], CFG))
    assert spots
    for spot in spots:
        assert abs(spot.center[2] - 0.015 - hi[2]) < 1e-9
        assert lo[0] <= spot.center[0] <= hi[0] and lo[1] <= spot.center[1] <= hi[1]


def test_boxes_touching_in_height_do_not_overlap_but_side_by_side_within_gap_do():
    a = ((0, 0, 0), (1, 1, 1))
    assert not aabbs_overlap(a, ((0.2, 0.2, 1.0), (0.8, 0.8, 1.2)), gap=0.01)  # resting on top
    assert aabbs_overlap(a, ((1.005, 0, 0), (2, 1, 1)), gap=0.01)  # too close beside
    assert not aabbs_overlap(a, ((1.02, 0, 0), (2, 1, 1)), gap=0.01)
