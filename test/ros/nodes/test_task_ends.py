"""Every end of a task is told as it happened, on the action and on ``task_status`` alike, against a
launched graph (every node its own process):

- a task canceled through ``cancel_task``, through the action's own cancel, or by an approval answered
  "no" ends CANCELED on the action and ``canceled`` on ``task_status``, with the same message;
- the wait for a person's answer does not count against the task's time limit (``plan_timeout_s``):
  a directive answered after longer than that limit is still planned and executed;
- a task that runs out of its time limit reports the steps and LLM requests it really made.
"""
from __future__ import annotations

import time

import pytest

from llm_planner_ros.task_results import Feedback, TaskQuestion, TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]
#: The graph's time limit of a task (s): shorter than the answer's wait below, and twice what the
#: answered task takes to plan and execute on two loaded cores (15 s).
PLAN_S = 30.0
#: How long the person takes to answer (s): more than PLAN_S.
ANSWER_AFTER_S = PLAN_S + 5.0
#: How slowly the base drives (m/s): a walk takes seconds, so a cancel finds the robot under way.
DRIVE_MPS = 2.0
WALKING = "put one apple inside the fridge"
#: The time limit (s) of the tasks a test cancels: a cancel, not the limit, must end them (the graph's
#: PLAN_S is short for the answer test and ended a task after its first walk on loaded cores).
CANCELED_TASK_S = 300.0
#: A time limit (s) a long task overruns after a few walks.
LIMITED_S = 4.0


@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("ends_graph"), plan_timeout_s=PLAN_S, clarify_timeout_s=120.0,
                      drive_speed_mps=DRIVE_MPS, planner="classical") as g:
        yield g


def _final_status(graph, statuses: list, task_id: str, wait_s: float = 30.0):
    deadline = time.monotonic() + wait_s
    ends = ("succeeded", "failed", "canceled", "refused")
    while time.monotonic() < deadline:
        final = [m for m in statuses if m.task_id == task_id and m.state in ends]
        if final:
            return final[-1]
        graph.client.spin_for(0.1)
    raise AssertionError(f"no final task_status for {task_id}: {[(m.state, m.message) for m in statuses]}")


def _first_step_under_way(graph) -> Feedback:
    """Wait until the running task has executed a step (the robot is on its way)."""
    deadline = time.monotonic() + 60
    while not getattr(graph.client.feedback(), "step", 0):
        assert not graph.client.is_task_complete(0.1), graph.client.result()
        assert time.monotonic() < deadline, "no step was executed"
    return graph.client.feedback()


@pytest.mark.parametrize("route", ["cancel_task", "action"])
def test_a_canceled_task_ends_canceled_on_the_action_and_on_task_status_with_one_message(graph, route):
    statuses: list = []
    graph.client.watch_status(statuses.append)
    graph.client.execute(WALKING, planner="classical", timeout_s=CANCELED_TASK_S)
    fields = _first_step_under_way(graph)
    if route == "cancel_task":
        done, message = graph.client.cancel_task(fields.task_id)
        assert done, message
    else:
        assert graph.client.cancel()
    result = graph.client.result(timeout_s=60)
    final = _final_status(graph, statuses, result.task_id)
    print(f"{route}: {result.status.value} / {final.state}: {result.message}")
    assert (result.status, final.state) == (TaskResult.CANCELED, "canceled"), (result, final.message)
    assert final.message == result.message and "canceled after" in result.message
    assert result.message.startswith("goal: ")  # how the directive was read, as every end says it


def test_an_approval_answered_no_ends_canceled_on_the_action_and_on_task_status(graph):
    graph.set_parameter("require_approval", "goal")
    statuses: list = []
    graph.client.watch_status(statuses.append)
    try:
        result = graph.client.run(WALKING, planner="classical", on_question=lambda question: "no")
    finally:
        graph.set_parameter("require_approval", "none")
    final = _final_status(graph, statuses, result.task_id)
    assert (result.status, final.state) == (TaskResult.CANCELED, "canceled"), (result, final.message)
    assert final.message == result.message and "not approved" in result.message, (result, final.message)
    assert not result.executed


def test_a_person_answering_after_the_time_limit_still_gets_all_of_it(graph):
    """The wait for the answer has its own bound (clarify_timeout_s); the task's time limit starts
    when the robot may move."""
    def slow_person(question: TaskQuestion) -> str:
        assert "which table" in question.question, question
        time.sleep(ANSWER_AFTER_S)
        return "the kitchen table"

    started = time.monotonic()
    result = graph.client.run("put the mug on the table", planner="classical", on_question=slow_person)
    took = time.monotonic() - started
    print(f"answered after {ANSWER_AFTER_S:g} s, ended after {took:.1f} s: {result.message}")
    assert result.success and result.status is TaskResult.SUCCEEDED, result
    assert took > PLAN_S  # the whole task took longer than its time limit: the wait did not count


def test_a_task_that_runs_out_of_time_reports_what_it_did(graph):
    # a directive no earlier run has cached, with the objects of the timed task: the executor loads the
    # embedding model and embeds the pillow's actions now, not in the timed task
    warm = graph.client.run("now put one pillow on the sofa", planner="llm_mcts", timeout_s=300.0)
    assert warm.success, warm
    result = graph.client.run("put one pillow on the bed", planner="llm_mcts", timeout_s=LIMITED_S)
    executed = result.executed
    print(result.message, len(executed), result.llm_requests)
    assert result.status is TaskResult.FAILED and "time limit reached after" in result.message, result
    steps = int(result.message.split("time limit reached after ")[1].split(" step")[0])
    assert steps == len(executed) == len(result.plan) >= 1, result
    assert result.llm_requests > 0 and result.planning_time_s > 0, result
