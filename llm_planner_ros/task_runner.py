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
- Ask back: a directive one answer settles puts an executing task in state ``asking``
  (the question and its options on ``task_status`` and in the action feedback) until the answer
  comes (:class:`~llm_planner_ros.asking.QuestionDesk`) or ``clarify_timeout_s`` passes (refused,
  the question in the message); the answer is read with the goal reader and the task goes on with
  the directive as if it had been clear. A reply that answers nothing is asked once more. With
  ``require_approval`` (goal, plan) the task asks "May I ...?" before the robot moves: no cancels
  with nothing moved. A plan-only call never asks: its message and ``question`` carry the question.
"""
from __future__ import annotations

import dataclasses
import time
import traceback
from collections.abc import Callable
from typing import Any

from action_msgs.msg import GoalStatus
from llm_planner_interfaces.action import ExecuteTask
from rclpy.node import Node

from llm_planner.adapters.base import Domain
from llm_planner.clarification import NO, NeedsAnswer, Option, Question
from llm_planner.errors import LlmPlannerError
from llm_planner.service import (
    PlanningService,
    PlanTaskRequest,
    PlanTaskResult,
    RobotSlot,
    new_task_id,
    refuse_non_text,
)
from llm_planner.task_states import ASKING, CANCELED, FAILED, PLANNED, PLANNING, REFUSED, SUCCEEDED
from llm_planner_ros.asking import CANCELED_WHILE_ASKING, QuestionDesk, answer_reply
from llm_planner_ros.conversions import feedback_to_dict, goal_to_json
from llm_planner_ros.executor_link import ExecutorLink
from llm_planner_ros.node_utils import StatusPublisher, WorkerPool
from llm_planner_ros.robot_link import PerceptionCache

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
        self.desk = QuestionDesk(node)

    def close(self) -> None:
        self.planning.shutdown()
        self.execution.shutdown()

    # ------------------------------------------------------------------ plan only
    async def plan(self, request: PlanTaskRequest) -> PlanTaskResult:
        """/plan_task: plan-only requests concurrently; an executing request as a task of the robot."""
        turned_away = _at_the_door(request)
        if turned_away is not None:
            return turned_away
        if request.execute:
            return (await self.execute(request))[0]
        return await self.planning.run(self._plan_only, request)

    def _plan_only(self, request: PlanTaskRequest) -> PlanTaskResult:
        task_id = new_task_id()
        try:
            task = self.service.prepare(request, task_id)
            result = self.service.preview(task, self.perception.percepts())
        except LlmPlannerError as exc:  # a question is never asked here: its message carries it
            result = PlanTaskResult(False, str(exc), task_id=task_id)
            if isinstance(exc, NeedsAnswer):
                result.question, result.options = exc.question.text, list(exc.question.labels)
        except Exception as exc:  # noqa: BLE001 - a bug must not take the service down
            result = self._internal_error(exc, task_id)
        self.status(task_id, request.directive, PLANNED if result.success else FAILED, message=result.message)
        return result

    # ------------------------------------------------------------------ execution
    async def execute(self, request: PlanTaskRequest, on_feedback: FeedbackCallback | None = None,
                      task_id: str = "") -> tuple[PlanTaskResult, str]:
        """Ground and execute a directive on the robot: (result, outcome) with outcome succeeded,
        failed, canceled or refused. A directive with control characters is refused at the door: no
        task id, no status, nothing moves."""
        turned_away = _at_the_door(request)
        if turned_away is not None:
            return turned_away, REFUSED
        task_id = task_id or new_task_id()
        cancel, refusal = self.slot.claim(task_id, request.directive)
        if cancel is None:
            self.status(task_id, request.directive, REFUSED, message=refusal)
            return PlanTaskResult(False, refusal, task_id=task_id), REFUSED
        try:
            return await self._execute(task_id, request, on_feedback or (lambda _: None), cancel.is_set)
        except Exception as exc:  # noqa: BLE001 - a bug must not take the node down
            result = self._internal_error(exc, task_id)
            self.status(task_id, request.directive, FAILED, message=result.message)
            return result, FAILED
        finally:
            self.slot.release(task_id)

    async def _execute(self, task_id: str, request: PlanTaskRequest, on_feedback: FeedbackCallback,
                       stop: Callable[[], bool]) -> tuple[PlanTaskResult, str]:
        self.status(task_id, request.directive, PLANNING, message="grounding the directive")
        asked: list[str] = []
        while True:
            try:
                task = await self.planning.run(self.service.prepare, request, task_id)
                break
            except NeedsAnswer as exc:
                if self.params["clarify_timeout_s"] <= 0 or exc.question.text in asked:
                    self.status(task_id, request.directive, FAILED, message=str(exc))
                    return PlanTaskResult(False, str(exc), task_id=task_id), FAILED
                asked.append(exc.question.text)
                if stop():
                    self.status(task_id, request.directive, CANCELED, message="canceled before execution")
                    return PlanTaskResult(False, "canceled before execution", task_id=task_id), CANCELED
                option, ended = await self._ask(task_id, request.directive, exc.question, on_feedback)
                if option is None:
                    return ended
                request = dataclasses.replace(request, directive=option.directive)
            except LlmPlannerError as exc:
                self.status(task_id, request.directive, FAILED, message=str(exc))
                return PlanTaskResult(False, str(exc), task_id=task_id), FAILED
        if self.params["require_approval"] != "none" and not stop():
            approved, ended = await self._approve(task, on_feedback)
            if not approved:
                return ended
        goal = self.domain.goal_lists(task.translation.goal)
        requests = task.translation.llm_requests
        if stop():
            return self._ended(task, CANCELED, "canceled before execution")
        self.status(task_id, task.directive, PLANNING, message=f"goal {goal} with {task.planner}")
        on_feedback({"task_id": task_id, "state": PLANNING, "step": 0, "action": "", "outcome": "",
                     "observation": "", "llm_requests": requests, "decision_llm_requests": 0, "belief": ()})
        steps: list[dict[str, Any]] = []  # what the executor reported, step by step

        def relay(feedback: Any) -> None:
            fields = feedback_to_dict(feedback)
            if fields["step"] > len(steps):
                steps.append(fields)
            on_feedback({**fields, "llm_requests": fields["llm_requests"] + requests})

        order = ExecuteTask.Goal(task_id=task_id, directive=task.directive,
                                 goal=goal_to_json(self.domain, task.translation.goal),
                                 planner=task.planner, timeout_s=task.timeout_s, context=task.translation.message)
        started = time.monotonic()
        try:
            status, result = await self.execution.run(self.executor.run, order, relay, stop)
        except LlmPlannerError as exc:  # the executor is gone: tell what it reported before
            return self._ended(task, FAILED, str(exc), plan=[s["action"] for s in steps],
                               executed=[f"{s['action']} -> {s['outcome']}; observed: {s['observation']}"
                                         for s in steps],
                               llm_requests=steps[-1]["llm_requests"] if steps else 0,
                               planning_time_s=task.seconds + time.monotonic() - started)
        outcome = CANCELED if status == GoalStatus.STATUS_CANCELED else SUCCEEDED if result.success else FAILED
        return task.result(self.domain, result.success, result.message, said=True, plan=list(result.plan),
                           executed=list(result.executed), llm_requests=result.llm_requests,
                           planning_time_s=task.seconds + result.planning_time_s), outcome

    def _ended(self, task: Any, outcome: str, message: str, **fields: Any) -> tuple[PlanTaskResult, str]:
        """End a prepared task before or outside the executor: ``task_status`` and the result say the
        same sentence."""
        result = task.result(self.domain, False, message, **fields)
        self.status(task.task_id, task.directive, outcome, len(result.executed), message=result.message,
                    llm_requests=result.llm_requests)
        return result, outcome

    def cancel(self, task_id: str = "") -> tuple[bool, str]:
        """Stop the running task (``task_id``, or whatever runs): the walk or skill under way is
        canceled. (done, message)."""
        done, message = self.slot.cancel(task_id)
        if done:
            self.desk.cancel(task_id)  # a task that asks stops waiting at once
            self.executor.cancel_running()
        return done, message

    # ------------------------------------------------------------------ asking
    @property
    def params(self) -> Any:
        return self.domain.params

    async def _ask(self, task_id: str, directive: str, question: Question, on_feedback: FeedbackCallback
                   ) -> tuple[Option | None, tuple[PlanTaskResult, str]]:
        """Ask ``question`` (once more after a reply that answers nothing): (the option picked, ...),
        or (None, the task's end: refused after clarify_timeout_s or a second non-answer, canceled)."""
        timeout_s = float(self.params["clarify_timeout_s"])
        prompt = question.text
        for attempt in range(2):
            answer = self.desk.open(task_id, question)  # open before it is published: a quick answer finds it
            try:
                self.status(task_id, directive, ASKING, message=prompt, question=question.text,
                            options=question.labels)
                on_feedback({"task_id": task_id, "state": ASKING, "step": 0, "action": "", "outcome": "",
                             "observation": "", "llm_requests": 0, "decision_llm_requests": 0, "belief": (),
                             "question": question.text, "options": list(question.labels)})
            except BaseException:
                self.desk.close(answer)
                raise
            text, reply = await self.desk.wait(answer, timeout_s)
            if text == CANCELED_WHILE_ASKING:
                message = f"canceled while asking: {question.text}"
                self.status(task_id, directive, CANCELED, message=message)
                return None, (PlanTaskResult(False, message, task_id=task_id), CANCELED)
            if text is None:
                message = f"{question.message()}; no answer within {timeout_s:g} s (clarify_timeout_s)"
                return None, self._refused(task_id, directive, message, question)
            try:
                option = await self.planning.run(self.service.read_answer, question, text)
            except LlmPlannerError as exc:
                option, prompt = None, f"could not read '{text}' ({exc})"
            if option is None and question.declined(text):
                answer_reply(reply, True, f"task {task_id}: '{text}' declines {question.text!r}; the task is refused")
                return None, self._refused(task_id, directive, f"{question.message()}; answered '{text}'", question)
            if option is not None:
                answer_reply(reply, True, f"task {task_id}: '{text}' read as {option.label}")
                self.node.get_logger().info(f"task {task_id}: '{text}' answers {question.text!r}: {option.label}")
                return option, (PlanTaskResult(False, "", task_id=task_id), "")
            answer_reply(reply, False, f"task {task_id}: '{text}' does not answer {question.text!r}"
                         + ("; asked once more" if attempt == 0 else "; the task is refused"))
            prompt = f"'{text}' does not answer it; {question.text}"
        message = f"{question.message()}; '{text}' does not answer it (asked twice)"
        return None, self._refused(task_id, directive, message, question)

    def _refused(self, task_id: str, directive: str, message: str, question: Question) -> tuple[PlanTaskResult, str]:
        self.status(task_id, directive, REFUSED, message=message, question=question.text, options=question.labels)
        return PlanTaskResult(False, message, task_id=task_id, question=question.text,
                              options=list(question.labels)), REFUSED

    async def _approve(self, task: Any, on_feedback: FeedbackCallback) -> tuple[bool, tuple[PlanTaskResult, str]]:
        """``require_approval``: "May I <goal>?" (plan: with the previewed plan when it has several
        steps); (True, _) on yes, (False, the task's end) on no (canceled), timeout or cancel."""
        plan: list[str] = []
        if self.params["require_approval"] == "plan":
            try:
                preview = await self.planning.run(self.service.preview, task, self.perception.percepts())
                plan = list(preview.plan)
            except LlmPlannerError as exc:
                self.node.get_logger().warning(f"task {task.task_id}: no plan to show for approval ({exc})")
        question = self.service.approval_question(task, plan)
        option, ended = await self._ask(task.task_id, task.directive, question, on_feedback)
        if option is None:
            return False, (task.result(self.domain, False, ended[0].message, said=True, question=question.text,
                                       options=list(question.labels)), ended[1])
        if option.value == NO:
            return False, self._ended(task, CANCELED, f"canceled: not approved ({question.text} no); nothing was moved")
        return True, ended

    def _internal_error(self, exc: Exception, task_id: str) -> PlanTaskResult:
        self.node.get_logger().error(f"internal error: {traceback.format_exc()}")
        return PlanTaskResult(False, f"internal error ({type(exc).__name__}: {exc}); the node keeps serving, "
                              "see the planner node's log", task_id=task_id)


def _at_the_door(request: PlanTaskRequest) -> PlanTaskResult | None:
    """The refusal of a directive that is no plain text (control characters, escape sequences), with
    no task id: the front ends' check and message (:func:`~llm_planner.service.refuse_non_text`);
    None for any other directive, which the planning service checks as a task."""
    try:
        refuse_non_text(request.directive)
    except LlmPlannerError as exc:
        return PlanTaskResult(False, str(exc))
    return None
