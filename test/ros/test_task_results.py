"""The client's results are frozen and typed, their status is an enum of the task states, and
:func:`to_json` gives the JSON the front ends have always sent (no ROS here)."""
from __future__ import annotations

import dataclasses
import json

import pytest

from llm_planner.planners.base import ObjectBelief
from llm_planner.task_states import CANCELED, FAILED, SUCCEEDED
from llm_planner_ros.task_results import ExecutionResult, Feedback, PlanResult, Reply, TaskQuestion, TaskResult, to_json

PLANNED = PlanResult(True, "planned, not executed", (("inside", "apple", "fridge", 1),), ("walk(kitchen)",
                     "grab(apple_1)"), "abc123", 3, 0.5)


def test_the_status_values_are_the_task_states() -> None:
    assert [s.value for s in TaskResult] == [SUCCEEDED, FAILED, CANCELED, "unknown"]
    assert TaskResult(CANCELED) is TaskResult.CANCELED


def test_results_are_frozen() -> None:
    for result in (PLANNED, TaskQuestion("abc", "which table?", ("kitchen table",))):
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.task_id = "other"  # type: ignore[misc]


def test_a_plan_only_answer_has_no_status_and_leaves_out_what_it_does_not_say() -> None:
    assert to_json(PLANNED) == {"success": True, "message": "planned, not executed",
                                "goal": [["inside", "apple", "fridge", 1]], "plan": ["walk(kitchen)", "grab(apple_1)"],
                                "task_id": "abc123", "llm_requests": 3, "planning_time_s": 0.5}
    asks = dataclasses.replace(PLANNED, success=False, question="which table?", options=("kitchen table", "sofa"))
    assert to_json(asks)["question"] == "which table?" and to_json(asks)["options"] == ["kitchen table", "sofa"]


def test_an_execution_result_says_its_status_as_the_task_state() -> None:
    ended = ExecutionResult(**{**{f.name: getattr(PLANNED, f.name) for f in dataclasses.fields(PLANNED)},
                               "executed": ("walk(kitchen) -> ok",)}, status=TaskResult.SUCCEEDED)
    data = to_json(ended)
    assert data["status"] == "succeeded" and data["executed"] == ["walk(kitchen) -> ok"] and "question" not in data
    assert json.loads(json.dumps(data)) == data  # plain JSON, nothing left to convert
    assert isinstance(ended, PlanResult)


def test_feedback_and_questions_become_plain_data() -> None:
    feedback = Feedback("abc", "executing", 1, "walk(kitchen)", "ok", "in kitchen", 2, 1,
                        (ObjectBelief("apple_1", (("fridge", 0.75),)),))
    assert to_json(feedback)["belief"] == [{"obj": "apple_1", "places": [["fridge", 0.75]]}]
    assert to_json(TaskQuestion("abc", "May I?", ("yes", "no"))) == {"task_id": "abc", "question": "May I?",
                                                                     "options": ["yes", "no"]}


def test_a_reply_unpacks_as_before() -> None:
    taken, message = Reply(True, "read as: the coffee table")
    assert taken and message == Reply(True, "read as: the coffee table").message
    assert Reply(False, "no task is running") == (False, "no task is running")
