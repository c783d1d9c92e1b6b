"""Static geometry from the scene: walls with doorways, containers, approach poses."""
from __future__ import annotations

import copy
import math

import pytest

from llm_planner.errors import SceneError
from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.household.sim.layout import (Frame2D, approach_candidates, container_levels, rects_overlap, robot_rects,
                                    scene_layout, wall_layout)
from llm_planner.domains.household.world.scene import load_scene, parse_scene

CFG = load_sim_config()
SCENE = load_scene("apartment_seen")


def test_walls_leave_exactly_the_doorways_open():
    walls = wall_layout(SCENE, CFG)
    for door in SCENE.doorways:
        cx, cy = door.center
        # the doorway centre and points just inside its width are free of walls ...
        for off in (0.0, door.width / 2 - 0.05):
            for sign in (1, -1):
                px, py = (cx + sign * off, cy) if _horizontal(door) else (cx, cy + sign * off)
                assert not any(_inside(px, py, w.rect) for w in walls), (door, off)
        # ... and just beyond it there is wall
        px, py = (cx + door.width / 2 + 0.05, cy) if _horizontal(door) else (cx, cy + door.width / 2 + 0.05)
        assert any(_inside(px, py, w.rect) for w in walls), door
    # the outer boundary is closed: a point on it away from doorways is wall
    assert any(_inside(0.0, 7.0, w.rect) for w in walls)


def _horizontal(door) -> bool:
    a, b = (SCENE.rooms[r].rect for r in door.rooms)
    return abs(a[3] - b[1]) < 1e-6 or abs(b[3] - a[1]) < 1e-6


def _inside(x: float, y: float, r) -> bool:
    return abs(x - r.cx) <= r.hx and abs(y - r.cy) <= r.hy


def test_doorway_off_the_shared_wall_is_rejected_naming_it():
    data = copy.deepcopy(SCENE.raw)
    data["doorways"][1]["center"] = [3.0, 4.0]
    with pytest.raises(SceneError, match=r"doorways\[1\]: center \[3.0, 4.0\] is not on the wall"):
        wall_layout(parse_scene(data), CFG)


def test_container_has_levels_inside_its_walls_and_a_door_over_the_front():
    layout = scene_layout(SCENE, CFG)["fridge"]
    d, w, h = layout.size
    assert len(layout.levels) == round((h - CFG.world.container_plinth - 2 * CFG.world.container_wall)
                                       / CFG.world.shelf_pitch)
    assert layout.cavity.lo[2] > CFG.robot.base.top  # the arm can work at the lowest level
    for level in layout.levels:
        assert layout.cavity.lo[2] - 1e-9 <= level.floor < level.ceiling <= layout.cavity.hi[2] + 1e-9
    assert layout.door.box.hi[0] == pytest.approx(d / 2) and layout.door.box.lo[0] < layout.cavity.hi[0] + 1e-9
    assert layout.door.box.hi[2] == pytest.approx(h) and layout.door.travel == pytest.approx(h)


def test_tiny_container_has_no_interior():
    with pytest.raises(SceneError, match="leaves no interior"):
        container_levels((0.03, 0.5, 0.5), CFG)


@pytest.mark.parametrize("name", ["apartment_seen", "apartment_unseen"])
def test_approach_poses_face_their_furniture_inside_its_room_and_clear_of_others(name):
    scene = load_scene(name)
    layouts = scene_layout(scene, CFG)
    for fname, l in layouts.items():
        pose = l.approach
        assert scene.rooms[l.room].contains(pose.x, pose.y), fname
        # facing the furniture: its centre lies ahead of the robot
        ahead = Frame2D(pose.x, pose.y, pose.yaw).to_local(l.frame.x, l.frame.y)
        assert ahead[0] > 0 and abs(ahead[1]) <= max(l.size[:2]) / 2 + 1e-6, fname
        for other, o in layouts.items():
            for rect in robot_rects(pose, CFG):
                assert not rects_overlap(rect, o.footprint), (fname, other)
        if l.is_container:  # containers are worked from the middle of their front
            assert pose == approach_candidates(l.frame, l.size, l.standoff, l.kind, CFG)[0]


def test_blocked_front_makes_the_robot_work_from_another_side():
    # In the seen apartment the coffee table stands 0.4 m in front of the sofa.
    layouts = scene_layout(SCENE, CFG)
    sofa = layouts["sofa"]
    front_middle = approach_candidates(sofa.frame, sofa.size, sofa.standoff, sofa.kind, CFG)[0]
    assert math.dist((sofa.approach.x, sofa.approach.y), (front_middle.x, front_middle.y)) > 0.1


def test_furniture_without_room_to_work_at_is_rejected_naming_it():
    data = copy.deepcopy(SCENE.raw)
    data["furniture"]["microwave"]["position"] = [5.0, 0.35]
    data["furniture"]["box_in_front"] = {"kind": "surface", "room": "kitchen", "position": [5.0, 1.0],
                                         "size": [0.6, 0.6, 0.9]}
    with pytest.raises(SceneError, match="furniture.microwave: no free place for the robot"):
        scene_layout(parse_scene(data), CFG)
