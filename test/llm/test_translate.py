"""Goal translation with grounding and validation (translate.py) and `llm-planner translate`."""
from __future__ import annotations

import json

import pytest

from llm_planner import cli
from llm_planner.errors import GoalError
from llm_planner.llm.translate import ground_goal, translate_directive
from llm_planner.domains.household.world.symbolic import GoalItem


def test_directive_to_validated_goal_with_pddl(offline, seen):
    result = translate_directive("could you put two apples in the refrigerator and the plate on the kitchen table",
                                 seen, offline)
    assert result.goal == (GoalItem("inside", "apple", "fridge", 2), GoalItem("on", "plate", "kitchen_table", 1))
    assert result.pddl.startswith("(and (exists (?apple") and "(on ?plate" in result.pddl
    assert result.info.backend == "offline" and result.message.startswith("goal: put two apples inside the fridge")


def test_impossible_goals_are_goal_errors(offline, seen, unseen):
    with pytest.raises(GoalError, match="needs 3 apple"):
        translate_directive("put three apples in the fridge", seen, offline)
    with pytest.raises(GoalError, match="container: objects go inside it, not on"):
        translate_directive("put the apple on the fridge", seen, offline)
    assert translate_directive("put three apples in the fridge", unseen, offline).goal[0].count == 3


def test_model_words_are_grounded_and_a_repeated_item_is_refused(offline, seen_world):
    items = (("inside", "apples", "refrigerator", 2), ("on", "Plate", "kitchentable", 1))
    goal = ground_goal(items, seen_world, offline.resources.grounder, 0.58)
    assert goal == (GoalItem("inside", "apple", "fridge", 2), GoalItem("on", "plate", "kitchen_table", 1))
    twice = (("inside", "apples", "refrigerator", 1), ("inside", "apple", "fridge", 1))  # two apples, or one said twice?
    with pytest.raises(GoalError, match=r"names apple inside the fridge twice; .*\(INSIDE, apple, fridge, 2\)"):
        ground_goal(twice, seen_world, offline.resources.grounder, 0.58)
    with pytest.raises(GoalError, match="no object 'unicorn'; the closest known names are"):
        ground_goal((("on", "unicorn", "sofa", 1),), seen_world, offline.resources.grounder, 0.58)


def test_cli_json_gives_the_two_grounded_tuples(capsys, offline):
    code = cli.main(["translate", "could you put two apples in the refrigerator and the plate on the kitchen table",
                     "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["goal"] == [["inside", "apple", "fridge", 2], ["on", "plate", "kitchen_table", 1]]
    assert set(out) == {"goal", "pddl", "message"}
    code = cli.main(["translate", "put the dragon in the fridge", "--json"])
    assert code == 1 and "no 'dragon'" in json.loads(capsys.readouterr().out)["error"]
    code = cli.main(["translate", "put one towel inside the bathroom cabinet", "--scene", "apartment_unseen"])
    assert code == 0 and "(INSIDE, towel, bathroom_cabinet, 1)" in capsys.readouterr().out


def test_a_sub_goal_the_model_made_up_is_refused_before_anything_runs(openai_backend, fake_openai, seen):
    """Issue 21: SmolLM2 answered "put one apple inside the fridge" with the prompt example's sub-goal too."""
    from llm_planner.llm.goal_support import UnsupportedGoal

    lm = openai_backend()
    fake_openai.answer = "(INSIDE, apple, fridge, 1)-(ON, apple, kitchen_table, 1)"
    with pytest.raises(UnsupportedGoal, match="the model added 'an apple on the kitchen table', which the directive "
                                              "does not ask for") as info:
        translate_directive("put one apple inside the fridge", seen, lm)
    assert info.value.goal == (GoalItem("inside", "apple", "fridge", 1), GoalItem("on", "apple", "kitchen_table", 1))
    fake_openai.answer = "(INSIDE, apples, refrigerator, 3)"
    with pytest.raises(UnsupportedGoal, match="the model said three apples, the directive says two"):
        translate_directive("put two apples in the fridge", seen, lm)
    fake_openai.answer = "(INSIDE, banana, fridge, 1)"
    with pytest.raises(UnsupportedGoal, match="added 'a banana inside the fridge'.*dropped 'an apple inside the fridge'"):
        translate_directive("could you put an apple in the fridge", seen, lm)
    fake_openai.answer = "Formal goal: (INSIDE, Apple, Refrigerator, 1)"  # a new directive: not the cached answer
    assert translate_directive("put an apple inside the fridge", seen, lm).goal == (GoalItem("inside", "apple", "fridge", 1),)
