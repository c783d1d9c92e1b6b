"""Following one action goal from a worker thread: send it, relay its feedback, cancel it as soon
as the caller asks, and give up with a message naming the server when it leaves the ROS graph, does
not stop after a cancel, or overruns its time limit. The planner node's link to the executor
(:mod:`llm_planner_ros.executor_link`) and the executor's link to the robot
(:mod:`llm_planner_ros.robot_link`) both follow their goals with it."""
from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rclpy.action import ActionClient
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.qos import QoSProfile, QoSReliabilityPolicy
from unique_identifier_msgs.msg import UUID

from llm_planner.errors import LlmPlannerError

#: How often a goal's wait checks for a cancel request, the server's presence and the time limit.
POLL_S = 0.05
#: The feedback subscription of a :class:`FeedbackTap`: reliable, as an action server publishes it,
#: and deep enough for every step's message of a burst.
FEEDBACK_QOS = QoSProfile(depth=100, reliability=QoSReliabilityPolicy.RELIABLE)


class FeedbackTap:
    """The feedback of an action's goals, from a subscription of its own, handed to one callback per goal
    in the order it was published.

    rclpy's ActionClient forgets a goal's feedback callback as soon as it takes the goal's result,
    and the result (a service response) and the feedback (a topic) come in no fixed order: the
    feedback of the last step, published just before the result, is then dropped, however long one
    waits for it. A tap delivers a goal's feedback until :meth:`forget`, so a caller can wait for the
    last step's feedback after the result. Send the goal with ``goal_uuid=`` the id :meth:`follow`
    gives and no ``feedback_callback``."""

    def __init__(self, node: Node, action_type: Any, action_name: str) -> None:
        self._callbacks: dict[bytes, Callable[[Any], None]] = {}
        self.subscription = node.create_subscription(
            action_type.Impl.FeedbackMessage, f"{action_name}/_action/feedback", self._deliver, FEEDBACK_QOS,
            callback_group=MutuallyExclusiveCallbackGroup())

    def follow(self, on_feedback: Callable[[Any], None]) -> UUID:
        """A new goal id whose feedback messages (``.goal_id``, ``.feedback``) go to ``on_feedback``."""
        goal_id = UUID(uuid=list(uuid.uuid4().bytes))
        self._callbacks[bytes(goal_id.uuid)] = on_feedback
        return goal_id

    def forget(self, goal_id: UUID | None) -> None:
        """Deliver no more feedback of ``goal_id``."""
        if goal_id is not None:
            self._callbacks.pop(bytes(goal_id.uuid), None)

    def _deliver(self, message: Any) -> None:
        on_feedback = self._callbacks.get(bytes(message.goal_id.uuid))
        if on_feedback is not None:
            on_feedback(message)


@dataclass(frozen=True)
class GoalEnd:
    """How a goal ended: its final ``action_msgs/GoalStatus``, its result, whether a cancel was sent."""

    status: int
    result: Any
    cancel_sent: bool


def _absence(client: ActionClient, since: float | None, now: float, absent_s: float,
             gone: Callable[[], str]) -> float | None:
    """Since when the server has been absent from the graph (None: it is there); LlmPlannerError with
    ``gone()`` once that is longer than ``absent_s``."""
    since = None if client.server_is_ready() else since or now
    if since is not None and now - since > absent_s:
        raise LlmPlannerError(gone())
    return since


def send_goal(client: ActionClient, goal: Any, feedback: Callable[[Any], None] | None, wait_s: float,
              refused: Callable[[], str], gone: Callable[[], str], absent_s: float, goal_id: UUID | None = None
              ) -> Any:
    """Send ``goal`` (with ``goal_id``, e.g. one a :class:`FeedbackTap` follows) and wait (``wait_s``)
    until it is accepted: its goal handle.

    LlmPlannerError with ``gone()`` when the server is absent from the graph for ``absent_s`` meanwhile
    or at the end of the wait (a server killed just before the goal went out never answers it), else
    with ``refused()`` when the goal is rejected or not answered in time."""
    sent = client.send_goal_async(goal, feedback_callback=feedback, goal_uuid=goal_id)
    done = threading.Event()
    sent.add_done_callback(lambda _: done.set())
    give_up = time.monotonic() + wait_s
    absent_since = None
    while not done.wait(POLL_S) and not sent.done():
        now = time.monotonic()
        absent_since = _absence(client, absent_since, now, absent_s, gone)
        if now > give_up:
            raise LlmPlannerError(refused() if client.server_is_ready() else gone())
    handle = sent.result()
    if handle is None or not handle.accepted:
        raise LlmPlannerError(refused())
    return handle


def follow_goal(client: ActionClient, handle: Any, *, should_cancel: Callable[[], bool], limit_s: float,
                absent_s: float, gone: Callable[[], str], overrun: Callable[[float], str],
                cancel_wait_s: float | None = None) -> GoalEnd:
    """Wait for an accepted goal's result, sending a cancel request as soon as ``should_cancel()``.

    LlmPlannerError with ``gone()`` when the server is absent from the graph for ``absent_s``, or
    with ``overrun(seconds)`` (the goal then asked to cancel) when the goal runs past ``limit_s``, or
    past ``cancel_wait_s`` after a cancel request (when given)."""
    result = handle.get_result_async()
    done = threading.Event()
    result.add_done_callback(lambda _: done.set())
    started = time.monotonic()
    give_up = started + limit_s
    cancel_sent, absent_since = False, None
    while not done.wait(POLL_S) and not result.done():
        now = time.monotonic()
        if not cancel_sent and should_cancel():
            handle.cancel_goal_async()
            cancel_sent = True
            if cancel_wait_s is not None:
                give_up = min(give_up, now + cancel_wait_s)
        absent_since = _absence(client, absent_since, now, absent_s, gone)
        if now > give_up:
            handle.cancel_goal_async()
            raise LlmPlannerError(overrun(now - started))
    response = result.result()
    return GoalEnd(response.status, response.result, cancel_sent)
