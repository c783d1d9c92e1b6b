"""Messages carry geometry, percepts, results and feedback without loss (core <-> llm_planner_interfaces)."""
from __future__ import annotations

from builtin_interfaces.msg import Time
from std_msgs.msg import Header

from llm_planner.domains.base import Percept
from llm_planner.ros.conversions import (
    feedback_to_dict, fill_result, geometry_from_msg, geometry_to_msg, percept_from_msg, percept_to_msg,
    result_to_dict,
)
from llm_planner.service import PlanTaskResult
from llm_planner.sim.geometry import BodyGeometry, GeometrySnapshot, JointGeometry
from llm_planner_interfaces.action import ExecuteDirective, ExecuteTask
from llm_planner_interfaces.srv import PlanTask

FRIDGE = BodyGeometry("fridge", "container", (0.5, 1.0, 0.9), (0.0, 0.0, 0.0, 1.0), (0.1, 0.6, 0.0), (0.9, 1.4, 1.8))


def test_geometry_round_trip():
    snapshot = GeometrySnapshot(scene="s", robot_position=(1.0, 2.0, 0.0), robot_orientation=(0.0, 0.0, 0.0, 1.0),
                                held_object="apple_1", bodies=[FRIDGE], joints=[JointGeometry("fridge/door", 1.2, 0.3)])
    assert geometry_from_msg(geometry_to_msg(snapshot, Time(sec=1, nanosec=5))) == snapshot


def test_percept_round_trip_with_the_geometry_stamp():
    percept = Percept("apartment_seen", "kitchen", (("INSIDE", ("apple_1", "fridge")), ("HandAvailable", ())),
                      (FRIDGE,), full_observation=True, stamp_ns=3_000_000_007)
    header = Header(stamp=Time(sec=3, nanosec=7), frame_id="map")
    assert percept_from_msg(percept_to_msg(percept, header)) == percept


def test_a_result_fills_the_service_response_and_the_action_result_alike():
    result = PlanTaskResult(True, "goal reached in 2 steps", [["inside", "apple", "fridge", 1]], ["walk(fridge)"],
                            "abc", 3, 1.5, ["walk(fridge) -> ok; observed: in kitchen"])
    for msg in (PlanTask.Response(), ExecuteDirective.Result()):
        assert result_to_dict(fill_result(msg, result)) == {k: v for k, v in result.to_dict().items()}


def test_the_executor_feedback_fields_are_the_action_feedback_fields():
    inner = ExecuteTask.Feedback(task_id="abc", state="executing", step=2, action="grab(apple_1)", outcome="ok",
                                 observation="in kitchen; holding apple_1", llm_requests=4)
    assert feedback_to_dict(ExecuteDirective.Feedback(**feedback_to_dict(inner))) == feedback_to_dict(inner)
