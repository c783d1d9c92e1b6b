"""Messages carry geometry, markers, percepts, results, feedback with beliefs and task records without loss
(core <-> llm_planner_interfaces)."""
from __future__ import annotations

import pytest
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Point
from std_msgs.msg import Header

from llm_planner.adapters.household import HouseholdDomain
from llm_planner.domains.household.world.symbolic import GoalItem
from llm_planner.domains.percept import Percept
from llm_planner.errors import GoalError
from llm_planner.planners.base import ObjectBelief
from llm_planner_ros.conversions import (
    belief_to_msg, execution_result_from_msg, feedback_from_dict, feedback_from_msg, feedback_to_dict, fill_result,
    geometry_from_msg, geometry_to_msg, goal_from_json, goal_to_json, percept_from_msg, percept_to_msg,
    plan_result_from_msg, step_fields, task_record_from_msg,
)
from llm_planner_ros.task_results import ExecutionResult, Feedback, PlanResult, TaskResult, to_json
from llm_planner.service import PlanTaskResult
from llm_planner.domains.geometry import BodyGeometry, GeometrySnapshot, JointGeometry
from llm_planner_interfaces.action import ExecuteDirective, ExecuteTask
from llm_planner_interfaces.srv import PlanTask

FRIDGE = BodyGeometry("fridge", "container", (0.5, 1.0, 0.9), (0.0, 0.0, 0.0, 1.0), (0.1, 0.6, 0.0), (0.9, 1.4, 1.8))


def test_geometry_round_trip():
    snapshot = GeometrySnapshot(scene="s", robot_position=(1.0, 2.0, 0.0), robot_orientation=(0.0, 0.0, 0.0, 1.0),
                                held_object="apple_1", bodies=[FRIDGE], joints=[JointGeometry("fridge/door", 1.2, 0.3)])
    assert geometry_from_msg(geometry_to_msg(snapshot, Time(sec=1, nanosec=5))) == snapshot


def test_a_power_reading_crosses_the_wire_as_a_joint_and_reads_as_on():
    from llm_planner.domains.household.sim.perception import power_joint, switch_states
    from llm_planner.domains.household.world.scene import load_scene

    snapshot = GeometrySnapshot(scene="apartment_seen", robot_position=(1.0, 2.0, 0.0),
                                robot_orientation=(0.0, 0.0, 0.0, 1.0), held_object=None, bodies=[FRIDGE],
                                joints=[JointGeometry("fridge/door", 0.0, 0.3), power_joint("fridge", True),
                                        power_joint("tv", True), power_joint("stove", False)])
    back = geometry_from_msg(geometry_to_msg(snapshot, Time(sec=1, nanosec=5)))
    assert back == snapshot
    assert switch_states(load_scene("apartment_seen"), back) == {"tv": True, "stove": False}  # fridge: no switch


def test_percept_round_trip_with_the_geometry_stamp():
    percept = Percept("apartment_seen", "kitchen", (("INSIDE", ("apple_1", "fridge")), ("HandAvailable", ())),
                      (FRIDGE,), full_observation=True, stamp_ns=3_000_000_007)
    header = Header(stamp=Time(sec=3, nanosec=7), frame_id="map")
    assert percept_from_msg(percept_to_msg(percept, header)) == percept


def test_a_result_fills_the_service_response_and_the_action_result_alike():
    result = PlanTaskResult(True, "goal reached in 2 steps", [["inside", "apple", "fridge", 1]], ["walk(fridge)"],
                            "abc", 3, 1.5, ["walk(fridge) -> ok; observed: in kitchen"])
    for msg in (PlanTask.Response(), ExecuteDirective.Result()):
        assert to_json(plan_result_from_msg(fill_result(msg, result))) == result.to_dict()


def test_a_response_becomes_the_clients_typed_result_and_its_json_is_the_old_dict():
    result = PlanTaskResult(False, "refused: which table?", [["on", "mug", "coffee_table", 1]], [], "abc", 1, 0.25,
                            [], "which table: kitchen table or coffee table?", ["kitchen table", "coffee table"])
    planned = plan_result_from_msg(fill_result(PlanTask.Response(), result))
    assert planned == PlanResult(False, "refused: which table?", (("on", "mug", "coffee_table", 1),), (), "abc", 1,
                                 0.25, (), "which table: kitchen table or coffee table?",
                                 ("kitchen table", "coffee table"))
    assert to_json(planned) == {k: v for k, v in result.to_dict().items() if k != "executed"}  # no steps: left out
    ended = execution_result_from_msg(fill_result(ExecuteDirective.Result(), result), TaskResult.CANCELED)
    assert isinstance(ended, ExecutionResult) and ended.status is TaskResult.CANCELED
    assert to_json(ended) == {**to_json(planned), "status": "canceled"}


def test_action_feedback_becomes_the_clients_typed_feedback():
    belief = (ObjectBelief("apple_1", (("fridge", 0.75), ("sink", 0.25))),)
    fields = {"task_id": "abc", "state": "asking", "step": 0, "action": "", "outcome": "", "observation": "",
              "llm_requests": 2, "decision_llm_requests": 0, "belief": belief, "question": "which table?",
              "options": ["kitchen table", "coffee table"]}
    feedback = feedback_from_msg(feedback_from_dict(ExecuteDirective.Feedback, fields))
    assert feedback == Feedback(**{**fields, "options": ("kitchen table", "coffee table")})


