"""The expert data set D (llm_planner/domains/household/world/expert.py, `llm-planner dataset household`)."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from llm_planner import cli
from llm_planner.errors import ConfigError, PlanningError
from llm_planner.domains.household.world import expert, pddl, tasks
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Action, GoalItem, Household, state_goal


@pytest.mark.parametrize("suite", tasks.SUITES)
def test_expert_solves_every_suite_within_the_step_limit(household, suite):
    for task in tasks.generate_tasks(household.scene, suite, 60, seed=11):
        trajectory = expert.solve_task(household, task)
        assert expert.replay(household, trajectory), task
        assert 4 <= trajectory.plan_length <= 30
        assert len(trajectory.observations) == trajectory.plan_length + 1


def test_expert_plans_have_the_optimal_length_on_a_sample(seen):
    """Fast Downward (A* + LM-cut) proves the expert's plans are shortest on a few compositions."""
    sample = tasks.generate_tasks(seen.scene, "comp", 2, seed=5) + tasks.generate_tasks(seen.scene, "novel_comp3", 1, seed=5)
    for task in sample:
        trajectory = expert.solve_task(seen, task)
        best = pddl.solve(seen, seen.sample_initial_state(task.placement_seed), task.goal, optimal=True)
        assert best.solved, best.message
        assert trajectory.plan_length == len(best.actions), task


def test_expert_handles_counts_closed_containers_and_done_goals(seen):
    placement = seen.scene.sample_placement(0)
    placement.update({"apple_1": "fridge", "apple_2": "kitchen_counter"})
    state = seen.initial_state(placement, room="bedroom")
    goal = (GoalItem("on", "apple", "kitchen_table", 2),)
    plan = expert.expert_plan(seen, state, goal)
    assert Action("open", ("fridge",)) in plan
    for action in plan:
        state = seen.transition(state, action)
    assert seen.satisfied(state, goal)
    assert expert.expert_plan(seen, state, goal) == []
    closing = expert.expert_plan(seen, seen.initial_state(placement), (GoalItem("inside", "apple", "dishwasher", 1),),
                                 close_containers=True)
    assert closing[-1] == Action("close", ("dishwasher",))


def test_expert_keeps_objects_another_item_needs(seen):
    placement = seen.scene.sample_placement(0)
    placement.update({"apple_1": "fridge", "apple_2": "fridge"})
    state = seen.initial_state(placement)
    goal = (GoalItem("inside", "apple", "fridge", 1), GoalItem("on", "apple", "sofa", 1))
    plan = expert.expert_plan(seen, state, goal)
    for action in plan:
        state = seen.transition(state, action)
    assert seen.satisfied(state, goal)
    assert Action("grab", ("apple_1",)) in plan or Action("grab", ("apple_2",)) in plan
    holding = seen.transition(seen.transition(seen.transition(seen.initial_state(placement),
                              Action("walk", ("kitchen",))), Action("walk", ("fridge",))), Action("open", ("fridge",)))
    holding = seen.transition(holding, Action("grab", ("apple_1",)))
    with pytest.raises(PlanningError, match="holding apple_1"):
        expert.expert_plan(seen, holding, (GoalItem("on", "plate", "sofa", 1),))
    finish = expert.expert_plan(seen, holding, (GoalItem("on", "apple", "sofa", 1),))
    assert finish[-1] == Action("puton", ("apple_1", "sofa"))


def test_replay_rejects_tampered_trajectories(seen):
    task = tasks.generate_tasks(seen.scene, "comp", 1, seed=2)[0]
    good = expert.solve_task(seen, task)
    assert expert.replay(seen, good)
    swapped = expert.Trajectory(task, good.actions[1:2] + good.actions[:1] + good.actions[2:], good.observations)
    assert not expert.replay(seen, swapped)
    short = expert.Trajectory(task, good.actions[:-1], good.observations[:-1])
    assert not expert.replay(seen, short)
    lying = expert.Trajectory(task, good.actions, good.observations[:1] * len(good.observations))
    assert not expert.replay(seen, lying)
    assert not expert.replay(Household(load_scene("apartment_unseen")), good)


