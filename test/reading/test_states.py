"""State directives (reading/states.py and the state clauses of goal_parser.py): "close the fridge",
"turn on the TV in the living room and put the remote on the sofa", "open the dishwasher, put two
plates in it and close it"; pronouns, the last state said winning, things named by room or by
the furniture they stand at, an ambiguous lamp asked, negations and things that cannot take the
state refused naming what can; directives without state words read as before."""
from __future__ import annotations

import dataclasses

import pytest

from llm_planner.clarification import NeedsAnswer
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.symbolic import GoalItem, state_goal
from llm_planner.errors import DirectiveRefused, GoalError
from llm_planner.reading import read_answer, read_directive
from llm_planner.reading.states import StateSaid, state_said


@pytest.mark.parametrize("clause, said", [
    ("turn on the tv", StateSaid("on", "the tv")),
    ("switch the lamp in the bedroom off", StateSaid("off", "the lamp in the bedroom")),
    ("shut off the stove", StateSaid("off", "the stove")),
    ("shut the fridge", StateSaid("closed", "the fridge")),
    ("please close it", StateSaid("closed", "it")),
    ("leave the wardrobe open", StateSaid("open", "the wardrobe")),
    ("the tv should be off", StateSaid("off", "the tv")),
    ("start the dishwasher", StateSaid("on", "the dishwasher")),
    ("open up the microwave", StateSaid("open", "the microwave")),
])
def test_a_state_clause_says_the_state_and_the_thing(clause, said):
    found = state_said(clause)
    assert found is not None and (found.rel, found.thing) == (said.rel, said.thing)


@pytest.mark.parametrize("clause", ["put the pot on the stove", "leave the candle on the nightstand",
                                    "the milk should be in the fridge", "put the apple in the fridge",
                                    "set the book down on the desk"])
def test_a_placement_clause_asks_no_state(clause):
    assert state_said(clause) is None


def _read(text: str, world: WorldInfo, offline) -> set[GoalItem]:
    return set(read_directive(text, world, offline.resources))


@pytest.fixture(scope="module")
def unseen_world(unseen) -> WorldInfo:
    return WorldInfo.from_household(unseen)


def test_the_issue_directives_read_as_meant(offline, seen_world):
    assert _read("close the fridge", seen_world, offline) == {state_goal("closed", "fridge")}
    assert _read("turn on the TV in the living room and put the remote on the sofa", seen_world, offline) == {
        state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1)}
    assert _read("open the dishwasher, put two plates in it and close it", seen_world, offline) == {
        GoalItem("inside", "plate", "dishwasher", 2), state_goal("closed", "dishwasher")}  # the last state wins


def test_it_is_the_thing_said_last_that_can_take_the_state(offline, seen_world):
    assert _read("put the milk in the fridge and close it", seen_world, offline) == {
        GoalItem("inside", "milk", "fridge", 1), state_goal("closed", "fridge")}
    # the fridge cannot switch: "it" is the tv, said before it
    assert _read("turn off the tv, put the milk in the fridge and turn it on", seen_world, offline) == {
        GoalItem("inside", "milk", "fridge", 1), state_goal("on", "tv")}
    assert _read("open the fridge and put the juice in it", seen_world, offline) == {
        state_goal("open", "fridge"), GoalItem("inside", "juice", "fridge", 1)}
    with pytest.raises(GoalError, match="cannot tell what 'it' is"):
        read_directive("put the book on the desk and close it", seen_world, offline.resources)


def test_a_thing_in_two_states_of_one_kind_keeps_the_last_and_kinds_are_apart(offline, seen_world):
    assert _read("open the fridge, then close it", seen_world, offline) == {state_goal("closed", "fridge")}
    assert _read("turn on the dishwasher and close it", seen_world, offline) == {
        state_goal("on", "dishwasher"), state_goal("closed", "dishwasher")}


@pytest.mark.parametrize("text, thing", [
    ("turn on the television", "tv"), ("switch the telly off", "tv"), ("turn off the lamp in the bedroom", "desk_lamp"),
    ("switch on the bedroom lamp", "desk_lamp"), ("turn on the living room lamp", "floor_lamp"),
    ("turn on the lamp by the desk", "desk_lamp"), ("turn the floor lamp on", "floor_lamp"),
    ("start the dishwasher", "dishwasher"), ("turn off the stove", "stove"), ("shut off the microwave", "microwave"),
])
def test_switchable_things_are_named_as_places_are(offline, seen_world, text, thing):
    (item,) = read_directive(text, seen_world, offline.resources)
    assert item.obj_type == thing and item.is_state


