"""Natural-language rendering of actions, observations and goals (text.py)."""
from __future__ import annotations

import dataclasses

from llm_planner.domains.household.language.text import (
    WorldInfo, action_to_text, goal_to_formal, goal_to_text, observation_to_text, text_to_action,
)
from llm_planner.domains.household.world.symbolic import Action, GoalItem, state_goal


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
    assert fields == {"rooms", "containers", "surfaces", "furniture_room", "object_type", "switch_at"}
    assert "places" not in repr(seen_world) and seen_world.relation("fridge") == "inside"
    assert seen_world.count("apple") == 2 and hash(seen_world) == hash(dataclasses.replace(seen_world))
    assert seen_world.switch_at["tv"] == "tv_stand" and "tv" in seen_world.names
    assert "stove" not in seen_world.switchables  # an appliance is furniture


def test_formal_goal_text_both_ways():
    goal = (GoalItem("inside", "apple", "fridge", 2), GoalItem("on", "plate", "kitchen_table", 1))
    formal = goal_to_formal(goal)
    assert formal == "(INSIDE, apple, fridge, 2)-(ON, plate, kitchen_table, 1)"
    assert goal_to_text(goal) == "put two apples inside the fridge and put one plate on the kitchen table"


def test_switch_actions_and_state_goals_have_sentences(seen, seen_world):
    on, off = Action("switchon", ("tv",)), Action("switchoff", ("desk_lamp",))
    assert action_to_text(on) == "switch on the tv" and action_to_text(off) == "switch off the desk lamp"
    assert text_to_action("turn on the TV", seen_world.names) == on
    assert text_to_action(action_to_text(off), seen_world.names) == off
    goal = (GoalItem("inside", "milk", "fridge", 1), state_goal("closed", "fridge"), state_goal("on", "tv"))
    assert goal_to_text(goal) == ("put one milk inside the fridge and make sure the fridge is closed "
                                  "and make sure the tv is on")
    assert goal_to_formal(goal) == "(INSIDE, milk, fridge, 1)-(CLOSED, fridge)-(ON, tv)"


def test_observations_tell_only_the_switches_asked(seen, seen_world):
    state = seen.initial_state(seen.scene.sample_placement(0), room="living_room", switched_on=frozenset({"tv"}))
    obs = seen.observe(state)
    assert obs.switched_on == {"tv"} and "floor_lamp" in obs.switched_off
    bare = dataclasses.replace(obs, switched_on=frozenset(), switched_off=frozenset())
    assert observation_to_text(obs, seen_world) == observation_to_text(bare, seen_world)  # placement prompts
    text = observation_to_text(obs, seen_world, ("tv", "desk_lamp"))
    assert text.endswith(", the tv is on.") and "lamp" not in text.rsplit("the tv", 1)[1]
    assert observation_to_text(obs, seen_world, ("floor_lamp",)).endswith(", the floor lamp is off.")
