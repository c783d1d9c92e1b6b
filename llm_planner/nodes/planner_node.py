"""Planner node: the entry point other nodes and voice frontends use.

- ``plan_task`` (PlanTask): a directive in; the grounded goal and the plan out. Plan-only requests
  are answered concurrently; with ``execute`` the task runs on the robot and the response comes
  when it ends. Bad input answers success=false with a message saying what was wrong.
- ``execute_directive`` (action ExecuteDirective): execute a directive with feedback per step;
  cancel stops the robot before its next skill. A goal sent while a task runs is accepted and
  aborted at once, its result message naming the running task.
- ``cancel_task`` (CancelTask): cancel the running task by id (or whatever runs).
- ``directive`` (std_msgs/String): a voice frontend's directive, executed with the default planner;
  progress on ``task_status``.
"""
from __future__ import annotations

from rclpy.action import ActionServer, CancelResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from llm_planner.ros.conversions import feedback_from_dict, fill_result
from llm_planner.ros.node_utils import ACTION_QOS, end_goal, SERVICE_QOS, declare_params, make_domain, run_node
from llm_planner.ros.task_runner import TaskRunner
from llm_planner.service import PlanTaskRequest
from llm_planner_interfaces.action import ExecuteDirective
from llm_planner_interfaces.srv import CancelTask, PlanTask


class PlannerNode(Node):
    def __init__(self) -> None:
        super().__init__("planner")
        self.params = declare_params(self)
        self.runner = TaskRunner(self, make_domain(self.params))
        group = ReentrantCallbackGroup()
        self.create_service(PlanTask, "plan_task", self.on_plan_task, qos_profile=SERVICE_QOS, callback_group=group)
        self.create_service(CancelTask, "cancel_task", self.on_cancel_task, qos_profile=SERVICE_QOS,
                            callback_group=group)
        ActionServer(self, ExecuteDirective, "execute_directive", self.on_execute_directive,
                     cancel_callback=self.on_cancel_goal, callback_group=group, **ACTION_QOS)
        self.create_subscription(String, "directive", self.on_directive, 10, callback_group=group)
        self.get_logger().info(f"{self.runner.domain.world_name}: serving plan_task and execute_directive "
                               f"(default planner {self.params['planner']}, LLM backend {self.params['llm_backend']})")

    async def on_plan_task(self, request: PlanTask.Request, response: PlanTask.Response) -> PlanTask.Response:
        result = await self.runner.plan(PlanTaskRequest(request.directive, request.planner, request.execute,
                                                        request.timeout_s))
        return fill_result(response, result)

    async def on_execute_directive(self, goal_handle) -> ExecuteDirective.Result:
        goal = goal_handle.request
        result, outcome = await self.runner.execute(
            PlanTaskRequest(goal.directive, goal.planner, True, goal.timeout_s),
            on_feedback=lambda fields: goal_handle.publish_feedback(
                feedback_from_dict(ExecuteDirective.Feedback, fields)),
            task_id=task_id_of(goal_handle))
        end_goal(goal_handle, outcome, result.success)
        return fill_result(ExecuteDirective.Result(), result)

    def on_cancel_goal(self, goal_handle) -> CancelResponse:
        done, _ = self.runner.cancel(task_id_of(goal_handle))
        return CancelResponse.ACCEPT if done else CancelResponse.REJECT

    def on_cancel_task(self, request: CancelTask.Request, response: CancelTask.Response) -> CancelTask.Response:
        response.success, response.message = self.runner.cancel(request.task_id.strip())
        return response

    async def on_directive(self, msg: String) -> None:
        result, _ = await self.runner.execute(PlanTaskRequest(msg.data, execute=True))
        if result.success:  # one severity per call site (rclpy)
            self.get_logger().info(f"directive {msg.data[:80]!r}: {result.message}")
        else:
            self.get_logger().warning(f"directive {msg.data[:80]!r}: {result.message}")

    def close(self) -> None:
        self.runner.close()


def task_id_of(goal_handle) -> str:
    """The task id of an execute_directive goal: the start of its goal id."""
    return bytes(goal_handle.goal_id.uuid).hex()[:12]


def main() -> int:
    return run_node(PlannerNode, threads=6)


if __name__ == "__main__":
    raise SystemExit(main())
