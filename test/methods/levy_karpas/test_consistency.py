"""Phase II retry order and failure messages, with a scripted solver (no Fast Downward)."""
from __future__ import annotations

import dataclasses

import pytest

from llm_planner.methods.levy_karpas.consistency import check_consistency
from llm_planner.methods.levy_karpas.template import PlanTemplate, parse_template
from llm_planner.domains.household.world import pddl
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Action, GoalItem, Household, state_goal


@pytest.fixture(scope="module")
def seen() -> Household:
    return Household(load_scene("apartment_seen"))


class Scripted:
    """Solves exactly the (goal, template) pairs it is told; records every call."""

    def __init__(self, solvable):
        self.solvable = solvable
        self.calls = []

    def __call__(self, household, state, goal, template, timeout_s):
        self.calls.append((tuple(goal), str(template)))
        if self.solvable(tuple(goal), template):
            return pddl.PlanResult([Action("walk", ("kitchen",))], pddl.SOLVED, 0.0, "ok")
        return pddl.PlanResult(None, pddl.UNSOLVABLE, 0.0, "no plan")


GOAL = (GoalItem("inside", "apple", "fridge", 1),)
OTHER = (GoalItem("on", "apple", "kitchen_table", 1),)
T = [parse_template(f"walk(kitchen), walk({f})") for f in ("fridge", "stove", "kitchen_table", "microwave",
                                                           "dishwasher", "kitchen_counter", "kitchen_cabinet")]


def test_the_goal_stays_fixed_and_the_next_template_is_tried(seen):
    solver = Scripted(lambda g, t: str(t) == str(T[2]))
    result = check_consistency(seen, seen.sample_initial_state(0), [GOAL, OTHER], T, tries=5, solver=solver)
    assert result.consistent and result.chosen.template == T[2]
    assert solver.calls == [(GOAL, str(T[0])), (GOAL, str(T[1])), (GOAL, str(T[2]))]
    assert "try 3 of at most 5" in result.message


def test_at_most_b_tries_then_the_contradiction_is_named(seen):
    solver = Scripted(lambda g, t: not g or t.empty)  # goal alone and template alone fine, never both
    result = check_consistency(seen, seen.sample_initial_state(0), [GOAL], T, tries=5, solver=solver)
    assert not result.consistent and len(result.attempts) == 5
    assert [c[1] for c in solver.calls[:5]] == [str(t) for t in T[:5]]
    assert "contradicts the goal in all 5 prediction(s)" in result.message


def test_unreachable_goal_and_infeasible_template_are_told_apart(seen):
    state = seen.sample_initial_state(0)
    result = check_consistency(seen, state, [GOAL], T[:2], solver=Scripted(lambda g, t: False))
    assert "goal (put one apple inside the fridge) cannot be reached" in result.message
    result = check_consistency(seen, state, [GOAL], T[:2], solver=Scripted(lambda g, t: t.empty))
    assert "plan template cannot be followed" in result.message and str(T[0]) in result.message


def test_goal_only_directives_try_the_next_goal_reading(seen):
    solver = Scripted(lambda g, t: g == OTHER)
    result = check_consistency(seen, seen.sample_initial_state(0), [GOAL, OTHER], [], solver=solver)
    assert result.consistent and result.chosen.goal == OTHER and len(result.attempts) == 2


def test_impossible_goals_and_empty_predictions(seen):
    state = seen.sample_initial_state(0)
    three = (GoalItem("inside", "apple", "fridge", 3),)
    result = check_consistency(seen, state, [three], [], solver=Scripted(lambda g, t: True))
    assert not result.consistent and "needs 3 apple(s) but the scene has 2" in result.message
    assert "neither a goal nor a plan template" in check_consistency(seen, state, [], [PlanTemplate()]).message


def test_a_mixed_goal_is_checked_through_fast_downward(seen):
    """A goal with a state item and a placement, with a template that contradicts it and one that fits."""
    off = dataclasses.replace(seen.sample_initial_state(3), switched_on=frozenset())
    goal = (state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1))
    templates = [parse_template("walk(kitchen), walk(fridge)"), parse_template("partial: walk(tv_stand), switchon(tv)")]
    result = check_consistency(seen, off, [goal], templates, tries=2, timeout_s=60)
    assert result.consistent and result.chosen.template == templates[1], result.message
    assert [a.status for a in result.attempts] == [pddl.UNSOLVABLE, pddl.SOLVED]
    assert pddl.replay_problem(seen, off, result.plan, goal) is None
