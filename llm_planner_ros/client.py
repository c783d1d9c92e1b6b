"""A small facade over the llm_planner ROS interfaces for scripts, the CLI and your own nodes (like
nav2_simple_commander's BasicNavigator): it hides node, executor, goal and future plumbing.

    with PlannerClient() as client:                      # namespace="robot1" for a namespaced graph
        print(client.plan("put one apple inside the fridge").plan)          # plan only (/plan_task)
        client.execute("put one apple inside the fridge", planner="llm_mcts")  # the action
        while not client.is_task_complete():
            print(client.feedback())                     # a Feedback: step, action, outcome, observation
        result = client.result()                         # an ExecutionResult: the /plan_task fields
        if result.status is TaskResult.SUCCEEDED:        # and how the goal ended
            print(result.executed)

The results are frozen dataclasses of :mod:`llm_planner_ros.task_results` (:class:`PlanResult`,
:class:`ExecutionResult` with its :class:`TaskResult`, :class:`Feedback`, :class:`TaskQuestion`,
:class:`Reply`); :func:`~llm_planner_ros.task_results.to_json` makes one JSON-ready.

A task that asks before it goes on ("which table: kitchen table or coffee table?", or "May
I ...?" with ``require_approval``) is in state ``asking``: :meth:`PlannerClient.question` returns the
question and its options (a :class:`TaskQuestion`), :meth:`PlannerClient.answer` sends the answer
(``answer_task``).

Every wait is bounded: a server that leaves the ROS graph for ``server_timeout_s`` makes the call
give up with an LlmPlannerError that says so (DDS notices a killed process after its lease, about
20 s with Fast DDS's defaults, so the bound is that plus ``server_timeout_s``).
"""
from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import rclpy
from action_msgs.msg import GoalStatus
from lifecycle_msgs.srv import GetState
from llm_planner_interfaces.action import ExecuteDirective
from llm_planner_interfaces.msg import TaskStatus
from llm_planner_interfaces.srv import AnswerTask, CancelTask, PlanTask, RenderSnapshot
from llm_planner_interfaces.srv import TaskRecord as TaskRecordSrv
from rclpy.action import ActionClient
from rclpy.client import Client
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.task import Future
from std_msgs.msg import String

from llm_planner.errors import LlmPlannerError
from llm_planner.planners.base import describe_beliefs
from llm_planner.task_states import ASKING, PLANNING
from llm_planner.viz.report import TaskRecord
from llm_planner_ros import client_settings
from llm_planner_ros.conversions import (
    belief_from_msg,
    execution_result_from_msg,
    feedback_from_msg,
    plan_result_from_msg,
    task_record_from_msg,
)
from llm_planner_ros.environment import apply_ros_environment
from llm_planner_ros.goals import FeedbackTap
from llm_planner_ros.node_utils import ACTION_QOS, SERVICE_QOS, STATUS_QOS
from llm_planner_ros.task_results import ExecutionResult, Feedback, PlanResult, Reply, TaskQuestion, TaskResult

#: The ``status`` of an execute_directive result: how its action goal ended (refused goals end aborted: failed).
STATUS_RESULTS = {GoalStatus.STATUS_SUCCEEDED: TaskResult.SUCCEEDED, GoalStatus.STATUS_CANCELED: TaskResult.CANCELED,
                  GoalStatus.STATUS_ABORTED: TaskResult.FAILED}


