"""The states of a task, spelled here once (no ROS here).

A task's ``state`` on ``task_status`` and in the feedback of ``execute_directive`` and
``execute_task`` is one of :data:`TASK_STATES`; ``msg/TaskStatus.msg`` declares the same values as
``STATE_*`` constants (``test/ros/test_task_states.py`` checks they match). How a task moves::

    planning -> [asking -> planning] -> executing ... -> succeeded | failed | canceled
    planning -> planned | failed                       (plan only, /plan_task without execute)
    refused                                            (the robot is busy, or a question went unanswered)

The closed loop (:func:`llm_planner.execution.run_episode`) ends an episode with one of
:data:`EPISODE_OUTCOMES`: :data:`TIMED_OUT` is an outcome only (benchmarks count it); on
``task_status`` such a task ends ``failed`` (:func:`final_state`), its message saying the time
limit was reached.
"""
from __future__ import annotations

from typing import Final

PLANNING: Final = "planning"     # grounding the directive, or waiting for the executor's first step
ASKING: Final = "asking"         # waiting for the answer to a question
PLANNED: Final = "planned"       # a plan-only request answered
EXECUTING: Final = "executing"   # the robot runs the task, one status per step
SUCCEEDED: Final = "succeeded"
FAILED: Final = "failed"
CANCELED: Final = "canceled"     # one l (the ROS action status is STATUS_CANCELED)
REFUSED: Final = "refused"       # not started (the robot is busy), or a question left unanswered
TIMED_OUT: Final = "timed_out"   # an episode's outcome only: task_status says failed

#: Every value of ``TaskStatus.state``, in the order of ``msg/TaskStatus.msg``.
TASK_STATES: Final = (PLANNING, ASKING, PLANNED, EXECUTING, SUCCEEDED, FAILED, CANCELED, REFUSED)
#: The states after which a task runs no more (its last ``task_status``).
FINAL_STATES: Final = frozenset({PLANNED, SUCCEEDED, FAILED, CANCELED, REFUSED})
#: How an episode of the closed loop ends (:attr:`llm_planner.execution.EpisodeResult.outcome`).
EPISODE_OUTCOMES: Final = (SUCCEEDED, FAILED, CANCELED, TIMED_OUT)


def final_state(outcome: str) -> str:
    """The last ``task_status`` state of a task whose episode ended with ``outcome``:
    succeeded and canceled as they are, anything else (timed_out, failed) failed."""
    return outcome if outcome in (SUCCEEDED, CANCELED) else FAILED
