"""Natural-language rendering of actions, observations and goals (text.py)."""
from __future__ import annotations

import dataclasses

from llm_planner.domains.household.language.text import (
    WorldInfo, action_to_text, goal_to_formal, goal_to_text, observation_to_text, text_to_action,
)
from llm_planner.domains.household.world.symbolic import Action, GoalItem


def test_action_sentences_round_trip_for_every_admissible_action(seen, seen_world):
    assert action_to_text(Action("putin", ("apple_1", "fridge"))) == "put the apple 1 inside the fridge"
    assert action_to_text(Action("puton", ("plate_2", "kitchen_table"))) == "put the plate 2 on the kitchen table"
    names = seen_world.names
    state = seen.sample_initial_state(0)
    seen_actions = set()
    for action in [*seen.legal_actions(state), Action("grab", ("apple_1",)), Action("open", ("fridge",)),
                   Action("close", ("wardrobe",)), Action("putin", ("cutlery_knife_1", "dishwasher")),
                   Action("puton", ("remote_control_1", "tv_stand"))]:
        assert text_to_action(action_to_text(action), names) == action
        seen_actions.add(action_to_text(action))
    assert text_to_action("Walk to the Kitchen.", names) == Action("walk", ("kitchen",))
    assert text_to_action("fly to the moon", names) is None


def test_observation_sentence_names_what_is_seen(seen, seen_world):
    state = seen.sample_initial_state(0)
    text = observation_to_text(seen.observe(state), seen_world)
    assert text.startswith("you are in the living room, your hand is empty, a sofa is inside the living room")
    for rel, obj, place in seen.observe(state).relations:
        assert f"{obj.replace('_', ' ')} is {rel} the {place.replace('_', ' ')}" in text


def test_world_info_carries_names_only(seen_world):
    fields = {f.name for f in dataclasses.fields(WorldInfo)}
    assert fields == {"rooms", "containers", "surfaces", "furniture_room", "object_type"}
    assert "places" not in repr(seen_world) and seen_world.relation("fridge") == "inside"
    assert seen_world.count("apple") == 2 and hash(seen_world) == hash(dataclasses.replace(seen_world))


def test_formal_goal_text_both_ways():
    goal = (GoalItem("inside", "apple", "fridge", 2), GoalItem("on", "plate", "kitchen_table", 1))
    formal = goal_to_formal(goal)
    assert formal == "(INSIDE, apple, fridge, 2)-(ON, plate, kitchen_table, 1)"
    assert goal_to_text(goal) == "put two apples inside the fridge and put one plate on the kitchen table"
