"""Goal translation with grounding and validation (translate.py) and `llm-planner translate`."""
from __future__ import annotations

import json

import pytest

from llm_planner import cli
from llm_planner.errors import GoalError
from llm_planner.translation.translate import translate_directive
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
    """SmolLM2 answered "put one apple inside the fridge" with the prompt example's sub-goal too; on a
    directive the reader does not read, the check against the words refuses such a goal."""
    from llm_planner.reading import UnsupportedGoal

    lm = openai_backend()
    fake_openai.answer = "(INSIDE, apple, fridge, 1)-(ON, apple, kitchen_table, 1)"
    with pytest.raises(UnsupportedGoal, match="the model added 'an apple on the kitchen table', which the directive "
                                              "does not ask for") as info:
        translate_directive("place one apple into the fridge, it is ripe", seen, lm)
    assert info.value.goal == (GoalItem("inside", "apple", "fridge", 1), GoalItem("on", "apple", "kitchen_table", 1))
    fake_openai.answer = "(INSIDE, mugs, dishwasher, 3)"
    with pytest.raises(UnsupportedGoal, match=r"the model said three mugs, the directive says two \('2 mugs'\)"):
        translate_directive("place 2 mugs into the dishwasher, they are dirty", seen, lm)


def test_where_the_reader_reads_the_directive_its_goal_stands_and_the_model_is_not_asked(openai_backend, fake_openai,
                                                                                       seen):
    lm = openai_backend()
    fake_openai.answer = "(INSIDE, apple, fridge, 1)-(ON, apple, kitchen_table, 1)"  # the example's sub-goal copied
    asked = len(fake_openai.requests)
    result = translate_directive("put one apple inside the fridge", seen, lm)
    assert result.goal == (GoalItem("inside", "apple", "fridge", 1),) and result.read_by_reader
    assert len(fake_openai.requests) == asked and "the model was not asked" in result.message
    always = openai_backend(translate__ask_model="always")
    result = translate_directive("put one apple inside the fridge", seen, always)
    assert result.goal == (GoalItem("inside", "apple", "fridge", 1),)  # the reader's goal stands, never refused
    assert len(fake_openai.requests) > asked
    assert result.disagreement == "the model added 'an apple on the kitchen table', which the directive does not ask for"
    assert "the model disagreed" in result.message


@pytest.mark.parametrize("directive", ["put -1 apples in the fridge", "don't put the apple in the fridge",
                                       "put half the apples in the fridge", "take the milk out of the fridge",
                                       "put the banana in the fridge and the banana on the sofa"])
def test_the_model_path_refuses_what_the_reader_refuses_with_the_same_message(directive, openai_backend, fake_openai,
                                                                              offline, seen, seen_world):
    from llm_planner.errors import DirectiveRefused
    from llm_planner.reading import check_model_goal

    with pytest.raises(DirectiveRefused) as offline_refusal:
        translate_directive(directive, seen, offline)
    fake_openai.answer = "(INSIDE, apple, fridge, 2)"
    asked = len(fake_openai.requests)
    with pytest.raises(DirectiveRefused) as model_refusal:
        translate_directive(directive, seen, openai_backend(translate__ask_model="always"))
    with pytest.raises(DirectiveRefused) as check_refusal:
        check_model_goal(directive, (GoalItem("inside", "apple", "fridge", 2),), seen_world, offline.resources)
    assert str(offline_refusal.value) == str(model_refusal.value) == str(check_refusal.value)
    assert len(fake_openai.requests) == asked  # refused before any model is asked


def test_a_state_directive_translates_to_a_checked_goal_with_state_items(offline, seen):
    result = translate_directive("put the milk in the fridge and close it", seen, offline)
    assert result.goal == (GoalItem("inside", "milk", "fridge", 1), GoalItem("closed", "fridge", "", 1))
    with pytest.raises(GoalError, match="cannot be switched on or off"):
        translate_directive("turn on the apple", seen, offline)


def test_a_models_state_items_are_checked_against_the_words(openai_backend, fake_openai, seen):
    """The reader does not read "..., it is too loud"; the model's state must be the one the words say."""
    from llm_planner.reading import UnsupportedGoal

    lm = openai_backend()
    fake_openai.answer = "(ON, tv)"
    with pytest.raises(UnsupportedGoal, match="the model asked the tv on, the directive says off"):
        translate_directive("switch off the TV, it is too loud", seen, lm)
    fake_openai.answer = '{"goal": [["off", "television"]]}'  # the JSON state form [rel, thing]
    result = translate_directive("switch off the TV, it is so loud", seen, lm)  # another directive: not cached
    assert result.goal == (GoalItem("off", "tv", "", 1),)
    fake_openai.answer = "(OFF, tv)-(ON, floor lamp)"
    with pytest.raises(UnsupportedGoal, match="the model added 'the floor lamp on'"):
        translate_directive("switch off the TV, it is very loud", seen, lm)
