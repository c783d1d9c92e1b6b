"""STaLM, Algorithm 1 of seed 003, as a policy that plans from a state::

    TaskPlans <- QueryLLM(CreatePrompt(s0, G), N_batch)
    success, Plans <- Concretize(TaskPlans, s0, h)
    if success: return Plans
    Q <- WarmStartedUCT(Plans, s0, h, N_budget).Q
    return argmax_{a, delta, kappa} Q(s, a(delta, kappa))

A :class:`Policy` returns the steps to execute: the whole plan when one reaches the goal in the
model, else the single best root action (the caller executes it and plans again from the new
state, as the seed's closed loop does). The baselines (``baselines.py``) share the
:class:`Context`: the world model, the predicate computer, the plan source and the parameters.
"""
from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from llm_planner.domains.gtamp.config import GTampConfig
from llm_planner.domains.gtamp.domain import GState, ProblemSpec, TaskAction
from llm_planner.domains.gtamp.operators import GTampModel
from llm_planner.domains.gtamp.predicates import PredicateComputer
from llm_planner.methods.stalm.llm_source import PlanSource
from llm_planner.methods.stalm.plan_parser import ParsedPlan, Vocabulary, parse_plan
from llm_planner.methods.stalm.prompt import PromptOptions, create_prompt
from llm_planner.methods.stalm.search import Deadline, HybridUCT, Step, concretize


@dataclass
class Context:
    """Everything a G-TAMP policy plans with (one per episode)."""

    problem: ProblemSpec
    model: GTampModel
    predicates: PredicateComputer
    llm: PlanSource | None
    config: GTampConfig
    rng: random.Random
    vocab: Vocabulary

    @classmethod
    def build(cls, problem: ProblemSpec, config: GTampConfig, llm: PlanSource | None, seed: int = 0) -> Context:
        model = GTampModel(problem, config, seed)
        vocab = Vocabulary(problem.object_names, problem.region_names, problem.door_names)
        return cls(problem, model, PredicateComputer(model), llm, config, random.Random(seed + 1), vocab)

    def parse(self, texts: Sequence[str]) -> tuple[list[tuple[TaskAction, ...]], list[str]]:
        """Valid task plans (their valid prefixes) and the parse errors, per response."""
        plans, errors = [], []
        for k, text in enumerate(texts, 1):
            parsed: ParsedPlan = parse_plan(text, self.vocab, self.model.validate)
            if parsed.actions:
                plans.append(parsed.actions)
            elif parsed.complete:
                errors.append(f"plan {k}: empty plan")
            errors += [f"plan {k}: {e}" for e in parsed.errors]
        return plans, errors

    def ask(self, prompt: str, n: int) -> tuple[list[tuple[TaskAction, ...]], list[str]]:
        if self.llm is None:
            return [], ["no language model configured"]
        texts = self.llm.task_plans(prompt, n)
        if not texts:
            return [], [f"the language model gave no answer ({'; '.join(self.llm.errors[-1:])})"]
        return self.parse(texts)


@dataclass
class PlanResult:
    """What a policy decided from one state."""

    steps: list[Step]
    solved: bool
    task_plans: list[tuple[TaskAction, ...]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    simulations: int = 0


class Policy(ABC):
    """Plans from a state; ``h`` is the number of steps already executed (the search depth offset)."""

    name = ""

    def __init__(self, ctx: Context, **params: object) -> None:
        self.ctx = ctx
        self.params = params

    @abstractmethod
    def plan(self, s: GState, h: int, deadline: Deadline, history: Sequence[TaskAction]) -> PlanResult:
        """Steps to execute from ``s`` (empty: nothing feasible found)."""

    def _tree_result(self, tree: HybridUCT, plans: list, errors: list[str]) -> PlanResult:
        if tree.solution is not None:
            return PlanResult(tree.solution, True, plans, errors, tree.simulations)
        best = tree.best()
        return PlanResult([best] if best else [], False, plans, errors, tree.simulations)


class StalmPolicy(Policy):
    """Algorithm 1 (with ``n_budget=0``: STaLM without UCT, seed Table 3; with ``options``: the
    prompt ablations of Table 4)."""

    name = "stalm"

    def __init__(self, ctx: Context, n_budget: int | None = None, options: PromptOptions | None = None,
                 n_batch: int | None = None) -> None:
        super().__init__(ctx)
        search = ctx.config.search
        self.n_budget = search.n_budget if n_budget is None else int(n_budget)
        self.n_batch = n_batch or search.n_batch
        self.options = options or PromptOptions(ctx.config.prompt.occlusion_info, ctx.config.prompt.ask_challenges)

    def plan(self, s: GState, h: int, deadline: Deadline, history: Sequence[TaskAction]) -> PlanResult:
        ctx = self.ctx
        prompt = create_prompt(ctx.problem, ctx.predicates.literals(s), self.options)
        task_plans, errors = ctx.ask(prompt, self.n_batch)
        success, plans = concretize(task_plans, s, h, ctx.model, deadline)
        if success:
            return PlanResult(plans[-1].steps, True, task_plans, errors)
        errors += [f"plan {k}: {p.failure}" for k, p in enumerate(plans, 1)]
        tree = HybridUCT(ctx.model, s, h, rng=ctx.rng, deadline=deadline).run(plans, self.n_budget)
        return self._tree_result(tree, task_plans, errors)
