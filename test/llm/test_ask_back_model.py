"""Asking back on the model path: a directive the offline reader would ask about is asked about, not
left to the model's guess (an OpenAI-compatible test server answers at the HTTP boundary)."""
from __future__ import annotations

import pytest

from llm_planner.clarification import NeedsAnswer
from llm_planner.domains.household.world.symbolic import GoalItem
from llm_planner.translation.translate import translate_directive


def test_the_models_guess_of_which_table_is_not_taken_the_person_is_asked(openai_backend, fake_openai, seen):
    lm = openai_backend()
    fake_openai.answer = "(ON, mug, kitchen_table, 1)"  # one of two tables, picked by the model
    with pytest.raises(NeedsAnswer) as info:
        translate_directive("put the mug on the table", seen, lm)
    assert info.value.question.text == "which table: kitchen table (kitchen) or coffee table (living room)?"
    fake_openai.answer = "(ON, mug, coffee_table, 1)"  # the answered directive reads plainly
    result = translate_directive(info.value.question.options[1].directive, seen, lm)
    assert result.goal == (GoalItem("on", "mug", "coffee_table", 1),)
