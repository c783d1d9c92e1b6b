"""Ask back: the goal reader asks where one answer settles a directive, each option's
directive reads to a goal, and answers are read as people say them. Offline backend, no ROS."""
from __future__ import annotations

import pytest

from llm_planner.clarification import CONFIRM, COUNT, NO, PLACE, YES, NeedsAnswer, approval_question
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.errors import GoalError
from llm_planner.translation.translate import translate_directive
from llm_planner.translation import read_answer


@pytest.fixture(scope="module")
def backend():
    from llm_planner.llm.factory import make_backend

    return make_backend(backend="offline")


@pytest.fixture(scope="module")
def seen():
    return Household(load_scene("apartment_seen"))


def _question(directive, household, backend):
    with pytest.raises(NeedsAnswer) as info:
        translate_directive(directive, household, backend)
    return info.value


def _goal(directive, household, backend):
    return {(g.rel, g.obj_type, g.destination, g.count) for g in translate_directive(directive, household, backend).goal}


def test_which_table_is_asked_with_the_refusal_kept_and_each_option_reads_to_its_goal(seen, backend):
    exc = _question("put the mug on the table", seen, backend)
    q = exc.question
    assert q.text == "which table: kitchen table (kitchen) or coffee table (living room)?"
    assert q.kind == PLACE and [o.value for o in q.options] == ["kitchen_table", "coffee_table"]
    assert "which table: kitchen table (kitchen) or coffee table (living room)? say it" in str(exc)  # today's refusal
    assert isinstance(exc, GoalError)  # callers that never answer see a refusal
    assert _goal(q.options[1].directive, seen, backend) == {("on", "mug", "coffee_table", 1)}


@pytest.mark.parametrize("answer,value", [
    ("the coffee table", "coffee_table"), ("Coffee table, please.", "coffee_table"), ("the second one", "coffee_table"),
    ("the one in the living room", "coffee_table"), ("on the kitchen table", "kitchen_table"),
    ("the dining table", "kitchen_table"),  # the reader's synonyms
    ("the first", "kitchen_table"), ("a sandwich", None), ("yes", None), ("the sofa", None)])
def test_answers_to_which_table_are_read_as_directives_are(seen, backend, answer, value):
    q = _question("put the mug on the table", seen, backend).question
    option = read_answer(seen, backend, q, answer)
    assert (option.value if option else None) == value


def test_the_glass_is_asked_about_not_guessed(seen, backend):
    q = _question("Put the glass in the dishwasher.", seen, backend).question
    assert q.text == "which glass: wine glass or glasses?"
    option = read_answer(seen, backend, q, "the wine glass")
    assert _goal(option.directive, seen, backend) == {("inside", "wine_glass", "dishwasher", 1)}
    assert read_answer(seen, backend, q, "my eyeglasses").value == "glasses"


def test_more_than_the_apartment_has_asks_how_many(seen, backend):
    q = _question("Put three apples in the fridge.", seen, backend).question
    assert q.kind == COUNT and q.labels == ("one", "two")
    assert "the goal needs 3 apple(s) but the scene has 2" in q.refusal
    for answer, count in (("two", 2), ("2", 2), ("both", 2), ("all of them", 2), ("just one", 1)):
        option = read_answer(seen, backend, q, answer)
        assert _goal(option.directive, seen, backend) == {("inside", "apple", "fridge", count)}, answer
    assert read_answer(seen, backend, q, "three") is None


@pytest.mark.parametrize("directive,asks,answer,goal", [
    ("Take the book to the bedroom.", "where in the bedroom", "the nightstand", ("on", "book", "nightstand", 1)),
    ("Put the apple in the pantry.", "this apartment has no pantry", "kitchen cabinet",
     ("inside", "apple", "kitchen_cabinet", 1)),
    ("Bring me the apple.", "where should the apple go", "the fridge", ("inside", "apple", "fridge", 1)),
    ("Put the apple somewhere.", "where should the apple go", "kitchen table", ("on", "apple", "kitchen_table", 1)),
])
def test_where_is_asked_for_a_room_a_missing_place_and_none_said(seen, backend, directive, asks, answer, goal):
    q = _question(directive, seen, backend).question
    assert q.text.startswith(asks), q.text
    assert _goal(read_answer(seen, backend, q, answer).directive, seen, backend) == {goal}


def test_what_one_answer_cannot_settle_stays_a_refusal(seen, backend):
    for directive in ("Put some fruit in the fridge.", "Put the laptop on the desk.", "Don't put the milk in the fridge."):
        with pytest.raises(GoalError) as info:
            translate_directive(directive, seen, backend)
        assert not isinstance(info.value, NeedsAnswer), directive


def test_approval_reads_yes_and_no():
    q = approval_question("put one apple inside the fridge", ["walk(kitchen)", "open(fridge)"])
    assert q.kind == CONFIRM and q.text.startswith("May I put one apple inside the fridge?")
    assert "walk(kitchen), open(fridge)" in q.text
    assert [q.read(a).value for a in ("yes", "Yes please.", "sure", "go ahead", "no", "No, don't.", "nope")] == \
        [YES, YES, YES, YES, NO, NO, NO]
    assert q.read("the fridge") is None


def test_a_garbled_name_is_proposed_back_and_yes_takes_it(seen, backend):
    """Speech drops and garbles words: "ultimately alt control" for "remote control"."""
    q = _question("put the ultimately alt control on the sofa", seen, backend).question
    assert q.text == "this apartment has no ultimately alt control; did you mean the remote control?"
    option = read_answer(seen, backend, q, "yes")
    assert _goal(option.directive, seen, backend) == {("on", "remote_control", "sofa", 1)}
    assert q.declined("no") and not q.declined("the remote control") and not q.declined("nonsense")


def test_a_thing_the_apartment_lacks_is_never_proposed_as_another_thing(backend):
    flat = Household(load_scene("examples/long_flat"))
    with pytest.raises(GoalError) as info:  # the flat has a game controller and no remote control
        translate_directive("put the remote control on the couch", flat, backend)
    assert not isinstance(info.value, NeedsAnswer) and "the closest objects are game_controller" in str(info.value)
