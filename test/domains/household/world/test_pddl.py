"""PDDL export of the household world and Fast Downward planning (llm_planner/domains/household/world/pddl.py)."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from llm_planner.errors import PlanningError
from llm_planner.domains.household.world import pddl
from llm_planner.domains.household.world.scene import parse_scene
from dataclasses import replace

from llm_planner.domains.household.world.symbolic import Action, GoalItem, Household, state_goal


@pytest.fixture(scope="module")
def household(seen) -> Household:
    """These tests use the seen apartment only."""
    return seen


def fridge_state(household: Household):
    """Both apples inside the closed fridge, the robot in the living room, hand empty."""
    placement = household.scene.sample_placement(0)
    placement.update({"apple_1": "fridge", "apple_2": "fridge"})
    return household.initial_state(placement, room="living_room")


def test_domain_has_a_type_per_object_type_and_every_action(household):
    text = pddl.domain_pddl(household)
    types = " ".join(household.scene.object_types)
    assert f"{types} - item)" in text
    switching = pddl.domain_pddl(household, switches=True)
    for name in pddl.ACTION_MAP:
        assert f"(:action {name}\n" in switching
        assert (f"(:action {name}\n" in text) == (name not in ("switchon", "switchoff"))
    assert text.count("(") == text.count(")")


def test_goal_counts_become_distinct_existential_variables():
    text = pddl.goal_pddl((GoalItem("inside", "apple", "fridge", 2),))
    assert text.startswith("(exists (?apple_1 - apple ?apple_2 - apple)")
    assert "(not (= ?apple_1 ?apple_2))" in text
    assert "(inside ?apple_1 fridge)" in text and "(inside ?apple_2 fridge)" in text
    two = pddl.goal_pddl((GoalItem("on", "plate", "kitchen_table"), GoalItem("inside", "mug", "dishwasher")))
    assert two.startswith("(and (exists") and "(on ?plate_g0_1 kitchen_table)" in two


def test_apple_in_closed_fridge_gets_a_plan_that_replays(household):
    state = fridge_state(household)
    goal = (GoalItem("on", "apple", "kitchen_table", 1),)
    result = pddl.solve(household, state, goal)
    assert result.solved, result.message
    assert Action("open", ("fridge",)) in result.actions
    done = False
    for action in result.actions:
        assert household.why_not(state, action) is None, action
        state, _, _, done = household.step(state, action, goal)
    assert done
    assert household.count_satisfied(state, goal[0]) >= 1


def test_optimal_plan_is_no_longer_than_satisficing(household):
    state = fridge_state(household)
    goal = (GoalItem("on", "apple", "kitchen_table", 2),)
    fast = pddl.solve(household, state, goal)
    best = pddl.solve(household, state, goal, optimal=True)
    assert fast.solved and best.solved
    # walk(living->kitchen), walk(fridge), open, grab, walk(table), puton, walk(fridge), grab, walk(table), puton
    assert len(best.actions) == 10
    assert len(best.actions) <= len(fast.actions)


def test_impossible_goals_report_failure_clearly(household):
    state = fridge_state(household)
    too_many = pddl.solve(household, state, (GoalItem("inside", "apple", "fridge", 3),))
    assert too_many.status == pddl.INVALID_GOAL and not too_many.solved
    assert "needs 3 apple" in too_many.message and too_many.actions is None
    contradiction = pddl.solve(household, state, "(and (inside apple_1 fridge) (on apple_1 kitchen_table))")
    assert contradiction.status == pddl.UNSOLVABLE and contradiction.actions is None
    assert "unreachable" in contradiction.message


def test_pddl_goal_formula_plan_is_validated(household):
    state = fridge_state(household)
    result = pddl.solve(household, state, "(on apple_2 sofa)")
    assert result.solved, result.message
    assert result.actions[-1] == Action("puton", ("apple_2", "sofa"))


def test_replay_problem_names_the_failing_step(household):
    state = fridge_state(household)
    bad = [Action("walk", ("kitchen",)), Action("walk", ("fridge",)), Action("grab", ("apple_1",))]
    assert pddl.replay_problem(household, state, bad, None) == "step 3 grab(apple_1): apple_1 is not visible"
    ok = bad[:2] + [Action("open", ("fridge",))]
    goal = (GoalItem("on", "apple", "sofa", 1),)
    assert pddl.replay_problem(household, state, ok, goal) == "the final state does not satisfy the goal"


def test_switches_enter_the_domain_only_when_asked(household):
    plain = pddl.domain_pddl(household)
    assert "switch" not in plain and "device" not in plain
    switching = pddl.domain_pddl(household, switches=True)
    assert "(:action switchon\n" in switching and "(:action switchoff\n" in switching
    assert "room furniture item device - object" in switching
    assert switching.count("(") == switching.count(")")
    state = replace(fridge_state(household), switched_on=frozenset({"tv", "microwave"}))
    goal = (GoalItem("on", "apple", "sofa", 1),)
    assert pddl.problem_pddl(household, state, goal) == pddl.problem_pddl(household, fridge_state(household), goal)
    problem = pddl.problem_pddl(household, state, goal, switchables=("tv", "microwave", "desk_lamp"))
    assert "\n    tv desk_lamp - device" in problem  # the microwave is furniture already
    assert "(switched_on tv)" in problem and "(switched_on microwave)" in problem
    assert "(switched_on desk_lamp)" not in problem
    assert "(switch_at tv tv_stand)" in problem and "(switch_at microwave microwave)" in problem
    assert "(switch_at desk_lamp desk)" in problem and "floor_lamp" not in problem


def test_state_items_become_atoms_and_negations():
    assert pddl.goal_pddl((state_goal("closed", "fridge"),)) == "(not (opened fridge))"
    assert pddl.goal_pddl((state_goal("open", "fridge"),)) == "(opened fridge)"
    assert pddl.goal_pddl((state_goal("off", "tv"),)) == "(not (switched_on tv))"
    mixed = pddl.goal_pddl((state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1)))
    assert mixed.startswith("(and (switched_on tv)\n")
    assert "(on ?remote_control_g1_1 sofa)" in mixed


def _replays_to_goal(household, state, goal, actions):
    for action in actions:
        assert household.why_not(state, action) is None, action
        state = household.transition(state, action)
    return household.satisfied(state, goal)


def test_state_goals_are_planned_and_replay(household):
    off = replace(fridge_state(household), switched_on=frozenset({"desk_lamp"}))
    turn_on = (state_goal("on", "tv"),)
    result = pddl.solve(household, off, turn_on, optimal=True)
    assert result.solved, result.message
    assert result.actions == [Action("walk", ("tv_stand",)), Action("switchon", ("tv",))]
    mixed = (state_goal("off", "desk_lamp"), GoalItem("inside", "apple", "fridge", 2), state_goal("closed", "fridge"))
    result = pddl.solve(household, replace(off, opened=frozenset({"fridge"})), mixed)
    assert result.solved, result.message
    assert Action("switchoff", ("desk_lamp",)) in result.actions and result.actions.count(Action("close", ("fridge",))) == 1
    assert _replays_to_goal(household, replace(off, opened=frozenset({"fridge"})), mixed, result.actions)


def test_a_state_that_already_holds_costs_no_step(household):
    state = replace(fridge_state(household), switched_on=frozenset({"tv"}))
    result = pddl.solve(household, state, (state_goal("on", "tv"), state_goal("closed", "fridge")))
    assert result.solved and result.actions == []


def test_a_pddl_goal_formula_switches_the_things_it_is_given(household):
    state = fridge_state(household)
    result = pddl.solve(household, state, "(switched_on floor_lamp)", switchables=("floor_lamp",))
    assert result.solved and result.actions[-1] == Action("switchon", ("floor_lamp",))
    with pytest.raises(PlanningError, match="does not parse"):
        pddl.solve(household, state, "(switched_on floor_lamp)")  # no switches in the domain


def test_to_action_maps_pddl_actions_to_symbolic_ones():
    assert pddl.to_action("walk_item_in", ["apple_1", "fridge", "kitchen"]) == Action("walk", ("apple_1",))
    assert pddl.to_action("putin", ["apple_1", "fridge"]) == Action("putin", ("apple_1", "fridge"))
    assert pddl.to_action("switchon", ["tv", "tv_stand"]) == Action("switchon", ("tv",))
    with pytest.raises(PlanningError, match="unknown PDDL action 'fly'"):
        pddl.to_action("fly", ["x"])


def test_names_that_are_not_pddl_are_refused():
    scene = parse_scene({"rooms": {"kitchen": {"rect": [0, 0, 5, 5]}},
                         "furniture": {"Fridge": {"kind": "container", "room": "kitchen", "position": [1, 1],
                                                  "size": [1, 1, 1]}},
                         "objects": {"apple": {"places": {"Fridge": 1}}}})
    with pytest.raises(PlanningError, match="furniture 'Fridge'"):
        pddl.domain_pddl(Household(scene))
    reserved = parse_scene({"rooms": {"kitchen": {"rect": [0, 0, 5, 5]}},
                            "furniture": {"fridge": {"kind": "container", "room": "kitchen", "position": [1, 1],
                                                     "size": [1, 1, 1]}},
                            "objects": {"item": {"places": {"fridge": 1}}}})
    with pytest.raises(PlanningError, match="reserved"):
        pddl.domain_pddl(Household(reserved))


def _big_household() -> Household:
    """300 objects, 40 furniture: Fast Downward needs far longer than a second on a 12-item goal."""
    rooms = {f"room{i}": {"rect": [10 * i, 0, 10 * i + 10, 10]} for i in range(4)}
    furniture = {f"f{i}_{j}": {"kind": "container" if j % 2 else "surface", "room": f"room{i}",
                               "position": [10 * i + 1 + j * 0.5, 5], "size": [0.5, 0.5, 0.5]}
                 for i in range(4) for j in range(10)}
    names = list(furniture)
    objects = {f"t{k}": {"count": 5, "places": {names[(k * 7) % 40]: 1, names[(k * 13 + 3) % 40]: 1}}
               for k in range(60)}
    return Household(parse_scene({"rooms": rooms, "furniture": furniture, "objects": objects}))


def _downward_processes_of_this_test() -> list[str]:
    """Live processes started by this process (children, and their session members) that run Fast
    Downward. unified-planning starts the driver in a new session whose id is the driver's pid."""
    me = os.getpid()
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            stats[int(entry.name)] = (fields[0], int(fields[1]), int(fields[3]), cmdline)  # state, ppid, sid
    children = {pid for pid, (_, ppid, _, _) in stats.items() if ppid == me}
    return [cmd for pid, (state, _, sid, cmd) in stats.items()
            if (pid in children or sid in children) and state != "Z" and "downward" in cmd]


