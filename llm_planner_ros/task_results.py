"""What :class:`~llm_planner_ros.client.PlannerClient` returns: frozen, typed results, and the
status of an executed task as an enum (as nav2_simple_commander's ``TaskResult``). No ROS here:
the messages become these in :mod:`llm_planner_ros.conversions`.

Front ends that send a result on as JSON (``llm-planner plan --json``, the web page's events, the
MCP tools) convert it with :func:`to_json`, the one place that decides the wire shape::

    >>> to_json(ExecutionResult(True, "goal reached in 1 step", (("inside", "apple", "fridge", 1),),
    ...                         ("walk(fridge)",), "abc", 2, 0.5, status=TaskResult.SUCCEEDED))["status"]
    'succeeded'
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, NamedTuple

from llm_planner.task_states import CANCELED, FAILED, SUCCEEDED

if TYPE_CHECKING:  # the CLI imports this module to print results: no planner code at its start
    from llm_planner.planners.base import ObjectBelief


class TaskResult(Enum):
    """How an ``execute_directive`` goal ended; the values are the task states of
    :mod:`llm_planner.task_states` (``succeeded``, ``failed``, ``canceled``)."""

    SUCCEEDED = SUCCEEDED
    FAILED = FAILED      # the goal ended aborted: the task failed, or was refused (the robot was busy)
    CANCELED = CANCELED  # canceled through the action, cancel_task, or an approval answered "no"
    UNKNOWN = "unknown"  # an action status the client does not know


@dataclass(frozen=True)
class PlanResult:
    """The answer of ``plan_task`` (:meth:`PlannerClient.plan`, :meth:`PlannerClient.plan_task`)."""

    success: bool                        # planned (executed, with ``execute``); false: refused or failed
    message: str                         # what happened, or what was wrong with the request
    goal: tuple[tuple[Any, ...], ...]    # the formal goal: the domain's goal lists, e.g. (inside, apple, fridge, 1)
    plan: tuple[str, ...]                # the actions chosen, in order, e.g. walk(kitchen)
    task_id: str
    llm_requests: int
    planning_time_s: float
    executed: tuple[str, ...] = ()       # when executed: "step -> outcome; observed: ..."
    question: str = ""                   # a directive that needs an answer first: the question
    options: tuple[str, ...] = ()        # and the answers it offers


@dataclass(frozen=True)
class ExecutionResult(PlanResult):
    """The result of an ``execute_directive`` goal (:meth:`PlannerClient.result`,
    :meth:`PlannerClient.run`): the /plan_task fields and how the goal ended."""

    status: TaskResult = TaskResult.UNKNOWN


@dataclass(frozen=True)
class Feedback:
    """One feedback message of the running ``execute_directive`` goal (:meth:`PlannerClient.feedback`)."""

    task_id: str
    state: str                           # planning, asking or executing (llm_planner.task_states)
    step: int                            # 0 while planning
    action: str                          # the skill just done
    outcome: str                         # ok, or why the skill failed
    observation: str                     # what was observed after the skill
    llm_requests: int                    # the planner's LLM requests so far
    decision_llm_requests: int           # LLM requests of this step's decision
    belief: tuple[ObjectBelief, ...]     # where the planner believes the goal's objects are (empty: none kept)
    question: str = ""                   # state asking: the question
    options: tuple[str, ...] = ()        # state asking: the answers it offers


@dataclass(frozen=True)
class TaskQuestion:
    """What a task in state ``asking`` asks (:meth:`PlannerClient.question`)."""

    task_id: str
    question: str                        # e.g. "which table: kitchen table or coffee table?", "May I ...?"
    options: tuple[str, ...]             # the answers it offers


class Reply(NamedTuple):
    """A service's answer (``answer_task``, ``cancel_task``); unpacks as ``(success, message)``."""

    success: bool                        # taken (answer_task) or done (cancel_task)
    message: str                         # how an answer was read, what was canceled, or why not


#: The fields :func:`to_json` leaves out while empty (the ``--json`` output has them only when they say something).
_ONLY_WHEN_SET = {"executed": "executed", "question": "question", "options": "question"}


def to_json(result: PlanResult | Feedback | TaskQuestion) -> dict[str, Any]:
    """``result`` as JSON-ready data: its fields by name, enums as their values, tuples as lists;
    a :class:`PlanResult`'s ``executed`` only when it has steps and ``question`` and ``options``
    only when it asks (the ``llm-planner plan --json`` object, the ``status`` of an
    :class:`ExecutionResult` included)."""
    data = {name: _plain(value) for name, value in asdict(result).items()}
    if isinstance(result, PlanResult):
        data = {k: v for k, v in data.items() if k not in _ONLY_WHEN_SET or getattr(result, _ONLY_WHEN_SET[k])}
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
