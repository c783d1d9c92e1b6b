"""The /plan_task logic without ROS: directive checks, planner names, grounding and plan preview on
percepts of either world, and one task at a time on the robot."""
from __future__ import annotations

import pytest

from llm_planner.clarification import NeedsAnswer, approval_question
from llm_planner.config import load_params_file
from llm_planner.adapters import get_domain
from llm_planner.domains.percept import Percept
from llm_planner.adapters.household import state_predicates
from llm_planner.errors import ConfigError, GoalError
from llm_planner.service import PlanningService, PlanTaskRequest, RobotSlot, check_directive
from llm_planner.domains.household.sim.perception import predicates


def test_directive_is_cleaned():
    assert check_directive("  put one apple\n inside the fridge ", 100) == "put one apple inside the fridge"


@pytest.mark.parametrize("text, fragment", [("", "empty"), (" \n\t ", "empty"), ("x" * 101, "limit"),
                                            ("put \x00 apple", "non-text"), ("put \ufffd apple", "non-text"),
                                            ("\x00\x07\x1b\x1c", "non-text"),
                                            ("\x1b[2J put one apple on the sofa", "control or non-text")])
def test_bad_directives_say_what_is_wrong(text, fragment):
    with pytest.raises(GoalError, match=fragment):
        check_directive(text, 100)


def test_a_directive_with_control_characters_is_refused_in_the_front_ends_words():
    from llm_planner.inputs import BadInput, plain_text
    from llm_planner.service import refuse_non_text

    for text in ("\x00\x07\x1b", "\x1b[2J put one apple on the sofa"):
        with pytest.raises(BadInput) as front_end:
            plain_text(text, "directive", "put one apple inside the fridge")
        with pytest.raises(BadInput) as service:
            refuse_non_text(text)
        with pytest.raises(GoalError) as checked:
            check_directive(text, 100)
        assert str(service.value) == str(front_end.value) == str(checked.value)
        assert "control or non-text character(s) (first: U+00" in str(service.value)


def test_planner_names_per_domain():
    household, gtamp = get_domain("household"), get_domain("gtamp")
    assert household.resolve_planner("llm_mcts") == "llm_mcts"
    assert gtamp.resolve_planner("uct") == "gtamp_uct" and gtamp.resolve_planner("stalm") == "stalm"
    with pytest.raises(ConfigError, match="available"):
        household.resolve_planner("stalm")
    with pytest.raises(ConfigError, match="unknown planner 'teleport' for the gtamp domain"):
        gtamp.resolve_planner("teleport")


@pytest.fixture(scope="module")
def household_service():
    return PlanningService(get_domain("household")(load_params_file()))


def _percepts(domain, state):
    observation = domain.household.observe(state)
    return {"state": Percept("s", observation.room, tuple(predicates(observation))),
            "full_state": Percept("s", state.room, tuple(state_predicates(domain.household, state)),
                                  full_observation=True)}


def test_household_preview_grounds_the_directive_and_plans_on_the_percepts(household_service):
    domain = household_service.domain
    task = household_service.prepare(PlanTaskRequest("put one plate on the sofa", planner="classical"))
    assert task.planner == "classical" and task.timeout_s == 300.0
    result = household_service.preview(task, _percepts(domain, domain.household.sample_initial_state(0)))
    assert result.success and result.goal == [["on", "plate", "sofa", 1]], result
    assert result.plan[-1].startswith("puton(plate_") and "not executed" in result.message


def test_gtamp_preview_and_a_goal_that_already_holds():
    from llm_planner.domains.gtamp.perception import GeometryPerceiver
    from llm_planner.domains.gtamp.sim import GTampSimulator

    params = load_params_file("config/gtamp_nodes.yaml")
    service = PlanningService(get_domain("gtamp")(params))
    sim, perceiver = GTampSimulator(service.domain.problem), GeometryPerceiver(service.domain.problem)
    try:
        percepts = perceiver.perceive(sim.geometry())
        solve = service.prepare(PlanTaskRequest("solve the problem"))
        result = service.preview(solve, percepts)
        assert result.success and result.plan[-1] == "place(salter, right_of, bottle1)", result
        assert result.llm_requests >= 1 and "the goal of problem P2" in result.message
        already = service.prepare(PlanTaskRequest("put the bottle 1 on table 2", planner="stalm"))
        assert service.preview(already, percepts).message.endswith("the goal already holds; nothing to do")
    finally:
        sim.close()
        perceiver.close()


def test_the_time_limit_comes_from_the_request_else_from_the_node_parameter(household_service):
    asked = household_service.prepare(PlanTaskRequest("put one plate on the sofa", planner="classical", timeout_s=12.5))
    default = household_service.prepare(PlanTaskRequest("put one plate on the sofa", planner="classical", timeout_s=0))
    assert asked.timeout_s == 12.5 and default.timeout_s == household_service.params["plan_timeout_s"] == 300.0
    assert asked.task_id != default.task_id and len(asked.task_id) == 12
    assert household_service.prepare(PlanTaskRequest("put one plate on the sofa")).planner == "llm_mcts"  # the default
    for bad in (-1.0, float("nan"), float("inf"), 1e9):  # refused as the plan_timeout_s parameter refuses them
        with pytest.raises(ConfigError, match=r"the request's timeout_s = .* is invalid: expected a number of seconds "
                                              r"> 0 \(the task's time limit, at most 86400\), or 0 for the plan_timeout_s "
                                              r"parameter"):
            household_service.prepare(PlanTaskRequest("put one plate on the sofa", planner="classical", timeout_s=bad))


