"""The logic behind ``/plan_task`` and ``execute_directive``, free of ROS and of any one world:
check the request, ground the directive into the domain's goal, preview a plan on the perceived
state, and keep the rule that one robot runs one task at a time.

The planner node only converts messages and calls :class:`PlanningService`; tests can call it
directly with a domain (:mod:`llm_planner.domains`) and percepts.
"""
from __future__ import annotations

import math
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llm_planner.adapters.base import Domain
from llm_planner.clarification import CONFIRM, Option, Question, approval_question
from llm_planner.config import PARAMS
from llm_planner.domains.percept import Percept, Translation
from llm_planner.errors import ConfigError, GoalError, PlanningError
from llm_planner.inputs import BadInput, plain_text


@dataclass
class PlanTaskRequest:
    directive: str
    planner: str = ""
    execute: bool = False
    timeout_s: float = 0.0


@dataclass
class PlanTaskResult:
    """The fields of the /plan_task response and the execute_directive result (and of
    ``llm-planner plan --json``)."""

    success: bool
    message: str
    goal: list = field(default_factory=list)
    plan: list[str] = field(default_factory=list)
    task_id: str = ""
    llm_requests: int = 0
    planning_time_s: float = 0.0
    executed: list[str] = field(default_factory=list)
    question: str = ""  # a question left unanswered: plan-only calls, a task refused after clarify_timeout_s
    options: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        out = {"success": self.success, "message": self.message, "goal": self.goal, "plan": self.plan,
               "task_id": self.task_id, "llm_requests": self.llm_requests,
               "planning_time_s": round(self.planning_time_s, 4), "executed": self.executed}
        if self.question:
            out.update(question=self.question, options=self.options)
        return out


@dataclass(frozen=True)
class PreparedTask:
    """A checked request with its grounded goal."""

    task_id: str
    directive: str
    planner: str
    translation: Translation
    timeout_s: float
    seconds: float = 0.0  # spent grounding

    def say(self, message: str) -> str:
        """``message`` after the grounding's sentence ("goal: ..."): how every end of this task is told."""
        return f"{self.translation.message}; {message}" if self.translation.message else message

    def result(self, domain: Domain, success: bool, message: str, *, said: bool = False,
               **fields: Any) -> PlanTaskResult:
        """A result for this task: the grounding's message first (``said``: ``message`` has it
        already), its LLM requests counted."""
        fields["llm_requests"] = fields.get("llm_requests", 0) + self.translation.llm_requests
        fields.setdefault("planning_time_s", self.seconds)
        return PlanTaskResult(success, message if said else self.say(message),
                              goal=domain.goal_lists(self.translation.goal), task_id=self.task_id, **fields)


def new_task_id() -> str:
    return uuid.uuid4().hex[:12]


#: what a directive looks like, for the messages that refuse one
DIRECTIVE_EXAMPLE = "put one apple inside the fridge"


def check_directive(text: str, max_chars: int) -> str:
    """The cleaned directive, or GoalError saying what is wrong with it (a control or non-text
    character in the words of :func:`refuse_non_text`)."""
    if not isinstance(text, str):
        raise GoalError("the directive must be text")
    try:
        refuse_non_text(text)
    except BadInput as exc:
        raise GoalError(str(exc)) from None
    cleaned = " ".join(text.split())
    if not cleaned:
        raise GoalError("the directive is empty; say what to do, e.g. 'put one apple inside the fridge'")
    if len(cleaned) > max_chars:
        raise GoalError(f"the directive has {len(cleaned)} characters; the limit is {max_chars} "
                        "(parameter max_directive_chars): say one task in a sentence or two")
    return cleaned


def refuse_non_text(directive: str) -> None:
    """BadInput when the directive holds a control or other non-text character: the front ends'
    check and message (:func:`~llm_planner.inputs.plain_text`). Every entry of a directive asks it
    first (the planning service's :func:`check_directive`, the nodes' task runner before a task id),
    so such a directive is refused at the door, whichever way it came."""
    plain_text(directive, "directive", DIRECTIVE_EXAMPLE, required=False)


def request_timeout(timeout_s: float, default_s: float) -> float:
    """A request's time limit: ``timeout_s``, or the ``plan_timeout_s`` parameter's ``default_s``
    for 0; ConfigError, as for the parameter, for a negative or non-finite value."""
    param = PARAMS["plan_timeout_s"]
    too_long = param.high is not None and timeout_s > param.high
    if not math.isfinite(timeout_s) or timeout_s < 0 or too_long or (timeout_s > 0 and not param.check(timeout_s)):
        raise ConfigError(f"the request's timeout_s = {timeout_s!r} is invalid: expected {param.accepts} (the task's "
                          f"time limit, at most {param.high:g}), or 0 for the plan_timeout_s parameter "
                          f"({default_s:g} s)")
    return float(timeout_s) if timeout_s > 0 else float(default_s)


