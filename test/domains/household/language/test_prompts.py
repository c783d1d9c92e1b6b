"""Prompt templates (prompts.py, prompts/*.txt) after LLM-MCTS App. F and STaLM Figure 3."""
from __future__ import annotations

import dataclasses
from string import Template

import pytest

from llm_planner.errors import LLMError
from llm_planner.domains.household.language.prompts import (
    PROMPTS_DIR,
    _names,
    furniture_text,
    objects_text,
    policy_prompt,
    render,
    translate_prompt,
    world_model_prompt,
)
from llm_planner.domains.household.language.text import observation_to_text
from llm_planner.domains.household.language.retrieval import FIXED_TRANSLATION_EXAMPLES


def test_world_model_prompt_lists_the_scene(seen_world):
    prompt = world_model_prompt(seen_world, "bread_slice")
    assert "Containers in the apartment: fridge, kitchen cabinet, dishwasher" in prompt
    assert prompt.count("Question:") == 4 and prompt.endswith("possible positions of bread slice?\nAnswer:")


def test_translate_prompt_examples(seen_world):
    prompt = translate_prompt(seen_world, "put $HOME {x} in the fridge", FIXED_TRANSLATION_EXAMPLES)
    assert "Formal goal: (INSIDE, toothbrush, bathroom_cabinet, 1)" in prompt
    assert prompt.endswith("Goal: put $HOME {x} in the fridge\nFormal goal:")  # inserted text stays text


def test_missing_fields_are_errors():
    with pytest.raises(LLMError, match="needs the field 'goal'"):
        render("policy_example", completed="", observation="", next="")


def test_the_policy_prompt_tells_switching_only_to_a_goal_that_asks_for_it(seen, seen_world):

    state = seen.initial_state(seen.scene.sample_placement(0), room="living_room", switched_on=frozenset({"tv"}))
    obs = seen.observe(state)
    placement = policy_prompt(seen_world, "put an apple inside the fridge", obs, (), ["EXAMPLE"])
    template = (PROMPTS_DIR / "policy.txt").read_text().replace("$switch_actions", "").replace("$switch_things", "")
    bare = dataclasses.replace(obs, switched_on=frozenset(), switched_off=frozenset())
    assert placement == policy_prompt(seen_world, "put an apple inside the fridge", bare, (), ["EXAMPLE"])
    old = Template(template).substitute(  # the template as it was before switching existed
        rooms=_names(seen_world.rooms), furniture=furniture_text(seen_world), objects=objects_text(seen_world),
        examples="EXAMPLE", goal="put an apple inside the fridge", completed="none",
        observation=observation_to_text(bare, seen_world)).rstrip("\n")
    assert placement == old
    assert "switch" not in placement and "the tv is" not in placement
    asked = policy_prompt(seen_world, "turn on the tv", obs, (), ["EXAMPLE"], ("tv",))
    assert "switch on <thing>, switch off <thing>." in asked
    assert "tv (switched at the tv stand in the living room)" in asked and "stove (in the kitchen)" in asked
    assert asked.rstrip().endswith("the tv is on.\nNext action:")
