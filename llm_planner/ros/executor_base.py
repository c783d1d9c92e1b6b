"""What the household and the G-TAMP executor nodes share: the latest perception messages with a
wait for one stamped after a skill, the robot skill client, /task_status, and the /execute_task
service that runs one task at a time and answers errors instead of dying."""
from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Hashable, Mapping

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node

from llm_planner.errors import LlmPlannerError
from llm_planner.ros.conversions import time_to_ns
from llm_planner.ros.node_utils import GEOMETRY_QOS, wait_future
from llm_planner_interfaces.msg import PerceivedState, TaskStatus
from llm_planner_interfaces.srv import ExecuteTask, RobotSkill


class ExecutorBase(Node):
    """Subclasses set ``self.params`` (with ``perception_wait_s``) before calling this ``__init__``
    and implement :meth:`execute_task`."""

    def __init__(self, name: str, perception_topics: Mapping[Hashable, str]) -> None:
        super().__init__(name)
        self.robot_lock = threading.Lock()  # one robot: one task at a time
        self.perception: dict[Hashable, PerceivedState | None] = {key: None for key in perception_topics}
        self.perception_changed = threading.Condition()
        topics = MutuallyExclusiveCallbackGroup()
        for key, topic in perception_topics.items():
            self.create_subscription(PerceivedState, topic, lambda m, k=key: self.on_perception(k, m), GEOMETRY_QOS,
                                     callback_group=topics)
        self.skill_client = self.create_client(RobotSkill, "/robot/skill", callback_group=ReentrantCallbackGroup())
        self.status_pub = self.create_publisher(TaskStatus, "/task_status", 20)

    def serve(self) -> None:
        """Start serving /execute_task (call last in the subclass's ``__init__``)."""
        self.create_service(ExecuteTask, "/execute_task", self.on_execute, callback_group=ReentrantCallbackGroup())

    # ------------------------------------------------------------------ perception
    def on_perception(self, key: Hashable, msg: PerceivedState) -> None:
        with self.perception_changed:
            self.perception[key] = msg
            self.perception_changed.notify_all()

    def wait_perception(self, key: Hashable, after_ns: int) -> PerceivedState | None:
        """The latest message of a perception topic stamped at or after ``after_ns``; None on timeout."""
        deadline = time.monotonic() + self.params["perception_wait_s"]
        with self.perception_changed:
            while True:
                msg = self.perception[key]
                if msg is not None and time_to_ns(msg.header.stamp) >= after_ns:
                    return msg
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.perception_changed.wait(remaining)

    # ------------------------------------------------------------------ robot
    def call_skill(self, verb: str, args: list[str]) -> tuple[bool, str, int]:
        """One /robot/skill call: (success, reason, stamp of the geometry published after it)."""
        if not self.skill_client.wait_for_service(timeout_sec=10.0):
            raise LlmPlannerError("the robot skill service /robot/skill is not available")
        response = wait_future(self.skill_client.call_async(RobotSkill.Request(action=verb, args=args)),
                               self.params["perception_wait_s"] * 6)
        if response is None:
            raise LlmPlannerError("the robot did not answer the skill call in time")
        return bool(response.success), response.reason, time_to_ns(response.stamp)

    def publish_status(self, task_id: str, directive: str, state: str, step: int = 0, action: str = "",
                       result: str = "", message: str = "") -> None:
        msg = TaskStatus(task_id=task_id, directive=directive, state=state, step=step, action=action,
                         result=result, message=message)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.status_pub.publish(msg)

    # ------------------------------------------------------------------ /execute_task
    def on_execute(self, request: ExecuteTask.Request, response: ExecuteTask.Response) -> ExecuteTask.Response:
        with self.robot_lock:
            try:
                self.execute_task(request, response)
            except (LlmPlannerError, ValueError, KeyError) as exc:
                response.success, response.message = False, f"execution failed: {exc}"
                self.publish_status(request.task_id, request.directive, "failed", message=response.message)
            except Exception as exc:  # noqa: BLE001 - a planner bug must not take the executor down
                self.get_logger().error(f"internal error on /execute_task: {traceback.format_exc()}")
                response.success = False
                response.message = f"execution failed with an internal error ({type(exc).__name__}: {exc})"
                self.publish_status(request.task_id, request.directive, "failed", message=response.message)
        return response

    def execute_task(self, request: ExecuteTask.Request, response: ExecuteTask.Response) -> Any:
        raise NotImplementedError
