"""STaLM and its baselines as registered planners (``create('stalm', ...)``) on the G-TAMP domain.

They keep the project's planner interface (``start`` / ``decide`` / ``record`` / ``preview``,
``stats``) with G-TAMP types: the task is a :class:`GTampTask`, observations are perceived
:class:`~llm_planner.domains.gtamp.domain.GState` s, and decisions carry
:class:`~llm_planner.domains.gtamp.domain.ConcreteAction` s that
:meth:`llm_planner.domains.gtamp.sim.GTampSim.execute` runs on the robot.

``decide`` plans with the method's policy when it has nothing queued (or the observation is not
the state it expected), then hands out the queued steps one by one; ``record`` with a failure
drops the queue, so the next ``decide`` replans from the newly observed state. Planning time is
charged against the task's time budget; when it is spent, ``decide`` gives up.

Registry names: the STaLM family as below; the baselines with a ``gtamp_`` prefix
(``gtamp_uct``, ...), because the household planners own ``uct`` and ``llm_mcts``.

=========================  ==================================================================
method                     what it is (seed 003)
=========================  ==================================================================
stalm                      Algorithm 1 (N_batch 5, N_budget 30)
stalm_no_uct               N_budget = 0 (Table 3)
stalm_no_occ               prompt without occlusion predicates (Table 4)
stalm_no_chal              prompt without asking for challenges (Table 4)
stalm_no_occ_no_chal       both ablated (Table 4, first row)
uct, uct_hcount            hybrid UCT, N_budget 35; Rollout or Hcount leaf values
saycan                     LLM "say" x precondition "can", greedy
iterative_replanning       up to 5 plans per step with failed plans fed back
llm_mcts                   PUCT with an LLM policy at every node, N_budget 35
=========================  ==================================================================
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from llm_planner.domains.gtamp.config import GTampConfig, load_config
from llm_planner.domains.gtamp.domain import ConcreteAction, GoalAtom, GState, ProblemSpec, TaskAction
from llm_planner.domains.gtamp.sim import same_state
from llm_planner.errors import ConfigError
from llm_planner.methods.stalm.baselines import IterativeReplanningPolicy, LlmMctsPolicy, SayCanPolicy, UctPolicy
from llm_planner.methods.stalm.llm_source import PlanSource, make_plan_source
from llm_planner.methods.stalm.prompt import PromptOptions
from llm_planner.methods.stalm.search import CLOCKS, Deadline, Step
from llm_planner.methods.stalm.stalm import Context, Policy, StalmPolicy
from llm_planner.planners.base import Decision, Planner, register


@dataclass(frozen=True)
class GTampTask:
    """One G-TAMP episode: the problem (its goal inside), a time budget and a step limit."""

    problem: ProblemSpec
    time_budget_s: float | None = None      # default: the problem's
    max_steps: int | None = None            # default: the horizon H
    directive: str = ""

    @property
    def goal(self) -> tuple[GoalAtom, ...]:
        """The problem's goal (what the closed loop checks in the world)."""
        return self.problem.goal


PolicyFactory = Callable[[Context, GTampConfig], Policy]


def _stalm(**kw: Any) -> PolicyFactory:
    return lambda ctx, cfg: StalmPolicy(ctx, **kw)


POLICIES: dict[str, PolicyFactory] = {
    "stalm": _stalm(),
    "stalm_no_uct": lambda ctx, cfg: StalmPolicy(ctx, **cfg.baseline("stalm_no_uct")),
    "stalm_no_occ": _stalm(options=PromptOptions(occlusion_info=False)),
    "stalm_no_chal": _stalm(options=PromptOptions(ask_challenges=False)),
    "stalm_no_occ_no_chal": _stalm(options=PromptOptions(occlusion_info=False, ask_challenges=False)),
    "uct": lambda ctx, cfg: UctPolicy(ctx, **cfg.baseline("uct")),
    "uct_hcount": lambda ctx, cfg: UctPolicy(ctx, hcount=True, **cfg.baseline("uct_hcount")),
    "saycan": lambda ctx, cfg: SayCanPolicy(ctx, **cfg.baseline("saycan")),
    "iterative_replanning": lambda ctx, cfg: IterativeReplanningPolicy(ctx, **cfg.baseline("iterative_replanning")),
    "llm_mcts": lambda ctx, cfg: LlmMctsPolicy(ctx, **cfg.baseline("llm_mcts")),
}
#: methods that ask a language model
LLM_METHODS = frozenset(m for m in POLICIES if m not in ("uct", "uct_hcount"))


