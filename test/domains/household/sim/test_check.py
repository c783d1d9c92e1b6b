"""The scene check: each kind of fault is reported naming its culprit (with coordinates where it
has some), the simulator and the benchmark refuse a bad scene with the same messages, a new valid
apartment passes and runs a benchmark episode through PyBullet."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from llm_planner.cli import main
from llm_planner.errors import SceneError
from llm_planner.domains.household.sim.check import check_layout, width_needed
from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.household.world.scene import SCENES_DIR, load_scene, parse_scene

CFG = load_sim_config()
EXAMPLE = SCENES_DIR / "examples" / "five_rooms.yaml"
BASE = yaml.safe_load(EXAMPLE.read_text())


def scene_with(mutate):
    data = copy.deepcopy(BASE)
    mutate(data)
    return parse_scene(data, Path("mine.yaml"))


def messages(mutate) -> list[str]:
    return [str(f) for f in check_layout(scene_with(mutate), CFG).errors]


def only(found: list[str], start: str) -> str:
    hits = [m for m in found if m.startswith(start)]
    assert hits, f"no message starting with {start!r} in {found}"
    return hits[0]


def test_shipped_and_example_scenes_pass():
    for scene in (load_scene("apartment_seen"), load_scene("apartment_unseen"), load_scene(EXAMPLE)):
        check = check_layout(scene, CFG)
        assert check.errors == [], check.errors
        assert set(check.room_spots) == set(scene.rooms)  # every room reachable, start included


def test_narrow_doorway_says_the_width_the_robot_needs():
    found = messages(lambda d: d["doorways"][3].update(width=0.9))
    need = width_needed(check_layout(load_scene(EXAMPLE), CFG).drive_radius, CFG)
    text = only(found, "doorways[3].width:")
    assert "living_room - study at [12.00, 5.00] is 0.90 m wide" in text
    assert f"needs at least {need:.2f} m" in text and 0.9 < need < 1.0
    assert "rooms.study: cannot be reached from the robot's start (living_room): doorways[3] (0.90 m wide)" in found


def test_blocked_doorway_names_the_furniture_and_where_it_stands():
    sofa = {"kind": "surface", "room": "living_room", "position": [12.0, 4.45], "yaw": -1.5708, "size": [0.8, 1.6, 0.45]}
    found = messages(lambda d: d["furniture"].update(second_sofa=sofa))
    text = only(found, "doorways[3]:")
    assert "is blocked by furniture.second_sofa at [12.00, 4.45]" in text
    assert "coffee_table" not in text  # only the culprit is named


def test_furniture_through_a_wall_is_named_with_the_wall_and_a_fix():
    text = only(messages(lambda d: d["furniture"]["bookshelf"].update(position=[13.9, 1.2])),
                "furniture.bookshelf.position:")
    assert "goes 0.10 m through the wall at x = 14.00" in text and "e.g. [13.75, 1.20]" in text


def test_overlapping_furniture_names_both():
    text = only(messages(lambda d: d["furniture"]["coffee_table"].update(position=[13.0, 3.6])), "furniture.sofa:")
    assert "overlaps furniture.coffee_table at [13.00, 3.60]" in text


def test_blocked_approach_pose_names_what_stands_there():
    box = {"kind": "surface", "room": "bathroom", "position": [9.0, 8.0], "size": [0.5, 0.8, 0.9]}
    text = only(messages(lambda d: d["furniture"].update(box=box)), "furniture.bathroom_cabinet:")
    assert "no free place for the robot to stand and work at it" in text
    assert "the robot would touch furniture.box at [9.00, 8.00]" in text


def test_room_without_doorway_is_unreachable():
    found = messages(lambda d: d.update(doorways=d["doorways"][:3]))
    assert found == ["rooms.study: cannot be reached from the robot's start (living_room): no doorway joins it "
                     "to another room"]


def test_schema_errors_are_all_reported_with_key_paths():
    def break_it(d):
        d["furniture"]["fridge"]["size"] = [0.7, -0.8, "tall"]
        d["doorways"][0]["width"] = "wide"
        d["rooms"]["study"]["rect"] = [14, 5, 10, 10]
        d["objects"]["kettle"]["colour"] = [1, 0, 0]
        d["objects"]["apple"]["places"]["pantry"] = 2

    with pytest.raises(SceneError) as info:
        scene_with(break_it)
    assert set(info.value.problems) == {
        "rooms.study.rect: expected [xmin, ymin, xmax, ymax] with xmin < xmax and ymin < ymax, got [14.0, 5.0, 10.0, 10.0]",
        "doorways[0].width: expected a number, got 'wide'",
        "furniture.fridge.size: expected 3 numbers [depth, width, height] in metres, got [0.7, -0.8, 'tall']",
        "objects.kettle: unknown key 'colour' (expected: count, size, color, places)",
        "objects.apple.places: unknown furniture 'pantry' (furniture: " + ", ".join(sorted(BASE["furniture"])) + ")",
    }


def test_simulator_and_benchmark_refuse_a_bad_scene_with_the_same_messages(tmp_path, capsys):
    from llm_planner.domains.household.sim.world import HouseholdSim

    bad = copy.deepcopy(BASE)
    bad["doorways"][3]["width"] = 0.9
    path = tmp_path / "narrow.yaml"
    path.write_text(yaml.safe_dump(bad, sort_keys=False))
    scene = load_scene(path)
    expected = [f"{path}: {f}" for f in check_layout(scene, CFG).errors]
    with pytest.raises(SceneError) as info:
        HouseholdSim(scene, scene.sample_placement(0))
    assert list(info.value.problems) == expected
    assert main(["bench", "household", "--scene", str(path), "--pybullet", "--methods", "l_policy", "--suites",
                 "simple", "--episodes", "1", "--seeds", "1", "--workers", "1", "--no-progress"]) == 1
    assert expected[0] in capsys.readouterr().err


def decode(path: Path) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(path).convert("RGB"))


def test_scene_check_command_prints_problems_and_draws_them_in_red(tmp_path, capsys):
    bad = copy.deepcopy(BASE)
    bad["doorways"][3]["width"] = 0.9
    path = tmp_path / "narrow.yaml"
    path.write_text(yaml.safe_dump(bad, sort_keys=False))
    assert main(["scene", "check", str(path), "--no-prior"]) == 1
    out = capsys.readouterr().out
    assert "error: doorways[3].width: the doorway living_room - study" in out and "2 error(s)" in out
    image = decode(tmp_path / "narrow.png")
    from llm_planner.viz.household import layout_view
    from llm_planner.viz.topdown import PROBLEM_COLOR, START_COLOR, save_png

    check = check_layout(load_scene(path), CFG)
    picture = save_png(layout_view(check, CFG), tmp_path / "again.png")
    assert picture.width == image.shape[1] and picture.height == image.shape[0]

    def colour_near(x, y, colour, radius=3) -> bool:
        col, row = picture.pixel(x, y)
        patch = image[row - radius:row + radius + 1, col - radius:col + radius + 1].reshape(-1, 3).astype(int)
        return bool((np.abs(patch - np.array(colour) * 255).max(axis=1) < 40).any())

    assert colour_near(12.0, 5.0, PROBLEM_COLOR)            # the narrow doorway, marked in red
    assert colour_near(*check.robot_start, START_COLOR)     # the robot's start
    assert not colour_near(6.0, 2.5, PROBLEM_COLOR)         # a good doorway is not


def test_scene_check_passes_the_shipped_apartment_and_writes_its_picture(tmp_path, capsys):
    out = tmp_path / "seen.png"
    assert main(["scene", "check", str(SCENES_DIR / "apartment_seen.yaml"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "checked schema, layout, PyBullet (3 placements)" in text and "ok:" in text and "error" not in text
    assert decode(out).shape[1] >= 1000


def test_new_apartment_passes_with_notes_on_unknown_types_and_runs_a_pybullet_episode(tmp_path, capsys):
    assert main(["scene", "check", str(EXAMPLE), "--out", str(tmp_path / "five.png")]) == 0
    out = capsys.readouterr().out
    assert "note: objects.soldering_iron: the commonsense file knows nothing like it; the offline prior will assume a " \
           "uniform belief over all 21 containers and surfaces" in out
    assert "objects.laptop" not in out  # a type the commonsense file knows gets no note
    results = tmp_path / "five.json"
    assert main(["bench", "household", "--scene", str(EXAMPLE), "--pybullet", "--methods", "l_policy", "--suites",
                 "simple", "--episodes", "1", "--seeds", "1", "--workers", "1", "--no-progress",
                 "--json", str(results)]) == 0
    record = json.loads(results.read_text())["episodes"][0]
    assert record["success"] is True and record["steps"] > 0, record


def test_foreign_apartment_passes_and_says_where_each_receptacles_weight_comes_from(tmp_path, capsys):
    """config/scenes/examples/long_flat.yaml shares no furniture name with the shipped
    apartments; every receptacle of a kind the commonsense file knows under another name or number
    gets that kind's weight, and the check says where each receptacle's weight comes from."""
    flat = SCENES_DIR / "examples" / "long_flat.yaml"
    scene = load_scene(flat)
    assert len(scene.rooms) >= 4 and len(scene.furniture) >= 25 and len(scene.object_types) >= 100
    shipped = set(load_scene("apartment_seen").furniture) | set(load_scene("apartment_unseen").furniture)
    assert not set(scene.furniture) & shipped
    assert main(["scene", "check", str(flat), "--out", str(tmp_path / "flat.png")]) == 0
    out = capsys.readouterr().out
    sources = {line.split("furniture.")[1].split(":")[0]: line for line in out.splitlines()
               if line.strip().startswith("note: furniture.")}
    assert set(sources) == set(scene.furniture)
    assert "prior weight from 'nightstand' (its name read as 'nightstand')" in sources["nightstand_2"]
    assert "prior weight from 'sink'" in sources["washbasin"] and "a container here, the file says surface" in sources["washbasin"]
    for table in ("dining_table", "lounge_table", "study_table"):
        assert "resembles no place" not in sources[table]
    assert "ok:" in out
