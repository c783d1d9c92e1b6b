"""Executor node: runs a planner on the robot, step by step, closing the loop through perception.

Serves the action ``execute_task`` (llm_planner_interfaces/action/ExecuteTask): for a grounded goal
and a planner name it runs :func:`llm_planner.execution.run_task` on a worker thread. Each action
goes to ``robot/skill``; the observation after it is the first perception message stamped at or
after the skill's outcome. Feedback and ``task_status`` report every step (with the LLM requests of
the decision and the planner's belief about the goal's objects). Cancel stops the robot before its
next skill; one robot runs one task at a time (a second goal is aborted at once). The record of its
last ``task_records`` tasks (steps and the geometry after each) is served on ``task_record``.
"""
from __future__ import annotations

import threading
import traceback

from rclpy.action import ActionServer, CancelResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from llm_planner.execution import CANCELED, SUCCEEDED, EpisodeResult, StepRecord, run_task
from llm_planner.ros.conversions import feedback_from_dict, step_fields
from llm_planner.ros.node_utils import (ACTION_QOS, StatusPublisher, WorkerPool, declare_params, end_goal, make_domain,
                                        run_node)
from llm_planner.ros.robot_link import RosRobotLink
from llm_planner.ros.task_records import TaskRecords
from llm_planner_interfaces.action import ExecuteTask


class ExecutorNode(Node):
    def __init__(self) -> None:
        super().__init__("executor")
        self.params = declare_params(self)
        self.domain = make_domain(self.params)
        self.robot = RosRobotLink(self, self.domain)
        self.status = StatusPublisher(self)
        self.records = TaskRecords(self, self.domain)
        self.worker = WorkerPool(self, 1, "episode")
        self.running: ExecuteTask.Goal | None = None  # one robot: one task at a time
        self.lock = threading.Lock()
        ActionServer(self, ExecuteTask, "execute_task", self.execute, cancel_callback=lambda _: CancelResponse.ACCEPT,
                     callback_group=ReentrantCallbackGroup(), **ACTION_QOS)
        self.get_logger().info(f"{self.domain.world_name}: serving execute_task")

    async def execute(self, goal_handle) -> ExecuteTask.Result:
        request = goal_handle.request
        with self.lock:
            running, self.running = self.running, self.running or request
        if running is not None:
            goal_handle.abort()
            return ExecuteTask.Result(message=f"refused: the robot is busy with task {running.task_id}")
        try:
            result = await self.worker.run(self.run, goal_handle)
        finally:
            self.running = None
        end_goal(goal_handle, result.outcome, result.success)
        state = result.outcome if result.outcome in (SUCCEEDED, CANCELED) else "failed"
        self.records.end(request.task_id, state, result.message)
        self.status(request.task_id, request.directive, state, len(result.steps), message=result.message,
                    llm_requests=result.stats.llm_requests)
        return ExecuteTask.Result(success=result.success, message=result.message, plan=result.plan,
                                  executed=[s.describe() for s in result.steps],
                                  llm_requests=result.stats.llm_requests,
                                  planning_time_s=result.stats.planning_time_s)

    def run(self, goal_handle) -> EpisodeResult:
        request = goal_handle.request
        self.status(request.task_id, request.directive, "executing", message=f"planner {request.planner}")
        self.records.begin(request.task_id, request.directive, request.planner, request.goal)

        def on_step(record: StepRecord) -> None:
            fields = step_fields(request.task_id, record)
            goal_handle.publish_feedback(feedback_from_dict(ExecuteTask.Feedback, fields))
            self.status.step(request.directive, fields)
            self.records.step(request.task_id, fields, self.robot.last_path, self.robot.last_stamp_ns)

        try:
            return run_task(self.domain, self.robot, request.directive, request.goal, request.planner,
                            request.timeout_s, start_ns=self.get_clock().now().nanoseconds, on_step=on_step,
                            should_stop=lambda: goal_handle.is_cancel_requested)
        except Exception as exc:  # noqa: BLE001 - a planner bug must not take the executor down
            self.get_logger().error(f"internal error in execute_task: {traceback.format_exc()}")
            return EpisodeResult(False, f"execution failed with an internal error ({type(exc).__name__}: {exc})")

    def close(self) -> None:
        self.worker.shutdown()


def main() -> int:
    return run_node(ExecutorNode, threads=4)


if __name__ == "__main__":
    raise SystemExit(main())
