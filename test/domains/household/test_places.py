"""Where the robot goes for each place of a scene (the robot contract's map): every room and
furniture of the shipped apartments has a pose in its own room; a scene file's ``approach`` poses are
used as given, by the planner and by the PyBullet robot, whose perception then reads it CLOSE there;
a malformed or misplaced ``approach`` is refused naming the entry."""
from __future__ import annotations

import math

import pytest
import yaml

from llm_planner.domains.household.places import place_poses
from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.household.sim.layout import scene_layout
from llm_planner.domains.household.world.scene import SCENES_DIR, load_scene, parse_scene
from llm_planner.errors import SceneError

#: The poses the tests give (map frame): the fridge's a little further from it than the layout's.
FRIDGE = (1.55, 1.05, math.pi)
KITCHEN = (3.25, 1.45, 0.5)


@pytest.mark.parametrize("name", ["apartment_seen", "apartment_unseen"])
def test_every_place_of_the_shipped_apartments_has_a_pose_in_its_room(name):
    scene = load_scene(name)
    poses = place_poses(scene)
    assert not poses.missing and set(poses.poses) == set(scene.rooms) | set(scene.furniture)
    layouts = scene_layout(scene, load_sim_config())
    for furniture, layout in layouts.items():
        pose = poses[furniture]
        assert (pose.x, pose.y, pose.yaw) == (layout.approach.x, layout.approach.y, layout.approach.yaw)
        assert scene.rooms[scene.furniture[furniture].room].contains(pose.x, pose.y)
        assert pose.source == "layout"
    for room in scene.rooms:
        assert scene.rooms[room].contains(poses[room].x, poses[room].y)
    with pytest.raises(SceneError, match="no pose for 'garage'"):
        poses["garage"]


def _with_approaches() -> dict:
    data = yaml.safe_load((SCENES_DIR / "apartment_seen.yaml").read_text())
    data["furniture"]["fridge"]["approach"] = list(FRIDGE)
    data["rooms"]["kitchen"]["approach"] = list(KITCHEN)
    return data


def test_a_scene_files_approach_poses_are_used_as_given():
    scene = parse_scene(_with_approaches())
    poses = place_poses(scene)
    assert (poses["fridge"].x, poses["fridge"].y, poses["fridge"].yaw, poses["fridge"].source) == (*FRIDGE, "scene")
    assert (poses["kitchen"].x, poses["kitchen"].y, poses["kitchen"].yaw, poses["kitchen"].source) == (*KITCHEN, "scene")
    assert poses["dishwasher"].source == "layout"


@pytest.mark.slow
def test_the_pybullet_robot_drives_to_the_given_poses_and_perceives_itself_there():
    from llm_planner.domains.household.sim.perception import perceive
    from llm_planner.domains.household.sim.world import HouseholdSim
    from llm_planner.domains.shapes import Frame2D

    scene = parse_scene(_with_approaches())
    with HouseholdSim(scene, scene.sample_placement(0)) as sim:
        for target, (x, y, yaw), near in (("kitchen", KITCHEN, None), ("fridge", FRIDGE, "fridge")):
            poses = sim.plan_navigation(Frame2D(x, y, yaw))
            assert poses and math.dist((poses[-1].x, poses[-1].y), (x, y)) < 1e-9
            for pose in poses:
                sim.move_base(pose)
            seen = perceive(scene, sim.geometry())
            assert (seen.room, seen.near) == ("kitchen", near), target
        assert sim.plan_navigation(Frame2D(*FRIDGE)) == []  # there already


def test_a_room_pose_where_the_robot_does_not_fit_is_a_layout_error():
    from llm_planner.domains.household.sim.check import check_layout

    data = _with_approaches()
    data["rooms"]["kitchen"]["approach"] = [3.0, 2.5, 0.0]  # on the kitchen table
    check = check_layout(parse_scene(data), load_sim_config())
    assert any(f.where == "rooms.kitchen.approach" and "the robot does not fit there" in f.message
               for f in check.errors), [str(f) for f in check.errors]


@pytest.mark.parametrize("approach, message", [
    ([1.0, 2.0], "furniture.fridge.approach: expected a list of 3 numbers [x, y, yaw] (map frame)"),
    ([9.0, 1.0, 0.0], "furniture.fridge.approach: [9, 1] lies outside room 'kitchen'"),
    (["a", 1.0, 0.0], "furniture.fridge.approach: expected 3 numbers [x, y, yaw] (map frame)"),
])
def test_a_malformed_approach_is_refused_naming_the_entry(approach, message):
    data = _with_approaches()
    data["furniture"]["fridge"]["approach"] = approach
    with pytest.raises(SceneError) as raised:
        parse_scene(data)
    assert message in str(raised.value)