def test_dataset_round_trips_and_reports_bad_lines(seen, tmp_path):
    trajectories = [expert.solve_task(seen, t) for t in expert.dataset_tasks("apartment_seen", 12, 0, ["simple", "comp"])]
    path = expert.save_dataset(tmp_path / "d.jsonl", trajectories)
    loaded = expert.load_dataset(path)
    assert loaded == trajectories
    assert all(expert.replay(seen, t) for t in loaded)
    record = json.loads(path.read_text().splitlines()[0])
    assert set(record) >= {"instruction", "goal", "observations", "actions", "plan_length"}
    path.write_text(path.read_text() + '{"task_id": "x"}\n')
    with pytest.raises(ConfigError, match=r"d.jsonl:13: not an expert trajectory record"):
        expert.load_dataset(path)
    with pytest.raises(ConfigError, match="no such data set file"):
        expert.load_dataset(tmp_path / "missing.jsonl")


def test_dataset_holds_training_suites_only():
    mixed = expert.dataset_tasks("apartment_seen", 9, 0, ["simple", "comp"])
    assert [t.suite for t in mixed].count("simple") == 5 and {t.suite for t in mixed} == {"simple", "comp"}
    with pytest.raises(ConfigError, match="'novel_simple' must stay novel"):
        expert.dataset_tasks("apartment_seen", 10, 0, ["simple", "novel_simple"])


def test_dataset_command_in_parallel(tmp_path, capsys):
    out = tmp_path / "d.jsonl"
    code = cli.main(["dataset", "household", "--n", "30", "--seed", "1", "--out", str(out), "--workers", "2",
                     "--check-pddl", "1", "--no-progress"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "all 30 trajectories replay" in printed and "optimal on 1/1" in printed
    loaded = expert.load_dataset(out)
    assert [t.task for t in loaded] == expert.dataset_tasks("apartment_seen", 30, 1, ["simple", "comp"])
    assert sum(t.pddl_plan_length is not None for t in loaded) == 1
    assert cli.main(["dataset", "household", "--n", "5", "--out", str(out), "--suites", "novel_comp2"]) == 1
    assert "must stay novel" in capsys.readouterr().err


def _reaches(household, state, goal, plan):
    for action in plan:
        assert household.why_not(state, action) is None, action
        state = household.transition(state, action)
    return household.satisfied(state, goal)


def test_expert_solves_state_and_mixed_goals(seen):
    state = replace(seen.sample_initial_state(4), opened=frozenset({"fridge"}), switched_on=frozenset({"desk_lamp"}))
    assert expert.expert_plan(seen, state, (state_goal("closed", "fridge"),)) == [
        Action("walk", ("kitchen",)), Action("walk", ("fridge",)), Action("close", ("fridge",))]
    assert expert.expert_plan(seen, state, (state_goal("on", "tv"),)) == [
        Action("walk", ("tv_stand",)), Action("switchon", ("tv",))]
    assert expert.expert_plan(seen, state, (state_goal("on", "desk_lamp"), state_goal("open", "fridge"))) == []
    goals = [(state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1)),
             (GoalItem("inside", "plate", "dishwasher", 2), state_goal("closed", "dishwasher")),
             (state_goal("off", "desk_lamp"), state_goal("on", "microwave"), GoalItem("inside", "apple", "fridge", 2))]
    for goal in goals:
        plan = expert.expert_plan(seen, state, goal)
        assert _reaches(seen, state, goal, plan), goal
        best = pddl.solve(seen, state, goal, optimal=True)
        assert best.solved and len(plan) == len(best.actions), (goal, plan, best.actions)  # optimal here


def test_closing_containers_never_undoes_an_asked_open(seen):
    placement = seen.scene.sample_placement(0)
    placement.update({"apple_1": "fridge", "apple_2": "kitchen_counter"})
    state = seen.initial_state(placement)
    goal = (GoalItem("on", "apple", "kitchen_table", 2), state_goal("open", "fridge"))
    plan = expert.expert_plan(seen, state, goal, close_containers=True)
    assert Action("close", ("fridge",)) not in plan and _reaches(seen, state, goal, plan)
    plain = expert.expert_plan(seen, state, goal[:1], close_containers=True)
    assert Action("close", ("fridge",)) in plain


def test_a_state_goal_while_holding_something(seen):
    holding = replace(seen.sample_initial_state(4), holding="book_1")
    holding = replace(holding, placement=tuple(None if o == "book_1" else p
                                               for o, p in zip(seen.objects, holding.placement)))
    plan = expert.expert_plan(seen, holding, (state_goal("off", "tv"), state_goal("on", "floor_lamp")))
    assert _reaches(seen, holding, (state_goal("off", "tv"), state_goal("on", "floor_lamp")), plan)
