"""The curated commonsense file and its matching onto a scene (commonsense.py)."""
from __future__ import annotations

import pytest

from llm_planner.errors import ConfigError
from llm_planner.llm.offline.commonsense import load_commonsense, scene_knowledge


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
