"""Planner node: the entry point other nodes and voice frontends use.

- ``/plan_task`` (PlanTask): a directive in; the grounded formal goal, the plan and, when asked
  to execute, the executed steps out. Bad input answers success=false with a message saying what
  was wrong; the node keeps serving. Calls are served concurrently; execution is serialised by
  the executor (one robot).
- ``/directive`` (std_msgs/String): a voice frontend publishes a directive as plain text; it is
  planned and executed with the default planner, and progress goes to ``/task_status``.
"""
from __future__ import annotations

import threading
import time
import traceback

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from llm_planner_interfaces.msg import PerceivedState, TaskStatus
from llm_planner_interfaces.srv import ExecuteTask, PlanTask
from llm_planner.errors import LlmPlannerError
from llm_planner.ros.node_utils import GEOMETRY_QOS
from llm_planner.ros.conversions import goal_to_json, observation_from_msg, state_from_msg
from llm_planner.ros.node_utils import declare_params, run_node, wait_future
from llm_planner.service import PlanningService, PlanTaskRequest, PlanTaskResult, new_task_id
from llm_planner.translation import make_translator
from llm_planner.world.scene import load_scene
from llm_planner.world.symbolic import Household


class PlannerNode(Node):
    def __init__(self) -> None:
        super().__init__("planner")
        self.params = declare_params(self, ("scene", "planner", "llm_backend", "max_directive_chars",
                                            "plan_timeout_s", "perception_wait_s"))
        household = Household(load_scene(self.params["scene"]))
        self.service = PlanningService(household=household,
                                       translate=make_translator(household, self.params["llm_backend"]),
                                       default_planner=self.params["planner"],
                                       max_directive_chars=self.params["max_directive_chars"])
        self.perception: dict[bool, PerceivedState | None] = {False: None, True: None}
        group = ReentrantCallbackGroup()
        self.create_subscription(PerceivedState, "/perception/state", lambda m: self._store(m, False), GEOMETRY_QOS,
                                 callback_group=group)
        self.create_subscription(PerceivedState, "/perception/full_state", lambda m: self._store(m, True),
                                 GEOMETRY_QOS, callback_group=group)
        self.execute_client = self.create_client(ExecuteTask, "/execute_task", callback_group=group)
        self.status_pub = self.create_publisher(TaskStatus, "/task_status", 20)
        self.create_service(PlanTask, "/plan_task", self.on_plan_task, callback_group=group)
        self.create_subscription(String, "/directive", self.on_directive, 10, callback_group=group)
        self.get_logger().info(f"serving /plan_task (default planner {self.params['planner']}, "
                               f"LLM backend {self.params['llm_backend']}); listening on /directive")

    def _store(self, msg: PerceivedState, full: bool) -> None:
        self.perception[full] = msg

    # ---------------------------------------------------------------- /plan_task
    def on_plan_task(self, request: PlanTask.Request, response: PlanTask.Response) -> PlanTask.Response:
        try:
            result = self.plan_task(PlanTaskRequest(request.directive, request.planner, request.execute,
                                                    request.timeout_s))
        except Exception as exc:  # noqa: BLE001 - a bug must not take the service down
            self.get_logger().error(f"internal error on /plan_task: {traceback.format_exc()}")
            result = PlanTaskResult(False, f"internal error ({type(exc).__name__}: {exc}); the node keeps serving, "
                                    "see the planner node's log")
        response.success = result.success
        response.message = result.message
        response.goal = goal_to_json_lists(result.goal)
        response.plan = result.plan
        response.task_id = result.task_id
        response.llm_requests = result.llm_requests
        response.planning_time_s = float(result.planning_time_s)
        response.executed = result.executed
        return response

    def plan_task(self, request: PlanTaskRequest) -> PlanTaskResult:
        task_id = new_task_id()
        started = time.perf_counter()
        try:
            directive, planner, translation = self.service.prepare(request)
        except LlmPlannerError as exc:
            self.get_logger().warning(f"refused: {exc}")
            return PlanTaskResult(False, str(exc), task_id=task_id)
        goal_lists = self.service.goal_lists(translation.goal)
        self.publish_status(task_id, directive, "planning", message=f"goal {goal_lists} with {planner}")
        try:
            if request.execute:
                result = self.execute(task_id, directive, planner, translation.goal, request.timeout_s)
            else:
                result = self.preview(task_id, directive, planner, translation.goal)
        except LlmPlannerError as exc:
            result = PlanTaskResult(False, str(exc), task_id=task_id)
        result.goal = goal_lists
        result.llm_requests += translation.llm_requests
        if translation.message:
            result.message = f"{translation.message}; {result.message}"
        result.planning_time_s = result.planning_time_s or (time.perf_counter() - started)
        if not request.execute:
            self.publish_status(task_id, directive, "planned" if result.success else "failed", message=result.message)
        return result

    def preview(self, task_id: str, directive: str, planner: str, goal) -> PlanTaskResult:
        partial, full = self.perception[False], self.perception[True]
        if partial is None or full is None:
            raise LlmPlannerError("no perception yet: is the perception node running? (try again in a moment)")
        household = self.service.household
        steps, requests, seconds, description = self.service.preview(
            directive, planner, goal, observation_from_msg(partial, household), state_from_msg(full, household))
        message = f"planned {len(steps)} step(s) with {planner}" + (f" ({description})" if description else "")
        return PlanTaskResult(True, message, plan=steps, task_id=task_id, llm_requests=requests,
                              planning_time_s=seconds)

    def execute(self, task_id: str, directive: str, planner: str, goal, timeout_s: float) -> PlanTaskResult:
        timeout_s = timeout_s if timeout_s > 0 else self.params["plan_timeout_s"]
        if not self.execute_client.wait_for_service(timeout_sec=10.0):
            raise LlmPlannerError("the executor (/execute_task) is not available; is the executor node running?")
        request = ExecuteTask.Request(task_id=task_id, directive=directive, goal=goal_to_json(goal), planner=planner,
                                      timeout_s=float(timeout_s))
        # the robot may be busy with an earlier task: allow for the wait plus this task's own limit
        response = wait_future(self.execute_client.call_async(request), timeout_s * 2 + 30.0)
        if response is None:
            raise LlmPlannerError(f"execution did not finish within {timeout_s:.0f} s")
        return PlanTaskResult(response.success, response.message, plan=list(response.plan), task_id=task_id,
                              llm_requests=response.llm_requests, planning_time_s=response.planning_time_s,
                              executed=list(response.executed))

    # ---------------------------------------------------------------- /directive
    def on_directive(self, msg: String) -> None:
        request = PlanTaskRequest(msg.data, execute=True)
        threading.Thread(target=self._run_directive, args=(request,), daemon=True).start()

    def _run_directive(self, request: PlanTaskRequest) -> None:
        result = self.plan_task(request)
        level = self.get_logger().info if result.success else self.get_logger().warning
        level(f"directive {request.directive[:80]!r}: {result.message}")
        if not result.success and not result.executed:
            self.publish_status(result.task_id, request.directive[:200], "failed", message=result.message)

    def publish_status(self, task_id: str, directive: str, state: str, message: str = "") -> None:
        msg = TaskStatus(task_id=task_id, directive=directive, state=state, message=message)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.status_pub.publish(msg)


def goal_to_json_lists(goal_lists: list) -> str:
    import json

    return json.dumps(goal_lists)


def main() -> int:
    return run_node(PlannerNode, threads=6)


if __name__ == "__main__":
    raise SystemExit(main())