def test_timeout_really_stops_fast_downward():
    household = _big_household()
    state = household.sample_initial_state(1)
    targets = ["f0_1", "f1_2", "f2_3", "f3_4", "f0_5", "f1_6", "f2_7", "f3_8", "f0_0", "f1_1", "f2_2", "f3_3"]
    goal = tuple(GoalItem(household.relation(f), f"t{5 * k}", f, 3) for k, f in enumerate(targets))
    result = pddl.solve(household, state, goal, timeout_s=3.0)  # ~1.5 s parsing, then Fast Downward
    assert result.status == pddl.TIMEOUT, result.message
    assert result.actions is None and "time limit of 3 s" in result.message
    assert result.seconds < 6.0
    deadline = time.monotonic() + 2.0  # SIGTERM was sent; give the kernel a moment to tear down
    while _downward_processes_of_this_test() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _downward_processes_of_this_test() == []


def test_concurrent_solves_do_not_mix_up_problems(household):
    """Fast Downward's intermediate file lives in each call's own directory (fd_engine), so plans
    solved at the same time in one working directory each belong to their own problem."""
    from concurrent.futures import ThreadPoolExecutor

    state = fridge_state(household)
    goals = [(GoalItem("on", t, "sofa", 1),) for t in ("apple", "milk", "towel", "book")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda g: pddl.solve(household, state, g), goals))
    for goal, result in zip(goals, results):
        assert result.solved, result.message
        assert result.actions[-1].verb == "puton" and result.actions[-1].args[0].startswith(goal[0].obj_type)
