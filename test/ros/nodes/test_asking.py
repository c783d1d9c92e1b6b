"""A robot that asks before it guesses, and waits for a yes when told to, end to end: the
four node programs in their own processes, answers from this process (directive topic,
answer_task), from plan_burst.py processes and from the CLI.

One graph for the module (clarify_timeout_s long enough for a plan-only burst while a task asks);
the tests change clarify_timeout_s and require_approval at run time, as `ros2 param set` does.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llm_planner_ros.task_results import TaskQuestion, TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]
CLARIFY_S = 300.0


@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("asking_graph"), clarify_timeout_s=CLARIFY_S) as g:
        g.statuses = []
        g.client.watch_status(g.statuses.append)
        yield g


def _wait_question(client, timeout_s: float = 180.0) -> TaskQuestion:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        question = client.question(spin_s=0.1)
        if question is not None:
            return question
        assert not client.is_task_complete(0.0), f"the task ended without asking: {client.result()}"
    raise AssertionError(f"no question within {timeout_s} s; feedback {client.feedback()}")


def _placed(graph, after_ns: int = 0) -> set[tuple[str, ...]]:
    return {(name, *args) for name, args in graph.full_state(after_ns) if name in ("ON", "INSIDE")}


def _wait_robot_free(graph, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while graph.client.cancel_task()[1] != "no task is running" and time.monotonic() < deadline:
        time.sleep(0.2)


def test_the_table_is_asked_about_the_node_keeps_serving_and_a_directive_topic_answer_settles_it(graph):
    graph.client.execute("put the mug on the table", planner="classical")
    question = _wait_question(graph.client)
    assert question.question == "which table: kitchen table (kitchen) or coffee table (living room)?", question
    assert question.options == ("kitchen table (kitchen)", "coffee table (living room)")
    graph.client.spin_for(0.5)
    asking = [m for m in graph.statuses if m.task_id == question.task_id and m.state == "asking"]
    assert asking and asking[-1].question == question.question and tuple(asking[-1].options) == question.options

    # while the task asks: 40 concurrent plan-only calls from 4 processes, all answered; the
    # ambiguous directive among them never asks (its message carries the question). They plan with
    # the classical planner: what is tested is that a task that asks blocks no call (test_system
    # bursts LLM-MCTS plans without a task asking)
    good, ambiguous = "put one apple on the kitchen table", "put the mug on the table"
    batch = [good, ambiguous, "", "put the unicorn inside the fridge", good] * 2
    started = time.monotonic()
    procs = [subprocess.Popen([sys.executable, str(Path(__file__).with_name("plan_burst.py")), graph.namespace,
                               "420", json.dumps(batch), "classical"], env=graph.runner.env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    answers = []
    for proc in procs:
        out, _err = proc.communicate(timeout=480)
        answers += json.loads(out.strip().splitlines()[-1])
    took = time.monotonic() - started
    print(f"{len(batch) * 4} concurrent plan-only calls while a task asks: answered in {took:.1f} s")
    assert len(answers) == len(batch) * 4 and None not in answers, f"{answers.count(None)} call(s) got no answer"
    assert [a["success"] for a in answers] == [d == good for d in batch] * 4, [a["message"] for a in answers]
    asked = [a for a, d in zip(answers, batch * 4) if d == ambiguous]
    assert all("which table: kitchen table (kitchen) or coffee table (living room)?" in a["message"] and
               a["question"] == question.question for a in asked), asked[0]
    assert graph.client.question() is not None, "the task stopped asking during the burst"

    graph.client.say("the coffee table")  # what a voice frontend publishes next is the answer
    result = graph.client.result(timeout_s=300.0)
    assert result.success, result
    assert result.goal == (("on", "mug", "coffee_table", 1),), result
    assert any(p[0] == "ON" and p[1].startswith("mug") and p[2] == "coffee_table" for p in _placed(graph))
    states = [m.state for m in graph.statuses if m.task_id == question.task_id]
    assert "asking" in states and states[-1] == "succeeded", states
    _wait_robot_free(graph)


def test_the_glass_is_asked_about_and_answer_task_settles_it(graph):
    graph.client.execute("put the glass in the dishwasher", planner="classical")
    question = _wait_question(graph.client)
    assert question.question == "which glass: wine glass or glasses?", question
    taken, message = graph.client.answer("the wine glass")
    assert taken and "wine glass" in message, message
    result = graph.client.result(timeout_s=300.0)
    assert result.success and result.goal == (("inside", "wine_glass", "dishwasher", 1),), result
    _wait_robot_free(graph)


def test_an_unanswered_question_ends_refused_after_clarify_timeout_with_the_question(graph):
    graph.set_parameter("clarify_timeout_s", 6.0)
    try:
        graph.client.execute("put the candle on the table", planner="classical")
        question = _wait_question(graph.client)
        taken, message = graph.client.answer("a sandwich")  # answers nothing: asked once more
        assert not taken and "asked once more" in message, message
        started = time.monotonic()
        result = graph.client.result(timeout_s=60.0)
        waited = time.monotonic() - started
    finally:
        graph.set_parameter("clarify_timeout_s", CLARIFY_S)
    print(f"refused {waited:.1f} s after the unanswered second asking: {result.message}")
    assert not result.success and result.status is TaskResult.FAILED, result
    assert question.question in result.message and "no answer within 6 s (clarify_timeout_s)" in result.message
    assert result.question == question.question and not result.executed
    assert 3.0 < waited < 30.0
    graph.client.spin_for(0.5)
    assert [m.state for m in graph.statuses if m.task_id == question.task_id][-1] == "refused"
    _wait_robot_free(graph)


def test_a_garbled_name_is_proposed_no_refuses_at_once_and_clarify_timeout_0_never_asks(graph):
    graph.client.execute("put the ultimately alt control on the sofa", planner="classical")
    question = _wait_question(graph.client)
    assert question.question == "this apartment has no ultimately alt control; did you mean the remote control?"
    assert graph.client.answer("no")[0]
    result = graph.client.result(timeout_s=60.0)
    assert not result.success and "answered 'no'" in result.message and not result.executed, result
    _wait_robot_free(graph)
    graph.set_parameter("clarify_timeout_s", 0.0)
    try:
        started = time.monotonic()
        result = graph.client.run("put the mug on the table", planner="classical")
        took = time.monotonic() - started
    finally:
        graph.set_parameter("clarify_timeout_s", CLARIFY_S)
    assert not result.success and "which table: kitchen table (kitchen) or coffee table" in result.message
    assert not any(f.state == "asking" for f in graph.client._feedback) and took < 30.0, result
    _wait_robot_free(graph)


def test_require_approval_goal_no_leaves_the_world_unchanged_and_yes_executes(graph):
    graph.set_parameter("require_approval", "goal")
    try:
        before = _placed(graph)
        graph.client.execute("put one apple on the sofa", planner="classical")
        question = _wait_question(graph.client)
        assert question.question == "May I put one apple on the sofa?" and question.options == ("yes", "no")
        assert graph.client.answer("no")[0]
        refused = graph.client.result(timeout_s=120.0)
        assert not refused.success and "not approved" in refused.message and not refused.executed
        assert _placed(graph, time.time_ns()) == before, "something moved after 'no'"
        _wait_robot_free(graph)

        graph.client.execute("put one apple on the sofa", planner="classical")
        _wait_question(graph.client)
        assert graph.client.answer("yes, go ahead")[0]
        result = graph.client.result(timeout_s=300.0)
        assert result.success and result.executed, result
        assert any(p[0] == "ON" and p[1].startswith("apple") and p[2] == "sofa" for p in _placed(graph))
        _wait_robot_free(graph)

        graph.set_parameter("require_approval", "plan")  # the goal and the plan a whole-plan planner made
        graph.client.execute("put one plate on the sofa", planner="classical")
        question = _wait_question(graph.client)
        assert question.question.startswith("May I put one plate on the sofa? The plan: walk(")
        assert "puton(plate_" in question.question, question
        assert graph.client.answer("nope")[0]
        assert "not approved" in graph.client.result(timeout_s=120.0).message
    finally:
        graph.set_parameter("require_approval", "none")
    _wait_robot_free(graph)


def test_cli_takes_the_answer_and_answer_without_a_question_says_so(graph):
    proc = graph.cli("plan", "put the book on the table", "--execute", "--planner", "classical",
                     "--answer", "the second one", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["goal"] == [["on", "book", "coffee_table", 1]] and result["executed"], result
    _wait_robot_free(graph)
    idle = graph.cli("answer", "the coffee table")
    assert idle.returncode == 1 and "no task is asking" in idle.stdout, idle.stdout + idle.stderr


def test_the_guide_voice_frontend_loop_runs_against_the_graph(graph, tmp_path):
    import re

    guide = (Path(__file__).resolve().parents[3] / "docs" / "guides" / "asking.md").read_text()
    (code,) = re.findall(r"```python\n(.*?)```", guide, re.DOTALL)
    script = tmp_path / "voice_frontend.py"
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], env=graph.runner.env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "robot: which table: kitchen table (kitchen) or coffee table (living room)?" in proc.stdout, proc.stdout
    assert "robot: succeeded" in proc.stdout and "coffee table" in proc.stdout, proc.stdout
    _wait_robot_free(graph)
