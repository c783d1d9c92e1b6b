"""Problems as data: the shipped P1-P6 load and pose their challenges; bad files give clear errors."""
from __future__ import annotations

import pytest

from llm_planner.errors import GoalError, SceneError
from llm_planner.domains.gtamp.geometry import support_region
from llm_planner.domains.gtamp.problems import load_problem, parse_goal, problem_names


def test_shipped_problems_load_with_objects_on_regions():
    assert problem_names() == ["P1", "P2", "P3", "P4", "P5", "P6"]
    for name in problem_names():
        problem = load_problem(name)
        assert problem.goal, name
        assert problem.time_budget_s in (300.0, 600.0)
        for i, pose in enumerate(problem.initial.poses):
            if i == problem.initial.held:
                assert pose is None
            else:
                assert support_region(problem, problem.initial, i) is not None, (name, problem.objects[i].name)


def test_seed_budgets_and_starting_conditions():
    budgets = {n: load_problem(n).time_budget_s for n in problem_names()}
    assert budgets == {"P1": 300, "P2": 300, "P3": 600, "P4": 300, "P5": 600, "P6": 600}
    p4 = load_problem("P4")
    assert p4.objects[p4.initial.held].name == "grill" and p4.initial.grasp is not None
    assert load_problem("P1").initial.doors_open == (False,)
    assert load_problem("P2").initial.doors_open == (True,)


def _write(tmp_path, body: str):
    path = tmp_path / "bad.yaml"
    path.write_text("name: X\nlayout: kitchen_hall\nrobot: {at: counter1}\n" + body)
    return str(path)


@pytest.mark.parametrize("body, error, words", [
    ("objects:\n  a: {shape: cylinder, size: [0.03, 0.1], on: attic}\ngoal: [[a, on, counter1]]\n", SceneError, "attic"),
    ("objects:\n  a: {shape: sphere, size: [0.03], on: counter1}\ngoal: [[a, on, counter2]]\n", SceneError, "shape"),
    ("objects:\n  a: {shape: cylinder, size: [0.03, 0.1], on: counter1, at: [2.0, 0]}\ngoal: [[a, on, counter2]]\n",
     SceneError, "off region"),
    ("objects:\n  a: {shape: cylinder, size: [0.03, 0.1], on: counter1}\ngoal: [[b, on, counter2]]\n", GoalError, "unknown object"),
    ("objects:\n  a: {shape: cylinder, size: [0.03, 0.1], on: counter1}\ngoal: [[a, above, counter2]]\n", GoalError, "direction"),
    ("objects:\n  a: {shape: cylinder, size: [0.03, 0.1], on: counter1}\ngoal: [[a, left_of, counter2]]\n", GoalError, "object"),
    ("objects:\n  a: {shape: cylinder, size: [0.03, 0.1], on: counter1}\ngoal: [[a, on, nowhere]]\n", GoalError, "region"),
    ("region_overrides: {garage: {width: 1}}\nobjects: {}\ngoal: []\n", SceneError, "garage"),
])
def test_bad_problem_files_name_what_is_wrong(tmp_path, body, error, words):
    with pytest.raises(error, match=words):
        load_problem(_write(tmp_path, body))


def test_unknown_problem_lists_the_shipped_ones():
    with pytest.raises(SceneError, match="P1"):
        load_problem("P99")


def test_goal_parser_accepts_yaml_boolean_on(p2):
    atoms = parse_goal(p2, [["salter", True, "counter1"]])
    assert str(atoms[0]) == "(AtPosition, salter, on, counter1)"
