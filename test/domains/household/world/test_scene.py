"""Scene files: both apartments load and differ; malformed scenes fail naming file and entry."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from llm_planner.errors import SceneError
from llm_planner.domains.household.world.scene import SCENES_DIR, Furniture, load_scene
from llm_planner.domains.household.world.symbolic import Household

APARTMENTS = ("apartment_seen", "apartment_unseen")
ROOM_KINDS = {"kitchen", "living_room", "bedroom", "bathroom"}
DOOR_CLEARANCE = 0.3  # metres kept free around a doorway opening (robot passage)


@pytest.mark.parametrize("name", APARTMENTS)
def test_apartments_load_in_scene_and_household(name):
    scene = load_scene(name)
    household = Household(scene)
    assert set(scene.rooms) == ROOM_KINDS
    assert len(scene.object_types) >= 25
    assert any(t.count >= 2 for t in scene.object_types.values())
    for container in ("fridge", "kitchen_cabinet", "dishwasher", "microwave", "bathroom_cabinet"):
        assert scene.furniture[container].kind == "container"
    for surface in ("kitchen_table", "kitchen_counter", "coffee_table", "sofa", "bed", "nightstand",
                    "bookshelf", "bathroom_counter"):
        assert scene.furniture[surface].kind == "surface"
    state = household.sample_initial_state(0)
    assert len(state.placement) == len(scene.object_names) == len(household.objects)


def test_unseen_apartment_differs_in_layout_and_distribution_but_shares_names():
    seen, unseen = load_scene("apartment_seen"), load_scene("apartment_unseen")
    assert set(seen.furniture) == set(unseen.furniture)
    assert set(seen.object_types) == set(unseen.object_types)
    assert {r: seen.rooms[r].rect for r in seen.rooms} != {r: unseen.rooms[r].rect for r in unseen.rooms}
    moved = [f for f in seen.furniture if seen.furniture[f].position != unseen.furniture[f].position]
    assert len(moved) == len(seen.furniture)
    other_places = [t for t in seen.object_types
                    if dict(seen.object_types[t].places) != dict(unseen.object_types[t].places)]
    assert len(other_places) == len(seen.object_types)
    assert seen.robot_room != unseen.robot_room


def _footprint(f: Furniture) -> tuple[float, float, float, float]:
    sx, sy = f.size[0], f.size[1]
    if abs(math.sin(f.yaw)) > 0.5:
        sx, sy = sy, sx
    x, y = f.position
    return x - sx / 2, y - sy / 2, x + sx / 2, y + sy / 2


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("name", APARTMENTS)
def test_furniture_fits_its_room_and_leaves_doorways_free(name):
    scene = load_scene(name)
    prints = {f.name: _footprint(f) for f in scene.furniture.values()}
    for fname, (x0, y0, x1, y1) in prints.items():
        rx0, ry0, rx1, ry1 = scene.rooms[scene.furniture[fname].room].rect
        assert rx0 <= x0 and ry0 <= y0 and x1 <= rx1 and y1 <= ry1, fname
    names = sorted(prints)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not _overlap(prints[a], prints[b]), (a, b)
    for door in scene.doorways:
        cx, cy = door.center
        clear = (cx - door.width / 2 - DOOR_CLEARANCE, cy - door.width / 2 - DOOR_CLEARANCE,
                 cx + door.width / 2 + DOOR_CLEARANCE, cy + door.width / 2 + DOOR_CLEARANCE)
        for fname, box in prints.items():
            assert not _overlap(box, clear), (fname, door)


def test_placements_follow_each_apartments_distribution():
    """Over many seeds, every placement is one of the type's places, and the two apartments differ."""
    seen, unseen = load_scene("apartment_seen"), load_scene("apartment_unseen")
    where_seen = [seen.sample_placement(s)["book_1"] for s in range(300)]
    where_unseen = [unseen.sample_placement(s)["book_1"] for s in range(300)]
    assert set(where_seen) <= {p for p, _ in seen.object_types["book"].places}
    assert where_seen.count("bookshelf") > 100 and where_unseen.count("bookshelf") < 100
    assert seen.sample_placement(5) == seen.sample_placement(5)


# ---------------------------------------------------------------------------- bad input
def _write(tmp_path: Path, mutate) -> Path:
    data = yaml.safe_load((SCENES_DIR / "apartment_seen.yaml").read_text())
    mutate(data)
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_unknown_room_is_named(tmp_path):
    path = _write(tmp_path, lambda d: d["furniture"]["fridge"].update(room="garage"))
    with pytest.raises(SceneError, match=r"broken\.yaml: furniture\.fridge\.room: unknown room 'garage'"):
        load_scene(path)


def test_object_in_nonexistent_container_is_named(tmp_path):
    path = _write(tmp_path, lambda d: d["objects"]["milk"]["places"].update(freezer=3))
    with pytest.raises(SceneError, match=r"broken\.yaml: objects\.milk\.places: unknown furniture 'freezer'"):
        load_scene(path)


def test_duplicate_names_are_named(tmp_path):
    text = (SCENES_DIR / "apartment_seen.yaml").read_text()
    fridge_line = next(line for line in text.splitlines() if line.strip().startswith("fridge:"))
    path = tmp_path / "dup.yaml"
    path.write_text(text.replace(fridge_line, fridge_line + "\n" + fridge_line, 1))
    with pytest.raises(SceneError, match=r"dup\.yaml: duplicate name 'fridge' \(line \d+\)"):
        load_scene(path)
    clash = _write(tmp_path, lambda d: d["objects"].update(sofa={"places": {"bed": 1}}))
    with pytest.raises(SceneError, match="duplicate name 'sofa' used in both furniture and objects"):
        load_scene(clash)


def test_other_malformed_entries(tmp_path):
    cases = [
        (lambda d: d["furniture"]["fridge"].update(position=[50.0, 1.0]), "furniture.fridge.position: .* outside room"),
        (lambda d: d["furniture"]["fridge"].update(kind="shelf"), "furniture.fridge.kind: must be one of"),
        (lambda d: d["objects"]["apple"].update(count=0), "objects.apple.count: must be a positive integer"),
        (lambda d: d["objects"]["apple"]["places"].update(fridge=-1), "objects.apple.places.fridge: weight"),
        (lambda d: d.update(robot={"room": "attic"}), "robot.room: unknown room 'attic'"),
        (lambda d: d["doorways"][0].update(rooms=["kitchen", "cellar"]), r"doorways\[0\].rooms: unknown room 'cellar'"),
    ]
    for mutate, message in cases:
        with pytest.raises(SceneError, match=message):
            load_scene(_write(tmp_path, mutate))


def test_missing_file_lists_shipped_scenes():
    with pytest.raises(SceneError, match="no such scene file.*apartment_seen, apartment_unseen"):
        load_scene("apartment_nowhere")