def test_the_executor_feedback_fields_are_the_action_feedback_fields():
    belief = (ObjectBelief("apple_1", (("held", 1.0),)), ObjectBelief("apple_2", (("fridge", 0.75), ("sink", 0.25))))
    fields = {"task_id": "abc", "state": "executing", "step": 2, "action": "grab(apple_1)", "outcome": "ok",
              "observation": "in kitchen; holding apple_1", "llm_requests": 4, "decision_llm_requests": 3,
              "belief": belief, "question": "", "options": []}  # the executor never asks: no question
    inner = feedback_from_dict(ExecuteTask.Feedback, fields)
    assert feedback_to_dict(inner) == fields
    assert feedback_to_dict(feedback_from_dict(ExecuteDirective.Feedback, feedback_to_dict(inner))) == fields


def test_a_step_record_becomes_feedback_fields_with_its_belief():
    from llm_planner.execution import StepRecord

    belief = (ObjectBelief("mug_1", (("kitchen_cabinet", 0.5), ("dishwasher", 0.5))),)
    record = StepRecord(3, None, False, "fridge is closed", None, "putin(mug_2, fridge)", "in kitchen", 9, 2, belief)
    fields = step_fields("abc", record)
    assert fields["outcome"] == "fridge is closed" and fields["decision_llm_requests"] == 2
    assert feedback_to_dict(feedback_from_dict(ExecuteTask.Feedback, fields)) == {**fields, "question": "", "options": []}


def test_a_task_record_message_becomes_plain_data():
    from llm_planner_interfaces.msg import ExecutedStep
    from llm_planner_interfaces.srv import TaskRecord

    start = GeometrySnapshot(scene="s", robot_position=(1.0, 2.0, 0.0), robot_orientation=(0.0, 0.0, 0.0, 1.0),
                             held_object=None, bodies=[FRIDGE])
    after = GeometrySnapshot(scene="s", robot_position=(3.0, 2.0, 0.0), robot_orientation=(0.0, 0.0, 0.0, 1.0),
                             held_object=None, bodies=[FRIDGE])
    belief = (ObjectBelief("apple_1", (("fridge", 0.5), ("kitchen_counter", 0.5))),)
    msg = TaskRecord.Response(success=True, task_id="abc", directive="d", planner="llm_mcts",
                              goal='[["inside", "apple", "fridge", 1]]', domain="household", world="apartment_seen",
                              state="succeeded", result_message="goal reached in 1 steps",
                              start=geometry_to_msg(start, Time(sec=1)))
    msg.steps = [ExecutedStep(step=1, action="walk(kitchen)", success=True, observation="in kitchen", llm_requests=5,
                              decision_llm_requests=5, belief=belief_to_msg(belief),
                              path=[Point(x=1.0, y=2.0), Point(x=3.0, y=2.0)], geometry=geometry_to_msg(after, Time(sec=2)))]
    record = task_record_from_msg(msg)
    assert (record.task_id, record.goal, record.state, record.start) == ("abc", [["inside", "apple", "fridge", 1]],
                                                                         "succeeded", start)
    (step,) = record.steps
    assert (step.action, step.success, step.belief, step.path, step.geometry) == (
        "walk(kitchen)", True, belief, ((1.0, 2.0), (3.0, 2.0)), after)


def test_markers_become_a_marker_array_field_by_field():
    from visualization_msgs.msg import Marker

    from llm_planner_ros.conversions import markers_to_msg
    from llm_planner.viz.markers import MarkerSpec

    specs = [MarkerSpec("furniture", 0, "CUBE", (0.5, 1.0, 0.9), (0.0, 0.0, 0.6, 0.8), (0.7, 0.8, 1.8),
                        (0.55, 0.8, 0.55, 1.0)),
             MarkerSpec("furniture_names", 0, "TEXT_VIEW_FACING", (0.5, 1.0, 1.95), (0.0, 0.0, 0.0, 1.0),
                        (0.0, 0.0, 0.12), (1.0, 1.0, 1.0, 1.0), "fridge (open)")]
    array = markers_to_msg(specs, Time(sec=4, nanosec=2))
    cube, text = array.markers
    assert (cube.ns, cube.id, cube.type, cube.action) == ("furniture", 0, Marker.CUBE, Marker.ADD)
    assert (text.type, text.text) == (Marker.TEXT_VIEW_FACING, "fridge (open)")
    assert (cube.pose.orientation.z, cube.pose.orientation.w) == (0.6, 0.8)
    assert (cube.scale.x, cube.scale.y, cube.scale.z) == (0.7, 0.8, 1.8)
    assert (cube.color.g, cube.color.a) == (0.8, 1.0)
    assert cube.header.frame_id == "map" and (cube.header.stamp.sec, cube.header.stamp.nanosec) == (4, 2)



def test_a_goal_crosses_the_wire_as_its_lists_and_comes_back_checked():
    domain = HouseholdDomain({"scene": "apartment_seen"})
    goal = (GoalItem("inside", "apple", "fridge", 1),)
    assert goal_to_json(domain, goal) == '[["inside", "apple", "fridge", 1]]'
    assert goal_from_json(domain, goal_to_json(domain, goal)) == goal
    with pytest.raises(GoalError, match="not JSON"):
        goal_from_json(domain, "not json")


def test_a_state_goal_crosses_the_wire_with_an_empty_destination_and_comes_back_checked():
    domain = HouseholdDomain({"scene": "apartment_seen"})
    goal = (GoalItem("on", "tv", "", 1), GoalItem("inside", "milk", "fridge", 1), GoalItem("closed", "fridge", "", 1))
    text = goal_to_json(domain, goal)
    assert text == '[["on", "tv", "", 1], ["inside", "milk", "fridge", 1], ["closed", "fridge", "", 1]]'
    back = goal_from_json(domain, text)
    assert back == goal and back[0].is_state and not back[1].is_state
    assert goal_from_json(domain, '[["off", "desk_lamp"]]') == (GoalItem("off", "desk_lamp", "", 1),)
    with pytest.raises(GoalError, match="apple"):
        goal_from_json(domain, '[["on", "apple", "", 1]]')
