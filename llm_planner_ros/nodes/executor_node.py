"""Executor node: runs a planner on the robot, step by step, closing the loop through perception.

Serves the action ``execute_task`` (llm_planner_interfaces/action/ExecuteTask): for a grounded goal
and a planner's registry name (resolved once, by the planner node) it runs
:func:`llm_planner.execution.run_task` on a worker thread, on the robot of the contract
(:mod:`llm_planner_ros.robot_link`, docs/guides/robot.md): a walk goes to ``navigate_to_pose``, every
other action to ``robot/skill``; the observation after it is the first ``perception/state`` message
stamped at or after the goal's end. Feedback and ``task_status`` report every step (with the LLM
requests of the decision and the planner's belief about the goal's objects). Cancel cancels the goal
under way (the base stops) and ends the task; one robot runs one task at a time (a second goal is
aborted at once). With ``robot: simulated`` a task is refused at once, naming the node, its state
and the fix, while the simulator or perception is not active (asked before the task, before every
goal and while perception is late: ``lifecycle_wait_s``). The record of its last ``task_records``
tasks (steps and, on the simulated robot, the geometry after each) is served on ``task_record``.
"""
from __future__ import annotations

import threading
import traceback
from typing import Any

from llm_planner_interfaces.action import ExecuteTask
from rclpy.action import ActionServer, CancelResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup

from llm_planner.errors import LlmPlannerError
from llm_planner.execution import EpisodeResult, StepRecord, run_task
from llm_planner.task_states import CANCELED, EXECUTING, final_state
from llm_planner_ros.conversions import feedback_from_dict, goal_from_json, step_fields, time_to_ns
from llm_planner_ros.managed_node import ERROR, OK, WARN, ManagedNode
from llm_planner_ros.model_watch import ModelWatch
from llm_planner_ros.node_utils import ACTION_QOS, StatusPublisher, WorkerPool, end_goal, run_node
from llm_planner_ros.robot_link import RosRobotLink
from llm_planner_ros.task_records import TaskRecords


