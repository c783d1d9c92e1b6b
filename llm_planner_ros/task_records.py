"""The executor node's record of the tasks it ran, served on ``task_record``
(llm_planner_interfaces/srv/TaskRecord) for pictures of any executed task.

For each of its last ``task_records`` tasks the executor keeps the world before the first step and,
per step, the action, its outcome, the LLM requests and belief of the decision, the base path the
walk drove (from the navigation feedback) and, on the simulated robot, the geometry published right
after the step (``sim/geometry``, the simulator's own topic: an external robot's records have none).
Whoever sent the task (the action, ``/plan_task``, a voice directive) can draw it afterwards:
``llm-planner snapshot --task TASK_ID``, or the demo report.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from geometry_msgs.msg import Point
from llm_planner_interfaces.msg import ExecutedStep, GeometrySnapshot
from llm_planner_interfaces.srv import TaskRecord
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node

from llm_planner.adapters.base import Domain
from llm_planner.task_states import EXECUTING
from llm_planner_ros.conversions import belief_to_msg
from llm_planner_ros.node_utils import GEOMETRY_QOS, SERVICE_QOS
from llm_planner_ros.robot_link import LatestMessage


class TaskRecords:
    def __init__(self, node: Node, domain: Domain) -> None:
        self.params = domain.params
        self.domain = domain
        self.geometry = LatestMessage() if self.params["robot"] == "simulated" else None
        self.records: OrderedDict[str, TaskRecord.Response] = OrderedDict()
        self.lock = threading.Lock()
        group = MutuallyExclusiveCallbackGroup()
        if self.geometry is not None:
            node.create_subscription(GeometrySnapshot, "sim/geometry", self.geometry.store, GEOMETRY_QOS,
                                     callback_group=group)
        node.create_service(TaskRecord, "task_record", self.on_request, qos_profile=SERVICE_QOS, callback_group=group)

    def begin(self, task_id: str, directive: str, planner: str, goal: str) -> None:
        """A new task: its record starts with the latest geometry (the world before the first step)."""
        world = self.params["scene"] if self.domain.name == "household" else self.params["problem"]
        start = self._geometry(0) or GeometrySnapshot()
        record = TaskRecord.Response(success=True, task_id=task_id, directive=directive, planner=planner,
                                     goal=goal, domain=self.domain.name, world=world, state=EXECUTING, start=start)
        with self.lock:
            self.records[task_id] = record
            while len(self.records) > self.params["task_records"]:
                self.records.popitem(last=False)

    def step(self, task_id: str, fields: dict[str, Any], path: Sequence[tuple[float, float]], stamp_ns: int) -> None:
        """One executed step (:func:`~llm_planner_ros.conversions.step_fields`), with the geometry
        stamped at or after the step's end (the latest one if it does not come in time)."""
        geometry = self._geometry(stamp_ns)
        step = ExecutedStep(step=fields["step"], action=fields["action"], success=fields["outcome"] == "ok",
                            reason="" if fields["outcome"] == "ok" else fields["outcome"],
                            observation=fields["observation"], llm_requests=fields["llm_requests"],
                            decision_llm_requests=fields["decision_llm_requests"],
                            belief=belief_to_msg(fields["belief"]),
                            path=[Point(x=float(x), y=float(y)) for x, y in path],
                            geometry=geometry or GeometrySnapshot())
        with self.lock:
            if task_id in self.records:
                self.records[task_id].steps.append(step)

    def _geometry(self, after_ns: int) -> GeometrySnapshot | None:
        """The simulator's geometry stamped at or after ``after_ns`` (the latest one if it does not come
        within ``perception_wait_s``); None on an external robot."""
        if self.geometry is None:
            return None
        return self.geometry.wait(after_ns, self.params["perception_wait_s"]) or self.geometry.msg

    def end(self, task_id: str, state: str, message: str) -> None:
        with self.lock:
            if task_id in self.records:
                self.records[task_id].state, self.records[task_id].result_message = state, message

    def on_request(self, request: TaskRecord.Request, response: TaskRecord.Response) -> TaskRecord.Response:
        task_id = request.task_id.strip()
        with self.lock:
            kept = list(self.records)
            record = self.records.get(task_id) if task_id else self.records.get(kept[-1]) if kept else None
            if record is None:
                response.success = False
                response.message = (f"task {task_id} is not among the {len(kept)} task(s) this executor keeps "
                                    f"({', '.join(kept[-5:]) or 'none yet'}{', ...' if len(kept) > 5 else ''}; "
                                    f"parameter task_records = {self.params['task_records']})" if task_id
                                    else "this executor has run no task yet")
                return response
            for name in record.get_fields_and_field_types():
                value = getattr(record, name)
                setattr(response, name, list(value) if isinstance(value, list) else value)
        response.message = f"task {response.task_id}: {len(response.steps)} step(s), {response.state}"
        return response
