"""The directive data set (gold goals/templates, reproducible, splits disjoint) and the seed's measures."""
from __future__ import annotations

import pytest

from llm_planner.methods.levy_karpas.config import load_config
from llm_planner.methods.levy_karpas.dataset import MIXTURE, PAIR, build_splits, generate_split
from llm_planner.methods.levy_karpas.metrics import score_goal, score_template
from llm_planner.methods.levy_karpas.template import lift_plan, parse_template
from llm_planner.domains.household.world import pddl
from llm_planner.domains.household.world.expert import expert_plan
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import GoalItem, Household


@pytest.fixture(scope="module")
def config():
    return load_config()["dataset"]


def test_splits_are_reproducible_and_disjoint(config):
    a = generate_split("test", "apartment_seen", 12, 5, config)
    assert a == generate_split("test", "apartment_seen", 12, 5, config)
    assert a != generate_split("test", "apartment_seen", 12, 6, config)
    small = {**config, "splits": {"train": {"scene": "apartment_seen", "n": 40, "seed": 1},
                                  "test": {"scene": "apartment_seen", "n": 40, "seed": 2}}}
    splits = build_splits(small)
    test_texts = {t for s in splits["test"] for t in (s.goal_directive, s.step_directive)}
    assert not any(s.goal_directive in test_texts or s.step_directive in test_texts for s in splits["train"])
    assert {s.kind for s in splits["test"]} == {PAIR, MIXTURE}


def test_gold_templates_are_the_expert_plans_and_reach_the_goal(config):
    household = Household(load_scene("apartment_seen"))
    for sample in generate_split("test", "apartment_seen", 10, 7, config):
        state = household.sample_initial_state(sample.placement_seed)
        if sample.kind == MIXTURE:
            assert sample.template.partial and [s.verb for s in sample.template.steps] == ["walk", "walk"]
            assert sample.goal_directive == sample.step_directive
            continue
        assert not sample.template.partial
        plans = [expert_plan(household, state, sample.goal, close_containers=c) for c in (False, True)]
        plan = next(p for p in plans if lift_plan(household, p) == sample.template)
        assert pddl.replay_problem(household, state, plan, sample.goal) is None
        assert [c.label for c in sample.clauses][-len(sample.template):] == [
            "put" if s.verb in ("putin", "puton") else s.verb for s in sample.template.steps]


def test_goal_measures_strict_and_permissive():
    gold = (GoalItem("on", "apple", "kitchen_table", 2),)
    tally = score_goal((GoalItem("on", "apple", "coffee_table", 2),), gold)
    assert tally.rate("predicate") == 1 and tally.rate("arg1") == 1 and tally.rate("arg2") == 0
    assert tally.rate("arg2_p") == 1 and tally.rate("fact") == 0 and tally.rate("fact_p") == 1
    assert tally.rate("goal") == 0 and tally.rate("goal_p") == 1
    one = score_goal((GoalItem("on", "apple", "kitchen_table", 1),), gold)  # one apple of two
    assert one.rate("fact") == 0.5 and one.rate("goal") == 0
    assert score_goal(None, gold).rate("predicate") == 0


def test_template_measures_by_position():
    gold = parse_template("walk(kitchen), grab(apple), putin(apple, fridge)")
    tally = score_template(parse_template("walk(kitchen), grab(banana), putin(apple, microwave)"), gold)
    assert tally.rate("op") == 1 and tally.rate("arg1") == pytest.approx(2 / 3) and tally.rate("arg2") == 0
    assert tally.rate("action") == pytest.approx(1 / 3) and tally.rate("plan") == 0
    assert tally.rate("action:walk") == 1 and tally.rate("action:grab") == 0
    assert score_template(gold, gold).rate("plan") == 1
    assert score_template(None, gold).rate("op") == 0