def test_the_unseen_apartment_names_its_own_lamps(offline, unseen_world):
    assert _read("turn off the lamp in the bedroom", unseen_world, offline) == {state_goal("off", "desk_lamp")}
    assert _read("switch on the lamp next to the bookshelf", unseen_world, offline) == {state_goal("on", "floor_lamp")}


def test_a_plural_or_a_list_names_several_things(offline, seen_world):
    assert _read("switch off the lights", seen_world, offline) == {state_goal("off", "floor_lamp"),
                                                                    state_goal("off", "desk_lamp")}
    assert _read("turn on the tv and the floor lamp", seen_world, offline) == {state_goal("on", "tv"),
                                                                                state_goal("on", "floor_lamp")}


def test_quantities_say_every_thing_of_a_kind_or_are_refused(offline, seen_world):
    lamps = {state_goal("on", "floor_lamp"), state_goal("on", "desk_lamp")}
    for text in ("turn on all the lamps", "turn on both lamps", "switch on every lamp", "turn on two lamps",
                 "turn on the lamps"):
        assert _read(text, seen_world, offline) == lamps, text
    assert _read("close the cabinets", seen_world, offline) == {state_goal("closed", "kitchen_cabinet"),
                                                                 state_goal("closed", "bathroom_cabinet")}
    for text in ("open some cabinets", "turn on a few lamps", "turn on three lamps"):
        with pytest.raises(GoalError):
            read_directive(text, seen_world, offline.resources)
    with pytest.raises(NeedsAnswer, match="which lamp"):
        read_directive("turn on one lamp", seen_world, offline.resources)


def test_the_lamp_of_two_is_asked_and_the_answer_settles_it(offline, seen_world):
    with pytest.raises(NeedsAnswer) as asked:
        read_directive("turn on the lamp", seen_world, offline.resources)
    question = asked.value.question
    assert {o.value for o in question.options} == {"floor_lamp", "desk_lamp"}
    option = read_answer(question, "the desk lamp", seen_world, offline.resources)
    assert option is not None and _read(option.directive, seen_world, offline) == {state_goal("on", "desk_lamp")}


def test_negations_are_refused_never_read_as_the_state(offline, seen_world):
    for text in ("don't close the fridge", "do not turn off the tv", "put the milk in the fridge but don't close it",
                 "never switch on the stove"):
        with pytest.raises(DirectiveRefused, match="says not to do something"):
            read_directive(text, seen_world, offline.resources)


def test_a_thing_that_cannot_take_the_state_is_refused_naming_what_can(offline, seen_world):
    with pytest.raises(DirectiveRefused, match=r"'apple' cannot be switched on or off \(things that switch: tv, "
                                               r"floor_lamp, desk_lamp, stove, microwave, dishwasher\)"):
        read_directive("turn on the apple", seen_world, offline.resources)
    with pytest.raises(DirectiveRefused, match=r"'sofa' cannot be opened or closed \(things that open: fridge"):
        read_directive("open the sofa", seen_world, offline.resources)
    with pytest.raises(DirectiveRefused, match="cannot be opened or closed"):
        read_directive("close the tv", seen_world, offline.resources)
    with pytest.raises(GoalError, match="no 'radio' that switches on and off; the things that do: tv"):
        read_directive("turn on the radio", seen_world, offline.resources)


def test_a_scene_without_switchable_things_switches_nothing_and_places_as_before(offline, seen_world):
    bare = dataclasses.replace(seen_world, switch_at={})
    with pytest.raises(GoalError):
        read_directive("turn on the tv", bare, offline.resources)
    assert _read("close the fridge", bare, offline) == {state_goal("closed", "fridge")}
    assert _read("put the pot on the stove", bare, offline) == {GoalItem("on", "cooking_pot", "stove", 1)}


def test_directives_without_state_words_read_as_before(offline, seen_world):
    assert _read("put the pot on the stove", seen_world, offline) == {GoalItem("on", "cooking_pot", "stove", 1)}
    assert _read("Could you move the candle onto the TV stand?", seen_world, offline) == {
        GoalItem("on", "candle", "tv_stand", 1)}
    with pytest.raises(GoalError, match="say where to put it"):  # a place pronoun needs a state clause before it
        read_directive("put the milk in it", seen_world, offline.resources)
