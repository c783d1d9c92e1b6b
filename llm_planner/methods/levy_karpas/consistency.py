"""Phase II of Levy & Karpas (seed 001, "Phase II: PDDL Consistency Checking"): the predicted goal
and plan template, with the state, make one PDDL problem; a classical planner (Fast Downward
through unified-planning; the seed used FF, "any automated planner can be used") solves it. A
plan means the two predictions are consistent and is the system's output. Otherwise the next
prediction of the language model is tried, "until either one of these returns a valid plan, or
until some predefined number of tries B passes" (B = 5, "Implementation Details").

Retry order (the seed): "we keep the same goal prediction throughout this process" and take the
next *plan template* of the model's ranked output. When the directive gives no template (a goal
only), the next *goal* reading is tried instead, since there is nothing else to vary. Goal
readings that the apartment cannot have (``Household.check_goal``) are skipped before the goal is
fixed. Each try has the planner's time limit (``pddl.solve`` kills Fast Downward on expiry).

On failure the message names the inconsistent part, found with at most two more solves: the goal
alone unreachable, the first template infeasible by itself, or both feasible alone but
contradicting each other in every try.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from llm_planner.domains.household.language.text import goal_to_text
from llm_planner.domains.household.world import pddl
from llm_planner.domains.household.world.symbolic import Action, Goal, Household, State
from llm_planner.errors import GoalError, PlanningError
from llm_planner.methods.levy_karpas.encoding import solve_combined
from llm_planner.methods.levy_karpas.template import NO_TEMPLATE, PlanTemplate, TemplateError

Solver = Callable[[Household, State, Goal, PlanTemplate, float], pddl.PlanResult]


@dataclass(frozen=True)
class Prediction:
    """One (goal, plan template) output of the translation channels; either part may be empty."""

    goal: Goal = ()
    template: PlanTemplate = NO_TEMPLATE
    score: float = 1.0
    note: str = ""

    def describe(self) -> str:
        parts = []
        if self.goal:
            parts.append(f"goal: {goal_to_text(self.goal)}")
        if not self.template.empty:
            parts.append(f"template: {self.template}")
        return "; ".join(parts) or "nothing"


@dataclass(frozen=True)
class Attempt:
    prediction: Prediction
    status: str
    message: str
    seconds: float


@dataclass
class ConsistencyResult:
    """The plan of the first consistent prediction, or a failure message naming the inconsistency."""

    plan: list[Action] | None
    chosen: Prediction | None
    attempts: list[Attempt] = field(default_factory=list)
    message: str = ""
    seconds: float = 0.0

    @property
    def consistent(self) -> bool:
        return self.plan is not None


def _fix_goal(household: Household, goals: Sequence[Goal]) -> tuple[Goal, str]:
    """The first goal reading the apartment can have, or () with the top reading's error."""
    first_error = ""
    for goal in goals:
        if not goal:
            continue
        try:
            return household.check_goal(goal), ""
        except GoalError as exc:
            first_error = first_error or f"{goal_to_text(goal)}: {exc}"
    return (), first_error


