"""Grounding in an apartment with other names (config/scenes/examples/long_flat.yaml)
never swaps one kind of thing for another, and asks which one when the flat has several."""
from __future__ import annotations

import pytest

from llm_planner.domains.household.language.model_resources import grounder_of
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.errors import GoalError
from llm_planner.reading import ground_goal
from llm_planner.reading.goal_parser import goal_parser
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.paths import config_dir


@pytest.fixture(scope="module")
def parser(offline):
    world = WorldInfo.from_scene(load_scene(config_dir() / "scenes/examples/long_flat.yaml"))
    return goal_parser(offline.resources, world)


def _items(parser, directive):
    return {(i.rel, i.obj_type, i.destination, i.count) for i in parser.parse(directive)}


@pytest.mark.parametrize("directive, expected", [
    ("put the alarm clock on the nightstand in the guest bedroom", ("on", "alarm_clock", "nightstand_2", 1)),
    ("put the alarm clock on the nightstand in the master bedroom", ("on", "alarm_clock", "nightstand_1", 1)),
    ("put the smartphone on the second nightstand", ("on", "smartphone", "nightstand_2", 1)),
    ("put the phone charger on nightstand number 1", ("on", "phone_charger", "nightstand_1", 1)),
    ("put the torch on the guest room nightstand", ("on", "torch", "nightstand_2", 1)),
    ("put the socks in the left dresser", ("inside", "socks", "dresser_left", 1)),
    ("put the teddy bear on the bed in the guest room", ("on", "teddy_bear", "single_bed", 1)),
    ("put the laptop on the table in the study", ("on", "laptop", "study_table", 1)),
    ("put the hand soap in the bathroom sink", ("inside", "hand_soap", "washbasin", 1)),
])
def test_a_duplicate_named_by_room_number_or_position(parser, directive, expected):
    assert _items(parser, directive) == {expected}


@pytest.mark.parametrize("directive, question", [
    ("put the alarm clock on the nightstand", "which nightstand: nightstand 1 (master bedroom) or nightstand 2 (guest room)?"),
    ("put the alarm clock on the bedside table", "which bedside table: nightstand 1"),
    ("put the socks in the dresser", "which dresser: dresser left (master bedroom) or dresser right"),
    ("put the bowl in the sink", "which sink: kitchen sink (kitchen) or washbasin (bathroom)?"),
    ("put the fruit bowl on the table", "which table: dining table (kitchen) or lounge table (lounge) or study table"),
])
def test_duplicates_are_asked_about(parser, directive, question):
    with pytest.raises(GoalError, match=question.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
        parser.parse(directive)


def test_a_missing_thing_is_refused_with_the_closest_never_swapped(parser):
    with pytest.raises(GoalError, match="no 'remote control'; the closest objects are game_controller"):
        parser.parse("put the remote control on the couch")
    with pytest.raises(GoalError, match="no 'pepper'; the closest objects are pepper_mill.*other things"):
        parser.parse("put the pepper on the dining table")
    with pytest.raises(GoalError, match="no 'fridge'.*closest are freezer"):
        parser.parse("put the ice cream in the fridge")
    with pytest.raises(GoalError, match="no nightstand in the study; its nightstands"):
        parser.parse("put the torch on the nightstand in the study")
    assert _items(parser, "put the game controller on the couch") == {("on", "game_controller", "couch", 1)}


def test_a_models_goal_is_grounded_the_same_way(parser, offline):
    """The model path (reading/goal_support.py ground_goal): a model's words never ground to another kind
    of thing, nor to one of several furniture of a kind."""
    world, grounder = parser.world, grounder_of(offline.resources)
    with pytest.raises(GoalError, match="no object 'remote control'; the closest known names are game_controller"):
        ground_goal((("on", "remote control", "couch", 1),), world, grounder, 0.5)
    with pytest.raises(GoalError, match="no object 'remote control'.*other things"):  # however close it scores
        ground_goal((("on", "remote control", "couch", 1),), world, grounder, 0.0)
    with pytest.raises(GoalError, match=r"which nightstand: nightstand_1 \(master_bedroom\) or nightstand_2"):
        ground_goal((("on", "alarm clock", "nightstand", 1),), world, grounder, 0.5)
    goal = ground_goal((("on", "alarm clock", "nightstand 2", 1), ("inside", "toothbrushes", "washbasin", 1)),
                       world, grounder, 0.5)
    assert [(g.obj_type, g.destination) for g in goal] == [("alarm_clock", "nightstand_2"), ("toothbrush", "washbasin")]


@pytest.mark.parametrize("directive, expected", [
    ("put a pair of headphones on the couch", ("on", "headphones", "couch", 1)),
    ("put one pair of tweezers on the vanity", ("on", "tweezers", "vanity", 1)),
    ("put a pair of nail clippers inside the mirror cabinet", ("inside", "nail_clippers", "mirror_cabinet", 1)),
    ("put a pair of pyjamas on the single bed", ("on", "pyjamas", "single_bed", 1)),
    ("put the biscuits into the cupboard", ("inside", "biscuits", "cupboard", 1)),
])
def test_a_pair_of_a_noun_counted_in_pairs_is_one(parser, directive, expected):
    """The instructions the task generator writes for such types (world.pair_nouns.PAIR_NOUNS): "a pair of
    headphones" is one headphones, not two."""
    assert _items(parser, directive) == {expected}