class GTampPlanner(Planner[GTampTask, GState, ConcreteAction, GState]):
    """A G-TAMP planner: a policy from :data:`POLICIES` driven in the closed loop.

    Parameters: ``backend`` (offline | openai, the LLM layer's backend), ``seed``, ``config`` (a
    :class:`GTampConfig`; default ``config/gtamp/stalm.yaml``), ``plan_source`` (a ready
    :class:`PlanSource`, e.g. shared or scripted in tests), ``clock`` (``wall``, or ``cpu``: this
    process's CPU seconds, which other programs on a shared machine do not inflate; planning
    time and the time budget are measured on it)."""

    domain = "gtamp"

    method: ClassVar[str] = "stalm"

    def __init__(self, backend: str = "offline", seed: int = 0, config: GTampConfig | None = None,
                 plan_source: PlanSource | None = None, clock: str = "wall", **params: Any) -> None:
        super().__init__(backend=backend, seed=seed, clock=clock, **params)
        if self.method not in POLICIES:
            raise ConfigError(f"unknown G-TAMP method '{self.method}' (known: {', '.join(POLICIES)})")
        if clock not in CLOCKS:
            raise ConfigError(f"unknown clock '{clock}' (known: {', '.join(CLOCKS)})")
        self.clock = clock
        self.config = config or load_config()
        self.seed = seed
        self.backend = backend
        self._plan_source = plan_source
        self.ctx: Context | None = None
        self.policy: Policy | None = None
        self.queue: list[Step] = []
        self.history: list[TaskAction] = []
        self.errors: list[str] = []
        self.plans_asked = 0
        self.budget_s = float("inf")
        self.max_steps = self.config.search.horizon

    # ------------------------------------------------------------------ interface
    def start(self, task: GTampTask, observation: GState, full_state: GState | None = None) -> None:
        """Begin an episode from the observed state (the problem's geometry, the observed poses)."""
        self.task = task
        llm = None
        if self.method in LLM_METHODS:
            llm = self._plan_source or make_plan_source(self.backend, self.seed)
        problem = task.problem.with_initial(observation)
        self.ctx = Context.build(problem, self.config, llm, self.seed)
        self.policy = POLICIES[self.method](self.ctx, self.config)
        self.queue, self.history, self.errors = [], [], []
        self.budget_s = task.time_budget_s if task.time_budget_s is not None else problem.time_budget_s
        self.max_steps = task.max_steps or self.config.search.horizon

    def decide(self, observation: GState, full_state: GState | None = None) -> Decision[ConcreteAction]:
        """The next concrete action; plans (Algorithm 1 or the baseline) when nothing is queued."""
        if self.ctx is None or self.policy is None:
            raise RuntimeError("call start() before decide()")
        started = CLOCKS[self.clock]()
        try:
            return self._decide(observation)
        finally:
            self.stats.planning_time_s += CLOCKS[self.clock]() - started

    def _decide(self, observation: GState) -> Decision[ConcreteAction]:
        self.stats.decisions += 1
        if self.queue and not same_state(self.queue[0].before, observation):
            self.queue = []
        if not self.queue:
            remaining = self.budget_s - self.stats.planning_time_s
            if remaining <= 0:
                return Decision(None, "time budget exhausted")
            if len(self.history) >= self.max_steps:
                return Decision(None, f"step limit {self.max_steps} reached")
            self._plan(observation, Deadline.after(remaining, self.clock, self.should_stop))
        self._sync_stats()
        if not self.queue:
            return Decision(None, "no feasible action found" + (f" ({self.errors[-1]})" if self.errors else ""))
        return Decision(self.queue[0].action)

    def record(self, action: ConcreteAction, success: bool, reason: str, observation: GState) -> None:
        """Outcome of the last step: pop it, or drop the plan so the next decide replans."""
        if success and self.queue and self.queue[0].action is action:
            self.history.append(action.action)
            self.queue.pop(0)
        else:
            if not success:
                self.errors.append(f"{action}: {reason}")
                if self.queue and self.queue[0].action is action:
                    self.history.append(action.action)
            self.queue = []

    def preview(self) -> list[ConcreteAction]:
        return [s.action for s in self.queue]

    # ------------------------------------------------------------------ internals
    def _plan(self, observation: GState, deadline: Deadline) -> None:
        assert self.ctx is not None and self.policy is not None
        self.plans_asked += 1
        result = self.policy.plan(observation, len(self.history), deadline, tuple(self.history))
        self.stats.simulations += result.simulations
        self.errors += result.errors
        self.queue = list(result.steps)

    def _sync_stats(self) -> None:
        llm = self.ctx.llm if self.ctx else None
        if llm is not None:
            self.stats.llm_requests = llm.requests
            self.stats.llm_seconds = llm.seconds

    @property
    def mp_calls(self) -> int:
        return self.ctx.model.counters.mp_calls if self.ctx else 0


def registry_name(method: str) -> str:
    """Name in the planner registry: the household planners already own ``uct`` and ``llm_mcts``,
    so the G-TAMP baselines are registered as ``gtamp_<method>``; the STaLM family as is."""
    return method if method.startswith("stalm") else f"gtamp_{method}"


def _planner_class(method: str) -> type[GTampPlanner]:
    cls = cast("type[GTampPlanner]",  # type() builds a subclass of GTampPlanner
               type(f"GTamp_{method}", (GTampPlanner,), {"method": method, "__doc__": f"G-TAMP planner '{method}'."}))
    register(registry_name(method))(cls)
    cls.method = method
    return cls


PLANNERS: dict[str, type[GTampPlanner]] = {m: _planner_class(m) for m in POLICIES}
