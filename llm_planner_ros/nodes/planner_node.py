"""Planner node: the entry point other nodes and voice frontends use.

- ``plan_task`` (PlanTask): a directive in; the grounded goal and the plan out. Plan-only requests
  are answered concurrently; with ``execute`` the task runs on the robot and the response comes
  when it ends. Bad input answers success=false with a message saying what was wrong.
- ``execute_directive`` (action ExecuteDirective): execute a directive with feedback per step;
  cancel stops the robot (the walk or skill under way is canceled). A goal sent while a task runs is accepted and
  aborted at once, its result message naming the running task.
- ``cancel_task`` (CancelTask): cancel the running task by id (or whatever runs). It, the
  ``execute_directive`` goal's cancel (Ctrl-C in ``llm-planner plan --execute``), ``llm-planner
  cancel`` (which calls ``cancel_task``) and deactivation all go through :meth:`PlannerNode.cancel`.
- ``directive`` (std_msgs/String): a voice frontend's directive, executed with the default planner;
  progress on ``task_status``. While a task asks a question (state ``asking``), what comes on
  ``directive`` is its answer.
- ``answer_task`` (AnswerTask): answer the asking task's question: "the coffee table",
  "two", "the second one", "yes".

A lifecycle node (:mod:`llm_planner_ros.managed_node`): while not active every request is answered
success=false with the command that activates it.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from llm_planner_interfaces.action import ExecuteDirective
from llm_planner_interfaces.srv import AnswerTask, CancelTask, PlanTask
from rclpy.action import ActionServer, CancelResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup
from std_msgs.msg import String

from llm_planner.service import PlanTaskRequest, PlanTaskResult, new_task_id
from llm_planner.task_states import ASKING, CANCELED
from llm_planner_ros.conversions import feedback_from_dict, fill_result
from llm_planner_ros.managed_node import OK, WARN, ManagedNode
from llm_planner_ros.model_watch import ModelWatch
from llm_planner_ros.node_utils import ACTION_QOS, SERVICE_QOS, end_goal, run_node
from llm_planner_ros.task_runner import TaskRunner


class PlannerNode(ManagedNode):
    """Lifecycle: configure builds the task runner (perception cache, executor link) and reaches the
    model server, activate takes requests, deactivate refuses new ones ("the planner is inactive;
    activate it with ...") and cancels a running task (the robot stops)."""

    def __init__(self) -> None:
        super().__init__("planner")
        # Built before the node spins: rclpy's ActionClient joins the node's waitables before it is
        # fully built, so one made while a MultiThreadedExecutor spins can crash it (its executor link).
        self.runner: TaskRunner | None = TaskRunner(self, self.domain)
        self.watch: ModelWatch | None = None
        self.in_flight = 0  # requests being planned or executed
        self.count_lock = threading.Lock()
        self.goal_cancels: set[str] = set()  # tasks whose execute_directive goal's cancel was accepted
        group = ReentrantCallbackGroup()
        self.create_service(PlanTask, "plan_task", self.on_plan_task, qos_profile=SERVICE_QOS, callback_group=group)
        self.create_service(CancelTask, "cancel_task", self.on_cancel_task, qos_profile=SERVICE_QOS,
                            callback_group=group)
        ActionServer(self, ExecuteDirective, "execute_directive", self.on_execute_directive,
                     cancel_callback=self.on_cancel_goal, callback_group=group, **ACTION_QOS)
        # (rclpy awaits a coroutine callback; its annotation admits plain functions only)
        self.create_subscription(String, "directive", self.on_directive, 10,  # type: ignore[arg-type]
                                 callback_group=group)
        self.create_service(AnswerTask, "answer_task", self.on_answer_task, qos_profile=SERVICE_QOS,
                            callback_group=group)

    def configure(self) -> None:
        if self.watch is None:
            self.watch = ModelWatch(self.domain, self.params, self.get_fully_qualified_name())
        assert self.watch is not None
        self.watch.start()
        probe = self.watch.probe()  # reach the model server now
        if probe is not None and not probe.reachable:
            self.get_logger().warning(f"the model server {probe.detail}")

    def activate(self) -> None:
        self.get_logger().info(f"{self.domain.world_name}: serving plan_task and execute_directive "
                               f"(default planner {self.params['planner']}, LLM backend {self.params['llm_backend']})")

    def deactivate(self) -> None:
        self.cancel(route="deactivation")

    def cancel(self, task_id: str = "", route: str = "cancel_task") -> tuple[bool, str]:
        """The one way a task is canceled, whoever asks (``route``: the execute_directive goal's
        cancel, the cancel_task service, deactivation): the running task (``task_id``, or whatever
        runs) stops before its robot's next skill, or stops waiting for an answer; (done, message)."""
        if self.runner is None:
            return False, self.inactive_message()
        done, message = self.runner.cancel(task_id)
        if done:
            self.get_logger().info(f"{message} (asked by {route})")
        return done, message

    def release(self) -> None:
        if self.watch is not None:
            self.watch.stop()
        self.domain.reset_language_model()

    def _active_runner(self) -> TaskRunner:
        """The task runner of a node that serves requests (configure built it)."""
        assert self.runner is not None, "the planner node serves requests only once configured"
        return self.runner

    def refusal(self) -> PlanTaskResult:
        return PlanTaskResult(False, self.inactive_message(), task_id=new_task_id())

    async def on_plan_task(self, request: PlanTask.Request, response: PlanTask.Response) -> PlanTask.Response:
        if not self.active:
            return fill_result(response, self.refusal())
        with self.count_lock:
            self.in_flight += 1
        try:
            result = await self._active_runner().plan(PlanTaskRequest(request.directive, request.planner,
                                                                      request.execute,
                                                            request.timeout_s))
        finally:
            with self.count_lock:
                self.in_flight -= 1
        return fill_result(response, result)

    async def on_execute_directive(self, goal_handle: ServerGoalHandle[Any, Any, Any]) -> ExecuteDirective.Result:
        goal = goal_handle.request
        if not self.active:
            goal_handle.abort()
            return fill_result(ExecuteDirective.Result(), self.refusal())
        with self.count_lock:
            self.in_flight += 1
        try:
            result, outcome = await self._active_runner().execute(
                PlanTaskRequest(goal.directive, goal.planner, True, goal.timeout_s),
                on_feedback=lambda fields: goal_handle.publish_feedback(
                    feedback_from_dict(ExecuteDirective.Feedback, fields)),
                task_id=task_id_of(goal_handle))
        finally:
            with self.count_lock:
                self.in_flight -= 1
        if outcome == CANCELED and not self.active:
            result.message = f"{result.message} (the planner was deactivated)"
        self._await_goal_canceling(goal_handle, task_id_of(goal_handle))
        end_goal(goal_handle, outcome, result.success)
        return fill_result(ExecuteDirective.Result(), result)

    def on_cancel_goal(self, goal_handle: ServerGoalHandle[Any, Any, Any]) -> CancelResponse:
        task_id = task_id_of(goal_handle)
        self.goal_cancels.add(task_id)  # before the cancel: it may end the task at once
        done, _ = self.cancel(task_id, route="the execute_directive goal's cancel")
        if not done:
            self.goal_cancels.discard(task_id)
        return CancelResponse.ACCEPT if done else CancelResponse.REJECT

    def _await_goal_canceling(self, goal_handle: ServerGoalHandle[Any, Any, Any], task_id: str) -> None:
        """rclpy marks a goal CANCELING only after :meth:`on_cancel_goal` returns, but the cancel may
        already have woken the task (a task waiting for an answer ends at once). Wait, at most
        ``node_timeout_s``, for that mark, so the goal ends CANCELED and the client is told its
        cancel was accepted, not ABORTED with the cancel reported as rejected."""
        deadline = time.monotonic() + float(self.params["node_timeout_s"])
        while task_id in self.goal_cancels and not goal_handle.is_cancel_requested and time.monotonic() < deadline:
            time.sleep(0.005)
        self.goal_cancels.discard(task_id)

    def on_cancel_task(self, request: CancelTask.Request, response: CancelTask.Response) -> CancelTask.Response:
        response.success, response.message = self.cancel(request.task_id.strip(), route="cancel_task")
        return response

    async def on_answer_task(self, request: AnswerTask.Request, response: AnswerTask.Response) -> AnswerTask.Response:
        if self.runner is None or not self.active:
            response.success, response.message = False, self.inactive_message()
            return response
        reply, why_not = self.runner.desk.deliver(request.text, request.task_id.strip(),
                                                  reply_timeout_s=self.params["node_timeout_s"])
        if reply is None:
            response.success, response.message = False, why_not
            return response
        taken = await reply
        assert taken is not None  # the asking task resolves the reply with (taken, message)
        response.success, response.message = taken
        return response

    async def on_directive(self, msg: String) -> None:
        if not self.active:
            self.get_logger().warning(f"directive {msg.data[:80]!r} ignored: {self.inactive_message()}")
            return
        runner = self._active_runner()
        if runner.desk.asking() is not None:  # a voice frontend's next words answer the question
            _reply, why_not = runner.desk.deliver(msg.data)
            if not why_not:
                self.get_logger().info(f"directive {msg.data[:80]!r} taken as the answer of task "
                                       f"{runner.desk.asking_task() or ASKING}")
                return
        result, _ = await runner.execute(PlanTaskRequest(msg.data, execute=True))
        if result.success:  # one severity per call site (rclpy)
            self.get_logger().info(f"directive {msg.data[:80]!r}: {result.message}")
        else:
            self.get_logger().warning(f"directive {msg.data[:80]!r}: {result.message}")

    def diagnose(self) -> tuple[bytes, str, dict[str, Any], list]:
        runner = self._active_runner()
        assert self.watch is not None  # configure built it with the runner
        running = runner.slot.running_task()
        queued = runner.planning.backlog()
        values = {"requests in flight": self.in_flight, "planning queue": queued,
                  "default planner": self.params["planner"], "llm_backend": self.params["llm_backend"]}
        if running:
            values["running task"] = running
        level = OK if queued <= self.params["planning_workers"] else WARN
        message = f"{self.in_flight} request(s) in flight, {queued} waiting for a planning thread"
        return level, message, values, [self.watch.diagnose()]

    def close(self) -> None:
        if self.watch is not None:
            self.watch.stop()
        if self.runner is not None:
            self.runner.close()


def task_id_of(goal_handle: ServerGoalHandle[Any, Any, Any]) -> str:
    """The task id of an execute_directive goal: the start of its goal id."""
    return bytes(goal_handle.goal_id.uuid).hex()[:12]


def main() -> int:
    return run_node(PlannerNode, threads=6)


if __name__ == "__main__":
    raise SystemExit(main())