def check_consistency(household: Household, state: State, goals: Sequence[Goal], templates: Sequence[PlanTemplate],
                      tries: int = 5, timeout_s: float = 30.0, solver: Solver = solve_combined,
                      diagnose: bool = True) -> ConsistencyResult:
    """Phase II with retries: ``goals`` and ``templates`` are the channels' ranked predictions
    (best first; empty lists when the directive gives none). Returns the first consistent one."""
    started = time.perf_counter()
    if tries < 1:
        raise PlanningError(f"the number of tries B must be >= 1, got {tries}")
    goals = [g for g in goals if g]
    templates = [t for t in templates if not t.empty]
    goal, goal_error = _fix_goal(household, goals)
    if goals and not goal:
        return ConsistencyResult(None, None, [], f"the goal is impossible in this apartment ({goal_error})",
                                 time.perf_counter() - started)
    if not goal and not templates:
        return ConsistencyResult(None, None, [], "the directive gives neither a goal nor a plan template",
                                 time.perf_counter() - started)
    if templates:
        candidates = [Prediction(goal, t, note=f"template {k + 1}") for k, t in enumerate(templates[:tries])]
    else:
        valid = []
        for k, g in enumerate(goals):
            try:
                valid.append(Prediction(household.check_goal(g), NO_TEMPLATE, note=f"goal reading {k + 1}"))
            except GoalError:
                continue
        candidates = valid[:tries]
    attempts: list[Attempt] = []
    for prediction in candidates:
        result = _try(household, state, prediction, timeout_s, solver)
        attempts.append(Attempt(prediction, result.status, result.message, result.seconds))
        if result.solved:
            return ConsistencyResult(list(result.actions or []), prediction, attempts,
                                     f"consistent ({prediction.note}, try {len(attempts)} of at most {tries}): "
                                     f"plan of {len(result.actions or [])} actions", time.perf_counter() - started)
    message = _failure(household, state, goal, candidates, attempts, timeout_s, solver, diagnose)
    return ConsistencyResult(None, None, attempts, message, time.perf_counter() - started)


def _try(household: Household, state: State, prediction: Prediction, timeout_s: float,
         solver: Solver) -> pddl.PlanResult:
    try:
        return solver(household, state, prediction.goal, prediction.template, timeout_s)
    except TemplateError as exc:
        return pddl.PlanResult(None, pddl.INVALID_GOAL, 0.0, str(exc))


def _failure(household: Household, state: State, goal: Goal, candidates: Sequence[Prediction],
             attempts: Sequence[Attempt], timeout_s: float, solver: Solver, diagnose: bool) -> str:
    n = len(attempts)
    timeouts = sum(1 for a in attempts if a.status == pddl.TIMEOUT)
    limit = f"; {timeouts} of them stopped at the time limit of {timeout_s:g} s" if timeouts else ""
    with_template = [c for c in candidates if not c.template.empty]
    if not with_template:
        readings = "; ".join(goal_to_text(c.goal) for c in candidates)
        return f"no plan reaches the goal from the current state (tried {n} goal reading(s): {readings}{limit})"
    invalid = [a for a in attempts if a.status == pddl.INVALID_GOAL]
    if len(invalid) == n:
        return f"every plan template was malformed ({n} tried); the first: {invalid[0].message}"
    if not diagnose:
        return f"no plan is consistent with the goal and the plan template in {n} tries{limit}"
    if goal:
        alone = solver(household, state, goal, NO_TEMPLATE, timeout_s)
        if not alone.solved:
            return (f"the goal ({goal_to_text(goal)}) cannot be reached from the current state: {alone.message} "
                    f"(no need to blame the {n} plan template(s) tried)")
    first = next(a for a in attempts if a.status != pddl.INVALID_GOAL)
    alone = _try(household, state, Prediction((), first.prediction.template), timeout_s, solver)
    if not alone.solved:
        return (f"the plan template cannot be followed from the current state: '{first.prediction.template}' "
                f"has no plan even without the goal ({alone.message}); {n} template(s) tried{limit}")
    if not goal:
        return f"no plan follows the plan template in {n} tries{limit}"
    return (f"the plan template contradicts the goal in all {n} prediction(s): '{first.prediction.template}' can be "
            f"followed and the goal ({goal_to_text(goal)}) can be reached, but no plan does both{limit}")


def memoized(solver: Solver = solve_combined, capacity: int = 4096) -> Solver:
    """The solver with its results kept per (household, state, goal, template, time limit); the
    benchmark's directive-only and directive+state runs often ask the same problem."""
    memory: dict[tuple, pddl.PlanResult] = {}

    def solve(household: Household, state: State, goal: Goal, template: PlanTemplate,
              timeout_s: float) -> pddl.PlanResult:
        key = (id(household), state, tuple(goal), str(template), timeout_s)
        hit = memory.get(key)
        if hit is None:
            hit = solver(household, state, goal, template, timeout_s)
            if hit.status != pddl.TIMEOUT:
                if len(memory) >= capacity:
                    memory.clear()
                memory[key] = hit
        return hit

    return solve
