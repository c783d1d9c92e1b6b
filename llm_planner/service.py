"""The logic behind ``/plan_task``, free of ROS: check the request, translate the directive into a
grounded goal, and either preview a plan on the current state or hand the goal to execution.

The planner node only converts messages and calls :class:`PlanningService`; tests and the CLI can
call it directly.
"""
from __future__ import annotations

import time
import unicodedata
import uuid
from dataclasses import dataclass, field
from typing import Callable, Protocol

from llm_planner.errors import ConfigError, GoalError, LlmPlannerError
from llm_planner.planners.base import Task, available, create
from llm_planner.world.symbolic import Goal, Household, Observation, State, goal_to_lists


@dataclass(frozen=True)
class Translation:
    """A directive grounded in the scene."""

    goal: Goal
    message: str = ""
    llm_requests: int = 0


class Translator(Protocol):
    def __call__(self, directive: str, planner: str = "") -> Translation: ...


@dataclass
class PlanTaskRequest:
    directive: str
    planner: str = ""
    execute: bool = False
    timeout_s: float = 0.0


@dataclass
class PlanTaskResult:
    """The fields of the /plan_task response (and of ``llm-planner plan --json``)."""

    success: bool
    message: str
    goal: list = field(default_factory=list)
    plan: list[str] = field(default_factory=list)
    task_id: str = ""
    llm_requests: int = 0
    planning_time_s: float = 0.0
    executed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"success": self.success, "message": self.message, "goal": self.goal, "plan": self.plan,
                "task_id": self.task_id, "llm_requests": self.llm_requests,
                "planning_time_s": round(self.planning_time_s, 4), "executed": self.executed}


def new_task_id() -> str:
    return uuid.uuid4().hex[:12]


def check_directive(text: str, max_chars: int) -> str:
    """The cleaned directive, or GoalError saying what is wrong with it."""
    if not isinstance(text, str):
        raise GoalError("the directive must be text")
    cleaned = " ".join(text.split())
    if not cleaned:
        raise GoalError("the directive is empty; say what to do, e.g. 'put one apple inside the fridge'")
    if len(cleaned) > max_chars:
        raise GoalError(f"the directive has {len(cleaned)} characters; the limit is {max_chars} "
                        "(parameter max_directive_chars): say one task in a sentence or two")
    bad = [c for c in cleaned if c == "\ufffd" or unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs", "Cn")]
    if bad:
        raise GoalError(f"the directive contains {len(bad)} non-text character(s) (e.g. {bad[0]!r}); "
                        "send plain UTF-8 text")
    return cleaned


def resolve_planner(name: str, default: str) -> str:
    name = (name or default).strip()
    known = available("household")
    if name not in known:
        raise ConfigError(f"unknown planner '{name}' (available: {', '.join(known)})")
    return name


@dataclass
class PlanningService:
    """Request checking, translation and plan preview for one scene."""

    household: Household
    translate: Translator
    default_planner: str = "classical"
    max_directive_chars: int = 2000
    planner_params: Callable[[str], dict] = lambda name: {}

    def prepare(self, request: PlanTaskRequest) -> tuple[str, str, Translation]:
        """Check the request and ground its directive: (directive, planner name, translation)."""
        directive = check_directive(request.directive, self.max_directive_chars)
        planner = resolve_planner(request.planner, self.default_planner)
        translation = self.translate(directive, planner)
        self.household.check_goal(translation.goal)
        return directive, planner, translation

    def preview(self, directive: str, planner_name: str, goal: Goal, observation: Observation,
                full_state: State | None) -> tuple[list[str], int, float, str]:
        """Plan without executing: (plan steps, LLM requests, seconds, message)."""
        if full_state is not None and self.household.satisfied(full_state, goal):
            return [], 0, 0.0, "the goal already holds; nothing to do"
        planner = create(planner_name, **self.planner_params(planner_name))
        task = Task(directive=directive, goal=goal, household=self.household)
        started = time.perf_counter()
        planner.start(task, observation, full_state if planner.needs_full_state else None)
        steps = [str(a) for a in planner.preview()]
        if not steps:
            first = planner.decide(observation, full_state if planner.needs_full_state else None)
            if first.action is None:
                raise LlmPlannerError(first.message or f"{planner_name} found no plan")
            steps = [str(first.action)]
        seconds = time.perf_counter() - started
        return steps, planner.stats.llm_requests, seconds, getattr(planner, "describe", lambda: "")()

    def failure(self, exc: Exception, task_id: str = "") -> PlanTaskResult:
        return PlanTaskResult(success=False, message=str(exc), task_id=task_id)

    @staticmethod
    def goal_lists(goal: Goal) -> list:
        return goal_to_lists(goal)