@dataclass
class PlanningService:
    """Request checking, grounding and plan preview for one domain (its configured default planner
    and time limit from the node parameters)."""

    domain: Domain

    @property
    def params(self) -> Mapping[str, Any]:
        return self.domain.params

    def prepare(self, request: PlanTaskRequest, task_id: str = "") -> PreparedTask:
        """Check the request and ground its directive; LlmPlannerError saying what was wrong. The
        planner name is resolved here, once per request (``uct`` -> ``gtamp_uct``, the default
        planner for none): grounding, preview and the executor take ``PreparedTask.planner``."""
        started = time.perf_counter()
        directive = check_directive(request.directive, self.params["max_directive_chars"])
        timeout_s = request_timeout(request.timeout_s, self.params["plan_timeout_s"])
        planner = self.domain.resolve_planner((request.planner or self.params["planner"]).strip())
        translation = self.domain.ground(directive, planner)
        return PreparedTask(task_id or new_task_id(), directive, planner, translation, float(timeout_s),
                            time.perf_counter() - started)

    def read_answer(self, question: Question, text: str) -> Option | None:
        """The option of ``question`` a person's answer picks: read by the question itself, else (a
        question that is not a yes/no confirmation) by the domain's directive reader
        (:meth:`~llm_planner.adapters.base.Domain.read_answer`); None when it names no option."""
        option = question.read(text)
        if option is None and question.kind != CONFIRM:
            option = self.domain.read_answer(question, text)
        return option

    def approval_question(self, task: PreparedTask, plan: list[str]) -> Question:
        """``require_approval``'s "May I <goal>?" for ``task`` (with ``plan`` when it has several steps),
        the goal written as the domain writes it (:meth:`~llm_planner.adapters.base.Domain.goal_text`)."""
        return approval_question(self.domain.goal_text(task.translation.goal), plan)

    def preview(self, task: PreparedTask, percepts: Mapping[str, Percept]) -> PlanTaskResult:
        """Plan without executing, on the perceived state: the steps the planner would start with.
        ``percepts`` holds the domain's perception topics and the privileged ones that are published;
        a planner that needs the full state is refused (PlanningError naming the planners that can
        run) when they are not."""
        domain, goal = self.domain, task.translation.goal
        if domain.goal_reached(percepts, goal):
            return task.result(domain, True, "the goal already holds; nothing to do")
        planner = domain.make_planner(task.planner)
        if planner.needs_full_state and not all(t in percepts for t in domain.privileged_topics):
            domain.close_planner(planner)
            raise PlanningError(f"refused: {domain.full_state_refusal(task.planner)}")
        episode = domain.make_task(task.directive, goal, task.timeout_s)
        started = time.perf_counter()
        try:
            observation = domain.observation(percepts)
            full = domain.full_state(percepts) if planner.needs_full_state else None
            planner.start(episode, observation, full)
            steps = list(planner.preview())
            if not steps:  # planners that plan when asked to decide (STaLM) or per step (LLM-MCTS)
                first = planner.decide(observation, full)
                if first.action is None:
                    raise PlanningError(first.message or f"{task.planner} found no plan")
                steps = list(planner.preview()) or [first.action]
        finally:
            domain.close_planner(planner)
        text = domain.step_text(episode)
        description = getattr(planner, "describe", lambda: "")()
        message = f"planner {task.planner} plans {len(steps)} step(s) (not executed)"
        return task.result(domain, True, message + (f"; {description}" if description else ""),
                           plan=[text.format_action(a) for a in steps], llm_requests=planner.stats.llm_requests,
                           planning_time_s=task.seconds + time.perf_counter() - started)


class RobotSlot:
    """One robot runs one task at a time: :meth:`claim` refuses at once, naming the running task."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: tuple[str, str, threading.Event] | None = None

    def claim(self, task_id: str, directive: str) -> tuple[threading.Event | None, str]:
        """(the task's cancel event, "") when the robot was free; (None, why not) when it is busy."""
        with self._lock:
            if self._running is not None:
                running_id, running_directive, _ = self._running
                return None, (f"refused: the robot is busy with task {running_id} ({running_directive[:80]!r}); "
                              f"cancel it (llm-planner cancel {running_id}) or send this again when it ends")
            event = threading.Event()
            self._running = (task_id, directive, event)
            return event, ""

    def running_task(self) -> str:
        """The id of the task the robot runs ("" when it is free)."""
        with self._lock:
            return self._running[0] if self._running is not None else ""

    def release(self, task_id: str) -> None:
        with self._lock:
            if self._running is not None and self._running[0] == task_id:
                self._running = None

    def cancel(self, task_id: str = "") -> tuple[bool, str]:
        """Ask the running task to stop (any task when ``task_id`` is empty): (done, message)."""
        with self._lock:
            if self._running is None:
                return False, "no task is running"
            running_id, directive, event = self._running
            if task_id and task_id != running_id:
                return False, f"task {task_id} is not running (the running task is {running_id})"
            event.set()
            return True, (f"canceling task {running_id} ({directive[:80]!r}): the robot stops (the walk or skill "
                          "under way is canceled)")
