"""The curated commonsense file and its matching onto a scene (commonsense.py)."""
from __future__ import annotations

import pytest

from llm_planner.errors import ConfigError
from llm_planner.domains.household.world.commonsense import load_commonsense
from llm_planner.domains.household.language.commonsense import scene_knowledge


def test_file_is_broad_and_consistent():
    cs = load_commonsense()
    assert len(cs.objects) >= 100
    several = [o for o, places in cs.objects.items() if len(places) >= 2]
    assert len(several) / len(cs.objects) > 0.9
    assert cs.alias_index()["phone"] == "cellphone"


def test_general_places_map_onto_each_apartment(offline, seen_world):
    knowledge = scene_knowledge(offline.resources, seen_world)
    assert knowledge.place_map["pantry"] == "kitchen_cabinet"
    assert knowledge.place_map["dining table"] == "kitchen_table"
    assert knowledge.place_map["closet"] == "wardrobe"
    assert set(knowledge.place_map.values()) <= set(seen_world.furniture)
    milk = knowledge.place_weights("milk")
    assert max(milk, key=milk.get) == "fridge"
    assert knowledge.place_weights("spaceship") == {}
    assert knowledge.known_type("wine_glass") == "wine glass"


def test_malformed_file_names_the_entry(tmp_path):
    bad = tmp_path / "cs.yaml"
    bad.write_text("places: {fridge: {kind: container}}\nobjects: {apple: {pantry: 2}}\n")
    with pytest.raises(ConfigError, match="objects.apple: unknown place 'pantry'"):
        load_commonsense(str(bad))


# ------------------------------------------------------------------ a prior for every receptacle
LONG_FLAT = "scenes/examples/long_flat.yaml"


@pytest.fixture(scope="module")
def flat_knowledge(offline):
    from llm_planner.domains.household.world.scene import load_scene
    from llm_planner.domains.household.language.text import WorldInfo
    from llm_planner.paths import config_dir

    world = WorldInfo.from_scene(load_scene(config_dir() / LONG_FLAT))
    return scene_knowledge(offline.resources, world)


def test_every_receptacle_of_a_known_kind_gets_its_weight(flat_knowledge):
    """Numbered, room-prefixed and positional duplicates take their kind's full weight (both
    nightstands the same), every table and every sink get weight, whatever the scene's kind."""
    book = flat_knowledge.place_weights("novel")
    assert book["nightstand_1"] == book["nightstand_2"] > 0
    socks = flat_knowledge.place_weights("socks")
    assert socks["dresser_left"] == socks["dresser_right"] > 0
    sponge = flat_knowledge.place_weights("sponge")
    assert sponge["kitchen_sink"] > 0 and sponge["washbasin"] > 0  # sinks are containers here, surfaces in the file
    sources = flat_knowledge.weight_sources()
    for table in ("dining_table", "lounge_table", "study_table"):
        assert sources[table], table
    assert all(sources[f] for f in flat_knowledge.world.furniture), [f for f, s in sources.items() if not s]
    assert "'nightstand'" in flat_knowledge.describe_source("nightstand_2")
    assert "a container here, the file says surface" in flat_knowledge.describe_source("washbasin")


def test_furniture_like_nothing_keeps_the_floor(offline):
    from llm_planner.domains.household.language.text import WorldInfo

    world = WorldInfo(rooms=("kitchen",), containers=("fridge", "aquarium"), surfaces=("kitchen_table",),
                      furniture_room={"fridge": "kitchen", "aquarium": "kitchen", "kitchen_table": "kitchen"},
                      object_type={"milk_1": "milk"})
    knowledge = scene_knowledge(offline.resources, world)
    assert knowledge.weight_sources()["aquarium"] == []
    assert "floor probability" in knowledge.describe_source("aquarium")
    assert "aquarium" not in knowledge.place_weights("milk") and knowledge.place_weights("milk")["fridge"] > 0
