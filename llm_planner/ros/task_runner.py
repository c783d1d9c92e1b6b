"""The planner node's work, behind its service, action and topic callbacks.

- Plan-only requests run concurrently on a bounded pool of planning threads
  (``planning_workers``): grounding (LLM calls) and plan preview (search) never run on a thread
  that serves callbacks, so feedback, cancel requests and new calls stay responsive.
- Execution: one robot runs one task at a time (:class:`llm_planner.service.RobotSlot`); a second
  request is refused at once, naming the running task. The directive is grounded on the planning
  pool, then the task goes to the executor's ``execute_task`` action on a thread of its own
  (:class:`ExecutorLink`), its feedback relayed and a cancel request forwarded.
- ``task_status`` reports planning, planned, refused and failures before execution; the executor
  reports the steps and how execution ended.
"""
from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from typing import Any

from action_msgs.msg import GoalStatus
from llm_planner_interfaces.action import ExecuteTask
from rclpy.node import Node

from llm_planner.adapters.base import Domain
from llm_planner.errors import LlmPlannerError
from llm_planner.execution import CANCELED, FAILED, SUCCEEDED
from llm_planner.ros.conversions import feedback_to_dict
from llm_planner.ros.executor_link import ExecutorLink
from llm_planner.ros.node_utils import StatusPublisher, WorkerPool
from llm_planner.ros.robot_link import PerceptionCache
from llm_planner.service import PlanningService, PlanTaskRequest, PlanTaskResult, RobotSlot, new_task_id

REFUSED = "refused"
FeedbackCallback = Callable[[dict[str, Any]], None]


class TaskRunner:
    def __init__(self, node: Node, domain: Domain) -> None:
        self.node = node
        self.domain = domain
        self.service = PlanningService(domain)
        self.slot = RobotSlot()
        self.status = StatusPublisher(node)
        self.perception = PerceptionCache(node, domain)
        self.executor = ExecutorLink(node, domain.params)
        self.planning = WorkerPool(node, domain.params["planning_workers"], "planning")
        self.execution = WorkerPool(node, 1, "execution")

    def close(self) -> None:
        self.planning.shutdown()
        self.execution.shutdown()

    # ------------------------------------------------------------------ plan only
    async def plan(self, request: PlanTaskRequest) -> PlanTaskResult:
        """/plan_task: plan-only requests concurrently; an executing request as a task of the robot."""
        if request.execute:
            return (await self.execute(request))[0]
        return await self.planning.run(self._plan_only, request)

    def _plan_only(self, request: PlanTaskRequest) -> PlanTaskResult:
        task_id = new_task_id()
        try:
            task = self.service.prepare(request, task_id)
            result = self.service.preview(task, self.perception.percepts())
        except LlmPlannerError as exc:
            result = PlanTaskResult(False, str(exc), task_id=task_id)
        except Exception as exc:  # noqa: BLE001 - a bug must not take the service down
            result = self._internal_error(exc, task_id)
        self.status(task_id, request.directive, "planned" if result.success else "failed", message=result.message)
        return result

    # ------------------------------------------------------------------ execution
    async def execute(self, request: PlanTaskRequest, on_feedback: FeedbackCallback | None = None,
                      task_id: str = "") -> tuple[PlanTaskResult, str]:
        """Ground and execute a directive on the robot: (result, outcome) with outcome succeeded,
        failed, canceled or refused."""
        task_id = task_id or new_task_id()
        cancel, refusal = self.slot.claim(task_id, request.directive)
        if cancel is None:
            self.status(task_id, request.directive, REFUSED, message=refusal)
            return PlanTaskResult(False, refusal, task_id=task_id), REFUSED
        try:
            return await self._execute(task_id, request, on_feedback or (lambda _: None), cancel.is_set)
        except Exception as exc:  # noqa: BLE001 - a bug must not take the node down
            result = self._internal_error(exc, task_id)
            self.status(task_id, request.directive, "failed", message=result.message)
            return result, FAILED
        finally:
            self.slot.release(task_id)

    async def _execute(self, task_id: str, request: PlanTaskRequest, on_feedback: FeedbackCallback,
                       stop: Callable[[], bool]) -> tuple[PlanTaskResult, str]:
        self.status(task_id, request.directive, "planning", message="grounding the directive")
        try:
            task = await self.planning.run(self.service.prepare, request, task_id)
        except LlmPlannerError as exc:
            self.status(task_id, request.directive, "failed", message=str(exc))
            return PlanTaskResult(False, str(exc), task_id=task_id), FAILED
        goal = self.domain.goal_lists(task.translation.goal)
        requests = task.translation.llm_requests
        if stop():
            self.status(task_id, task.directive, CANCELED, message="canceled before execution")
            return task.result(self.domain, False, "canceled before execution"), CANCELED
        self.status(task_id, task.directive, "planning", message=f"goal {goal} with {task.planner}")
        on_feedback({"task_id": task_id, "state": "planning", "step": 0, "action": "", "outcome": "",
                     "observation": "", "llm_requests": requests, "decision_llm_requests": 0, "belief": ()})

        def relay(feedback: Any) -> None:
            fields = feedback_to_dict(feedback)
            on_feedback({**fields, "llm_requests": fields["llm_requests"] + requests})

        order = ExecuteTask.Goal(task_id=task_id, directive=task.directive, goal=json.dumps(goal),
                                 planner=task.planner, timeout_s=task.timeout_s)
        try:
            status, result = await self.execution.run(self.executor.run, order, relay, stop)
        except LlmPlannerError as exc:
            self.status(task_id, task.directive, "failed", message=str(exc))
            return task.result(self.domain, False, str(exc)), FAILED
        outcome = CANCELED if status == GoalStatus.STATUS_CANCELED else SUCCEEDED if result.success else FAILED
        return task.result(self.domain, result.success, result.message, plan=list(result.plan),
                           executed=list(result.executed), llm_requests=result.llm_requests,
                           planning_time_s=task.seconds + result.planning_time_s), outcome

    def cancel(self, task_id: str = "") -> tuple[bool, str]:
        """Stop the running task (``task_id``, or whatever runs) before its next skill: (done, message)."""
        done, message = self.slot.cancel(task_id)
        if done:
            self.executor.cancel_running()
        return done, message

    def _internal_error(self, exc: Exception, task_id: str) -> PlanTaskResult:
        self.node.get_logger().error(f"internal error: {traceback.format_exc()}")
        return PlanTaskResult(False, f"internal error ({type(exc).__name__}: {exc}); the node keeps serving, "
                              "see the planner node's log", task_id=task_id)