class PlannerClient:
    """Client of plan_task, execute_directive, cancel_task, directive and task_status; one rclpy
    context of its own. ``namespace`` selects the graph of one robot (empty: the root namespace)."""

    def __init__(self, node_name: str = "llm_planner_client", namespace: str = "",
                 server_timeout_s: float | None = None) -> None:
        apply_ros_environment()
        self.settings = client_settings()
        self.server_timeout_s = self.settings.server_timeout_s if server_timeout_s is None else server_timeout_s
        self.context = rclpy.Context()
        rclpy.init(context=self.context, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
        self.node = Node(node_name, namespace=namespace.strip("/"), context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.plan_client: Client[Any, Any] = self.node.create_client(PlanTask, "plan_task", qos_profile=SERVICE_QOS)
        self.cancel_client: Client[Any, Any] = self.node.create_client(CancelTask, "cancel_task",
                                                                       qos_profile=SERVICE_QOS)
        self.answer_client: Client[Any, Any] = self.node.create_client(AnswerTask, "answer_task",
                                                                       qos_profile=SERVICE_QOS)
        self.action_client: ActionClient[Any, Any, Any] = ActionClient(self.node, ExecuteDirective,
                                                                       "execute_directive", **ACTION_QOS)
        self.feedback_tap = FeedbackTap(self.node, ExecuteDirective, "execute_directive")
        self._goal: Any = None
        self._goal_id: Any = None
        self._result_future: Any = None
        self._feedback: list[Feedback] = []
        self._on_feedback: Callable[[Feedback], None] | None = None

    def close(self) -> None:
        self.action_client.destroy()
        self.executor.shutdown(timeout_sec=1.0)
        self.node.destroy_node()
        if self.context.ok():
            rclpy.shutdown(context=self.context)

    def __enter__(self) -> PlannerClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ waiting, bounded
    def spin_for(self, seconds: float, stop: threading.Event | None = None) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not (stop and stop.is_set()):
            self.executor.spin_once(timeout_sec=0.1)

    def spin_until(self, future: Any, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while not future.done() and time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.1)
        return future.done()

    def _wait_served(self, future: Any, is_served: Callable[[], bool], what: str, limit_s: float,
                     stop: threading.Event | None = None) -> bool:
        """Spin until ``future`` is done (True), ``limit_s`` passes or ``stop`` is set (False), or
        the server has been absent from the graph for ``server_timeout_s`` (LlmPlannerError)."""
        deadline = time.monotonic() + limit_s
        absent_since = None
        while not future.done() and time.monotonic() < deadline and not (stop is not None and stop.is_set()):
            self.executor.spin_once(timeout_sec=0.1)
            now = time.monotonic()
            absent_since = None if is_served() else absent_since or now
            if absent_since is not None and now - absent_since > self.server_timeout_s and not future.done():
                raise LlmPlannerError(f"{what} left the ROS graph and has not come back for "
                                      f"{self.server_timeout_s:g} s; giving up (is the planner node running?)")
        return future.done()

    def _wait_for(self, is_ready: Callable[[], bool], timeout_s: float) -> bool:
        """Wait for a server; once it appears, let discovery settle (a response sent before the
        server's writer knows this client is lost: a known ROS 2 race)."""
        deadline = time.monotonic() + timeout_s
        while not is_ready():
            if time.monotonic() > deadline:
                return False
            self.executor.spin_once(timeout_sec=0.1)
        self.spin_for(self.settings.discovery_settle_s)
        return True

    def wait_for_planner(self, timeout_s: float = 30.0) -> bool:
        """Wait until the planner node serves plan_task and execute_directive and, being a lifecycle
        node, is active (the lifecycle manager activates it after the nodes before it)."""
        deadline = time.monotonic() + timeout_s
        if not self._wait_for(lambda: self.plan_client.service_is_ready() and self.action_client.server_is_ready(),
                              timeout_s):
            return False
        while self.planner_state() not in ("active", ""):
            if time.monotonic() > deadline:
                return False
            self.spin_for(0.2)
        return True

    def planner_state(self) -> str:
        """The planner node's lifecycle state (``active``, ``inactive``, ...; "" without get_state)."""

        client: Client[Any, Any] = self.node.create_client(GetState, "planner/get_state")
        try:
            if not client.wait_for_service(timeout_sec=self.settings.discovery_settle_s + 1.0):
                return ""
            future = client.call_async(GetState.Request())
            if not self.spin_until(future, self.server_timeout_s):
                return "unknown"
            return response_of(future).current_state.label
        finally:
            self.node.destroy_client(client)

    def _name(self, relative: str) -> str:
        return self.node.resolve_service_name(relative)

    # ------------------------------------------------------------------ plan_task (service)
    def plan(self, directive: str, planner: str = "", timeout_s: float = 0.0, wait_s: float = 30.0) -> PlanResult:
        """Plan without executing (``plan_task``): the response (``success`` false: refused or failed,
        ``message`` says why; a directive that asks first has its ``question``)."""
        return self.plan_task(directive, planner, execute=False, timeout_s=timeout_s, wait_s=wait_s)

    def plan_task(self, directive: str, planner: str = "", execute: bool = False, timeout_s: float = 0.0,
                  wait_s: float = 30.0) -> PlanResult:
        """Call ``plan_task`` and return its response.

        A plan-only request whose answer is late is re-sent (it changes nothing; DDS can drop a
        response right after discovery); an executing request is never re-sent.
        """
        if not self.plan_client.service_is_ready() and not self._wait_for(self.plan_client.service_is_ready, wait_s):
            raise LlmPlannerError(f"{self._name('plan_task')} is not available: start the system first "
                                  "(llm-planner launch)")
        request = PlanTask.Request(directive=directive, planner=planner, execute=execute, timeout_s=float(timeout_s))
        budget = (timeout_s or 600.0) * 2 + 60.0
        attempts = 1 if execute else self.settings.plan_only_attempts
        for attempt in range(attempts):
            wait = budget if execute else min(budget, self.settings.plan_only_answer_s * (attempt + 1))
            future = self.plan_client.call_async(request)
            if self._wait_served(future, self.plan_client.service_is_ready, self._name("plan_task"), wait):
                return plan_result_from_msg(future.result())
            self.plan_client.remove_pending_request(future)
        raise LlmPlannerError(f"{self._name('plan_task')} did not answer (waited {budget if execute else wait:.0f} s, "
                              f"{attempts} attempt(s)); is the planner node busy or gone?")

    # ------------------------------------------------------------------ execute_directive (action)
    def execute(self, directive: str, planner: str = "", timeout_s: float = 0.0,
                on_feedback: Callable[[Feedback], None] | None = None, wait_s: float = 30.0) -> None:
        """Send the directive to ``execute_directive`` and return once the goal is accepted; then
        poll :meth:`is_task_complete` and :meth:`feedback`, or wait with :meth:`result`."""
        what = self._name("execute_directive")
        if not self.action_client.server_is_ready() and not self._wait_for(self.action_client.server_is_ready, wait_s):
            raise LlmPlannerError(f"{what} is not available: start the system first (llm-planner launch)")
        self.feedback_tap.forget(self._goal_id)  # the previous goal's
        self._feedback, self._on_feedback = [], on_feedback
        self._goal = self._result_future = None
        goal = ExecuteDirective.Goal(directive=directive, planner=planner, timeout_s=float(timeout_s))
        self._goal_id = self.feedback_tap.follow(self._store_feedback)
        sent = self.action_client.send_goal_async(goal, goal_uuid=self._goal_id)
        if not self._wait_served(sent, self.action_client.server_is_ready, what, self.server_timeout_s * 3):
            raise LlmPlannerError(f"{what} did not answer the goal request within {self.server_timeout_s * 3:g} s")
        self._goal = sent.result()
        if not self._goal.accepted:
            raise LlmPlannerError(f"{what} rejected the goal")
        self._result_future = self._goal.get_result_async()

    def _store_feedback(self, msg: Any) -> None:
        fields = feedback_from_msg(msg.feedback)
        self._feedback.append(fields)
        if self._on_feedback is not None:
            self._on_feedback(fields)

    def feedback(self) -> Feedback | None:
        """The latest feedback of the running goal (task_id, state, step, action, outcome,
        observation, llm_requests, belief), or None before the first."""
        return self._feedback[-1] if self._feedback else None

    def is_task_complete(self, spin_s: float = 0.1) -> bool:
        if self._result_future is None:
            return True
        self.spin_for(spin_s)
        return self._result_future.done()

    def cancel(self, wait_s: float = 10.0) -> bool:
        """Ask the planner to stop the robot (the walk or skill under way is canceled); True when the
        cancel was accepted."""
        if self._goal is None or (self._result_future is not None and self._result_future.done()):
            return False
        future = self._goal.cancel_goal_async()
        if not self.spin_until(future, wait_s):
            return False
        return bool(future.result().goals_canceling)

    def result(self, timeout_s: float | None = None, stop: threading.Event | None = None) -> ExecutionResult:
        """Wait for the goal's result: the /plan_task fields and its ``status``, a :class:`TaskResult`
        (SUCCEEDED, FAILED, CANCELED; FAILED for a refused goal, which ends aborted). ``stop`` (set
        from elsewhere, e.g. a signal handler) ends the wait early with LlmPlannerError."""
        if self._result_future is None:
            raise LlmPlannerError("no goal was sent (call execute first)")
        what = self._name("execute_directive")
        if not self._wait_served(self._result_future, self.action_client.server_is_ready, what,
                                 float("inf") if timeout_s is None else timeout_s, stop):
            raise LlmPlannerError(f"{what} sent no result within {timeout_s:g} s" if stop is None or not stop.is_set()
                                  else f"stopped waiting for the result of {what}")
        response = self._result_future.result()
        self._drain_feedback(len(response.result.executed))
        return execution_result_from_msg(response.result, STATUS_RESULTS.get(response.status, TaskResult.UNKNOWN))

    def _drain_feedback(self, steps: int, wait_s: float | None = None) -> None:
        """Take the feedback still on its way when the result came (one message per executed step): the
        result and the feedback travel on different channels in no fixed order, and the
        :class:`FeedbackTap` still delivers a goal's feedback after its result."""
        deadline = time.monotonic() + (self.settings.feedback_drain_s if wait_s is None else wait_s)
        while steps and time.monotonic() < deadline and not any(f.step >= steps for f in self._feedback[-1:]):
            self.executor.spin_once(timeout_sec=0.05)

    def run(self, directive: str, planner: str = "", timeout_s: float = 0.0,
            on_feedback: Callable[[Feedback], None] | None = None, wait_s: float = 30.0,
            on_question: Callable[[TaskQuestion], str | None] | None = None) -> ExecutionResult:
        """Execute and wait for the result; Ctrl-C cancels the goal and returns the result once the
        robot has stopped (status ``TaskResult.CANCELED``); a second Ctrl-C while it stops is a
        KeyboardInterrupt. Off the main thread, where no signal arrives, a KeyboardInterrupt does
        the same. ``on_question`` gets each question the task asks (:meth:`question`) and returns
        the answer to send, or None to send none (the task then ends refused after
        ``clarify_timeout_s``)."""
        with _sigint_sets() as interrupted:
            try:
                self.execute(directive, planner, timeout_s, on_feedback, wait_s)
                if on_question is not None:
                    self._answer_questions(on_question, interrupted)
                return self.result(stop=interrupted)
            except LlmPlannerError:
                if not interrupted.is_set() or self._result_future is None:
                    raise
            except KeyboardInterrupt:
                if self._result_future is None:
                    raise
        self.cancel()
        return self.result(timeout_s=self.server_timeout_s * 3)

    def _answer_questions(self, on_question: Callable[[TaskQuestion], str | None], stop: threading.Event) -> None:
        """Until the goal ends: hand each new question (each ``asking`` feedback) to ``on_question``
        and send its answer."""
        seen = 0
        while not self._result_future.done() and not stop.is_set():
            self.spin_for(0.1)
            asking = [f for f in self._feedback if f.state == ASKING]
            if len(asking) > seen and not self._result_future.done():
                seen = len(asking)
                text = on_question(self.question() or question_of(asking[-1]))
                if text is not None and not self._result_future.done():
                    self.answer(text, asking[-1].task_id)

    def cancel_task(self, task_id: str = "", wait_s: float = 30.0) -> Reply:
        """``cancel_task``: stop the running task (by id, or whatever runs); (done, message)."""
        if not self.cancel_client.service_is_ready() and not self._wait_for(self.cancel_client.service_is_ready,
                                                                            wait_s):
            raise LlmPlannerError(f"{self._name('cancel_task')} is not available: is the planner node running?")
        future = self.cancel_client.call_async(CancelTask.Request(task_id=task_id))
        if not self._wait_served(future, self.cancel_client.service_is_ready, self._name("cancel_task"), wait_s):
            raise LlmPlannerError(f"{self._name('cancel_task')} did not answer within {wait_s:g} s")
        response = response_of(future)
        return Reply(bool(response.success), response.message)

    # ------------------------------------------------------------------ questions
    def question(self, spin_s: float = 0.0) -> TaskQuestion | None:
        """The question the running goal asks (state ``asking``), or None when it asks nothing now
        (after spinning ``spin_s``)."""
        if spin_s > 0:
            self.spin_for(spin_s)
        latest = self.feedback()
        if latest is None or latest.state != ASKING or (self._result_future is not None
                                                          and self._result_future.done()):
            return None
        return question_of(latest)

    def answer(self, text: str, task_id: str = "", wait_s: float = 30.0) -> Reply:
        """Answer the asking task's question (``answer_task``; empty ``task_id``: whichever task asks):
        (taken, how it was read or why not). A reply that answers nothing is asked once more."""
        what = self._name("answer_task")
        if not self.answer_client.service_is_ready() and not self._wait_for(self.answer_client.service_is_ready,
                                                                            wait_s):
            raise LlmPlannerError(f"{what} is not available: is the planner node running?")
        asking = self.question() if not task_id and self._goal is not None else None
        if asking is not None:
            task_id = asking.task_id
        future = self.answer_client.call_async(AnswerTask.Request(task_id=task_id, text=text))
        if not self._wait_served(future, self.answer_client.service_is_ready, what, wait_s):
            raise LlmPlannerError(f"{what} did not answer within {wait_s:g} s")
        response = response_of(future)
        return Reply(bool(response.success), response.message)

    # ------------------------------------------------------------------ task records (executor)
    def task_record(self, task_id: str = "", wait_s: float = 30.0) -> TaskRecord:
        """The executor's record of an executed task (``task_record``; empty: the last task): its
        steps with the LLM requests and belief of each decision and the world before and after each
        step; LlmPlannerError with the executor's message when it keeps no such task."""
        client: Client[Any, Any] = self.node.create_client(TaskRecordSrv, "task_record", qos_profile=SERVICE_QOS)
        what = self._name("task_record")
        try:
            if not self._wait_for(client.service_is_ready, wait_s):
                raise LlmPlannerError(f"{what} is not available: is the executor node running?")
            future = client.call_async(TaskRecordSrv.Request(task_id=task_id))
            if not self._wait_served(future, client.service_is_ready, what, wait_s):
                raise LlmPlannerError(f"{what} did not answer within {wait_s:g} s")
            response = response_of(future)
        finally:
            self.node.destroy_client(client)
        if not response.success:
            raise LlmPlannerError(response.message)
        return task_record_from_msg(response)

    # ------------------------------------------------------------------ topics and the simulator
    def render(self, path: str, view: str = "top", wait_s: float = 10.0) -> str | None:
        """Ask the simulator for a PNG of the world; the written path, or None if it could not."""
        client: Client[Any, Any] = self.node.create_client(RenderSnapshot, "sim/render", qos_profile=SERVICE_QOS)
        try:
            if not client.wait_for_service(timeout_sec=wait_s):
                return None
            future = client.call_async(RenderSnapshot.Request(path=path, view=view))
            if not self.spin_until(future, 60.0) or not response_of(future).success:
                return None
            return response_of(future).message
        finally:
            self.node.destroy_client(client)

    def say(self, directive: str, wait_s: float = 5.0) -> None:
        """Publish a directive on ``directive``, as a voice frontend does (waits for a subscriber)."""
        pub = self.node.create_publisher(String, "directive", 10)
        deadline = time.monotonic() + wait_s
        while pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=0.1)
        if pub.get_subscription_count() == 0:
            raise LlmPlannerError(f"nobody listens on {self.node.resolve_topic_name('directive')}: start the "
                                  "system first (llm-planner launch)")
        pub.publish(String(data=directive))
        self.executor.spin_once(timeout_sec=0.2)

    def watch_status(self, on_status: Callable[[TaskStatus], None], wait_s: float = 0.0) -> None:
        """Call ``on_status`` with each ``task_status`` message. With ``wait_s``, first wait (at most
        that long) until this subscription has matched the planner's and the executor's publishers,
        and every other one the graph lists: a new process discovers each separately, and what a
        publisher sends before it is matched is lost here (the executor's steps, and the end of a
        task it executes, when the planner's were matched first)."""
        subscription = self.node.create_subscription(TaskStatus, "task_status", on_status, STATUS_QOS)
        topic = self.node.resolve_topic_name("task_status")
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and subscription.get_publisher_count() < \
                max(len(STATUS_PUBLISHERS), self.node.count_publishers(topic)):
            self.executor.spin_once(timeout_sec=0.05)


#: The nodes that publish a task's states on task_status: the planner (grounding, asking, refusals)
#: and the executor (each step and the end of an executed task).
STATUS_PUBLISHERS = ("planner", "executor")


def question_of(feedback: Feedback) -> TaskQuestion:
    """The question of an ``asking`` feedback message."""
    return TaskQuestion(feedback.task_id, feedback.question, feedback.options)


def response_of(future: Future[Any]) -> Any:
    """The response of a service call seen complete (a call that failed raised when it completed)."""
    response = future.result()
    assert response is not None, "a completed service call has its response"
    return response


def format_status(msg: TaskStatus, details: bool = True) -> str:
    """One line per status message; ``details=False`` leaves out the observation of executed steps."""
    head = f"[{msg.task_id or '-'}] {msg.state}"
    if msg.step:
        head += f" step {msg.step}"
    if msg.action:
        head += f": {msg.action} -> {msg.result or 'ok'}"
    if msg.message and (details or not msg.action):
        head = f"{head}  {msg.message}"
    if msg.state == ASKING and getattr(msg, "options", None):
        head += f"  (answers: {' | '.join(msg.options)}; llm-planner answer TEXT)"
    if details and msg.action and (msg.belief or msg.decision_llm_requests):
        head += f"  decision: {msg.decision_llm_requests} LLM request(s)"
    if details and msg.belief:
        head += "  belief: " + describe_beliefs(belief_from_msg(msg.belief))
    return head


@contextlib.contextmanager
def _sigint_sets() -> Iterator[threading.Event]:
    """An event set by SIGINT while the block runs (on the main thread; elsewhere SIGINT stays a
    KeyboardInterrupt). A flag is checked where the client waits; a KeyboardInterrupt lands at
    whatever bytecode runs, possibly inside an rclpy callback that does not pass it on."""
    interrupted = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: interrupted.set())
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def format_feedback(fields: Feedback, details: bool = True) -> str:
    """A feedback message of execute_directive: one line; with ``details`` indented lines under it
    with the observation, the LLM requests of the decision, and where the planner believes the
    goal's objects are (one line per object) when it keeps a belief."""
    if fields.state == PLANNING:
        return f"[{fields.task_id}] planning ({fields.llm_requests} LLM request(s) so far)"
    if fields.state == ASKING:
        return f"[{fields.task_id}] asking: {fields.question}" + \
            (f"\n    answers: {' | '.join(fields.options)}" if fields.options and details else "")
    lines = [f"[{fields.task_id}] step {fields.step}: {fields.action} -> {fields.outcome}"]
    if details:
        if fields.observation:
            lines.append(f"    observed: {fields.observation}")
        if fields.belief or fields.decision_llm_requests:
            lines.append(f"    decision: {fields.decision_llm_requests} LLM request(s) "
                         f"({fields.llm_requests} so far)")
        lines += [f"    belief:   {b.describe()}" for b in fields.belief]
    return "\n".join(lines)
