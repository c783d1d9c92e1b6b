"""One G-TAMP benchmark episode: a registered planner in the closed loop of
:func:`llm_planner.execution.run_episode` (the loop the executor node runs) on :class:`GTampSim`,
until the goal holds, the time budget is spent, or the step limit is reached (seed §4.1: success is
a plan found within the time budget; the robot executes what the planner returns), and the record
the benchmark tables are built from."""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from llm_planner.adapters.gtamp import GTampDomain
from llm_planner.domains.gtamp.config import GTampConfig, load_config
from llm_planner.domains.gtamp.domain import ProblemSpec
from llm_planner.domains.gtamp.problems import load_problem
from llm_planner.domains.gtamp.sim import GTampSim, GTampSimWorld
from llm_planner.execution import run_episode
from llm_planner.methods.stalm.llm_source import PlanSource
from llm_planner.methods.stalm.planner import GTampPlanner, GTampTask, registry_name
from llm_planner.planners.base import create


@dataclass
class EpisodeResult:
    """Per-episode record of the benchmark (DESIGN.md ``episodes`` entries)."""

    problem: str
    method: str
    seed: int
    success: bool
    planning_time_s: float
    time_budget_s: float
    steps: int
    llm_requests: int
    llm_seconds: float
    mp_calls: int
    samples: int
    simulations: int
    replans: int
    wall_s: float
    stop: str
    plan: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    llm_unanswered: int = 0     # STaLM questions given up (search.question_share) or open at the end
    question_seconds: list[float] = field(default_factory=list)  # each ended question's seconds, in order
    question_plans: list[int] = field(default_factory=list)      # ... and the plans it asked for (its batch)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def run_benchmark_episode(problem: ProblemSpec | str, method: str, seed: int = 0, budget_s: float | None = None,
                          backend: str = "offline", config: GTampConfig | None = None,
                          plan_source: PlanSource | None = None, max_errors: int = 20,
                          clock: str = "wall") -> EpisodeResult:
    """Run ``method`` (``stalm``, ``uct``, ...) on ``problem`` with a time budget (default: the
    problem's), planning time measured on ``clock`` (wall | cpu), and return what happened."""
    spec = load_problem(problem) if isinstance(problem, str) else problem
    config = config or load_config()
    budget = spec.time_budget_s if budget_s is None else budget_s
    started = time.perf_counter()
    planner = create(registry_name(method), backend=backend, seed=seed, config=config, plan_source=plan_source,
                     clock=clock)
    assert isinstance(planner, GTampPlanner)  # registry_name names a G-TAMP planner
    sim = GTampSim(spec)
    try:
        result = run_episode(GTampDomain, planner, GTampTask(spec, time_budget_s=budget), GTampSimWorld(sim))
        success = result.success and planner.stats.planning_time_s <= budget
        stop = "goal reached" if success else "goal reached after the time budget" if result.success else result.message
        executed = [s.action_text + ("" if s.success else f" [failed: {s.reason}]") for s in result.steps]
        return EpisodeResult(
            spec.name, method, seed, success, planner.stats.planning_time_s, budget, len(executed),
            planner.stats.llm_requests, planner.stats.llm_seconds, planner.mp_calls,
            planner.ctx.model.counters.samples if planner.ctx else 0, planner.stats.simulations,
            planner.plans_asked, time.perf_counter() - started, stop, executed, planner.errors[-max_errors:],
            _unanswered(planner), *_questions(planner))
    finally:
        sim.close()
        if planner.ctx is not None:
            planner.ctx.model.world.close()


def _questions(planner: GTampPlanner) -> tuple[list[float], list[int]]:
    """The seconds and the batch of every question of the episode that ended (answered or failed)."""
    llm = planner.ctx.llm if planner.ctx else None
    records = list(llm.questions) if llm is not None else []
    return [round(q.seconds, 2) for q in records], [q.plans for q in records]


def _unanswered(planner: GTampPlanner) -> int:
    llm = planner.ctx.llm if planner.ctx else None
    given_up = llm.unanswered if llm is not None else 0
    return given_up + (planner.policy.questions_open() if planner.policy else 0)