class ExecutorNode(ManagedNode):
    """Lifecycle: configure builds the robot link and reaches the model server, activate takes
    tasks, deactivate refuses new ones and cancels a running one (the robot stops)."""

    def __init__(self) -> None:
        super().__init__("executor")
        # Built before the node spins: rclpy's ActionClient joins the node's waitables before it is
        # fully built, so one made while a MultiThreadedExecutor spins can crash it.
        self.robot = RosRobotLink(self, self.domain)
        self.records: TaskRecords | None = None
        self.watch: ModelWatch | None = None
        self.status = StatusPublisher(self)
        self.worker = WorkerPool(self, 1, "episode")
        self.running: ExecuteTask.Goal | None = None  # one robot: one task at a time
        self.step = 0
        self.lock = threading.Lock()
        ActionServer(self, ExecuteTask, "execute_task", self.execute, cancel_callback=lambda _: CancelResponse.ACCEPT,
                     callback_group=ReentrantCallbackGroup(), **ACTION_QOS)

    def configure(self) -> None:
        if self.records is None:
            self.records = TaskRecords(self, self.domain)
            self.watch = ModelWatch(self.domain, self.params, self.get_fully_qualified_name())
        assert self.watch is not None
        self.watch.start()
        self.watch.probe()  # reach the model server now: its state is on /diagnostics from the start
        probe = self.watch.last
        if probe is not None and not probe.reachable:
            self.get_logger().warning(f"the model server {probe.detail}")

    def activate(self) -> None:
        self.get_logger().info(f"{self.domain.world_name}: serving execute_task")

    def release(self) -> None:
        if self.watch is not None:
            self.watch.stop()
        self.domain.reset_language_model()

    async def execute(self, goal_handle: ServerGoalHandle[Any, Any, Any]) -> ExecuteTask.Result:
        request = goal_handle.request
        if not self.active:
            goal_handle.abort()
            return ExecuteTask.Result(message=f"refused: {self.inactive_message()}")
        with self.lock:
            running, self.running = self.running, self.running or request
        if running is not None:
            goal_handle.abort()
            return ExecuteTask.Result(message=f"refused: the robot is busy with task {running.task_id}")
        try:
            result = await self.worker.run(self.run, goal_handle)
        finally:
            self.running = None
        if request.context:
            result.message = f"{request.context}; {result.message}"
        end_goal(goal_handle, result.outcome, result.success)
        state = final_state(result.outcome)
        assert self.records is not None  # configured before it takes tasks
        self.records.end(request.task_id, state, result.message)
        self.status(request.task_id, request.directive, state, len(result.steps), message=result.message,
                    llm_requests=result.stats.llm_requests)
        return ExecuteTask.Result(success=result.success, message=result.message, plan=result.plan,
                                  executed=[s.describe() for s in result.steps],
                                  llm_requests=result.stats.llm_requests,
                                  planning_time_s=result.stats.planning_time_s)

    def run(self, goal_handle: ServerGoalHandle[Any, Any, Any]) -> EpisodeResult:
        request = goal_handle.request
        robot, records = self.robot, self.records
        assert records is not None  # configured before it takes tasks
        self.step = 0
        problem = robot.problem()  # a simulated robot's nodes must be active before it moves
        if problem:
            return EpisodeResult(False, f"refused: {problem} (no goal was sent)")
        self.status(request.task_id, request.directive, EXECUTING, message=f"planner {request.planner}")
        records.begin(request.task_id, request.directive, request.planner, request.goal)
        lm = self.domain.language_model() if self.params["llm_backend"] == "openai" else None
        fallbacks_before = lm.usage.fallbacks if lm is not None else 0
        fallback_step = [0]

        def fallback_note() -> str:
            """Said in the feedback and the result when the embedded provider answered for the server."""
            if lm is None:
                return ""
            used = lm.usage.fallbacks - fallbacks_before
            if not used:
                return ""
            if not fallback_step[0]:
                fallback_step[0] = max(self.step, 1)
            server = lm.server_url() or "the model server"
            now = "" if not getattr(lm, "primary_down", "") else " (it still does not answer)"
            how = getattr(lm, "fallback_state", "") or "stopped answering"  # gone, or failing (FallbackBackend)
            return (f"model server {server} {how} at step {fallback_step[0]}{now}: the embedded "
                    f"offline provider answered {used} question(s)")

        def on_step(record: StepRecord) -> None:
            self.step = record.step
            fields = step_fields(request.task_id, record)
            note = fallback_note()
            if note:
                fields = {**fields, "observation": f"{fields['observation']} [{note}]"}
            goal_handle.publish_feedback(feedback_from_dict(ExecuteTask.Feedback, fields))
            self.status.step(request.directive, fields)
            path = robot.last_path or (self.domain.base_path(record.action) if record.success else [])
            records.step(request.task_id, fields, path, robot.last_stamp_ns)

        try:
            goal = goal_from_json(self.domain, request.goal)
        except LlmPlannerError as exc:
            return EpisodeResult(False, f"cannot run the task: {exc}")
        try:
            result = run_task(self.domain, robot, request.directive, goal, request.planner,
                              request.timeout_s, start_ns=self.get_clock().now().nanoseconds, on_step=on_step,
                              should_stop=lambda: goal_handle.is_cancel_requested or not self.active)
        except Exception as exc:  # noqa: BLE001 - a planner bug must not take the executor down
            self.get_logger().error(f"internal error in execute_task: {traceback.format_exc()}")
            return EpisodeResult(False, f"execution failed with an internal error ({type(exc).__name__}: {exc})")
        if not self.active and result.outcome == CANCELED:
            result.message = f"{result.message} (the executor was deactivated)"
        note = fallback_note()
        if note:
            result.message = f"{result.message}; {note}"
        return result

    def diagnose(self) -> tuple[bytes, str, dict[str, Any], list]:
        running = self.running
        values: dict[str, Any] = {"task": running.task_id if running else "", "step": self.step if running else 0}
        stale = self.params["perception_stale_s"]
        msg = self.robot.perception.latest[self.domain.perception_topics[0]].msg
        if msg is None:
            level, message = WARN, "no perception received yet"
        else:
            age = (self.get_clock().now().nanoseconds - time_to_ns(msg.header.stamp)) / 1e9
            values["last perception age s"] = f"{age:.1f}"
            level = OK if age <= stale else WARN if age <= 3 * stale else ERROR
            message = (f"task {running.task_id} at step {self.step}" if running else "idle, ready for a task")
            if level != OK:
                message += f"; the last perception is {age:.1f} s old (perception_stale_s {stale:g})"
        extra = [self.watch.diagnose()] if self.watch is not None else []
        return level, message, values, extra

    def close(self) -> None:
        if self.watch is not None:
            self.watch.stop()
        self.worker.shutdown()


def main() -> int:
    return run_node(ExecutorNode, threads=4)


if __name__ == "__main__":
    raise SystemExit(main())