@pytest.mark.parametrize("directive, planner, error, says", [
    ("put the unicorn in the fridge", "classical", GoalError, "this apartment has no 'unicorn'"),
    ("mets la pomme dans le frigo", "classical", GoalError, "does not look like English"),
    ("put one plate on the sofa", "teleport", ConfigError, "unknown planner 'teleport' for the household domain"),
    ("   ", "classical", GoalError, "the directive is empty"),
])
def test_prepare_refuses_bad_requests_saying_why(household_service, directive, planner, error, says):
    with pytest.raises(error, match=says):
        household_service.prepare(PlanTaskRequest(directive, planner=planner))


def test_gtamp_requests_are_read_by_its_grammar_and_results_carry_the_reading():
    service = PlanningService(get_domain("gtamp")(load_params_file("config/gtamp_nodes.yaml")))
    with pytest.raises(GoalError, match="unknown object 'fork'"):
        service.prepare(PlanTaskRequest("put the fork on table2"))
    task = service.prepare(PlanTaskRequest("  solve   the problem ", planner="uct"))
    assert (task.directive, task.planner) == ("solve the problem", "gtamp_uct")
    result = task.result(service.domain, False, "no plan within 1 s", llm_requests=3)
    assert result.message.startswith("goal: the goal of problem P2") and result.message.endswith("; no plan within 1 s")
    assert result.goal == [["AtPosition", "salter", "on", "table2"], ["AtPosition", "salter", "right_of", "bottle1"]]
    assert result.llm_requests == 3 + task.translation.llm_requests and result.to_dict()["task_id"] == task.task_id


def test_one_robot_runs_one_task_and_a_second_is_refused_naming_the_first():
    slot = RobotSlot()
    cancel, _ = slot.claim("task1", "put one apple inside the fridge")
    assert cancel is not None
    refused, why = slot.claim("task2", "put one plate on the sofa")
    assert refused is None and "busy with task task1" in why and "llm-planner cancel task1" in why
    assert slot.cancel("other") == (False, "task other is not running (the running task is task1)")
    assert slot.cancel("")[0] and cancel.is_set()
    slot.release("task1")
    assert slot.claim("task2", "put one plate on the sofa")[0] is not None


def test_cancel_and_release_only_touch_the_running_task():
    slot = RobotSlot()
    assert slot.cancel() == (False, "no task is running")
    cancel, _ = slot.claim("task1", "put one apple inside the fridge")
    slot.release("task2")  # not the running task: the robot stays busy
    assert slot.claim("task3", "x")[0] is None and not cancel.is_set()
    done, message = slot.cancel("task1")
    assert done and cancel.is_set() and message.startswith("canceling task task1")


def test_the_running_task_is_told_by_its_id():
    slot = RobotSlot()
    assert slot.running_task() == ""
    slot.claim("task1", "put one apple inside the fridge")
    assert slot.running_task() == "task1"
    slot.release("task1")
    assert slot.running_task() == ""


def test_answers_are_read_by_the_question_then_by_the_domains_reader(household_service):
    with pytest.raises(NeedsAnswer) as asked:
        household_service.prepare(PlanTaskRequest("put the mug on the table", planner="classical"))
    question = asked.value.question
    assert question.read("the dining table") is None  # the reader's synonym: the household reads it
    assert household_service.read_answer(question, "the dining table").value == "kitchen_table"
    assert household_service.read_answer(question, "the second one").value == "coffee_table"
    assert household_service.read_answer(question, "the sofa") is None
    confirm = approval_question("put the mug on the coffee table", [])
    assert household_service.read_answer(confirm, "the dining table") is None  # yes or no only
    assert household_service.read_answer(confirm, "yes, go ahead").value == "yes"


def test_approval_asks_with_the_goal_as_each_domain_writes_it(household_service):
    task = household_service.prepare(PlanTaskRequest("put one apple inside the fridge", planner="classical"))
    assert household_service.approval_question(task, []).text == "May I put one apple inside the fridge?"
    gtamp = PlanningService(get_domain("gtamp")(load_params_file("config/gtamp_nodes.yaml")))
    task = gtamp.prepare(PlanTaskRequest("solve the problem", planner="uct"))
    assert gtamp.approval_question(task, []).text == (
        "May I [['AtPosition', 'salter', 'on', 'table2'], ['AtPosition', 'salter', 'right_of', 'bottle1']]?")
    assert gtamp.read_answer(gtamp.approval_question(task, []), "no").value == "no"
