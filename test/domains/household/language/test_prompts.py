"""Prompt templates (prompts.py, prompts/*.txt) after LLM-MCTS App. F and STaLM Figure 3."""
from __future__ import annotations

import pytest

from llm_planner.errors import LLMError
from llm_planner.domains.household.language.prompts import render, translate_prompt, world_model_prompt
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
