"""The seed's PDDL encodings, solved by Fast Downward (few solves: ~1 s each)."""
from __future__ import annotations

import dataclasses

import pytest

from llm_planner.methods.levy_karpas.encoding import (
    combined_goal,
    parse_sexpr,
    solve_combined,
    template_domain,
    template_init,
    template_objects,
)
from llm_planner.methods.levy_karpas.template import PlanTemplate, TemplateError, check_template, lift_plan, parse_template
from llm_planner.domains.household.world import pddl
from llm_planner.domains.household.world.expert import expert_plan
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Action, GoalItem, Household, state_goal


@pytest.fixture(scope="module")
def seen() -> Household:
    return Household(load_scene("apartment_seen"))


def _with_apple_in_fridge(h: Household, seed: int = 0):
    """A start state where apple_1 is already inside the fridge and apple_2 is not."""
    state = h.sample_initial_state(seed)
    placement = list(state.placement)
    placement[h.index["apple_1"]] = "fridge"
    placement[h.index["apple_2"]] = "kitchen_table"
    return dataclasses.replace(state, placement=tuple(placement))


def test_two_apples_need_two_distinct_objects(seen):
    goal = (GoalItem("inside", "apple", "fridge", 2),)
    text = pddl.goal_pddl(goal)
    assert "(not (= ?apple_1 ?apple_2))" in text and text.startswith("(exists (?apple_1 - apple ?apple_2 - apple)")
    state = _with_apple_in_fridge(seen)
    result = solve_combined(seen, state, goal, PlanTemplate(), timeout_s=30)
    assert result.solved, result.message
    # one apple is already inside: a goal without distinct variables would hold with no action at all
    assert [a.args for a in result.actions if a.verb == "putin"] == [("apple_2", "fridge")]


def test_derived_domain_adds_step_predicates_to_every_action(seen):
    plain = parse_sexpr(template_domain(seen))
    assert {part[1] for part in plain if isinstance(part, list) and part[0] == ":action"} == (
        set(pddl.ACTION_MAP) - {"switchon", "switchoff"})
    domain = parse_sexpr(template_domain(seen, switches=True))
    actions = {part[1]: part for part in domain if isinstance(part, list) and part[0] == ":action"}
    assert set(actions) == set(pddl.ACTION_MAP)
    for name, action in actions.items():
        params = action[action.index(":parameters") + 1]
        assert params[-6:] == ["?step_from", "-", "step", "?step_to", "-", "step"], name
        text = str(action)
        assert f"allowed_{pddl.ACTION_MAP[name][0]}" in text and "current_step" in text and "next" in text
    assert ":disjunctive-preconditions" in next(p for p in domain if isinstance(p, list) and p[0] == ":requirements")
    init = template_init(seen, parse_template("walk(kitchen), grab(apple)"))
    assert "(allowed_walk s0)" in init and "(allowed_arg1 k_apple s1)" in init and "(next s1 s2)" in init
    assert combined_goal((), parse_template("walk(kitchen), grab(apple)")) == "(current_step s2)"


def test_template_forces_length_and_action_types(seen):
    goal = (GoalItem("inside", "apple", "fridge", 1),)
    state = _with_apple_in_fridge(seen, 1)
    state = dataclasses.replace(state, placement=tuple("kitchen_table" if o.startswith("apple") else p
                                                       for o, p in zip(seen.objects, state.placement)))
    gold = lift_plan(seen, expert_plan(seen, state, goal))
    longer = PlanTemplate(gold.steps[:1] + (parse_template("walk(bedroom), walk(kitchen)").steps) + gold.steps[1:])
    result = solve_combined(seen, state, goal, longer, timeout_s=30)
    assert result.solved, result.message
    assert len(result.actions) == len(longer)  # a detour the planner alone would never take
    assert lift_plan(seen, result.actions) == longer
    # the same goal with a template that grabs a banana instead cannot be followed
    wrong = PlanTemplate(tuple(dataclasses.replace(s, args=tuple("banana" if a == "apple" else a for a in s.args))
                               for s in gold.steps))
    assert not solve_combined(seen, state, goal, wrong, timeout_s=30).solved


def test_partial_template_starts_the_plan_and_keeps_its_order(seen):
    goal = (GoalItem("on", "book", "sofa", 1),)
    state = seen.sample_initial_state(3)
    template = parse_template("partial: walk(kitchen), walk(bedroom)")
    result = solve_combined(seen, state, goal, template, timeout_s=30)
    assert result.solved, result.message
    walks = [a.args[0] for a in result.actions if a.verb == "walk"]
    assert result.actions[0].args == ("kitchen",) and "bedroom" in walks[1:]
    assert pddl.replay_problem(seen, state, result.actions, goal) is None


def test_templates_with_unknown_actions_or_kinds_are_refused(seen):
    with pytest.raises(TemplateError, match=r"step 2: unknown action 'slice'"):
        parse_template("walk(kitchen), slice(apple)")
    with pytest.raises(TemplateError, match="takes 2 argument"):
        parse_template("putin(apple)")
    with pytest.raises(TemplateError, match="'fridge' is a container; argument 1 of grab must be a object type"):
        check_template(seen, parse_template("walk(kitchen), grab(fridge)"))
    with pytest.raises(TemplateError, match="no 'pizza'"):
        check_template(seen, parse_template("grab(pizza)"))


def test_switching_enters_the_encoding_only_when_asked(seen):
    plain = template_domain(seen)
    assert "(:action switchon" not in plain and "device" not in plain
    switching = template_domain(seen, switches=True)
    assert "(:action switchon" in switching and "(switch_at ?d - object ?f - furniture)" in switching
    template = parse_template("walk(tv_stand), switchon(tv)")
    assert template_objects(seen, template) == template_objects(seen, template, ())
    assert "k_tv " not in " ".join(template_objects(seen, template))
    assert "k_tv " in " ".join(template_objects(seen, template, ("tv", "microwave")))
    atoms = template_init(seen, template, ("tv", "microwave"))
    assert "(of_kind tv k_tv)" in atoms and atoms.count("(of_kind microwave k_microwave)") == 1


def test_state_goals_and_switch_templates_are_solved_and_replay(seen):
    off = dataclasses.replace(seen.sample_initial_state(3), switched_on=frozenset())
    mixed = (state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1))
    result = solve_combined(seen, off, mixed, parse_template("partial: walk(tv_stand), switchon(tv)"), 60)
    assert result.solved, result.message
    assert result.actions[:2] == [Action("walk", ("tv_stand",)), Action("switchon", ("tv",))]
    assert pddl.replay_problem(seen, off, result.actions, mixed) is None
    steps = solve_combined(seen, off, (), parse_template("walk(kitchen), walk(microwave), switchon(microwave)"), 60)
    assert steps.solved and steps.actions[-1] == Action("switchon", ("microwave",))
    with pytest.raises(TemplateError, match="'apple' is a object type; argument 1 of switchon"):
        check_template(seen, parse_template("switchon(apple)"))
