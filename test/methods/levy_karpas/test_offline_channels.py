"""Phase I offline channels: clause labels learnt from the train split, readings ranked, D vs D+S."""
from __future__ import annotations

import dataclasses

import pytest

from llm_planner.methods.levy_karpas.config import load_config
from llm_planner.methods.levy_karpas.system import LevyKarpasSystem
from llm_planner.methods.levy_karpas.template import parse_template
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world import pddl
from llm_planner.domains.household.world.symbolic import GoalItem, Household, state_goal


@pytest.fixture(scope="module")
def system(tmp_path_factory):
    from llm_planner.llm.factory import make_backend

    config = load_config()
    config["dataset"]["splits"]["train"]["n"] = 120  # a smaller train split trains faster
    backend = make_backend(backend="offline", cache__dir=str(tmp_path_factory.mktemp("nl2pddl_cache")))
    return LevyKarpasSystem(backend, config)


@pytest.fixture(scope="module")
def seen() -> Household:
    return Household(load_scene("apartment_seen"))


def test_mixed_directive_gives_goal_and_partial_template(system, seen):
    out = system.translate(seen, "go to the bedroom through the kitchen and bring the book to the sofa")
    assert out.goals[0] == (GoalItem("on", "book", "sofa", 1),)
    assert out.templates[0] == parse_template("partial: walk(kitchen), walk(bedroom)")


def test_step_instructions_give_an_exact_template_and_no_goal(system, seen):
    out = system.translate(seen, "go to the kitchen, walk to the fridge and open it, then take the apple, "
                                 "put it on the kitchen table")
    assert out.goals == []
    assert out.templates[0] == parse_template("walk(kitchen), walk(fridge), open(fridge), grab(apple), "
                                              "puton(apple, kitchen_table)")


def test_the_state_resolves_what_the_directive_leaves_open(system, seen):
    state = seen.sample_initial_state(0)  # the robot starts in the living room
    directive = "go to the table, then go to the kitchen"
    with_state = system.translate(seen, directive, state=state).templates
    assert with_state[0].steps[0].args == ("coffee_table",)  # the table of the robot's room
    alone = system.translate(seen, directive).templates
    assert {t.steps[0].args[0] for t in alone} >= {"coffee_table", "kitchen_table"}  # both readings ranked
    # a category word and a place: the fruit that is on that place in the state
    banana_on_counter = dataclasses.replace(state, placement=tuple(
        "kitchen_counter" if o == "banana_1" else ("fridge" if o.startswith("apple") else p)
        for o, p in zip(seen.objects, state.placement)))
    goals = system.translate(seen, "put the fruit from the kitchen counter in the fridge",
                             state=banana_on_counter).goals
    assert goals[0] == (GoalItem("inside", "banana", "fridge", 1),)


def test_an_action_the_domain_lacks_is_named(system, seen):
    out = system.translate(seen, "go to the kitchen, slice the tomato with the knife")
    assert out.templates == [] and "'slice the tomato with the knife' names no action" in out.template_error


@pytest.mark.parametrize("directive, goal", [
    ("close the fridge", (state_goal("closed", "fridge"),)),
    ("leave the fridge open", (state_goal("open", "fridge"),)),
    ("turn the tv off", (state_goal("off", "tv"),)),
    ("switch off the lamp in the bedroom", (state_goal("off", "desk_lamp"),)),
    ("turn on the tv and put the remote on the sofa",
     (GoalItem("on", "remote_control", "sofa", 1), state_goal("on", "tv"))),
    ("put the milk in the fridge and close it", (GoalItem("inside", "milk", "fridge", 1), state_goal("closed", "fridge"))),
    ("open the dishwasher, put two plates in it and close it",  # the last state asked of a thing is the goal's
     (GoalItem("inside", "plate", "dishwasher", 2), state_goal("closed", "dishwasher"))),
])
def test_state_clauses_give_state_items_of_the_goal(system, seen, directive, goal):
    out = system.translate(seen, directive)
    assert out.goals and out.goals[0] == goal, (out.goals, out.goal_error)
    assert out.templates == [] and not out.template_error


@pytest.mark.parametrize("directive, refusal", [
    ("don't close the fridge", "'don't close the fridge' says what not to do"),
    ("turn on the apple", "'apple' cannot be switched on or off (things that switch: tv, floor lamp"),
    ("open the tv", "'tv' cannot be opened or closed (things that open: fridge"),
    ("turn on the sofa", "'sofa' cannot be switched on or off"),
])
def test_what_cannot_be_so_and_negations_are_refused(system, seen, directive, refusal):
    out = system.translate(seen, directive)
    assert out.goals == [] and out.templates == [] and refusal in out.goal_error


def test_a_mixed_state_directive_is_planned_to_its_goal(system, seen):
    state = dataclasses.replace(seen.sample_initial_state(3), switched_on=frozenset())
    goal = (GoalItem("on", "remote_control", "sofa", 1), state_goal("on", "tv"))
    result = system.run(seen, state, "turn on the tv and put the remote on the sofa")
    assert result.plan is not None and result.check.chosen.goal == goal, result.message
    assert pddl.replay_problem(seen, state, result.plan, goal) is None
